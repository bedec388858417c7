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

/* One message read (or a framing error to answer). */
typedef struct Pending {
  LspReadStatus st;
  char *body;
  size_t len;
  const char *err;
} Pending;

enum { LSP_QUEUE = 64 };

/* Reads the next message into q[*n]; false at end of input. */
static bool read_one(LspReader *r, Pending *q, int *n) {
  Pending *p = &q[*n];
  p->err = NULL;
  p->st = lsp_read_message(r, &p->body, &p->len, &p->err);
  if (p->st == LSP_READ_EOF) return false;
  (*n)++;
  return true;
}

/* Handles a batch: the messages already sent are read first, so that a
 * $/cancelRequest for a request still waiting takes effect before it runs. */
static bool serve_batch(LspServer *s, LspReader *r, int fd) {
  Pending q[LSP_QUEUE];
  int n = 0;
  bool more = read_one(r, q, &n);
  while (more && n < LSP_QUEUE && (lsp_reader_has_buffered(r) || input_pending(fd, 0))) more = read_one(r, q, &n);
  for (int i = 0; i < n; i++)
    if (q[i].st == LSP_READ_OK && lsp_is_cancel(q[i].body, q[i].len)) {
      lsp_handle_message(s, q[i].body, q[i].len);
      free(q[i].body);
      q[i].body = NULL;
    }
  for (int i = 0; i < n; i++) {
    if (q[i].st == LSP_READ_BAD) lsp_send_error(s, NULL, LSP_ERR_PARSE, q[i].err);
    else if (q[i].body && !s->exit_now) lsp_handle_message(s, q[i].body, q[i].len);
    free(q[i].body);
  }
  /* a cancel for a request of an earlier batch came after its reply: forget it */
  while (cJSON_GetArraySize(s->cancelled) > 0) cJSON_DeleteItemFromArray(s->cancelled, 0);
  return n > 0 && !s->exit_now;
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
    if (!serve_batch(&s, &r, in_fd)) break;
  }
  int rc = s.shutdown ? 0 : 1;
  lsp_reader_free(&r);
  lsp_server_free(&s);
  return rc;
}
