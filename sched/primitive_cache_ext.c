/* primitive_cache_ext.c - schedule primitives: cache_inplace, cache_index, read_at, write_at, rolling_buffer. */
#include "sched/sched_internal.h"

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_cache_ext[] = {
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
