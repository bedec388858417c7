/* relax_op_elemwise.c - attribute schemas and struct-info inference of the
 * element-wise family (unary math, activations, logical ops, where, dropout,
 * softmax, creation).  The normalization operators are relax_op_norm.c.
 *
 * Rules follow TVM v0.23's FInferStructInfo: the transcendental unary ops and
 * the nn activations require a float tensor; logical ops (TVS: and TVM's TOPI,
 * whose And/Or/Not are boolean) require bool; where's condition is bool and its
 * branches share a dtype; softmax's axis must be in range; creation ops take
 * an R.shape and a dtype (the _like ones the operand's struct info). */
#include "ir/relax_op.h"

#include <string.h>

/* ------------------------------------------------------------ schemas */

static const RxAttrSpec leakyrelu_specs[] = {{"alpha", RX_ATTR_FLOAT, "0.01", 1, 0}};
static const RxAttrSpec dropout_specs[] = {{"rate", RX_ATTR_FLOAT, "0.5", 1, 0}};
static const RxAttrSpec softmax_specs[] = {{"axis", RX_ATTR_INT, "-1", 1, 0}};
static const RxAttrSpec zeros_specs[] = {{"dtype", RX_ATTR_DTYPE, NULL, 1, 0}};
static const RxAttrSpec full_specs[] = {{"dtype", RX_ATTR_DTYPE, "void", 2, 0}};
static const RxAttrSpec like_specs[] = {{"dtype", RX_ATTR_DTYPE, "void", 1, 0}};
const RxAttrSchema rx_attrs_leakyrelu[1] = {{false, true, leakyrelu_specs, 1}};
const RxAttrSchema rx_attrs_dropout[1] = {{false, true, dropout_specs, 1}};
const RxAttrSchema rx_attrs_softmax[1] = {{false, true, softmax_specs, 1}};
const RxAttrSchema rx_attrs_zeros[1] = {{false, true, zeros_specs, 1}};
const RxAttrSchema rx_attrs_full[1] = {{false, true, full_specs, 1}};
const RxAttrSchema rx_attrs_like[1] = {{false, true, like_specs, 1}};

/* ------------------------------------------------------------ helpers */

static const char *si_text(const RxInferCall *q, const RxSInfo *s) {
  StrBuf sb;
  sb_init(&sb);
  rx_sinfo_str(&sb, s);
  const char *r = arena_strdup(q->scratch, sb.data);
  sb_free(&sb);
  return r;
}

static const char *dt_text(const RxInferCall *q, DType t) {
  char buf[DT_STR_MAX];
  return arena_strdup(q->scratch, dt_str(t, buf));
}

#define BAD ((const RxSInfo *)-1)

/* Operand i as a tensor: its sinfo, NULL when only an R.Object, BAD after an error. */
static const RxSInfo *tensor_operand(const RxInferCall *q, int i, const char *what) {
  const RxSInfo *s = i < q->n ? q->args[i] : NULL;
  if (s && s->kind == RX_SI_TENSOR) return s;
  if (s && s->kind == RX_SI_OBJECT) return NULL;
  diag_error(q->diag, i < q->n ? q->arg_spans[i] : q->span, "R.%s expects %s to be a tensor, got %s",
             q->op->script_name, what, s ? si_text(q, s) : "nothing");
  return BAD;
}

/* Which unary operators need a float operand (TVM's require_float_dtype). */
static bool needs_float(RxOpId id) {
  switch (id) {
  case RX_OP_EXP: case RX_OP_LOG: case RX_OP_SQRT: case RX_OP_RSQRT: case RX_OP_TANH:
  case RX_OP_SIGMOID: case RX_OP_ERF: case RX_OP_SIN: case RX_OP_COS: case RX_OP_NN_GELU:
  case RX_OP_NN_GELU_TANH: case RX_OP_NN_SILU: case RX_OP_NN_LEAKYRELU: case RX_OP_NN_SOFTMAX:
  case RX_OP_NN_LOG_SOFTMAX:
    return true;
  default: return false;
  }
}

/* Reports a dtype the operator does not accept; false after an error. */
static bool check_dtype(const RxInferCall *q, int i, const RxSInfo *s) {
  if (!s || dt_is_void(s->dtype)) return true;
  if (needs_float(q->op->id) && !dt_is_float(s->dtype)) {
    diag_error(q->diag, q->arg_spans[i], "R.%s requires a float tensor, but the operand has dtype '%s'",
               q->op->script_name, dt_text(q, s->dtype));
    return false;
  }
  if ((q->op->id == RX_OP_LOGICAL_NOT || q->op->id == RX_OP_LOGICAL_AND || q->op->id == RX_OP_LOGICAL_OR) &&
      !dt_is_bool(s->dtype)) {
    diag_error(q->diag, q->arg_spans[i], "R.%s requires bool tensors, but operand %d has dtype '%s'",
               q->op->script_name, i, dt_text(q, s->dtype));
    return false;
  }
  return true;
}

static RxSInfo *same_as(const RxInferCall *q, const RxSInfo *a) {
  return a ? rx_sinfo_tensor(q->h, a->shape, a->ndim, a->dtype) : rx_sinfo_tensor(q->h, NULL, -1, dt_void);
}

/* ------------------------------------------------------------ rules */

RxSInfo *rx_infer_ew_unary(const RxInferCall *q) {
  const RxSInfo *a = tensor_operand(q, 0, "its operand");
  if (a == BAD || !check_dtype(q, 0, a)) return NULL;
  return same_as(q, a);
}

/* clip(x, min, max): the bounds are PrimValues (a number written there is one). */
RxSInfo *rx_infer_clip(const RxInferCall *q) {
  const RxSInfo *a = tensor_operand(q, 0, "x");
  if (a == BAD) return NULL;
  for (int i = 1; i < 3; i++) {
    const RxSInfo *s = q->args[i];
    if (s && (s->kind == RX_SI_PRIM || s->kind == RX_SI_OBJECT)) continue;
    diag_error(q->diag, q->arg_spans[i], "R.clip expects '%s' to be a PrimValue (a number), got %s",
               i == 1 ? "min" : "max", s ? si_text(q, s) : "nothing");
    return NULL;
  }
  return same_as(q, a);
}

RxSInfo *rx_infer_logical_bcast(const RxInferCall *q) {
  for (int i = 0; i < 2; i++) {
    const RxSInfo *s = tensor_operand(q, i, i ? "x2" : "x1");
    if (s == BAD || !check_dtype(q, i, s)) return NULL;
  }
  return rx_infer_binary_bcast(q);
}

/* where(cond, x1, x2): x1 and x2 broadcast (same dtype), then with cond. */
RxSInfo *rx_infer_where(const RxInferCall *q) {
  const RxSInfo *c = tensor_operand(q, 0, "condition"), *a = tensor_operand(q, 1, "x1"),
                *b = tensor_operand(q, 2, "x2");
  if (c == BAD || a == BAD || b == BAD) return NULL;
  if (c && !dt_is_void(c->dtype) && !dt_is_bool(c->dtype)) {
    diag_error(q->diag, q->arg_spans[0], "R.where requires a bool condition, but it has dtype '%s'",
               dt_text(q, c->dtype));
    return NULL;
  }
  if (!a || !b || !c) return rx_sinfo_tensor(q->h, NULL, -1, a ? a->dtype : b ? b->dtype : dt_void);
  RxInferCall q2 = *q;
  RxSInfo *ab[2] = {(RxSInfo *)a, (RxSInfo *)b};
  Span sp[2] = {q->arg_spans[1], q->arg_spans[2]};
  q2.args = ab;
  q2.arg_spans = sp;
  q2.n = 2;
  RxSInfo *r = rx_infer_binary_bcast(&q2);
  if (!r) return NULL;
  /* the condition broadcast against the branches, as a tensor of their dtype */
  RxSInfo *cr[2] = {rx_sinfo_tensor(q->h, c->shape, c->ndim, r->dtype), r};
  Span sc[2] = {q->arg_spans[0], q->span};
  q2.args = cr;
  q2.arg_spans = sc;
  return rx_infer_binary_bcast(&q2);
}

/* dropout(x, rate): (out, mask), both shaped like x, as TVM. */
RxSInfo *rx_infer_dropout(const RxInferCall *q) {
  const RxSInfo *a = tensor_operand(q, 0, "data");
  if (a == BAD || !check_dtype(q, 0, a)) return NULL;
  double rate = rx_attr_float(q->attrs, "rate", 0.5);
  if (rate < 0 || rate >= 1) {
    diag_error(q->diag, q->span, "R.nn.dropout: rate must be in [0, 1), got %g", rate);
    return NULL;
  }
  RxSInfo *f[2] = {same_as(q, a), same_as(q, a)};
  return rx_sinfo_tuple(q->h, f, 2);
}

RxSInfo *rx_infer_softmax(const RxInferCall *q) {
  const RxSInfo *a = tensor_operand(q, 0, "data");
  if (a == BAD) return NULL;
  if (a && !dt_is_void(a->dtype) && !dt_is_float(a->dtype)) {
    diag_error(q->diag, q->arg_spans[0], "R.%s requires a float tensor, but the operand has dtype '%s'",
               q->op->script_name, dt_text(q, a->dtype));
    return NULL;
  }
  int64_t axis = rx_attr_int(q->attrs, "axis", -1);
  if (a && a->ndim >= 0 && (axis < -a->ndim || axis >= a->ndim || a->ndim == 0)) {
    diag_error(q->diag, q->span, "R.%s: axis %lld is out of range for a %d-d tensor", q->op->script_name,
               (long long)axis, a->ndim);
    return NULL;
  }
  return same_as(q, a);
}

/* The shape operand of zeros/ones/full: its values, or NULL with *nd (-1 unknown). */
static bool shape_operand(const RxInferCall *q, TirExpr ***vals, int *nd) {
  const RxSInfo *s = q->args[0];
  *vals = NULL;
  *nd = -1;
  if (s && s->kind == RX_SI_SHAPE) {
    *vals = s->shape;
    *nd = s->ndim;
    return true;
  }
  if (s && s->kind == RX_SI_OBJECT) return true;
  diag_error(q->diag, q->arg_spans[0], "R.%s expects a shape (R.shape([...])) as its first operand, got %s",
             q->op->script_name, s ? si_text(q, s) : "nothing");
  return false;
}

/* full's fill value: a 0-d tensor. */
static const RxSInfo *fill_operand(const RxInferCall *q) {
  const RxSInfo *f = tensor_operand(q, 1, "fill_value");
  if (f == BAD || !f) return f;
  if (f->ndim > 0) {
    diag_error(q->diag, q->arg_spans[1], "R.%s expects a scalar (0-d) fill_value, got %s", q->op->script_name,
               si_text(q, f));
    return BAD;
  }
  return f;
}

RxSInfo *rx_infer_create(const RxInferCall *q) {
  RxOpId id = q->op->id;
  bool like = id == RX_OP_ZEROS_LIKE || id == RX_OP_ONES_LIKE || id == RX_OP_FULL_LIKE;
  bool full = id == RX_OP_FULL || id == RX_OP_FULL_LIKE;
  DType t = rx_attr_dtype(q->attrs, "dtype");
  const RxSInfo *fill = full ? fill_operand(q) : NULL;
  if (fill == BAD) return NULL;
  if (like) {
    const RxSInfo *a = tensor_operand(q, 0, "x");
    if (a == BAD) return NULL;
    if (dt_is_void(t)) t = a ? a->dtype : dt_void;
    return a ? rx_sinfo_tensor(q->h, a->shape, a->ndim, t) : rx_sinfo_tensor(q->h, NULL, -1, t);
  }
  TirExpr **vals;
  int nd;
  if (!shape_operand(q, &vals, &nd)) return NULL;
  if (dt_is_void(t) && fill) t = fill->dtype;
  return rx_sinfo_tensor(q->h, vals, nd, t);
}
