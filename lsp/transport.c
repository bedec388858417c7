/* transport.c - Content-Length framing over a file descriptor (the LSP base
 * protocol).  Every limit is checked before memory is trusted to the peer. */
#include "lsp/transport.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/util.h"

void lsp_reader_init(LspReader *r, int fd) {
  memset(r, 0, sizeof *r);
  r->fd = fd;
}

void lsp_reader_free(LspReader *r) {
  free(r->buf);
  r->buf = NULL;
}

bool lsp_reader_has_buffered(const LspReader *r) { return r->pos < r->len; }

/* Reads more bytes into the buffer; false at end of input. */
static bool fill(LspReader *r) {
  if (r->eof) return false;
  if (r->pos > 0) { /* compact: consumed bytes are never needed again */
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
  }
  if (r->cap - r->len < 4096) {
    r->cap = r->cap ? r->cap * 2 : 8192;
    r->buf = xrealloc(r->buf, r->cap);
  }
  for (;;) {
    ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
    if (n > 0) {
      r->len += (size_t)n;
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    r->eof = true;
    return false;
  }
}

/* Finds the empty line ending the header block at buf[pos..len): returns the
 * offset just past it, or 0 when it is not buffered yet. */
static size_t header_end(const LspReader *r) {
  if (!r->buf) return 0; /* nothing read yet (NULL + 0 is undefined behaviour) */
  const char *b = r->buf + r->pos;
  size_t n = r->len - r->pos, line = 0;
  for (size_t i = 0; i < n; i++) {
    if (b[i] != '\n') continue;
    size_t ll = i - line;
    if (ll > 0 && b[i - 1] == '\r') ll--;
    if (ll == 0) return i + 1;
    line = i + 1;
  }
  return 0;
}

/* Parses the header block h[0..n): the Content-Length, or an error. */
static const char *parse_header(const char *h, size_t n, size_t *content_len, bool *too_big) {
  bool have = false;
  *too_big = false;
  size_t i = 0;
  while (i < n) {
    size_t e = i;
    while (e < n && h[e] != '\n') e++;
    size_t le = e;
    if (le > i && h[le - 1] == '\r') le--;
    if (le > i) {
      const char *colon = memchr(h + i, ':', le - i);
      if (!colon) return "header line without ':'";
      size_t nl = (size_t)(colon - (h + i));
      const char *v = colon + 1;
      while (v < h + le && (*v == ' ' || *v == '\t')) v++;
      if (nl == 14 && !strncasecmp(h + i, "Content-Length", 14)) {
        if (v == h + le) return "empty Content-Length";
        size_t val = 0;
        for (; v < h + le; v++) {
          if (!isdigit((unsigned char)*v)) return "Content-Length is not a number";
          if (val > LSP_MAX_BODY) *too_big = true;
          else val = val * 10 + (size_t)(*v - '0');
        }
        if (val > LSP_MAX_BODY) *too_big = true;
        *content_len = val;
        have = true;
      }
    }
    i = e + 1;
  }
  if (!have) return "no Content-Length header";
  return *too_big ? "message larger than the 64 MiB limit" : NULL;
}

/* Discards the rest of an oversized body; false at end of input. */
static bool discard_skip(LspReader *r) {
  while (r->skip > 0) {
    size_t avail = r->len - r->pos;
    size_t k = avail < r->skip ? avail : r->skip;
    r->pos += k;
    r->skip -= k;
    if (r->skip > 0 && !fill(r)) return false;
  }
  return true;
}

LspReadStatus lsp_read_message(LspReader *r, char **body, size_t *len, const char **err) {
  *body = NULL;
  *len = 0;
  if (!discard_skip(r)) return LSP_READ_EOF;
  size_t hend;
  while (!(hend = header_end(r))) {
    if (r->len - r->pos > LSP_MAX_HEADER) {
      r->pos = r->len; /* no message boundary in sight: drop what we have */
      *err = "header block longer than 8 KiB";
      return LSP_READ_BAD;
    }
    if (!fill(r)) return LSP_READ_EOF;
  }
  size_t clen = 0;
  bool too_big;
  const char *why = parse_header(r->buf + r->pos, hend, &clen, &too_big);
  r->pos += hend;
  if (why) {
    if (too_big) r->skip = clen;
    *err = why;
    return LSP_READ_BAD;
  }
  while (r->len - r->pos < clen)
    if (!fill(r)) return LSP_READ_EOF;
  char *b = xmalloc(clen + 1);
  memcpy(b, r->buf + r->pos, clen);
  b[clen] = 0;
  r->pos += clen;
  *body = b;
  *len = clen;
  return LSP_READ_OK;
}

void lsp_write_message(FILE *out, const char *body, size_t len) {
  fprintf(out, "Content-Length: %zu\r\n\r\n", len);
  fwrite(body, 1, len, out);
  fflush(out);
}
