/* relax_dead_code_elimination.c - DeadCodeElimination (TVM's relax.transform.
 * DeadCodeElimination):
 *
 *   1. functions no public function reaches are removed: the entries are the
 *      functions with a global_symbol (not private=True); a graph function
 *      reaches the functions it names (cls.f in R.call_tir ...);
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

#include <string.h>

#include "base/util.h"

static bool is_public(const IrGlobal *g) {
  const IrValue *attrs = g->kind == IR_FUNC_TIR ? g->tir->attrs : g->rx->attrs;
  return irv_dict_get(attrs, "global_symbol") != NULL;
}

typedef struct Reach {
  const IrModule *m;
  IrPtrMap seen;  /* const IrGlobal* reached */
  PtrVec work;
} Reach;

static void reach(Reach *r, const char *name) {
  int i = ir_module_index(r->m, name);
  if (i < 0 || ir_ptrmap_has(&r->seen, &r->m->funcs[i])) return;
  ir_ptrmap_put(&r->seen, &r->m->funcs[i], NULL);
  pv_push(&r->work, (void *)&r->m->funcs[i]);
}

/* Every cls.f named in e (nested SEQs included). */
static void reach_expr(Reach *r, const RxExpr *e) {
  if (!e) return;
  switch (e->kind) {
    case RX_GLOBAL_VAR: reach(r, e->gvar.name); return;
    case RX_CALL:
      if (e->call.callee) reach_expr(r, e->call.callee);
      for (int i = 0; i < e->call.n; i++) reach_expr(r, e->call.args[i]);
      return;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++) reach_expr(r, e->tuple.fields[i]);
      return;
    case RX_TUPLE_GET_ITEM: reach_expr(r, e->get.tuple); return;
    case RX_IF:
      reach_expr(r, e->ifs.cond);
      reach_expr(r, e->ifs.then_e);
      reach_expr(r, e->ifs.else_e);
      return;
    case RX_SEQ:
      for (int bi = 0; bi < e->seq.nblocks; bi++)
        for (int i = 0; i < e->seq.blocks[bi].n; i++) reach_expr(r, e->seq.blocks[bi].bindings[i].value);
      reach_expr(r, e->seq.body);
      return;
    default: return;
  }
}

/* m without the functions no public one reaches (m itself when none goes). */
static IrModule *remove_unreached(IrModule *m, bool *changed) {
  bool has_graph = false;
  for (int i = 0; i < m->nfuncs; i++) has_graph |= m->funcs[i].kind == IR_FUNC_RELAX;
  if (!has_graph) return m;
  Reach r;
  memset(&r, 0, sizeof r);
  r.m = m;
  for (int i = 0; i < m->nfuncs; i++)
    if (is_public(&m->funcs[i])) reach(&r, m->funcs[i].name);
  while (r.work.len) {
    const IrGlobal *g = r.work.items[--r.work.len];
    if (g->kind == IR_FUNC_RELAX) reach_expr(&r, g->rx->body);
  }
  IrModule *out = m;
  if (r.seen.len < m->nfuncs) {
    out = ir_module_derive(m);
    out->name = m->name;
    for (int i = 0; i < m->nfuncs; i++) {
      const IrGlobal *g = &m->funcs[i];
      if (!ir_ptrmap_has(&r.seen, g)) continue;
      if (g->kind == IR_FUNC_TIR) ir_module_add_tir(out, g->name, g->tir);
      else ir_module_add_relax(out, g->name, g->rx);
    }
    ir_module_free(m);
    *changed = true;
  }
  ir_ptrmap_free(&r.seen);
  pv_free(&r.work);
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
