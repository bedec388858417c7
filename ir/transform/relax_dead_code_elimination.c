/* relax_dead_code_elimination.c - DeadCodeElimination (TVM's relax.transform.
 * DeadCodeElimination):
 *
 *   1. functions no public function reaches are removed: the entries are the
 *      functions with a global_symbol (not private=True); a graph function
 *      reaches the functions it names (cls.f in R.call_tir ...), a prim_func
 *      those it calls (Module.g(...));
 *   2. in every graph function, bindings whose variable is never used are
 *      removed, transitively (a var used only by removed bindings goes too);
 *      inside a dataflow block everything is pure, outside it a binding whose
 *      value calls an impure operator (R.print, R.call_packed) stays, and so
 *      does every R.match_cast (a run-time check); blocks left empty go;
 *   3. step 1 again, since step 2 may have removed the last call of a function.
 *
 * Unlike TVM, a module without graph functions (a library of prim_funcs) is
 * left whole: nothing there is an entry point more than another.
 *
 * requires: nothing; preserves: everything that is used. */
#include "ir/transform/relax_pass_util.h"
#include "ir/transform/xform_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static bool is_public(const IrGlobal *g) {
  const IrValue *attrs = g->kind == IR_FUNC_TIR ? g->tir->attrs : g->rx->attrs;
  return irv_dict_get(attrs, "global_symbol") != NULL;
}

/* m without the functions no public one reaches (m itself when none goes):
 * a worklist over ir_module_mark_refs, which marks the functions a graph
 * function's body names. */
static IrModule *remove_unreached(IrModule *m, bool *changed) {
  bool has_graph = false;
  for (int i = 0; i < m->nfuncs; i++) has_graph |= m->funcs[i].kind == IR_FUNC_RELAX;
  if (!has_graph) return m;
  bool *seen = xcalloc((size_t)m->nfuncs, sizeof *seen), *done = xcalloc((size_t)m->nfuncs, sizeof *done);
  for (int i = 0; i < m->nfuncs; i++) seen[i] = is_public(&m->funcs[i]);
  for (bool progress = true; progress;) {
    progress = false;
    for (int i = 0; i < m->nfuncs; i++) {
      if (!seen[i] || done[i]) continue;
      done[i] = progress = true;
      if (m->funcs[i].kind == IR_FUNC_RELAX) ir_module_mark_refs(m, m->funcs[i].rx->body, seen);
      else ir_module_mark_tir_calls(m, m->funcs[i].tir, seen); /* its subroutines */
    }
  }
  int nseen = 0;
  for (int i = 0; i < m->nfuncs; i++) nseen += seen[i];
  IrModule *out = m;
  if (nseen < m->nfuncs) {
    out = ir_module_derive(m);
    out->name = m->name;
    for (int i = 0; i < m->nfuncs; i++) {
      const IrGlobal *g = &m->funcs[i];
      if (!seen[i]) continue;
      if (g->kind == IR_FUNC_TIR) ir_module_add_tir(out, g->name, g->tir);
      else ir_module_add_relax(out, g->name, g->rx);
    }
    ir_module_free(m);
    *changed = true;
  }
  free(seen);
  free(done);
  return out;
}

static RxFunc *dce_func(void *ctx, IrHeap *h, const IrModule *m, RxFunc *f) {
  (void)ctx, (void)m;
  return rxu_with_body(h, f, rxu_remove_unused(h, f->body));
}

IrModule *rx_dead_code_elimination(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag;
  bool ch = false, ch2 = false;
  IrModule *cur = remove_unreached(ir_module_copy(m), &ch);
  IrModule *next = rxu_map_funcs(cur, dce_func, NULL, &ch2);
  ir_module_free(cur);
  next = remove_unreached(next, &ch);
  if (changed) *changed = ch || ch2;
  return next;
}
