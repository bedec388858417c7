/* primitive_rfactor.c - rfactor.
 *
 * rfactor(loop, factor_axis) factorizes the reduction of the only block under
 * `loop` (extent n).  With L the outermost loop bound into a reduce iter, the
 * loops from L down to the block are replaced by two nests:
 *   - the original loops (same vars, so their handles stay valid) around a
 *     new block `<block>_rf` that reduces into `<buf>_rf`, the output shape
 *     with an axis of extent n inserted at factor_axis; its iters are a
 *     spatial iter for `loop`, the block's spatial iters, and one reduce iter
 *     per other loop bound into reduce iters;
 *   - copies of the loops bound into spatial iters or being `loop`, around
 *     the original block (its handle keeps denoting it), which now reduces
 *     `<buf>_rf` over the new axis into the output.
 * Supported reducers: `x + y`, `x * y`, `min`, `max` with the matching
 * identity in T.init().  Blocks with a predicate are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/structural_equal.h"
#include "sched/sched_internal.h"

static int count_realizes(const TirStmt *st) {
  int n = st->kind == TIR_S_BLOCK_REALIZE;
  TirStmt *kids[64];
  int k = sch_children(st, kids, 64);
  TirStmt *const *all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, k = st->seq.n;
  for (int i = 0; i < k; i++) n += count_realizes(all[i]);
  return n;
}

/* The lowest / highest finite value of a scalar dtype (as double). */
static double dtype_extreme(DType t, bool highest) {
  if (t.code == DT_FLOAT) {
    double m = t.bits == 16 ? 65504.0 : t.bits == 32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
    return highest ? m : -m;
  }
  if (t.code == DT_UINT || t.code == DT_BOOL) return highest ? ldexp(1.0, t.bits) - 1 : 0.0;
  return highest ? ldexp(1.0, t.bits - 1) - 1 : -ldexp(1.0, t.bits - 1);
}

static bool const_value(const TirExpr *e, double *v) {
  if (e->kind == TIR_INT) return *v = (double)e->ival, true;
  if (e->kind == TIR_FLOAT) return *v = e->fval, true;
  return false;
}

/* Whether init value e is the identity of the combiner op. */
static bool identity_ok(TirExprKind op, const TirExpr *e) {
  double v;
  if (!const_value(e, &v)) return false;
  switch (op) {
    case TIR_ADD: return v == 0.0;
    case TIR_MUL: return v == 1.0;
    case TIR_MAX: return v <= dtype_extreme(e->dtype, false);
    case TIR_MIN: return v >= dtype_extreme(e->dtype, true);
    default: return false;
  }
}

static bool same_indices(TirExpr *const *a, TirExpr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!seq_tir_expr(a[i], b[i])) return false;
  return true;
}

typedef struct LoadFinder {
  const TirBuffer *buf;
  bool found;
} LoadFinder;

static bool find_load(TirVisitor *v, const TirExpr *e) {
  LoadFinder *lf = v->ctx;
  if (e->kind == TIR_LOAD && e->load.buf == lf->buf) lf->found = true, v->stop = true;
  return !lf->found;
}

static bool reads_buffer(const TirExpr *e, const TirBuffer *buf) {
  LoadFinder lf = {buf, false};
  TirVisitor v = {0};
  v.pre_expr = find_load;
  v.ctx = &lf;
  tir_visit_expr(&v, e);
  return lf.found;
}

/* The combiner of a reduction block: body `B[idx] = B[idx] op rhs` (or
 * `rhs op B[idx]`), init `B[idx] = identity`. */
typedef struct Reducer {
  TirExprKind op;
  bool acc_first;  /* B[idx] is the left operand */
  TirExpr *rhs;
  const TirStmt *store;
} Reducer;

static bool match_reducer(const TirBlock *b, Reducer *r) {
  const TirStmt *st = b->body, *in = b->init;
  if (!st || !in || st->kind != TIR_S_STORE || in->kind != TIR_S_STORE) return false;
  if (in->store.buf != st->store.buf || !same_indices(in->store.idx, st->store.idx, st->store.n))
    return false;
  const TirExpr *v = st->store.value;
  if (v->kind != TIR_ADD && v->kind != TIR_MUL && v->kind != TIR_MIN && v->kind != TIR_MAX) return false;
  for (int side = 0; side < 2; side++) {
    const TirExpr *acc = side ? v->bin.b : v->bin.a;
    TirExpr *rhs = side ? v->bin.a : v->bin.b;
    if (acc->kind != TIR_LOAD || acc->load.buf != st->store.buf ||
        !same_indices(acc->load.idx, st->store.idx, st->store.n) || reads_buffer(rhs, st->store.buf))
      continue;
    r->op = v->kind;
    r->acc_first = side == 0;
    r->rhs = rhs;
    r->store = st;
    return identity_ok(v->kind, in->store.value);
  }
  return false;
}

static TirExpr *combine(IrHeap *h, const Reducer *r, TirExpr *acc, TirExpr *val) {
  return r->acc_first ? tir_binary(h, r->op, acc, val) : tir_binary(h, r->op, val, acc);
}

static bool loop_used_by(const TirStmt *realize, const TirBlock *b, const TirVar *lv,
                         TirIterType type) {
  for (int k = 0; k < b->niters && k < realize->realize.n; k++)
    if (b->iters[k].type == type && tir_expr_uses_var(realize->realize.values[k], lv)) return true;
  return false;
}

/* What the checks find and the rewrite uses. */
typedef struct RfState {
  Schedule *s;
  const char *prim;
  const char *func;
  SchPath lp, bp;       /* paths to the loop and to the block's realize */
  TirStmt *loop;        /* the loop factorized */
  TirStmt *realize;     /* the only block under it */
  const TirBlock *b;
  int scope_i;          /* path index of the scope block */
  int outer;            /* path index of the outermost loop bound into a reduce iter */
  Reducer red;
  TirBuffer *buf;       /* the buffer reduced into */
  int nd, fa;           /* its rank; the rf axis */
} RfState;

/* The block under the loop: the only one, a serial loop over a reduction
 * block without match_buffer, alloc_buffer or predicate. */
static bool check_rfactor_block(RfState *st) {
  Schedule *s = st->s;
  const char *prim = st->prim;
  TirStmt *loop = st->loop;
  if (count_realizes(loop->loop.body) != 1) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
             "%s: loop '%s' must have exactly one block in its subtree (it has %d)", prim,
             sch_loop_name(loop), count_realizes(loop->loop.body));
    return false;
  }
  /* The block under the loop and its full path. */
  TirStmt *realize = loop->loop.body;
  while (realize->kind != TIR_S_BLOCK_REALIZE) {
    TirStmt *kids[64];
    int n = sch_children(realize, kids, 64);
    int next = -1;
    for (int i = 0; i < n; i++)
      if (count_realizes(kids[i])) next = i;
    realize = kids[next];
  }
  TirFunc *f = sch_cur_func(s, st->func);
  if (!f || !sch_path_to_realize(f->body, realize->realize.block, &st->bp)) return false;
  const TirBlock *b = tir_realize_block(realize);
  st->realize = realize;
  st->b = b;
  bool has_reduce = false, other_kind = false;
  for (int k = 0; k < b->niters; k++) {
    has_reduce |= b->iters[k].type == TIR_ITER_REDUCE;
    other_kind |= b->iters[k].type != TIR_ITER_REDUCE && b->iters[k].type != TIR_ITER_SPATIAL;
  }
  if (!b->init || !has_reduce || other_kind || b->nwrites != 1) {
    sch_fail(s, SCH_ERR_REDUCTION, 0, "%s: block '%s' under loop '%s' is not a reduction block",
             prim, b->name, sch_loop_name(loop));
    return false;
  }
  if (sch_first_non_compact(f->body, realize)) {
    sch_fail(s, SCH_ERR_REDUCTION, 0,
             "%s: block '%s' under loop '%s' is not a reduction block (a reduce iter indexes the "
             "buffer it writes, or its bindings are not affine)",
             prim, b->name, sch_loop_name(loop));
    return false;
  }
  if (b->nmatches || b->nallocs) {
    sch_fail(s, SCH_ERR_UNSUPPORTED, 0,
             "%s: block '%s' has match_buffer or alloc_buffer; rfactor of it is not supported", prim,
             b->name);
    return false;
  }
  if (loop->loop.kind != TIR_FOR_SERIAL) {
    sch_fail(s, SCH_ERR_LOOP_KIND, 0, "%s: loop '%s' must be serial (kSerial)", prim,
             sch_loop_name(loop));
    return false;
  }
  if (!sch_is_trivial_pred(realize->realize.pred)) {
    sch_fail(s, SCH_ERR_UNSUPPORTED, 0,
             "%s: block '%s' has a predicate; rfactor of predicated blocks is not supported", prim,
             b->name);
    return false;
  }
  return true;
}

/* The loops above the block: the factorized one bound into a reduce iter,
 * none into both kinds, the block the only child from the outermost reduce
 * loop down; then the reducer and the factor axis. */
static bool check_rfactor_loops(RfState *st, int factor_axis) {
  Schedule *s = st->s;
  const char *prim = st->prim;
  const SchPath *bp = &st->bp;
  const TirBlock *b = st->b;
  st->scope_i = sch_scope_index(bp, bp->n - 1);
  if (!loop_used_by(st->realize, b, st->loop->loop.var, TIR_ITER_REDUCE)) {
    sch_fail(s, SCH_ERR_REDUCTION, 0, "%s: loop '%s' is not bound to any reduce iter of block '%s'",
             prim, sch_loop_name(st->loop), b->name);
    return false;
  }
  int outer = -1;
  for (int d = st->scope_i + 1; d < bp->n - 1; d++) {
    if (bp->s[d]->kind != TIR_S_FOR) continue;
    bool sp = loop_used_by(st->realize, b, bp->s[d]->loop.var, TIR_ITER_SPATIAL);
    bool rd = loop_used_by(st->realize, b, bp->s[d]->loop.var, TIR_ITER_REDUCE);
    if (sp && rd) {
      sch_fail(s, SCH_ERR_REDUCTION, 0,
               "%s: loop '%s' is bound into both data-parallel and reduce iters of block '%s'", prim,
               sch_loop_name(bp->s[d]), b->name);
      return false;
    }
    if (rd && outer < 0) outer = d;
  }
  st->outer = outer;
  for (int d = outer; d < bp->n - 1; d++) {
    TirStmt *next = bp->s[d + 1];
    if (bp->s[d]->kind != TIR_S_FOR || bp->s[d]->loop.body != next) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: block '%s' must be the only child of the loops from '%s', the outermost "
               "loop bound into its reduce iters",
               prim, b->name, sch_loop_name(bp->s[outer]));
      return false;
    }
  }
  if (!match_reducer(b, &st->red)) {
    sch_fail(s, SCH_ERR_REDUCTION, 0,
             "%s: no matched reducer for the init and the update of block '%s' (expected "
             "`x + y`, `x * y`, `T.min` or `T.max` with its identity in T.init())",
             prim, b->name);
    return false;
  }
  TirBuffer *buf = st->red.store->store.buf;
  int nd = buf->ndim;
  if (factor_axis < -(nd + 1) || factor_axis > nd) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "%s: factor_axis %d is out of range [%d, %d] for buffer '%s'",
             prim, factor_axis, -(nd + 1), nd, buf->name);
    return false;
  }
  st->buf = buf;
  st->nd = nd;
  st->fa = factor_axis < 0 ? factor_axis + nd + 1 : factor_axis;
  return true;
}

/* The rf buffer: the output's shape with the loop's extent inserted at fa. */
static TirBuffer *build_rf_buffer(IrHeap *h, const RfState *st) {
  const TirBuffer *buf = st->buf;
  int nd = st->nd;
  TirExpr **shape = ir_alloc(h, (size_t)(nd + 1) * sizeof *shape);
  for (int d = 0, j = 0; d <= nd; d++) shape[d] = d == st->fa ? st->loop->loop.extent : buf->shape[j++];
  char *nm_rf = xasprintf("%s_rf", buf->name);
  TirBuffer *rfbuf = tir_buffer(h, nm_rf, buf->dtype, shape, nd + 1, buf->scope);
  rfbuf->span = buf->span;
  free(nm_rf);
  return rfbuf;
}

/* The rf block: [v<loop>] + spatial iters + one reduce iter per reduce loop,
 * reducing into rfbuf, under the original loops from outer.  *rf_realize
 * gets its realize; returns the nest. */
static TirStmt *build_rf_nest(IrHeap *h, const RfState *st, TirBuffer *rfbuf, TirStmt **rf_realize) {
  const TirStmt *rl = st->loop, *realize = st->realize;
  const TirBlock *b = st->b;
  const SchPath *bp = &st->bp;
  int nd = st->nd, outer = st->outer;
  IrPtrMap rf_sub = {0};
  int maxit = b->niters + (bp->n - outer) + 1;
  TirBlock rb = {0};
  char *bn = xasprintf("%s_rf", b->name);
  rb.name = ir_strdup(h, bn);
  free(bn);
  rb.iters = ir_alloc(h, (size_t)maxit * sizeof *rb.iters);
  TirExpr **rvals = ir_alloc(h, (size_t)maxit * sizeof *rvals);
  char *vn = xasprintf("v%s", rl->loop.var->name);
  TirVar *rf_iter = tir_var(h, vn, rl->loop.var->dtype);
  free(vn);
  rb.iters[0] = (TirIterVar){rf_iter, {rl->loop.min, rl->loop.extent}, TIR_ITER_SPATIAL};
  rvals[0] = tir_var_ref(h, rl->loop.var);
  rb.niters = 1;
  IrPtrMap loop_sub = {0}; /* reduce loop var -> rf block iter */
  ir_ptrmap_put(&loop_sub, rl->loop.var, tir_var_ref(h, rf_iter));
  for (int k = 0; k < b->niters; k++) {
    if (b->iters[k].type != TIR_ITER_SPATIAL) continue;
    TirIterVar iv = b->iters[k];
    iv.var = tir_var(h, iv.var->name, iv.var->dtype);
    ir_ptrmap_put(&rf_sub, b->iters[k].var, tir_var_ref(h, iv.var));
    rvals[rb.niters] = realize->realize.values[k];
    rb.iters[rb.niters++] = iv;
  }
  for (int d = outer; d < bp->n - 1; d++) {
    const TirStmt *l = bp->s[d];
    if (l == rl || !loop_used_by(realize, b, l->loop.var, TIR_ITER_REDUCE)) continue;
    char *n2 = xasprintf("v%s", l->loop.var->name);
    TirVar *v = tir_var(h, n2, l->loop.var->dtype);
    free(n2);
    ir_ptrmap_put(&loop_sub, l->loop.var, tir_var_ref(h, v));
    rvals[rb.niters] = tir_var_ref(h, l->loop.var);
    rb.iters[rb.niters++] = (TirIterVar){v, {l->loop.min, l->loop.extent}, TIR_ITER_REDUCE};
  }
  for (int k = 0; k < b->niters; k++)
    if (b->iters[k].type == TIR_ITER_REDUCE)
      ir_ptrmap_put(&rf_sub, b->iters[k].var,
                    tir_substitute_expr(h, realize->realize.values[k], &loop_sub));
  ir_ptrmap_free(&loop_sub);
  TirExpr **ridx = ir_alloc(h, (size_t)(nd + 1) * sizeof *ridx);
  for (int d = 0, j = 0; d <= nd; d++)
    ridx[d] = d == st->fa ? tir_var_ref(h, rf_iter)
                          : tir_substitute_expr(h, st->red.store->store.idx[j++], &rf_sub);
  TirExpr *rhs = tir_substitute_expr(h, st->red.rhs, &rf_sub);
  ir_ptrmap_free(&rf_sub);
  rb.init = tir_store(h, rfbuf, b->init->store.value, ridx, nd + 1);
  rb.body = tir_store(h, rfbuf, combine(h, &st->red, tir_load(h, rfbuf, ridx, nd + 1), rhs), ridx, nd + 1);
  rb.annotations = b->annotations;
  tir_infer_access_regions(h, &rb, &rb.reads, &rb.nreads, &rb.writes, &rb.nwrites);
  *rf_realize = tir_block_realize(h, rvals, rb.niters, tir_bool(h, true), tir_block(h, &rb));
  (*rf_realize)->span = realize->span;
  TirStmt *rf_nest = *rf_realize;
  for (int d = bp->n - 2; d >= outer; d--) rf_nest = sch_for_with_body(h, bp->s[d], rf_nest);
  return rf_nest;
}

/* The write-back: the original block, reducing rfbuf over the rf axis into
 * the output, over copies of the needed loops (those bound into spatial
 * iters, and the factorized one). */
static TirStmt *build_writeback_nest(IrHeap *h, const RfState *st, TirBuffer *rfbuf) {
  const TirStmt *rl = st->loop, *realize = st->realize;
  const TirBlock *b = st->b;
  const SchPath *bp = &st->bp;
  const Reducer *red = &st->red;
  int nd = st->nd;
  IrPtrMap wb_sub = {0};
  TirStmt *wb_loops[64];
  int nwb = 0;
  TirVar *wb_rf_loop = NULL;
  for (int d = st->outer; d < bp->n - 1 && nwb < 64; d++) {
    const TirStmt *l = bp->s[d];
    if (l != rl && !loop_used_by(realize, b, l->loop.var, TIR_ITER_SPATIAL)) continue;
    TirVar *nv = tir_var(h, l->loop.var->name, l->loop.var->dtype);
    ir_ptrmap_put(&wb_sub, l->loop.var, tir_var_ref(h, nv));
    if (l == rl) wb_rf_loop = nv;
    TirStmt *c = sch_for_with_body(h, l, l->loop.body);
    c->loop.var = nv;
    wb_loops[nwb++] = c;
  }
  TirBlock wb = *b;
  wb.iters = ir_alloc(h, (size_t)(b->niters + 1) * sizeof *wb.iters);
  TirExpr **wvals = ir_alloc(h, (size_t)(b->niters + 1) * sizeof *wvals);
  wb.niters = 0;
  for (int k = 0; k < b->niters; k++) {
    if (b->iters[k].type != TIR_ITER_SPATIAL) continue;
    wvals[wb.niters] = tir_substitute_expr(h, realize->realize.values[k], &wb_sub);
    wb.iters[wb.niters++] = b->iters[k];
  }
  ir_ptrmap_free(&wb_sub);
  /* The reduce iter over the rf axis (reusing the first iter's var when
   * no spatial iter is left, so the block's handle stays valid). */
  TirVar *wv;
  if (wb.niters == 0) {
    wv = b->iters[0].var;
  } else {
    char *n3 = xasprintf("v%s", rl->loop.var->name);
    wv = tir_var(h, n3, rl->loop.var->dtype);
    free(n3);
  }
  wvals[wb.niters] = tir_var_ref(h, wb_rf_loop);
  wb.iters[wb.niters++] = (TirIterVar){wv, {rl->loop.min, rl->loop.extent}, TIR_ITER_REDUCE};
  TirExpr **widx = ir_alloc(h, (size_t)(nd + 1) * sizeof *widx);
  for (int d = 0, j = 0; d <= nd; d++)
    widx[d] = d == st->fa ? tir_var_ref(h, wv) : red->store->store.idx[j++];
  TirExpr *acc = tir_load(h, st->buf, red->store->store.idx, nd);
  wb.body = tir_store(h, st->buf, combine(h, red, acc, tir_load(h, rfbuf, widx, nd + 1)),
                      red->store->store.idx, nd);
  tir_infer_access_regions(h, &wb, &wb.reads, &wb.nreads, &wb.writes, &wb.nwrites);
  TirStmt *wb_nest = tir_block_realize(h, wvals, wb.niters, tir_bool(h, true), tir_block(h, &wb));
  wb_nest->span = realize->span;
  wb_nest->realize.block->span = realize->realize.block->span;
  for (int i = nwb - 1; i >= 0; i--) {
    wb_loops[i]->loop.body = wb_nest;
    wb_nest = wb_loops[i];
  }
  return wb_nest;
}

/* The new root: the two nests in place of the loops from outer, the scope
 * block allocating rfbuf. */
static TirStmt *replace_rfactor_scope(IrHeap *h, const RfState *st, TirStmt *rf_nest,
                                      TirStmt *wb_nest, TirBuffer *rfbuf) {
  const SchPath *bp = &st->bp;
  int scope_i = st->scope_i;
  TirStmt *pair[2] = {rf_nest, wb_nest};
  TirStmt *cur = tir_seq(h, pair, 2);
  /* Rebuild the spine up to the scope block, which also allocates the rf buffer. */
  for (int d = st->outer - 1; d > scope_i; d--) cur = sch_replace_child(h, bp->s[d], bp->s[d + 1], cur);
  TirStmt *nscope = sch_replace_child(h, bp->s[scope_i], bp->s[scope_i + 1], cur);
  TirBlock nb = nscope->block;
  nb.allocs = ir_alloc(h, (size_t)(nb.nallocs + 1) * sizeof *nb.allocs);
  if (nscope->block.nallocs)
    memcpy(nb.allocs, nscope->block.allocs, (size_t)nb.nallocs * sizeof *nb.allocs);
  nb.allocs[nb.nallocs++] = rfbuf;
  TirStmt *nblk = tir_block(h, &nb);
  nblk->span = bp->s[scope_i]->span;
  return sch_replace_at(h, bp, scope_i, nblk);
}

SchRV sch_rfactor(Schedule *s, SchRV loop_rv, int factor_axis) {
  RfState st = {0};
  st.s = s;
  st.prim = "rfactor";
  SchRV res = -1;
  st.loop = sch_find_loop(s, loop_rv, st.prim, 0, &st.lp);
  if (st.loop) {
    st.func = s->rvs[loop_rv].func;
    if (check_rfactor_block(&st) && check_rfactor_loops(&st, factor_axis)) {
      IrModule *nm = sch_begin(s);
      IrHeap *h = nm->heap;
      TirBuffer *rfbuf = build_rf_buffer(h, &st);
      TirStmt *rf_realize;
      TirStmt *rf_nest = build_rf_nest(h, &st, rfbuf, &rf_realize);
      TirStmt *wb_nest = build_writeback_nest(h, &st, rfbuf);
      TirStmt *root = replace_rfactor_scope(h, &st, rf_nest, wb_nest, rfbuf);
      sch_commit(s, nm, st.func, root);
      res = sch_block_rv(s, st.func, rf_realize);
      SchVal args[2] = {sch_val_rv(loop_rv), sch_val_int(factor_axis)};
      sch_record(s, st.prim, args, 2, &res, 1);
    }
  }
  sch_path_free(&st.lp);
  sch_path_free(&st.bp);
  return res;
}
