/* relax_fusion.h - the operator-fusion partition FuseOps rewrites by
 * (private to ir/transform/: relax_graph_partition.c, relax_fuse_ops.c).
 *
 * A graph function's bindings become the nodes of a dataflow graph whose
 * edges carry the consumer's OpPatternKind (a call_tir's is its prim_func's
 * "op_pattern" attribute); TVM's GraphPartitioner then merges nodes into
 * groups along the post-dominator tree. */
#ifndef TVS_IR_TRANSFORM_RELAX_FUSION_H
#define TVS_IR_TRANSFORM_RELAX_FUSION_H

#include "ir/module.h"

typedef struct RxPartition RxPartition;

/* The partition of f's bindings (m holds the prim_funcs f calls).  TVM's
 * defaults: opt_level 2, at most 256 nodes per group. */
RxPartition *rx_partition_func(const IrModule *m, const RxFunc *f);
void rx_partition_free(RxPartition *p);
/* The group (its root node's index) of a param or binding var, -1 if none. */
int rx_partition_group(RxPartition *p, const RxExpr *var);
/* Number of nodes in the group whose root is `group`. */
int rx_partition_group_size(const RxPartition *p, int group);
/* Number of nodes (group ids are below it). */
int rx_partition_num_nodes(const RxPartition *p);

#endif
