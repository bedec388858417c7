/* gpu_lower_warp_memory.c - LowerWarpMemory (GPU pipeline, before
 * verify-gpu-code and thread-storage-sync).
 *
 * A buffer of scope "warp" is stored across the lanes of a warp: lane t of
 * the threadIdx.x loop (extent W) holds the elements whose index has t as
 * its "lane" part.  Following TVM, with m the coefficient of threadIdx.x in
 * the stores' (flat) index and n = ceil(size / (W * m)) groups, an index
 * `m * lane + (W * m) * y + x` (x < m, y < n) is element `m * y + x` of a
 * local buffer of n * m elements in that lane.  On CUDA a store writes the
 * thread's own local element (its lane part must be threadIdx.x), and a
 * load reads element `m * y + x` from lane `index % (W * m) // m` through
 * T.tvm_warp_shuffle (shfl.sync.idx; a plain load where the lane is provably
 * the thread's own).  W must divide the warp size 32.
 *
 * OpenCL C has no portable shuffle: there the buffer becomes shared memory,
 * one copy per warp (per value of the other threadIdx axes), so that
 * thread-storage-sync, which runs after, puts the barrier between the
 * lanes' writes and reads.  TVM runs this pass on the device functions after
 * split-host-device; it runs here before the barriers are placed so that
 * the OpenCL form gets them. */
#include "ir/transform/xform_internal.h"

#include <string.h>

#define WARP_SIZE 32
#define MAX_THREADS 8

typedef struct Wm {
  TirPassCtx *ctx;
  ArithCtx *a;
  bool cuda;
  const TirStmt *threads[MAX_THREADS];  /* the threadIdx loops around */
  int nthreads;
  bool failed;
} Wm;

/* The rewrite of one warp buffer (the accesses through its data var). */
typedef struct Rw {
  Wm *w;
  const TirVar *data;    /* the warp buffer's data var */
  TirBuffer *nb;         /* its replacement */
  const TirVar *lane;    /* threadIdx.x */
  int64_t width, m, groups;
  TirExpr *offset;       /* OpenCL: this warp's copy in shared memory */
  Span span;
} Rw;

static void fail(Wm *w, Span sp, const char *what, const char *name) {
  if (!w->failed)
    diag_error(w->ctx->diag, sp, "lower-warp-memory: warp buffer '%s' %s", name, what);
  w->failed = true;
}

static const TirStmt *thread_loop(const Wm *w, const char *tag) {
  for (int i = 0; i < w->nthreads; i++)
    if (!strcmp(w->threads[i]->loop.thread_tag, tag)) return w->threads[i];
  return NULL;
}

static TirExpr *simp(Wm *w, TirExpr *e) { return xf_simplify(w->a, e); }

static TirExpr *lit(const TirExpr *like, int64_t v, IrHeap *h) { return xf_int(h, like->dtype, v); }

/* (local index, lane) of a flat index into the warp buffer. */
static TirExpr *split_index(Rw *r, TirExpr *idx, TirExpr **lane) {
  IrHeap *h = r->w->ctx->heap;
  TirExpr *m = lit(idx, r->m, h), *wm = lit(idx, r->width * r->m, h);
  TirExpr *x = tir_binary(h, TIR_FLOORMOD, idx, m);
  *lane = simp(r->w, tir_binary(h, TIR_FLOORDIV, tir_binary(h, TIR_FLOORMOD, idx, wm), m));
  if (r->groups == 1) return simp(r->w, x);
  TirExpr *y = tir_binary(h, TIR_FLOORDIV, idx, wm);
  return simp(r->w, xf_add(h, xf_mul(h, m, y), x));
}

static bool is_warp(const Rw *r, const TirBuffer *b) { return b->data == r->data; }

static TirExpr *rw_load(TirMutator *mu, TirExpr *e) {
  Rw *r = mu->ctx;
  TirExpr *ne = tir_mutate_expr_children(mu, e);
  if (!is_warp(r, ne->load.buf) || ne->load.n != 1) return ne;
  IrHeap *h = mu->heap;
  TirExpr *idx = ne->load.idx[0];
  if (r->offset) idx = xf_add(h, idx, r->offset);
  if (r->offset || !r->m) return tir_load(h, r->nb, &idx, 1);
  TirExpr *lane, *local = split_index(r, idx, &lane);
  if (tir_expr_uses_var(local, r->lane)) {
    fail(r->w, r->span, "is read at an index whose element within the lane depends on "
         "threadIdx.x (only the lane may: index = m * threadIdx.x + ...)", r->nb->name);
    return ne;
  }
  TirExpr *v = tir_load(h, r->nb, &local, 1);
  TirExpr *own = tir_var_ref(h, (TirVar *)r->lane);
  if (arith_can_prove_equal(r->w->a, lane, xf_cast_to(h, lane->dtype, own))) return v;
  return xf_warp_shuffle(h, ne->dtype, "tvm_warp_shuffle", v, lane, r->width, WARP_SIZE);
}

static TirStmt *rw_store(TirMutator *mu, TirStmt *s) {
  Rw *r = mu->ctx;
  TirStmt *ns = tir_mutate_stmt_children(mu, s);
  if (!is_warp(r, ns->store.buf) || ns->store.n != 1) return ns;
  IrHeap *h = mu->heap;
  TirExpr *idx = ns->store.idx[0];
  TirExpr *lane;
  if (r->offset) idx = xf_add(h, idx, r->offset);
  else if (r->m) idx = split_index(r, idx, &lane);
  TirStmt *c = tir_store(h, r->nb, ns->store.value, &idx, 1);
  c->span = ns->span;
  return c;
}

static TirStmt *rw_for(TirMutator *mu, TirStmt *s) {
  Rw *r = mu->ctx;
  arith_push(r->w->a);
  arith_bind_range(r->w->a, s->loop.var, s->loop.min, s->loop.extent);
  TirStmt *ns = tir_mutate_stmt_children(mu, s);
  arith_pop(r->w->a);
  return ns;
}

static TirStmt *rw_decl(TirMutator *mu, TirStmt *s) {
  Rw *r = mu->ctx;
  if (!is_warp(r, s->decl.buf)) return tir_mutate_stmt_children(mu, s);
  return tir_decl_buffer(mu->heap, r->nb, tir_mutate_stmt(mu, s->decl.body));
}

/* ------------------------------------------------------ the coefficient m */

typedef struct Coef {
  Wm *w;
  const TirVar *data, *lane;
  int64_t m;
  bool bad;
} Coef;

static bool coef_stmt(TirVisitor *v, const TirStmt *s) {
  Coef *c = v->ctx;
  if (s->kind != TIR_S_STORE || s->store.buf->data != c->data || s->store.n != 1) return true;
  int64_t k;
  TirExpr *rest;
  if (!arith_affine(c->w->a, s->store.idx[0], &c->lane, 1, &k, &rest) || k <= 0 || (c->m && c->m != k) ||
      tir_expr_uses_var(rest, c->lane))
    c->bad = true;
  else c->m = k;
  return true;
}

static int64_t coefficient(Wm *w, const TirStmt *body, const TirVar *data, const TirVar *lane) {
  Coef c = {w, data, lane, 0, false};
  TirVisitor v = {.pre_stmt = coef_stmt, .ctx = &c};
  tir_visit_stmt(&v, body);
  return c.bad ? -1 : c.m;
}

/* ------------------------------------------------------------- the rewrite */

/* CUDA: lanes of W threads, m and the groups; the local size, or 0. */
static int64_t plan_cuda(Wm *w, Rw *r, const TirStmt *s, const TirStmt *body, int64_t size) {
  const char *name = s->alloc.var->name;
  if (r->width > WARP_SIZE || WARP_SIZE % r->width) {
    fail(w, s->span, "needs threadIdx.x of at most 32 threads, a factor of 32 (the warp)", name);
    return 0;
  }
  r->m = coefficient(w, body, s->alloc.var, r->lane);
  if (r->m <= 0) {
    fail(w, s->span, "is written at an index that is not `m * threadIdx.x + ...` (m > 0, the same in every store)",
         name);
    return 0;
  }
  r->groups = (size + r->width * r->m - 1) / (r->width * r->m);
  return r->groups * r->m;
}

/* OpenCL: one copy per warp (value of threadIdx.y/z) in shared memory. */
static int64_t plan_shared(Wm *w, Rw *r, int64_t size) {
  IrHeap *h = w->ctx->heap;
  int64_t copies = 1, e;
  const char *tags[2] = {"threadIdx.y", "threadIdx.z"};
  for (int i = 0; i < 2; i++) {
    const TirStmt *l = thread_loop(w, tags[i]);
    if (!l || !tir_is_const_int(l->loop.extent, &e)) continue;
    TirExpr *t = xf_cast_to(h, dt_int32, tir_var_ref(h, l->loop.var));
    TirExpr *part = xf_mul(h, t, xf_int(h, dt_int32, size * copies));
    r->offset = r->offset ? xf_add(h, r->offset, part) : part;
    copies *= e;
  }
  return size * copies;
}

static TirStmt *rewrite(Wm *w, TirStmt *s, TirStmt *body) {
  IrHeap *h = w->ctx->heap;
  const char *name = s->alloc.var->name;
  const TirStmt *tx = thread_loop(w, "threadIdx.x");
  int64_t size = 1, e;
  for (int i = 0; i < s->alloc.n; i++) size *= tir_is_const_int(s->alloc.extents[i], &e) ? e : 0;
  if (!tx || size <= 0) {
    fail(w, s->span, tx ? "needs a constant size" : "needs a loop bound to threadIdx.x around it (its lanes)", name);
    return s;
  }
  Rw r = {w, s->alloc.var, NULL, tx->loop.var, 0, 0, 1, NULL, s->span};
  tir_is_const_int(tx->loop.extent, &r.width);
  int64_t n = w->cuda ? plan_cuda(w, &r, s, body, size) : plan_shared(w, &r, size);
  if (!n) return s;
  TirExpr *ext = xf_int(h, dt_int32, n);
  const char *scope = w->cuda ? "local" : "shared";
  r.nb = tir_buffer(h, name, s->alloc.dtype, &ext, 1, scope);
  TirMutator mu;
  tir_mutator_init(&mu, h);
  mu.expr[TIR_LOAD] = rw_load;
  mu.stmt[TIR_S_STORE] = rw_store;
  mu.stmt[TIR_S_DECL_BUFFER] = rw_decl;
  mu.stmt[TIR_S_FOR] = rw_for;
  mu.ctx = &r;
  TirStmt *nbody = tir_mutate_stmt(&mu, body);
  tir_mutator_free(&mu);
  TirStmt *out = tir_allocate(h, r.nb->data, s->alloc.dtype, &ext, 1, scope, nbody);
  out->span = s->span;
  return out;
}

static TirStmt *visit_alloc(TirMutator *m, TirStmt *s) {
  Wm *w = m->ctx;
  TirStmt *ns = tir_mutate_stmt_children(m, s);
  if (!s->alloc.scope || strcmp(s->alloc.scope, "warp") || w->failed) return ns;
  return rewrite(w, s, ns->alloc.body);
}

static TirStmt *visit_for(TirMutator *m, TirStmt *s) {
  Wm *w = m->ctx;
  bool t = s->loop.kind == TIR_FOR_THREAD_BINDING && !strncmp(s->loop.thread_tag, "threadIdx.", 10) &&
           w->nthreads < MAX_THREADS;
  if (t) w->threads[w->nthreads++] = s;
  arith_push(w->a);
  arith_bind_range(w->a, s->loop.var, s->loop.min, s->loop.extent);
  TirStmt *r = tir_mutate_stmt_children(m, s);
  arith_pop(w->a);
  w->nthreads -= t;
  return r;
}

/* requires: flattened buffers, unified thread loops (GPU pipeline);
 * ensures: no allocation of scope "warp" is left (local + shuffles on CUDA,
 * shared memory elsewhere). */
TirFunc *tir_lower_warp_memory(TirPassCtx *ctx, TirFunc *f) {
  Wm w;
  memset(&w, 0, sizeof w);
  w.ctx = ctx;
  w.a = arith_new(ctx->heap);
  w.cuda = ctx->target && !strcmp(ctx->target, "cuda");
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_ALLOCATE] = visit_alloc;
  m.stmt[TIR_S_FOR] = visit_for;
  m.ctx = &w;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  arith_free(w.a);
  return xf_with_body(ctx->heap, f, body);
}
