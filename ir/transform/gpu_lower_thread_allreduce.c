/* gpu_lower_thread_allreduce.c - LowerThreadAllreduce (GPU pipeline, after
 * thread-storage-sync).
 *
 * `with T.attr(T.comm_reducer(OP, [id]), "reduce_scope", ...):
 *      T.tvm_thread_allreduce(T.uint32(1), value, cond, result[0], t...)`
 * (lower-cross-thread-reduction's) becomes code in which every thread of
 * the block ends with the fold of `value` (`id` where cond is false) over
 * the threads of the reduce axes t... in result[0]; the block's other
 * threadIdx axes (the group) each reduce apart.  The barriers are put in
 * here, as TVM does (thread-storage-sync has run):
 *
 *  - on CUDA, a 32-bit value reduced over whole warps of threadIdx.x alone
 *    (32 to 1024 threads, no group): each warp folds its lanes with
 *    T.tvm_warp_shuffle_down (five steps), lane 0 of each warp puts the
 *    warp's fold in shared memory, the first warp folds those the same way,
 *    and the total reaches every thread (a warp shuffle from lane 0 for one
 *    warp, shared memory for more);
 *  - otherwise (OpenCL has no portable shuffle) a tree in shared memory: a
 *    barrier, each thread's value in red_buf0[group * R + r], a barrier,
 *    then log2(R) halving steps `if r < s: red_buf0[i] = red_buf0[i] OP
 *    red_buf0[i + s]`, each followed by a barrier (never inside the if),
 *    and result[0] = red_buf0[group * R]. */
#include "ir/transform/xform_internal.h"

#include <string.h>

#define MAX_THREADS 8

typedef struct Ar {
  IrHeap *h;
  bool cuda;
  const TirStmt *threads[MAX_THREADS]; /* the threadIdx loops around the statement */
  int nthreads;
} Ar;

/* What one allreduce reduces. */
typedef struct Red {
  TirExprKind op;
  TirExpr *id;            /* the reducer's identity */
  DType dt;
  TirExpr *value;         /* select(cond, value, id) */
  TirExpr *result;        /* result[0] (a load) */
  TirExpr *r, *g;         /* the flat reduce and group indices */
  int64_t rext, gext;     /* their extents */
  bool x_only;            /* the reduce axis is threadIdx.x alone */
} Red;

static TirExpr *i32(IrHeap *h, int64_t v) { return xf_int(h, dt_int32, v); }

static TirExpr *at(IrHeap *h, TirBuffer *b, TirExpr *i) { return tir_load(h, b, &i, 1); }

static TirStmt *put(IrHeap *h, TirBuffer *b, TirExpr *i, TirExpr *v) { return tir_store(h, b, v, &i, 1); }

static TirStmt *sync(IrHeap *h) {
  TirExpr *args[2] = {tir_str(h, "tvm_storage_sync"), tir_str(h, "shared")};
  return tir_evaluate(h, tir_call(h, dt_int32, &tir_op_table[TIR_OP_CALL_EXTERN], args, 2));
}

static TirStmt *store_result(IrHeap *h, const Red *rd, TirExpr *v) {
  const TirExpr *l = rd->result;
  return tir_store(h, l->load.buf, v, l->load.idx, l->load.n);
}

static TirBuffer *scratch(IrHeap *h, PtrVec *allocs, const char *name, DType dt, int64_t n, const char *scope) {
  TirExpr *shape = i32(h, n);
  TirBuffer *b = tir_buffer(h, name, dt, &shape, 1, scope);
  pv_push(allocs, b);
  return b;
}

static TirExpr *fold(IrHeap *h, const Red *rd, TirExpr *a, TirExpr *b) { return tir_binary(h, rd->op, a, b); }

/* ------------------------------------------------------------------ tree */

static void tree(IrHeap *h, const Red *rd, PtrVec *seq, PtrVec *allocs) {
  TirBuffer *buf = scratch(h, allocs, "red_buf0", rd->dt, rd->gext * rd->rext, "shared");
  TirExpr *base = xf_mul(h, rd->g, i32(h, rd->rext));
  TirExpr *mine = xf_add(h, base, rd->r);
  pv_push(seq, sync(h)); /* the previous reduction's reads of buf are done */
  pv_push(seq, put(h, buf, mine, rd->value));
  pv_push(seq, sync(h));
  int64_t align = 1;
  while (align < rd->rext) align *= 2;
  while (align > 1) {
    TirExpr *lim = i32(h, align / 2);
    if (align > rd->rext) lim = i32(h, rd->rext - align / 2); /* the first step of a ragged extent */
    align /= 2;
    TirExpr *v = fold(h, rd, at(h, buf, mine), at(h, buf, xf_add(h, mine, i32(h, align))));
    pv_push(seq, tir_if(h, tir_binary(h, TIR_LT, rd->r, lim), put(h, buf, mine, v), NULL));
    pv_push(seq, sync(h));
  }
  pv_push(seq, store_result(h, rd, at(h, buf, base)));
}

/* ----------------------------------------------------------- warp shuffles */

static TirExpr *shuffle(IrHeap *h, DType dt, const char *fn, TirExpr *v, int64_t lane_or_delta) {
  return xf_warp_shuffle(h, dt, fn, v, i32(h, lane_or_delta), 32, 32);
}

/* red[0] = red[0] OP shuffle_down(red[0], s) for s = from/2 ... 1: lane 0
 * of each warp ends with the fold of the warp's first `from` lanes. */
static void warp_fold(IrHeap *h, const Red *rd, PtrVec *seq, TirBuffer *red, int64_t from) {
  for (int64_t s = from / 2; s >= 1; s /= 2) {
    TirExpr *v0 = at(h, red, i32(h, 0));
    pv_push(seq, put(h, red, i32(h, 0), fold(h, rd, v0, shuffle(h, rd->dt, "tvm_warp_shuffle_down", v0, s))));
  }
}

static void warps(IrHeap *h, const Red *rd, PtrVec *seq, PtrVec *allocs) {
  TirBuffer *red = scratch(h, allocs, "red_buf0", rd->dt, 1, "local");
  TirExpr *zero = i32(h, 0);
  pv_push(seq, put(h, red, zero, rd->value));
  warp_fold(h, rd, seq, red, 32);
  if (rd->rext == 32) { /* lane 0's fold to every lane */
    pv_push(seq, store_result(h, rd, shuffle(h, rd->dt, "tvm_warp_shuffle", at(h, red, zero), 0)));
    return;
  }
  int64_t nw = rd->rext / 32, p = 1;
  while (p < nw) p *= 2;
  TirBuffer *staging = scratch(h, allocs, "red_buf_staging", rd->dt, nw, "shared");
  TirBuffer *total = scratch(h, allocs, "red_result", rd->dt, 1, "shared");
  DType it = rd->r->dtype;
  TirExpr *lane0 = tir_binary(h, TIR_EQ, tir_binary(h, TIR_FLOORMOD, rd->r, xf_int(h, it, 32)), xf_int(h, it, 0));
  TirExpr *w = tir_binary(h, TIR_FLOORDIV, rd->r, xf_int(h, it, 32));
  pv_push(seq, tir_if(h, lane0, put(h, staging, w, at(h, red, zero)), NULL));
  pv_push(seq, sync(h));
  pv_push(seq, put(h, red, zero, rd->id));
  TirExpr *first = tir_binary(h, TIR_LT, rd->r, xf_int(h, it, nw));
  pv_push(seq, tir_if(h, first, put(h, red, zero, at(h, staging, rd->r)), NULL));
  warp_fold(h, rd, seq, red, p);
  TirExpr *t0 = tir_binary(h, TIR_EQ, rd->r, xf_int(h, it, 0));
  pv_push(seq, tir_if(h, t0, put(h, total, zero, at(h, red, zero)), NULL));
  pv_push(seq, sync(h));
  pv_push(seq, store_result(h, rd, at(h, total, zero)));
}

/* ------------------------------------------------------------ the rewrite */

static bool warp_reducible(const Ar *a, const Red *rd) {
  bool word = rd->dt.lanes == 1 && rd->dt.bits == 32 && (rd->dt.code == DT_FLOAT || rd->dt.code == DT_INT);
  return a->cuda && word && rd->x_only && rd->gext == 1 && rd->rext % 32 == 0 && rd->rext <= 1024;
}

static bool reduced(TirExpr *const *args, int n, const TirVar *v) {
  for (int i = 0; i < n; i++)
    if (args[i]->kind == TIR_VAR && args[i]->var == v) return true;
  return false;
}

/* The flat index of the threadIdx loops that are (reduce) or are not
 * (group) among the call's thread vars, threadIdx.x fastest. */
static TirExpr *flat(const Ar *a, TirExpr *const *tv, int ntv, bool reduce, int64_t *ext, int *naxes) {
  TirExpr *idx = NULL;
  *ext = 1;
  *naxes = 0;
  for (char d = 'x'; d <= 'z'; d++)
    for (int i = 0; i < a->nthreads; i++) {
      const TirStmt *l = a->threads[i];
      int64_t e;
      if (l->loop.thread_tag[10] != d || reduced(tv, ntv, l->loop.var) != reduce ||
          !tir_is_const_int(l->loop.extent, &e) || e == 1)
        continue;
      TirExpr *v = xf_cast_to(a->h, dt_int32, tir_var_ref(a->h, l->loop.var));
      idx = idx ? xf_add(a->h, idx, xf_mul(a->h, v, i32(a->h, *ext))) : v;
      *ext *= e;
      (*naxes)++;
    }
  return idx ? idx : i32(a->h, 0);
}

static bool is_allreduce(const TirStmt *s) {
  if (strcmp(s->attr.key, "reduce_scope") || s->attr.body->kind != TIR_S_EVAL) return false;
  const TirExpr *c = s->attr.body->eval.value, *r = s->attr.value;
  return c->kind == TIR_CALL && c->call.op->id == TIR_OP_OPAQUE && c->call.n >= 5 &&
         !strcmp(c->call.args[0]->str, "tvm_thread_allreduce") && c->call.args[4]->kind == TIR_LOAD &&
         r->kind == TIR_CALL && r->call.op->id == TIR_OP_OPAQUE && r->call.n == 3 && r->call.args[1]->kind == TIR_STR;
}

static TirExprKind reducer_op(const char *nm) {
  return !strcmp(nm, "add") ? TIR_ADD : !strcmp(nm, "mul") ? TIR_MUL : !strcmp(nm, "max") ? TIR_MAX : TIR_MIN;
}

static TirStmt *lower(Ar *a, const TirStmt *s) {
  IrHeap *h = a->h;
  TirExpr *const *args = s->attr.body->eval.value->call.args;
  int n = s->attr.body->eval.value->call.n;
  Red rd;
  rd.op = reducer_op(s->attr.value->call.args[1]->str);
  rd.id = s->attr.value->call.args[2];
  rd.value = args[2];
  rd.dt = rd.value->dtype;
  if (!xf_is_const_true(args[3])) rd.value = tir_select(h, args[3], rd.value, rd.id);
  rd.result = args[4];
  int nr, ng;
  rd.r = flat(a, args + 5, n - 5, true, &rd.rext, &nr);
  rd.g = flat(a, args + 5, n - 5, false, &rd.gext, &ng);
  rd.x_only = false;
  for (int i = 0; i < a->nthreads && nr == 1; i++)
    rd.x_only |= !strcmp(a->threads[i]->loop.thread_tag, "threadIdx.x") && reduced(args + 5, n - 5, a->threads[i]->loop.var);
  if (rd.rext == 1) return store_result(h, &rd, rd.value);
  PtrVec seq = {0}, allocs = {0};
  if (warp_reducible(a, &rd)) warps(h, &rd, &seq, &allocs);
  else tree(h, &rd, &seq, &allocs);
  TirStmt *body = tir_seq(h, (TirStmt **)seq.items, seq.len);
  for (int i = allocs.len - 1; i >= 0; i--) {
    TirBuffer *b = allocs.items[i];
    body = tir_allocate(h, b->data, b->dtype, b->shape, 1, b->scope, tir_decl_buffer(h, b, body));
  }
  pv_free(&seq);
  pv_free(&allocs);
  return body;
}

static TirStmt *visit_attr(TirMutator *m, TirStmt *s) {
  Ar *a = m->ctx;
  if (is_allreduce(s)) return lower(a, s);
  return tir_mutate_stmt_children(m, s);
}

static TirStmt *visit_for(TirMutator *m, TirStmt *s) {
  Ar *a = m->ctx;
  bool t = s->loop.kind == TIR_FOR_THREAD_BINDING && !strncmp(s->loop.thread_tag, "threadIdx.", 10) &&
           a->nthreads < MAX_THREADS;
  if (t) a->threads[a->nthreads++] = s;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  a->nthreads -= t;
  return r;
}

/* requires: unified thread loops (one per axis and kernel), barriers placed
 * (thread-storage-sync); ensures: no T.tvm_thread_allreduce is left. */
TirFunc *tir_lower_thread_allreduce(TirPassCtx *ctx, TirFunc *f) {
  Ar a;
  memset(&a, 0, sizeof a);
  a.h = ctx->heap;
  a.cuda = ctx->target && !strcmp(ctx->target, "cuda");
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_ATTR] = visit_attr;
  m.stmt[TIR_S_FOR] = visit_for;
  m.ctx = &a;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
