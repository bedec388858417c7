/* transport.h - the base protocol: Content-Length framed messages.
 *
 * A message is a header block (lines "Name: value\r\n", ended by an empty
 * line) followed by exactly Content-Length bytes of UTF-8 JSON.  The reader
 * never trusts the peer: headers are bounded, lengths are checked, and a
 * malformed header is skipped (the caller answers it with a parse error) so
 * that the next well-formed message is still read. */
#ifndef TVS_LSP_TRANSPORT_H
#define TVS_LSP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Largest header block and body accepted (a body over the limit is skipped). */
#define LSP_MAX_HEADER 8192
#define LSP_MAX_BODY (64u << 20)

typedef struct LspReader {
  int fd;            /* where bytes come from */
  char *buf;         /* bytes read but not yet consumed: buf[pos..len) */
  size_t len, cap, pos;
  bool eof;          /* read() returned 0 or failed */
  size_t skip;       /* bytes of an oversized body still to discard */
} LspReader;

typedef enum LspReadStatus {
  LSP_READ_OK,       /* *body holds a message */
  LSP_READ_EOF,      /* end of input (a truncated message is dropped) */
  LSP_READ_BAD       /* a malformed header was skipped; *err says why */
} LspReadStatus;

void lsp_reader_init(LspReader *r, int fd);
void lsp_reader_free(LspReader *r);
/* Reads the next message: on LSP_READ_OK *body is a NUL-terminated malloc'd
 * copy of *len bytes (free it); on LSP_READ_BAD *err is a static reason. */
LspReadStatus lsp_read_message(LspReader *r, char **body, size_t *len, const char **err);
/* Whether a complete or partial message is already buffered (no read needed). */
bool lsp_reader_has_buffered(const LspReader *r);

/* Writes one framed message and flushes. */
void lsp_write_message(FILE *out, const char *body, size_t len);

#endif
