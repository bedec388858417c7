/* tir.c - loop IR constructors and small queries. */
#include "ir/tir.h"
#include "base/util.h"

#include <string.h>

const TirOpInfo tir_op_table[TIR_NUM_OPS] = {
#define X(E, S, T, N, K, L, M, C, I) {TIR_OP_##E, S, T, N, TIR_OPK_##K, I},
#include "ir/tir_ops.def"
#undef X
};

const TirOpInfo *tir_op_lookup(const char *name) {
  for (int i = 0; i < TIR_NUM_OPS; i++)
    if (!strcmp(tir_op_table[i].name, name)) return &tir_op_table[i];
  return NULL;
}

const char *tir_expr_kind_name(TirExprKind k) {
  static const char *names[] = {
#define X(E, N, M) #N,
#include "ir/tir_expr.def"
#undef X
  };
  return (unsigned)k < TIR_NUM_EXPR_KINDS ? names[k] : "?";
}

const char *tir_stmt_kind_name(TirStmtKind k) {
  static const char *names[] = {
#define X(E, N, M) #N,
#include "ir/tir_stmt.def"
#undef X
  };
  return (unsigned)k < TIR_NUM_STMT_KINDS ? names[k] : "?";
}

#define COPY_ARRAY(h, p, n) ((n) ? ir_memdup((h), (p), (size_t)(n) * sizeof *(p)) : NULL)

TirVar *tir_var(IrHeap *h, const char *name, DType t) {
  TirVar *v = ir_alloc(h, sizeof *v);
  v->name = ir_strdup(h, name ? name : "v");
  v->dtype = t;
  v->ptr_elem = dt_void;
  v->span = span_none;
  return v;
}

TirBuffer *tir_buffer(IrHeap *h, const char *name, DType dtype, TirExpr **shape, int ndim,
                      const char *scope) {
  TirBuffer *b = ir_alloc(h, sizeof *b);
  b->name = ir_strdup(h, name);
  b->dtype = dtype;
  b->shape = COPY_ARRAY(h, shape, ndim);
  b->ndim = ndim;
  b->scope = ir_strdup(h, scope ? scope : "global");
  b->data = tir_var(h, name, dt_handle);
  b->data->ptr_elem = dtype;
  b->data->ptr_scope = b->scope;
  b->span = span_none;
  return b;
}

TirBuffer *tir_buffer_copy(IrHeap *h, const TirBuffer *b) { return ir_memdup(h, b, sizeof *b); }

static TirExpr *mk_expr(IrHeap *h, TirExprKind k, DType t) {
  TirExpr *e = ir_alloc(h, sizeof *e);
  e->kind = k;
  e->dtype = t;
  e->span = span_none;
  return e;
}

TirExpr *tir_int(IrHeap *h, DType t, int64_t v) {
  TirExpr *e = mk_expr(h, TIR_INT, t);
  e->ival = v;
  return e;
}
TirExpr *tir_i32(IrHeap *h, int64_t v) { return tir_int(h, dt_int32, v); }
TirExpr *tir_bool(IrHeap *h, bool v) { return tir_int(h, dt_bool, v); }

TirExpr *tir_float(IrHeap *h, DType t, double v) {
  TirExpr *e = mk_expr(h, TIR_FLOAT, t);
  e->fval = v;
  return e;
}

TirExpr *tir_str(IrHeap *h, const char *s) {
  TirExpr *e = mk_expr(h, TIR_STR, dt_handle);
  e->str = ir_strdup(h, s);
  return e;
}

TirExpr *tir_var_ref(IrHeap *h, TirVar *v) {
  TirExpr *e = mk_expr(h, TIR_VAR, v->dtype);
  e->var = v;
  return e;
}

TirExpr *tir_binary(IrHeap *h, TirExprKind k, TirExpr *a, TirExpr *b) {
  DType t = a->dtype;
  if (k >= TIR_EQ && k <= TIR_OR) t = dt_with_lanes(dt_bool, a->dtype.lanes);
  TirExpr *e = mk_expr(h, k, t);
  e->bin.a = a;
  e->bin.b = b;
  return e;
}

TirExpr *tir_not(IrHeap *h, TirExpr *a) {
  TirExpr *e = mk_expr(h, TIR_NOT, a->dtype);
  e->un.a = a;
  return e;
}

TirExpr *tir_select(IrHeap *h, TirExpr *c, TirExpr *t, TirExpr *f) {
  TirExpr *e = mk_expr(h, TIR_SELECT, t->dtype);
  e->sel.cond = c;
  e->sel.t = t;
  e->sel.f = f;
  return e;
}

TirExpr *tir_cast(IrHeap *h, DType t, TirExpr *a) {
  TirExpr *e = mk_expr(h, TIR_CAST, t);
  e->un.a = a;
  return e;
}

TirExpr *tir_load(IrHeap *h, TirBuffer *b, TirExpr **idx, int n) {
  DType t = b->dtype;
  for (int i = 0; i < n; i++)
    if (idx[i]->dtype.lanes > 1) t = dt_with_lanes(t, idx[i]->dtype.lanes);
  TirExpr *e = mk_expr(h, TIR_LOAD, t);
  e->load.buf = b;
  e->load.idx = COPY_ARRAY(h, idx, n);
  e->load.n = n;
  return e;
}

TirExpr *tir_ramp(IrHeap *h, TirExpr *base, TirExpr *stride, int lanes) {
  TirExpr *e = mk_expr(h, TIR_RAMP, dt_with_lanes(base->dtype, lanes));
  e->ramp.base = base;
  e->ramp.stride = stride;
  e->ramp.lanes = lanes;
  return e;
}

TirExpr *tir_broadcast(IrHeap *h, TirExpr *v, int lanes) {
  TirExpr *e = mk_expr(h, TIR_BROADCAST, dt_with_lanes(v->dtype, lanes));
  e->bcast.value = v;
  e->bcast.lanes = lanes;
  return e;
}

TirExpr *tir_let(IrHeap *h, TirVar *v, TirExpr *value, TirExpr *body) {
  TirExpr *e = mk_expr(h, TIR_LET, body->dtype);
  e->let.var = v;
  e->let.value = value;
  e->let.body = body;
  return e;
}

TirExpr *tir_call(IrHeap *h, DType t, const TirOpInfo *op, TirExpr **args, int n) {
  TirExpr *e = mk_expr(h, TIR_CALL, t);
  e->call.op = op;
  e->call.args = COPY_ARRAY(h, args, n);
  e->call.n = n;
  return e;
}

TirExpr *tir_expr_with_span(IrHeap *h, const TirExpr *e, Span s) {
  TirExpr *c = ir_memdup(h, e, sizeof *e);
  c->span = s;
  return c;
}

static TirStmt *mk_stmt(IrHeap *h, TirStmtKind k) {
  TirStmt *s = ir_alloc(h, sizeof *s);
  s->kind = k;
  s->span = span_none;
  return s;
}

TirStmt *tir_store(IrHeap *h, TirBuffer *b, TirExpr *value, TirExpr **idx, int n) {
  TirStmt *s = mk_stmt(h, TIR_S_STORE);
  s->store.buf = b;
  s->store.value = value;
  s->store.idx = COPY_ARRAY(h, idx, n);
  s->store.n = n;
  return s;
}

TirStmt *tir_seq(IrHeap *h, TirStmt **stmts, int n) {
  int total = 0;
  for (int i = 0; i < n; i++) {
    if (!stmts[i]) continue;
    total += stmts[i]->kind == TIR_S_SEQ ? stmts[i]->seq.n : 1;
  }
  if (total == 0) return NULL;
  TirStmt **flat = ir_alloc(h, (size_t)total * sizeof *flat);
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (!stmts[i]) continue;
    if (stmts[i]->kind == TIR_S_SEQ)
      for (int j = 0; j < stmts[i]->seq.n; j++) flat[m++] = stmts[i]->seq.stmts[j];
    else
      flat[m++] = stmts[i];
  }
  if (m == 1) return flat[0];
  TirStmt *s = mk_stmt(h, TIR_S_SEQ);
  s->seq.stmts = flat;
  s->seq.n = m;
  return s;
}

TirStmt *tir_for(IrHeap *h, TirVar *v, TirExpr *min, TirExpr *extent, TirForKind kind,
                 const char *thread_tag, IrValue *annotations, TirStmt *body) {
  TirStmt *s = mk_stmt(h, TIR_S_FOR);
  s->loop.var = v;
  s->loop.min = min;
  s->loop.extent = extent;
  s->loop.kind = kind;
  s->loop.thread_tag = thread_tag ? ir_strdup(h, thread_tag) : NULL;
  s->loop.annotations = annotations;
  s->loop.body = body;
  return s;
}

TirStmt *tir_for_with_step(IrHeap *h, const TirStmt *loop, TirExpr *step) {
  TirStmt *s = ir_alloc(h, sizeof *s);
  *s = *loop;
  s->loop.step = step;
  return s;
}

bool tir_for_trivial_step(const TirStmt *loop) {
  return !loop->loop.step || tir_is_one(loop->loop.step);
}

TirStmt *tir_if(IrHeap *h, TirExpr *c, TirStmt *then_s, TirStmt *else_s) {
  TirStmt *s = mk_stmt(h, TIR_S_IF);
  s->ifs.cond = c;
  s->ifs.then_s = then_s;
  s->ifs.else_s = else_s;
  return s;
}

TirStmt *tir_let_stmt(IrHeap *h, TirVar *v, TirExpr *value, TirStmt *body) {
  TirStmt *s = mk_stmt(h, TIR_S_LET);
  s->let.var = v;
  s->let.value = value;
  s->let.body = body;
  return s;
}

TirStmt *tir_evaluate(IrHeap *h, TirExpr *e) {
  TirStmt *s = mk_stmt(h, TIR_S_EVAL);
  s->eval.value = e;
  return s;
}

TirStmt *tir_assert(IrHeap *h, TirExpr *cond, TirExpr *msg, TirStmt *body) {
  TirStmt *s = mk_stmt(h, TIR_S_ASSERT);
  s->assrt.cond = cond;
  s->assrt.msg = msg;
  s->assrt.body = body;
  return s;
}

TirStmt *tir_while(IrHeap *h, TirExpr *cond, TirStmt *body) {
  TirStmt *s = mk_stmt(h, TIR_S_WHILE);
  s->loop_while.cond = cond;
  s->loop_while.body = body;
  return s;
}

TirStmt *tir_block(IrHeap *h, const TirBlock *blk) {
  TirStmt *s = mk_stmt(h, TIR_S_BLOCK);
  TirBlock *b = &s->block;
  *b = *blk;
  b->name = ir_strdup(h, blk->name ? blk->name : "");
  b->iters = COPY_ARRAY(h, blk->iters, blk->niters);
  b->reads = COPY_ARRAY(h, blk->reads, blk->nreads);
  b->writes = COPY_ARRAY(h, blk->writes, blk->nwrites);
  b->allocs = COPY_ARRAY(h, blk->allocs, blk->nallocs);
  b->matches = COPY_ARRAY(h, blk->matches, blk->nmatches);
  return s;
}

TirStmt *tir_block_realize(IrHeap *h, TirExpr **values, int n, TirExpr *pred, TirStmt *block) {
  TirStmt *s = mk_stmt(h, TIR_S_BLOCK_REALIZE);
  s->realize.values = COPY_ARRAY(h, values, n);
  s->realize.n = n;
  s->realize.pred = pred ? pred : tir_bool(h, true);
  s->realize.block = block;
  s->span = block->span;
  return s;
}

TirStmt *tir_allocate(IrHeap *h, TirVar *v, DType t, TirExpr **extents, int n, const char *scope,
                      TirStmt *body) {
  TirStmt *s = mk_stmt(h, TIR_S_ALLOCATE);
  s->alloc.var = v;
  s->alloc.dtype = t;
  s->alloc.extents = COPY_ARRAY(h, extents, n);
  s->alloc.n = n;
  s->alloc.scope = ir_strdup(h, scope ? scope : "global");
  s->alloc.body = body;
  return s;
}

TirStmt *tir_allocate_const(IrHeap *h, TirVar *v, DType t, TirExpr **extents, int n,
                            TirExpr **data, int ndata, TirStmt *body) {
  TirStmt *s = tir_allocate(h, v, t, extents, n, "global", body);
  s->kind = TIR_S_ALLOCATE_CONST;
  s->alloc.data = COPY_ARRAY(h, data, ndata);
  s->alloc.ndata = ndata;
  return s;
}

TirStmt *tir_decl_buffer(IrHeap *h, TirBuffer *b, TirStmt *body) {
  TirStmt *s = mk_stmt(h, TIR_S_DECL_BUFFER);
  s->decl.buf = b;
  s->decl.body = body;
  return s;
}

TirStmt *tir_attr_stmt(IrHeap *h, const char *key, TirVar *node, TirExpr *value, TirStmt *body) {
  TirStmt *s = mk_stmt(h, TIR_S_ATTR);
  s->attr.key = ir_strdup(h, key);
  s->attr.node = node;
  s->attr.value = value;
  s->attr.body = body;
  return s;
}

TirStmt *tir_stmt_with_span(IrHeap *h, const TirStmt *s, Span sp) {
  TirStmt *c = ir_memdup(h, s, sizeof *s);
  c->span = sp;
  return c;
}

TirFunc *tir_func(IrHeap *h, TirVar **params, TirBuffer **buffer_map, int n, TirStmt *body,
                  IrValue *attrs) {
  TirFunc *f = ir_alloc(h, sizeof *f);
  f->params = COPY_ARRAY(h, params, n);
  f->buffer_map = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *f->buffer_map);
  if (buffer_map)
    for (int i = 0; i < n; i++) f->buffer_map[i] = buffer_map[i];
  f->nparams = n;
  f->ret_type = dt_void;
  f->body = body;
  f->attrs = attrs;
  f->span = span_none;
  return f;
}

bool tir_is_const_int(const TirExpr *e, int64_t *v) {
  if (!e || e->kind != TIR_INT) return false;
  if (v) *v = e->ival;
  return true;
}

bool tir_is_one(const TirExpr *e) { return e && e->kind == TIR_INT && e->ival == 1; }
bool tir_is_zero(const TirExpr *e) { return e && e->kind == TIR_INT && e->ival == 0; }

/* The result type a builtin has when no dtype= is given: an integer for the
 * quantized multiply (its first operand's), int32 for packed calls and
 * struct stores, a handle for the rest (fragments, pointers, barriers). */
DType tir_opaque_default_dtype(const char *nm, TirExpr *const *args, int nargs) {
  if (!strncmp(nm, "q_multiply_shift", 16) && nargs > 0) return args[0]->dtype;
  if (!strcmp(nm, "tvm_struct_set") || !strncmp(nm, "call_packed", 11) || !strncmp(nm, "call_cpacked", 12) ||
      !strcmp(nm, "tvm_call_packed") || !strcmp(nm, "tvm_call_cpacked") || !strcmp(nm, "tvm_throw_last_error") ||
      !strcmp(nm, "start_profile_intrinsic") || !strcmp(nm, "end_profile_intrinsic"))
    return dt_int32;
  if (!strcmp(nm, "isnullptr")) return dt_bool;
  /* T.tvm_warp_shuffle(_up/_down)(mask, value, ...): the value's type */
  if (!strncmp(nm, "tvm_warp_shuffle", 16) && nargs > 1) return args[1]->dtype;
  /* T.call_llvm_(pure_)intrin(dtype, name, *args): the dtype comes first */
  DType t;
  if (!strncmp(nm, "call_llvm_", 10) && nargs > 0 && args[0]->kind == TIR_STR && dt_parse(args[0]->str, &t))
    return t;
  if (!strcmp(nm, "break_loop") || !strcmp(nm, "continue_loop")) return dt_void;
  return dt_handle;
}

bool tir_scope_is_global(const char *scope) {
  return !scope || !*scope || !strncmp(scope, "global", 6);
}

static int storage_rank(const char *scope) {
  if (tir_scope_is_global(scope)) return 0;
  if (!strncmp(scope, "shared", 6)) return 1;
  if (!strncmp(scope, "warp", 4)) return 2;
  return 3; /* local and the special scopes: private to a thread */
}

bool tir_storage_relaxed_under_thread(const char *scope, const char *thread_tag) {
  if (!thread_tag) return false;
  int trank;
  if (!strncmp(thread_tag, "blockIdx.", 9)) trank = 0;
  else if (!strncmp(thread_tag, "threadIdx.", 10) || !strncmp(thread_tag, "vthread", 7)) trank = 1;
  else return false;
  int srank = storage_rank(scope);
  if (srank == 2) return !strcmp(thread_tag, "threadIdx.x");
  return srank <= trank;
}
