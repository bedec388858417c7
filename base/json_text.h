/* json_text.h - text that goes into JSON the tools write (diagnostics, the
 * language server's messages, tuning logs).  JSON must be valid UTF-8, but
 * source comments, strings and file names may hold any bytes: every invalid
 * UTF-8 sequence becomes U+FFFD (the replacement character), as a decoder
 * following the Unicode "maximal subpart" practice would show it. */
#ifndef TVS_BASE_JSON_TEXT_H
#define TVS_BASE_JSON_TEXT_H

#include <stddef.h>

#include "base/util.h"

/* Length of the well-formed UTF-8 sequence at s[0..n) (1-4; overlongs,
 * surrogates and code points past U+10FFFF are ill-formed), or 0 if ill-formed. */
int utf8_sequence_len(const unsigned char *s, size_t n);
/* Appends s[0..n) to sb with each maximal ill-formed subpart replaced by U+FFFD. */
void utf8_put_valid(StrBuf *sb, const char *s, size_t n);
/* Appends s as a quoted JSON string: escapes '"', '\\' and controls, and
 * replaces ill-formed UTF-8 as utf8_put_valid does.  NULL is "". */
void json_put_string(StrBuf *sb, const char *s);

#endif
