/* json_text.c - UTF-8 validation and JSON string quoting (json_text.h). */
#include "base/json_text.h"

#include <string.h>

int utf8_sequence_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  int len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (len == 0 || (size_t)len > n) return 0;
  /* The second byte's range excludes overlongs, surrogates and > U+10FFFF. */
  unsigned char lo = 0x80, hi = 0xBF;
  if (c == 0xE0) lo = 0xA0;
  else if (c == 0xED) hi = 0x9F;
  else if (c == 0xF0) lo = 0x90;
  else if (c == 0xF4) hi = 0x8F;
  if (s[1] < lo || s[1] > hi) return 0;
  for (int i = 2; i < len; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  return len;
}

/* Bytes of the maximal ill-formed subpart at s (>= 1): the lead byte and the
 * continuation bytes that could still have completed it. */
static size_t bad_subpart_len(const unsigned char *s, size_t n) {
  unsigned char t[4] = {s[0], 0x80, 0x80, 0x80}; /* s[0..k) padded with continuations */
  size_t k = 1;
  while (k < n && k < 4 && (s[k] & 0xC0) == 0x80) {
    t[k] = s[k];
    if (utf8_sequence_len(t, 4) == 0) break; /* s[0..k] starts no valid sequence */
    k++;
  }
  return k;
}

void utf8_put_valid(StrBuf *sb, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0, run = 0; /* valid bytes not yet copied: p[i - run .. i) */
  while (i < n) {
    int len = utf8_sequence_len(p + i, n - i);
    if (len > 0) {
      i += (size_t)len, run += (size_t)len;
      continue;
    }
    sb_putn(sb, (const char *)p + i - run, run);
    sb_puts(sb, "\xEF\xBF\xBD");
    i += bad_subpart_len(p + i, n - i);
    run = 0;
  }
  sb_putn(sb, (const char *)p + i - run, run);
}

void json_put_string(StrBuf *sb, const char *s) {
  sb_putc(sb, '"');
  size_t start = 0, i = 0;
  for (; s && s[i]; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    utf8_put_valid(sb, s + start, i - start);
    if (c == '"' || c == '\\') sb_printf(sb, "\\%c", c);
    else if (c == '\n') sb_puts(sb, "\\n");
    else if (c == '\t') sb_puts(sb, "\\t");
    else sb_printf(sb, "\\u%04x", c);
    start = i + 1;
  }
  if (s) utf8_put_valid(sb, s + start, i - start);
  sb_putc(sb, '"');
}
