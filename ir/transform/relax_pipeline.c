/* relax_pipeline.c - the graph-level pipeline as one ordered table (TVM's
 * relax.get_default_pipeline for CPU, in spirit) and the driver that runs it
 * pass by pass.  Each row is a named stage: `tvs show --stage NAME`,
 * `--dump-after NAME` and `tvsc --emit NAME` stop after it. */
#include "ir/transform/xform_internal.h"

#include <string.h>

static RxScheduler scheduler;

void rx_set_default_scheduler(RxScheduler fn) { scheduler = fn; }

/* The stage's row: the installed scheduler, or the module unchanged. */
static IrModule *rx_default_schedule(const IrModule *m, DiagCtx *diag, bool *changed) {
  if (scheduler) return scheduler(m, diag, changed);
  if (changed) *changed = false;
  return ir_module_copy(m);
}

static const RxPass graph_pipeline[] = {
    {"canonicalize-bindings", rx_canonicalize_bindings,
     "CanonicalizeBindings: a variable bound to a variable (y = x) is removed and its uses read x"},
    {"eliminate-common-subexpr", rx_eliminate_common_subexpr,
     "EliminateCommonSubexpr: a binding equal to an earlier one reuses the earlier variable"},
    {"fold-constant", rx_fold_constant,
     "FoldConstant: calls of constants are evaluated now (interpreter) and become R.const"},
    {"dead-code-elimination", rx_dead_code_elimination,
     "DeadCodeElimination: unused pure bindings and unreachable private functions are removed"},
    {"convert-layout", rx_convert_layout,
     "ConvertLayout: NCHW conv2d chains become NCHW16c (AVX-512; off unless --convert-layout)"},
    {"legalize", rx_legalize_ops,
     "LegalizeOps: high-level operators become calls of generated prim_funcs (R.call_tir)"},
    {"annotate-tir-op-pattern", rx_annotate_tir_op_pattern,
     "AnnotateTIROpPattern: each prim_func gets op_pattern, TVM's OpPatternKind read from its blocks"},
    {"fuse-ops", rx_fuse_ops,
     "FuseOps: call_tir chains that fuse (post-dominator rules) become Primitive graph functions"},
    {"fuse-tir", rx_fuse_tir,
     "FuseTIR: each Primitive graph function becomes one prim_func called through R.call_tir"},
    {"default-schedule", rx_default_schedule,
     "ApplyDefaultSchedule: each unscheduled prim_func gets its family's CPU schedule (stdlib/schedules)"},
    {"static-plan-block-memory", rx_static_plan_block_memory,
     "StaticPlanBlockMemory: intermediates share workspace storage across disjoint lifetimes (attr tvs.memory_plan)"},
};

const RxPass *rx_graph_pipeline(int *n) {
  *n = (int)(sizeof graph_pipeline / sizeof graph_pipeline[0]);
  return graph_pipeline;
}

int rx_graph_pipeline_index(const char *name) {
  int n;
  const RxPass *p = rx_graph_pipeline(&n);
  for (int i = 0; name && i < n; i++)
    if (!strcmp(p[i].name, name)) return i;
  return -1;
}

IrModule *rx_run_graph_passes(const IrModule *m, int last, DiagCtx *diag, RxAfterPassFn after, void *user) {
  int n;
  const RxPass *p = rx_graph_pipeline(&n);
  if (last < 0 || last >= n) last = n - 1;
  IrModule *cur = ir_module_copy(m);
  int nerr0 = diag ? diag->nerr : 0;
  for (int i = 0; i <= last; i++) {
    bool changed = false;
    IrModule *next = p[i].fn(cur, diag, &changed);
    ir_module_free(cur);
    cur = next;
    if (!cur || (diag && diag->nerr > nerr0)) {
      if (cur) ir_module_free(cur);
      return NULL;
    }
    if (after) after(user, &p[i], cur, changed);
  }
  return cur;
}
