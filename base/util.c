/* util.c - allocation wrappers, string builder, small helpers. */
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void oom(void) {
  fputs("tvs: fatal: out of memory\n", stderr);
  abort();
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom();
  return p;
}

void *xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (!p) oom();
  return p;
}

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) oom();
  return q;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *xasprintf(const char *fmt, ...) {
  StrBuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  return sb.data;
}

void tvs_internal_error(const char *file, int line, const char *msg) {
  fprintf(stderr, "tvs: internal compiler error at %s:%d: %s\n", file, line, msg);
  abort();
}

void sb_init(StrBuf *sb) {
  sb->cap = 64;
  sb->len = 0;
  sb->data = xmalloc(sb->cap);
  sb->data[0] = '\0';
}

void sb_free(StrBuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

static void sb_reserve(StrBuf *sb, size_t extra) {
  VEC_RESERVE(sb->data, sb->cap, sb->len + extra + 1);
}

void sb_putc(StrBuf *sb, char c) {
  sb_reserve(sb, 1);
  sb->data[sb->len++] = c;
  sb->data[sb->len] = '\0';
}

void sb_putn(StrBuf *sb, const char *s, size_t n) {
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void sb_puts(StrBuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  sb_reserve(sb, (size_t)n);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

char *sb_take(StrBuf *sb) {
  char *p = sb->data;
  sb->data = NULL;
  sb->len = sb->cap = 0;
  return p;
}

void pv_push(PtrVec *v, void *p) {
  VEC_PUSH(v->items, v->len, v->cap, p);
}

void pv_free(PtrVec *v) {
  free(v->items);
  v->items = NULL;
  v->len = v->cap = 0;
}

int edit_distance(const char *a, const char *b) {
  /* Optimal string alignment: insertions, deletions, substitutions and
   * transpositions of adjacent characters ("gird" -> "grid" is 1). */
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return 1 << 20;
  int d[65][65];
  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      int best = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[la][lb];
}

const char *closest_name(const char *name, const char *const *cands, int n, int below) {
  const char *best = NULL;
  for (int i = 0; i < n; i++) {
    int d = edit_distance(name, cands[i]);
    if (d < below) below = d, best = cands[i];
  }
  return best;
}
