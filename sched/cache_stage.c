/* cache_stage.c - the copy stage of cache_read / cache_write and the region
 * it copies (TVM's MakeCacheStage and RelaxBufferRegion).
 *
 * A stage placed under a loop keeps the buffer's full shape and copies the
 * tile the writer produces there.  A stage placed directly in its scope block
 * is compact: the cache has the shape of the region copied (the region the
 * writer writes in one execution of the scope, or, for an input, the region
 * the scope block reads), and its users index it relative to the region's
 * start, as TVM's cache_read/cache_write do. */
#include <string.h>

#include "ir/access_region.h"
#include "sched/cache_stage.h"

/* The copy stage `dst[v...] = src[v...]` over the whole buffer, named name. */
TirStmt *sch_cache_full_copy(IrHeap *h, const char *name, TirBuffer *src, TirBuffer *dst,
                             TirStmt **realize_out) {
  int nd = src->ndim;
  TirBlock cb = {0};
  cb.name = name;
  cb.iters = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *cb.iters);
  TirVar **loops = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *loops);
  TirExpr **vals = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *vals);
  TirExpr **idx = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *idx);
  for (int d = 0; d < nd; d++) {
    DType dt = src->shape[d]->dtype;
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "ax%d", d);
    loops[d] = tir_var(h, nbuf, dt);
    snprintf(nbuf, sizeof nbuf, "v%d", d);
    TirIterVar iv = {tir_var(h, nbuf, dt), {tir_int(h, dt, 0), src->shape[d]}, TIR_ITER_SPATIAL};
    cb.iters[d] = iv;
    vals[d] = tir_var_ref(h, loops[d]);
    idx[d] = tir_var_ref(h, iv.var);
  }
  cb.niters = nd;
  cb.body = tir_store(h, dst, tir_load(h, src, idx, nd), idx, nd);
  tir_infer_access_regions(h, &cb, &cb.reads, &cb.nreads, &cb.writes, &cb.nwrites);
  TirStmt *st = tir_block_realize(h, vals, nd, tir_bool(h, true), tir_block(h, &cb));
  *realize_out = st;
  for (int d = nd - 1; d >= 0; d--)
    st = tir_for(h, loops[d], tir_int(h, loops[d]->dtype, 0), src->shape[d], TIR_FOR_SERIAL, NULL,
                 NULL, st);
  return st;
}

/* min + v, folded when min is 0 (as TVM's operator+ folds it). */
static TirExpr *offset_by(IrHeap *h, TirExpr *min, TirExpr *v) {
  return min->kind == TIR_INT && min->ival == 0 ? v : tir_binary(h, TIR_ADD, min, v);
}

TirStmt *sch_cache_region_copy(IrHeap *h, const char *name, const TirRange *reg, TirBuffer *src,
                               TirBuffer *dst, TirStmt **realize_out) {
  TirStmt *st = sch_cache_full_copy(h, name, src, dst, realize_out);
  TirStmt *r = *realize_out;
  int nd = src->ndim;
  TirExpr **vals = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *vals);
  TirStmt *loops[16];
  TirStmt *cur = st;
  for (int d = 0; d < nd && d < 16; d++, cur = cur->loop.body) loops[d] = cur;
  for (int d = 0; d < nd; d++) vals[d] = offset_by(h, reg[d].min, tir_var_ref(h, loops[d]->loop.var));
  TirStmt *nr = tir_block_realize(h, vals, nd, r->realize.pred, r->realize.block);
  *realize_out = nr;
  TirStmt *body = nr;
  for (int d = nd - 1; d >= 0; d--)
    body = tir_for(h, loops[d]->loop.var, loops[d]->loop.min, reg[d].extent, TIR_FOR_SERIAL, NULL, NULL, body);
  return body;
}

TirStmt *sch_cache_compact_copy(IrHeap *h, const char *name, bool to_cache, const TirRange *reg,
                                TirBuffer *buf, TirBuffer *cbuf, TirStmt **realize_out) {
  int nd = buf->ndim;
  size_t n = (size_t)(nd ? nd : 1);
  TirBlock cb = {0};
  cb.name = name;
  cb.iters = ir_alloc(h, n * sizeof *cb.iters);
  TirVar **loops = ir_alloc(h, n * sizeof *loops);
  TirExpr **vals = ir_alloc(h, n * sizeof *vals);
  TirExpr **bidx = ir_alloc(h, n * sizeof *bidx), **cidx = ir_alloc(h, n * sizeof *cidx);
  for (int d = 0; d < nd; d++) {
    DType dt = reg[d].extent->dtype;
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "ax%d", d);
    loops[d] = tir_var(h, nbuf, dt);
    snprintf(nbuf, sizeof nbuf, "v%d", d);
    TirIterVar iv = {tir_var(h, nbuf, dt), {tir_int(h, dt, 0), reg[d].extent}, TIR_ITER_SPATIAL};
    cb.iters[d] = iv;
    vals[d] = tir_var_ref(h, loops[d]);
    cidx[d] = tir_var_ref(h, iv.var);
    bidx[d] = offset_by(h, reg[d].min, tir_var_ref(h, iv.var));
  }
  cb.niters = nd;
  cb.body = to_cache ? tir_store(h, cbuf, tir_load(h, buf, bidx, nd), cidx, nd)
                     : tir_store(h, buf, tir_load(h, cbuf, cidx, nd), bidx, nd);
  tir_infer_access_regions(h, &cb, &cb.reads, &cb.nreads, &cb.writes, &cb.nwrites);
  TirStmt *st = tir_block_realize(h, vals, nd, tir_bool(h, true), tir_block(h, &cb));
  *realize_out = st;
  for (int d = nd - 1; d >= 0; d--)
    st = tir_for(h, loops[d], tir_int(h, loops[d]->dtype, 0), reg[d].extent, TIR_FOR_SERIAL, NULL, NULL, st);
  return st;
}

/* Binds every loop and block iter of p (for proofs about the region). */
static void bind_path(ArithCtx *ctx, const SchPath *p) {
  for (int d = 0; d < p->n; d++) {
    if (p->s[d]->kind == TIR_S_FOR) arith_bind_range(ctx, p->s[d]->loop.var, p->s[d]->loop.min, p->s[d]->loop.extent);
    if (p->s[d]->kind == TIR_S_BLOCK)
      for (int k = 0; k < p->s[d]->block.niters; k++)
        arith_bind_range(ctx, p->s[d]->block.iters[k].var, p->s[d]->block.iters[k].dom.min,
                         p->s[d]->block.iters[k].dom.extent);
  }
}

/* Dimension d of region reg (of buf, written by realize r under vmap)
 * relaxed over the loops bound in rctx, clipped to the buffer; false when
 * it cannot be bounded. */
static bool relax_dim(IrHeap *h, ArithCtx *rctx, ArithCtx *pctx, const TirRange *rg, IrPtrMap *vmap,
                      const TirBuffer *buf, int d, TirRange *out) {
  TirExpr *mn = tir_substitute_expr(h, rg->min, vmap);
  TirExpr *ext = tir_substitute_expr(h, rg->extent, vmap);
  TirExpr *last = tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, mn, ext), tir_int(h, mn->dtype, 1));
  TirExpr *lo = NULL, *hi = NULL, *dummy = NULL;
  if (!arith_symbolic_bounds(rctx, mn, &lo, &dummy) || !arith_symbolic_bounds(rctx, last, &dummy, &hi))
    return false;
  /* Within the buffer (a binding under a predicate, e.g. of a split whose
   * factors do not divide, ranges past it). */
  TirExpr *zero = tir_int(h, lo->dtype, 0);
  TirExpr *end = tir_binary(h, TIR_SUB, buf->shape[d], tir_int(h, buf->shape[d]->dtype, 1));
  if (!arith_prove(pctx, tir_binary(h, TIR_GE, lo, zero))) lo = tir_binary(h, TIR_MAX, lo, zero);
  if (!arith_prove(pctx, tir_binary(h, TIR_LE, hi, end))) hi = tir_binary(h, TIR_MIN, hi, end);
  ArithCtx *simp = arith_new(h);
  out->min = arith_simplify(simp, lo);
  out->extent =
      arith_simplify(simp, tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, hi, tir_int(h, hi->dtype, 1)), out->min));
  arith_free(simp);
  return true;
}

TirRange *sch_cache_full_region(IrHeap *h, const TirBuffer *buf) {
  TirRange *out = ir_alloc(h, (size_t)(buf->ndim ? buf->ndim : 1) * sizeof *out);
  for (int d = 0; d < buf->ndim; d++) out[d].min = tir_int(h, buf->shape[d]->dtype, 0), out[d].extent = buf->shape[d];
  return out;
}

TirRange *sch_cache_relaxed_write(IrHeap *h, const SchPath *p, int q, const TirStmt *r, const TirBuffer *buf) {
  const TirBlock *b = tir_realize_block(r);
  TirRange *out = sch_cache_full_region(h, buf);
  for (int i = 0; i < b->nwrites; i++) {
    if (b->writes[i].buffer != buf) continue;
    IrPtrMap vmap;
    ir_ptrmap_init(&vmap);
    for (int k = 0; k < b->niters && k < r->realize.n; k++) ir_ptrmap_put(&vmap, b->iters[k].var, r->realize.values[k]);
    ArithCtx *rctx = arith_new(h), *pctx = arith_new(h);
    for (int d = q + 1; d < p->n; d++)
      if (p->s[d]->kind == TIR_S_FOR) arith_bind_range(rctx, p->s[d]->loop.var, p->s[d]->loop.min, p->s[d]->loop.extent);
    bind_path(pctx, p);
    for (int d = 0; d < buf->ndim; d++) {
      TirRange dim;
      if (relax_dim(h, rctx, pctx, &b->writes[i].ranges[d], &vmap, buf, d, &dim)) out[d] = dim;
    }
    arith_free(rctx);
    arith_free(pctx);
    ir_ptrmap_free(&vmap);
    break;
  }
  return out;
}

/* ------------------------------------------- users of a compact cache */

typedef struct Shift {
  const TirBuffer *old; /* the buffer replaced */
  TirBuffer *nw;        /* by the cache */
  const TirRange *off;  /* the region cached: indices move by its mins; NULL = full */
  const PtrVec *targets;/* the realizes rewritten */
  bool active;          /* inside a target */
  ArithCtx *simp;       /* TVM's Simplify of the moved indices (no bounds) */
} Shift;

static TirBuffer *shift_buffer(TirMutator *m, TirBuffer *b) {
  Shift *r = m->ctx;
  return r->active && b == r->old ? r->nw : NULL;
}

/* Simplify(e - min) (a zero min folded away first, as TVM's operator- does). */
static TirExpr *moved(TirMutator *m, TirExpr *e, TirExpr *min) {
  Shift *r = m->ctx;
  bool zero = min->kind == TIR_INT && min->ival == 0;
  return arith_simplify(r->simp, zero ? e : tir_binary(m->heap, TIR_SUB, e, min));
}

static TirExpr **shifted(TirMutator *m, TirExpr **idx, int n) {
  Shift *r = m->ctx;
  TirExpr **out = ir_alloc(m->heap, (size_t)(n ? n : 1) * sizeof *out);
  for (int d = 0; d < n; d++) out[d] = moved(m, idx[d], r->off[d].min);
  return out;
}

static TirRange *shifted_ranges(TirMutator *m, const TirRange *rg, int n) {
  Shift *r = m->ctx;
  TirRange *out = ir_alloc(m->heap, (size_t)(n ? n : 1) * sizeof *out);
  for (int d = 0; d < n; d++) {
    out[d].min = moved(m, rg[d].min, r->off[d].min);
    out[d].extent = rg[d].extent;
  }
  return out;
}

static TirExpr *shift_load(TirMutator *m, TirExpr *e) {
  Shift *r = m->ctx;
  TirExpr *o = tir_mutate_expr_children(m, e);
  if (!r->active || !r->off || e->load.buf != r->old) return o;
  if (o == e) o = ir_memdup(m->heap, e, sizeof *e);
  o->load.idx = shifted(m, o->load.idx, o->load.n);
  return o;
}

static TirStmt *shift_store(TirMutator *m, TirStmt *st) {
  Shift *r = m->ctx;
  TirStmt *o = tir_mutate_stmt_children(m, st);
  if (!r->active || !r->off || st->store.buf != r->old) return o;
  if (o == st) o = ir_memdup(m->heap, st, sizeof *st);
  o->store.idx = shifted(m, o->store.idx, o->store.n);
  return o;
}

/* Moves the regions (and match_buffer sources) of the cache in a block. */
static TirStmt *shift_block(TirMutator *m, TirStmt *st) {
  Shift *r = m->ctx;
  TirStmt *o = tir_mutate_stmt_children(m, st);
  if (!r->active || !r->off) return o;
  TirBlock nb = o->block;
  TirBufferRegion *lists[2] = {nb.reads, nb.writes};
  int counts[2] = {nb.nreads, nb.nwrites};
  TirBufferRegion *outs[2] = {NULL, NULL};
  bool hit = false;
  for (int k = 0; k < 2; k++) {
    outs[k] = ir_alloc(m->heap, (size_t)(counts[k] ? counts[k] : 1) * sizeof *outs[k]);
    for (int i = 0; i < counts[k]; i++) {
      outs[k][i] = lists[k][i];
      if (lists[k][i].buffer != r->nw) continue;
      outs[k][i].ranges = shifted_ranges(m, lists[k][i].ranges, lists[k][i].n);
      hit = true;
    }
  }
  TirMatchBuffer *mb = ir_alloc(m->heap, (size_t)(nb.nmatches ? nb.nmatches : 1) * sizeof *mb);
  for (int i = 0; i < nb.nmatches; i++) {
    mb[i] = nb.matches[i];
    if (mb[i].source.buffer != r->nw) continue;
    mb[i].source.ranges = shifted_ranges(m, mb[i].source.ranges, mb[i].source.n);
    hit = true;
  }
  if (!hit) return o;
  nb.reads = outs[0], nb.writes = outs[1], nb.matches = mb;
  TirStmt *nblk = tir_block(m->heap, &nb);
  nblk->span = o->span;
  return nblk;
}

static TirStmt *shift_realize(TirMutator *m, TirStmt *st) {
  Shift *r = m->ctx;
  bool hit = false;
  for (int i = 0; i < r->targets->len; i++) hit |= r->targets->items[i] == st;
  if (r->active || !hit) return tir_mutate_stmt_children(m, st);
  r->active = true;
  ir_ptrmap_clear(&m->buf_remap);
  TirStmt *out = tir_mutate_stmt_children(m, st);
  r->active = false;
  ir_ptrmap_clear(&m->buf_remap);
  return out;
}

TirStmt *sch_cache_redirect(IrHeap *h, TirStmt *st, const TirBuffer *buf, TirBuffer *cbuf,
                            const TirRange *off, const PtrVec *targets) {
  Shift sh = {buf, cbuf, off, targets, false, arith_new(h)};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &sh;
  m.buffer = shift_buffer;
  m.expr[TIR_LOAD] = shift_load;
  m.stmt[TIR_S_STORE] = shift_store;
  m.stmt[TIR_S_BLOCK] = shift_block;
  m.stmt[TIR_S_BLOCK_REALIZE] = shift_realize;
  TirStmt *out = tir_mutate_stmt(&m, st);
  tir_mutator_free(&m);
  arith_free(sh.simp);
  return out;
}
