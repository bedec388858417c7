/* primitive_cache_ext.c - schedule primitives: cache_inplace, cache_index, read_at, write_at, rolling_buffer.
 *
 * cache_inplace wraps a block that reads and writes a buffer in a copy-in
 * and a copy-back stage (both named `<buf>_<scope>`) right around it.
 * read_at / write_at cache the region of a buffer that the subtrees of a
 * loop's body touch, relaxed over the loops inside it, in a copy block
 * (annotated "auto_copy") whose iters are the outer loop vars the region
 * depends on; the subtrees from the first read on (read_at) or up to the
 * last write (write_at) use the cache.  rolling_buffer folds an intermediate
 * buffer along the dimension whose tiles (under the loop it shares with its
 * consumers) overlap into a circular buffer.  (cache_index, also in this
 * table: primitive_cache_index.c.) */
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/structural_equal.h"
#include "sched/sched_internal.h"

/* ------------------------------------------------------------- shared */

/* Replaces one buffer by another (loads, stores, regions) in a subtree. */
typedef struct BufSwap {
  const TirBuffer *old;
  TirBuffer *nw;
} BufSwap;

static TirBuffer *swap_buffer(TirMutator *m, TirBuffer *b) {
  BufSwap *sw = m->ctx;
  return b == sw->old ? sw->nw : NULL;
}

static TirStmt *swap_in(IrHeap *h, TirStmt *st, const TirBuffer *old, TirBuffer *nw) {
  BufSwap sw = {old, nw};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &sw;
  m.buffer = swap_buffer;
  TirStmt *out = tir_mutate_stmt(&m, st);
  tir_mutator_free(&m);
  return out;
}

/* A copy of scope block `blk` (a BLOCK stmt) with body and one more alloc. */
static TirStmt *scope_with(IrHeap *h, const TirStmt *blk, TirStmt *body, TirBuffer *alloc) {
  TirBlock nb = blk->block;
  nb.body = body;
  nb.allocs = ir_alloc(h, (size_t)(nb.nallocs + 1) * sizeof *nb.allocs);
  if (blk->block.nallocs) memcpy(nb.allocs, blk->block.allocs, (size_t)nb.nallocs * sizeof *nb.allocs);
  nb.allocs[nb.nallocs++] = alloc;
  TirStmt *st = tir_block(h, &nb);
  st->span = blk->span;
  return st;
}

/* The items of a body (a SEQ's statements, else the statement itself). */
static TirStmt **body_items(TirStmt **body, int *n) {
  if ((*body)->kind == TIR_S_SEQ) {
    *n = (*body)->seq.n;
    return (*body)->seq.stmts;
  }
  *n = 1;
  return body;
}

/* The buffer `<buf>_<scope>` with buf's shape. */
static TirBuffer *scoped_copy(IrHeap *h, const TirBuffer *buf, const char *scope) {
  char *name = xasprintf("%s_%s", buf->name, scope);
  TirBuffer *b = tir_buffer(h, name, buf->dtype, buf->shape, buf->ndim, scope);
  b->span = buf->span;
  free(name);
  return b;
}

/* The region of buf that realize r accesses (writes or reads), with r's
 * iter bindings substituted; NULL when it does not. */
static TirRange *bound_region(IrHeap *h, const TirStmt *r, const TirBuffer *buf, bool writes) {
  const TirBlock *b = tir_realize_block(r);
  const TirBufferRegion *regs = writes ? b->writes : b->reads;
  int nregs = writes ? b->nwrites : b->nreads;
  for (int i = 0; i < nregs; i++) {
    if (regs[i].buffer != buf) continue;
    IrPtrMap vmap;
    ir_ptrmap_init(&vmap);
    for (int k = 0; k < b->niters && k < r->realize.n; k++)
      ir_ptrmap_put(&vmap, b->iters[k].var, r->realize.values[k]);
    TirRange *out = ir_alloc(h, (size_t)(regs[i].n ? regs[i].n : 1) * sizeof *out);
    for (int d = 0; d < regs[i].n; d++) {
      out[d].min = tir_substitute_expr(h, regs[i].ranges[d].min, &vmap);
      out[d].extent = tir_substitute_expr(h, regs[i].ranges[d].extent, &vmap);
    }
    ir_ptrmap_free(&vmap);
    return out;
  }
  return NULL;
}

/* min + x, folded when min is 0 as TVM's expression builder does. */
static TirExpr *plus(IrHeap *h, TirExpr *min, TirExpr *x) {
  if (min->kind == TIR_INT && min->ival == 0) return x;
  return tir_binary(h, TIR_ADD, min, x);
}

/* ------------------------------------------------------------ cache_inplace */

/* The stage copying region `reg` of src into dst: loops ax_d over the
 * region's extents, a block `name` with iters v_d over dst's shape bound to
 * min_d + ax_d (TVM's full-region cache stage). */
static TirStmt *region_copy(IrHeap *h, const char *name, const TirRange *reg, TirBuffer *src,
                            TirBuffer *dst, TirExpr *pred, TirStmt **realize_out) {
  int nd = src->ndim;
  int cap = nd ? nd : 1;
  TirBlock cb = {0};
  cb.name = name;
  cb.iters = ir_alloc(h, (size_t)cap * sizeof *cb.iters);
  TirVar **loops = ir_alloc(h, (size_t)cap * sizeof *loops);
  TirExpr **vals = ir_alloc(h, (size_t)cap * sizeof *vals);
  TirExpr **idx = ir_alloc(h, (size_t)cap * sizeof *idx);
  for (int d = 0; d < nd; d++) {
    DType dt = reg[d].extent->dtype;
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "ax%d", d);
    loops[d] = tir_var(h, nbuf, dt);
    snprintf(nbuf, sizeof nbuf, "v%d", d);
    TirIterVar iv = {tir_var(h, nbuf, dt), {tir_int(h, src->shape[d]->dtype, 0), src->shape[d]}, TIR_ITER_SPATIAL};
    cb.iters[d] = iv;
    vals[d] = plus(h, reg[d].min, tir_var_ref(h, loops[d]));
    idx[d] = tir_var_ref(h, iv.var);
  }
  cb.niters = nd;
  cb.body = tir_store(h, dst, tir_load(h, src, idx, nd), idx, nd);
  tir_infer_access_regions(h, &cb, &cb.reads, &cb.nreads, &cb.writes, &cb.nwrites);
  TirStmt *st = tir_block_realize(h, vals, nd, pred ? pred : tir_bool(h, true), tir_block(h, &cb));
  *realize_out = st;
  for (int d = nd - 1; d >= 0; d--)
    st = tir_for(h, loops[d], tir_int(h, loops[d]->dtype, 0), reg[d].extent, TIR_FOR_SERIAL, NULL, NULL, st);
  return st;
}

/* The statement bp.s[at] (moved: it, using the cache) between the copy-in
 * rd and the copy-back wr in its parent, rebuilt up to the scope block,
 * which allocates cbuf; the new root. */
static TirStmt *replace_inplace_stages(IrHeap *h, const SchPath *bp, int scope_i, int at, TirStmt *rd,
                                       TirStmt *moved, TirStmt *wr, TirBuffer *cbuf) {
  TirStmt *parent = bp->s[at - 1];
  TirStmt *nparent;
  if (parent->kind == TIR_S_SEQ) {
    int n = parent->seq.n, k = 0;
    TirStmt **items = ir_alloc(h, (size_t)(n + 2) * sizeof *items);
    for (int i = 0; i < n; i++) {
      if (parent->seq.stmts[i] != bp->s[at]) {
        items[k++] = parent->seq.stmts[i];
        continue;
      }
      items[k++] = rd;
      items[k++] = moved;
      items[k++] = wr;
    }
    nparent = tir_seq(h, items, n + 2);
  } else {
    TirStmt *three[3] = {rd, moved, wr};
    TirStmt **items = ir_alloc(h, sizeof three);
    memcpy(items, three, sizeof three);
    TirStmt *seq = tir_seq(h, items, 3);
    if (parent->kind == TIR_S_FOR) {
      nparent = sch_for_with_body(h, parent, seq);
    } else { /* the scope block itself */
      TirBlock nb = parent->block;
      nb.body = seq;
      nparent = tir_block(h, &nb);
      nparent->span = parent->span;
    }
  }
  /* Rebuild up to the scope block, then give it the allocation. */
  SchPath up = {0};
  for (int d = 0; d <= scope_i; d++) sch_path_push(&up, bp->s[d]);
  TirStmt *scope_blk = bp->s[scope_i];
  TirStmt *nscope;
  if (at - 1 == scope_i) {
    nscope = scope_with(h, nparent, nparent->block.body, cbuf);
  } else {
    TirStmt *cur = nparent;
    for (int d = at - 2; d > scope_i; d--) cur = sch_replace_child(h, bp->s[d], bp->s[d + 1], cur);
    TirStmt *body = cur;
    nscope = scope_with(h, scope_blk, body, cbuf);
  }
  TirStmt *root = sch_replace_at(h, &up, scope_i, nscope);
  sch_path_free(&up);
  return root;
}

int sch_cache_inplace(Schedule *s, SchRV block, int read_buffer_index, const char *storage_scope,
                      SchRV out[2]) {
  const char *prim = "cache_inplace";
  SchPath bp = {0};
  int rc = -1;
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block].func;
  if (!sch_valid_storage_scope(storage_scope)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: the storage scope \"%s\" is invalid", prim, storage_scope);
    goto done;
  }
  if (read_buffer_index < 0 || read_buffer_index >= b->nreads) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer index %d is out of range [0, %d) of the reads of block '%s'", prim,
             read_buffer_index, b->nreads, b->name);
    goto done;
  }
  TirBuffer *buf = b->reads[read_buffer_index].buffer;
  int scope_i = sch_block_scope_index(s, prim, &bp);
  if (scope_i < 0) goto done;
  if (!sch_block_writes(b, buf)) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1, "%s: block '%s' does not both read and write buffer '%s'", prim,
             b->name, buf->name);
    goto done;
  }
  /* The stages go around the realize's statement in its innermost loop,
   * block or sequence (the realize itself, or an if/let wrapping it). */
  int at = bp.n - 1;
  while (at - 1 > scope_i && bp.s[at - 1]->kind != TIR_S_FOR && bp.s[at - 1]->kind != TIR_S_SEQ) at--;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirBuffer *cbuf = scoped_copy(h, buf, storage_scope);
  TirStmt *rd_realize = NULL, *wr_realize = NULL;
  /* The copies run where the block does: under its predicate too (a split
   * whose factors do not divide), else they would leave the buffer. */
  TirExpr *pred = sch_is_trivial_pred(realize->realize.pred) ? NULL : realize->realize.pred;
  TirStmt *rd = region_copy(h, cbuf->name, bound_region(h, realize, buf, false), buf, cbuf, pred, &rd_realize);
  TirStmt *wr = region_copy(h, cbuf->name, bound_region(h, realize, buf, true), cbuf, buf, pred, &wr_realize);
  TirStmt *moved = swap_in(h, bp.s[at], buf, cbuf);
  TirStmt *root = replace_inplace_stages(h, &bp, scope_i, at, rd, moved, wr, cbuf);
  sch_commit(s, nm, func, root);
  out[0] = sch_block_rv(s, func, rd_realize);
  out[1] = sch_block_rv(s, func, wr_realize);
  SchVal args[3] = {sch_val_rv(block), sch_val_int(read_buffer_index), sch_val_str(storage_scope)};
  sch_record(s, prim, args, 3, out, 2);
  rc = 0;
done:
  sch_path_free(&bp);
  return rc;
}

/* ------------------------------------------------------- read_at / write_at */

/* A closed symbolic interval per dimension; full = the whole dimension. */
typedef struct Hull {
  TirExpr *lo, *hi;
  bool set, full;
} Hull;

static void hull_join(ArithCtx *ctx, Hull *hl, TirExpr *lo, TirExpr *hi) {
  IrHeap *hp = arith_heap(ctx);
  if (hl->full) return;
  if (!lo || !hi) {
    hl->full = true;
    return;
  }
  if (!hl->set) {
    hl->lo = lo, hl->hi = hi, hl->set = true;
    return;
  }
  if (arith_prove(ctx, tir_binary(hp, TIR_LE, hl->lo, lo))) { /* keep */
  } else if (arith_prove(ctx, tir_binary(hp, TIR_LE, lo, hl->lo))) hl->lo = lo;
  else hl->full = true;
  if (arith_prove(ctx, tir_binary(hp, TIR_GE, hl->hi, hi))) { /* keep */
  } else if (arith_prove(ctx, tir_binary(hp, TIR_GE, hi, hl->hi))) hl->hi = hi;
  else hl->full = true;
}

/* What the walk over one subtree of the loop body found. */
typedef struct AtWalk {
  ArithCtx *ctx;     /* outer loops bound: for comparing bounds */
  ArithCtx *rctx;    /* only the loops inside the target loop bound: relaxation */
  const TirBuffer *buf;
  bool is_read;      /* read_at (relax reads) or write_at (relax writes) */
  bool r, w;         /* the subtree reads / writes buf */
  Hull *hull;        /* buf->ndim */
  const TirBlock *inplace; /* a block reading and updating buf without an init */
  PtrVec inner;      /* the loop vars inside the target loop, on the walk's path */
  const TirBlock *outer_reduce; /* a reduction into buf over a loop around the target loop */
  int naccess;       /* realizes reading (read_at) / writing (write_at) buf */
} AtWalk;

static bool find_load_pre(TirVisitor *v, const TirExpr *e) {
  if (e->kind == TIR_LOAD) *(bool *)v->ctx = true;
  return true;
}

/* Whether e loads a buffer (a data-dependent index, e.g. after cache_index). */
static bool has_load(const TirExpr *e) {
  bool found = false;
  TirVisitor v = {0};
  v.pre_expr = find_load_pre;
  v.ctx = &found;
  tir_visit_expr(&v, e);
  return found;
}

/* Visits the outermost realizes of st, the loops on the way bound in rctx. */
static void at_walk(AtWalk *aw, TirStmt *st) {
  if (st->kind == TIR_S_FOR) {
    arith_push(aw->rctx);
    arith_bind_range(aw->rctx, st->loop.var, st->loop.min, st->loop.extent);
    arith_push(aw->ctx);
    arith_bind_range(aw->ctx, st->loop.var, st->loop.min, st->loop.extent);
    pv_push(&aw->inner, st->loop.var);
    at_walk(aw, st->loop.body);
    aw->inner.len--;
    arith_pop(aw->ctx);
    arith_pop(aw->rctx);
    return;
  }
  if (st->kind == TIR_S_BLOCK_REALIZE) {
    IrHeap *h = arith_heap(aw->ctx);
    const TirBlock *b = tir_realize_block(st);
    bool has_r = sch_block_reads(b, aw->buf), has_w = sch_block_writes(b, aw->buf);
    aw->r |= has_r;
    aw->w |= has_w;
    aw->naccess += aw->is_read ? has_r : has_w;
    if (has_r && has_w && !b->init && !aw->inplace) aw->inplace = b;
    /* A reduction whose reduce loops are not all inside the target loop
     * reads partial results the cache does not hold at the next step. */
    for (int k = 0; has_w && b->init && !aw->outer_reduce && k < b->niters && k < st->realize.n; k++) {
      if (b->iters[k].type != TIR_ITER_REDUCE) continue;
      PtrVec fv = {0};
      tir_expr_free_vars(st->realize.values[k], &fv);
      for (int q = 0; q < fv.len && !aw->outer_reduce; q++) {
        bool in = false;
        for (int j = 0; j < aw->inner.len && !in; j++) in = aw->inner.items[j] == fv.items[q];
        if (!in) aw->outer_reduce = b;
      }
      pv_free(&fv);
    }
    if (aw->is_read ? has_r : has_w) {
      TirRange *reg = bound_region(h, st, aw->buf, !aw->is_read);
      for (int d = 0; reg && d < aw->buf->ndim; d++) {
        TirExpr *last = tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, reg[d].min, reg[d].extent),
                                   tir_int(h, reg[d].min->dtype, 1));
        TirExpr *lo = NULL, *hi = NULL, *dummy = NULL;
        if (!arith_symbolic_bounds(aw->rctx, reg[d].min, &lo, &dummy)) lo = NULL;
        if (!arith_symbolic_bounds(aw->rctx, last, &dummy, &hi)) hi = NULL;
        /* (an index through a load: the copy would read that buffer too) */
        if (has_load(reg[d].min) || has_load(reg[d].extent)) lo = hi = NULL;
        hull_join(aw->ctx, &aw->hull[d], lo, hi);
      }
    }
    return;
  }
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  if (st->kind == TIR_S_SEQ) {
    for (int i = 0; i < st->seq.n; i++) at_walk(aw, st->seq.stmts[i]);
    return;
  }
  for (int i = 0; i < n; i++) at_walk(aw, kids[i]);
}

/* The copy block of read_at / write_at: iters v0... for the loop vars (of
 * the loop and the loops around it, path lp) that the region dom uses, in
 * order of first use; loops ax0... over the extents inside the block. */
static TirStmt *at_block(IrHeap *h, const SchPath *lp, int scope_i, const char *name, TirBuffer *from,
                         TirBuffer *to, TirRange *dom, int nd) {
  PtrVec used = {0};
  for (int d = 0; d < nd; d++) {
    tir_expr_free_vars(dom[d].min, &used);
    tir_expr_free_vars(dom[d].extent, &used);
  }
  TirBlock cb = {0};
  cb.name = name;
  cb.iters = ir_alloc(h, (size_t)(used.len ? used.len : 1) * sizeof *cb.iters);
  TirExpr **vals = ir_alloc(h, (size_t)(used.len ? used.len : 1) * sizeof *vals);
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int i = 0; i < used.len; i++) {
    const TirStmt *loop = NULL;
    for (int d = 0; d < lp->n && !loop; d++) /* (also loops around the scope block) */
      if (lp->s[d]->kind == TIR_S_FOR && lp->s[d]->loop.var == used.items[i]) loop = lp->s[d];
    if (!loop || ir_ptrmap_has(&vmap, used.items[i])) continue;
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "v%d", cb.niters);
    TirVar *v = tir_var(h, nbuf, loop->loop.var->dtype);
    TirIterVar iv = {v, {loop->loop.min, loop->loop.extent}, TIR_ITER_SPATIAL};
    vals[cb.niters] = tir_var_ref(h, loop->loop.var);
    cb.iters[cb.niters++] = iv;
    ir_ptrmap_put(&vmap, used.items[i], tir_var_ref(h, v));
  }
  pv_free(&used);
  TirBufferRegion rr = {from, ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof(TirRange)), nd};
  TirBufferRegion wr = {to, ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof(TirRange)), nd};
  TirExpr **idx = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *idx);
  TirVar **ax = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *ax);
  for (int d = 0; d < nd; d++) {
    TirRange r = {tir_substitute_expr(h, dom[d].min, &vmap), tir_substitute_expr(h, dom[d].extent, &vmap)};
    rr.ranges[d] = wr.ranges[d] = r;
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "ax%d", d);
    ax[d] = tir_var(h, nbuf, r.extent->dtype);
    idx[d] = plus(h, r.min, tir_var_ref(h, ax[d]));
  }
  ir_ptrmap_free(&vmap);
  TirStmt *body = tir_store(h, to, tir_load(h, from, idx, nd), idx, nd);
  for (int d = nd - 1; d >= 0; d--)
    body = tir_for(h, ax[d], tir_int(h, ax[d]->dtype, 0), rr.ranges[d].extent, TIR_FOR_SERIAL, NULL, NULL, body);
  cb.body = body;
  cb.reads = ir_alloc(h, sizeof rr);
  cb.reads[0] = rr;
  cb.nreads = 1;
  cb.writes = ir_alloc(h, sizeof wr);
  cb.writes[0] = wr;
  cb.nwrites = 1;
  cb.annotations = irv_dict_set(h, NULL, "auto_copy", irv_int(h, 1));
  return tir_block_realize(h, vals, cb.niters, tir_bool(h, true), tir_block(h, &cb));
}

/* What the walks over the subtrees of the target loop's body found. */
typedef struct AtScan {
  TirStmt **subs;    /* the subtrees (the body's items) */
  int n;
  int first_r, last_r, first_w, last_w; /* subtrees reading / writing the buffer */
  const TirBlock *inplace, *outer_reduce; /* the first such block (see AtWalk) */
  int naccess;       /* realizes reading (read_at) / writing (write_at) the buffer */
} AtScan;

/* Walks every subtree, joining the accessed regions into hull. */
static void compute_at_scan(AtScan *sc, ArithCtx *ctx, ArithCtx *rctx, const TirBuffer *buf, bool is_read,
                            Hull *hull) {
  sc->first_r = sc->last_r = sc->first_w = sc->last_w = -1;
  sc->inplace = sc->outer_reduce = NULL;
  sc->naccess = 0;
  for (int i = 0; i < sc->n; i++) {
    AtWalk aw = {ctx, rctx, buf, is_read, false, false, hull, NULL, {0}, NULL, 0};
    at_walk(&aw, sc->subs[i]);
    pv_free(&aw.inner);
    sc->naccess += aw.naccess;
    if (!sc->inplace) sc->inplace = aw.inplace;
    if (!sc->outer_reduce) sc->outer_reduce = aw.outer_reduce;
    if (aw.r) sc->last_r = i, sc->first_r = sc->first_r < 0 ? i : sc->first_r;
    if (aw.w) sc->last_w = i, sc->first_w = sc->first_w < 0 ? i : sc->first_w;
  }
}

/* The subtrees use the buffer in an order the cache can serve: sets where
 * the copy goes (*ins) and the subtrees [*st, *ed) that use the cache
 * (false after an error). */
static bool check_at_order(Schedule *s, const char *prim, bool is_read, const TirStmt *loop,
                           const TirBuffer *buf, const AtScan *sc, int *ins, int *st, int *ed) {
  if (is_read) {
    if (sc->first_r < 0 || (sc->first_w >= 0 && sc->last_w >= sc->first_r)) {
      sch_fail(s, SCH_ERR_DATAFLOW, 0,
               sc->first_r < 0 ? "%s: no block under loop '%s' reads buffer '%s'"
                               : "%s: buffer '%s' is written under loop '%s' at or after its first read there",
               prim, sc->first_r < 0 ? sch_loop_name(loop) : buf->name,
               sc->first_r < 0 ? buf->name : sch_loop_name(loop));
      return false;
    }
    *ins = sc->first_r, *st = sc->first_r, *ed = sc->n;
    return true;
  }
  if (sc->first_w < 0 || (sc->last_r >= 0 && sc->last_r > sc->last_w)) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0,
             sc->first_w < 0 ? "%s: no block under loop '%s' writes buffer '%s'"
                             : "%s: buffer '%s' is read under loop '%s' after its last write there",
             prim, sc->first_w < 0 ? sch_loop_name(loop) : buf->name,
             sc->first_w < 0 ? buf->name : sch_loop_name(loop));
    return false;
  }
  if (sc->outer_reduce) {
    sch_fail(s, SCH_ERR_UNSUPPORTED, 0,
             "%s: block '%s' under loop '%s' reduces into buffer '%s' over a loop "
             "around it; the write cache would not carry the partial results",
             prim, sc->outer_reduce->name, sch_loop_name(loop), buf->name);
    return false;
  }
  if (sc->inplace) {
    /* The cache starts without the buffer's contents, which an update
     * in place (Y = Y + X) would read. */
    sch_fail(s, SCH_ERR_UNSUPPORTED, 0,
             "%s: block '%s' under loop '%s' updates buffer '%s' in place (reads it without "
             "an init); the write cache would not hold its old contents (use cache_inplace)",
             prim, sc->inplace->name, sch_loop_name(loop), buf->name);
    return false;
  }
  *ins = sc->last_w + 1, *st = 0, *ed = sc->last_w + 1;
  return true;
}

/* The region the copy covers: the hull per dimension (the whole dimension
 * where it is unknown), clipped to the buffer. */
static TirRange *compute_at_region(IrHeap *h, const SchPath *lp, const TirBuffer *buf, const Hull *hull) {
  int nd = buf->ndim;
  ArithCtx *simp = arith_new(h);
  /* For clipping: every loop around the target loop, also those outside
   * its scope, bounds the region. */
  ArithCtx *clip_ctx = arith_new(h);
  for (int d = 0; d < lp->n; d++) {
    if (lp->s[d]->kind == TIR_S_FOR)
      arith_bind_range(clip_ctx, lp->s[d]->loop.var, lp->s[d]->loop.min, lp->s[d]->loop.extent);
    if (lp->s[d]->kind == TIR_S_BLOCK)
      for (int k = 0; k < lp->s[d]->block.niters; k++)
        arith_bind_range(clip_ctx, lp->s[d]->block.iters[k].var, lp->s[d]->block.iters[k].dom.min,
                         lp->s[d]->block.iters[k].dom.extent);
  }
  TirRange *dom = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *dom);
  for (int d = 0; d < nd; d++) {
    if (hull[d].full || !hull[d].set) {
      dom[d].min = tir_int(h, buf->shape[d]->dtype, 0);
      dom[d].extent = buf->shape[d];
      continue;
    }
    /* Clipped to the buffer: a guarded access (a padding block's
     * if_then_else, an inlined one) may name indices outside it, which
     * the copy must not load. */
    TirExpr *lo = hull[d].lo, *hi = hull[d].hi;
    TirExpr *zero = tir_int(h, lo->dtype, 0);
    TirExpr *last = tir_binary(h, TIR_SUB, buf->shape[d], tir_int(h, buf->shape[d]->dtype, 1));
    bool clip = false;
    if (!arith_prove(clip_ctx, tir_binary(h, TIR_GE, lo, zero))) lo = tir_binary(h, TIR_MAX, lo, zero), clip = true;
    if (!arith_prove(clip_ctx, tir_binary(h, TIR_LE, hi, last))) hi = tir_binary(h, TIR_MIN, hi, last), clip = true;
    dom[d].min = arith_simplify(simp, lo);
    TirExpr *one = tir_int(h, hi->dtype, 1);
    TirExpr *ext = tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, hi, one), dom[d].min);
    /* A tile wholly outside the buffer copies nothing. */
    if (clip && !arith_prove(clip_ctx, tir_binary(h, TIR_GE, ext, tir_int(h, ext->dtype, 0))))
      ext = tir_binary(h, TIR_MAX, ext, tir_int(h, ext->dtype, 0));
    dom[d].extent = arith_simplify(simp, ext);
  }
  arith_free(simp);
  arith_free(clip_ctx);
  return dom;
}

/* The conjuncts of realize's predicate over the loops on lp only (NULL when
 * none). */
static TirExpr *compute_at_copy_pred(IrHeap *h, const SchPath *lp, const TirStmt *realize) {
  PtrVec todo = {0};
  TirExpr *pred = NULL;
  pv_push(&todo, realize->realize.pred);
  while (todo.len) {
    TirExpr *c = todo.items[--todo.len];
    if (c->kind == TIR_AND) {
      pv_push(&todo, c->bin.b);
      pv_push(&todo, c->bin.a);
      continue;
    }
    PtrVec fv = {0};
    tir_expr_free_vars(c, &fv);
    bool around = true;
    for (int q = 0; q < fv.len && around; q++) {
      bool found = false;
      for (int d = 0; d < lp->n && !found; d++)
        found = lp->s[d]->kind == TIR_S_FOR && lp->s[d]->loop.var == fv.items[q];
      around = found;
    }
    pv_free(&fv);
    if (around) pred = pred ? tir_binary(h, TIR_AND, pred, c) : c;
  }
  pv_free(&todo);
  return pred;
}

/* The loop's body with the copy inserted at ins and subtrees [st, ed)
 * using the cache, rebuilt up to the scope block, which allocates it; the
 * new root. */
static TirStmt *replace_at_loop(IrHeap *h, const SchPath *lp, int scope_i, const TirStmt *loop,
                                const AtScan *sc, TirStmt *copy, int ins, int st, int ed,
                                const TirBuffer *buf, TirBuffer *cbuf) {
  int n = sc->n;
  TirStmt **items = ir_alloc(h, (size_t)(n + 1) * sizeof *items);
  for (int i = 0, k = 0; i <= n; i++) {
    if (i == ins) items[k++] = copy;
    if (i == n) break;
    items[k++] = i >= st && i < ed ? swap_in(h, sc->subs[i], buf, cbuf) : sc->subs[i];
  }
  TirStmt *nloop = sch_for_with_body(h, loop, tir_seq(h, items, n + 1));
  TirStmt *cur = nloop;
  for (int d = lp->n - 2; d > scope_i; d--) cur = sch_replace_child(h, lp->s[d], lp->s[d + 1], cur);
  SchPath up = {0};
  for (int d = 0; d <= scope_i; d++) sch_path_push(&up, lp->s[d]);
  TirStmt *root = sch_replace_at(h, &up, scope_i, scope_with(h, lp->s[scope_i], cur, cbuf));
  sch_path_free(&up);
  return root;
}

static SchRV at_impl(Schedule *s, SchRV loop_rv, SchRV block_rv, int index, const char *scope, bool is_read) {
  const char *prim = is_read ? "read_at" : "write_at";
  SchPath lp = {0}, bp = {0};
  PtrVec sibs = {0};
  SchRV res = -1;
  Hull *hull = NULL;
  ArithCtx *ctx = NULL, *rctx = NULL;
  TirStmt *loop = sch_find_loop(s, loop_rv, prim, 0, &lp);
  if (!loop) goto done;
  TirStmt *realize = sch_find_block(s, block_rv, prim, 1, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block_rv].func;
  int nregs = is_read ? b->nreads : b->nwrites;
  if (index < 0 || index >= nregs) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: buffer index %d is out of range [0, %d) of the %s of block '%s'",
             prim, index, nregs, is_read ? "reads" : "writes", b->name);
    goto done;
  }
  if (!sch_valid_storage_scope(scope)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3, "%s: the storage scope \"%s\" is invalid", prim, scope);
    goto done;
  }
  TirBuffer *buf = is_read ? b->reads[index].buffer : b->writes[index].buffer;
  int scope_i = sch_scope_index(&lp, lp.n - 1);
  sch_scope_blocks(lp.s[scope_i], &sibs);
  if (!sch_check_stage_pipeline(s, prim, 0, &sibs, b)) goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  ctx = arith_new(h);
  rctx = arith_new(h);
  for (int d = scope_i + 1; d < lp.n; d++)
    if (lp.s[d]->kind == TIR_S_FOR) arith_bind_range(ctx, lp.s[d]->loop.var, lp.s[d]->loop.min, lp.s[d]->loop.extent);
  int nd = buf->ndim;
  hull = xcalloc((size_t)(nd ? nd : 1), sizeof *hull);
  TirStmt *lbody = loop->loop.body;
  AtScan sc;
  sc.subs = body_items(&lbody, &sc.n);
  compute_at_scan(&sc, ctx, rctx, buf, is_read, hull);
  int ins, st, ed;
  if (!check_at_order(s, prim, is_read, loop, buf, &sc, &ins, &st, &ed)) {
    arith_free(ctx), arith_free(rctx), ctx = rctx = NULL, ir_module_free(nm);
    goto done;
  }
  TirRange *dom = compute_at_region(h, &lp, buf, hull);
  TirBuffer *cbuf = scoped_copy(h, buf, scope);
  TirStmt *copy = is_read ? at_block(h, &lp, scope_i, cbuf->name, buf, cbuf, dom, nd)
                          : at_block(h, &lp, scope_i, cbuf->name, cbuf, buf, dom, nd);
  /* The only block using the buffer under the loop runs under a predicate
   * over the loops around the copy (a split whose factors do not divide):
   * the copy runs under it too, else it would copy, in the iterations the
   * block skips, values of earlier iterations (which the lowering does not
   * keep when it allocates the cache inside the loop). */
  if (sc.naccess == 1 && sch_contains(loop, realize) && !sch_is_trivial_pred(realize->realize.pred)) {
    TirExpr *pred = compute_at_copy_pred(h, &lp, realize);
    if (pred) copy = sch_realize_with(h, copy, NULL, NULL, pred);
  }
  TirStmt *root = replace_at_loop(h, &lp, scope_i, loop, &sc, copy, ins, st, ed, buf, cbuf);
  sch_commit(s, nm, func, root);
  res = sch_block_rv(s, func, copy);
  SchVal args[4] = {sch_val_rv(loop_rv), sch_val_rv(block_rv), sch_val_int(index), sch_val_str(scope)};
  sch_record(s, prim, args, 4, &res, 1);
done:
  if (ctx) arith_free(ctx);
  if (rctx) arith_free(rctx);
  free(hull);
  pv_free(&sibs);
  sch_path_free(&lp);
  sch_path_free(&bp);
  return res;
}

SchRV sch_read_at(Schedule *s, SchRV loop, SchRV block, int read_buffer_index, const char *storage_scope) {
  return at_impl(s, loop, block, read_buffer_index, storage_scope, true);
}

SchRV sch_write_at(Schedule *s, SchRV loop, SchRV block, int write_buffer_index, const char *storage_scope) {
  return at_impl(s, loop, block, write_buffer_index, storage_scope, false);
}

/* ------------------------------------------------------------ rolling_buffer */

/* How one dimension of the relaxed region is tiled: `var * stride` (or
 * `(var * stride) // d`, or var) with tiles of extent overlapping by
 * overlap > 0; var NULL when the dimension does not roll. */
typedef struct RollDim {
  const TirVar *var;
  int64_t overlap;
} RollDim;

/* Matches the rolling pattern on a region's min and extent; false when the
 * min has another form. */
static bool match_roll(const TirRange *r, RollDim *out) {
  const TirExpr *e = r->min;
  int64_t stride = 0, divisor = 1;
  out->var = NULL, out->overlap = 0;
  if (e->kind == TIR_FLOORDIV && e->bin.b->kind == TIR_INT && e->bin.b->ival > 0) {
    divisor = e->bin.b->ival;
    e = e->bin.a;
    if (e->kind == TIR_VAR) return false; /* TVM matches only (var * stride) // d */
  }
  if (e->kind == TIR_MUL && e->bin.a->kind == TIR_VAR && e->bin.b->kind == TIR_INT) {
    out->var = e->bin.a->var;
    stride = (e->bin.b->ival + divisor - 1) / divisor;
  } else if (e->kind == TIR_VAR && divisor == 1) {
    out->var = e->var;
    stride = 1;
  } else if (e->kind == TIR_INT && divisor == 1) {
    return true;
  } else {
    return false;
  }
  if (r->extent->kind != TIR_INT) return false;
  out->overlap = r->extent->ival - stride;
  if (out->overlap <= 0) out->var = NULL;
  return true;
}

typedef struct Roll {
  const TirBuffer *old;
  TirBuffer *nw;
  int axis;            /* the rolling dimension (also the block iter made opaque) */
  TirExpr *extent;     /* its new extent */
  RollDim *dims;       /* per dimension of the buffer */
  int ndim;
  bool stored;         /* a store to the buffer was met in the current realize */
  ArithCtx *simp;
} Roll;

static TirBuffer *roll_buffer(TirMutator *m, TirBuffer *b) {
  Roll *r = m->ctx;
  return b == r->old ? r->nw : NULL;
}

static TirExpr **roll_indices(IrHeap *h, Roll *r, TirExpr **idx, int n) {
  TirExpr **out = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out);
  for (int i = 0; i < n; i++)
    out[i] = i == r->axis ? tir_binary(h, TIR_FLOORMOD, idx[i], r->extent) : idx[i];
  return out;
}

static TirExpr *roll_load(TirMutator *m, TirExpr *e) {
  Roll *r = m->ctx;
  TirExpr *x = tir_mutate_expr_children(m, e);
  if (x->load.buf != r->nw) return x;
  TirExpr *out = tir_load(m->heap, r->nw, roll_indices(m->heap, r, x->load.idx, x->load.n), x->load.n);
  out->span = e->span;
  return out;
}

static TirStmt *roll_store(TirMutator *m, TirStmt *st) {
  Roll *r = m->ctx;
  TirStmt *x = tir_mutate_stmt_children(m, st);
  if (x->store.buf != r->nw) return x;
  r->stored = true;
  TirStmt *out = tir_store(m->heap, r->nw, x->store.value, roll_indices(m->heap, r, x->store.idx, x->store.n), x->store.n);
  out->span = st->span;
  return out;
}

/* Blocks: the rolling iter becomes opaque (the iterations of the loops
 * inside it depend on earlier ones) and the buffer's regions are inferred
 * again from the rewritten accesses. */
static TirStmt *roll_block(TirMutator *m, TirStmt *st) {
  Roll *r = m->ctx;
  IrHeap *h = m->heap;
  TirStmt *x = tir_mutate_stmt_children(m, st);
  TirBlock nb = x->block;
  bool touches = false;
  for (int k = 0; k < nb.nreads; k++) touches |= nb.reads[k].buffer == r->nw;
  for (int k = 0; k < nb.nwrites; k++) touches |= nb.writes[k].buffer == r->nw;
  if (!touches) return x;
  if (r->axis < nb.niters) {
    nb.iters = ir_memdup(h, nb.iters, (size_t)nb.niters * sizeof *nb.iters);
    nb.iters[r->axis].type = TIR_ITER_OPAQUE;
  }
  TirBufferRegion *ir, *iw;
  int nir, niw;
  tir_infer_access_regions(h, &nb, &ir, &nir, &iw, &niw);
  for (int pass = 0; pass < 2; pass++) {
    TirBufferRegion **regs = pass ? &nb.writes : &nb.reads;
    int n = pass ? nb.nwrites : nb.nreads;
    const TirBufferRegion *inf = pass ? iw : ir;
    int ninf = pass ? niw : nir;
    const TirBufferRegion *found = NULL;
    for (int k = 0; k < ninf; k++)
      if (inf[k].buffer == r->nw) found = &inf[k];
    bool any = false;
    for (int k = 0; k < n; k++) any |= (*regs)[k].buffer == r->nw;
    if (!any || !found) continue;
    TirBufferRegion *copy = ir_memdup(h, *regs, (size_t)n * sizeof **regs);
    for (int k = 0; k < n; k++)
      if (copy[k].buffer == r->nw) copy[k] = *found;
    *regs = copy;
  }
  TirStmt *out = tir_block(h, &nb);
  out->span = st->span;
  return out;
}

/* A realize writing the buffer skips the elements the previous tile of the
 * rolling loop already computed: `var < 1 or overlap <= value[var := 0]`. */
static TirStmt *roll_realize(TirMutator *m, TirStmt *st) {
  Roll *r = m->ctx;
  IrHeap *h = m->heap;
  bool outer = r->stored;
  r->stored = false;
  TirStmt *x = tir_mutate_stmt_children(m, st);
  if (r->stored) {
    TirExpr *pred = x->realize.pred;
    bool trivial = sch_is_trivial_pred(pred);
    for (int i = 0; i < r->ndim && i < st->realize.n; i++) {
      if (!r->dims[i].var) continue;
      TirVar *v = (TirVar *)r->dims[i].var;
      TirExpr *first = arith_simplify(r->simp, tir_substitute_expr1(h, st->realize.values[i], v, tir_int(h, v->dtype, 0)));
      TirExpr *c = tir_binary(h, TIR_OR, tir_binary(h, TIR_LT, tir_var_ref(h, v), tir_int(h, v->dtype, 1)),
                              tir_binary(h, TIR_LE, tir_int(h, first->dtype, r->dims[i].overlap), first));
      pred = trivial ? c : tir_binary(h, TIR_AND, pred, c);
      trivial = false;
    }
    x = tir_block_realize(h, x->realize.values, x->realize.n, pred, x->realize.block);
    x->span = st->span;
  }
  r->stored = outer;
  return x;
}

/* The block writes only buffers its scope allocates and has only
 * read-after-write dependencies with the other blocks of the scope (sibs);
 * *pos is its index among them (false after an error). */
static bool check_rolling_writer(Schedule *s, const char *prim, const TirStmt *realize, const TirBlock *scope,
                                 const PtrVec *sibs, int *pos) {
  const TirBlock *b = tir_realize_block(realize);
  for (int w = 0; w < b->nwrites; w++) {
    bool alloc = false;
    for (int k = 0; k < scope->nallocs; k++) alloc |= scope->allocs[k] == b->writes[w].buffer;
    if (!alloc) {
      sch_fail(s, SCH_ERR_DATAFLOW, 0,
               "%s: block '%s' is an output block (it writes buffer '%s', which its scope does "
               "not allocate)", prim, b->name, b->writes[w].buffer->name);
      return false;
    }
  }
  *pos = -1;
  for (int j = 0; j < sibs->len; j++)
    if (sibs->items[j] == realize) *pos = j;
  /* Only read-after-write dependencies with the other blocks of the scope. */
  for (int j = 0; j < sibs->len; j++) {
    if (j == *pos) continue;
    const TirBlock *o = tir_realize_block(sibs->items[j]);
    const char *kind = NULL;
    for (int w = 0; w < b->nwrites && !kind; w++) {
      if (sch_block_writes(o, b->writes[w].buffer)) kind = "write-after-write";
      else if (j < *pos && sch_block_reads(o, b->writes[w].buffer)) kind = "write-after-read";
    }
    for (int k = 0; k < b->nreads && !kind && j > *pos; k++)
      if (sch_block_writes(o, b->reads[k].buffer)) kind = "write-after-read";
    if (kind) {
      sch_fail(s, SCH_ERR_DATAFLOW, 0,
               "%s: block '%s' has a %s dependency with block '%s'; only read-after-write "
               "dependencies are allowed", prim, b->name, kind, o->name);
      return false;
    }
  }
  return true;
}

/* The loop that is the lowest common ancestor of the block (path bp) and
 * the consumers of its writes among sibs; lca receives the path to it.
 * NULL after an error (no such loop, or a predicate on the block). */
static TirStmt *check_rolling_lca(Schedule *s, const char *prim, const SchPath *bp, const PtrVec *sibs,
                                  int pos, const TirBuffer *buf, SchPath *lca) {
  const TirStmt *realize = bp->s[bp->n - 1];
  const TirBlock *b = tir_realize_block(realize);
  /* The lowest common ancestor of the block and its consumers must be a loop. */
  sch_path_copy(lca, bp);
  for (int j = 0; j < sibs->len; j++) {
    const TirBlock *o = tir_realize_block(sibs->items[j]);
    bool consumer = false;
    for (int w = 0; w < b->nwrites; w++) consumer |= j != pos && sch_block_reads(o, b->writes[w].buffer);
    if (!consumer) continue;
    SchPath cp = {0};
    sch_path_to_realize(bp->s[0], ((TirStmt *)sibs->items[j])->realize.block, &cp);
    int n = 0;
    while (n < lca->n && n < cp.n && lca->s[n] == cp.s[n]) n++;
    lca->n = n;
    sch_path_free(&cp);
  }
  /* Only loops and blocks count as ancestors (TVM's srefs), not sequences. */
  while (lca->n && lca->s[lca->n - 1]->kind != TIR_S_FOR && lca->s[lca->n - 1]->kind != TIR_S_BLOCK) lca->n--;
  TirStmt *top = lca->n ? lca->s[lca->n - 1] : NULL;
  if (!top || top->kind != TIR_S_FOR) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
             "%s: the lowest common ancestor of block '%s' and the consumers of buffer '%s' is "
             "not a loop; tile them so that they share one", prim, b->name, buf->name);
    return NULL;
  }
  /* The tiles are read off the written region relaxed over the loops below
   * that ancestor, which a predicate on the block (e.g. of a split whose
   * factors do not divide) would make look larger than they are. */
  if (!sch_is_trivial_pred(realize->realize.pred)) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 0, "%s: block '%s' has a predicate; its tiles under loop '%s' cannot be told",
             prim, b->name, sch_loop_name(top));
    return NULL;
  }
  return top;
}

/* The region of buf the block writes, relaxed over the loops of bp from
 * depth below (rctx binds them) into relaxed, matched per dimension
 * against the rolling pattern into dims; the rolling axis (the dimension
 * of the outermost loop var that rolls), or -1 when none matches. */
static int compute_rolling_axis(ArithCtx *rctx, ArithCtx *simp, const SchPath *bp, int below,
                                const TirBuffer *buf, TirRange *relaxed, RollDim *dims) {
  IrHeap *scratch = arith_heap(rctx);
  const TirStmt *realize = bp->s[bp->n - 1];
  for (int d = below; d < bp->n; d++)
    if (bp->s[d]->kind == TIR_S_FOR) arith_bind_range(rctx, bp->s[d]->loop.var, bp->s[d]->loop.min, bp->s[d]->loop.extent);
  int nd = buf->ndim;
  TirRange *reg = bound_region(scratch, realize, buf, true);
  bool matched = true;
  for (int d = 0; d < nd && matched; d++) {
    TirExpr *last = tir_binary(scratch, TIR_SUB, tir_binary(scratch, TIR_ADD, reg[d].min, reg[d].extent),
                               tir_int(scratch, reg[d].min->dtype, 1));
    TirExpr *lo = NULL, *hi = NULL, *dummy = NULL;
    if (arith_symbolic_bounds(rctx, reg[d].min, &lo, &dummy) && arith_symbolic_bounds(rctx, last, &dummy, &hi)) {
      relaxed[d].min = arith_simplify(simp, lo);
      relaxed[d].extent = arith_simplify(simp, tir_binary(scratch, TIR_SUB, tir_binary(scratch, TIR_ADD, hi, tir_int(scratch, hi->dtype, 1)), relaxed[d].min));
    } else {
      relaxed[d].min = tir_int(scratch, buf->shape[d]->dtype, 0);
      relaxed[d].extent = buf->shape[d];
    }
    matched = match_roll(&relaxed[d], &dims[d]);
  }
  /* The rolling axis: the dimension of the outermost loop var that rolls. */
  int axis = -1;
  for (int d = 0; d < bp->n && matched && axis < 0; d++) {
    if (bp->s[d]->kind != TIR_S_FOR) continue;
    for (int k = 0; k < nd && axis < 0; k++)
      if (dims[k].var == bp->s[d]->loop.var) axis = k;
  }
  return matched ? axis : -1;
}

/* The writer skips what the previous tile computed by a predicate on the
 * binding of block iter d, for each rolling dimension d (as TVM does): the
 * block must write one element there, indexed by that very iter (not, e.g.,
 * a whole row copied by loops inside the block).  False after an error. */
static bool check_rolling_writes(Schedule *s, const char *prim, const TirBlock *b, int write_buffer_index,
                                 const TirBuffer *buf, const RollDim *dims) {
  for (int d = 0; d < buf->ndim; d++) {
    if (!dims[d].var) continue;
    const TirRange *wr = &b->writes[write_buffer_index].ranges[d];
    if (d >= b->niters || wr->min->kind != TIR_VAR || wr->min->var != b->iters[d].var ||
        !tir_is_one(wr->extent)) {
      sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
               "%s: block '%s' must write buffer '%s' at its block iter %d in the rolling "
               "dimension %d (one element per block instance)", prim, b->name, buf->name, d, d);
      return false;
    }
  }
  return true;
}

/* The scope block (bp.s[scope_i]) with buf folded to the extent
 * relaxed[axis] along axis, its accesses taken modulo; the new root. */
static TirStmt *replace_rolling_scope(IrHeap *h, const SchPath *bp, int scope_i, TirBuffer *buf,
                                      const TirRange *relaxed, int axis, RollDim *dims) {
  int nd = buf->ndim;
  TirBuffer *nbuf = tir_buffer_copy(h, buf);
  nbuf->shape = ir_memdup(h, buf->shape, (size_t)nd * sizeof *nbuf->shape);
  TirExpr *ext = tir_int(h, relaxed[axis].extent->dtype, relaxed[axis].extent->ival);
  nbuf->shape[axis] = ext;
  ArithCtx *hs = arith_new(h);
  Roll roll = {buf, nbuf, axis, ext, dims, nd, false, hs};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &roll;
  m.buffer = roll_buffer;
  m.expr[TIR_LOAD] = roll_load;
  m.stmt[TIR_S_STORE] = roll_store;
  m.stmt[TIR_S_BLOCK] = roll_block;
  m.stmt[TIR_S_BLOCK_REALIZE] = roll_realize;
  TirStmt *scope_blk = bp->s[scope_i];
  TirBlock sb = scope_blk->block;
  sb.body = tir_mutate_stmt(&m, sb.body);
  if (sb.init) sb.init = tir_mutate_stmt(&m, sb.init);
  tir_mutator_free(&m);
  arith_free(hs);
  sb.allocs = ir_memdup(h, sb.allocs, (size_t)sb.nallocs * sizeof *sb.allocs);
  for (int k = 0; k < sb.nallocs; k++)
    if (sb.allocs[k] == buf) sb.allocs[k] = nbuf;
  TirStmt *nscope = tir_block(h, &sb);
  nscope->span = scope_blk->span;
  return sch_replace_at(h, bp, scope_i, nscope);
}

int sch_rolling_buffer(Schedule *s, SchRV block, int write_buffer_index) {
  const char *prim = "rolling_buffer";
  SchPath bp = {0}, lca = {0};
  PtrVec sibs = {0};
  RollDim *dims = NULL;
  ArithCtx *rctx = NULL, *simp = NULL;
  IrHeap *scratch = NULL;
  int rc = -1;
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block].func;
  if (write_buffer_index < 0 || write_buffer_index >= b->nwrites) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer index %d is out of range [0, %d) of the writes of block '%s'", prim,
             write_buffer_index, b->nwrites, b->name);
    goto done;
  }
  TirBuffer *buf = b->writes[write_buffer_index].buffer;
  int scope_i = sch_block_scope_index(s, prim, &bp);
  if (scope_i < 0) goto done;
  sch_scope_blocks(bp.s[scope_i], &sibs);
  int pos;
  if (!check_rolling_writer(s, prim, realize, &bp.s[scope_i]->block, &sibs, &pos)) goto done;
  TirStmt *top = check_rolling_lca(s, prim, &bp, &sibs, pos, buf, &lca);
  if (!top) goto done;
  scratch = ir_heap_new();
  rctx = arith_new(scratch);
  simp = arith_new(scratch);
  int nd = buf->ndim;
  dims = xcalloc((size_t)(nd ? nd : 1), sizeof *dims);
  TirRange *relaxed = ir_alloc(scratch, (size_t)(nd ? nd : 1) * sizeof *relaxed);
  int axis = compute_rolling_axis(rctx, simp, &bp, lca.n, buf, relaxed, dims);
  if (axis < 0) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
             "%s: no dimension of the region of buffer '%s' written by block '%s' under the "
             "shared loop '%s' matches the rolling pattern `outer * stride + inner` with "
             "overlapping tiles", prim, buf->name, b->name, sch_loop_name(top));
    goto done;
  }
  if (!check_rolling_writes(s, prim, b, write_buffer_index, buf, dims)) goto done;
  IrModule *nm = sch_begin(s);
  TirStmt *root = replace_rolling_scope(nm->heap, &bp, scope_i, buf, relaxed, axis, dims);
  sch_commit(s, nm, func, root);
  SchVal args[2] = {sch_val_rv(block), sch_val_int(write_buffer_index)};
  sch_record(s, prim, args, 2, NULL, 0);
  rc = 0;
done:
  if (rctx) arith_free(rctx);
  if (simp) arith_free(simp);
  if (scratch) ir_heap_release(scratch);
  free(dims);
  pv_free(&sibs);
  sch_path_free(&bp);
  sch_path_free(&lca);
  return rc;
}

/* ------------------------------------------------------------ method table */

static int ap_cache_inplace(Schedule *s, SchVal *a, SchVal *r) {
  SchRV out[2];
  if (sch_cache_inplace(s, (SchRV)a[0].i, (int)a[1].i, a[2].s, out)) return -1;
  *r = sch_val_rv_list(out, 2);
  return 0;
}

static int ap_read_at(Schedule *s, SchVal *a, SchVal *r) {
  SchRV rv = sch_read_at(s, (SchRV)a[0].i, (SchRV)a[1].i, (int)a[2].i, a[3].s);
  if (rv < 0) return -1;
  *r = sch_val_rv(rv);
  return 0;
}

static int ap_write_at(Schedule *s, SchVal *a, SchVal *r) {
  SchRV rv = sch_write_at(s, (SchRV)a[0].i, (SchRV)a[1].i, (int)a[2].i, a[3].s);
  if (rv < 0) return -1;
  *r = sch_val_rv(rv);
  return 0;
}

static int ap_cache_index(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *o;
  int n = sch_cache_index(s, (SchRV)a[0].i, a[1].s, (int)a[2].i, &o);
  if (n < 0) return -1;
  *r = sch_val_rv_list(o, n);
  free(o);
  return 0;
}

static int ap_rolling_buffer(Schedule *s, SchVal *a, SchVal *r) {
  return sch_rolling_buffer(s, (SchRV)a[0].i, (int)a[1].i);
}

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_cache_ext[] = {
    {"cache_inplace",
     {P("block", SP_BLOCK, NULL), P("read_buffer_index", SP_READ_BUFFER, NULL), P("storage_scope", SP_STR, NULL)},
     3, SO_LIST, true, ap_cache_inplace},
    {"cache_index",
     {P("block", SP_BLOCK, NULL), P("storage_scope", SP_STR, NULL), P("cse_thresh", SP_INT, "0")},
     3, SO_LIST, true, ap_cache_index},
    {"read_at",
     {P("loop", SP_LOOP, NULL), P("block", SP_BLOCK, NULL), P("read_buffer_index", SP_INT, NULL),
      P("storage_scope", SP_STR, NULL)},
     4, SO_ONE, true, ap_read_at},
    {"write_at",
     {P("loop", SP_LOOP, NULL), P("block", SP_BLOCK, NULL), P("write_buffer_index", SP_INT, NULL),
      P("storage_scope", SP_STR, NULL)},
     4, SO_ONE, true, ap_write_at},
    {"rolling_buffer", {P("block", SP_BLOCK, NULL), P("write_buffer_index", SP_WRITE_BUFFER, NULL)}, 2, SO_NONE,
     true, ap_rolling_buffer},
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
