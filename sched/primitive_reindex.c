/* primitive_reindex.c - schedule primitives: reindex, reindex_cache_read, reindex_cache_write. */
#include "sched/sched_internal.h"

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_reindex[] = {
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
