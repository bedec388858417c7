/* onnx_ops_misc.c - converters of smaller ONNX ops composed from graph
 * operators or known at import: CastLike, Hardmax (one-hot of argmax), IsNaN,
 * IsInf, Sign and EyeLike. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_ops.h"

static int need(OxCtx *c, OxVal **in, int nin, int k) {
  for (int i = 0; i < k; i++)
    if (i >= nin || !in[i]) return ox_fail(c, "input %d is missing", i);
  return 0;
}

int ox_cv_cast_like(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  ox_emit_like(c, 0, in[0], in[1]->dt, "R.astype(%s, \"%s\")", ox_ref(c, in[0]), ox_dtype_name(in[1]->dt));
  return 0;
}

/* Hardmax: 1 where argmax along the axis (the first of equal maxima), else 0;
 * before opset 13 on the input coerced to 2-D at axis (default 1). */
int ox_cv_hardmax(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  for (int k = 0; k < x->ndim; k++)
    if (x->dims[k] < 0) return ox_fail(c, "Hardmax of a symbolic shape is not supported");
  int axis = ox_axis(c, ox_attr_int(c, "axis", c->opset < 13 ? 1 : -1), x->ndim);
  if (axis < 0) return -1;
  const char *xr = ox_ref(c, x);
  int64_t dims[OX_MAX_NDIM], nd = x->ndim, outer = 1, inner = 1;
  memcpy(dims, x->dims, sizeof dims);
  if (c->opset < 13 && axis != x->ndim - 1) { /* coerced 2-D */
    for (int k = 0; k < x->ndim; k++) *(k < axis ? &outer : &inner) *= x->dims[k];
    xr = ox_tmp(c, "R.reshape(%s, (%lld, %lld))", xr, (long long)outer, (long long)inner);
    dims[0] = outer, dims[1] = inner, nd = 2, axis = 1;
  }
  int64_t n = dims[axis], one = 1, rd[OX_MAX_NDIM];
  TvsNDArray *r = tvs_ndarray_empty(1, &n, (DLDataType){kDLInt, 64, 1});
  if (!r) return ox_fail(c, "invalid shape");
  for (int64_t i = 0; i < n; i++) ((int64_t *)r->t.data)[i] = i;
  for (int k = 0; k < nd; k++) rd[k] = k == axis ? n : 1;
  (void)one;
  StrBuf sh;
  sb_init(&sh);
  ox_shape_arg(c, &sh, (int)nd, rd, NULL);
  const char *idx = ox_tmp(c, "R.reshape(%s, %s)", ox_ref(c, ox_known(c, "range", r)), sh.data);
  const char *am = ox_tmp(c, "R.argmax(%s, axis=%d, keepdims=True)", xr, axis);
  const char *dt = ox_dtype_name(x->dt);
  if (nd == x->ndim) {
    ox_emit_like(c, 0, x, x->dt, "R.astype(R.equal(%s, %s), \"%s\")", idx, am, dt);
  } else {
    const char *oh = ox_tmp(c, "R.astype(R.equal(%s, %s), \"%s\")", idx, am, dt);
    sb_free(&sh), sb_init(&sh);
    ox_shape_arg(c, &sh, x->ndim, x->dims, NULL);
    ox_emit_like(c, 0, x, x->dt, "R.reshape(%s, %s)", oh, sh.data);
  }
  sb_free(&sh);
  return 0;
}

int ox_cv_isnan_isinf(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  DLDataType b = {kDLBool, 8, 1};
  const char *xr = ox_ref(c, x);
  if (!strcmp(c->node->op_type, "IsNaN")) return ox_emit_like(c, 0, x, b, "R.not_equal(%s, %s)", xr, xr), 0;
  if (x->dt.code != kDLFloat) return ox_fail(c, "IsInf on %s tensors is not supported", ox_dtype_name(x->dt));
  bool pos = ox_attr_int(c, "detect_positive", 1) != 0, neg = ox_attr_int(c, "detect_negative", 1) != 0;
  TvsNDArray *inf = tvs_ndarray_empty(0, NULL, x->dt);
  if (x->dt.bits == 32) *(float *)inf->t.data = INFINITY;
  else *(double *)inf->t.data = INFINITY;
  const char *ir = ox_ref(c, ox_known(c, "inf", inf));
  if (pos && neg) ox_emit_like(c, 0, x, b, "R.equal(R.abs(%s), %s)", xr, ir);
  else if (pos) ox_emit_like(c, 0, x, b, "R.equal(%s, %s)", xr, ir);
  else if (neg) ox_emit_like(c, 0, x, b, "R.equal(R.negative(%s), %s)", xr, ir);
  else ox_emit_like(c, 0, x, b, "R.not_equal(%s, %s)", xr, xr); /* neither: all false (NaN aside: false too) */
  return 0;
}

int ox_cv_sign(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  const char *xr = ox_ref(c, x), *dt = ox_dtype_name(x->dt);
  ox_emit_like(c, 0, x, x->dt,
               "R.subtract(R.astype(R.greater(%s, R.const(0, \"%s\")), \"%s\"), "
               "R.astype(R.less(%s, R.const(0, \"%s\")), \"%s\"))",
               xr, dt, dt, xr, dt, dt);
  return 0;
}

/* EyeLike: a known 2-D array with ones on diagonal k. */
int ox_cv_eye_like(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  if (x->ndim != 2 || x->dims[0] < 0 || x->dims[1] < 0) return ox_fail(c, "the input must be 2-D with static sizes");
  DLDataType dt = x->dt;
  int64_t to = ox_attr_int(c, "dtype", 0), k = ox_attr_int(c, "k", 0);
  if (to && !onnx_dtype((int32_t)to, &dt)) return ox_unsupported_attr(c, "dtype", onnx_type_name((int32_t)to));
  if (ox_too_big(c, 2, x->dims)) return -1;
  TvsNDArray *a = tvs_ndarray_empty(2, x->dims, dt);
  if (!a) return ox_fail(c, "invalid shape");
  size_t eb = tvs_dtype_bytes(dt);
  for (int64_t i = 0; i < x->dims[0]; i++) {
    int64_t j = i + k;
    if (j < 0 || j >= x->dims[1]) continue;
    char *p = (char *)a->t.data + (size_t)(i * x->dims[1] + j) * eb;
    if (dt.code == kDLFloat && dt.bits == 32) *(float *)p = 1.0f;
    else if (dt.code == kDLFloat && dt.bits == 64) *(double *)p = 1.0;
    else if (dt.code == kDLFloat) *(uint16_t *)p = 0x3c00; /* float16 1.0 */
    else if (eb == 8) *(int64_t *)p = 1;
    else if (eb == 4) *(int32_t *)p = 1;
    else if (eb == 2) *(int16_t *)p = 1;
    else *(int8_t *)p = 1;
  }
  return ox_define_const(c, 0, a) ? 0 : -1;
}

/* Mod with fmod=1 (C's fmod, the dividend's sign): a - b * trunc(a / b); integer
 * division already truncates. */
int ox_cv_fmod(OxCtx *c, OxVal **in, int nin) {
  if (!ox_attr_int(c, "fmod", 0)) return ox_cv_binary(c, in, nin);
  if (need(c, in, nin, 2)) return -1;
  if (in[0]->cval && in[1]->cval && tvs_ndarray_numel(&in[0]->cval->t) <= 4096 &&
      tvs_ndarray_numel(&in[1]->cval->t) <= 4096) { /* shape arithmetic: folded */
    TvsNDArray *r = ox_fold_binary("FMod", in[0]->cval, in[1]->cval);
    if (r) return ox_define_const(c, 0, r) ? 0 : -1;
  }
  OxVal s = {0};
  if (ox_broadcast(c, in[0], in[1], &s)) return -1;
  const char *a = ox_ref(c, in[0]), *b = ox_ref(c, in[1]), *dt = ox_dtype_name(in[0]->dt);
  const char *q = ox_tmp(c, "R.divide(%s, %s)", a, b);
  if (in[0]->dt.code == kDLFloat)
    q = ox_tmp(c, "R.where(R.less(%s, R.const(0, \"%s\")), R.ceil(%s), R.floor(%s))", q, dt, q, q);
  ox_emit(c, 0, in[0]->dt, s.ndim, s.dims, s.sym, "R.subtract(%s, R.multiply(%s, %s))", a, b, q);
  ox_shape_free(&s);
  return 0;
}

/* CumSum along a known axis: a matmul with a known triangular matrix of ones
 * over that axis (moved last and back). */
int ox_cv_cumsum(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal *x = in[0];
  int64_t ax;
  if (ox_const_ints(c, in[1], "the axis input", &ax, 1) != 1) return -1;
  int a = ox_axis(c, ax, x->ndim);
  if (a < 0) return -1;
  int64_t n = x->dims[a], md[2] = {n, n}, perm[OX_MAX_NDIM], inv[OX_MAX_NDIM];
  if (n < 0) return ox_fail(c, "CumSum along a symbolic axis is not supported");
  if (ox_too_big(c, 2, md)) return -1;
  bool excl = ox_attr_int(c, "exclusive", 0) != 0, rev = ox_attr_int(c, "reverse", 0) != 0;
  TvsNDArray *m = tvs_ndarray_empty(2, md, x->dt);
  if (!m) return ox_fail(c, "invalid shape");
  size_t eb = tvs_dtype_bytes(x->dt);
  for (int64_t i = 0; i < n; i++) /* input i adds into output j */
    for (int64_t j = 0; j < n; j++) {
      bool on = rev ? (excl ? i > j : i >= j) : (excl ? i < j : i <= j);
      char *p = (char *)m->t.data + (size_t)(i * n + j) * eb;
      if (!on) continue;
      if (x->dt.code == kDLFloat && eb == 4) *(float *)p = 1.0f;
      else if (x->dt.code == kDLFloat && eb == 8) *(double *)p = 1.0;
      else if (eb == 8) *(int64_t *)p = 1;
      else if (eb == 4) *(int32_t *)p = 1;
      else return tvs_ndarray_free(m), ox_fail(c, "CumSum on %s tensors is not supported", ox_dtype_name(x->dt));
    }
  const char *mr = ox_ref(c, ox_known(c, "tri", m)), *xr = ox_ref(c, x);
  if (a == x->ndim - 1) return ox_emit_like(c, 0, x, x->dt, "R.matmul(%s, %s)", xr, mr), 0;
  for (int k = 0, j = 0; k < x->ndim; k++)
    if (k != a) perm[j++] = k;
  perm[x->ndim - 1] = a;
  for (int k = 0; k < x->ndim; k++) inv[perm[k]] = k;
  StrBuf p1, p2;
  sb_init(&p1), sb_init(&p2);
  ox_ints_text(&p1, perm, x->ndim);
  ox_ints_text(&p2, inv, x->ndim);
  const char *t = ox_tmp(c, "R.matmul(R.permute_dims(%s, axes=%s), %s)", xr, p1.data, mr);
  ox_emit_like(c, 0, x, x->dt, "R.permute_dims(%s, axes=%s)", t, p2.data);
  sb_free(&p1), sb_free(&p2);
  return 0;
}
