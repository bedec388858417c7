/* legalize_elemwise.c - LegalizeOps builders of the element-wise family:
 * unary math and activations, clip, astype, comparisons / logical ops /
 * power with numpy broadcasting, where, dropout and the creation operators.
 *
 * The prim_funcs follow TVM v0.23's legalization (python topi): a unary op is
 * one block "compute" over loops i0.. named tir_<op> (tir_exp; erf: erf;
 * astype: cast; relu, leakyrelu, gelu, gelu_tanh, silu by their names); a
 * broadcast op is block T_<op> over loops ax0..; where is T_where; zeros,
 * ones, full (and their _like forms) fill T_full.  TVM composes gelu, gelu_tanh
 * and silu from several TOPI stages; here each is one block (T_multiply, the
 * name of TVM's last stage) computing the same formula.  dropout is
 * inference-only: (T_dropout = x, T_dropout_mask = 1) -- TVM leaves it to the
 * frontends and does not legalize it. */
#include "ir/transform/legalize_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ------------------------------------------------------------ helpers */

static TirExpr *flit(IrHeap *h, DType t, double v) {
  return dt_is_float(t) ? tir_float(h, t, v) : tir_int(h, t, (int64_t)v);
}

static TirExpr *call1(IrHeap *h, TirOpId op, TirExpr *x) {
  return tir_call(h, x->dtype, &tir_op_table[op], &x, 1);
}

/* The identity index of a nest's iters. */
static TirExpr **iter_index(IrHeap *h, const Nest *n) {
  TirExpr **idx = xcalloc((size_t)(n->n ? n->n : 1), sizeof *idx);
  for (int d = 0; d < n->n; d++) idx[d] = tir_var_ref(h, n->iters[d]);
  return idx;
}

/* The prim_func of one block `name` writing ob[iters] = value(iters), params
 * bufs[0..nb) then ob.  value is built by fn over the nest. */
typedef TirExpr *(*ValueFn)(Lg *g, const RxExpr *call, TirBuffer **bufs, TirBuffer *ob, const Nest *n);

static TirFunc *one_block(Lg *g, const RxExpr *call, TirBuffer **bufs, int nb, TirBuffer *ob, const char *block,
                          const char *prefix, ValueFn fn) {
  IrHeap *h = g->h;
  Nest nest;
  lg_iter_nest(g, &nest, ob->shape, ob->ndim, prefix);
  TirExpr **idx = iter_index(h, &nest);
  TirExpr *val = fn(g, call, bufs, ob, &nest);
  TirFunc *f = NULL;
  if (val) {
    bufs[nb] = ob;
    TirStmt *st = tir_store(h, ob, val, idx, ob->ndim);
    f = lg_wrap_func(g, bufs, nb + 1, lg_build_block(g, block, &nest, NULL, st));
  }
  free(idx);
  lg_nest_free(&nest);
  return f;
}

static TirBuffer *out_buffer(Lg *g, VarMap *vm, const char *name, const RxSInfo *si) {
  return lg_param_buffer(g, vm, name, si);
}

/* ------------------------------------------------------------ unary */

static const char *unary_name(RxOpId id) {
  switch (id) {
  case RX_OP_ERF: return "erf";
  case RX_OP_ASTYPE: return "cast";
  case RX_OP_NN_LEAKYRELU: return "leakyrelu";
  case RX_OP_NN_GELU: return "gelu";
  case RX_OP_NN_GELU_TANH: return "gelu_tanh";
  case RX_OP_NN_SILU: return "silu";
  default: return NULL; /* tir_<op> */
  }
}

/* An element math call; float16 erf runs in float32, as TVM's legalization. */
static TirExpr *math(IrHeap *h, TirOpId op, TirExpr *x) {
  if (op == TIR_OP_ERF && x->dtype.bits == 16)
    return tir_cast(h, x->dtype, call1(h, op, tir_cast(h, dt_float32, x)));
  return call1(h, op, x);
}

static TirExpr *activation(IrHeap *h, const RxExpr *call, TirExpr *x) {
  DType t = x->dtype;
  switch (call->call.op->id) {
  case RX_OP_NN_LEAKYRELU: {
    TirExpr *alpha = flit(h, t, rx_attr_float(call->call.attrs, "alpha", 0.01));
    return tir_select(h, tir_binary(h, TIR_GT, x, flit(h, t, 0)), x, tir_binary(h, TIR_MUL, x, alpha));
  }
  case RX_OP_NN_GELU: {
    TirExpr *e = math(h, TIR_OP_ERF, tir_binary(h, TIR_MUL, x, flit(h, t, sqrt(0.5))));
    return tir_binary(h, TIR_MUL, x, tir_binary(h, TIR_ADD, flit(h, t, 0.5), tir_binary(h, TIR_MUL, e, flit(h, t, 0.5))));
  }
  case RX_OP_NN_GELU_TANH: {
    TirExpr *in = tir_binary(h, TIR_MUL, tir_binary(h, TIR_MUL, flit(h, t, sqrt(2.0 / 3.14159265358979323846)), x),
                             tir_binary(h, TIR_ADD, flit(h, t, 1.0),
                                        tir_binary(h, TIR_MUL, tir_binary(h, TIR_MUL, flit(h, t, 0.044715), x), x)));
    TirExpr *th = tir_binary(h, TIR_ADD, flit(h, t, 1.0), call1(h, TIR_OP_TANH, in));
    return tir_binary(h, TIR_MUL, tir_binary(h, TIR_MUL, flit(h, t, 0.5), x), th);
  }
  case RX_OP_NN_SILU: return tir_binary(h, TIR_MUL, x, call1(h, TIR_OP_SIGMOID, x));
  default: return NULL;
  }
}

/* clip's bound operand i as a literal of dtype t; NULL when not a constant. */
static TirExpr *clip_bound(IrHeap *h, const RxExpr *a, DType t) {
  if (a->kind != RX_PRIM_VALUE) return NULL;
  const TirExpr *v = a->prim.value;
  if (v->kind == TIR_INT) return flit(h, t, (double)v->ival);
  if (v->kind == TIR_FLOAT) return dt_is_float(t) ? tir_float(h, t, v->fval) : tir_int(h, t, (int64_t)v->fval);
  return NULL;
}

static TirExpr *unary_value(Lg *g, const RxExpr *call, TirBuffer **bufs, TirBuffer *ob, const Nest *n) {
  IrHeap *h = g->h;
  TirExpr **idx = iter_index(h, n);
  TirExpr *x = lg_load(h, bufs[0], idx);
  free(idx);
  DType t = x->dtype;
  bool fl = dt_is_float(t);
  switch (call->call.op->id) {
  case RX_OP_ABS:
    return fl ? call1(h, TIR_OP_FABS, x)
              : tir_select(h, tir_binary(h, TIR_GE, x, flit(h, t, 0)), x, tir_binary(h, TIR_MUL, x, flit(h, t, -1)));
  case RX_OP_NEGATIVE: return tir_binary(h, TIR_MUL, x, flit(h, t, -1));
  case RX_OP_EXP: return call1(h, TIR_OP_EXP, x);
  case RX_OP_LOG: return call1(h, TIR_OP_LOG, x);
  case RX_OP_SQRT: return call1(h, TIR_OP_SQRT, x);
  case RX_OP_RSQRT: return call1(h, TIR_OP_RSQRT, x);
  case RX_OP_TANH: return call1(h, TIR_OP_TANH, x);
  case RX_OP_SIGMOID: return call1(h, TIR_OP_SIGMOID, x);
  case RX_OP_ERF: return math(h, TIR_OP_ERF, x);
  case RX_OP_SIN: return call1(h, TIR_OP_SIN, x);
  case RX_OP_COS: return call1(h, TIR_OP_COS, x);
  case RX_OP_ROUND: return fl ? call1(h, TIR_OP_ROUND, x) : x;
  case RX_OP_FLOOR: return fl ? call1(h, TIR_OP_FLOOR, x) : x;
  case RX_OP_CEIL: return fl ? call1(h, TIR_OP_CEIL, x) : x;
  case RX_OP_LOGICAL_NOT: return tir_not(h, x);
  case RX_OP_SQUARE: return tir_binary(h, TIR_MUL, x, x);
  case RX_OP_ASTYPE: return dt_eq(t, ob->dtype) ? x : tir_cast(h, ob->dtype, x);
  case RX_OP_NN_RELU: return tir_binary(h, TIR_MAX, x, flit(h, t, 0));
  case RX_OP_CLIP: {
    TirExpr *lo = clip_bound(h, call->call.args[1], t), *hi = clip_bound(h, call->call.args[2], t);
    if (!lo || !hi) return NULL;
    return tir_binary(h, TIR_MIN, tir_binary(h, TIR_MAX, x, lo), hi);
  }
  default: return activation(h, call, x);
  }
}

TirFunc *rx_legalize_ew_unary(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  const RxExpr *a = call->call.args[0];
  RxOpId id = call->call.op->id;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[2] = {lg_param_buffer(g, &vm, "A", a->sinfo), NULL};
  args[0] = (RxExpr *)a;
  *nargs = 1;
  bool mul = id == RX_OP_SQUARE || id == RX_OP_NN_GELU || id == RX_OP_NN_GELU_TANH || id == RX_OP_NN_SILU;
  const char *oname = mul ? "T_multiply" : "compute";
  TirBuffer *ob = out_buffer(g, &vm, oname, call->sinfo);
  TirFunc *f = one_block(g, call, bufs, 1, ob, oname, mul ? "ax" : "i", unary_value);
  ir_ptrmap_free(&vm.map);
  const char *nm = unary_name(id);
  if (!nm) {
    char *t = xasprintf("tir_%s", call->call.op->script_name);
    nm = ir_strdup(g->h, t);
    free(t);
  }
  g->name_hint = nm;
  return f;
}

/* ------------------------------------------------------------ broadcasting */

/* Operands of a broadcast op: 0-d constants become literals (lit[i]), the
 * others parameter buffers; returns the number of buffers. */
static int bcast_operands(Lg *g, VarMap *vm, const RxExpr *call, int n, TirBuffer **bufs, TirExpr **lit,
                          RxExpr **args) {
  static const char *const names[] = {"A", "B", "C"};
  int nb = 0;
  for (int i = 0; i < n; i++) {
    const RxExpr *op = call->call.args[i];
    lit[i] = NULL;
    /* as TVM: the second operand first, the first only when the second is not one */
    bool try_lit = n == 2 && lg_scalar_const(op) && !(i == 0 && lg_scalar_const(call->call.args[1]));
    if (try_lit) lit[i] = lg_const_literal(g->h, op, op->cnst.dtype);
    if (lit[i]) continue;
    bufs[nb] = lg_param_buffer(g, vm, names[nb], op->sinfo);
    args[nb++] = (RxExpr *)op;
  }
  return nb;
}

/* The operands' values at the nest's point (broadcast loads or literals). */
static void bcast_values(IrHeap *h, TirBuffer **bufs, TirExpr **lit, int n, TirBuffer *ob, const Nest *nest,
                         TirExpr **val) {
  for (int i = 0, k = 0; i < n; i++) {
    if (lit[i]) {
      val[i] = lit[i];
      continue;
    }
    TirExpr **idx = lg_bcast_index(h, bufs[k], ob->shape, nest->iters, ob->ndim);
    val[i] = lg_load(h, bufs[k], idx);
    free(idx);
    k++;
  }
}

static TirExpr *bcast_value(IrHeap *h, const RxExpr *call, TirExpr **v, int n) {
  if (n == 3) return tir_select(h, v[0], v[1], v[2]);
  if (call->call.op->id == RX_OP_POWER) return tir_call(h, v[0]->dtype, &tir_op_table[TIR_OP_POW], v, 2);
  return tir_binary(h, (TirExprKind)call->call.op->tir_binop, v[0], v[1]);
}

static TirFunc *legalize_bcast(Lg *g, const RxExpr *call, int n, RxExpr **args, int *nargs) {
  IrHeap *h = g->h;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[4];
  TirExpr *lit[3], *val[3];
  int nb = bcast_operands(g, &vm, call, n, bufs, lit, args);
  *nargs = nb;
  char *tmp = xasprintf("T_%s", call->call.op->script_name);
  const char *oname = ir_strdup(h, tmp);
  free(tmp);
  TirBuffer *ob = out_buffer(g, &vm, oname, call->sinfo);
  Nest nest;
  lg_iter_nest(g, &nest, ob->shape, ob->ndim, "ax");
  bcast_values(h, bufs, lit, n, ob, &nest, val);
  TirExpr **oidx = iter_index(h, &nest);
  TirStmt *st = tir_store(h, ob, bcast_value(h, call, val, n), oidx, ob->ndim);
  bufs[nb] = ob;
  TirFunc *f = lg_wrap_func(g, bufs, nb + 1, lg_build_block(g, oname, &nest, NULL, st));
  free(oidx);
  lg_nest_free(&nest);
  ir_ptrmap_free(&vm.map);
  return f;
}

TirFunc *rx_legalize_ew_binary(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return legalize_bcast(g, call, 2, args, nargs);
}

TirFunc *rx_legalize_where(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return legalize_bcast(g, call, 3, args, nargs);
}

/* ------------------------------------------------------------ dropout */

static TirStmt *fill_block(Lg *g, TirBuffer *ob, const char *name, TirBuffer *src, TirExpr *value) {
  IrHeap *h = g->h;
  Nest nest;
  lg_iter_nest(g, &nest, ob->shape, ob->ndim, "i");
  TirExpr **idx = iter_index(h, &nest);
  TirStmt *st = tir_store(h, ob, src ? lg_load(h, src, idx) : value, idx, ob->ndim);
  TirStmt *s = lg_build_block(g, name, &nest, NULL, st);
  free(idx);
  lg_nest_free(&nest);
  return s;
}

TirFunc *rx_legalize_dropout(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  const RxExpr *a = call->call.args[0];
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[3];
  bufs[0] = lg_param_buffer(g, &vm, "A", a->sinfo);
  bufs[1] = lg_param_buffer(g, &vm, "T_dropout", a->sinfo);
  bufs[2] = lg_param_buffer(g, &vm, "T_dropout_mask", a->sinfo);
  args[0] = (RxExpr *)a;
  *nargs = 1;
  TirStmt *s[2] = {fill_block(g, bufs[1], "T_dropout", bufs[0], NULL),
                   fill_block(g, bufs[2], "T_dropout_mask", NULL, flit(g->h, a->sinfo->dtype, 1.0))};
  TirFunc *f = lg_wrap_func(g, bufs, 3, tir_seq(g->h, s, 2));
  ir_ptrmap_free(&vm.map);
  return f;
}

/* ------------------------------------------------------------ creation */

static bool static_shape(const RxSInfo *si) {
  for (int d = 0; d < si->ndim; d++)
    if (!tir_is_const_int(si->shape[d], NULL)) return false;
  return true;
}

/* zeros/ones/full(_like): T_full = the fill value.  A symbolic _like shape is
 * bound through its operand (passed along); a symbolic zeros shape has nothing
 * to bind it and stays unlegalized.  A non-constant fill value is a 0-d
 * buffer argument. */
TirFunc *rx_legalize_create(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  IrHeap *h = g->h;
  RxOpId id = call->call.op->id;
  bool like = id == RX_OP_ZEROS_LIKE || id == RX_OP_ONES_LIKE || id == RX_OP_FULL_LIKE;
  bool full = id == RX_OP_FULL || id == RX_OP_FULL_LIKE;
  const RxSInfo *out = call->sinfo;
  DType t = out->dtype;
  if (!static_shape(out) && !like) return NULL;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[3];
  int nb = 0;
  if (!static_shape(out)) {
    bufs[nb] = lg_param_buffer(g, &vm, "A", call->call.args[0]->sinfo);
    args[nb++] = call->call.args[0];
  }
  TirExpr *value = flit(h, t, id == RX_OP_ONES || id == RX_OP_ONES_LIKE ? 1.0 : 0.0);
  if (full) {
    const RxExpr *fv = call->call.args[1];
    value = lg_scalar_const(fv) ? lg_const_literal(h, fv, t) : NULL;
    if (!value) {
      bufs[nb] = lg_param_buffer(g, &vm, nb ? "B" : "A", fv->sinfo);
      args[nb] = (RxExpr *)fv;
      value = lg_load(h, bufs[nb++], NULL);
      if (!dt_eq(value->dtype, t)) value = tir_cast(h, t, value);
    }
  }
  *nargs = nb;
  TirBuffer *ob = out_buffer(g, &vm, "T_full", out);
  Nest nest;
  lg_iter_nest(g, &nest, ob->shape, ob->ndim, "ax");
  TirExpr **idx = iter_index(h, &nest);
  TirStmt *st = tir_store(h, ob, value, idx, ob->ndim);
  bufs[nb] = ob;
  TirFunc *f = lg_wrap_func(g, bufs, nb + 1, lg_build_block(g, "T_full", &nest, NULL, st));
  free(idx);
  lg_nest_free(&nest);
  ir_ptrmap_free(&vm.map);
  g->name_hint = full ? "full" : (id == RX_OP_ONES || id == RX_OP_ONES_LIKE) ? "ones" : "zeros";
  return f;
}
