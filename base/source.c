/* source.c - loading source text and mapping byte offsets to lines/columns. */
#include "base/source.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

SourceFile *src_from_path(const char *path, const char **err) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    *err = strerror(errno);
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = xmalloc(cap);
  for (;;) {
    size_t got = fread(buf + len, 1, cap - len, fp);
    len += got;
    if (got == 0) break;
    VEC_RESERVE(buf, cap, len + 1);
  }
  int bad = ferror(fp);
  fclose(fp);
  if (bad) {
    free(buf);
    *err = "read error";
    return NULL;
  }
  if (len > 0x7fffffff) {
    free(buf);
    *err = "file too large";
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
