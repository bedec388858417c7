/* primitive_blockize.c - schedule primitives: blockize, tensorize (and the tensor-intrinsic registry). */
#include "sched/sched_internal.h"

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_blockize[] = {
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
