/* serve.c - the main loop: read a message, handle it, and publish the
 * diagnostics of changed documents once the input goes quiet (so a burst of
 * keystrokes is analysed once, not once per keystroke). */
#include <poll.h>
#include <stdlib.h>

#include "lsp/lsp.h"
#include "lsp/lsp_internal.h"

/* Whether more input arrives within ms milliseconds. */
static bool input_pending(int fd, int ms) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, ms) > 0;
}

int lsp_serve(int in_fd, FILE *out, FILE *log) {
  LspServer s;
  lsp_server_init(&s, out, log);
  LspReader r;
  lsp_reader_init(&r, in_fd);
  for (;;) {
    bool dirty = false;
    for (int i = 0; i < s.ndocs; i++) dirty |= s.docs[i].dirty;
    if (dirty && !lsp_reader_has_buffered(&r) && !input_pending(in_fd, 5)) lsp_flush_diagnostics(&s);
    char *body;
    size_t len;
    const char *err = NULL;
    LspReadStatus st = lsp_read_message(&r, &body, &len, &err);
    if (st == LSP_READ_EOF) break;
    if (st == LSP_READ_BAD) {
      lsp_send_error(&s, NULL, LSP_ERR_PARSE, err);
      continue;
    }
    lsp_handle_message(&s, body, len);
    free(body);
    if (s.exit_now) break;
  }
  int rc = s.shutdown ? 0 : 1;
  lsp_reader_free(&r);
  lsp_server_free(&s);
  return rc;
}
