/* util.h - allocation wrappers, growable arrays, string builders, internal asserts.
 *
 * Out-of-memory is treated as fatal (like an internal error): every allocation
 * goes through these wrappers so the rest of the code never checks for NULL.
 * TVS_ASSERT marks compiler bugs, never user errors (those go through diag). */
#ifndef TVS_BASE_UTIL_H
#define TVS_BASE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

_Noreturn void tvs_internal_error(const char *file, int line, const char *msg);
#define TVS_ASSERT(c) ((c) ? (void)0 : tvs_internal_error(__FILE__, __LINE__, #c))
#define tvs_unreachable() tvs_internal_error(__FILE__, __LINE__, "unreachable")

/* A growable byte buffer used to build strings (printers, messages). */
typedef struct StrBuf {
  char *data;  /* NUL-terminated contents (never NULL after sb_init) */
  size_t len;  /* bytes used, excluding the NUL */
  size_t cap;  /* bytes allocated */
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
/* Hands the buffer to the caller (free with free()); sb is left empty and
 * holds no memory (sb_free is a no-op; appending reallocates). */
char *sb_take(StrBuf *sb);

/* Generic vector of pointers (grown with VEC_PUSH). */
typedef struct PtrVec {
  void **items;  /* elements */
  int len;       /* number of elements */
  int cap;       /* allocated slots */
} PtrVec;

void pv_push(PtrVec *v, void *p);
void pv_free(PtrVec *v);

/* Levenshtein distance, for "did you mean" suggestions. */
int edit_distance(const char *a, const char *b);
/* The first of cands[0..n) nearest to name by edit_distance, if that
 * distance is below `below`; else NULL ("did you mean" suggestions). */
const char *closest_name(const char *name, const char *const *cands, int n, int below);

#endif
