/* workspace.c - temporary buffers for compiled kernels (TVM's
 * TVMBackendAllocWorkspace): aligned host memory, at least 64-byte aligned
 * so vectorized code may assume cache-line alignment. */
#include "runtime/tvs_runtime.h"

#include <stdlib.h>

void *tvs_backend_alloc_workspace(size_t nbytes, size_t align) {
  if (align & (align - 1)) {
    tvs_set_last_error("tvs_backend_alloc_workspace: alignment %zu is not a power of two", align);
    return NULL;
  }
  if (align < 64) align = 64;
  void *p = NULL;
  if (posix_memalign(&p, align, nbytes ? nbytes : 1) != 0) {
    tvs_set_last_error("tvs_backend_alloc_workspace: out of memory (%zu bytes)", nbytes);
    return NULL;
  }
  return p;
}

int tvs_backend_free_workspace(void *ptr) {
  free(ptr);
  return 0;
}
