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
  int loopd[64];        /* path indices of the loops from the scope down to the block */
  int nloops;
  SchReduction red;
  TirBuffer *rfbuf[SCH_RED_MAX]; /* the rf buffers, one per reduced buffer */
  int fa;               /* the rf axis */
  TirIterVar add_iter;  /* the rf block's spatial iter over `loop` */
  TirExpr **rf_idx;     /* indices of the rf buffers in the rf block */
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
  if (!b->init || !has_reduce || other_kind) {
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

/* The first block realize under st in program order (NULL if none). */
static const TirStmt *first_realize(const TirStmt *st) {
  if (st->kind == TIR_S_BLOCK_REALIZE) return st;
  if (st->kind == TIR_S_BLOCK) return NULL;
  TirStmt *kids[64];
  int k = sch_children(st, kids, 64);
  TirStmt *const *all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, k = st->seq.n;
  for (int i = 0; i < k; i++) {
    const TirStmt *r = first_realize(all[i]);
    if (r) return r;
  }
  return NULL;
}

/* TVM's loop properties: the block is the first one under the outermost
 * loop; no loop bound into both kinds of iters; the factorized loop not
 * bound into a spatial iter; the outermost loop bound into reduce iters
 * holds only this block; no loop bound into none below it unless unit. */
static bool check_loop_properties(RfState *st) {
  Schedule *s = st->s;
  const SchPath *bp = &st->bp;
  const TirBlock *b = st->b;
  if (first_realize(bp->s[st->loopd[0]]) != st->realize) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
             "%s: block '%s' must be the first block under loop '%s', the outermost loop above it",
             st->prim, b->name, sch_loop_name(bp->s[st->loopd[0]]));
    return false;
  }
  bool met_reduce = false;
  for (int i = 0; i < st->nloops; i++) {
    const TirStmt *l = bp->s[st->loopd[i]];
    bool sp = loop_used_by(st->realize, b, l->loop.var, TIR_ITER_SPATIAL);
    bool rd = loop_used_by(st->realize, b, l->loop.var, TIR_ITER_REDUCE);
    const char *why = NULL;
    if (sp && rd) why = "is bound into both data-parallel and reduce iters of block";
    else if (sp && l == st->loop) why = "is bound into a data-parallel iter of block";
    else if (rd && !met_reduce) {
      met_reduce = true;
      if (count_realizes(l->loop.body) != 1)
        why = "is the outermost loop bound into reduce iters, and holds another block besides";
    } else if (!sp && !rd && met_reduce && !tir_is_one(l->loop.extent)) {
      why = "is bound into no iter, under a loop bound into reduce iters, and is not unit, for block";
    }
    if (why) {
      sch_fail(s, SCH_ERR_REDUCTION, 0, "%s: loop '%s' %s '%s'", st->prim, sch_loop_name(l), why,
               b->name);
      return false;
    }
  }
  return true;
}

/* TVM's conditions a reduction block must meet for rfactor. */
static const char *const reduction_conditions[] = {
    "",
    "the init is a single store or a sequence of stores",
    "the stores of the init write different buffers",
    "the body has as many LetStmts as the init has stores",
    "the LetStmts of the body bind different variables",
    "the body of the innermost LetStmt is a store or a sequence of stores",
    "the body has as many stores as the init",
    "the stores of the body store the let variables and only them",
    "each let variable is stored once",
    "the stores of the body write different buffers",
    "the buffers of the init and of the body match",
    "the buffers written have the same shape",
    "all the stores use the same indices",
};

/* The loops above the block and their properties, then the reducer and the
 * factor axis. */
static bool check_rfactor_loops(RfState *st, int factor_axis) {
  Schedule *s = st->s;
  const char *prim = st->prim;
  const SchPath *bp = &st->bp;
  const TirBlock *b = st->b;
  st->scope_i = sch_scope_index(bp, bp->n - 1);
  st->nloops = 0;
  for (int d = st->scope_i + 1; d < bp->n - 1 && st->nloops < 64; d++)
    if (bp->s[d]->kind == TIR_S_FOR) st->loopd[st->nloops++] = d;
  if (!check_loop_properties(st)) return false;
  int bad = sch_match_reduction(b, &st->red);
  if (bad > 0) {
    sch_fail(s, SCH_ERR_REDUCTION, 0,
             "%s: block '%s' violates condition #%d of a reduction block rfactor applies to: %s",
             prim, b->name, bad, reduction_conditions[bad]);
    return false;
  }
  if (bad < 0) {
    sch_fail(s, SCH_ERR_REDUCTION, 0,
             "%s: no matched reducer for the init and the update of block '%s' (expected "
             "`x + y`, `x * y`, `T.min`, `T.max` or an argmax/argmin pair with its identity in "
             "T.init(), the accumulator on the left)",
             prim, b->name);
    return false;
  }
  int nd = st->red.nidx;
  if (factor_axis < -(nd + 1) || factor_axis > nd) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "%s: factor_axis %d is out of range [%d, %d] for buffer '%s'",
             prim, factor_axis, -(nd + 1), nd, st->red.buf[0]->name);
    return false;
  }
  st->fa = factor_axis < 0 ? factor_axis + nd + 1 : factor_axis;
  return true;
}

/* The rf buffers: each output's shape with the loop's extent inserted at fa. */
static void build_rf_buffers(IrHeap *h, RfState *st) {
  int nd = st->red.nidx;
  for (int i = 0; i < st->red.n; i++) {
    const TirBuffer *buf = st->red.buf[i];
    TirExpr **shape = ir_alloc(h, (size_t)(nd + 1) * sizeof *shape);
    for (int d = 0, j = 0; d <= nd; d++) shape[d] = d == st->fa ? st->loop->loop.extent : buf->shape[j++];
    char *nm_rf = xasprintf("%s_rf", buf->name);
    TirBuffer *rfbuf = tir_buffer(h, nm_rf, buf->dtype, shape, nd + 1, buf->scope);
    rfbuf->span = buf->span;
    free(nm_rf);
    st->rfbuf[i] = rfbuf;
  }
}

/* The index of path position d among the loops (-1 if not a loop above). */
static const TirStmt *loop_of_var(const RfState *st, const TirVar *v) {
  for (int i = 0; i < st->nloops; i++)
    if (st->bp.s[st->loopd[i]]->loop.var == v) return st->bp.s[st->loopd[i]];
  return NULL;
}

typedef struct VarCollect {
  const TirVar *vars[64];
  int n;
} VarCollect;

static bool collect_var(TirVisitor *v, const TirExpr *e) {
  VarCollect *vc = v->ctx;
  if (e->kind != TIR_VAR) return true;
  for (int i = 0; i < vc->n; i++)
    if (vc->vars[i] == e->var) return true;
  if (vc->n < 64) vc->vars[vc->n++] = e->var;
  return true;
}

/* The body of a block storing value i into bufs[i][idx] for each buffer:
 * one store, or (several buffers) LetStmts then the stores, as TVM builds. */
static TirStmt *stores_body(IrHeap *h, const RfState *st, TirBuffer *const *bufs, TirExpr **idx, int n,
                            TirExpr **values) {
  if (st->red.n == 1) return tir_store(h, bufs[0], values[0], idx, n);
  TirStmt *stores[SCH_RED_MAX];
  TirVar *vars[SCH_RED_MAX];
  for (int i = 0; i < st->red.n; i++) {
    char *nm = xasprintf("v_%s", bufs[i]->name);
    vars[i] = tir_var(h, nm, values[i]->dtype);
    free(nm);
    stores[i] = tir_store(h, bufs[i], tir_var_ref(h, vars[i]), idx, n);
  }
  TirStmt *body = tir_seq(h, stores, st->red.n);
  for (int i = st->red.n - 1; i >= 0; i--) body = tir_let_stmt(h, vars[i], values[i], body);
  return body;
}

static TirStmt *inits_body(IrHeap *h, const RfState *st, TirBuffer *const *bufs, TirExpr **idx, int n) {
  TirStmt *stores[SCH_RED_MAX];
  for (int i = 0; i < st->red.n; i++) stores[i] = tir_store(h, bufs[i], st->red.init[i], idx, n);
  return tir_seq(h, stores, st->red.n);
}

/* The rf block's iters (TVM's RFactorBlockCreator): the spatial iter over
 * the loop first; the old iters kept, except the reduce iters whose binding
 * uses the loop, which become one new reduce iter per loop in the binding.
 * Fills rb's iters, vals, and var_map (old iter -> its new expression). */
static void rf_block_iters(IrHeap *h, RfState *st, TirBlock *rb, TirExpr **vals, IrPtrMap *var_map) {
  const TirStmt *rl = st->loop, *realize = st->realize;
  const TirBlock *b = st->b;
  IrPtrMap loop2iter = {0};
  char *vn = xasprintf("v%s", rl->loop.var->name);
  TirVar *add = tir_var(h, vn, rl->loop.var->dtype);
  free(vn);
  st->add_iter = (TirIterVar){add, {rl->loop.min, rl->loop.extent}, TIR_ITER_SPATIAL};
  rb->iters[0] = st->add_iter;
  vals[0] = tir_var_ref(h, rl->loop.var);
  rb->niters = 1;
  ir_ptrmap_put(&loop2iter, rl->loop.var, tir_var_ref(h, add));
  for (int k = 0; k < b->niters; k++) {
    TirExpr *bind = realize->realize.values[k];
    if (b->iters[k].type == TIR_ITER_SPATIAL || !tir_expr_uses_var(bind, rl->loop.var)) {
      vals[rb->niters] = bind;
      rb->iters[rb->niters++] = b->iters[k];
      continue;
    }
    VarCollect vc = {{0}, 0};
    TirVisitor v = {0};
    v.pre_expr = collect_var;
    v.ctx = &vc;
    tir_visit_expr(&v, bind);
    for (int i = 0; i < vc.n; i++) {
      const TirStmt *l = loop_of_var(st, vc.vars[i]);
      if (!l || ir_ptrmap_get(&loop2iter, l->loop.var)) continue;
      char *n2 = xasprintf("v%s", l->loop.var->name);
      TirVar *nv = tir_var(h, n2, l->loop.var->dtype);
      free(n2);
      ir_ptrmap_put(&loop2iter, l->loop.var, tir_var_ref(h, nv));
      vals[rb->niters] = tir_var_ref(h, l->loop.var);
      rb->iters[rb->niters++] = (TirIterVar){nv, {l->loop.min, l->loop.extent}, TIR_ITER_REDUCE};
    }
    ir_ptrmap_put(var_map, b->iters[k].var, tir_substitute_expr(h, bind, &loop2iter));
  }
  ir_ptrmap_free(&loop2iter);
}

/* Regions of `regs` with var_map applied; with insert, the rf axis is
 * inserted and the reduced buffers become the rf buffers. */
static TirBufferRegion *rf_regions(IrHeap *h, const RfState *st, const TirBufferRegion *regs, int n,
                                   const IrPtrMap *var_map, bool insert) {
  TirBufferRegion *out = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out);
  for (int r = 0; r < n; r++) {
    TirBuffer *buf = regs[r].buffer;
    int m = regs[r].n + (insert ? 1 : 0);
    TirRange *rg = ir_alloc(h, (size_t)(m ? m : 1) * sizeof *rg);
    for (int d = 0, j = 0; d < m; d++) {
      if (insert && d == st->fa) {
        rg[d] = (TirRange){tir_var_ref(h, st->add_iter.var), tir_int(h, st->add_iter.var->dtype, 1)};
        continue;
      }
      rg[d].min = tir_substitute_expr(h, regs[r].ranges[j].min, var_map);
      rg[d].extent = tir_substitute_expr(h, regs[r].ranges[j++].extent, var_map);
    }
    if (insert)
      for (int i = 0; i < st->red.n; i++)
        if (st->red.buf[i] == buf) buf = st->rfbuf[i];
    out[r] = (TirBufferRegion){buf, rg, m};
  }
  return out;
}

/* The rf block `<block>_rf` reducing into the rf buffers. */
static TirStmt *build_rf_realize(IrHeap *h, RfState *st) {
  const TirBlock *b = st->b;
  int nd = st->red.nidx, maxit = b->niters + st->nloops + 1;
  TirBlock rb = {0};
  char *bn = xasprintf("%s_rf", b->name);
  rb.name = ir_strdup(h, bn);
  free(bn);
  rb.iters = ir_alloc(h, (size_t)maxit * sizeof *rb.iters);
  TirExpr **vals = ir_alloc(h, (size_t)maxit * sizeof *vals);
  IrPtrMap var_map = {0};
  rf_block_iters(h, st, &rb, vals, &var_map);
  TirExpr **ridx = ir_alloc(h, (size_t)(nd + 1) * sizeof *ridx);
  for (int d = 0, j = 0; d <= nd; d++)
    ridx[d] = d == st->fa ? tir_var_ref(h, st->add_iter.var) : st->red.idx[j++];
  st->rf_idx = ridx;
  bool has_reduce = false;
  for (int k = 0; k < rb.niters; k++) has_reduce |= rb.iters[k].type == TIR_ITER_REDUCE;
  TirExpr *values[SCH_RED_MAX], *lhs[SCH_RED_MAX];
  for (int i = 0; i < st->red.n; i++) lhs[i] = tir_load(h, st->rfbuf[i], ridx, nd + 1);
  for (int i = 0; i < st->red.n; i++)
    values[i] = has_reduce ? sch_reducer_combine(h, st->red.kind, i, lhs, st->red.rhs) : st->red.rhs[i];
  rb.body = tir_substitute_stmt(h, stores_body(h, st, st->rfbuf, ridx, nd + 1, values), &var_map);
  if (has_reduce) rb.init = tir_substitute_stmt(h, inits_body(h, st, st->rfbuf, ridx, nd + 1), &var_map);
  rb.reads = rf_regions(h, st, b->reads, b->nreads, &var_map, false);
  rb.nreads = b->nreads;
  rb.writes = rf_regions(h, st, b->writes, b->nwrites, &var_map, true);
  rb.nwrites = b->nwrites;
  rb.annotations = b->annotations;
  st->rf_idx = ir_alloc(h, (size_t)(nd + 1) * sizeof *st->rf_idx);
  for (int d = 0; d <= nd; d++) st->rf_idx[d] = tir_substitute_expr(h, ridx[d], &var_map);
  ir_ptrmap_free(&var_map);
  TirStmt *r = tir_block_realize(h, vals, rb.niters, st->realize->realize.pred, tir_block(h, &rb));
  r->span = st->realize->span;
  return r;
}

/* The rf nest: copies of all the loops above the block (new vars). */
static TirStmt *build_rf_nest(IrHeap *h, const RfState *st, TirStmt *rf_realize) {
  IrPtrMap lmap = {0};
  TirVar *nv[64];
  for (int i = 0; i < st->nloops; i++) {
    const TirVar *ov = st->bp.s[st->loopd[i]]->loop.var;
    nv[i] = tir_var(h, ov->name, ov->dtype);
    ir_ptrmap_put(&lmap, ov, tir_var_ref(h, nv[i]));
  }
  TirStmt *nest = tir_substitute_stmt(h, rf_realize, &lmap);
  ir_ptrmap_free(&lmap);
  for (int i = st->nloops - 1; i >= 0; i--) {
    nest = sch_for_with_body(h, st->bp.s[st->loopd[i]], nest);
    nest->loop.var = nv[i];
  }
  return nest;
}

/* The write-back block (TVM's WriteBackBlockCreator): a reduce iter over
 * the rf axis first, then copies of the spatial iters; it reduces the rf
 * buffers into the outputs. */
static TirStmt *build_writeback_realize(IrHeap *h, const RfState *st) {
  const TirStmt *rl = st->loop, *realize = st->realize;
  const TirBlock *b = st->b;
  const SchReduction *red = &st->red;
  int nd = red->nidx;
  TirBlock wb = *b;
  wb.iters = ir_alloc(h, (size_t)(b->niters + 1) * sizeof *wb.iters);
  TirExpr **wvals = ir_alloc(h, (size_t)(b->niters + 1) * sizeof *wvals);
  IrPtrMap var_map = {0};
  char *n3 = xasprintf("v%s", rl->loop.var->name);
  TirVar *wv = tir_var(h, n3, rl->loop.var->dtype);
  free(n3);
  wb.iters[0] = (TirIterVar){wv, {rl->loop.min, rl->loop.extent}, TIR_ITER_REDUCE};
  wvals[0] = tir_var_ref(h, rl->loop.var);
  wb.niters = 1;
  ir_ptrmap_put(&var_map, st->add_iter.var, tir_var_ref(h, wv));
  for (int k = 0; k < b->niters; k++) {
    if (b->iters[k].type != TIR_ITER_SPATIAL) continue;
    TirIterVar iv = b->iters[k];
    iv.var = tir_var(h, iv.var->name, iv.var->dtype);
    ir_ptrmap_put(&var_map, b->iters[k].var, tir_var_ref(h, iv.var));
    wvals[wb.niters] = realize->realize.values[k];
    wb.iters[wb.niters++] = iv;
  }
  TirExpr *rhs[SCH_RED_MAX], *lhs[SCH_RED_MAX], *values[SCH_RED_MAX];
  TirExpr **idx = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *idx);
  for (int d = 0; d < nd; d++) idx[d] = tir_substitute_expr(h, red->idx[d], &var_map);
  TirExpr **ridx = ir_alloc(h, (size_t)(nd + 1) * sizeof *ridx);
  for (int d = 0; d <= nd; d++) ridx[d] = tir_substitute_expr(h, st->rf_idx[d], &var_map);
  wb.reads = ir_alloc(h, (size_t)red->n * sizeof *wb.reads);
  wb.writes = ir_alloc(h, (size_t)red->n * sizeof *wb.writes);
  for (int i = 0; i < red->n; i++) {
    rhs[i] = tir_load(h, st->rfbuf[i], ridx, nd + 1);
    lhs[i] = tir_substitute_expr(h, red->lhs[i], &var_map);
    TirRange *rr = ir_alloc(h, (size_t)(nd + 1) * sizeof *rr);
    for (int d = 0; d <= nd; d++) rr[d] = (TirRange){ridx[d], tir_int(h, ridx[d]->dtype, 1)};
    wb.reads[i] = (TirBufferRegion){st->rfbuf[i], rr, nd + 1};
    TirRange *wr = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *wr);
    for (int d = 0; d < nd; d++) wr[d] = (TirRange){lhs[i]->load.idx[d], tir_int(h, lhs[i]->load.idx[d]->dtype, 1)};
    wb.writes[i] = (TirBufferRegion){red->buf[i], wr, nd};
  }
  wb.nreads = wb.nwrites = red->n;
  for (int i = 0; i < red->n; i++) values[i] = sch_reducer_combine(h, red->kind, i, lhs, rhs);
  wb.body = stores_body(h, st, red->buf, idx, nd, values);
  wb.init = inits_body(h, st, red->buf, idx, nd);
  ir_ptrmap_free(&var_map);
  TirStmt *r = tir_block_realize(h, wvals, wb.niters, tir_bool(h, true), tir_block(h, &wb));
  r->span = realize->span;
  r->realize.block->span = realize->realize.block->span;
  return r;
}

/* The new scope: from the block up, the write-back block under the loops
 * that stay (the factorized one and those not bound into reduce iters), the
 * rf nest before the outermost loop; the scope block allocates the rf
 * buffers (TVM's BlockReplacer). */
static TirStmt *replace_rfactor_scope(IrHeap *h, const RfState *st, TirStmt *rf_nest,
                                      TirStmt *wb_realize) {
  const SchPath *bp = &st->bp;
  int scope_i = st->scope_i, outer = st->loopd[0];
  TirStmt *cur = wb_realize;
  for (int d = bp->n - 2; d >= outer; d--) {
    const TirStmt *p = bp->s[d];
    if (p->kind != TIR_S_FOR) {
      cur = sch_replace_child(h, p, bp->s[d + 1], cur);
      continue;
    }
    if (p == st->loop || !loop_used_by(st->realize, st->b, p->loop.var, TIR_ITER_REDUCE))
      cur = sch_for_with_body(h, p, cur);
  }
  const TirStmt *parent = bp->s[outer - 1];
  TirStmt *pair[2] = {rf_nest, cur};
  if (parent->kind == TIR_S_SEQ) {
    int n = parent->seq.n;
    TirStmt **items = ir_alloc(h, (size_t)(n + 1) * sizeof *items);
    for (int i = 0, m = 0; i < n; i++) {
      if (parent->seq.stmts[i] == bp->s[outer]) items[m++] = rf_nest, items[m++] = cur;
      else items[m++] = parent->seq.stmts[i];
    }
    cur = tir_seq(h, items, n + 1);
  } else {
    cur = sch_replace_child(h, parent, bp->s[outer], tir_seq(h, pair, 2));
  }
  for (int d = outer - 2; d > scope_i; d--) cur = sch_replace_child(h, bp->s[d], bp->s[d + 1], cur);
  if (outer - 1 > scope_i) cur = sch_replace_child(h, bp->s[scope_i], bp->s[scope_i + 1], cur);
  TirBlock nb = cur->block;
  nb.allocs = ir_alloc(h, (size_t)(nb.nallocs + st->red.n) * sizeof *nb.allocs);
  if (cur->block.nallocs) memcpy(nb.allocs, cur->block.allocs, (size_t)nb.nallocs * sizeof *nb.allocs);
  for (int i = 0; i < st->red.n; i++) nb.allocs[nb.nallocs++] = st->rfbuf[i];
  TirStmt *nblk = tir_block(h, &nb);
  nblk->span = bp->s[scope_i]->span;
  return sch_replace_at(h, bp, scope_i, nblk);
}

/* TVM's rfactor requires its scope to be a stage pipeline (region cover). */
static bool check_rfactor_scope(RfState *st) {
  int scope_i = sch_scope_index(&st->bp, st->bp.n - 1);
  if (scope_i < 0) return true;
  PtrVec sibs = {0};
  sch_scope_blocks(st->bp.s[scope_i], &sibs);
  IrHeap *h = ir_heap_new();
  bool ok = sch_check_region_cover(st->s, st->prim, 0, h, st->bp.s[0], &sibs, st->b);
  ir_heap_release(h);
  pv_free(&sibs);
  return ok;
}

SchRV sch_rfactor(Schedule *s, SchRV loop_rv, int factor_axis) {
  RfState st = {0};
  st.s = s;
  st.prim = "rfactor";
  SchRV res = -1;
  st.loop = sch_find_loop(s, loop_rv, st.prim, 0, &st.lp);
  if (st.loop) {
    st.func = s->rvs[loop_rv].func;
    if (check_rfactor_block(&st) && check_rfactor_scope(&st) && check_rfactor_loops(&st, factor_axis)) {
      IrModule *nm = sch_begin(s);
      IrHeap *h = nm->heap;
      build_rf_buffers(h, &st);
      TirStmt *rf_realize = build_rf_realize(h, &st);
      TirStmt *rf_nest = build_rf_nest(h, &st, rf_realize);
      TirStmt *wb_realize = build_writeback_realize(h, &st);
      TirStmt *root = replace_rfactor_scope(h, &st, rf_nest, wb_realize);
      sch_commit(s, nm, st.func, root);
      sch_rekey_block_handles(s, st.b, tir_realize_block(wb_realize));
      TirStmt *inner = rf_nest;
      while (inner->kind == TIR_S_FOR) inner = inner->loop.body;
      res = sch_block_rv(s, st.func, inner);
      SchVal args[2] = {sch_val_rv(loop_rv), sch_val_int(factor_axis)};
      sch_record(s, st.prim, args, 2, &res, 1);
    }
  }
  sch_path_free(&st.lp);
  sch_path_free(&st.bp);
  return res;
}
