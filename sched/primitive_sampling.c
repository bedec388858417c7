/* primitive_sampling.c - schedule primitives: sample_perfect_tile, sample_categorical, sample_compute_location. */
#include "sched/sched_internal.h"

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_sampling[] = {
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
