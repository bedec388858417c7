/* primitive_reindex.c - schedule primitives: reindex, reindex_cache_read,
 * reindex_cache_write (and the method table of the whole group, whose block
 * iter primitives live in primitive_block_iters.c).
 *
 * reindex copies one buffer of a leaf block through a new buffer
 * `<buf>_reindex` laid out like the block's iteration space: its dims are
 * the block iters the (single) access pattern uses, so the block then reads
 * or writes `<buf>_reindex[v0, v1, ...]`.  The copy stage sits right before
 * (read) or after (write) the block's loop nest and has one loop `ax<i>` and
 * one iter `v<i>` per used block iter.  As in TVM, the stage of a read copy is
 * named after the buffer it writes: `<buf>_reindex_reindex`.
 *
 * reindex_cache_read/write do the same through a user index map of the block
 * iters, into a buffer `<buf>_<scope>` of the given storage scope; the copy
 * stage reuses the loops above the block that its iters need. */
#include <stdlib.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "sched/index_map.h"
#include "sched/sched_internal.h"

/* --------------------------------------------------------- shared helpers */

/* The region (read or write list) `index` of the block with its checks;
 * NULL after an error at argument argi. */
static const TirBufferRegion *nth_region(Schedule *s, const char *prim, int argi,
                                         const TirBlock *b, bool is_write, int index) {
  int n = is_write ? b->nwrites : b->nreads;
  if (index < 0 || index >= n) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, argi,
             "%s: buffer index %d is out of range [0, %d) of the %s of block '%s'", prim, index, n,
             is_write ? "writes" : "reads", b->name);
    return NULL;
  }
  return is_write ? &b->writes[index] : &b->reads[index];
}

/* A point region buf[idx...] (in h). */
static TirBufferRegion point_region(IrHeap *h, TirBuffer *buf, TirExpr **idx, int n) {
  TirBufferRegion r = {buf, ir_alloc(h, (size_t)(n ? n : 1) * sizeof(TirRange)), n};
  for (int i = 0; i < n; i++) {
    r.ranges[i].min = idx[i];
    r.ranges[i].extent = tir_int(h, idx[i]->dtype, 1);
  }
  return r;
}

/* Regions with every region of old replaced by nw (in h; rs itself if none). */
static TirBufferRegion *swap_regions(IrHeap *h, const TirBufferRegion *rs, int n,
                                     const TirBuffer *old, TirBufferRegion nw) {
  TirBufferRegion *out = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out);
  for (int i = 0; i < n; i++) out[i] = rs[i].buffer == old ? nw : rs[i];
  return out;
}

/* Accesses to one buffer redirected to another at fixed indices. */
typedef struct Redirect {
  const TirBuffer *old;
  TirBuffer *nw;
  TirExpr **idx;
  int n;
} Redirect;

static TirExpr *redirect_load(TirMutator *m, TirExpr *e) {
  Redirect *r = m->ctx;
  e = tir_mutate_expr_children(m, e);
  if (e->load.buf != r->old) return e;
  TirExpr *x = tir_load(m->heap, r->nw, r->idx, r->n);
  x->span = e->span;
  return x;
}

static TirStmt *redirect_store(TirMutator *m, TirStmt *st) {
  Redirect *r = m->ctx;
  st = tir_mutate_stmt_children(m, st);
  if (st->store.buf != r->old) return st;
  TirStmt *x = tir_store(m->heap, r->nw, st->store.value, r->idx, r->n);
  x->span = st->span;
  return x;
}

/* The block with its accesses (init, body, regions, match sources) to old
 * redirected to nw[idx...]; a new block in h. */
static TirBlock redirect_block(IrHeap *h, const TirBlock *b, const TirBuffer *old, TirBuffer *nw,
                               TirExpr **idx, int n) {
  Redirect r = {old, nw, idx, n};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &r;
  m.expr[TIR_LOAD] = redirect_load;
  m.stmt[TIR_S_STORE] = redirect_store;
  TirBlock nb = *b;
  nb.init = b->init ? tir_mutate_stmt(&m, b->init) : NULL;
  nb.body = tir_mutate_stmt(&m, b->body);
  tir_mutator_free(&m);
  TirBufferRegion reg = point_region(h, nw, idx, n);
  nb.reads = swap_regions(h, b->reads, b->nreads, old, reg);
  nb.writes = swap_regions(h, b->writes, b->nwrites, old, reg);
  if (b->nmatches) {
    nb.matches = ir_alloc(h, (size_t)b->nmatches * sizeof *nb.matches);
    for (int i = 0; i < b->nmatches; i++) {
      nb.matches[i] = b->matches[i];
      if (b->matches[i].source.buffer == old) nb.matches[i].source = reg;
    }
  }
  return nb;
}

/* The scope block's body as a list of top-level statements. */
static TirStmt **scope_kids(TirStmt *scope_blk, int *n) {
  TirStmt *body = scope_blk->block.body;
  if (body->kind == TIR_S_SEQ) {
    *n = body->seq.n;
    return body->seq.stmts;
  }
  *n = 1;
  return &scope_blk->block.body;
}

/* A copy of the scope block with stage inserted at top-level position pos
 * (or, when body_nw is non-NULL, with that body) and alloc appended. */
static TirStmt *scope_with(IrHeap *h, const TirStmt *scope_blk, TirStmt **kids, int nkids,
                           int pos, TirStmt *stage, TirBuffer *alloc) {
  TirStmt **items = ir_alloc(h, (size_t)(nkids + 1) * sizeof *items);
  for (int i = 0, j = 0; i <= nkids; i++) items[i] = i == pos ? stage : kids[j++];
  TirBlock nb = scope_blk->block;
  nb.body = tir_seq(h, items, nkids + 1);
  nb.allocs = ir_alloc(h, (size_t)(nb.nallocs + 1) * sizeof *nb.allocs);
  if (nb.nallocs) memcpy(nb.allocs, scope_blk->block.allocs, (size_t)nb.nallocs * sizeof *nb.allocs);
  nb.allocs[nb.nallocs++] = alloc;
  TirStmt *st = tir_block(h, &nb);
  st->span = scope_blk->span;
  return st;
}

/* The shape extent min + extent of a block iter domain (folded). */
static TirExpr *dom_end(IrHeap *h, const TirRange *dom) {
  if (tir_is_zero(dom->min)) return dom->extent;
  TirExpr *f = arith_const_fold(h, TIR_ADD, dom->min, dom->extent);
  return f ? f : tir_binary(h, TIR_ADD, dom->min, dom->extent);
}

/* ------------------------------------------------------------------ reindex */

/* What reindex learns of the block's accesses to the buffer. */
typedef struct Collect {
  const TirBuffer *buf;
  TirExpr **idx;         /* the first access's indices */
  int n;
  const TirExpr *other;  /* an access with other indices, when seen */
  const TirBlock *nested;/* a block inside, when seen */
  bool opaque;           /* the data pointer used directly */
} Collect;

static bool same_indices(TirExpr *const *a, TirExpr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!seq_tir_expr(a[i], b[i])) return false;
  return true;
}

static void note_access(Collect *c, TirExpr **idx, int n) {
  if (!c->idx) {
    c->idx = idx;
    c->n = n;
  } else if (!same_indices(c->idx, idx, n)) {
    c->other = idx[0];
  }
}

static bool collect_pre_stmt(TirVisitor *v, const TirStmt *st) {
  Collect *c = v->ctx;
  if (st->kind == TIR_S_BLOCK && !c->nested) c->nested = &st->block;
  if (st->kind == TIR_S_STORE && st->store.buf == c->buf)
    note_access(c, st->store.idx, st->store.n);
  return true;
}

static bool collect_pre_expr(TirVisitor *v, const TirExpr *e) {
  Collect *c = v->ctx;
  if (e->kind == TIR_LOAD && e->load.buf == c->buf) note_access(c, e->load.idx, e->load.n);
  if (e->kind == TIR_VAR && e->var == c->buf->data) c->opaque = true;
  return true;
}

/* Where the block's loop nest sits in the scope: the index of its top-level
 * statement; -1 (after an error) when the nest holds anything but a chain
 * of loops down to the block. */
static int nest_position(Schedule *s, const char *prim, const SchPath *bp, int scope_i,
                         const TirBlock *b) {
  int top = scope_i + 1;
  int pos = 0;
  TirStmt *body = bp->s[scope_i]->block.body;
  if (bp->s[top]->kind == TIR_S_SEQ) {
    top++;
    for (int i = 0; i < body->seq.n; i++)
      if (body->seq.stmts[i] == bp->s[top]) pos = i;
  }
  for (int d = top; d < bp->n - 1; d++) {
    if (bp->s[d]->kind != TIR_S_FOR || bp->s[d]->loop.body != bp->s[d + 1]) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: block '%s' is not alone under its loops (its loop nest holds other "
               "statements)", prim, b->name);
      return -1;
    }
  }
  return pos;
}

/* Whether indices idx of buf stay inside its shape over the block's iter
 * domains.  A guarded access (`T.if_then_else(1 <= vh, I[vh - 1], 0)`) may
 * name points outside it, which a copy stage (run over the whole domain,
 * unguarded) must not touch. */
static bool indices_in_bounds(const TirBlock *b, const TirBuffer *buf, TirExpr *const *idx, int n) {
  IrHeap *h = ir_heap_new();
  ArithCtx *a = arith_new(h);
  for (int i = 0; i < b->niters; i++)
    arith_bind_range(a, b->iters[i].var, b->iters[i].dom.min, b->iters[i].dom.extent);
  bool ok = n == buf->ndim;
  for (int d = 0; d < n && ok; d++)
    ok = arith_prove(a, tir_binary(h, TIR_GE, idx[d], tir_int(h, idx[d]->dtype, 0))) &&
         arith_prove(a, tir_binary(h, TIR_LT, idx[d], buf->shape[d]));
  arith_free(a);
  ir_heap_release(h);
  return ok;
}

/* Simplifies an index unless that leaves a constant (TVM keeps those). */
static TirExpr *simplify_index(ArithCtx *a, TirExpr *e) {
  TirExpr *x = arith_simplify(a, e);
  int64_t c;
  return tir_is_const_int(x, &c) ? e : x;
}

/* What reindex's checks find and its rewrite uses. */
typedef struct ReindexState {
  Schedule *s;
  const char *prim;
  const char *func;
  bool is_write;
  SchPath bp;           /* path to the block's realize */
  PtrVec sibs;          /* the blocks of its scope */
  TirStmt *realize;
  const TirBlock *b;
  TirBuffer *buf;       /* the buffer reindexed */
  int scope_i;          /* path index of the scope block */
  int pos;              /* the block's nest among the scope's statements */
  Collect c;            /* the block's access to buf */
  TirExpr **orig;       /* its indices, simplified */
  int *used;            /* the block iters they use, in block order */
  int ncov;
} ReindexState;

/* One access pattern, through loads and stores, in a leaf block, of block
 * iters only. */
static bool check_reindex_access(ReindexState *st) {
  Schedule *s = st->s;
  const char *prim = st->prim;
  const TirBlock *b = st->b;
  TirBuffer *buf = st->buf;
  Collect *c = &st->c;
  *c = (Collect){buf, NULL, 0, NULL, NULL, false};
  TirVisitor v = {0};
  v.ctx = c;
  v.pre_stmt = collect_pre_stmt;
  v.pre_expr = collect_pre_expr;
  tir_visit_stmt(&v, b->body);
  if (c->nested) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0, "%s: block '%s' is not a leaf block (it contains block '%s')",
             prim, b->name, c->nested->name);
    return false;
  }
  if (c->opaque) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
             "%s: buffer '%s' is accessed opaquely in block '%s' (not only through loads "
             "and stores)", prim, buf->name, b->name);
    return false;
  }
  if (!c->idx) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
             "%s: buffer '%s' is not accessed by a load or store in the body of block '%s'", prim,
             buf->name, b->name);
    return false;
  }
  if (c->other) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
             "%s: the buffer region of '%s' accessed in block '%s' is not a single point "
             "(it is accessed at different indices)", prim, buf->name, b->name);
    return false;
  }
  /* The copy stage can only recompute indices made of block iters. */
  for (int i = 0; i < c->n; i++) {
    PtrVec fv = {0};
    tir_expr_free_vars(c->idx[i], &fv);
    const TirVar *bad = NULL;
    for (int k = 0; k < fv.len && !bad; k++) {
      bool iter = false;
      for (int t = 0; t < b->niters && !iter; t++) iter = b->iters[t].var == fv.items[k];
      if (!iter) bad = fv.items[k];
    }
    pv_free(&fv);
    if (bad) {
      sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
               "%s: the indices of '%s' in block '%s' use '%s', which is not a block iter", prim,
               buf->name, b->name, bad->name);
      return false;
    }
  }
  return true;
}

/* The block, its buffer and scope; then its access, no in-place update, the
 * indices inside the shape, and a nest of loops alone down to the block. */
static bool check_reindex(ReindexState *st, SchRV block_rv, int index) {
  Schedule *s = st->s;
  const char *prim = st->prim;
  st->realize = sch_find_block(s, block_rv, prim, 0, &st->bp);
  if (!st->realize) return false;
  const TirBlock *b = st->b = tir_realize_block(st->realize);
  st->func = s->rvs[block_rv].func;
  const TirBufferRegion *reg = nth_region(s, prim, 1, b, st->is_write, index);
  if (!reg) return false;
  TirBuffer *buf = st->buf = reg->buffer;
  st->scope_i = sch_block_scope_index(s, prim, &st->bp);
  if (st->scope_i < 0) return false;
  sch_scope_blocks(st->bp.s[st->scope_i], &st->sibs);
  if (!sch_check_stage_pipeline(s, prim, 0, &st->sibs, b)) return false;
  if (!check_reindex_access(st)) return false;
  if (st->is_write && !sch_check_reduce_below_scope(s, prim, &st->bp, st->scope_i, "new buffer"))
    return false;
  if (!b->init && sch_block_reads(b, buf) && sch_block_writes(b, buf)) {
    sch_fail(s, SCH_ERR_UNSUPPORTED, 1,
             "%s: block '%s' updates buffer '%s' in place (reads it without an init); the "
             "copy would not carry its old contents, or its new ones, over",
             prim, b->name, buf->name);
    return false;
  }
  if (!indices_in_bounds(b, buf, st->c.idx, st->c.n)) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
             "%s: the indices of '%s' in block '%s' may leave its shape over the block's "
             "iter domains (a guarded access); the copy stage would access it out of bounds",
             prim, buf->name, b->name);
    return false;
  }
  st->pos = nest_position(s, prim, &st->bp, st->scope_i, b);
  return st->pos >= 0;
}

/* The simplified indices and the block iters they use, in block order: the
 * new buffer's dims; false (after an error) when a binding of one uses a
 * loop outside the scope. */
static bool compute_reindex_dims(IrHeap *h, ReindexState *st) {
  Schedule *s = st->s;
  const TirBlock *b = st->b;
  const SchPath *bp = &st->bp;
  ArithCtx *a = arith_new(h);
  for (int i = 0; i < b->niters; i++)
    arith_bind_range(a, b->iters[i].var, b->iters[i].dom.min, b->iters[i].dom.extent);
  TirExpr **orig = st->orig = ir_alloc(h, (size_t)(st->c.n ? st->c.n : 1) * sizeof *orig);
  for (int i = 0; i < st->c.n; i++) orig[i] = simplify_index(a, st->c.idx[i]);
  arith_free(a);
  int nb_iters = b->niters ? b->niters : 1;
  int *used = st->used = ir_alloc(h, (size_t)nb_iters * sizeof *used);
  int ncov = 0;
  for (int i = 0; i < b->niters; i++) {
    bool u = false;
    for (int k = 0; k < st->c.n && !u; k++) u = tir_expr_uses_var(orig[k], b->iters[i].var);
    if (u) used[ncov++] = i;
  }
  st->ncov = ncov;
  /* The copy stage runs over those iters' whole domains in the scope: the
   * bindings may use only loops inside it (not, e.g., the iter of an outer
   * block run once per row, where each run writes one row). */
  for (int k = 0; k < ncov; k++) {
    PtrVec fv = {0};
    tir_expr_free_vars(st->realize->realize.values[used[k]], &fv);
    const TirVar *outside = NULL;
    for (int q = 0; q < fv.len && !outside; q++) {
      bool inside = false;
      for (int d = st->scope_i + 1; d < bp->n - 1 && !inside; d++)
        inside = bp->s[d]->kind == TIR_S_FOR && bp->s[d]->loop.var == fv.items[q];
      if (!inside) outside = fv.items[q];
    }
    pv_free(&fv);
    if (outside) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: the binding of iter '%s' of block '%s' uses '%s', which is not a loop "
               "inside the block's scope; the copy stage would cover the iter's whole domain",
               st->prim, b->iters[used[k]].var->name, b->name, outside->name);
      return false;
    }
  }
  return true;
}

/* The copy stage between buf and rbuf: loops ax<k>, iters v<k> over the used
 * iters' domains.  *copy_realize gets its realize; returns the nest. */
static TirStmt *build_reindex_stage(IrHeap *h, const ReindexState *st, TirBuffer *rbuf,
                                    TirStmt **copy_realize) {
  const TirBlock *b = st->b;
  TirBuffer *buf = st->buf;
  int ncov = st->ncov, cn = st->c.n;
  bool is_write = st->is_write;
  TirBlock cb = {0};
  cb.iters = ir_alloc(h, (size_t)(ncov ? ncov : 1) * sizeof *cb.iters);
  TirVar **loops = ir_alloc(h, (size_t)(ncov ? ncov : 1) * sizeof *loops);
  TirExpr **vals = ir_alloc(h, (size_t)(ncov ? ncov : 1) * sizeof *vals);
  TirExpr **ridx = ir_alloc(h, (size_t)(ncov ? ncov : 1) * sizeof *ridx);
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int k = 0; k < ncov; k++) {
    const TirIterVar *it = &b->iters[st->used[k]];
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "ax%d", k);
    loops[k] = tir_var(h, nbuf, it->var->dtype);
    snprintf(nbuf, sizeof nbuf, "v%d", k);
    TirIterVar iv = {tir_var(h, nbuf, it->var->dtype), it->dom, TIR_ITER_SPATIAL};
    cb.iters[k] = iv;
    vals[k] = tir_var_ref(h, loops[k]);
    ridx[k] = tir_var_ref(h, iv.var);
    ir_ptrmap_put(&vmap, it->var, ridx[k]);
  }
  cb.niters = ncov;
  TirExpr **tidx = ir_alloc(h, (size_t)(cn ? cn : 1) * sizeof *tidx);
  for (int i = 0; i < cn; i++) tidx[i] = tir_substitute_expr(h, st->orig[i], &vmap);
  ir_ptrmap_free(&vmap);
  TirBuffer *src = is_write ? rbuf : buf, *dst = is_write ? buf : rbuf;
  TirExpr **sidx = is_write ? ridx : tidx, **didx = is_write ? tidx : ridx;
  int sn = is_write ? ncov : cn, dn = is_write ? cn : ncov;
  char *tmp = xasprintf("%s_reindex", dst->name);
  cb.name = ir_strdup(h, tmp);
  free(tmp);
  cb.body = tir_store(h, dst, tir_load(h, src, sidx, sn), didx, dn);
  cb.reads = ir_alloc(h, sizeof *cb.reads);
  cb.reads[0] = point_region(h, src, sidx, sn);
  cb.nreads = 1;
  cb.writes = ir_alloc(h, sizeof *cb.writes);
  cb.writes[0] = point_region(h, dst, didx, dn);
  cb.nwrites = 1;
  *copy_realize = tir_block_realize(h, vals, ncov, tir_bool(h, true), tir_block(h, &cb));
  TirStmt *stage = *copy_realize;
  for (int k = ncov - 1; k >= 0; k--) {
    const TirIterVar *it = &cb.iters[k];
    stage = tir_for(h, loops[k], it->dom.min, it->dom.extent, TIR_FOR_SERIAL, NULL, NULL, stage);
  }
  return stage;
}

/* The new root: the block accessing rbuf[blk_idx], its nest rebuilt, the
 * stage before (read) or after (write) it in the scope, which allocates rbuf. */
static TirStmt *replace_reindex_scope(IrHeap *h, const ReindexState *st, TirBuffer *rbuf,
                                      TirExpr **blk_idx, TirStmt *stage) {
  const SchPath *bp = &st->bp;
  int scope_i = st->scope_i, pos = st->pos;
  TirBlock nbk = redirect_block(h, st->b, st->buf, rbuf, blk_idx, st->ncov);
  TirStmt *nreal = sch_realize_with(h, st->realize, &nbk, NULL, NULL);
  TirStmt *scope_blk = bp->s[scope_i];
  int nkids;
  TirStmt **kids = scope_kids(scope_blk, &nkids);
  int top = bp->s[scope_i + 1]->kind == TIR_S_SEQ ? scope_i + 2 : scope_i + 1;
  SchPath sub = {bp->s + top, bp->n - top, 0};
  TirStmt *ntop = sch_replace_at(h, &sub, sub.n - 1, nreal);
  TirStmt **nkids_v = ir_alloc(h, (size_t)nkids * sizeof *nkids_v);
  memcpy(nkids_v, kids, (size_t)nkids * sizeof *nkids_v);
  nkids_v[pos] = ntop;
  TirStmt *nscope =
      scope_with(h, scope_blk, nkids_v, nkids, st->is_write ? pos + 1 : pos, stage, rbuf);
  return sch_replace_at(h, bp, scope_i, nscope);
}

SchRV sch_reindex(Schedule *s, SchRV block_rv, bool is_write, int index) {
  ReindexState st = {0};
  st.s = s;
  st.prim = "reindex";
  st.is_write = is_write;
  SchRV res = -1;
  if (!check_reindex(&st, block_rv, index)) goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  if (!compute_reindex_dims(h, &st)) {
    ir_module_free(nm);
    goto done;
  }
  TirBuffer *buf = st.buf;
  int ncov = st.ncov;
  TirExpr **shape = ir_alloc(h, (size_t)(ncov ? ncov : 1) * sizeof *shape);
  TirExpr **blk_idx = ir_alloc(h, (size_t)(ncov ? ncov : 1) * sizeof *blk_idx);
  for (int k = 0; k < ncov; k++) {
    const TirIterVar *it = &st.b->iters[st.used[k]];
    shape[k] = dom_end(h, &it->dom);
    blk_idx[k] = tir_var_ref(h, it->var);
  }
  char *name = xasprintf("%s_reindex", buf->name);
  TirBuffer *rbuf = tir_buffer(h, name, buf->dtype, shape, ncov, buf->scope);
  free(name);
  rbuf->span = buf->span;
  TirStmt *copy_realize;
  TirStmt *stage = build_reindex_stage(h, &st, rbuf, &copy_realize);
  /* The block now accesses <buf>_reindex[used iters]; its nest is rebuilt. */
  TirStmt *root = replace_reindex_scope(h, &st, rbuf, blk_idx, stage);
  sch_commit(s, nm, st.func, root);
  res = sch_block_rv(s, st.func, copy_realize);
  SchVal args[2] = {sch_val_rv(block_rv), sch_val_buffer_pair(is_write, index)};
  sch_record(s, st.prim, args, 2, &res, 1);
done:
  pv_free(&st.sibs);
  sch_path_free(&st.bp);
  return res;
}

/* ------------------------------------------------------ reindex_cache_read/write */

/* Where a cache stage of block goes: inside stmt loc (the scope BLOCK or a
 * For) at position pos of its body's statement list. */
typedef struct CacheLoc {
  TirStmt *loc;
  int loc_depth;  /* index of loc in the block's path */
  int pos;
} CacheLoc;

/* The statements of a body (a SEQ's items, or the body alone). */
static TirStmt **body_items(TirStmt *body, int *n) {
  if (body->kind == TIR_S_SEQ) {
    *n = body->seq.n;
    return body->seq.stmts;
  }
  *n = 1;
  return NULL;
}

/* The lowest statement list on the block's path (below the scope) whose
 * item holding the block does not also hold `other` (NULL: none, go to the
 * scope's start when before_all).  The stage goes right before that item
 * (after it when after is set). */
static CacheLoc cache_loc(const SchPath *bp, int scope_i, const TirStmt *other, bool after,
                          bool at_end) {
  CacheLoc l = {bp->s[scope_i], scope_i, 0};
  if (!other) {
    int n;
    body_items(bp->s[scope_i]->block.body, &n);
    l.pos = at_end ? n : 0;
    return l;
  }
  for (int d = scope_i; d < bp->n - 1; d++) {
    TirStmt *st = bp->s[d];
    TirStmt *body = st->kind == TIR_S_BLOCK ? st->block.body : st->kind == TIR_S_FOR ? st->loop.body : NULL;
    if (!body) continue;
    int n;
    TirStmt **items = body_items(body, &n);
    TirStmt *item = body->kind == TIR_S_SEQ ? bp->s[d + 2] : bp->s[d + 1];
    int ip = 0;
    for (int i = 0; items && i < n; i++)
      if (items[i] == item) ip = i;
    l.loc = st;
    l.loc_depth = d;
    l.pos = after ? ip + 1 : ip;
    if (!sch_contains(item, other)) return l;
    if (st->kind == TIR_S_FOR && body->kind != TIR_S_SEQ) continue;
  }
  return l;
}

/* A copy of loc (BLOCK or For) with stage inserted at pos of its body. */
static TirStmt *insert_stage(IrHeap *h, const TirStmt *loc, int pos, TirStmt *stage, TirBuffer *alloc) {
  if (loc->kind == TIR_S_BLOCK) {
    int n;
    TirStmt *body = loc->block.body;
    TirStmt **items = body_items(body, &n);
    return scope_with(h, loc, items ? items : &body, n, pos, stage, alloc);
  }
  int n;
  TirStmt *body = loc->loop.body;
  TirStmt **items = body_items(body, &n);
  if (!items) items = &body;
  TirStmt **out = ir_alloc(h, (size_t)(n + 1) * sizeof *out);
  for (int i = 0, j = 0; i <= n; i++) out[i] = i == pos ? stage : items[j++];
  return sch_for_with_body(h, loc, tir_seq(h, out, n + 1));
}

/* The scope BLOCK with alloc appended. */
static TirStmt *with_alloc(IrHeap *h, const TirStmt *scope_blk, TirBuffer *alloc) {
  TirBlock nb = scope_blk->block;
  nb.allocs = ir_alloc(h, (size_t)(nb.nallocs + 1) * sizeof *nb.allocs);
  if (nb.nallocs) memcpy(nb.allocs, scope_blk->block.allocs, (size_t)nb.nallocs * sizeof *nb.allocs);
  nb.allocs[nb.nallocs++] = alloc;
  TirStmt *st = tir_block(h, &nb);
  st->span = scope_blk->span;
  return st;
}

/* What reindex_cache's checks find and its rewrite uses. */
typedef struct RcState {
  Schedule *s;
  const char *prim;
  const char *func;
  const char *scope;      /* the storage scope of the cache */
  bool is_write;
  SchPath bp;             /* path to the block's realize */
  PtrVec sibs;            /* the blocks of its scope */
  TirStmt *realize;
  const TirBlock *b;
  const TirBufferRegion *reg; /* the block's region of buf */
  TirBuffer *buf;
  int scope_i;            /* path index of the scope block */
  const TirStmt *other;   /* the other end of the copy (may be NULL) */
  /* compute_cache_indices */
  int nd;                 /* rank of the cache */
  TirExpr **nidx;         /* the block's indices into it */
  TirExpr **shape;
  int *used;              /* the block iters both sides use */
  int nused;
  /* compute_copied_loops */
  CacheLoc l;             /* where the stage goes */
  IrPtrMap vmap;          /* copied loop var -> its copy */
  PtrVec lps;             /* the copied loops, outer to inner */
  PtrVec keep;            /* the predicate conjuncts guarding the copy */
} RcState;

/* The block, the scope, the buffer and the other end of the copy: the
 * writer of a read buffer, the first reader of a written one. */
static bool check_cache_target(RcState *st, SchRV block_rv, int index) {
  Schedule *s = st->s;
  const char *prim = st->prim;
  bool is_write = st->is_write;
  st->realize = sch_find_block(s, block_rv, prim, 0, &st->bp);
  if (!st->realize) return false;
  const TirBlock *b = st->b = tir_realize_block(st->realize);
  st->func = s->rvs[block_rv].func;
  if (!sch_valid_storage_scope(st->scope)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: the storage scope \"%s\" is invalid", prim,
             st->scope);
    return false;
  }
  st->reg = nth_region(s, prim, 1, b, is_write, index);
  if (!st->reg) return false;
  TirBuffer *buf = st->buf = st->reg->buffer;
  st->scope_i = sch_block_scope_index(s, prim, &st->bp);
  if (st->scope_i < 0) return false;
  sch_scope_blocks(st->bp.s[st->scope_i], &st->sibs);
  if (!sch_check_stage_pipeline(s, prim, 0, &st->sibs, b)) return false;
  const PtrVec *sibs = &st->sibs;
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *o = tir_realize_block(sibs->items[i]);
    if (sibs->items[i] == st->realize) continue;
    if (!is_write && sch_block_writes(o, buf)) st->other = sibs->items[i];
    if (is_write && sch_block_writes(o, buf)) {
      sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
               "%s: buffer '%s' is written by more than one block ('%s' and '%s'); it may "
               "be written by a single block only", prim, buf->name, b->name, o->name);
      return false;
    }
    if (is_write && !st->other && sch_block_reads(o, buf)) st->other = sibs->items[i];
  }
  if (!is_write && sch_block_writes(b, buf)) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1, "%s: block '%s' both reads and writes buffer '%s'", prim,
             b->name, buf->name);
    return false;
  }
  return true;
}

/* The access: no in-place update, a single point, block iters to index the
 * cache by, a leaf block, indices inside the buffer's shape. */
static bool check_cache_access(RcState *st) {
  Schedule *s = st->s;
  const char *prim = st->prim;
  const TirBlock *b = st->b;
  const TirBufferRegion *reg = st->reg;
  TirBuffer *buf = st->buf;
  if (st->is_write && !sch_check_reduce_below_scope(s, prim, &st->bp, st->scope_i, "cache"))
    return false;
  if (st->is_write && !b->init && sch_block_reads(b, buf)) {
    sch_fail(s, SCH_ERR_UNSUPPORTED, 1,
             "%s: block '%s' updates buffer '%s' in place (reads it without an init); the "
             "cache would not hold its old contents",
             prim, b->name, buf->name);
    return false;
  }
  for (int d = 0; d < reg->n; d++) {
    if (!tir_is_one(reg->ranges[d].extent)) {
      sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
               "%s: the buffer region of '%s' accessed in block '%s' is not a single point", prim,
               buf->name, b->name);
      return false;
    }
  }
  if (!b->niters) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0, "%s: block '%s' has no block iters to index the cache by",
             prim, b->name);
    return false;
  }
  /* (as reindex: the accesses are redirected in this block's body only) */
  Collect c = {buf, NULL, 0, NULL, NULL, false};
  TirVisitor v = {0};
  v.ctx = &c;
  v.pre_stmt = collect_pre_stmt;
  v.pre_expr = collect_pre_expr;
  tir_visit_stmt(&v, b->body);
  if (b->init) tir_visit_stmt(&v, b->init);
  if (c.nested) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0, "%s: block '%s' is not a leaf block (it contains block '%s')",
             prim, b->name, c.nested->name);
    return false;
  }
  TirExpr *pidx[16];
  for (int d = 0; d < reg->n && d < 16; d++) pidx[d] = reg->ranges[d].min;
  if (reg->n > 16 || !indices_in_bounds(b, buf, pidx, reg->n)) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 1,
             "%s: the indices of '%s' in block '%s' may leave its shape over the block's "
             "iter domains (a guarded access); the copy stage would access it out of bounds",
             prim, buf->name, b->name);
    return false;
  }
  return true;
}

/* The index map applied to the block iters: the cache's indices and shape,
 * and the block iters used on both sides of the copy (false after an
 * error). */
static bool compute_cache_indices(IrHeap *h, RcState *st, const char *index_map) {
  Schedule *s = st->s;
  const char *prim = st->prim;
  const TirBlock *b = st->b;
  const TirBufferRegion *reg = st->reg;
  SchIndexMap map;
  if (sch_index_map_parse(s, h, index_map, b->iters[0].var->dtype, prim, 3, &map)) return false;
  if (map.nsrc != b->niters || map.nseps) {
    if (map.nseps)
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3, "%s: the index map may not have axis separators", prim);
    else
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
               "%s: the index map takes %d indices but block '%s' has %d block iters", prim,
               map.nsrc, b->name, b->niters);
    return false;
  }
  TirExpr **iv = ir_alloc(h, (size_t)b->niters * sizeof *iv);
  TirExpr **ext = ir_alloc(h, (size_t)b->niters * sizeof *ext);
  for (int i = 0; i < b->niters; i++) {
    iv[i] = tir_var_ref(h, b->iters[i].var);
    ext[i] = dom_end(h, &b->iters[i].dom); /* the box from 0: an iter may start past 0 (loop_partition) */
  }
  int nd = st->nd = map.ndst;
  TirExpr **nidx = st->nidx = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *nidx);
  st->shape = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *st->shape);
  sch_index_map_apply(h, &map, iv, nidx);
  ArithCtx *a = arith_new(h);
  for (int i = 0; i < b->niters; i++)
    arith_bind_range(a, b->iters[i].var, b->iters[i].dom.min, b->iters[i].dom.extent);
  for (int j = 0; j < nd; j++) nidx[j] = arith_simplify(a, nidx[j]);
  arith_free(a);
  const char *why = NULL;
  if (!sch_index_map_image(h, &map, ext, st->shape, &why)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3, "%s: %s", prim, why);
    return false;
  }
  /* The same block iters on both sides of the copy. */
  st->used = ir_alloc(h, (size_t)b->niters * sizeof *st->used);
  for (int i = 0; i < b->niters; i++) {
    const TirVar *var = b->iters[i].var;
    bool in_new = false, in_old = false;
    for (int j = 0; j < nd; j++) in_new |= tir_expr_uses_var(nidx[j], var);
    for (int d = 0; d < reg->n; d++) in_old |= tir_expr_uses_var(reg->ranges[d].min, var);
    if (in_new != in_old) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
               "%s: block iter '%s' of block '%s' appears in the %s indices of '%s' but not "
               "in the %s ones", prim, var->name, b->name, in_old ? "old" : "new",
               st->buf->name, in_old ? "new" : "old");
      return false;
    }
    if (in_new) st->used[st->nused++] = i;
  }
  return true;
}

/* Where the stage goes, and the loops between there and the block that the
 * used iters' bindings use (copied, renamed in st->vmap). */
static void compute_copied_loops(IrHeap *h, RcState *st) {
  const SchPath *bp = &st->bp;
  const TirStmt *realize = st->realize;
  st->l = cache_loc(bp, st->scope_i, st->other, st->is_write, st->is_write);
  int from = st->l.loc_depth + 1;
  ir_ptrmap_init(&st->vmap);
  /* The predicate's conjuncts that bound those loops (a split whose factors
   * do not divide the iter's extent) guard the copy too: without them its
   * bindings would leave the iter domains.  Loops they also use are copied. */
  PtrVec conj = {0};
  if (!sch_is_trivial_pred(realize->realize.pred)) {
    PtrVec todo = {0};
    pv_push(&todo, realize->realize.pred);
    while (todo.len) {
      TirExpr *c = todo.items[--todo.len];
      if (c->kind == TIR_AND) pv_push(&todo, c->bin.a), pv_push(&todo, c->bin.b);
      else pv_push(&conj, c);
    }
    pv_free(&todo);
  }
  bool *copied = ir_alloc(h, (size_t)bp->n * sizeof *copied);
  for (int d = from; d < bp->n - 1; d++) {
    const TirStmt *lp = bp->s[d];
    copied[d] = false;
    for (int k = 0; k < st->nused && lp->kind == TIR_S_FOR && !copied[d]; k++)
      copied[d] = tir_expr_uses_var(realize->realize.values[st->used[k]], lp->loop.var);
  }
  for (int i = 0; i < conj.len; i++) {
    /* about a loop a used iter's binding uses (copied, or around the copy) */
    bool touches = false;
    for (int d = 0; d < bp->n - 1 && !touches; d++) {
      if (bp->s[d]->kind != TIR_S_FOR || !tir_expr_uses_var(conj.items[i], bp->s[d]->loop.var)) continue;
      for (int k = 0; k < st->nused && !touches; k++)
        touches = tir_expr_uses_var(realize->realize.values[st->used[k]], bp->s[d]->loop.var);
    }
    if (!touches) continue;
    pv_push(&st->keep, conj.items[i]);
    for (int d = from; d < bp->n - 1; d++)
      if (bp->s[d]->kind == TIR_S_FOR && tir_expr_uses_var(conj.items[i], bp->s[d]->loop.var)) copied[d] = true;
  }
  pv_free(&conj);
  for (int d = from; d < bp->n - 1; d++) {
    const TirStmt *lp = bp->s[d];
    if (lp->kind != TIR_S_FOR || !copied[d]) continue;
    pv_push(&st->lps, (void *)lp);
    TirVar *nv = tir_var(h, lp->loop.var->name, lp->loop.var->dtype);
    ir_ptrmap_put(&st->vmap, lp->loop.var, tir_var_ref(h, nv));
  }
}

/* The cache buffer (*cbuf_out) and the copy stage between it and buf over
 * the copied loops, guarded by the kept conjuncts.  *copy_realize gets its
 * realize; returns the nest. */
static TirStmt *build_cache_stage(IrHeap *h, RcState *st, TirBuffer **cbuf_out,
                                  TirStmt **copy_realize) {
  const TirBlock *b = st->b;
  const TirBufferRegion *reg = st->reg;
  int nused = st->nused, nd = st->nd;
  bool is_write = st->is_write;
  IrPtrMap *vmap = &st->vmap;
  TirBlock cb = {0};
  cb.iters = ir_alloc(h, (size_t)(nused ? nused : 1) * sizeof *cb.iters);
  TirExpr **vals = ir_alloc(h, (size_t)(nused ? nused : 1) * sizeof *vals);
  for (int k = 0; k < nused; k++) {
    const TirIterVar *it = &b->iters[st->used[k]];
    vals[k] = tir_substitute_expr(h, st->realize->realize.values[st->used[k]], vmap);
    TirIterVar niv = {tir_var(h, it->var->name, it->var->dtype), it->dom, TIR_ITER_SPATIAL};
    cb.iters[k] = niv;
  }
  cb.niters = nused;
  for (int k = 0; k < nused; k++)
    ir_ptrmap_put(vmap, b->iters[st->used[k]].var, tir_var_ref(h, cb.iters[k].var));
  TirExpr **oidx_c = ir_alloc(h, (size_t)(reg->n ? reg->n : 1) * sizeof *oidx_c);
  TirExpr **nidx_c = ir_alloc(h, (size_t)(nd ? nd : 1) * sizeof *nidx_c);
  for (int d = 0; d < reg->n; d++) oidx_c[d] = tir_substitute_expr(h, reg->ranges[d].min, vmap);
  for (int j = 0; j < nd; j++) nidx_c[j] = tir_substitute_expr(h, st->nidx[j], vmap);
  char *name = xasprintf("%s_%s", st->buf->name, st->scope);
  TirBuffer *cbuf = *cbuf_out = tir_buffer(h, name, st->buf->dtype, st->shape, nd, st->scope);
  cbuf->span = st->buf->span;
  cb.name = ir_strdup(h, name);
  free(name);
  TirBuffer *src = is_write ? cbuf : st->buf, *dst = is_write ? st->buf : cbuf;
  TirExpr **sidx = is_write ? nidx_c : oidx_c, **didx = is_write ? oidx_c : nidx_c;
  int sn = is_write ? nd : reg->n, dn = is_write ? reg->n : nd;
  cb.body = tir_store(h, dst, tir_load(h, src, sidx, sn), didx, dn);
  cb.reads = ir_alloc(h, sizeof *cb.reads);
  cb.reads[0] = point_region(h, src, sidx, sn);
  cb.nreads = 1;
  cb.writes = ir_alloc(h, sizeof *cb.writes);
  cb.writes[0] = point_region(h, dst, didx, dn);
  cb.nwrites = 1;
  TirExpr *cpred = NULL;
  for (int i = 0; i < st->keep.len; i++) {
    TirExpr *c = tir_substitute_expr(h, st->keep.items[i], vmap);
    cpred = cpred ? tir_binary(h, TIR_AND, cpred, c) : c;
  }
  *copy_realize = tir_block_realize(h, vals, nused, cpred ? cpred : tir_bool(h, true), tir_block(h, &cb));
  TirStmt *stage = *copy_realize;
  for (int k = st->lps.len - 1; k >= 0; k--) {
    const TirStmt *lp = st->lps.items[k];
    TirExpr *nv = ir_ptrmap_get(vmap, lp->loop.var);
    /* (a copied loop's range may use an outer copied loop, e.g. after compute_at) */
    stage = tir_for(h, nv->var, tir_substitute_expr(h, lp->loop.min, vmap),
                    tir_substitute_expr(h, lp->loop.extent, vmap), TIR_FOR_SERIAL, NULL, NULL, stage);
  }
  return stage;
}

/* The new root: the block accessing the cache at the mapped indices, the
 * stage inserted at its location, the scope allocating the cache. */
static TirStmt *replace_cache_scope(IrHeap *h, const RcState *st, TirBuffer *cbuf, TirStmt *stage) {
  const SchPath *bp = &st->bp;
  const CacheLoc *l = &st->l;
  int scope_i = st->scope_i;
  /* The block accesses the cache at the mapped indices. */
  TirBlock nbk = redirect_block(h, st->b, st->buf, cbuf, st->nidx, st->nd);
  TirStmt *nreal = sch_realize_with(h, st->realize, &nbk, NULL, NULL);
  /* Rebuild from the block up to loc, insert there, then up to the scope. */
  SchPath sub = {bp->s + l->loc_depth, bp->n - l->loc_depth, 0};
  TirStmt *nloc = sch_replace_at(h, &sub, sub.n - 1, nreal);
  nloc = insert_stage(h, nloc, l->pos, stage, cbuf);
  if (l->loc_depth == scope_i) return sch_replace_at(h, bp, scope_i, nloc);
  SchPath up = {bp->s + scope_i, l->loc_depth - scope_i + 1, 0};
  TirStmt *nscope = sch_replace_at(h, &up, up.n - 1, nloc);
  return sch_replace_at(h, bp, scope_i, with_alloc(h, nscope, cbuf));
}

static SchRV reindex_cache(Schedule *s, SchRV block_rv, int index, const char *scope,
                           const char *index_map, bool is_write) {
  RcState st = {0};
  st.s = s;
  st.prim = is_write ? "reindex_cache_write" : "reindex_cache_read";
  st.scope = scope;
  st.is_write = is_write;
  SchRV res = -1;
  if (!check_cache_target(&st, block_rv, index) || !check_cache_access(&st)) goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  if (!compute_cache_indices(h, &st, index_map)) {
    ir_module_free(nm);
    goto done;
  }
  compute_copied_loops(h, &st);
  TirBuffer *cbuf;
  TirStmt *copy_realize;
  TirStmt *stage = build_cache_stage(h, &st, &cbuf, &copy_realize);
  TirStmt *root = replace_cache_scope(h, &st, cbuf, stage);
  sch_commit(s, nm, st.func, root);
  res = sch_block_rv(s, st.func, copy_realize);
  SchVal args[4] = {sch_val_rv(block_rv), sch_val_int(index), sch_val_str(scope), sch_val_code(index_map)};
  sch_record(s, st.prim, args, 4, &res, 1);
done:
  ir_ptrmap_free(&st.vmap);
  pv_free(&st.lps);
  pv_free(&st.keep);
  pv_free(&st.sibs);
  sch_path_free(&st.bp);
  return res;
}

SchRV sch_reindex_cache_read(Schedule *s, SchRV block, int read_buffer_index,
                             const char *storage_scope, const char *index_map) {
  return reindex_cache(s, block, read_buffer_index, storage_scope, index_map, false);
}

SchRV sch_reindex_cache_write(Schedule *s, SchRV block, int write_buffer_index,
                              const char *storage_scope, const char *index_map) {
  return reindex_cache(s, block, write_buffer_index, storage_scope, index_map, true);
}

/* ------------------------------------------------------------ method table */

static bool buffer_arg(const SchVal *v, bool *is_write, int *index) {
  if (v->kind != SV_LIST || v->n != 2 || v->items[0].kind != SV_STR) return false;
  *is_write = !strcmp(v->items[0].s, "write");
  *index = (int)v->items[1].i;
  return true;
}

static int ap_reindex(Schedule *s, SchVal *a, SchVal *r) {
  bool w;
  int idx;
  if (!buffer_arg(&a[1], &w, &idx)) return -1;
  SchRV b = sch_reindex(s, (SchRV)a[0].i, w, idx);
  if (b < 0) return -1;
  *r = sch_val_rv(b);
  return 0;
}

static int ap_reindex_cache_read(Schedule *s, SchVal *a, SchVal *r) {
  SchRV b = sch_reindex_cache_read(s, (SchRV)a[0].i, (int)a[1].i, a[2].s, a[3].s);
  if (b < 0) return -1;
  *r = sch_val_rv(b);
  return 0;
}

static int ap_reindex_cache_write(Schedule *s, SchVal *a, SchVal *r) {
  SchRV b = sch_reindex_cache_write(s, (SchRV)a[0].i, (int)a[1].i, a[2].s, a[3].s);
  if (b < 0) return -1;
  *r = sch_val_rv(b);
  return 0;
}

static int ap_reorder_block_iter_var(Schedule *s, SchVal *a, SchVal *r) {
  (void)r;
  int n = a[1].n;
  int64_t *order = xmalloc((size_t)(n ? n : 1) * sizeof *order);
  for (int i = 0; i < n; i++) order[i] = a[1].items[i].i;
  int rc = sch_reorder_block_iter_var(s, (SchRV)a[0].i, order, n);
  free(order);
  return rc;
}

static int ap_unsafe_set_dtype(Schedule *s, SchVal *a, SchVal *r) {
  (void)r;
  return sch_unsafe_set_dtype(s, (SchRV)a[0].i, (int)a[1].i, a[2].s);
}

static int ap_annotate_buffer_access(Schedule *s, SchVal *a, SchVal *r) {
  (void)r;
  return sch_annotate_buffer_access(s, (SchRV)a[0].i, (int)a[1].i, a[2].s, a[3].s);
}

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_reindex[] = {
    {"reindex", {P("block", SP_BLOCK, NULL), P("buffer", SP_BUFFER, NULL)}, 2, SO_ONE, true,
     ap_reindex},
    {"reindex_cache_read",
     {P("block", SP_BLOCK, NULL), P("read_buffer_index", SP_READ_BUFFER, NULL),
      P("storage_scope", SP_STR, NULL), P("index_map", SP_INDEX_MAP, NULL)},
     4, SO_ONE, true, ap_reindex_cache_read},
    {"reindex_cache_write",
     {P("block", SP_BLOCK, NULL), P("write_buffer_index", SP_WRITE_BUFFER, NULL),
      P("storage_scope", SP_STR, NULL), P("index_map", SP_INDEX_MAP, NULL)},
     4, SO_ONE, true, ap_reindex_cache_write},
    {"reorder_block_iter_var", {P("block", SP_BLOCK, NULL), P("new_order", SP_INTS, NULL)}, 2,
     SO_NONE, true, ap_reorder_block_iter_var},
    {"unsafe_set_dtype",
     {P("block", SP_BLOCK, NULL), P("buffer_index", SP_WRITE_BUFFER, NULL), P("dtype", SP_STR, NULL)},
     3, SO_NONE, true, ap_unsafe_set_dtype},
    {"annotate_buffer_access",
     {P("block", SP_BLOCK, NULL), P("buffer_index", SP_INT, NULL), P("buf_type", SP_STR, NULL),
      P("gen_new_ranges", SP_INDEX_MAP, NULL)},
     4, SO_NONE, true, ap_annotate_buffer_access},
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
