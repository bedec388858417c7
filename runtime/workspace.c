/* workspace.c - temporary buffers for compiled kernels (TVM's
 * TVMBackendAllocWorkspace): aligned host memory, at least 64-byte aligned
 * so vectorized code may assume cache-line alignment.
 *
 * Large buffers (a padded or packed copy of an operand, megabytes) come from
 * a pool that keeps them after they are freed, as TVM's CPU workspace pool
 * does: handing them back to the system and faulting fresh zeroed pages in on
 * the next call cost a 1024^3 matmul with an 8 MB workspace 13% of its time.
 * Small buffers go straight to malloc, which recycles them cheaply.  The pool
 * is process-wide behind a mutex (a kernel allocates a few buffers per call,
 * or per iteration of a parallel loop), holds at most POOL_CACHED blocks and
 * POOL_MAX_BYTES when idle, and is off under AddressSanitizer so that a use
 * after free still reports. */
#include "runtime/tvs_runtime.h"
#include "runtime/host_memory.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define POOL_ENABLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ENABLED 0
#endif
#endif
#ifndef POOL_ENABLED
#define POOL_ENABLED 1
#endif

enum {
  POOL_MIN_BYTES = 64 * 1024,  /* smaller requests use malloc directly */
  POOL_PAGE = 4096,            /* pooled blocks: page-aligned, whole pages */
  POOL_LIVE = 256,             /* pooled blocks handed out at once (more: malloc) */
  POOL_CACHED = 16,            /* freed blocks kept for reuse */
};
#define POOL_MAX_BYTES ((size_t)1 << 30)

typedef struct PoolBlock {
  void *ptr;
  size_t size;
} PoolBlock;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static PoolBlock pool_live[POOL_LIVE];     /* handed out */
static int pool_nlive;
static PoolBlock pool_free[POOL_CACHED];   /* freed, kept */
static int pool_nfree;
static size_t pool_free_bytes;

/* A cached block for size bytes: the smallest that fits and wastes at most
 * half of itself; -1 when none does. */
static int pool_find(size_t size) {
  int best = -1;
  for (int i = 0; i < pool_nfree; i++) {
    size_t s = pool_free[i].size;
    if (s >= size && s / 2 <= size && (best < 0 || s < pool_free[best].size)) best = i;
  }
  return best;
}

static void *pool_alloc(size_t nbytes) {
  size_t size = (nbytes + POOL_PAGE - 1) / POOL_PAGE * POOL_PAGE;
  void *p = NULL;
  pthread_mutex_lock(&pool_mu);
  int i = pool_nlive < POOL_LIVE ? pool_find(size) : -1;
  if (i >= 0) {
    p = pool_free[i].ptr;
    pool_free_bytes -= pool_free[i].size;
    pool_live[pool_nlive++] = pool_free[i];
    pool_free[i] = pool_free[--pool_nfree];
  }
  pthread_mutex_unlock(&pool_mu);
  if (p) return p;
  /* a new block, allocated outside the lock; tracked while there is room */
  if (!(p = tvs_host_alloc(size, POOL_PAGE))) return NULL;
  pthread_mutex_lock(&pool_mu);
  if (pool_nlive < POOL_LIVE) pool_live[pool_nlive++] = (PoolBlock){p, size};
  pthread_mutex_unlock(&pool_mu);
  return p;
}

/* Keeps ptr if it came from the pool and there is room; false when the
 * caller must free it. */
static bool pool_release(void *ptr) {
  bool kept = false;
  void *evict = NULL;
  pthread_mutex_lock(&pool_mu);
  for (int i = 0; i < pool_nlive; i++) {
    if (pool_live[i].ptr != ptr) continue;
    PoolBlock b = pool_live[i];
    pool_live[i] = pool_live[--pool_nlive];
    if (b.size > POOL_MAX_BYTES) break;
    if (pool_nfree == POOL_CACHED || pool_free_bytes + b.size > POOL_MAX_BYTES) {
      /* make room: drop the largest cached block if that is enough */
      int big = 0;
      for (int j = 1; j < pool_nfree; j++)
        if (pool_free[j].size > pool_free[big].size) big = j;
      if (pool_nfree == 0 || pool_free_bytes - pool_free[big].size + b.size > POOL_MAX_BYTES) break;
      evict = pool_free[big].ptr;
      pool_free_bytes -= pool_free[big].size;
      pool_free[big] = pool_free[--pool_nfree];
    }
    pool_free[pool_nfree++] = b;
    pool_free_bytes += b.size;
    kept = true;
    break;
  }
  pthread_mutex_unlock(&pool_mu);
  free(evict);
  return kept;
}

void *tvs_backend_alloc_workspace(size_t nbytes, size_t align) {
  if (align & (align - 1)) {
    tvs_set_last_error("tvs_backend_alloc_workspace: alignment %zu is not a power of two", align);
    return NULL;
  }
  if (align < 64) align = 64;
  void *p = NULL;
  if (POOL_ENABLED && nbytes >= POOL_MIN_BYTES && align <= POOL_PAGE) {
    p = pool_alloc(nbytes);
  } else {
    p = tvs_host_alloc(nbytes, align);
  }
  if (!p) tvs_set_last_error("tvs_backend_alloc_workspace: out of memory (%zu bytes)", nbytes);
  return p;
}

int tvs_backend_free_workspace(void *ptr) {
  if (!ptr) return 0;
  if (POOL_ENABLED && pool_release(ptr)) return 0;
  free(ptr);
  return 0;
}
