/* test_lsp_protocol.c - the language server's protocol pieces without a
 * client: Content-Length framing (split, malformed and oversized headers),
 * UTF-16 positions, incremental edits, and JSON-RPC error replies for
 * malformed messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lsp/lsp.h"
#include "lsp/lsp_internal.h"
#include "tests/unit/check.h"

/* A reader over the bytes s (through a temporary file). */
static int fd_of(const char *s, size_t n) {
  FILE *f = tmpfile();
  fwrite(s, 1, n, f);
  fflush(f);
  int fd = dup(fileno(f));
  fclose(f); /* the unlinked file lives on through fd */
  lseek(fd, 0, SEEK_SET);
  return fd;
}

static void test_framing(void) {
  const char in[] = "Content-Length: 2\r\n\r\n{}"
                    "content-length:3\r\nContent-Type: x\r\n\r\n[1]"
                    "Bogus\r\n\r\n"
                    "Content-Length: 12x\r\n\r\n"
                    "X: y\r\n\r\n"
                    "Content-Length: 99999999999\r\n\r\n"
                    "Content-Length: 4\n\nnull"
                    "Content-Length: 10\r\n\r\nshort";
  int fd = fd_of(in, sizeof in - 1);
  LspReader r;
  lsp_reader_init(&r, fd);
  char *body;
  size_t len;
  const char *err = NULL;
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_OK);
  CHECK_EQ_STR(body, "{}");
  free(body);
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_OK);
  CHECK_EQ_STR(body, "[1]");
  free(body);
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_BAD);
  CHECK_EQ_STR(err, "header line without ':'");
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_BAD);
  CHECK_EQ_STR(err, "Content-Length is not a number");
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_BAD);
  CHECK_EQ_STR(err, "no Content-Length header");
  /* an oversized length: reported, and the (absent) body skipped to the end */
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_BAD);
  CHECK_EQ_STR(err, "message larger than the 64 MiB limit");
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_EOF);
  lsp_reader_free(&r);
  close(fd);

  const char in2[] = "Content-Length: 4\n\nnullContent-Length: 10\r\n\r\nshort";
  fd = fd_of(in2, sizeof in2 - 1);
  lsp_reader_init(&r, fd);
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_OK); /* bare LF tolerated */
  CHECK_EQ_STR(body, "null");
  free(body);
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_EOF); /* truncated body */
  lsp_reader_free(&r);
  close(fd);

  /* a header that never ends is cut at 8 KiB */
  char *big = malloc(20000);
  memset(big, 'a', 20000);
  fd = fd_of(big, 20000);
  free(big);
  lsp_reader_init(&r, fd);
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_BAD);
  CHECK_EQ_STR(err, "header block longer than 8 KiB");
  CHECK_EQ_INT(lsp_read_message(&r, &body, &len, &err), LSP_READ_EOF);
  lsp_reader_free(&r);
  close(fd);
}

static void test_positions(void) {
  const char *t = "ab\nx\xc3\xa9\xf0\x9f\x98\x80y\nz"; /* "x é 😀 y" on line 1 */
  size_t n = strlen(t);
  CHECK_EQ_INT(lsp_offset_of(t, n, 0, 1), 1);
  CHECK_EQ_INT(lsp_offset_of(t, n, 1, 1), 4);  /* after x */
  CHECK_EQ_INT(lsp_offset_of(t, n, 1, 2), 6);  /* after é (2 bytes, 1 unit) */
  CHECK_EQ_INT(lsp_offset_of(t, n, 1, 4), 10); /* after 😀 (4 bytes, 2 units) */
  CHECK_EQ_INT(lsp_offset_of(t, n, 1, 99), 11); /* clamped to the line's end */
  CHECK_EQ_INT(lsp_offset_of(t, n, 9, 0), n);   /* past the last line */
  int l, c;
  lsp_position_of(t, n, 10, &l, &c);
  CHECK(l == 1 && c == 4);
  lsp_position_of(t, n, 12, &l, &c);
  CHECK(l == 2 && c == 0);
}

static void test_incremental_change(void) {
  LspDoc d = {0};
  d.text = xstrdup("a = 1\nb = 2\n");
  d.len = strlen(d.text);
  cJSON *ch = cJSON_Parse("{\"range\":{\"start\":{\"line\":1,\"character\":4},\"end\":{\"line\":1,\"character\":5}},"
                          "\"text\":\"42\"}");
  CHECK(lsp_doc_apply_change(&d, ch));
  CHECK_EQ_STR(d.text, "a = 1\nb = 42\n");
  cJSON_Delete(ch);
  ch = cJSON_Parse("{\"range\":{\"start\":{\"line\":1,\"character\":5},\"end\":{\"line\":0,\"character\":0}},\"text\":\"\"}");
  CHECK(!lsp_doc_apply_change(&d, ch)); /* end before start */
  cJSON_Delete(ch);
  ch = cJSON_Parse("{\"text\":\"whole\"}");
  CHECK(lsp_doc_apply_change(&d, ch));
  CHECK_EQ_STR(d.text, "whole");
  cJSON_Delete(ch);
  free(d.text);
}

/* The replies the server writes for one message body. */
static char *replies(LspServer *s, const char *body) {
  char *buf = NULL;
  size_t n = 0;
  FILE *out = open_memstream(&buf, &n);
  s->out = out;
  lsp_handle_message(s, body, strlen(body));
  fclose(out);
  return buf;
}

static void test_error_replies(void) {
  LspServer s;
  lsp_server_init(&s, stdout, NULL);
  char *r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"textDocument/hover\",\"params\":{}}");
  CHECK(strstr(r, "\"id\":1,\"error\":{\"code\":-32002") != NULL); /* not initialized */
  free(r);
  r = replies(&s, "{not json");
  CHECK(strstr(r, "\"id\":null,\"error\":{\"code\":-32700") != NULL);
  free(r);
  r = replies(&s, "[1, 2]");
  CHECK(strstr(r, "\"error\":{\"code\":-32600") != NULL);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}");
  CHECK(strstr(r, "\"error\":{\"code\":-32600") != NULL);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{}}");
  CHECK(strstr(r, "\"capabilities\"") != NULL);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"}");
  CHECK(strstr(r, "\"id\":3,\"error\":{\"code\":-32601,\"message\":\"unknown method 'nope'\"") != NULL);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"textDocument/hover\",\"params\":7}");
  CHECK(strstr(r, "\"id\":\"s\",\"error\":{\"code\":-32602") != NULL);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"textDocument/definition\",\"params\":{\"textDocument\":3}}");
  CHECK(strstr(r, "\"id\":4,\"error\":{\"code\":-32602") != NULL);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"nope/notification\"}"); /* no reply */
  CHECK(!r || !*r);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":5}}");
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"workspace/symbol\",\"params\":{\"query\":\"\"}}");
  CHECK(strstr(r, "\"id\":5,\"error\":{\"code\":-32800") != NULL);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"shutdown\"}");
  CHECK(strstr(r, "\"id\":6,\"result\":null") != NULL);
  free(r);
  r = replies(&s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"workspace/symbol\",\"params\":{}}");
  CHECK(strstr(r, "\"id\":7,\"error\":{\"code\":-32600") != NULL); /* after shutdown */
  free(r);
  lsp_server_free(&s);
}

/* A request followed by its $/cancelRequest in one write: the request is
 * answered with RequestCancelled, the others normally. */
static void test_cancel_queued_request(void) {
  const char *msgs[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":"
      "{\"uri\":\"file:///a.tvs\",\"version\":1,\"text\":\"x = 1\\n\"}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":"
      "{\"uri\":\"file:///a.tvs\"},\"position\":{\"line\":0,\"character\":0}}}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":5}}",
      "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":"
      "{\"uri\":\"file:///a.tvs\"},\"position\":{\"line\":0,\"character\":0}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"shutdown\"}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}",
  };
  StrBuf in;
  sb_init(&in);
  for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++)
    sb_printf(&in, "Content-Length: %zu\r\n\r\n%s", strlen(msgs[i]), msgs[i]);
  int fd = fd_of(in.data, in.len);
  sb_free(&in);
  char *buf = NULL;
  size_t n = 0;
  FILE *out = open_memstream(&buf, &n);
  CHECK_EQ_INT(lsp_serve(fd, out, NULL), 0);
  fclose(out);
  close(fd);
  CHECK(strstr(buf, "\"id\":5,\"error\":{\"code\":-32800") != NULL);
  CHECK(strstr(buf, "\"id\":6,\"result\":{\"contents\"") != NULL);
  CHECK(strstr(buf, "\"id\":7,\"result\":null") != NULL);
  free(buf);
}

int main(void) {
  test_cancel_queued_request();
  test_framing();
  test_positions();
  test_incremental_change();
  test_error_replies();
  TEST_MAIN_END();
}
