/* xform_util.c - helpers shared by the lowering passes: the one gateway to the
 * arithmetic analyzer, constant-aware index arithmetic, no-op tests. */
#include "ir/transform/xform_internal.h"

#include <string.h>

TirExpr *xf_simplify(ArithCtx *a, TirExpr *e) {
  if (!e || !a) return e;
  if (e->dtype.lanes != 1) return e;
  return arith_simplify(a, e);
}

TirExpr *xf_int(IrHeap *h, DType t, int64_t v) {
  if (!dt_is_integer(t)) t = dt_int32;
  return tir_int(h, dt_element(t), v);
}

TirExpr *xf_cast_to(IrHeap *h, DType t, TirExpr *e) {
  if (dt_eq(e->dtype, t)) return e;
  int64_t v;
  if (tir_is_const_int(e, &v) && dt_is_integer(t)) return tir_int(h, t, v);
  return tir_cast(h, t, e);
}

static TirExpr *fold(IrHeap *h, TirExprKind k, TirExpr *a, TirExpr *b) {
  b = xf_cast_to(h, a->dtype, b);
  TirExpr *c = arith_const_fold(h, k, a, b);
  return c ? c : tir_binary(h, k, a, b);
}

TirExpr *xf_add(IrHeap *h, TirExpr *a, TirExpr *b) {
  if (tir_is_zero(b)) return a;
  if (tir_is_zero(a)) return xf_cast_to(h, a->dtype, b);
  return fold(h, TIR_ADD, a, b);
}

TirExpr *xf_sub(IrHeap *h, TirExpr *a, TirExpr *b) {
  if (tir_is_zero(b)) return a;
  return fold(h, TIR_SUB, a, b);
}

TirExpr *xf_mul(IrHeap *h, TirExpr *a, TirExpr *b) {
  if (tir_is_one(b)) return a;
  if (tir_is_one(a)) return xf_cast_to(h, a->dtype, b);
  return fold(h, TIR_MUL, a, b);
}

bool xf_is_const_true(const TirExpr *e) {
  int64_t v;
  return e && tir_is_const_int(e, &v) && v != 0;
}

bool xf_is_const_false(const TirExpr *e) {
  int64_t v;
  return e && tir_is_const_int(e, &v) && v == 0;
}

TirStmt *xf_nop(IrHeap *h) { return tir_evaluate(h, tir_i32(h, 0)); }

TirStmt *xf_repeat(IrHeap *h, const TirStmt *body, const TirVar *var, TirExpr *min, int64_t n) {
  TirStmt **copies = ir_alloc(h, (size_t)n * sizeof *copies);
  for (int64_t k = 0; k < n; k++) {
    TirExpr *val = xf_add(h, xf_cast_to(h, var->dtype, min), xf_int(h, var->dtype, k));
    copies[k] = tir_substitute_stmt1(h, body, var, val);
  }
  return tir_seq(h, copies, (int)n);
}

bool xf_is_nop(const TirStmt *s) {
  if (!s) return true;
  if (s->kind != TIR_S_EVAL) return false;
  TirExprKind k = s->eval.value->kind;
  return k == TIR_INT || k == TIR_FLOAT || k == TIR_STR;
}

TirFunc *xf_with_body(IrHeap *h, TirFunc *f, TirStmt *body) {
  if (body == f->body) return f;
  if (!body) body = xf_nop(h);
  TirFunc *c = ir_memdup(h, f, sizeof *f);
  c->body = body;
  return c;
}

typedef struct SideFx {
  bool found;
} SideFx;

static bool side_pre(TirVisitor *v, const TirExpr *e) {
  if (e->kind == TIR_CALL && (e->call.op->id == TIR_OP_CALL_EXTERN || e->call.op->id == TIR_OP_RET ||
                              e->call.op->id == TIR_OP_OPAQUE || /* opaque builtins: effects unknown */
                              e->call.op->id == TIR_OP_CALL_GLOBAL)) {
    ((SideFx *)v->ctx)->found = true;
    v->stop = true;
    return false;
  }
  return true;
}

bool xf_has_side_effect(const TirExpr *e) {
  SideFx s = {false};
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_expr = side_pre;
  v.ctx = &s;
  tir_visit_expr(&v, e);
  return s.found;
}

TirExpr *xf_warp_shuffle(IrHeap *h, DType dt, const char *fn, TirExpr *v, TirExpr *lane_or_delta, int64_t width,
                         int64_t warp_size) {
  TirExpr *args[6] = {tir_str(h, fn), xf_int(h, dt_int32, -1), v, xf_cast_to(h, dt_int32, lane_or_delta),
                      xf_int(h, dt_int32, width), xf_int(h, dt_int32, warp_size)};
  return tir_call(h, dt, &tir_op_table[TIR_OP_CALL_EXTERN], args, 6);
}

typedef struct KernelMap {
  bool (*is_launch)(const TirStmt *loop);
  TirStmt *(*rewrite)(IrHeap *h, TirStmt *loop);
} KernelMap;

static TirStmt *map_kernel_for(TirMutator *m, TirStmt *s) {
  const KernelMap *k = m->ctx;
  if (k->is_launch(s)) return k->rewrite(m->heap, s);
  return tir_mutate_stmt_children(m, s);
}

TirFunc *xf_map_kernels(TirPassCtx *ctx, TirFunc *f, bool (*is_launch)(const TirStmt *loop),
                        TirStmt *(*rewrite)(IrHeap *h, TirStmt *loop)) {
  KernelMap k = {is_launch, rewrite};
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.ctx = &k;
  m.stmt[TIR_S_FOR] = map_kernel_for;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
