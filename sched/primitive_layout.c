/* primitive_layout.c - schedule primitives: transform_layout, transform_block_layout, set_axis_separator. */
#include "sched/sched_internal.h"

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_layout[] = {
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
