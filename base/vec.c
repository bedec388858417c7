/* vec.c - the one growth routine behind VEC_RESERVE / VEC_PUSH. */
#include "base/vec.h"

#include <string.h>

#include "base/util.h"

void *vec_grow(void *items, size_t elem, size_t need, size_t *cap, int zero) {
  size_t old = *cap, n = old ? old : 8;
  while (n < need) {
    TVS_ASSERT(n <= (size_t)-1 / 2 / (elem ? elem : 1));
    n *= 2;
  }
  items = xrealloc(items, n * elem);
  if (zero) memset((char *)items + old * elem, 0, (n - old) * elem);
  *cap = n;
  return items;
}
