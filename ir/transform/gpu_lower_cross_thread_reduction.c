/* gpu_lower_cross_thread_reduction.c - LowerCrossThreadReduction (GPU
 * pipeline, first of the GPU passes).
 *
 * A reduction block whose reduce iter is bound through a threadIdx loop L
 * (with only serial loops between L and the block, and no threadIdx loop
 * around L) is an all-reduce over L's threads.  It becomes, in an opaque
 * block "<name>_cross_thread" that allocates the two local temporaries:
 *
 *     for t in T.thread_binding(T, thread="threadIdx.x"):
 *         in_thread_B[0] = identity                 # the thread's partial,
 *         for r in range(R):                        # over its share of the
 *             in_thread_B[0] = in_thread_B[0] OP update(t, r)   # serial loops
 *         with T.attr(T.comm_reducer(lambda x, y: x OP y, [identity]), "reduce_scope", ...):
 *             T.tvm_thread_allreduce(T.uint32(1), in_thread_B[0], T.bool(True), cross_thread_B[0], t)
 *         if t == 0:
 *             B[idx] = init OP cross_thread_B[0]
 *
 * (without serial loops the update itself is the intrinsic's value and the
 * block's predicate its condition), as TVM writes it.  lower-thread-allreduce
 * lowers the intrinsic (warp shuffles or a shared-memory tree) after
 * thread-storage-sync.  OP is +, *, max or min (the block's update must
 * read the written element once).  Other shapes are left to
 * verify-thread-binding, which reports them. */
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
  const TirVar *outer[64]; /* the loop vars around the statement */
  int nouter;
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
    /* a reduce loop above L (a serial k0 over a thread-bound k1) would need
     * the partials carried across its iterations: not this form; the
     * result would be the last iteration's only */
    for (int j = 0; j < x->nouter && b->iters[k].type == TIR_ITER_REDUCE; j++)
      if (tir_expr_uses_var(s->realize.values[k], x->outer[j])) return false;
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

static TirExpr *at0(IrHeap *h, TirBuffer *b) {
  TirExpr *z = xf_int(h, dt_int32, 0);
  return tir_load(h, b, &z, 1);
}

static TirStmt *set0(IrHeap *h, TirBuffer *b, TirExpr *v) {
  TirExpr *z = xf_int(h, dt_int32, 0);
  return tir_store(h, b, v, &z, 1);
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

/* red[0] = red[0] OP update over the thread's share of the serial loops
 * (under the block's predicate): the thread's partial. */
static TirStmt *partial_nest(IrHeap *h, const Nest *n, TirBuffer *red) {
  TirStmt *acc = set0(h, red, combine(h, n->op, at0(h, red), n->upd));
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

static const char *reducer_name(TirExprKind op) {
  switch (op) {
    case TIR_ADD: return "add";
    case TIR_MUL: return "mul";
    case TIR_MAX: return "max";
    default: return "min";
  }
}

/* with T.attr(T.comm_reducer(OP, [identity]), "reduce_scope", 0):
 *     T.tvm_thread_allreduce(T.uint32(1), value, cond, result[0], t) */
static TirStmt *allreduce(IrHeap *h, TirExprKind op, DType dt, TirExpr *value, TirExpr *cond, TirBuffer *result,
                          TirVar *t) {
  TirExpr *red[3] = {tir_str(h, "comm_reducer"), tir_str(h, reducer_name(op)), identity(h, op, dt)};
  TirExpr *reducer = tir_call(h, dt_handle, tir_op_lookup(" opaque"), red, 3);
  TirExpr *args[6] = {tir_str(h, "tvm_thread_allreduce"), tir_int(h, dt_uint32, 1), value, cond, at0(h, result),
                      tir_var_ref(h, t)};
  TirStmt *call = tir_evaluate(h, tir_call(h, dt_handle, tir_op_lookup(" opaque"), args, 6));
  return tir_attr_stmt(h, "reduce_scope", NULL, reducer, call);
}

static TirStmt *rewrite(Xr *x, Nest *n) {
  IrHeap *h = x->h;
  const TirBlock *b = tir_realize_block(n->realize);
  DType dt = b->body->store.buf->dtype;
  TirExpr *one = xf_int(h, dt_int32, 1);
  char name[128];
  snprintf(name, sizeof name, "cross_thread_%s", b->body->store.buf->name);
  TirBuffer *allocs[2];
  int nallocs = 0;
  TirBuffer *result = allocs[nallocs++] = tir_buffer(h, name, dt, &one, 1, "local");
  TirVar *t = n->loop->loop.var;
  PtrVec body = {0};
  TirExpr *value = n->upd, *cond = tir_bool(h, true);
  if (n->nserial) { /* the thread's partial over the serial loops first */
    snprintf(name, sizeof name, "in_thread_%s", b->body->store.buf->name);
    TirBuffer *part = allocs[nallocs++] = tir_buffer(h, name, dt, &one, 1, "local");
    pv_push(&body, set0(h, part, identity(h, n->op, dt)));
    pv_push(&body, partial_nest(h, n, part));
    value = at0(h, part);
  } else if (!xf_is_const_true(n->realize->realize.pred)) {
    cond = tir_substitute_expr(h, n->realize->realize.pred, &n->sigma);
  }
  pv_push(&body, allreduce(h, n->op, dt, value, cond, result, t));
  pv_push(&body, result_store(h, n, t, at0(h, result)));
  TirStmt *loop = tir_for(h, t, n->loop->loop.min, n->loop->loop.extent, TIR_FOR_THREAD_BINDING,
                          n->loop->loop.thread_tag, n->loop->loop.annotations, tir_seq(h, (TirStmt **)body.items, body.len));
  pv_free(&body);
  return cross_thread_block(h, n, allocs, nallocs, loop);
}

static TirStmt *visit_for(TirMutator *m, TirStmt *s) {
  Xr *x = m->ctx;
  bool thread = s->loop.kind == TIR_FOR_THREAD_BINDING && !strncmp(s->loop.thread_tag, "threadIdx.", 10);
  Nest n;
  if (thread && x->thread_depth == 0 && match(x, s, &n)) {
    TirStmt *r = rewrite(x, &n);
    ir_ptrmap_free(&n.sigma);
    return r;
  }
  x->thread_depth += thread;
  bool push = x->nouter < 64;
  if (push) x->outer[x->nouter++] = s->loop.var;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (push) x->nouter--;
  x->thread_depth -= thread;
  return r;
}

/* requires: the scheduled IR (blocks), GPU pipeline; ensures: the matched
 * reductions over threads are T.tvm_thread_allreduce calls; others
 * unchanged. */
TirFunc *tir_lower_cross_thread_reduction(TirPassCtx *ctx, TirFunc *f) {
  Xr x = {ctx->heap, 0, {0}, 0};
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_FOR] = visit_for;
  m.ctx = &x;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
