/* primitive_misc.c - schedule primitives: merge, loop_partition, pad_einsum, decompose_padding, reorder_block_iter_var, annotate_buffer_access, fuse_reduction_epilogue, unsafe_set_dtype. */
#include "sched/sched_internal.h"

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_misc[] = {
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
