/* memory_plan.h - static memory planning of a legalized graph function
 * (TVM's StaticPlanBlockMemory, in spirit).
 *
 * Every tensor a call_tir produces is either written straight into one of
 * the caller's outputs (destination passing) or is an intermediate.  An
 * intermediate lives from the binding that defines it to the last binding
 * (or the result) that uses it, in binding order.  Intermediates of static
 * size get offsets in ONE workspace, 64-byte aligned, and tensors whose
 * lifetimes do not overlap share storage; the compiled graph allocates the
 * workspace once per call.  Intermediates of symbolic size are left to the
 * runtime workspace allocator, one allocation each, freed after last use.
 *
 * The planner is greedy by size (TFLite's and TVM's offset planner, in
 * spirit): tensors, largest first, each at the lowest offset that does not
 * overlap a placed tensor whose lifetime overlaps its own; it also tries
 * two other orders (definition order, longest lifetime first) and keeps the
 * smallest peak.  cg_build_graph uses this plan; `tvs run --memory-plan`
 * prints it. */
#ifndef TVS_IR_MEMORY_PLAN_H
#define TVS_IR_MEMORY_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"
#include "ir/relax.h"

#define RX_PLAN_ALIGN 64

/* One tensor produced by a call_tir. */
typedef struct RxPlanTensor {
  const RxExpr *call;   /* the call_tir producing it */
  int idx;              /* its output index */
  char name[64];        /* the bound var's name ("lv0", or "lv0[1]" for a tuple output) */
  const RxSInfo *si;    /* shape and dtype */
  int64_t bytes;        /* its size, or -1 when symbolic */
  int64_t size;         /* bytes rounded up to RX_PLAN_ALIGN (-1 when symbolic) */
  int64_t offset;       /* in the workspace; -1 when not planned */
  int def, last;        /* live range: binding indices (the result is index nbindings) */
  int out;              /* the output it is written into, or -1 for an intermediate */
} RxPlanTensor;

typedef struct RxMemPlan {
  RxPlanTensor *t;      /* in definition order */
  int n;
  int nbindings;        /* bindings of the function (live ranges index them) */
  int64_t peak;         /* workspace bytes: max(offset + size) */
  int64_t unplanned;    /* the sum of the static intermediates' sizes */
  int64_t live_max;     /* max over binding points of the live static intermediates' sizes */
  int ndynamic;         /* intermediates of symbolic size (not planned) */
  int nout;             /* outputs of the function (a tensor: 1, a tuple: its fields) */
} RxMemPlan;

/* Plans f (legalized: call_tir, tuples, TupleGetItem, constants, vars).
 * 0, or -1 when the body is not a sequence of bindings the plan understands
 * (the plan is then empty).  Free with rx_memory_plan_free. */
int rx_memory_plan(const RxFunc *f, RxMemPlan *p);
void rx_memory_plan_free(RxMemPlan *p);

/* The planned tensor for output idx of call, or NULL. */
const RxPlanTensor *rx_memory_plan_find(const RxMemPlan *p, const RxExpr *call, int idx);

/* Whether planned tensors a and b live at the same binding. */
bool rx_plan_lifetimes_overlap(const RxPlanTensor *a, const RxPlanTensor *b);

/* The table: tensor, shape, bytes, offset, live range, then the totals line
 * "planned peak N bytes (unplanned total M bytes)". */
void rx_memory_plan_print(StrBuf *sb, const RxMemPlan *p);

#endif
