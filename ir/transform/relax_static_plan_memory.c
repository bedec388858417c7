/* relax_static_plan_memory.c - the graph stage "static-plan-block-memory"
 * (TVM's StaticPlanBlockMemory, as far as it shows): plans each graph
 * function's intermediates (ir/memory_plan.h) and records the outcome in its
 * attributes, "tvs.memory_plan": "planned peak N bytes (unplanned total M
 * bytes), K storage(s) for T intermediate(s)[, D of symbolic size]", so that
 * `tvs show --stage static-plan-block-memory` shows what the compiled graph
 * will allocate.  The code generator plans the same way (the plan is a pure
 * function of the graph); `tvs run --memory-plan` prints the whole table. */
#include "ir/transform/xform_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "ir/memory_plan.h"

/* The number of distinct workspace offsets: storages shared by tensors. */
static int count_storages(const RxMemPlan *p, int *ninter) {
  int n = 0;
  *ninter = 0;
  for (int i = 0; i < p->n; i++) {
    if (p->t[i].out >= 0 || p->t[i].offset < 0) continue;
    (*ninter)++;
    bool first = true;
    for (int k = 0; k < i && first; k++)
      first = !(p->t[k].out < 0 && p->t[k].offset == p->t[i].offset);
    n += first;
  }
  return n;
}

IrModule *rx_static_plan_block_memory(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag;
  if (changed) *changed = false;
  IrModule *out = ir_module_derive(m);
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    RxMemPlan plan;
    if (g->kind != IR_FUNC_RELAX || rx_memory_plan(g->rx, &plan) != 0) {
      if (g->kind == IR_FUNC_TIR) ir_module_add_tir(out, g->name, g->tir);
      else ir_module_add_relax(out, g->name, g->rx);
      continue;
    }
    int ninter, nstor = count_storages(&plan, &ninter);
    char text[256], dyn[64] = "";
    if (plan.ndynamic) snprintf(dyn, sizeof dyn, ", %d of symbolic size", plan.ndynamic);
    snprintf(text, sizeof text, "planned peak %lld bytes (unplanned total %lld bytes), %d storage%s for %d intermediate%s%s",
             (long long)plan.peak, (long long)plan.unplanned, nstor, nstor == 1 ? "" : "s", ninter,
             ninter == 1 ? "" : "s", dyn);
    rx_memory_plan_free(&plan);
    RxFunc *nf = ir_memdup(out->heap, g->rx, sizeof *nf);
    nf->attrs = irv_dict_set(out->heap, g->rx->attrs, "tvs.memory_plan", irv_str(out->heap, text));
    ir_module_add_relax(out, g->name, nf);
    if (changed) *changed = true;
  }
  return out;
}
