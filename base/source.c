/* source.c - loading source text and mapping byte offsets to lines/columns. */
#include "base/source.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const Span span_none = {NULL, 0, 0, 0, 0};

SourceFile *src_from_string(const char *name, const char *text, size_t len) {
  SourceFile *f = xcalloc(1, sizeof *f);
  f->name = xstrdup(name);
  f->text = xmalloc(len + 1);
  memcpy(f->text, text, len);
  f->text[len] = '\0';
  f->len = len;
  uint32_t cap = 0, n = 0;
  f->lines = NULL;
  VEC_PUSH(f->lines, n, cap, 0);
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n') VEC_PUSH(f->lines, n, cap, (uint32_t)(i + 1));
  f->nlines = n;
  return f;
}

/* Why fd cannot be read as source, or NULL: a directory, or a device that
 * never ends (/dev/zero); regular files, pipes and sockets are fine. */
static const char *refuse_kind(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return strerror(errno);
  if (S_ISDIR(st.st_mode)) return "it is a directory";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "not a regular file (a device)";
  if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > TVS_SOURCE_MAX)
    return "file too large (source files are limited to " TVS_SOURCE_MAX_TEXT ")";
  return NULL;
}

SourceFile *src_from_path(const char *path, const char **err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = strerror(errno);
    return NULL;
  }
  if ((*err = refuse_kind(fd))) {
    close(fd);
    return NULL;
  }
  /* Every read is bounded by the limit, so a pipe that never ends stops here. */
  size_t cap = 4096, len = 0;
  char *buf = xmalloc(cap);
  for (;;) {
    if (len == cap) VEC_RESERVE(buf, cap, len + 1);
    size_t want = cap - len;
    if (len + want > (size_t)TVS_SOURCE_MAX + 1) want = (size_t)TVS_SOURCE_MAX + 1 - len;
    ssize_t got = read(fd, buf + len, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) *err = strerror(errno);
    if (got <= 0) break;
    len += (size_t)got;
    if (len > TVS_SOURCE_MAX) {
      *err = "file too large (source files are limited to " TVS_SOURCE_MAX_TEXT ")";
      break;
    }
  }
  close(fd);
  if (*err) {
    free(buf);
    return NULL;
  }
  SourceFile *f = src_from_string(path, buf, len);
  free(buf);
  return f;
}

void src_free(SourceFile *f) {
  if (!f) return;
  free(f->name);
  free(f->text);
  free(f->lines);
  free(f);
}

Span src_span(const SourceFile *f, uint32_t off, uint32_t len) {
  Span s = {f, off, len, 1, 1};
  if (!f) return s;
  /* binary search for the line containing off */
  uint32_t lo = 0, hi = f->nlines;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (f->lines[mid] <= off) lo = mid; else hi = mid;
  }
  s.line = lo + 1;
  s.col = off - f->lines[lo] + 1;
  return s;
}

Span span_join(Span a, Span b) {
  if (!a.file) return b;
  if (!b.file || a.file != b.file) return a;
  uint32_t start = a.off < b.off ? a.off : b.off;
  uint32_t end_a = a.off + a.len, end_b = b.off + b.len;
  uint32_t end = end_a > end_b ? end_a : end_b;
  Span s = a.off <= b.off ? a : b;
  s.off = start;
  s.len = end - start;
  return s;
}

const char *src_line_text(const SourceFile *f, uint32_t line, size_t *len) {
  if (!f || line == 0 || line > f->nlines) {
    *len = 0;
    return "";
  }
  uint32_t start = f->lines[line - 1];
  uint32_t end = line < f->nlines ? f->lines[line] - 1 : (uint32_t)f->len;
  if (end > start && f->text[end - 1] == '\r') end--;
  *len = end >= start ? end - start : 0;
  return f->text + start;
}
