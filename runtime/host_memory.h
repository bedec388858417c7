/* host_memory.h - aligned host allocations for tensors and kernel workspaces.
 * Part of libtvs_runtime: depends on nothing in the compiler. */
#ifndef TVS_RUNTIME_HOST_MEMORY_H
#define TVS_RUNTIME_HOST_MEMORY_H

#include <stddef.h>

/* Buffers of at least this many bytes are placed on transparent huge pages. */
#define TVS_HUGE_PAGE_BYTES ((size_t)2 << 20)

/* nbytes (at least 1) aligned to align (a power of two, at least
 * sizeof(void *)); released with free().  NULL when out of memory. */
void *tvs_host_alloc(size_t nbytes, size_t align);

#endif
