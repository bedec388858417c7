/* compact_buffer_allocation.c - CompactBufferAllocation.
 *
 * Each buffer allocated by a block shrinks to the region its accesses inside
 * that block can touch: per dimension, the symbolic bounds of every index
 * relaxed over the loops inside the block (outer loop vars stay symbolic,
 * but a loop of extent 1 is its min, as TVM's analyzer binds such a range),
 * whose union must have a constant extent no larger than the old one.  The
 * accesses then subtract the region's start.  When that cannot be shown the
 * dimension keeps its shape (never wrong, only less compact).  Thread-bound
 * loops above the owner are relaxed too where the buffer's storage scope is
 * shared by those threads (a shared tile allocated inside threadIdx loops
 * holds the whole block's region: TVM's NeedRelaxThread).  storage_align
 * ("buffer_dim_align" on a writer block) becomes the buffer's strides. */
#include "ir/transform/xform_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 16

/* The region accessed in one buffer. */
typedef struct Compact {
  TirBuffer *buf;            /* original buffer */
  TirBuffer *nbuf;           /* compacted buffer (or NULL when unchanged) */
  const TirStmt *owner;      /* the block that allocates it */
  const TirStmt **threads;   /* thread-bound loops above the owner that it is relaxed over */
  int nthreads;
  bool excluded;             /* opaque use, match source, strides...: leave alone */
  bool seen;                 /* some access recorded */
  bool ok[MAX_DIMS];         /* bounds known so far in this dimension */
  TirExpr *lo[MAX_DIMS];     /* inclusive lower bound (free of inner loop vars) */
  TirExpr *hi[MAX_DIMS];     /* inclusive upper bound */
  int64_t align_factor[MAX_DIMS]; /* storage_align (buffer_dim_align): stride[d] % factor */
  int64_t align_offset[MAX_DIMS]; /* == offset; factor 0 = no requirement */
} Compact;

typedef struct CompactCtx {
  IrHeap *h;
  ArithCtx *a;               /* analyzer of the current owner walk */
  IrPtrMap by_buf;           /* old TirBuffer* and new TirBuffer* -> Compact* */
  IrPtrMap by_data;          /* data TirVar* -> Compact* */
  PtrVec all;                /* Compact* */
  PtrVec owners;             /* BLOCK stmts that allocate */
  const TirStmt *cur;        /* the owner being walked */
  PtrVec thread_loops;       /* collection: the thread-bound loops around the current statement */
  PtrVec unit_loops;         /* every loop of extent 1 in the function */
  IrPtrMap inner;            /* vars defined inside the current owner */
} CompactCtx;

/* Whether e uses a var defined inside the owner (then it is no region bound). */
static bool uses_inner(CompactCtx *c, const TirExpr *e) {
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  bool r = false;
  for (int i = 0; i < fv.len && !r; i++) r = ir_ptrmap_has(&c->inner, fv.items[i]);
  pv_free(&fv);
  return r;
}

/* Whether e still uses a relaxed thread loop's var (its bounds are unknown). */
static bool uses_thread(const Compact *k, const TirExpr *e) {
  if (!k->nthreads) return false;
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  bool r = false;
  for (int i = 0; i < fv.len && !r; i++)
    for (int t = 0; t < k->nthreads && !r; t++) r = fv.items[i] == k->threads[t]->loop.var;
  pv_free(&fv);
  return r;
}

/* ------------------------------------------------------------ collection */

/* storage_align's "buffer_dim_align" annotation of a writer block: a list of
 * [write index, axis, factor, offset] (validated by the primitive). */
static void collect_aligns(CompactCtx *c, const TirBlock *blk) {
  const IrValue *al = irv_dict_get(blk->annotations, "buffer_dim_align");
  if (!al || al->kind != IRV_ARRAY) return;
  for (int i = 0; i < al->n; i++) {
    const IrValue *q = al->items[i];
    if (q->kind != IRV_ARRAY || q->n != 4) continue;
    bool ints = true;
    for (int j = 0; j < 4; j++) ints &= q->items[j]->kind == IRV_INT;
    if (!ints || q->items[0]->i < 0 || q->items[0]->i >= blk->nwrites) continue;
    Compact *k = ir_ptrmap_get(&c->by_buf, blk->writes[q->items[0]->i].buffer);
    int64_t axis = q->items[1]->i;
    if (!k || axis < 0 || axis >= k->buf->ndim || axis >= MAX_DIMS || q->items[2]->i <= 0) continue;
    k->align_factor[axis] = q->items[2]->i;
    k->align_offset[axis] = q->items[3]->i;
  }
}

/* Strides for shape honouring k's alignments (row-major otherwise); false
 * when there are none or a dimension is not constant. */
static bool aligned_strides(CompactCtx *c, const Compact *k, TirExpr *const *shape, TirExpr **strides) {
  int n = k->buf->ndim;
  bool any = false;
  for (int d = 0; d < n; d++) any |= k->align_factor[d] > 0;
  if (!any) return false;
  int64_t stride = 1;
  for (int d = n - 1; d >= 0; d--) {
    int64_t f = k->align_factor[d], o = k->align_offset[d], e;
    if (f > 0) { /* the smallest stride >= the dense one with stride % f == o */
      int64_t r = ((stride - o) % f + f) % f;
      if (r) stride += f - r;
    }
    strides[d] = xf_int(c->h, shape[d]->dtype, stride);
    if (!tir_is_const_int(shape[d], &e)) return false;
    stride *= e;
  }
  return true;
}

/* The loops of c->thread_loops that buffer b's scope is shared across. */
static void relaxed_threads(CompactCtx *c, Compact *k) {
  for (int i = 0; i < c->thread_loops.len; i++) {
    const TirStmt *l = c->thread_loops.items[i];
    if (!tir_storage_relaxed_under_thread(k->buf->scope, l->loop.thread_tag)) continue;
    if (!k->threads) k->threads = xcalloc((size_t)c->thread_loops.len, sizeof *k->threads);
    k->threads[k->nthreads++] = l;
  }
}

/* A loop of extent 1 runs once, at its min: its var is that constant (as
 * TVM's analyzer binds a range of extent 1), so a tile of a unit outer loop
 * (i_0 * 1056 + i_1 * 66 + ... beside i_1 * 66 + ...) still compacts. */
static bool unit_loop(const TirStmt *s) {
  int64_t e;
  return s->kind == TIR_S_FOR && s->loop.kind != TIR_FOR_THREAD_BINDING && tir_is_const_int(s->loop.extent, &e) &&
         e == 1;
}

/* Binds every unit loop's var to its min in a (a var is only seen inside
 * its loop, where it has that value). */
static void bind_unit_loops(const CompactCtx *c, ArithCtx *a) {
  for (int i = 0; i < c->unit_loops.len; i++) {
    const TirStmt *l = c->unit_loops.items[i];
    arith_bind_value(a, l->loop.var, l->loop.min);
  }
}

static void collect_post_stmt(TirVisitor *v, const TirStmt *s) {
  CompactCtx *c = v->ctx;
  if (s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING) c->thread_loops.len--;
}

static bool collect_pre_stmt(TirVisitor *v, const TirStmt *s) {
  CompactCtx *c = v->ctx;
  if (s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING) pv_push(&c->thread_loops, (void *)s);
  if (unit_loop(s)) pv_push(&c->unit_loops, (void *)s);
  if (s->kind != TIR_S_BLOCK) return true;
  if (s->block.nallocs) pv_push(&c->owners, (void *)s);
  for (int i = 0; i < s->block.nallocs; i++) {
    TirBuffer *b = s->block.allocs[i];
    Compact *k = xcalloc(1, sizeof *k);
    k->buf = b;
    k->owner = s;
    k->excluded = b->ndim > MAX_DIMS || b->nstrides || b->elem_offset || b->naxis_separators;
    for (int d = 0; d < b->ndim && d < MAX_DIMS; d++) k->ok[d] = true;
    relaxed_threads(c, k);
    pv_push(&c->all, k);
    ir_ptrmap_put(&c->by_buf, b, k);
    ir_ptrmap_put(&c->by_data, b->data, k);
  }
  for (int i = 0; i < s->block.nmatches; i++) {
    Compact *k = ir_ptrmap_get(&c->by_buf, s->block.matches[i].source.buffer);
    if (k) k->excluded = true;
  }
  collect_aligns(c, &s->block);
  return true;
}

static bool collect_pre_expr(TirVisitor *v, const TirExpr *e) {
  CompactCtx *c = v->ctx;
  if (e->kind == TIR_VAR) {
    Compact *k = ir_ptrmap_get(&c->by_data, e->var);
    if (k) k->excluded = true; /* the data pointer escapes */
  }
  return true;
}

/* Adds one access's bounds to k. */
static void record(CompactCtx *c, Compact *k, TirExpr *const *idx, int n) {
  /* a nested owner's buffers are measured in its own walk, where the loops
   * between the two owners are outer (symbolic), not relaxed */
  if (k->excluded || k->owner != c->cur) return;
  if (n != k->buf->ndim) {
    k->excluded = true;
    return;
  }
  if (k->nthreads) arith_push(c->a);
  for (int i = 0; i < k->nthreads; i++)
    arith_bind_range(c->a, k->threads[i]->loop.var, k->threads[i]->loop.min, k->threads[i]->loop.extent);
  for (int d = 0; d < n; d++) {
    if (!k->ok[d]) continue;
    TirExpr *lo = NULL, *hi = NULL;
    if (idx[d]->dtype.lanes != 1 || !arith_symbolic_bounds(c->a, idx[d], &lo, &hi) ||
        uses_inner(c, lo) || uses_inner(c, hi) || uses_thread(k, lo) || uses_thread(k, hi)) {
      k->ok[d] = false;
      continue;
    }
    if (!k->seen) {
      k->lo[d] = lo;
      k->hi[d] = hi;
      continue;
    }
    /* union: keep the smaller lo / larger hi when their difference is constant */
    int64_t dl, dh;
    TirExpr *el = xf_simplify(c->a, tir_binary(c->h, TIR_SUB, lo, xf_cast_to(c->h, lo->dtype, k->lo[d])));
    TirExpr *eh = xf_simplify(c->a, tir_binary(c->h, TIR_SUB, hi, xf_cast_to(c->h, hi->dtype, k->hi[d])));
    if (!tir_is_const_int(el, &dl) || !tir_is_const_int(eh, &dh)) {
      k->ok[d] = false;
      continue;
    }
    if (dl < 0) k->lo[d] = lo;
    if (dh > 0) k->hi[d] = hi;
  }
  if (k->nthreads) arith_pop(c->a);
  k->seen = true;
}

/* The walk of one owner's body: binds the loops met inside. */
static bool owner_pre_stmt(TirVisitor *v, const TirStmt *s) {
  CompactCtx *c = v->ctx;
  switch (s->kind) {
    case TIR_S_FOR:
      ir_ptrmap_put(&c->inner, s->loop.var, NULL);
      arith_push(c->a);
      arith_bind_range(c->a, s->loop.var, s->loop.min, s->loop.extent);
      break;
    case TIR_S_LET:
      ir_ptrmap_put(&c->inner, s->let.var, NULL);
      arith_push(c->a);
      if (s->let.value->dtype.lanes == 1) arith_bind_value(c->a, s->let.var, s->let.value);
      break;
    case TIR_S_STORE: {
      Compact *k = ir_ptrmap_get(&c->by_buf, s->store.buf);
      if (k) record(c, k, s->store.idx, s->store.n);
      break;
    }
    default: break;
  }
  return true;
}

static void owner_post_stmt(TirVisitor *v, const TirStmt *s) {
  CompactCtx *c = v->ctx;
  if (s->kind == TIR_S_FOR || s->kind == TIR_S_LET) arith_pop(c->a);
}

static bool owner_pre_expr(TirVisitor *v, const TirExpr *e) {
  CompactCtx *c = v->ctx;
  if (e->kind == TIR_LOAD) {
    Compact *k = ir_ptrmap_get(&c->by_buf, e->load.buf);
    if (k) record(c, k, e->load.idx, e->load.n);
  }
  return true;
}

/* Decides the new shape of k's buffer. */
static void decide(CompactCtx *c, Compact *k) {
  const TirBuffer *b = k->buf;
  if (k->excluded || !k->seen || b->ndim == 0) return;
  TirExpr *shape[MAX_DIMS];
  bool changed = false;
  for (int d = 0; d < b->ndim; d++) {
    shape[d] = b->shape[d];
    int64_t e, old, lo = 1;
    if (!k->ok[d]) goto keep;
    TirExpr *ext = tir_binary(c->h, TIR_ADD,
                              tir_binary(c->h, TIR_SUB, k->hi[d], xf_cast_to(c->h, k->hi[d]->dtype, k->lo[d])),
                              xf_int(c->h, k->hi[d]->dtype, 1));
    ext = xf_simplify(c->a, ext);
    if (!tir_is_const_int(ext, &e) || e <= 0) goto keep;
    if (tir_is_const_int(b->shape[d], &old) && e > old) goto keep;
    if (tir_is_const_int(b->shape[d], &old) && e == old && tir_is_const_int(k->lo[d], &lo) && lo == 0)
      goto keep;
    shape[d] = xf_int(c->h, b->shape[d]->dtype, e);
    k->lo[d] = xf_cast_to(c->h, b->shape[d]->dtype, k->lo[d]);
    changed = true;
    continue;
  keep:
    k->ok[d] = false;
  }
  TirExpr *strides[MAX_DIMS];
  bool aligned = aligned_strides(c, k, shape, strides);
  if (!changed && !aligned) return;
  TirBuffer *nb = tir_buffer_copy(c->h, b);
  nb->shape = ir_memdup(c->h, shape, (size_t)b->ndim * sizeof *shape);
  if (aligned) {
    nb->strides = ir_memdup(c->h, strides, (size_t)b->ndim * sizeof *strides);
    nb->nstrides = b->ndim;
  }
  k->nbuf = nb;
  ir_ptrmap_put(&c->by_buf, nb, k);
}

/* ------------------------------------------------------------- rewrite */

static TirBuffer *rw_buffer(TirMutator *m, TirBuffer *b) {
  CompactCtx *c = m->ctx;
  Compact *k = ir_ptrmap_get(&c->by_buf, b);
  return k && k->nbuf && k->buf == b ? k->nbuf : NULL;
}

/* Indices minus the region start (NULL when the buffer is unchanged). */
static TirExpr **shift(TirMutator *m, TirBuffer *nb, TirExpr **idx, int n) {
  CompactCtx *c = m->ctx;
  Compact *k = ir_ptrmap_get(&c->by_buf, nb);
  if (!k || k->nbuf != nb) return NULL;
  TirExpr **out = ir_alloc(m->heap, (size_t)(n ? n : 1) * sizeof *out);
  for (int d = 0; d < n; d++) {
    out[d] = idx[d];
    if (d < MAX_DIMS && k->ok[d])
      out[d] = xf_simplify(c->a, xf_sub(m->heap, idx[d], xf_cast_to(m->heap, idx[d]->dtype, k->lo[d])));
  }
  return out;
}

static TirExpr *rw_load(TirMutator *m, TirExpr *e) {
  TirExpr *r = tir_mutate_expr_children(m, e);
  TirExpr **idx = shift(m, r->load.buf, r->load.idx, r->load.n);
  if (!idx) return r;
  TirExpr *out = tir_load(m->heap, r->load.buf, idx, r->load.n);
  out->span = e->span;
  return out;
}

static TirStmt *rw_store(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s);
  TirExpr **idx = shift(m, r->store.buf, r->store.idx, r->store.n);
  if (!idx) return r;
  TirStmt *out = tir_store(m->heap, r->store.buf, r->store.value, idx, r->store.n);
  out->span = s->span;
  return out;
}

static TirBufferRegion *shift_regions(TirMutator *m, TirBufferRegion *rs, int n, bool *changed) {
  CompactCtx *c = m->ctx;
  TirBufferRegion *out = rs;
  for (int i = 0; i < n; i++) {
    Compact *k = ir_ptrmap_get(&c->by_buf, rs[i].buffer);
    if (!k || k->nbuf != rs[i].buffer) continue;
    if (out == rs) {
      out = ir_memdup(m->heap, rs, (size_t)n * sizeof *rs);
      *changed = true;
    }
    TirRange *rg = ir_memdup(m->heap, rs[i].ranges, (size_t)rs[i].n * sizeof *rg);
    for (int d = 0; d < rs[i].n && d < MAX_DIMS; d++)
      if (k->ok[d])
        rg[d].min = xf_simplify(c->a, xf_sub(m->heap, rg[d].min, xf_cast_to(m->heap, rg[d].min->dtype, k->lo[d])));
    out[i].ranges = rg;
  }
  return out;
}

static TirStmt *rw_block(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s);
  bool changed = false;
  TirBlock nb = r->block;
  nb.reads = shift_regions(m, nb.reads, nb.nreads, &changed);
  nb.writes = shift_regions(m, nb.writes, nb.nwrites, &changed);
  if (!changed) return r;
  TirStmt *out = tir_block(m->heap, &nb);
  out->span = r->span;
  return out;
}

/* requires: convert-blocks-to-opaque ran (no block iter vars), allocations
 * at their LCA; ensures: allocated buffers have the (constant) shape of the
 * region accessed, accesses shifted; preserves: params' buffers, strided or
 * opaquely used buffers. */
TirFunc *tir_compact_buffer_allocation(TirPassCtx *ctx, TirFunc *f) {
  CompactCtx c;
  memset(&c, 0, sizeof c);
  c.h = ctx->heap;
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_stmt = collect_pre_stmt;
  v.post_stmt = collect_post_stmt;
  v.pre_expr = collect_pre_expr;
  v.ctx = &c;
  tir_visit_stmt(&v, f->body);
  TirStmt *body = f->body;
  bool any = false;
  for (int i = 0; i < c.owners.len; i++) {
    const TirStmt *owner = c.owners.items[i];
    c.a = arith_new(ctx->heap);
    memset(&v, 0, sizeof v);
    v.pre_stmt = owner_pre_stmt;
    v.post_stmt = owner_post_stmt;
    v.pre_expr = owner_pre_expr;
    v.ctx = &c;
    ir_ptrmap_clear(&c.inner);
    c.cur = owner;
    bind_unit_loops(&c, c.a);
    tir_visit_stmt(&v, owner->block.body);
    if (owner->block.init) tir_visit_stmt(&v, owner->block.init);
    for (int j = 0; j < owner->block.nallocs; j++) {
      Compact *k = ir_ptrmap_get(&c.by_buf, owner->block.allocs[j]);
      decide(&c, k);
      any |= k->nbuf != NULL;
    }
    arith_free(c.a);
  }
  c.a = arith_new(ctx->heap);
  bind_unit_loops(&c, c.a); /* `i_0 * 8 + i_2 - 0` simplifies to `i_2`, as the region's start did */
  if (any) {
    TirMutator m;
    tir_mutator_init(&m, ctx->heap);
    m.buffer = rw_buffer;
    m.expr[TIR_LOAD] = rw_load;
    m.stmt[TIR_S_STORE] = rw_store;
    m.stmt[TIR_S_BLOCK] = rw_block;
    m.ctx = &c;
    body = tir_mutate_stmt(&m, f->body);
    tir_mutator_free(&m);
  }
  arith_free(c.a);
  for (int i = 0; i < c.all.len; i++) {
    free(((Compact *)c.all.items[i])->threads);
    free(c.all.items[i]);
  }
  pv_free(&c.unit_loops);
  pv_free(&c.thread_loops);
  pv_free(&c.all);
  pv_free(&c.owners);
  ir_ptrmap_free(&c.by_buf);
  ir_ptrmap_free(&c.by_data);
  ir_ptrmap_free(&c.inner);
  return xf_with_body(ctx->heap, f, body);
}
