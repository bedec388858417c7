/* relax_canonicalize_bindings.c - CanonicalizeBindings (TVM's relax.transform.
 * CanonicalizeBindings, its Relax-binding half):
 *
 *   lv0 = R.add(x, y)                     gv = R.add(x, y)
 *   lv1 = lv0            ==>              R.output(gv)
 *   gv = lv1
 *   R.output(gv)
 *
 * Planned over the whole function first, then applied:
 *   - a trivial binding `y = x` (x a variable; an R.match_cast whose struct
 *     info equals x's counts too) is removed and y's uses read x, through
 *     chains of them; when y is an output of a dataflow block used after it
 *     and x a dataflow variable, the direction flips: x's binding binds y
 *     (the user-visible name stays) and x's uses read y;
 *   - `t[i]` of a variable bound to a literal tuple reads the field, and a
 *     tuple (t[0], t[1], ...) of all of t's fields in order is t;
 *   - a variable bound to an R.const is replaced by the constant at its uses
 *     (the binding is left to dead-code-elimination);
 *   - an output of a dataflow block (Var) that is used only inside the block
 *     becomes a DataflowVar;
 *   - in a dataflow block, `gv = R.match_cast(lv, S)` where lv is used by
 *     nothing else binds gv to lv's value directly.
 * TVM's other half (CanonicalizeTIRVariables: size variables known from a
 * match_cast replaced by their values) is not done.
 *
 * requires: nothing; preserves: the values computed. */
#include "ir/transform/relax_pass_util.h"
#include "ir/transform/xform_internal.h"

#include <stdlib.h>
#include <string.h>

#include "ir/relax_op.h"
#include "base/util.h"

typedef struct Plan {
  IrHeap *h;
  const RxBlock *cur;     /* block being walked, NULL outside blocks */
  IrPtrMap known;         /* var -> its value, unwrapped */
  IrPtrMap def_block;     /* var -> the RxBlock binding it */
  IrPtrMap outside;       /* vars used outside their home dataflow block */
  PtrVec trivial;         /* pairs (var, the var it is bound to), in binding order */
  IrPtrMap trivial_map;   /* the same as a map */
  IrPtrMap consts;        /* var -> the R.const it is bound to */
  PtrVec df_defined;      /* vars bound inside dataflow blocks */
  /* the plan */
  IrPtrMap replace_usage, replace_binding, remove, final;
} Plan;

static bool is_var(const RxExpr *e) { return e && (e->kind == RX_VAR || e->kind == RX_DATAFLOW_VAR); }

static bool sinfo_same(const RxSInfo *a, const RxSInfo *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || !dt_eq(a->dtype, b->dtype) || a->ndim != b->ndim) return false;
  if (a->kind == RX_SI_TUPLE) {
    if (a->nfields != b->nfields) return false;
    for (int i = 0; i < a->nfields; i++)
      if (!sinfo_same(a->fields[i], b->fields[i])) return false;
    return true;
  }
  if (!a->shape != !b->shape) return false;
  for (int i = 0; a->shape && i < a->ndim; i++)
    if (!rx_dim_eq(a->shape[i], b->shape[i])) return false;
  return true;
}

/* x, or the value a chain of known bindings leads to from it. */
static RxExpr *unwrap_var(Plan *p, RxExpr *x) {
  for (int k = 0; k < 1000 && is_var(x) && ir_ptrmap_has(&p->known, x); k++) x = ir_ptrmap_get(&p->known, x);
  return x;
}

/* A tuple (t[0], ..., t[n-1]) of all of t's fields in order: t (unwrapped). */
static RxExpr *earlier_tuple(Plan *p, RxExpr *e) {
  if (e->tuple.n == 0) return NULL;
  RxExpr *src = NULL;
  for (int i = 0; i < e->tuple.n; i++) {
    RxExpr *el = unwrap_var(p, e->tuple.fields[i]);
    if (el->kind != RX_TUPLE_GET_ITEM || el->get.index != i) return NULL;
    const RxSInfo *ts = el->get.tuple->sinfo;
    if (!ts || ts->kind != RX_SI_TUPLE || ts->nfields != e->tuple.n) return NULL;
    RxExpr *t = unwrap_var(p, el->get.tuple);
    if (src && t != src) return NULL;
    src = t;
  }
  return src;
}

/* The value e stands for when it reads a known tuple, else e. */
static RxExpr *unwrap_value(Plan *p, RxExpr *e) {
  if (e->kind == RX_TUPLE_GET_ITEM) {
    RxExpr *t = unwrap_var(p, e->get.tuple);
    if (t->kind == RX_TUPLE && e->get.index >= 0 && e->get.index < t->tuple.n) return t->tuple.fields[e->get.index];
  }
  if (e->kind == RX_TUPLE) {
    RxExpr *t = earlier_tuple(p, e);
    if (t) return t;
  }
  return e;
}

/* ------------------------------------------------------------ planning */

static void plan_use(void *ctx, const RxExpr *var) {
  Plan *p = ctx;
  const RxBlock *home = ir_ptrmap_get(&p->def_block, var);
  if (!p->cur || !p->cur->is_dataflow || (home && home != p->cur))
    ir_ptrmap_put(&p->outside, var, NULL);
}

static void plan_expr(Plan *p, const RxExpr *e);

static void plan_binding(Plan *p, const RxBinding *bd) {
  RxExpr *u = unwrap_value(p, bd->value);
  if (is_var(u) && (!bd->cast_to || sinfo_same(bd->cast_to, u->sinfo))) {
    pv_push(&p->trivial, bd->var);
    pv_push(&p->trivial, u);
    ir_ptrmap_put(&p->trivial_map, bd->var, u);
  }
  if (u->kind == RX_CONST && !bd->cast_to) ir_ptrmap_put(&p->consts, bd->var, u);
  ir_ptrmap_put(&p->known, bd->var, u);
  ir_ptrmap_put(&p->def_block, bd->var, (void *)p->cur);
  plan_expr(p, bd->value);
  if (p->cur->is_dataflow) pv_push(&p->df_defined, bd->var);
}

static void plan_expr(Plan *p, const RxExpr *e) {
  if (!e) return;
  if (e->kind == RX_IF) {
    plan_expr(p, e->ifs.cond);
    plan_expr(p, e->ifs.then_e);
    plan_expr(p, e->ifs.else_e);
    return;
  }
  if (e->kind != RX_SEQ) {
    rxu_for_each_use(e, plan_use, p);
    return;
  }
  const RxBlock *saved = p->cur;
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    p->cur = &e->seq.blocks[bi];
    for (int i = 0; i < p->cur->n; i++) plan_binding(p, &p->cur->bindings[i]);
  }
  p->cur = NULL;
  plan_expr(p, e->seq.body);
  p->cur = saved;
}

static RxExpr *chase(const IrPtrMap *m, RxExpr *v) {
  for (int k = 0; k < 1000 && ir_ptrmap_has(m, v); k++) v = ir_ptrmap_get(m, v);
  return v;
}

/* The decisions, as TVM's CanonicalizePlanner makes them. */
static void make_plan(Plan *p) {
  for (int i = 0; i < p->df_defined.len; i++) {
    RxExpr *v = p->df_defined.items[i];
    if (v->kind != RX_VAR || ir_ptrmap_has(&p->outside, v)) continue;
    RxExpr *nv = rx_var(p->h, v->var.name, v->sinfo, true);
    nv->span = v->span;
    ir_ptrmap_put(&p->replace_binding, v, nv);
    ir_ptrmap_put(&p->replace_usage, v, nv);
  }
  for (int i = 0; i + 1 < p->trivial.len; i += 2) {
    RxExpr *bound = p->trivial.items[i], *to = p->trivial.items[i + 1];
    to = chase(&p->trivial_map, to);
    to = chase(&p->replace_binding, to);
    if (bound->kind == RX_DATAFLOW_VAR || to->kind != RX_DATAFLOW_VAR || !ir_ptrmap_has(&p->outside, bound)) {
      ir_ptrmap_put(&p->replace_usage, bound, to);
    } else { /* Var = DataflowVar, the Var used after the block: bind the Var at x's binding */
      ir_ptrmap_put(&p->replace_binding, to, bound);
      ir_ptrmap_put(&p->replace_usage, to, bound);
    }
    ir_ptrmap_put(&p->remove, bound, NULL);
  }
}

/* What a use of v becomes: the end of its replacement chain, or a constant
 * some var on that chain is bound to. */
static RxExpr *resolve_use(Plan *p, RxExpr *v) {
  for (int k = 0; k < 1000; k++) {
    if (ir_ptrmap_has(&p->consts, v)) return ir_ptrmap_get(&p->consts, v);
    if (!ir_ptrmap_has(&p->replace_usage, v)) return v;
    v = ir_ptrmap_get(&p->replace_usage, v);
  }
  return v;
}

static void resolve_all(Plan *p, const IrPtrMap *keys) {
  for (int i = 0; i < keys->cap; i++) {
    RxExpr *v = (RxExpr *)keys->keys[i];
    if (!v) continue;
    RxExpr *r = resolve_use(p, v);
    if (r != v) ir_ptrmap_put(&p->final, v, r);
  }
}

/* ------------------------------------------------------------ applying */

/* In a dataflow block, `gv = lv` / `gv = R.match_cast(lv, S)` where lv is
 * used by nothing else: gv is bound to lv's value (TVM's output folding). */
typedef struct Outputs {
  IrPtrMap disq, outs, cand;
} Outputs;

static void disqualify(void *ctx, const RxExpr *var) {
  if (var->kind == RX_DATAFLOW_VAR) ir_ptrmap_put(&((Outputs *)ctx)->disq, var, NULL);
}

static bool fold_outputs(RxuBindings *bs) {
  Outputs o;
  memset(&o, 0, sizeof o);
  for (int i = bs->len - 1; i >= 0; i--) {
    const RxBinding *b = &bs->items[i];
    if (b->var->kind == RX_DATAFLOW_VAR) {
      rxu_for_each_use(b->value, disqualify, &o);
      /* (a match_cast stays: its check would be lost) */
      if (!b->cast_to && !ir_ptrmap_has(&o.disq, b->var) && ir_ptrmap_has(&o.outs, b->var))
        ir_ptrmap_put(&o.cand, b->var, b->value);
    } else if (b->value->kind == RX_DATAFLOW_VAR) {
      if (ir_ptrmap_has(&o.outs, b->value)) ir_ptrmap_put(&o.disq, b->value, NULL);
      ir_ptrmap_put(&o.outs, b->value, NULL);
    } else {
      rxu_for_each_use(b->value, disqualify, &o);
    }
  }
  int k = 0;
  for (int i = 0; i < bs->len; i++) {
    RxBinding b = bs->items[i];
    if (b.var->kind == RX_DATAFLOW_VAR && ir_ptrmap_has(&o.cand, b.var)) continue;
    if (b.var->kind != RX_DATAFLOW_VAR && ir_ptrmap_has(&o.cand, b.value)) b.value = ir_ptrmap_get(&o.cand, b.value);
    bs->items[k++] = b;
  }
  bool changed = k != bs->len;
  bs->len = k;
  ir_ptrmap_free(&o.disq);
  ir_ptrmap_free(&o.outs);
  ir_ptrmap_free(&o.cand);
  return changed;
}

static RxExpr *apply_expr(Plan *p, RxExpr *e);

static RxExpr *apply_seq(Plan *p, RxExpr *e) {
  bool changed = false;
  RxuBlocks bs = {0};
  RxuBindings cur = {0};
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *b = &e->seq.blocks[bi];
    for (int i = 0; i < b->n; i++) {
      RxBinding nb = b->bindings[i];
      if (ir_ptrmap_has(&p->remove, nb.var)) {
        changed = true;
        continue;
      }
      nb.var = chase(&p->replace_binding, nb.var);
      nb.value = apply_expr(p, nb.value);
      changed |= nb.var != b->bindings[i].var || nb.value != b->bindings[i].value;
      rxu_bindings_push(&cur, nb);
    }
    if (b->is_dataflow) changed |= fold_outputs(&cur);
    changed |= cur.len == 0;
    rxu_blocks_close(&bs, &cur, b->is_dataflow);
  }
  rxu_bindings_free(&cur);
  RxExpr *body = apply_expr(p, e->seq.body);
  if (!changed && body == e->seq.body) {
    rxu_blocks_free(&bs);
    return e;
  }
  return rxu_seq_from(p->h, e, &bs, body);
}

static RxExpr *apply_expr(Plan *p, RxExpr *e) {
  if (!e) return e;
  if (e->kind == RX_SEQ) return apply_seq(p, e);
  if (e->kind != RX_IF) return rxu_subst(p->h, e, &p->final);
  RxExpr *c = rxu_subst(p->h, e->ifs.cond, &p->final);
  RxExpr *t = apply_expr(p, e->ifs.then_e), *f = apply_expr(p, e->ifs.else_e);
  if (c == e->ifs.cond && t == e->ifs.then_e && f == e->ifs.else_e) return e;
  RxExpr *r = ir_memdup(p->h, e, sizeof *e);
  r->ifs.cond = c, r->ifs.then_e = t, r->ifs.else_e = f;
  return r;
}

static void plan_free(Plan *p) {
  IrPtrMap *maps[] = {&p->known, &p->def_block, &p->outside, &p->trivial_map, &p->consts,
                      &p->replace_usage, &p->replace_binding, &p->remove, &p->final};
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) ir_ptrmap_free(maps[i]);
  pv_free(&p->trivial);
  pv_free(&p->df_defined);
}

static RxFunc *canon_func(void *ctx, IrHeap *h, const IrModule *m, RxFunc *f) {
  (void)ctx, (void)m;
  Plan p;
  memset(&p, 0, sizeof p);
  p.h = h;
  plan_expr(&p, f->body);
  make_plan(&p);
  resolve_all(&p, &p.replace_usage);
  resolve_all(&p, &p.consts);
  RxExpr *body = apply_expr(&p, f->body);
  plan_free(&p);
  return rxu_with_body(h, f, body);
}

IrModule *rx_canonicalize_bindings(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag;
  return rxu_map_funcs(m, canon_func, NULL, changed);
}
