/* primitive_padding.c - the padding primitives of TVM v0.10.
 *
 * pad_einsum pads the iteration domain of an Einsum-like block up to
 * multiples of given factors: each operand indexed by a padded iter is
 * replaced by a `<buf>_pad` buffer, filled (zeros outside the original) by a
 * copy block before the block's statement, and outputs are copied back after
 * it.
 *
 * decompose_padding splits a padding block
 * `X[...] = T.if_then_else(in_bounds, value, pad)` into a block filling the
 * whole buffer with the constant (`<block>_pad_const`, placed before a given
 * loop) and the original block narrowed to the in-bound region.
 *
 * The in-bound region of each block iter is read off the predicate's
 * conjuncts that bound the iter's binding by constants (TVM detects it with
 * an iter map under the predicate; the padding patterns it accepts are of
 * this form).  The trimmed block keeps its iter vars and loops, so handles to
 * it stay valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* Flattens a conjunction (dropping T.likely) into out. */
static void conjuncts(TirExpr *e, PtrVec *out) {
  if (e->kind == TIR_AND) {
    conjuncts(e->bin.a, out);
    conjuncts(e->bin.b, out);
    return;
  }
  if (e->kind == TIR_CALL && e->call.op->id == TIR_OP_LIKELY) e = e->call.args[0];
  if (sch_is_trivial_pred(e)) return;
  pv_push(out, e);
}

/* Narrows [*lo, *hi) of binding b by conjunct c when c bounds b by a
 * constant (`k <= b`, `b < k`, `b + 3 < k`...).  Returns whether c is
 * about b. */
static bool bound_by(ArithCtx *ctx, TirExpr *c, TirExpr *b, int64_t *lo, int64_t *hi) {
  IrHeap *h = arith_heap(ctx);
  TirExpr *l = c->bin.a, *r = c->bin.b;
  TirExprKind k = c->kind;
  if (k != TIR_LT && k != TIR_LE && k != TIR_GT && k != TIR_GE) return false;
  /* Normalize to `e < k` / `e >= k` with e - b constant. */
  for (int side = 0; side < 2; side++) {
    TirExpr *e = side == 0 ? l : r, *other = side == 0 ? r : l;
    int64_t kv, dv;
    if (!tir_is_const_int(arith_simplify(ctx, other), &kv)) continue;
    TirExpr *d = arith_simplify(ctx, tir_binary(h, TIR_SUB, e, b));
    if (!tir_is_const_int(d, &dv)) continue;
    /* e CMP kv with e = b + dv, or kv CMP e when side == 1. */
    TirExprKind kk = k;
    if (side == 1) kk = k == TIR_LT ? TIR_GT : k == TIR_LE ? TIR_GE : k == TIR_GT ? TIR_LT : TIR_LE;
    int64_t v = kv - dv;
    switch (kk) {
      case TIR_LT: if (v < *hi) *hi = v; break;
      case TIR_LE: if (v + 1 < *hi) *hi = v + 1; break;
      case TIR_GT: if (v + 1 > *lo) *lo = v + 1; break;
      default: if (v > *lo) *lo = v; break;
    }
    return true;
  }
  return false;
}

/* The block realize at the bottom of a loop nest. */
static const TirStmt *const_nest_realize(const TirStmt *st) {
  while (st->kind == TIR_S_FOR) st = st->loop.body;
  return st;
}

static bool is_const_number(const TirExpr *e) {
  if (e->kind == TIR_CAST) e = e->un.a;
  return e->kind == TIR_INT || e->kind == TIR_FLOAT;
}

/* What decompose_padding works on, filled step by step. */
typedef struct DecompPad {
  Schedule *s;
  SchPath *bp;
  TirStmt *realize, *loop;
  const TirBlock *b;
  const TirStmt *store;  /* the block's body */
  TirExpr *pad, *inb;    /* the pad value and the in-bound value */
  int at;                /* index of `loop` in bp */
  int scope;             /* index of the scope block in bp */
  TirStmt **loops;       /* the loops from the block up to its scope, innermost first */
  int nloops;
  int const_k;           /* index in loops of `loop` */
  int inb_k;             /* highest loop of the single-child chain above the block, up to `loop` */
  ArithCtx *ctx;         /* binds the loops */
  PtrVec conj;           /* the conjuncts of the padding predicate */
  TirExpr *inb_pred;     /* their conjunction, simplified */
  int64_t *rmin, *rext;  /* the in-bound region of each iter, as [min, min + extent) */
} DecompPad;

/* The loop is above the block in its scope and the block is a complete
 * block `X[...] = T.if_then_else(in_bounds, value, pad)` with a constant
 * pad; fills at, scope, store, pad and inb. */
static bool check_padding_block(DecompPad *dp) {
  Schedule *s = dp->s;
  const TirBlock *b = dp->b;
  dp->at = -1;
  for (int d = 0; d < dp->bp->n; d++)
    if (dp->bp->s[d] == dp->loop) dp->at = d;
  dp->scope = sch_scope_index(dp->bp, dp->bp->n - 1);
  if (dp->at < 0 || dp->at < dp->scope) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 1,
             "decompose_padding: loop '%s' is not an ancestor of block '%s'",
             sch_loop_name(dp->loop), b->name);
    return false;
  }
  for (int i = 0; i < b->niters; i++)
    if (b->iters[i].type != TIR_ITER_SPATIAL) {
      sch_fail(s, SCH_ERR_DATAFLOW, 0,
               "decompose_padding: block '%s' is not a complete block: iter '%s' is not "
               "data-parallel",
               b->name, b->iters[i].var->name);
      return false;
    }
  if (b->init || b->nwrites != 1) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0, "decompose_padding: block '%s' is not a complete block",
             b->name);
    return false;
  }
  const TirStmt *store = dp->store = b->body;
  if (store->kind != TIR_S_STORE || store->store.buf != b->writes[0].buffer) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0,
             "decompose_padding: block '%s' does not match the padding pattern: its body must be "
             "a store to the buffer it writes",
             b->name);
    return false;
  }
  TirExpr *ite = store->store.value;
  if (ite->kind != TIR_CALL || ite->call.op->id != TIR_OP_IF_THEN_ELSE) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0,
             "decompose_padding: block '%s' does not match the padding pattern: the value stored "
             "must be a T.if_then_else on the padding predicate",
             b->name);
    return false;
  }
  dp->pad = ite->call.args[2], dp->inb = ite->call.args[1];
  if (!is_const_number(dp->pad)) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0,
             "decompose_padding: block '%s' does not match the padding pattern: the pad value "
             "must be a constant",
             b->name);
    return false;
  }
  return true;
}

/* Collects the loops from the block up to its scope and finds `loop` and
 * the single-child chain above the block among them. */
static bool check_loop_chain(DecompPad *dp) {
  const SchPath *bp = dp->bp;
  TirStmt **loops = dp->loops = xmalloc((size_t)bp->n * sizeof *loops);
  int nloops = 0;
  for (int d = bp->n - 1; d > dp->scope; d--)
    if (bp->s[d]->kind == TIR_S_FOR) loops[nloops++] = bp->s[d];
  dp->nloops = nloops;
  int const_k = -1, inb_k = -1;
  for (int k = 0; k < nloops; k++) {
    TirStmtKind bk = loops[k]->loop.body->kind;
    if (loops[k] == dp->loop) {
      const_k = k;
      /* (only while the chain holds: a loop whose body is a sequence, e.g.
       * with a consumer moved in by reverse_compute_at, is not rebuilt) */
      if ((k == 0 || inb_k == k - 1) && (bk == TIR_S_FOR || bk == TIR_S_BLOCK_REALIZE)) inb_k = k;
      break;
    }
    if (k == 0 || inb_k == k - 1) {
      if (bk == TIR_S_FOR || bk == TIR_S_BLOCK_REALIZE) inb_k = k;
    }
  }
  dp->const_k = const_k;
  dp->inb_k = inb_k;
  if (inb_k < 0) {
    /* (the innermost loop is rebuilt around the narrowed block: anything
     * beside the block in it, e.g. a write_at copy, would be lost) */
    sch_fail(dp->s, SCH_ERR_LOOP_STRUCTURE, 0,
             "decompose_padding: block '%s' is not alone in its innermost loop '%s'", dp->b->name,
             nloops ? sch_loop_name(loops[0]) : "?");
    return false;
  }
  return true;
}

/* The padding predicate in the loop vars (with the realize's own
 * predicate), as conjuncts and as their non-trivial conjunction. */
static bool compute_inbound_predicate(DecompPad *dp, IrHeap *h) {
  const TirStmt *realize = dp->realize;
  const TirBlock *b = dp->b;
  dp->ctx = arith_new(h);
  /* outer loops first: the binding order is the simplifier's term order */
  for (int k = dp->nloops - 1; k >= 0; k--)
    arith_bind_range(dp->ctx, dp->loops[k]->loop.var, dp->loops[k]->loop.min, dp->loops[k]->loop.extent);
  IrPtrMap iv;
  ir_ptrmap_init(&iv);
  for (int i = 0; i < b->niters; i++) ir_ptrmap_put(&iv, b->iters[i].var, realize->realize.values[i]);
  TirExpr *pred = tir_substitute_expr(h, dp->store->store.value->call.args[0], &iv);
  ir_ptrmap_free(&iv);
  if (!sch_is_trivial_pred(realize->realize.pred))
    pred = tir_binary(h, TIR_AND, pred, realize->realize.pred);
  conjuncts(pred, &dp->conj);
  TirExpr *inb_pred = NULL;
  for (int i = 0; i < dp->conj.len; i++)
    inb_pred = inb_pred ? tir_binary(h, TIR_AND, inb_pred, dp->conj.items[i]) : dp->conj.items[i];
  if (!inb_pred || arith_prove(dp->ctx, inb_pred)) {
    sch_fail(dp->s, SCH_ERR_BODY_PATTERN, 0,
             "decompose_padding: block '%s' does not match the padding pattern: the in-bound "
             "predicate is trivial",
             b->name);
    return false;
  }
  dp->inb_pred = arith_simplify(dp->ctx, inb_pred);
  return true;
}

/* Whether binding v is an affine sum of the loop vars; *strided when its
 * coefficients have a gcd above 1 (the binding skips values). */
static bool binding_is_affine(const DecompPad *dp, TirExpr *v, bool *strided) {
  int nloops = dp->nloops;
  const TirVar **lvs = xmalloc((size_t)(nloops ? nloops : 1) * sizeof *lvs);
  int64_t *co = xcalloc((size_t)(nloops ? nloops : 1), sizeof *co);
  for (int k = 0; k < nloops; k++) lvs[k] = dp->loops[k]->loop.var;
  TirExpr *rest = NULL;
  bool aff = arith_affine(dp->ctx, v, lvs, nloops, co, &rest);
  int64_t g = 0;
  for (int k = 0; k < nloops && aff; k++) {
    int64_t x = co[k] < 0 ? -co[k] : co[k], y = g;
    while (y) {
      int64_t t = x % y;
      x = y;
      y = t;
    }
    g = x;
  }
  free(lvs);
  free(co);
  *strided = aff && g > 1;
  return aff;
}

/* Whether the conjuncts about no single binding (used[c] false) only
 * restate the realize's own predicate: TVM's iter map fails on others. */
static bool unused_conjuncts_are_own(const DecompPad *dp, const bool *used) {
  for (int c = 0; c < dp->conj.len; c++) {
    if (used[c]) continue;
    PtrVec rc = {0};
    if (!sch_is_trivial_pred(dp->realize->realize.pred)) conjuncts(dp->realize->realize.pred, &rc);
    bool own = false;
    for (int k = 0; k < rc.len; k++) own |= rc.items[k] == dp->conj.items[c];
    pv_free(&rc);
    if (!own) return false;
  }
  return true;
}

/* The in-bound region of each iter (rmin, rext): its binding's range
 * narrowed by the conjuncts that bound it by constants. */
static bool compute_inbound_region(DecompPad *dp) {
  const TirBlock *b = dp->b;
  ArithCtx *ctx = dp->ctx;
  int64_t *rmin = dp->rmin = xmalloc((size_t)(b->niters ? b->niters : 1) * sizeof *rmin);
  int64_t *rext = dp->rext = xmalloc((size_t)(b->niters ? b->niters : 1) * sizeof *rext);
  bool *used = xcalloc((size_t)(dp->conj.len ? dp->conj.len : 1), sizeof *used);
  bool ok = true, strided = false;
  for (int i = 0; i < b->niters && ok; i++) {
    int64_t lo, hi, dlo, dext;
    TirExpr *v = dp->realize->realize.values[i];
    if (!arith_const_bounds(ctx, v, &lo, &hi) ||
        !tir_is_const_int(b->iters[i].dom.min, &dlo) ||
        !tir_is_const_int(b->iters[i].dom.extent, &dext)) {
      ok = false;
      break;
    }
    hi += 1;
    /* The binding must not skip values: an affine sum of the loop vars
     * whose coefficients have gcd 1 (TVM: "Strided iteration is not
     * supported"). */
    if (!binding_is_affine(dp, v, &strided) || strided) {
      ok = false;
      break;
    }
    if (dlo > lo) lo = dlo;
    if (dlo + dext < hi) hi = dlo + dext;
    for (int c = 0; c < dp->conj.len; c++)
      if (bound_by(ctx, dp->conj.items[c], v, &lo, &hi)) used[c] = true;
    if (hi <= lo) ok = false;
    rmin[i] = lo;
    rext[i] = hi - lo;
  }
  if (ok) ok = unused_conjuncts_are_own(dp, used);
  free(used);
  if (!ok) {
    sch_fail(dp->s, SCH_ERR_BODY_PATTERN, 0,
             "decompose_padding: block '%s' does not match the padding pattern: %s",
             b->name, strided ? "strided iteration is not supported"
                              : "its iters are not independently bounded by the padding predicate");
    return false;
  }
  return true;
}

/* e with the vars of the unit loops loops[from..nloops) replaced by their
 * min: TVM simplifies the new bindings knowing the outer loops' ranges,
 * which turns a loop over one value into that value. */
static TirExpr *fold_unit_loops(const DecompPad *dp, IrHeap *h, TirExpr *e, int from) {
  IrPtrMap unit;
  ir_ptrmap_init(&unit);
  for (int k = from; k < dp->nloops; k++)
    if (tir_is_one(dp->loops[k]->loop.extent)) ir_ptrmap_put(&unit, dp->loops[k]->loop.var, dp->loops[k]->loop.min);
  TirExpr *out = unit.len ? tir_substitute_expr(h, e, &unit) : e;
  ir_ptrmap_free(&unit);
  return out == e ? e : arith_simplify(dp->ctx, out);
}

/* The constant-filling nest: fresh copies of the loops from the block up
 * to `loop`, and of the iters. */
static TirStmt *build_const_nest(const DecompPad *dp, IrHeap *h) {
  const TirBlock *b = dp->b;
  const TirStmt *realize = dp->realize, *store = dp->store;
  ArithCtx *ctx = dp->ctx;
  IrPtrMap rep;
  ir_ptrmap_init(&rep);
  TirBlock cb = *b;
  char *nmb = xasprintf("%s_pad_const", b->name);
  cb.name = ir_strdup(h, nmb);
  free(nmb);
  cb.iters = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *cb.iters);
  for (int i = 0; i < b->niters; i++) {
    cb.iters[i] = b->iters[i];
    cb.iters[i].var = tir_var(h, b->iters[i].var->name, b->iters[i].var->dtype);
    ir_ptrmap_put(&rep, b->iters[i].var, tir_var_ref(h, cb.iters[i].var));
  }
  TirVar **nv = ir_alloc(h, (size_t)(dp->const_k + 1) * sizeof *nv);
  for (int k = 0; k <= dp->const_k; k++) {
    nv[k] = tir_var(h, dp->loops[k]->loop.var->name, dp->loops[k]->loop.var->dtype);
    ir_ptrmap_put(&rep, dp->loops[k]->loop.var, tir_var_ref(h, nv[k]));
  }
  TirExpr **idx = ir_alloc(h, (size_t)(store->store.n ? store->store.n : 1) * sizeof *idx);
  for (int d = 0; d < store->store.n; d++)
    idx[d] = arith_simplify(ctx, tir_substitute_expr(h, store->store.idx[d], &rep));
  TirStmt *st = tir_store(h, store->store.buf, dp->pad, idx, store->store.n);
  st->span = store->span;
  cb.body = st;
  cb.nreads = 0;
  cb.reads = NULL;
  cb.writes = ir_alloc(h, sizeof *cb.writes);
  cb.writes[0] = b->writes[0];
  cb.writes[0].ranges = ir_alloc(h, (size_t)(b->writes[0].n ? b->writes[0].n : 1) * sizeof(TirRange));
  for (int d = 0; d < b->writes[0].n; d++) {
    cb.writes[0].ranges[d].min =
        arith_simplify(ctx, tir_substitute_expr(h, b->writes[0].ranges[d].min, &rep));
    cb.writes[0].ranges[d].extent =
        arith_simplify(ctx, tir_substitute_expr(h, b->writes[0].ranges[d].extent, &rep));
  }
  cb.annotations = NULL;
  cb.allocs = NULL;
  cb.nallocs = 0;
  TirExpr **vals = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *vals);
  for (int i = 0; i < b->niters; i++)
    vals[i] = fold_unit_loops(dp, h, tir_substitute_expr(h, realize->realize.values[i], &rep),
                              dp->const_k + 1);
  TirExpr *cp = sch_is_trivial_pred(realize->realize.pred)
                    ? tir_bool(h, true)
                    : tir_substitute_expr(h, realize->realize.pred, &rep);
  TirStmt *blk = tir_block(h, &cb);
  blk->span = realize->realize.block->span;
  TirStmt *const_nest = tir_block_realize(h, vals, b->niters, cp, blk);
  const_nest->span = realize->span;
  for (int k = 0; k <= dp->const_k; k++) {
    const_nest = tir_for(h, nv[k], dp->loops[k]->loop.min, dp->loops[k]->loop.extent, TIR_FOR_SERIAL,
                         NULL, NULL, const_nest);
    const_nest->span = dp->loops[k]->span;
  }
  ir_ptrmap_free(&rep);
  return const_nest;
}

/* v - c keeping v's term order (`i * 75 + j - 3`, as TVM's simplifier
 * leaves it): a trailing constant of v absorbs c. */
static TirExpr *minus_const(IrHeap *h, ArithCtx *ic, TirExpr *v, int64_t c) {
  int64_t k;
  if (c == 0) return v;
  if (tir_is_const_int(v, &k)) return tir_int(h, v->dtype, k - c);
  if ((v->kind == TIR_ADD || v->kind == TIR_SUB) && tir_is_const_int(v->bin.b, &k)) {
    int64_t rest = v->kind == TIR_ADD ? k - c : -k - c;
    if (rest == 0) return v->bin.a;
    return tir_binary(h, rest > 0 ? TIR_ADD : TIR_SUB, v->bin.a, tir_int(h, v->dtype, rest > 0 ? rest : -rest));
  }
  if (v->kind == TIR_VAR || v->kind == TIR_ADD || v->kind == TIR_MUL)
    return tir_binary(h, c > 0 ? TIR_SUB : TIR_ADD, v, tir_int(h, v->dtype, c > 0 ? c : -c));
  return arith_simplify(ic, tir_binary(h, TIR_SUB, v, tir_int(h, v->dtype, c)));
}

/* The in-bound block's iters (nb->iters) and bindings (vals): iter i ranges
 * over [0, rext[i]) and stands for rmin[i] + it (rep maps it so); a binding
 * that is a loop var of the single-child chain narrows that loop instead
 * (lrange: loop var -> its new extent). */
static void build_inbound_iters(const DecompPad *dp, IrHeap *h, ArithCtx *ic, TirBlock *nb,
                                TirExpr **vals, IrPtrMap *rep, IrPtrMap *lrange) {
  const TirBlock *b = dp->b;
  for (int i = 0; i < b->niters; i++) {
    DType dt = b->iters[i].var->dtype;
    nb->iters[i] = b->iters[i];
    nb->iters[i].dom.min = tir_int(h, dt, 0);
    nb->iters[i].dom.extent = tir_int(h, dt, dp->rext[i]);
    TirExpr *mn = tir_int(h, dt, dp->rmin[i]);
    if (dp->rmin[i] != 0)
      ir_ptrmap_put(rep, b->iters[i].var, tir_binary(h, TIR_ADD, tir_var_ref(h, b->iters[i].var), mn));
    TirExpr *v = dp->realize->realize.values[i];
    int lk = -1;
    if (v->kind == TIR_VAR)
      for (int k = 0; k <= dp->inb_k; k++)
        if (dp->loops[k]->loop.var == v->var) lk = k;
    if (lk >= 0 && !ir_ptrmap_has(lrange, v->var)) {
      ir_ptrmap_put(lrange, v->var, nb->iters[i].dom.extent);
      if (dp->rmin[i] != 0)
        ir_ptrmap_put(rep, v->var, tir_binary(h, TIR_ADD, tir_var_ref(h, v->var),
                                               tir_int(h, v->dtype, dp->rmin[i])));
      arith_bind_range(ic, v->var, tir_int(h, v->dtype, 0), tir_int(h, v->dtype, dp->rext[i]));
      vals[i] = v;
    } else {
      v = fold_unit_loops(dp, h, v, 0);
      vals[i] = minus_const(h, ic, v, dp->rmin[i]);
    }
  }
}

/* The regions of b rewritten through rep (simplified in ic). */
static TirBufferRegion *build_rewritten_regions(IrHeap *h, ArithCtx *ic, IrPtrMap *rep,
                                                const TirBufferRegion *olds, int count) {
  TirBufferRegion *list = ir_alloc(h, (size_t)(count ? count : 1) * sizeof *list);
  for (int r = 0; r < count; r++) {
    list[r] = olds[r];
    list[r].ranges = ir_alloc(h, (size_t)(olds[r].n ? olds[r].n : 1) * sizeof(TirRange));
    for (int d = 0; d < olds[r].n; d++) {
      list[r].ranges[d].min = arith_simplify(ic, tir_substitute_expr(h, olds[r].ranges[d].min, rep));
      list[r].ranges[d].extent =
          arith_simplify(ic, tir_substitute_expr(h, olds[r].ranges[d].extent, rep));
    }
  }
  return list;
}

/* The in-bound nest: the block narrowed to the in-bound region, storing
 * the in-bound value, under the single-child chain (narrowed where a
 * binding is its loop var). */
static TirStmt *build_inbound_nest(const DecompPad *dp, IrHeap *h) {
  const TirBlock *b = dp->b;
  const TirStmt *realize = dp->realize, *store = dp->store;
  ArithCtx *ic = arith_new(h);
  IrPtrMap rep, lrange;
  ir_ptrmap_init(&rep);
  ir_ptrmap_init(&lrange);
  TirBlock nb = *b;
  nb.iters = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *nb.iters);
  TirExpr **vals = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *vals);
  for (int k = dp->nloops - 1; k >= 0; k--)
    arith_bind_range(ic, dp->loops[k]->loop.var, dp->loops[k]->loop.min, dp->loops[k]->loop.extent);
  build_inbound_iters(dp, h, ic, &nb, vals, &rep, &lrange);
  for (int i = 0; i < b->niters; i++)
    arith_bind_range(ic, b->iters[i].var, nb.iters[i].dom.min, nb.iters[i].dom.extent);
#define RW(e) arith_simplify(ic, tir_substitute_expr(h, (e), &rep))
  TirExpr **idx = ir_alloc(h, (size_t)(store->store.n ? store->store.n : 1) * sizeof *idx);
  for (int d = 0; d < store->store.n; d++) idx[d] = RW(store->store.idx[d]);
  TirStmt *st = tir_store(h, store->store.buf, RW(dp->inb), idx, store->store.n);
  st->span = store->span;
  nb.body = st;
  nb.reads = build_rewritten_regions(h, ic, &rep, b->reads, b->nreads);
  nb.writes = build_rewritten_regions(h, ic, &rep, b->writes, b->nwrites);
  TirExpr *np = RW(dp->inb_pred);
  if (sch_is_trivial_pred(np) || arith_prove(ic, np)) np = tir_bool(h, true);
#undef RW
  TirStmt *blk = tir_block(h, &nb);
  blk->span = realize->realize.block->span;
  TirStmt *inb_nest = tir_block_realize(h, vals, b->niters, np, blk);
  inb_nest->span = realize->span;
  for (int k = 0; k <= dp->inb_k; k++) {
    TirExpr *ext = ir_ptrmap_get(&lrange, dp->loops[k]->loop.var);
    TirStmt *f = ir_memdup(h, dp->loops[k], sizeof *dp->loops[k]);
    f->loop.body = inb_nest;
    if (ext) f->loop.min = tir_int(h, ext->dtype, 0), f->loop.extent = ext;
    inb_nest = f;
  }
  ir_ptrmap_free(&rep);
  ir_ptrmap_free(&lrange);
  arith_free(ic);
  return inb_nest;
}

/* Put the in-bound nest in place of its top loop, then the constant
 * nest right before `loop`.  Returns the new root. */
static TirStmt *replace_with_padding_nests(const DecompPad *dp, IrHeap *h, TirStmt *const_nest,
                                           TirStmt *inb_nest) {
  const SchPath *bp = dp->bp;
  int d_inb = -1, d_const = dp->at;
  for (int d = 0; d < bp->n; d++)
    if (bp->s[d] == dp->loops[dp->inb_k]) d_inb = d;
  TirStmt *x = inb_nest;
  for (int d = d_inb; d > d_const; d--) x = sch_replace_child(h, bp->s[d - 1], bp->s[d], x);
  TirStmt *pair[2] = {const_nest, x};
  return sch_replace_at(h, bp, d_const, tir_seq(h, pair, 2));
}

SchRV sch_decompose_padding(Schedule *s, SchRV block_rv, SchRV loop_rv) {
  SchPath bp = {0}, lp = {0};
  SchRV res = -1;
  DecompPad dp = {0};
  TirStmt *realize = sch_find_block(s, block_rv, "decompose_padding", 0, &bp);
  if (!realize) goto done;
  TirStmt *loop = sch_find_loop(s, loop_rv, "decompose_padding", 1, &lp);
  if (!loop) goto done;
  dp.s = s, dp.bp = &bp, dp.realize = realize, dp.loop = loop;
  dp.b = tir_realize_block(realize);
  if (!check_padding_block(&dp) || !check_loop_chain(&dp)) goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  if (!compute_inbound_predicate(&dp, h) || !compute_inbound_region(&dp)) {
    ir_module_free(nm);
    goto done;
  }
  TirStmt *const_nest = build_const_nest(&dp, h);
  TirStmt *inb_nest = build_inbound_nest(&dp, h);
  TirStmt *root = replace_with_padding_nests(&dp, h, const_nest, inb_nest);
  const char *func = s->rvs[block_rv].func;
  sch_commit(s, nm, func, root);
  res = sch_block_rv(s, func, const_nest_realize(const_nest));
  SchVal args[2] = {sch_val_rv(block_rv), sch_val_rv(loop_rv)};
  sch_record(s, "decompose_padding", args, 2, &res, 1);
done:
  if (dp.ctx) arith_free(dp.ctx);
  pv_free(&dp.conj);
  free(dp.loops);
  free(dp.rmin);
  free(dp.rext);
  sch_path_free(&bp);
  sch_path_free(&lp);
  return res;
}

/* ------------------------------------------------------------ pad_einsum */

/* Whether a region is a point at plain vars or constants (TVM's Einsum
 * operand); fills the var (or NULL for a constant) of each dimension. */
static bool einsum_point(const TirBufferRegion *r, TirVar **vars) {
  for (int d = 0; d < r->n; d++) {
    if (!tir_is_one(r->ranges[d].extent)) return false;
    const TirExpr *mn = r->ranges[d].min;
    if (mn->kind == TIR_INT) vars[d] = NULL;
    else if (mn->kind == TIR_VAR) vars[d] = mn->var;
    else return false;
  }
  return true;
}

typedef struct PadCtx {
  IrPtrMap iter_ext;  /* block iter var / loop var -> padded extent */
  IrPtrMap loop_ext;  /* loop var -> padded extent */
  IrPtrMap bufs;      /* buffer -> padded buffer */
} PadCtx;

static TirBuffer *pad_buffer_hook(TirMutator *m, TirBuffer *b) {
  PadCtx *c = m->ctx;
  return ir_ptrmap_get(&c->bufs, b);
}

static TirStmt *pad_for(TirMutator *m, TirStmt *s) {
  PadCtx *c = m->ctx;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  TirExpr *ext = ir_ptrmap_get(&c->loop_ext, s->loop.var);
  if (!ext) return r;
  TirStmt *n = ir_memdup(m->heap, r, sizeof *r);
  n->loop.extent = ext;
  return n;
}

/* Blocks of the padded subtree: iter domains padded, and (as TVM does)
 * their own alloc_buffers and match_buffers dropped. */
static TirStmt *pad_block(TirMutator *m, TirStmt *s) {
  PadCtx *c = m->ctx;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  TirBlock b = r->block;
  b.iters = ir_alloc(m->heap, (size_t)(b.niters ? b.niters : 1) * sizeof *b.iters);
  for (int i = 0; i < b.niters; i++) {
    b.iters[i] = r->block.iters[i];
    TirExpr *ext = ir_ptrmap_get(&c->iter_ext, b.iters[i].var);
    if (ext) b.iters[i].dom.extent = ext;
  }
  b.allocs = NULL;
  b.nallocs = 0;
  b.matches = NULL;
  b.nmatches = 0;
  TirStmt *n = tir_block(m->heap, &b);
  n->span = r->span;
  return n;
}

/* A copy nest over `over`'s shape: dst[v...] = src[v...], guarded by
 * v_d < src.shape[d] where the shapes may differ (reads of the padded
 * operand get zeros there). */
static TirStmt *pad_copy_nest(IrHeap *h, ArithCtx *ctx, TirBuffer *src, TirBuffer *dst,
                              const TirBuffer *over, const char *name, bool guard) {
  int nd = over->ndim;
  TirVar **lv = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *lv);
  TirIterVar *its = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *its);
  TirExpr **idx = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *idx);
  TirExpr **vals = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *vals);
  TirRange *pt = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *pt);
  TirExpr *pred = NULL;
  for (int d = 0; d < nd; d++) {
    TirExpr *dim = over->shape[d];
    char nb[32];
    snprintf(nb, sizeof nb, "i%d", d);
    lv[d] = tir_var(h, nb, dim->dtype);
    snprintf(nb, sizeof nb, "v%d", d);
    its[d].var = tir_var(h, nb, dim->dtype);
    its[d].dom.min = tir_int(h, dim->dtype, 0);
    its[d].dom.extent = dim;
    its[d].type = TIR_ITER_SPATIAL;
    idx[d] = tir_var_ref(h, its[d].var);
    vals[d] = tir_var_ref(h, lv[d]);
    pt[d].min = idx[d];
    pt[d].extent = tir_int(h, dim->dtype, 1);
    if (guard && !arith_can_prove_equal(ctx, src->shape[d], dst->shape[d])) {
      TirExpr *lt = tir_binary(h, TIR_LT, idx[d], src->shape[d]);
      pred = pred ? tir_binary(h, TIR_AND, pred, lt) : lt;
    }
  }
  TirExpr *val = tir_load(h, src, idx, nd);
  if (pred) {
    TirExpr *args[3] = {pred, val,
                        dt_is_float(src->dtype) ? tir_float(h, src->dtype, 0) : tir_int(h, src->dtype, 0)};
    val = tir_call(h, src->dtype, &tir_op_table[TIR_OP_IF_THEN_ELSE], args, 3);
  }
  TirBlock b = {0};
  b.name = name;
  b.iters = its;
  b.niters = nd;
  b.reads = ir_alloc(h, sizeof *b.reads);
  b.reads[0] = (TirBufferRegion){src, pt, nd};
  b.nreads = 1;
  b.writes = ir_alloc(h, sizeof *b.writes);
  b.writes[0] = (TirBufferRegion){dst, pt, nd};
  b.nwrites = 1;
  b.body = tir_store(h, dst, val, idx, nd);
  TirStmt *st = tir_block_realize(h, vals, nd, tir_bool(h, true), tir_block(h, &b));
  for (int d = nd - 1; d >= 0; d--)
    st = tir_for(h, lv[d], tir_int(h, over->shape[d]->dtype, 0), over->shape[d], TIR_FOR_SERIAL,
                 NULL, NULL, st);
  return st;
}

/* A block realize in st other than realize (not looking inside realize),
 * or NULL. */
static const TirStmt *other_realize(TirStmt *st, const TirStmt *realize) {
  if (st == realize) return NULL;
  if (st->kind == TIR_S_BLOCK_REALIZE) return st;
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  for (int i = 0; i < n; i++) {
    const TirStmt *o = other_realize(kids[i], realize);
    if (o) return o;
  }
  return NULL;
}

/* The padding is one positive integer per block iter. */
static bool check_padding_factors(Schedule *s, const TirBlock *b, const int64_t *padding, int n) {
  bool ok = n == b->niters;
  for (int i = 0; i < n && ok; i++) ok = padding[i] > 0;
  if (ok) return true;
  StrBuf ps;
  sb_init(&ps);
  for (int i = 0; i < n; i++) sb_printf(&ps, "%s%lld", i ? ", " : "", (long long)padding[i]);
  sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
           "pad_einsum: the padding of block '%s' must be a list of %d positive integers (one "
           "per block iter), got [%s]",
           b->name, b->niters, ps.data ? ps.data : "");
  sb_free(&ps);
  return false;
}

/* Each buffer is accessed once, at a point of block vars or constants. */
static bool check_einsum_pattern(Schedule *s, const TirBlock *b) {
  for (int w = 0; w < 2; w++) {
    const TirBufferRegion *rs = w ? b->writes : b->reads;
    int nr = w ? b->nwrites : b->nreads;
    for (int i = 0; i < nr; i++) {
      TirVar *vars[16];
      bool dup = false;
      for (int k = 0; k < b->nreads; k++) dup |= (w || k < i) && b->reads[k].buffer == rs[i].buffer;
      for (int k = 0; k < i && w; k++) dup |= b->writes[k].buffer == rs[i].buffer;
      if (dup) {
        sch_fail(s, SCH_ERR_BODY_PATTERN, 0,
                 "pad_einsum: block '%s' is not a computation of Einsum pattern: buffer '%s' is "
                 "accessed more than once",
                 b->name, rs[i].buffer->name);
        return false;
      }
      if (rs[i].n > 16 || !einsum_point(&rs[i], vars)) {
        sch_fail(s, SCH_ERR_BODY_PATTERN, 0,
                 "pad_einsum: block '%s' is not a computation of Einsum pattern: the region of "
                 "'%s' is not a single point at block vars or constants",
                 b->name, rs[i].buffer->name);
        return false;
      }
    }
  }
  return true;
}

/* The padded outputs are copied back whole: the block must write all of
 * each output (its iters over the whole dimensions they index; not, e.g.,
 * a loop_partition piece writing rows 13..15). */
static bool check_writes_whole_outputs(Schedule *s, const TirBlock *b) {
  for (int i = 0; i < b->nwrites; i++) {
    TirVar *vars[16];
    einsum_point(&b->writes[i], vars);
    for (int d = 0; d < b->writes[i].n; d++) {
      const TirIterVar *it = NULL;
      for (int k = 0; k < b->niters && vars[d]; k++)
        if (b->iters[k].var == vars[d]) it = &b->iters[k];
      /* symbolic sizes too: an iter over [0, n) writes all of a dimension n */
      IrHeap *th = ir_heap_new();
      ArithCtx *a = arith_new(th);
      bool full = it ? tir_is_zero(it->dom.min) &&
                           arith_can_prove_equal(a, it->dom.extent, b->writes[i].buffer->shape[d])
                     : !vars[d] && tir_is_one(b->writes[i].buffer->shape[d]);
      arith_free(a);
      ir_heap_release(th);
      if (!full) {
        sch_fail(s, SCH_ERR_BUFFER_ACCESS, 0,
                 "pad_einsum: block '%s' does not write all of buffer '%s' (dimension %d), which "
                 "the copy back of its padded buffer would overwrite",
                 b->name, b->writes[i].buffer->name, d);
        return false;
      }
    }
  }
  return true;
}

/* The block's loop nest is rewritten (its loops padded, its buffers
 * replaced): it must hold no other block. */
static bool check_alone_in_nest(Schedule *s, const TirStmt *scope, const TirStmt *realize) {
  TirStmt *body = scope->block.body;
  int nitems = body->kind == TIR_S_SEQ ? body->seq.n : 1;
  TirStmt **items = body->kind == TIR_S_SEQ ? body->seq.stmts : &body;
  for (int i = 0; i < nitems; i++) {
    if (!sch_contains(items[i], realize)) continue;
    const TirStmt *o = other_realize(items[i], realize);
    if (o) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "pad_einsum: the loop nest of block '%s' also holds block '%s'; only a block "
               "alone in its loop nest can be padded",
               tir_realize_block(realize)->name, tir_realize_block(o)->name);
      return false;
    }
  }
  return true;
}

/* The padded extent of each iter that padding changes (pc->iter_ext), and
 * of the loop bound to it directly (pc->loop_ext). */
static void compute_padded_extents(IrHeap *h, ArithCtx *ctx, const TirStmt *realize,
                                   const int64_t *padding, int n, PadCtx *pc) {
  const TirBlock *b = tir_realize_block(realize);
  for (int i = 0; i < n; i++) {
    TirExpr *dom = b->iters[i].dom.extent;
    TirExpr *p = tir_int(h, dom->dtype, padding[i]);
    TirExpr *num = tir_binary(h, TIR_ADD, dom, tir_int(h, dom->dtype, padding[i] - 1));
    TirExpr *nd = arith_simplify(ctx, tir_binary(h, TIR_MUL, tir_binary(h, TIR_FLOORDIV, num, p), p));
    if (arith_can_prove_equal(ctx, nd, dom)) continue;
    ir_ptrmap_put(&pc->iter_ext, b->iters[i].var, nd);
    TirExpr *v = realize->realize.values[i];
    if (v->kind == TIR_VAR) {
      ir_ptrmap_put(&pc->iter_ext, v->var, nd);
      ir_ptrmap_put(&pc->loop_ext, v->var, nd);
    }
  }
}

/* Padded buffers (pc->bufs, allocs) and their copy nests: reads before the
 * block's statement, write-backs after it. */
static void build_padded_buffers(IrHeap *h, ArithCtx *ctx, const TirBlock *b, PadCtx *pc,
                                 PtrVec *before, PtrVec *after, PtrVec *allocs) {
  for (int w = 0; w < 2; w++) {
    const TirBufferRegion *rs = w ? b->writes : b->reads;
    int nr = w ? b->nwrites : b->nreads;
    for (int i = 0; i < nr; i++) {
      TirVar *vars[16];
      einsum_point(&rs[i], vars);
      bool needs = false;
      for (int d = 0; d < rs[i].n; d++) needs |= vars[d] && ir_ptrmap_has(&pc->iter_ext, vars[d]);
      if (!needs) continue;
      TirBuffer *buf = rs[i].buffer;
      TirExpr **shape = ir_alloc(h, (size_t)(buf->ndim ? buf->ndim : 1) * sizeof *shape);
      for (int d = 0; d < buf->ndim; d++) {
        TirExpr *ext = vars[d] ? ir_ptrmap_get(&pc->iter_ext, vars[d]) : NULL;
        shape[d] = !vars[d] ? tir_int(h, rs[i].ranges[d].min->dtype, 1) : ext ? ext : buf->shape[d];
      }
      char *pn = xasprintf("%s_pad", buf->name);
      TirBuffer *pb = tir_buffer(h, ir_strdup(h, pn), buf->dtype, shape, buf->ndim, buf->scope);
      free(pn);
      ir_ptrmap_put(&pc->bufs, buf, pb);
      pv_push(allocs, pb);
      if (w == 0) pv_push(before, pad_copy_nest(h, ctx, buf, pb, pb, pb->name, true));
      else pv_push(after, pad_copy_nest(h, ctx, pb, buf, buf, pb->name, false));
    }
  }
}

/* The scope block with the block's nest padded (loops, iters, buffers) and
 * the copy nests around it, allocating the padded buffers. */
static TirStmt *build_padded_scope(IrHeap *h, const TirStmt *scope, const TirStmt *realize,
                                   PadCtx *pc, const PtrVec *before, const PtrVec *after,
                                   const PtrVec *allocs) {
  TirStmt *body = scope->block.body;
  int nitems = body->kind == TIR_S_SEQ ? body->seq.n : 1;
  TirStmt **items = body->kind == TIR_S_SEQ ? body->seq.stmts : &body;
  int pos = -1;
  for (int i = 0; i < nitems && pos < 0; i++)
    if (sch_contains(items[i], realize)) pos = i;
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = pc;
  m.buffer = pad_buffer_hook;
  m.stmt[TIR_S_FOR] = pad_for;
  m.stmt[TIR_S_BLOCK] = pad_block;
  TirStmt *mid = tir_mutate_stmt(&m, items[pos]);
  tir_mutator_free(&m);
  int total = nitems + before->len + after->len;
  TirStmt **ns = ir_alloc(h, (size_t)total * sizeof *ns);
  int k = 0;
  for (int i = 0; i < nitems; i++) {
    if (i != pos) {
      ns[k++] = items[i];
      continue;
    }
    for (int j = 0; j < before->len; j++) ns[k++] = before->items[j];
    ns[k++] = mid;
    for (int j = 0; j < after->len; j++) ns[k++] = after->items[j];
  }
  TirStmt *nsc = ir_memdup(h, scope, sizeof *scope);
  nsc->block.body = tir_seq(h, ns, k);
  nsc->block.allocs = ir_alloc(h, (size_t)(scope->block.nallocs + allocs->len) * sizeof(TirBuffer *));
  if (scope->block.nallocs)
    memcpy(nsc->block.allocs, scope->block.allocs, (size_t)scope->block.nallocs * sizeof(TirBuffer *));
  for (int j = 0; j < allocs->len; j++) nsc->block.allocs[scope->block.nallocs + j] = allocs->items[j];
  nsc->block.nallocs = scope->block.nallocs + allocs->len;
  return nsc;
}

/* The scope with the block padded; returns the new root. */
static TirStmt *replace_scope_padded(IrHeap *h, const SchPath *bp, int si, const TirStmt *realize,
                                     const int64_t *padding, int n) {
  const TirStmt *scope = bp->s[si];
  ArithCtx *ctx = arith_new(h);
  PadCtx pc;
  ir_ptrmap_init(&pc.iter_ext);
  ir_ptrmap_init(&pc.loop_ext);
  ir_ptrmap_init(&pc.bufs);
  compute_padded_extents(h, ctx, realize, padding, n, &pc);
  PtrVec before = {0}, after = {0}, allocs = {0};
  build_padded_buffers(h, ctx, tir_realize_block(realize), &pc, &before, &after, &allocs);
  TirStmt *nsc = build_padded_scope(h, scope, realize, &pc, &before, &after, &allocs);
  TirStmt *root = sch_replace_at(h, bp, si, nsc);
  pv_free(&before);
  pv_free(&after);
  pv_free(&allocs);
  ir_ptrmap_free(&pc.iter_ext);
  ir_ptrmap_free(&pc.loop_ext);
  ir_ptrmap_free(&pc.bufs);
  arith_free(ctx);
  return root;
}

int sch_pad_einsum(Schedule *s, SchRV block_rv, const int64_t *padding, int n) {
  SchPath bp = {0};
  PtrVec sibs = {0};
  int rc = -1;
  TirStmt *realize = sch_find_block(s, block_rv, "pad_einsum", 0, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  int si = sch_block_scope_index(s, "pad_einsum", &bp);
  if (si < 0) goto done;
  TirStmt *scope = bp.s[si];
  sch_scope_blocks(scope, &sibs);
  if (!sch_check_stage_pipeline(s, "pad_einsum", 0, &sibs, b)) goto done;
  if (!check_padding_factors(s, b, padding, n) || !check_einsum_pattern(s, b) ||
      !check_writes_whole_outputs(s, b) || !check_alone_in_nest(s, scope, realize))
    goto done;
  IrModule *nm = sch_begin(s);
  TirStmt *root = replace_scope_padded(nm->heap, &bp, si, realize, padding, n);
  sch_commit(s, nm, s->rvs[block_rv].func, root);
  SchVal pv = sch_val_none();
  pv.kind = SV_LIST;
  pv.n = n;
  pv.items = xmalloc((size_t)(n ? n : 1) * sizeof *pv.items);
  for (int i = 0; i < n; i++) pv.items[i] = sch_val_int(padding[i]);
  SchVal args[2] = {sch_val_rv(block_rv), pv};
  sch_record(s, "pad_einsum", args, 2, NULL, 0);
  rc = 0;
done:
  pv_free(&sibs);
  sch_path_free(&bp);
  return rc;
}
