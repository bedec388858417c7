/* test_json_text.c - UTF-8 validation and JSON quoting (base/json_text.h):
 * well-formed text passes unchanged, each maximal ill-formed subpart (stray
 * continuation bytes, truncated sequences, overlongs, surrogates, > U+10FFFF)
 * becomes one U+FFFD, and controls and quotes are escaped. */
#include <string.h>

#include "base/json_text.h"
#include "check.h"

#define FFFD "\xEF\xBF\xBD"

static void expect_valid(const char *in, const char *want) {
  StrBuf sb;
  sb_init(&sb);
  utf8_put_valid(&sb, in, strlen(in));
  CHECK_EQ_STR(sb.data, want);
  sb_free(&sb);
}

static void expect_json(const char *in, const char *want) {
  StrBuf sb;
  sb_init(&sb);
  json_put_string(&sb, in);
  CHECK_EQ_STR(sb.data, want);
  sb_free(&sb);
}

int main(void) {
  expect_valid("plain ascii", "plain ascii");
  expect_valid("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  expect_valid("a\xFF" "b", "a" FFFD "b");                  /* never a lead byte */
  expect_valid("a\x80\x80" "b", "a" FFFD FFFD "b");         /* stray continuations */
  expect_valid("caf\xE9", "caf" FFFD);                      /* Latin-1 */
  expect_valid("\xE2\x82", FFFD);                           /* truncated at the end */
  expect_valid("\xE2\x82x", FFFD "x");                      /* truncated: one subpart */
  expect_valid("\xC0\xAF", FFFD FFFD);                      /* overlong '/' */
  expect_valid("\xE0\x80\xAF", FFFD FFFD FFFD);             /* overlong, 3 bytes */
  expect_valid("\xED\xA0\x80", FFFD FFFD FFFD);             /* a surrogate */
  expect_valid("\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD);    /* past U+10FFFF */
  expect_valid("\xF0\x9F\x98", FFFD);                       /* truncated 4-byte */
  CHECK_EQ_INT(utf8_sequence_len((const unsigned char *)"\xF0\x9F\x98\x80", 4), 4);
  CHECK_EQ_INT(utf8_sequence_len((const unsigned char *)"\xF0\x9F\x98\x80", 3), 0);
  expect_json("say \"hi\"\\\n\t\x01", "\"say \\\"hi\\\"\\\\\\n\\t\\u0001\"");
  expect_json("unknown dtype 'flo\xFE" "at'", "\"unknown dtype 'flo" FFFD "at'\"");
  expect_json(NULL, "\"\"");
  TEST_MAIN_END();
}
