/* gpu_lower_cross_thread_reduction.c - LowerCrossThreadReduction together
 * with LowerThreadAllreduce's shared-memory tree (GPU pipeline).
 *
 * A reduction block whose reduce iter is bound through a threadIdx loop L
 * (with only serial loops between L and the block, and no threadIdx loop
 * around L) is an all-reduce over L's threads:
 *
 *     for t in T.thread_binding(T, thread="threadIdx.x"):   # each thread
 *         red[t] = identity                                 # its partial
 *         for r in range(R): red[t] = red[t] OP update(t, r)
 *     for t2 in T.thread_binding(T, ...):                   # the tree, one
 *         if t2 < s: red[t2] = red[t2] OP red[t2 + s]       # loop per step
 *     for t3 in T.thread_binding(T, ...):
 *         if t3 == 0: B[idx] = init OP red[0]
 *
 * in an opaque block that allocates red (T elements, "shared").  Each phase
 * is a loop of its own, so that the interpreter (threads one after another)
 * computes what the device does; thread-storage-sync puts the barriers
 * between them.  OP is +, *, max or min (the block's update must read the
 * written element once).  Other shapes are left to verify-thread-binding,
 * which reports them.
 *
 * On CUDA, a float32 reduction over threadIdx.x whose extent is a multiple
 * of 32 (whole warps) uses warp shuffles instead, as TVM's
 * LowerThreadAllreduce does: each thread's partial in a register, folded
 * across its warp by T.tvm_warp_shuffle_down (five steps); with more than
 * one warp, lane 0 of each puts the warp's sum in shared memory and the
 * first lanes fold those the same way. */
#include "ir/transform/xform_internal.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/structural_equal.h"

typedef struct Xr {
  IrHeap *h;
  int thread_depth;   /* threadIdx loops around the statement */
  bool cuda;          /* warp shuffles where the threads are whole warps */
} Xr;

/* The combiner of `buf[idx] = buf[idx] OP upd`: OP's kind, and upd. */
static bool combiner(const TirStmt *st, TirExprKind *op, TirExpr **upd) {
  const TirExpr *v = st->store.value;
  if (v->kind != TIR_ADD && v->kind != TIR_MUL && v->kind != TIR_MAX && v->kind != TIR_MIN) return false;
  for (int side = 0; side < 2; side++) {
    const TirExpr *self = side ? v->bin.b : v->bin.a, *other = side ? v->bin.a : v->bin.b;
    if (self->kind != TIR_LOAD || self->load.buf != st->store.buf || self->load.n != st->store.n) continue;
    bool same = true;
    for (int i = 0; i < st->store.n; i++) same &= tir_expr_identical(self->load.idx[i], st->store.idx[i]);
    if (!same) continue;
    *op = v->kind;
    *upd = (TirExpr *)other;
    return true;
  }
  return false;
}

static TirExpr *identity(IrHeap *h, TirExprKind op, DType t) {
  bool f = dt_is_float(t);
  switch (op) {
    case TIR_ADD: return f ? tir_float(h, t, 0) : tir_int(h, t, 0);
    case TIR_MUL: return f ? tir_float(h, t, 1) : tir_int(h, t, 1);
    case TIR_MAX:
      return f ? tir_float(h, t, t.bits == 64 ? -DBL_MAX : -FLT_MAX) : tir_int(h, t, t.bits == 64 ? INT64_MIN : INT32_MIN);
    default:
      return f ? tir_float(h, t, t.bits == 64 ? DBL_MAX : FLT_MAX) : tir_int(h, t, t.bits == 64 ? INT64_MAX : INT32_MAX);
  }
}

/* The matched nest: L, the serial loops under it, the reduction block. */
typedef struct Nest {
  const TirStmt *loop;          /* L */
  const TirStmt *serial[8];     /* the loops between */
  int nserial;
  const TirStmt *realize;       /* the block's realize */
  IrPtrMap sigma;               /* block iter var -> binding */
  TirExprKind op;
  TirExpr *upd;                 /* the update, iter vars substituted */
} Nest;

static bool match(Xr *x, const TirStmt *l, Nest *n) {
  if (!tir_is_const_int(l->loop.extent, &(int64_t){0})) return false;
  const TirStmt *s = l->loop.body;
  n->loop = l;
  n->nserial = 0;
  while (s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_SERIAL && n->nserial < 8) {
    n->serial[n->nserial++] = s;
    s = s->loop.body;
  }
  if (s->kind != TIR_S_BLOCK_REALIZE) return false;
  const TirBlock *b = tir_realize_block(s);
  if (!b->init || b->init->kind != TIR_S_STORE || b->body->kind != TIR_S_STORE || b->nallocs || b->nmatches ||
      b->init->store.buf != b->body->store.buf || !combiner(b->body, &n->op, &n->upd))
    return false;
  bool reduces_over_l = false;
  for (int k = 0; k < b->niters; k++) {
    bool uses = tir_expr_uses_var(s->realize.values[k], l->loop.var);
    if (uses && b->iters[k].type != TIR_ITER_REDUCE) return false; /* a spatial iter on the threads */
    reduces_over_l |= uses;
  }
  if (!reduces_over_l) return false;
  n->realize = s;
  ir_ptrmap_init(&n->sigma);
  for (int k = 0; k < b->niters; k++) ir_ptrmap_put(&n->sigma, b->iters[k].var, s->realize.values[k]);
  /* the written element may not depend on the threads or the serial loops */
  for (int i = 0; i < b->body->store.n; i++) {
    TirExpr *e = tir_substitute_expr(x->h, b->body->store.idx[i], &n->sigma);
    bool inner = tir_expr_uses_var(e, l->loop.var);
    for (int j = 0; j < n->nserial; j++) inner |= tir_expr_uses_var(e, n->serial[j]->loop.var);
    if (inner) {
      ir_ptrmap_free(&n->sigma);
      return false;
    }
  }
  n->upd = tir_substitute_expr(x->h, n->upd, &n->sigma);
  return true;
}

static TirExpr *combine(IrHeap *h, TirExprKind op, TirExpr *a, TirExpr *b) { return tir_binary(h, op, a, b); }

static TirExpr *red_at(IrHeap *h, TirBuffer *red, TirExpr *i) { return tir_load(h, red, &i, 1); }

static TirStmt *red_store(IrHeap *h, TirBuffer *red, TirExpr *i, TirExpr *v) { return tir_store(h, red, v, &i, 1); }

static TirStmt *thread_loop(IrHeap *h, const TirStmt *l, const char *name, TirStmt *(*body)(IrHeap *, TirVar *, void *),
                            void *ctx) {
  TirVar *t = tir_var(h, name, l->loop.var->dtype);
  return tir_for(h, t, xf_int(h, l->loop.var->dtype, 0), l->loop.extent, TIR_FOR_THREAD_BINDING, l->loop.thread_tag,
                 NULL, body(h, t, ctx));
}

typedef struct Step {
  TirBuffer *red;
  TirExprKind op;
  int64_t s, extent;
  const Nest *n;
} Step;

static TirStmt *tree_body(IrHeap *h, TirVar *t, void *ctx) {
  Step *st = ctx;
  TirExpr *tv = tir_var_ref(h, t), *s = xf_int(h, t->dtype, st->s);
  TirExpr *cond = tir_binary(h, TIR_LT, tv, s);
  if (2 * st->s > st->extent)
    cond = tir_binary(h, TIR_AND, cond, tir_binary(h, TIR_LT, xf_add(h, tv, s), xf_int(h, t->dtype, st->extent)));
  TirExpr *v = combine(h, st->op, red_at(h, st->red, tv), red_at(h, st->red, xf_add(h, tir_var_ref(h, t), s)));
  return tir_if(h, cond, red_store(h, st->red, tir_var_ref(h, t), v), NULL);
}

/* if t == 0: out[idx] = init OP total (the block's write, iters substituted). */
static TirStmt *result_store(IrHeap *h, const Nest *n, TirVar *t, TirExpr *total) {
  const TirBlock *b = tir_realize_block(n->realize);
  const TirStmt *w = b->body;
  TirExpr **idx = ir_alloc(h, (size_t)(w->store.n ? w->store.n : 1) * sizeof *idx);
  for (int i = 0; i < w->store.n; i++) idx[i] = tir_substitute_expr(h, w->store.idx[i], &n->sigma);
  TirExpr *init = tir_substitute_expr(h, b->init->store.value, &n->sigma);
  TirStmt *store = tir_store(h, w->store.buf, combine(h, n->op, init, total), idx, w->store.n);
  return tir_if(h, tir_binary(h, TIR_EQ, tir_var_ref(h, t), xf_int(h, t->dtype, 0)), store, NULL);
}

/* red[at] = red[at] OP update over the thread's share of the serial loops
 * (under the block's predicate): the thread's partial. */
static TirStmt *partial_nest(IrHeap *h, const Nest *n, TirBuffer *red, TirExpr *at) {
  TirStmt *acc = red_store(h, red, at, combine(h, n->op, red_at(h, red, at), n->upd));
  if (!xf_is_const_true(n->realize->realize.pred))
    acc = tir_if(h, tir_substitute_expr(h, n->realize->realize.pred, &n->sigma), acc, NULL);
  for (int i = n->nserial - 1; i >= 0; i--) {
    const TirStmt *l = n->serial[i];
    acc = tir_for(h, l->loop.var, l->loop.min, l->loop.extent, l->loop.kind, NULL, l->loop.annotations, acc);
  }
  return acc;
}

/* The opaque block "<name>_cross_thread" allocating allocs[0..nallocs), its
 * regions inferred, realized where the reduction block was. */
static TirStmt *cross_thread_block(IrHeap *h, const Nest *n, TirBuffer **allocs, int nallocs, TirStmt *body) {
  const TirBlock *b = tir_realize_block(n->realize);
  char name[128];
  TirBlock nb;
  memset(&nb, 0, sizeof nb);
  snprintf(name, sizeof name, "%s_cross_thread", b->name);
  nb.name = ir_strdup(h, name);
  nb.allocs = ir_memdup(h, allocs, (size_t)nallocs * sizeof *allocs);
  nb.nallocs = nallocs;
  nb.body = body;
  tir_infer_access_regions(h, &nb, &nb.reads, &nb.nreads, &nb.writes, &nb.nwrites);
  TirStmt *blk = tir_block(h, &nb);
  blk->span = n->realize->span;
  return tir_block_realize(h, NULL, 0, tir_bool(h, true), blk);
}

static TirStmt *final_body(IrHeap *h, TirVar *t, void *ctx) {
  Step *st = ctx;
  return result_store(h, st->n, t, red_at(h, st->red, xf_int(h, t->dtype, 0)));
}

static TirStmt *rewrite(Xr *x, Nest *n) {
  IrHeap *h = x->h;
  const TirBlock *b = tir_realize_block(n->realize);
  DType dt = b->body->store.buf->dtype;
  int64_t ext;
  tir_is_const_int(n->loop->loop.extent, &ext);
  TirExpr *shape = xf_int(h, dt_int32, ext);
  char name[128];
  snprintf(name, sizeof name, "%s_red", b->name);
  TirBuffer *red = tir_buffer(h, name, dt, &shape, 1, "shared");
  /* phase 1: each thread's partial, over its share of the serial loops */
  TirVar *t = n->loop->loop.var;
  TirStmt *acc = partial_nest(h, n, red, tir_var_ref(h, t));
  TirStmt *first[2] = {red_store(h, red, tir_var_ref(h, t), identity(h, n->op, dt)), acc};
  PtrVec phases = {0};
  pv_push(&phases, tir_for(h, t, n->loop->loop.min, n->loop->loop.extent, TIR_FOR_THREAD_BINDING,
                           n->loop->loop.thread_tag, n->loop->loop.annotations, tir_seq(h, first, 2)));
  /* phase 2: the tree; phase 3: thread 0 writes the result */
  int64_t p = 1;
  while (p < ext) p *= 2;
  Step st = {red, n->op, 0, ext, n};
  for (st.s = p / 2; st.s >= 1; st.s /= 2) {
    snprintf(name, sizeof name, "%s_s%lld", t->name, (long long)st.s);
    pv_push(&phases, thread_loop(h, n->loop, name, tree_body, &st));
  }
  snprintf(name, sizeof name, "%s_out", t->name);
  pv_push(&phases, thread_loop(h, n->loop, name, final_body, &st));
  TirStmt *body = tir_seq(h, (TirStmt **)phases.items, phases.len);
  pv_free(&phases);
  return cross_thread_block(h, n, &red, 1, body);
}

/* ---------------------------------------------------------- warp shuffles */

static TirExpr *at0(IrHeap *h, TirBuffer *b) { return red_at(h, b, xf_int(h, dt_int32, 0)); }

static TirStmt *set0(IrHeap *h, TirBuffer *b, TirExpr *v) { return red_store(h, b, xf_int(h, dt_int32, 0), v); }

/* red[0] = red[0] OP shuffle_down(red[0], s) for s = 16, 8, 4, 2, 1: lane 0
 * ends with the fold of its warp. */
static void warp_fold(IrHeap *h, PtrVec *out, TirBuffer *red, TirExprKind op, DType dt) {
  for (int s = 16; s >= 1; s /= 2) {
    TirExpr *args[6] = {tir_str(h, "tvm_warp_shuffle_down"), xf_int(h, dt_int32, -1), at0(h, red),
                        xf_int(h, dt_int32, s), xf_int(h, dt_int32, 32), xf_int(h, dt_int32, 32)};
    TirExpr *shfl = tir_call(h, dt, &tir_op_table[TIR_OP_CALL_EXTERN], args, 6);
    pv_push(out, set0(h, red, combine(h, op, at0(h, red), shfl)));
  }
}

static TirStmt *rewrite_warp(Xr *x, Nest *n, int64_t ext) {
  IrHeap *h = x->h;
  const TirBlock *b = tir_realize_block(n->realize);
  DType dt = b->body->store.buf->dtype;
  char name[128];
  snprintf(name, sizeof name, "%s_red_local", b->name);
  TirExpr *one = xf_int(h, dt_int32, 1), *nw = xf_int(h, dt_int32, ext / 32);
  TirBuffer *red = tir_buffer(h, name, dt, &one, 1, "local");
  snprintf(name, sizeof name, "%s_red_warps", b->name);
  TirBuffer *warps = tir_buffer(h, name, dt, &nw, 1, "shared");
  TirVar *t = n->loop->loop.var;
  TirExpr *tv = tir_var_ref(h, t);
  PtrVec body = {0};
  pv_push(&body, set0(h, red, identity(h, n->op, dt)));
  pv_push(&body, partial_nest(h, n, red, xf_int(h, dt_int32, 0)));
  warp_fold(h, &body, red, n->op, dt);
  if (ext > 32) { /* the warps' folds through shared memory, folded by the first warp */
    TirExpr *lane0 = tir_binary(h, TIR_EQ, tir_binary(h, TIR_FLOORMOD, tv, xf_int(h, t->dtype, 32)), xf_int(h, t->dtype, 0));
    TirExpr *w = tir_binary(h, TIR_FLOORDIV, tir_var_ref(h, t), xf_int(h, t->dtype, 32));
    pv_push(&body, tir_if(h, lane0, red_store(h, warps, w, at0(h, red)), NULL));
    pv_push(&body, set0(h, red, identity(h, n->op, dt)));
    TirExpr *first = tir_binary(h, TIR_LT, tir_var_ref(h, t), xf_int(h, t->dtype, ext / 32));
    pv_push(&body, tir_if(h, first, set0(h, red, red_at(h, warps, tir_var_ref(h, t))), NULL));
    warp_fold(h, &body, red, n->op, dt);
  }
  pv_push(&body, result_store(h, n, t, at0(h, red)));
  TirStmt *loop = tir_for(h, t, n->loop->loop.min, n->loop->loop.extent, TIR_FOR_THREAD_BINDING,
                          n->loop->loop.thread_tag, n->loop->loop.annotations, tir_seq(h, (TirStmt **)body.items, body.len));
  pv_free(&body);
  TirBuffer *allocs[2] = {red, warps};
  return cross_thread_block(h, n, allocs, ext > 32 ? 2 : 1, loop);
}

/* Whether the reduction runs over whole warps of a float32 value on CUDA. */
static bool warp_reducible(const Xr *x, const Nest *n) {
  int64_t ext;
  const TirBlock *b = tir_realize_block(n->realize);
  DType dt = b->body->store.buf->dtype;
  int64_t min;
  return x->cuda && !strcmp(n->loop->loop.thread_tag, "threadIdx.x") && tir_is_const_int(n->loop->loop.extent, &ext) &&
         ext % 32 == 0 && ext <= 1024 && tir_is_const_int(n->loop->loop.min, &min) && min == 0 && dt.code == DT_FLOAT &&
         dt.bits == 32 && dt.lanes == 1;
}

static TirStmt *visit_for(TirMutator *m, TirStmt *s) {
  Xr *x = m->ctx;
  bool thread = s->loop.kind == TIR_FOR_THREAD_BINDING && !strncmp(s->loop.thread_tag, "threadIdx.", 10);
  Nest n;
  if (thread && x->thread_depth == 0 && match(x, s, &n)) {
    int64_t ext = 0;
    tir_is_const_int(s->loop.extent, &ext);
    TirStmt *r = warp_reducible(x, &n) ? rewrite_warp(x, &n, ext) : rewrite(x, &n);
    ir_ptrmap_free(&n.sigma);
    return r;
  }
  x->thread_depth += thread;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  x->thread_depth -= thread;
  return r;
}

/* requires: the scheduled IR (blocks), GPU pipeline; ensures: the matched
 * reductions over threads are explicit shared-memory all-reduces; others
 * unchanged. */
TirFunc *tir_lower_cross_thread_reduction(TirPassCtx *ctx, TirFunc *f) {
  Xr x = {ctx->heap, 0, ctx->target && !strcmp(ctx->target, "cuda")};
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_FOR] = visit_for;
  m.ctx = &x;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
