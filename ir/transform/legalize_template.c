/* legalize_template.c - the stdlib provider hook and template-based
 * legalization (see legalize_template.h). */
#include "ir/transform/legalize_template.h"

#include <stdlib.h>
#include <string.h>

#include "ir/mutate.h"
#include "ir/specialize.h"
#include "ir/transform.h"
#include "base/util.h"

static RxStdlibProvider provider;

void rx_set_stdlib_provider(RxStdlibProvider fn) { provider = fn; }

const TirFunc *rx_stdlib_template(const char *name, IrHeap **heap) {
  return provider ? provider(name, heap) : NULL;
}

/* ------------------------------------------------------------ template vars */

typedef struct VarIndex {
  PtrVec vars; /* every distinct var referenced in the template */
} VarIndex;

static TirExpr *note_var(TirMutator *m, TirExpr *e) {
  VarIndex *vi = m->ctx;
  for (int i = 0; i < vi->vars.len; i++)
    if (vi->vars.items[i] == e->var) return e;
  pv_push(&vi->vars, e->var);
  return e;
}

static TirVar *find_var(const VarIndex *vi, const char *name) {
  for (int i = 0; i < vi->vars.len; i++) {
    TirVar *v = vi->vars.items[i];
    if (!strcmp(v->name, name)) return v;
  }
  return NULL;
}

/* Binds template dim t to value v when t is a plain var not bound yet. */
static void unify_dim(IrPtrMap *bound, PtrVec *vars, PtrVec *vals, TirExpr *t, TirExpr *v) {
  if (t->kind != TIR_VAR || ir_ptrmap_has(bound, t->var)) return;
  ir_ptrmap_put(bound, t->var, v);
  pv_push(vars, t->var);
  pv_push(vals, v);
}

/* TVM's legalized form: private (no global_symbol), tir.noalias, buffer
 * params written `A: T.Buffer(...)` when every shape is static, else
 * `var_A: T.handle` with match_buffer. */
static TirFunc *legalized_form(Lg *g, TirFunc *f) {
  IrHeap *h = g->h;
  bool sugar = true;
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map[i]) sugar &= lg_static_shape(f->buffer_map[i]);
  TirFunc *c = ir_memdup(h, f, sizeof *f);
  c->params = ir_alloc(h, (size_t)(f->nparams ? f->nparams : 1) * sizeof *c->params);
  for (int i = 0; i < f->nparams; i++) {
    const char *bn = f->buffer_map[i] ? f->buffer_map[i]->name : f->params[i]->name;
    char *pn = xasprintf(sugar ? "%s" : "var_%s", bn);
    c->params[i] = tir_var(h, pn, dt_handle);
    free(pn);
  }
  c->attrs = irv_dict_set(h, NULL, "tir.noalias", irv_bool(h, true));
  c->buffer_param_sugar = sugar;
  c->span = span_none;
  return c;
}

TirFunc *lg_from_template(Lg *g, const char *tmpl, const RxExpr *call, int nin, const LgBind *binds, int nb,
                          RxExpr **args, int *nargs) {
  IrHeap *th = NULL;
  const TirFunc *t = rx_stdlib_template(tmpl, &th);
  if (!t || t->nparams != nin + 1 || !t->buffer_map) return NULL;
  ir_heap_depend(g->h, th);
  /* the templates are written in float32: retyped to the operands' dtype,
   * the output to the result's (out_dtype) */
  DType in = call->call.args[0]->sinfo->dtype, out = call->sinfo->dtype;
  if (dt_is_float(in) != dt_is_float(out) || dt_is_bool(in) || dt_is_bool(out)) return NULL;
  t = tir_retype_output(g->h, tir_retype(g->h, t, in), out);
  for (int i = 0; i <= nin; i++) {
    const RxSInfo *si = i < nin ? call->call.args[i]->sinfo : call->sinfo;
    if (!t->buffer_map[i] || !dt_eq(t->buffer_map[i]->dtype, si->dtype)) return NULL;
  }
  VarIndex vi = {{0}};
  TirMutator m;
  tir_mutator_init(&m, g->h);
  m.expr[TIR_VAR] = note_var;
  m.ctx = &vi;
  tir_mutate_func(&m, (TirFunc *)t);
  tir_mutator_free(&m);

  IrPtrMap bound;
  ir_ptrmap_init(&bound);
  PtrVec vars = {0}, vals = {0};
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  bool ok = true;
  for (int k = 0; k < nb && ok; k++) {
    TirVar *v = find_var(&vi, binds[k].name);
    if (v) unify_dim(&bound, &vars, &vals, tir_var_ref(g->h, v), tir_int(g->h, v->dtype, binds[k].value));
  }
  for (int i = 0; i < nin && ok; i++) {
    const RxSInfo *si = call->call.args[i]->sinfo;
    const TirBuffer *b = t->buffer_map[i];
    if (!b || b->ndim != si->ndim) ok = false;
    for (int d = 0; ok && d < b->ndim; d++) unify_dim(&bound, &vars, &vals, b->shape[d], lg_map_dim(g, &vm, si->shape[d]));
    args[i] = (RxExpr *)call->call.args[i];
  }
  const TirBuffer *ob = t->buffer_map[nin];
  if (ok && (!ob || ob->ndim != call->sinfo->ndim)) ok = false;
  for (int d = 0; ok && d < ob->ndim; d++) unify_dim(&bound, &vars, &vals, ob->shape[d], lg_map_dim(g, &vm, call->sinfo->shape[d]));
  TirFunc *f = NULL;
  if (ok) {
    f = tir_specialize(g->h, t, (TirVar *const *)vars.items, (TirExpr *const *)vals.items, vars.len);
    f = legalized_form(g, f);
    *nargs = nin;
  }
  pv_free(&vi.vars);
  pv_free(&vars);
  pv_free(&vals);
  ir_ptrmap_free(&bound);
  ir_ptrmap_free(&vm.map);
  return f;
}
