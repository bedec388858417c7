/* onnx_ops_nn.c - converters of ONNX's network ops: Conv, ConvTranspose,
 * pooling, Gemm, MatMul, the normalizations and Softmax. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_ops.h"

static int need(OxCtx *c, OxVal **in, int nin, int k) {
  for (int i = 0; i < k; i++)
    if (i >= nin || !in[i]) return ox_fail(c, "input %d is missing", i);
  return 0;
}

/* The 2-D window attributes shared by Conv and the pools (2 spatial axes only). */
typedef struct Window {
  int64_t kernel[2], strides[2], dilations[2], pads[4]; /* pads: top, left, bottom, right */
  bool ceil_mode;
} Window;

/* Reads strides / dilations / pads / auto_pad; kernel must be set.  in_hw: the
 * input's spatial sizes (auto_pad SAME needs them). */
static int window_attrs(OxCtx *c, Window *w, const int64_t *in_hw, bool one_d) {
  char buf[64];
  int64_t v[8];
  w->strides[0] = w->strides[1] = w->dilations[0] = w->dilations[1] = 1;
  memset(w->pads, 0, sizeof w->pads);
  if (one_d) { /* a 1-D window runs as 2-D over a height of 1 */
    if (ox_attr_ints(c, "strides", v, 8) == 1) w->strides[1] = v[0];
    if (ox_attr_ints(c, "dilations", v, 8) == 1) w->dilations[1] = v[0];
    if (ox_attr_ints(c, "pads", v, 8) == 2) w->pads[1] = v[0], w->pads[3] = v[1];
  }
  int n = one_d ? -1 : ox_attr_ints(c, "strides", v, 8);
  if (n >= 0 && n != 2) return ox_unsupported_attr(c, "strides", "of other than 2 spatial axes");
  if (n == 2) w->strides[0] = v[0], w->strides[1] = v[1];
  n = one_d ? -1 : ox_attr_ints(c, "dilations", v, 8);
  if (n >= 0 && n != 2) return ox_unsupported_attr(c, "dilations", "of other than 2 spatial axes");
  if (n == 2) w->dilations[0] = v[0], w->dilations[1] = v[1];
  n = one_d ? -1 : ox_attr_ints(c, "pads", v, 8);
  if (n >= 0 && n != 4) return ox_unsupported_attr(c, "pads", "of other than 2 spatial axes");
  if (n == 4) memcpy(w->pads, v, sizeof w->pads);
  for (int k = 0; k < 2; k++)
    if (w->strides[k] < 1 || w->dilations[k] < 1 || w->kernel[k] < 1)
      return ox_fail(c, "strides, dilations and the kernel must be positive");
  for (int k = 0; k < 4; k++)
    if (w->pads[k] < 0) return ox_unsupported_attr(c, "pads", "with a negative value");
  w->ceil_mode = ox_attr_int(c, "ceil_mode", 0) != 0;
  const char *ap = ox_attr_str(c, "auto_pad", "NOTSET", buf);
  if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
    for (int k = 0; k < 2; k++) {
      if (in_hw[k] < 0) return ox_unsupported_attr(c, "auto_pad", "on a symbolic spatial size");
      int64_t out = (in_hw[k] + w->strides[k] - 1) / w->strides[k];
      int64_t total = (out - 1) * w->strides[k] + (w->kernel[k] - 1) * w->dilations[k] + 1 - in_hw[k];
      if (total < 0) total = 0;
      int64_t small = total / 2, big = total - small;
      w->pads[k] = ap[5] == 'U' ? small : big;
      w->pads[k + 2] = ap[5] == 'U' ? big : small;
    }
  } else if (!strcmp(ap, "VALID")) {
    memset(w->pads, 0, sizeof w->pads);
  } else if (strcmp(ap, "NOTSET")) {
    char why[80];
    snprintf(why, sizeof why, "= '%s'", ap);
    return ox_unsupported_attr(c, "auto_pad", why);
  }
  return 0;
}

static int64_t window_out(const Window *w, int k, int64_t in) {
  if (in < 0) return -1;
  int64_t eff = (w->kernel[k] - 1) * w->dilations[k] + 1;
  int64_t span = in + w->pads[k] + w->pads[k + 2] - eff;
  int64_t o = (w->ceil_mode ? (span + w->strides[k] - 1) / w->strides[k] : span / w->strides[k]) + 1;
  /* ceil mode: the last window must start inside the input or its left padding */
  if (w->ceil_mode && (o - 1) * w->strides[k] >= in + w->pads[k]) o--;
  return o;
}

static void window_text(StrBuf *sb, const Window *w, bool dil) {
  sb_printf(sb, "strides=[%lld, %lld], padding=[%lld, %lld, %lld, %lld]", (long long)w->strides[0],
            (long long)w->strides[1], (long long)w->pads[0], (long long)w->pads[1], (long long)w->pads[2],
            (long long)w->pads[3]);
  if (dil) sb_printf(sb, ", dilation=[%lld, %lld]", (long long)w->dilations[0], (long long)w->dilations[1]);
}

/* A 3-D (N, C, L) value as 4-D (N, C, 1, L): a helper binding and its value. */
static OxVal *lift_1d(OxCtx *c, OxVal *v) {
  int64_t d[4] = {v->dims[0], v->dims[1], 1, v->dims[2]};
  char *sym[4] = {v->sym[0], v->sym[1], NULL, v->sym[2]};
  StrBuf sh;
  sb_init(&sh);
  ox_shape_arg(c, &sh, 4, d, sym);
  OxVal *l = ox_new_output(c, -1);
  l->dt = v->dt;
  ox_set_shape(l, 4, d, sym);
  l->ref = xstrdup(ox_tmp(c, "R.reshape(%s, %s)", ox_ref(c, v), sh.data));
  sb_free(&sh);
  return l;
}

/* Binds output 0 to the 4-D expr, or (lifted 1-D) to its reshape back to 3-D. */
static void emit_spatial(OxCtx *c, bool lifted, DLDataType dt, const int64_t *dims, char **sym, const char *expr) {
  if (!lifted) {
    ox_emit(c, 0, dt, 4, dims, sym, "%s", expr);
    return;
  }
  const char *t = ox_tmp(c, "%s", expr);
  int64_t d3[3] = {dims[0], dims[1], dims[3]};
  char *s3[3] = {sym[0], sym[1], NULL};
  StrBuf sh;
  sb_init(&sh);
  ox_shape_arg(c, &sh, 3, d3, s3);
  ox_emit(c, 0, dt, 3, d3, s3, "R.reshape(%s, %s)", t, sh.data);
  sb_free(&sh);
}

/* Conv (2-D, NCHW/OIHW), bias added after; 1-D convs run as 2-D of height 1. */
int ox_cv_conv(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal *x = in[0], *wt = in[1];
  bool transpose = !strcmp(c->node->op_type, "ConvTranspose"), one_d = x->ndim == 3 && wt->ndim == 3;
  if ((x->ndim != 4 || wt->ndim != 4) && !one_d)
    return ox_fail(c, "a convolution over %d spatial axes is not supported (1-D and 2-D only)", x->ndim - 2);
  if (one_d) x = lift_1d(c, x), wt = lift_1d(c, wt);
  Window w;
  w.kernel[0] = wt->dims[2], w.kernel[1] = wt->dims[3];
  if (window_attrs(c, &w, x->dims + 2, one_d)) return -1;
  int64_t groups = ox_attr_int(c, "group", 1);
  int64_t dims[4] = {x->dims[0], transpose ? wt->dims[1] * groups : wt->dims[0], 0, 0};
  int64_t opad[2] = {0, 0}, v[8];
  if (transpose) {
    char buf[64];
    if (ox_attr(c, "output_shape")) return ox_unsupported_attr(c, "output_shape", "(give pads instead)");
    int n = ox_attr_ints(c, "output_padding", v, 8);
    if (n == 2) opad[0] = v[0], opad[1] = v[1];
    if (n == 1 && one_d) opad[1] = v[0];
    const char *ap = ox_attr_str(c, "auto_pad", "NOTSET", buf);
    for (int k = 0; k < 2 && !strncmp(ap, "SAME", 4); k++) { /* output = input * stride */
      int64_t total = w.strides[k] * (x->dims[2 + k] - 1) + opad[k] + (w.kernel[k] - 1) * w.dilations[k] + 1 -
                      x->dims[2 + k] * w.strides[k];
      if (total < 0) total = 0;
      w.pads[k] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
      w.pads[k + 2] = total - w.pads[k];
    }
    for (int k = 0; k < 2; k++)
      dims[2 + k] = (x->dims[2 + k] - 1) * w.strides[k] - w.pads[k] - w.pads[k + 2] +
                    (w.kernel[k] - 1) * w.dilations[k] + 1 + opad[k];
  } else {
    w.ceil_mode = false;
    for (int k = 0; k < 2; k++) dims[2 + k] = window_out(&w, k, x->dims[2 + k]);
  }
  StrBuf sb;
  sb_init(&sb);
  window_text(&sb, &w, true);
  if (transpose) sb_printf(&sb, ", output_padding=[%lld, %lld]", (long long)opad[0], (long long)opad[1]);
  if (groups != 1) sb_printf(&sb, ", groups=%lld", (long long)groups);
  char *sym[4] = {x->sym[0], NULL, NULL, NULL};
  const char *opn = transpose ? "conv2d_transpose" : "conv2d";
  char *expr;
  if (nin > 2 && in[2]) {
    const char *cv = ox_tmp(c, "R.nn.%s(%s, %s, %s)", opn, ox_ref(c, x), ox_ref(c, wt), sb.data);
    const char *b = ox_tmp(c, "R.reshape(%s, (1, %lld, 1, 1))", ox_ref(c, in[2]), (long long)dims[1]);
    expr = xasprintf("R.add(%s, %s)", cv, b);
  } else {
    expr = xasprintf("R.nn.%s(%s, %s, %s)", opn, ox_ref(c, x), ox_ref(c, wt), sb.data);
  }
  emit_spatial(c, one_d, x->dt, dims, sym, expr);
  free(expr);
  sb_free(&sb);
  return 0;
}

int ox_cv_pool(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  bool is_max = !strcmp(c->node->op_type, "MaxPool"), one_d = x->ndim == 3;
  if (x->ndim != 4 && !one_d)
    return ox_fail(c, "pooling over %d spatial axes is not supported (1-D and 2-D only)", x->ndim - 2);
  int64_t k[8];
  if (ox_attr_ints(c, "kernel_shape", k, 8) != (one_d ? 1 : 2))
    return ox_unsupported_attr(c, "kernel_shape", "of another length than the spatial axes");
  if (one_d) x = lift_1d(c, x), k[1] = k[0], k[0] = 1;
  if (ox_attr_int(c, "storage_order", 0) != 0) return ox_unsupported_attr(c, "storage_order", "= 1");
  Window w;
  w.kernel[0] = k[0], w.kernel[1] = k[1];
  if (window_attrs(c, &w, x->dims + 2, one_d)) return -1;
  int64_t dims[4] = {x->dims[0], x->dims[1], window_out(&w, 0, x->dims[2]), window_out(&w, 1, x->dims[3])};
  StrBuf sb;
  sb_init(&sb);
  window_text(&sb, &w, is_max);
  if (w.ceil_mode) sb_puts(&sb, ", ceil_mode=True");
  if (!is_max && ox_attr_int(c, "count_include_pad", 0)) sb_puts(&sb, ", count_include_pad=True");
  char *sym[4] = {x->sym[0], x->sym[1], NULL, NULL};
  char *expr = xasprintf("R.nn.%s(%s, pool_size=[%lld, %lld], %s)", is_max ? "max_pool2d" : "avg_pool2d",
                         ox_ref(c, x), (long long)k[0], (long long)k[1], sb.data);
  emit_spatial(c, one_d, x->dt, dims, sym, expr);
  free(expr);
  sb_free(&sb);
  return 0;
}

/* GlobalAveragePool / GlobalMaxPool: a mean / max over the spatial axes. */
int ox_cv_global_pool(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  if (x->ndim < 3) return ox_fail(c, "the input needs spatial axes (rank >= 3)");
  int64_t dims[OX_MAX_NDIM], axes[OX_MAX_NDIM];
  for (int k = 0; k < x->ndim; k++) dims[k] = k < 2 ? x->dims[k] : 1;
  for (int k = 2; k < x->ndim; k++) axes[k - 2] = k;
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, axes, x->ndim - 2);
  bool avg = !strcmp(c->node->op_type, "GlobalAveragePool");
  if (avg && x->ndim == 4)
    ox_emit(c, 0, x->dt, x->ndim, dims, x->sym, "R.nn.adaptive_avg_pool2d(%s, output_size=[1, 1])", ox_ref(c, x));
  else
    ox_emit(c, 0, x->dt, x->ndim, dims, x->sym, "R.%s(%s, axis=%s, keepdims=True)", avg ? "mean" : "max", ox_ref(c, x),
            sb.data);
  sb_free(&sb);
  return 0;
}

/* numpy matmul shapes (1-D operands promoted and their axis dropped). */
static int matmul_shape(OxCtx *c, const OxVal *a, const OxVal *b, OxVal *out) {
  if (a->ndim < 1 || b->ndim < 1) return ox_fail(c, "MatMul of a scalar");
  int64_t m = a->ndim >= 2 ? a->dims[a->ndim - 2] : 1, ka = a->dims[a->ndim - 1];
  int64_t kb = b->ndim >= 2 ? b->dims[b->ndim - 2] : b->dims[0], n = b->ndim >= 2 ? b->dims[b->ndim - 1] : 1;
  if (ka >= 0 && kb >= 0 && ka != kb)
    return ox_fail(c, "MatMul reduction sizes differ (%lld vs %lld)", (long long)ka, (long long)kb);
  OxVal ba = {0}, bb = {0};
  ba.ndim = a->ndim > 2 ? a->ndim - 2 : 0, bb.ndim = b->ndim > 2 ? b->ndim - 2 : 0;
  memcpy(ba.dims, a->dims, sizeof(int64_t) * (size_t)ba.ndim);
  memcpy(bb.dims, b->dims, sizeof(int64_t) * (size_t)bb.ndim);
  memcpy(ba.sym, a->sym, sizeof(char *) * (size_t)ba.ndim);
  memcpy(bb.sym, b->sym, sizeof(char *) * (size_t)bb.ndim);
  ba.name = a->name, bb.name = b->name;
  if (ox_broadcast(c, &ba, &bb, out)) return -1;
  if (a->ndim >= 2) out->dims[out->ndim] = m, out->sym[out->ndim++] = a->sym[a->ndim - 2] ? xstrdup(a->sym[a->ndim - 2]) : NULL;
  if (b->ndim >= 2) out->dims[out->ndim] = n, out->sym[out->ndim++] = b->sym[b->ndim - 1] ? xstrdup(b->sym[b->ndim - 1]) : NULL;
  return 0;
}

int ox_cv_matmul(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal s = {0};
  if (matmul_shape(c, in[0], in[1], &s)) return -1;
  ox_emit(c, 0, in[0]->dt, s.ndim, s.dims, s.sym, "R.matmul(%s, %s)", ox_ref(c, in[0]), ox_ref(c, in[1]));
  ox_shape_free(&s);
  return 0;
}

/* Gemm: alpha * A' B' + beta * C; R.linear when B is transposed and the scalars are 1. */
int ox_cv_gemm(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal *a = in[0], *b = in[1], *cc = nin > 2 ? in[2] : NULL;
  if (a->ndim != 2 || b->ndim != 2) return ox_fail(c, "Gemm needs 2-D A and B");
  int64_t ta = ox_attr_int(c, "transA", 0), tb = ox_attr_int(c, "transB", 0);
  double alpha = ox_attr_float(c, "alpha", 1.0), beta = ox_attr_float(c, "beta", 1.0);
  int64_t dims[2] = {ta ? a->dims[1] : a->dims[0], tb ? b->dims[0] : b->dims[1]};
  char *sym[2] = {ta ? a->sym[1] : a->sym[0], tb ? b->sym[0] : b->sym[1]};
  const char *dt = ox_dtype_name(a->dt);
  const char *ar = ox_ref(c, a);
  if (ta) ar = ox_tmp(c, "R.permute_dims(%s, axes=[1, 0])", ar);
  if (tb && alpha == 1.0 && beta == 1.0 && cc && cc->ndim == 1 && !ta) {
    ox_emit(c, 0, a->dt, 2, dims, sym, "R.linear(%s, %s, %s)", ar, ox_ref(c, b), ox_ref(c, cc));
    return 0;
  }
  const char *br = ox_ref(c, b);
  if (tb) br = ox_tmp(c, "R.permute_dims(%s, axes=[1, 0])", br);
  bool has_c = cc && beta != 0.0;
  char *mm = xasprintf("R.matmul(%s, %s)", ar, br);
  if (alpha != 1.0) {
    char *t = xasprintf("R.multiply(%s, R.const(%.9g, \"%s\"))", mm, alpha, dt);
    free(mm), mm = t;
  }
  if (has_c) {
    const char *m = ox_tmp(c, "%s", mm);
    const char *cr = ox_ref(c, cc);
    if (beta != 1.0) cr = ox_tmp(c, "R.multiply(%s, R.const(%.9g, \"%s\"))", cr, beta, dt);
    ox_emit(c, 0, a->dt, 2, dims, sym, "R.add(%s, %s)", m, cr);
  } else {
    ox_emit(c, 0, a->dt, 2, dims, sym, "%s", mm);
  }
  free(mm);
  return 0;
}

/* BatchNormalization (inference): with known statistics, x * scale + shift
 * with both computed here; else R.nn.batch_norm. */
int ox_cv_batch_norm(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 5)) return -1;
  if (ox_attr_int(c, "training_mode", 0)) return ox_unsupported_attr(c, "training_mode", "= 1");
  if (c->node->n_output > 1) return ox_fail(c, "the training outputs (running mean and variance) are not supported");
  OxVal *x = in[0];
  double eps = ox_attr_float(c, "epsilon", 1e-5);
  if (x->ndim < 2) return ox_fail(c, "the input needs a channel axis");
  int64_t ch = x->dims[1];
  StrBuf sh;
  sb_init(&sh);
  sb_printf(&sh, "(1, %lld", (long long)ch);
  for (int k = 2; k < x->ndim; k++) sb_puts(&sh, ", 1");
  sb_puts(&sh, x->ndim == 2 ? ")" : ")");
  bool known = in[1]->cval && in[2]->cval && in[3]->cval && in[4]->cval && x->dt.code == kDLFloat &&
               x->dt.bits >= 32 && ch > 0;
  for (int i = 1; known && i < 5; i++) known = tvs_ndarray_numel(&in[i]->cval->t) == ch;
  if (known) {
    int64_t n1[1] = {ch};
    TvsNDArray *sc = tvs_ndarray_empty(1, n1, x->dt), *sf = tvs_ndarray_empty(1, n1, x->dt);
    for (int64_t i = 0; i < ch; i++) {
      double g = tvs_ndarray_get_f64(&in[1]->cval->t, i), bb = tvs_ndarray_get_f64(&in[2]->cval->t, i);
      double mu = tvs_ndarray_get_f64(&in[3]->cval->t, i), var = tvs_ndarray_get_f64(&in[4]->cval->t, i);
      double s = g / sqrt(var + eps);
      if (x->dt.bits == 32) ((float *)sc->t.data)[i] = (float)s, ((float *)sf->t.data)[i] = (float)(bb - mu * s);
      else ((double *)sc->t.data)[i] = s, ((double *)sf->t.data)[i] = bb - mu * s;
    }
    char *nm1 = xasprintf("%s_scale", c->node->output[0]), *nm2 = xasprintf("%s_shift", c->node->output[0]);
    OxVal *vs = ox_new_output(c, -1), *vf = ox_new_output(c, -1);
    free(vs->name), free(vf->name);
    vs->name = nm1, vf->name = nm2;
    vs->dt = vf->dt = x->dt;
    ox_set_shape(vs, 1, n1, NULL), ox_set_shape(vf, 1, n1, NULL);
    vs->cval = sc, vf->cval = sf;
    const char *m = ox_tmp(c, "R.multiply(%s, R.reshape(%s, %s))", ox_ref(c, x), ox_ref(c, vs), sh.data);
    ox_emit_like(c, 0, x, x->dt, "R.add(%s, R.reshape(%s, %s))", m, ox_ref(c, vf), sh.data);
  } else {
    const char *t = ox_tmp(c, "R.nn.batch_norm(%s, %s, %s, %s, %s, axis=1, epsilon=%.9g, training=False)", ox_ref(c, x),
                           ox_ref(c, in[1]), ox_ref(c, in[2]), ox_ref(c, in[3]), ox_ref(c, in[4]), eps);
    ox_emit_like(c, 0, x, x->dt, "%s[0]", t);
  }
  sb_free(&sh);
  return 0;
}

/* A known array of n copies of value (LayerNormalization's missing bias). */
static OxVal *filled(OxCtx *c, const char *suffix, DLDataType dt, int ndim, const int64_t *dims, double value) {
  OxVal *v = ox_new_output(c, -1);
  free(v->name);
  v->name = xasprintf("%s_%s", c->node->output[0], suffix);
  v->dt = dt;
  ox_set_shape(v, ndim, dims, NULL);
  v->cval = tvs_ndarray_empty(ndim, dims, dt);
  for (int64_t i = 0; v->cval && i < tvs_ndarray_numel(&v->cval->t); i++) {
    if (dt.bits == 32) ((float *)v->cval->t.data)[i] = (float)value;
    else ((double *)v->cval->t.data)[i] = value;
  }
  return v;
}

int ox_cv_layer_norm(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal *x = in[0];
  int axis = ox_axis(c, ox_attr_int(c, "axis", -1), x->ndim);
  if (axis < 0) return -1;
  int64_t axes[OX_MAX_NDIM], nd = x->ndim - axis;
  for (int k = axis; k < x->ndim; k++) axes[k - axis] = k;
  if (!(nin > 2 && in[2]) && (x->dt.code != kDLFloat || x->dt.bits < 32)) /* the bias made here */
    return ox_fail(c, "LayerNormalization without a bias on %s tensors is not supported", ox_dtype_name(x->dt));
  if (!(nin > 2 && in[2]) && ox_too_big(c, (int)nd, x->dims + axis)) return -1; /* symbolic: no bias to make */
  OxVal *bias = nin > 2 && in[2] ? in[2] : filled(c, "bias", x->dt, (int)nd, x->dims + axis, 0.0);
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, axes, (int)nd);
  if (c->node->n_output > 1) { /* Mean and InvStdDev: the statistics, reduced axes kept as 1 */
    int64_t rd[OX_MAX_NDIM];
    for (int k = 0; k < x->ndim; k++) rd[k] = k < axis ? x->dims[k] : 1;
    const char *xr = ox_ref(c, x), *dt = ox_dtype_name(x->dt);
    if (c->node->output[1][0])
      ox_emit(c, 1, x->dt, x->ndim, rd, x->sym, "R.mean(%s, axis=%s, keepdims=True)", xr, sb.data);
    if (c->node->n_output > 2 && c->node->output[2][0]) {
      const char *var = ox_tmp(c, "R.variance(%s, axis=%s, keepdims=True)", xr, sb.data);
      ox_emit(c, 2, x->dt, x->ndim, rd, x->sym, "R.rsqrt(R.add(%s, R.const(%.9g, \"%s\")))", var,
              ox_attr_float(c, "epsilon", 1e-5), dt);
    }
  }
  ox_emit_like(c, 0, x, x->dt, "R.nn.layer_norm(%s, %s, %s, axes=%s, epsilon=%.9g)", ox_ref(c, x), ox_ref(c, in[1]),
               ox_ref(c, bias), sb.data, ox_attr_float(c, "epsilon", 1e-5));
  sb_free(&sb);
  return 0;
}

int ox_cv_instance_norm(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 3)) return -1;
  OxVal *x = in[0];
  if (x->ndim < 3 || x->dims[1] < 0) return ox_fail(c, "the input needs a static channel axis and spatial axes");
  int64_t axes[OX_MAX_NDIM];
  for (int k = 2; k < x->ndim; k++) axes[k - 2] = k;
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, axes, x->ndim - 2);
  ox_emit_like(c, 0, x, x->dt, "R.nn.group_norm(%s, %s, %s, num_groups=%lld, channel_axis=1, axes=%s, epsilon=%.9g)",
               ox_ref(c, x), ox_ref(c, in[1]), ox_ref(c, in[2]), (long long)x->dims[1], sb.data,
               ox_attr_float(c, "epsilon", 1e-5));
  sb_free(&sb);
  return 0;
}

/* Softmax / LogSoftmax; before opset 13 the input is seen as 2-D [:axis] x [axis:]. */
int ox_cv_softmax(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  const char *op = !strcmp(c->node->op_type, "Softmax") ? "softmax" : "log_softmax";
  int axis = ox_axis(c, ox_attr_int(c, "axis", c->opset < 13 ? 1 : -1), x->ndim);
  if (axis < 0) return -1;
  if (c->opset >= 13 || axis == x->ndim - 1) {
    ox_emit_like(c, 0, x, x->dt, "R.nn.%s(%s, axis=%d)", op, ox_ref(c, x), axis);
    return 0;
  }
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < x->ndim; k++) {
    if (x->dims[k] < 0) return ox_fail(c, "a coerced (opset < 13) softmax on a symbolic shape is not supported");
    if (k < axis) outer *= x->dims[k];
    else inner *= x->dims[k];
  }
  const char *f = ox_tmp(c, "R.reshape(%s, (%lld, %lld))", ox_ref(c, x), (long long)outer, (long long)inner);
  const char *s = ox_tmp(c, "R.nn.%s(%s, axis=1)", op, f);
  StrBuf sh;
  sb_init(&sh);
  ox_shape_arg(c, &sh, x->ndim, x->dims, x->sym);
  ox_emit_like(c, 0, x, x->dt, "R.reshape(%s, %s)", s, sh.data);
  sb_free(&sh);
  return 0;
}
