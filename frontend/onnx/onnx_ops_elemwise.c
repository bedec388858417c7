/* onnx_ops_elemwise.c - converters of ONNX's element-wise ops: unary math and
 * activations, broadcasting binary ops (folded when both sides are known),
 * variadic Sum/Max/Min/Mean, Clip, Cast, Where, Identity and Dropout. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_ops.h"

static int need(OxCtx *c, OxVal **in, int nin, int k) {
  for (int i = 0; i < k; i++)
    if (i >= nin || !in[i]) return ox_fail(c, "input %d is missing", i);
  return 0;
}

/* ONNX op -> R. unary op of the same name family. */
static const char *unary_name(const char *op) {
  static const char *const map[][2] = {
      {"Relu", "nn.relu"}, {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"}, {"Exp", "exp"},     {"Log", "log"},
      {"Sqrt", "sqrt"},    {"Neg", "negative"},    {"Abs", "abs"},   {"Erf", "erf"},     {"Floor", "floor"},
      {"Ceil", "ceil"},    {"Round", "round"},     {"Sin", "sin"},   {"Cos", "cos"},     {"Not", "logical_not"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(map[i][0], op)) return map[i][1];
  return NULL;
}

int ox_cv_unary(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  const char *op = unary_name(c->node->op_type);
  OxVal *x = in[0];
  bool neg = !strcmp(op, "negative");
  if ((neg || !strcmp(op, "abs")) && x->cval && x->dt.code == kDLInt && x->dt.bits == 64 &&
      tvs_ndarray_numel(&x->cval->t) <= 4096) { /* shape arithmetic: folded */
    TvsNDArray *r = tvs_ndarray_empty(x->ndim, x->dims, x->dt);
    for (int64_t i = 0; r && i < tvs_ndarray_numel(&r->t); i++) {
      int64_t v = ((int64_t *)x->cval->t.data)[i];
      ((int64_t *)r->t.data)[i] = neg ? -v : v < 0 ? -v : v;
    }
    return r && ox_define_const(c, 0, r) ? 0 : -1;
  }
  return ox_emit_like(c, 0, in[0], in[0]->dt, "R.%s(%s)", op, ox_ref(c, in[0])) ? 0 : -1;
}

int ox_cv_reciprocal(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  ox_emit_like(c, 0, in[0], in[0]->dt, "R.divide(R.const(1, \"%s\"), %s)", ox_dtype_name(in[0]->dt), ox_ref(c, in[0]));
  return 0;
}

int ox_cv_leaky_relu(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  ox_emit_like(c, 0, in[0], in[0]->dt, "R.nn.leakyrelu(%s, alpha=%.9g)", ox_ref(c, in[0]),
               ox_attr_float(c, "alpha", 0.01));
  return 0;
}

int ox_cv_gelu(OxCtx *c, OxVal **in, int nin) {
  char buf[64];
  if (need(c, in, nin, 1)) return -1;
  const char *appr = ox_attr_str(c, "approximate", "none", buf);
  if (strcmp(appr, "none") && strcmp(appr, "tanh")) return ox_unsupported_attr(c, "approximate", appr);
  ox_emit_like(c, 0, in[0], in[0]->dt, "R.nn.%s(%s)", strcmp(appr, "none") ? "gelu_tanh" : "gelu", ox_ref(c, in[0]));
  return 0;
}

/* x * slope where x < 0: maximum(x, 0) + slope * minimum(x, 0). */
int ox_cv_prelu(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  const char *x = ox_ref(c, in[0]), *dt = ox_dtype_name(in[0]->dt);
  const char *pos = ox_tmp(c, "R.maximum(%s, R.const(0, \"%s\"))", x, dt);
  const char *neg = ox_tmp(c, "R.multiply(%s, R.minimum(%s, R.const(0, \"%s\")))", ox_ref(c, in[1]), x, dt);
  OxVal shape = {0};
  if (ox_broadcast(c, in[0], in[1], &shape)) return -1;
  ox_emit(c, 0, in[0]->dt, shape.ndim, shape.dims, shape.sym, "R.add(%s, %s)", pos, neg);
  ox_shape_free(&shape);
  return 0;
}

static const char *binary_name(const char *op, bool is_float) {
  static const char *const map[][2] = {
      {"Add", "add"},        {"Sub", "subtract"},      {"Mul", "multiply"},      {"Div", "divide"},
      {"Pow", "power"},      {"Max", "maximum"},       {"Min", "minimum"},       {"Equal", "equal"},
      {"Less", "less"},      {"Greater", "greater"},   {"LessOrEqual", "less_equal"},
      {"GreaterOrEqual", "greater_equal"},             {"And", "logical_and"},   {"Or", "logical_or"},
      {"Sum", "add"},        {"Mean", "add"},
  };
  if (!strcmp(op, "Mod")) return is_float ? NULL : "floor_mod";
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(map[i][0], op)) return map[i][1];
  return NULL;
}

static bool is_compare(const char *op) {
  return !strcmp(op, "Equal") || !strcmp(op, "Less") || !strcmp(op, "Greater") || !strcmp(op, "LessOrEqual") ||
         !strcmp(op, "GreaterOrEqual");
}

static OxVal *binary_emit(OxCtx *c, int out, const char *op, const char *rop, DLDataType dt, const OxVal *shape,
                          OxVal *a, OxVal *b, const char *aref, const char *bref);

/* One broadcasting binary op; both known and small: folded. */
static OxVal *binary(OxCtx *c, int out, const char *op, OxVal *a, OxVal *b, const char *aref, const char *bref) {
  bool is_float = a->dt.code == kDLFloat || a->dt.code == kDLBfloat;
  if (a->cval && b->cval && out >= 0 && tvs_ndarray_numel(&a->cval->t) <= 4096 &&
      tvs_ndarray_numel(&b->cval->t) <= 4096) {
    TvsNDArray *r = ox_fold_binary(op, a->cval, b->cval);
    if (r) return ox_define_const(c, out, r);
  }
  const char *rop = binary_name(op, is_float);
  if (!rop) return ox_fail(c, "%s on %s tensors is not supported", op, ox_dtype_name(a->dt)), NULL;
  OxVal shape = {0};
  if (ox_broadcast(c, a, b, &shape)) return NULL;
  DLDataType dt = is_compare(op) ? (DLDataType){kDLBool, 8, 1} : a->dt;
  OxVal *r = binary_emit(c, out, op, rop, dt, &shape, a, b, aref, bref);
  ox_shape_free(&shape);
  return r;
}

static OxVal *binary_emit(OxCtx *c, int out, const char *op, const char *rop, DLDataType dt, const OxVal *shape,
                          OxVal *a, OxVal *b, const char *aref, const char *bref) {
  if (!aref) aref = ox_ref(c, a);
  if (!bref) bref = ox_ref(c, b);
  if (out < 0) {
    const char *t = ox_tmp(c, "R.%s(%s, %s)", rop, aref, bref);
    OxVal *v = ox_new_output(c, -1);
    v->dt = dt, v->ref = xstrdup(t);
    ox_copy_shape(v, shape);
    return v;
  }
  if (!strcmp(op, "LessOrEqual") || !strcmp(op, "GreaterOrEqual") || !strcmp(op, "Pow")) {
    /* R.power wants equal dtypes; ONNX's exponent may differ */
    if (!strcmp(op, "Pow") && (a->dt.code != b->dt.code || a->dt.bits != b->dt.bits))
      bref = ox_tmp(c, "R.astype(%s, \"%s\")", bref, ox_dtype_name(a->dt));
  }
  return ox_emit(c, out, dt, shape->ndim, shape->dims, shape->sym, "R.%s(%s, %s)", rop, aref, bref);
}

int ox_cv_binary(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  return binary(c, 0, c->node->op_type, in[0], in[1], NULL, NULL) ? 0 : -1;
}

/* Sum / Max / Min / Mean of N inputs: a chain of binary ops. */
int ox_cv_variadic(OxCtx *c, OxVal **in, int nin) {
  if (nin < 1 || need(c, in, nin, nin)) return ox_fail(c, "needs at least one input");
  const char *op = c->node->op_type;
  bool mean = !strcmp(op, "Mean");
  if (nin == 1 && !mean) return ox_alias(c, 0, in[0]), 0;
  OxVal *acc = in[0];
  for (int i = 1; i < nin; i++) {
    int out = i == nin - 1 && !mean ? 0 : -1;
    acc = binary(c, out, op, acc, in[i], NULL, NULL);
    if (!acc) return -1;
  }
  if (mean)
    ox_emit_like(c, 0, acc, acc->dt, "R.divide(%s, R.const(%d, \"%s\"))", ox_ref(c, acc), nin, ox_dtype_name(acc->dt));
  return 0;
}

int ox_cv_where(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 3)) return -1;
  OxVal s1 = {0}, s2 = {0};
  if (ox_broadcast(c, in[1], in[2], &s1) || ox_broadcast(c, in[0], &s1, &s2)) {
    ox_shape_free(&s1);
    return -1;
  }
  ox_emit(c, 0, in[1]->dt, s2.ndim, s2.dims, s2.sym, "R.where(%s, %s, %s)", ox_ref(c, in[0]), ox_ref(c, in[1]),
          ox_ref(c, in[2]));
  ox_shape_free(&s1);
  ox_shape_free(&s2);
  return 0;
}

/* Clip: bounds are attributes before opset 11, optional inputs from 11 on. */
int ox_cv_clip(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  double lo = -INFINITY, hi = INFINITY;
  if (c->opset < 11) {
    lo = ox_attr_float(c, "min", -INFINITY), hi = ox_attr_float(c, "max", INFINITY);
  } else {
    if (nin > 1 && in[1] && !ox_const_scalar(in[1], &lo)) {
      const char *t = ox_tmp(c, "R.maximum(%s, %s)", ox_ref(c, in[0]), ox_ref(c, in[1]));
      if (nin > 2 && in[2]) return ox_emit_like(c, 0, in[0], in[0]->dt, "R.minimum(%s, %s)", t, ox_ref(c, in[2])), 0;
      return ox_emit_like(c, 0, in[0], in[0]->dt, "R.add(%s, R.const(0, \"%s\"))", t, ox_dtype_name(in[0]->dt)), 0;
    }
    if (nin > 2 && in[2] && !ox_const_scalar(in[2], &hi)) {
      const char *x = ox_ref(c, in[0]);
      const char *t = isinf(lo) ? x : ox_tmp(c, "R.maximum(%s, R.const(%.9g, \"%s\"))", x, lo, ox_dtype_name(in[0]->dt));
      return ox_emit_like(c, 0, in[0], in[0]->dt, "R.minimum(%s, %s)", t, ox_ref(c, in[2])), 0;
    }
  }
  bool is_float = in[0]->dt.code == kDLFloat;
  if (!is_float) { /* integer tensors: the bounds as integers; infinities as the type's range */
    double tmax = ldexp(1.0, in[0]->dt.bits - (in[0]->dt.code == kDLInt)) - 1;
    double tmin = in[0]->dt.code == kDLInt ? -tmax - 1 : 0;
    if (isinf(lo) || lo < tmin) lo = tmin;
    if (isinf(hi) || hi > tmax) hi = tmax;
  } else {
    if (isinf(lo)) lo = -3.4028234663852886e38;
    if (isinf(hi)) hi = 3.4028234663852886e38;
  }
  ox_emit_like(c, 0, in[0], in[0]->dt, is_float ? "R.clip(%s, %.9g, %.9g)" : "R.clip(%s, %.0f, %.0f)",
               ox_ref(c, in[0]), lo, hi);
  return 0;
}

/* Cast: folded on known values (shape arithmetic), else R.astype. */
int ox_cv_cast(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  DLDataType dt;
  int64_t to = ox_attr_int(c, "to", 0);
  if (!onnx_dtype((int32_t)to, &dt)) {
    char why[64];
    snprintf(why, sizeof why, "= %s", onnx_type_name((int32_t)to));
    return ox_unsupported_attr(c, "to", why);
  }
  if (in[0]->cval && tvs_ndarray_numel(&in[0]->cval->t) <= 4096 && dt.code != kDLBfloat && dt.bits >= 32 &&
      in[0]->dt.code != kDLBfloat && !(in[0]->dt.code == kDLFloat && in[0]->dt.bits == 16)) {
    TvsNDArray *r = tvs_ndarray_empty(in[0]->ndim, in[0]->dims, dt);
    for (int64_t i = 0; r && i < tvs_ndarray_numel(&r->t); i++) {
      double x = tvs_ndarray_get_f64(&in[0]->cval->t, i);
      if (dt.code == kDLFloat && dt.bits == 32) ((float *)r->t.data)[i] = (float)x;
      else if (dt.code == kDLFloat) ((double *)r->t.data)[i] = x;
      else if (dt.bits == 64) ((int64_t *)r->t.data)[i] = in[0]->dt.code == kDLInt && in[0]->dt.bits == 64
                                                              ? ((int64_t *)in[0]->cval->t.data)[i] : (int64_t)x;
      else ((int32_t *)r->t.data)[i] = (int32_t)(int64_t)x;
    }
    if (r) return ox_define_const(c, 0, r), 0;
  }
  ox_emit_like(c, 0, in[0], dt, "R.astype(%s, \"%s\")", ox_ref(c, in[0]), ox_dtype_name(dt));
  return 0;
}

int ox_cv_identity(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  ox_alias(c, 0, in[0]);
  return 0;
}

/* Dropout at inference: the identity (and an all-true mask when asked for). */
int ox_cv_dropout(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  double training = 0;
  if (nin > 2 && in[2] && (!ox_const_scalar(in[2], &training) || training != 0))
    return ox_fail(c, "training_mode other than a constant false is not supported (inference only)");
  ox_alias(c, 0, in[0]); /* a mask output is reported as unsupported by the caller */
  return 0;
}
