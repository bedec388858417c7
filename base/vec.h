/* vec.h - growable arrays: one way to grow a (pointer, length, capacity) triple.
 *
 * Any struct or local that keeps `T *items; int len, cap;` (or size_t) grows
 * through these macros instead of open-coding the doubling and xrealloc:
 *
 *     VEC_PUSH(s->bufs, s->nbufs, s->capbufs, buf);
 *     VEC_RESERVE(v->acc, v->capacc, need);      -- room for `need` elements
 *
 * Capacity doubles (from 8), so n pushes cost O(n) copies.  Growth never
 * fails: out-of-memory is fatal, as for every x* allocator.  New slots are
 * uninitialised unless VEC_RESERVE_ZERO is used. */
#ifndef TVS_BASE_VEC_H
#define TVS_BASE_VEC_H

#include <stddef.h>

/* Reallocates items (elem bytes each, *cap of them) to hold at least need
 * elements; updates *cap.  With zero set, the new slots are zero-filled. */
void *vec_grow(void *items, size_t elem, size_t need, size_t *cap, int zero);

#define VEC_RESERVE_(p, cap, need, zero)                                      \
  do {                                                                        \
    size_t vec_need_ = (size_t)(need);                                        \
    if (vec_need_ > (size_t)(cap)) {                                          \
      size_t vec_cap_ = (size_t)(cap);                                        \
      (p) = vec_grow((p), sizeof *(p), vec_need_, &vec_cap_, (zero));         \
      (cap) = vec_cap_;                                                       \
    }                                                                         \
  } while (0)

/* Ensures room for `need` elements in p (capacity variable cap). */
#define VEC_RESERVE(p, cap, need) VEC_RESERVE_(p, cap, need, 0)
/* The same, zero-filling the slots it adds. */
#define VEC_RESERVE_ZERO(p, cap, need) VEC_RESERVE_(p, cap, need, 1)
/* Appends x: p[len++] = x, growing first when full. */
#define VEC_PUSH(p, len, cap, x)                                              \
  do {                                                                        \
    VEC_RESERVE((p), (cap), (size_t)(len) + 1);                               \
    (p)[(len)++] = (x);                                                       \
  } while (0)

#endif
