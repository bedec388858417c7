/* relax_op_spatial.c - the spatial operators' attribute schemas and struct-info
 * inference: nn.conv2d, nn.conv2d_transpose, nn.max_pool2d, nn.avg_pool2d,
 * nn.adaptive_avg_pool2d, image.resize2d (TVM's src/relax/op/nn/convolution.cc,
 * pooling.cc, image/resize.cc rules).
 *
 * Layouts are permutations of NCHW (data, output) and OIHW (kernel); any
 * permutation is accepted here and in the interpreter, legalization covers
 * the ones the stdlib templates are written for.  Output sizes are exact
 * expressions of the inputs' (possibly symbolic) dims, simplified. */
#include "ir/relax_op.h"

#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "base/util.h"

static const RxAttrSpec conv2d_specs[] = {
    {"strides", RX_ATTR_INTS, "[1, 1]", 2, 2},       {"padding", RX_ATTR_INTS, "[0, 0, 0, 0]", 3, 4},
    {"dilation", RX_ATTR_INTS, "[1, 1]", 4, 2},      {"groups", RX_ATTR_INT, "1", 5, 0},
    {"data_layout", RX_ATTR_STR, "NCHW", 6, 0},      {"kernel_layout", RX_ATTR_STR, "OIHW", 7, 0},
    {"out_layout", RX_ATTR_STR, "=data_layout", 8, 0}, {"out_dtype", RX_ATTR_DTYPE, "void", 9, 0},
};
const RxAttrSchema rx_attrs_conv2d[1] = {{false, true, conv2d_specs, 8}};

static const RxAttrSpec conv2d_transpose_specs[] = {
    {"strides", RX_ATTR_INTS, "[1, 1]", 2, 2},        {"padding", RX_ATTR_INTS, "[0, 0, 0, 0]", 3, 4},
    {"output_padding", RX_ATTR_INTS, "[0, 0]", 4, 2}, {"dilation", RX_ATTR_INTS, "[1, 1]", 5, 2},
    {"groups", RX_ATTR_INT, "1", 6, 0},               {"data_layout", RX_ATTR_STR, "NCHW", 7, 0},
    {"kernel_layout", RX_ATTR_STR, "IOHW", 8, 0},     {"out_layout", RX_ATTR_STR, "=data_layout", 9, 0},
    {"out_dtype", RX_ATTR_DTYPE, "void", 10, 0},
};
const RxAttrSchema rx_attrs_conv2d_transpose[1] = {{false, true, conv2d_transpose_specs, 9}};

/* TVM prints Pool2DAttrs in field order (dilation before padding); the
 * positional order is the Python signature's. */
static const RxAttrSpec pool2d_specs[] = {
    {"pool_size", RX_ATTR_INTS, "[1, 1]", 1, 2},        {"strides", RX_ATTR_INTS, "[1, 1]", 2, 2},
    {"dilation", RX_ATTR_INTS, "[1, 1]", 4, 2},         {"padding", RX_ATTR_INTS, "[0, 0, 0, 0]", 3, 4},
    {"ceil_mode", RX_ATTR_BOOL, "False", 5, 0},         {"count_include_pad", RX_ATTR_BOOL, "False", 6, 0},
    {"layout", RX_ATTR_STR, "NCHW", 7, 0},              {"out_layout", RX_ATTR_STR, "=layout", 8, 0},
};
const RxAttrSchema rx_attrs_pool2d[1] = {{false, true, pool2d_specs, 8}};

static const RxAttrSpec adaptive_pool2d_specs[] = {
    {"output_size", RX_ATTR_AXES, "None", 1, 0},
    {"layout", RX_ATTR_STR, "NCHW", 2, 0},
    {"out_layout", RX_ATTR_STR, "=layout", 3, 0},
};
const RxAttrSchema rx_attrs_adaptive_pool2d[1] = {{false, true, adaptive_pool2d_specs, 3}};

static const RxAttrSpec resize2d_specs[] = {
    {"roi", RX_ATTR_FLOATS, "[0.0, 0.0, 0.0, 0.0]", 2, 4},
    {"layout", RX_ATTR_STR, "NCHW", 3, 0},
    {"method", RX_ATTR_STR, "linear", 4, 0},
    {"coordinate_transformation_mode", RX_ATTR_STR, "half_pixel", 5, 0},
    {"rounding_method", RX_ATTR_STR, "round", 6, 0},
    {"cubic_alpha", RX_ATTR_FLOAT, "-0.75", 7, 0},
    {"cubic_exclude", RX_ATTR_INT, "0", 8, 0},
    {"extrapolation_value", RX_ATTR_FLOAT, "0.0", 9, 0},
    {"out_dtype", RX_ATTR_DTYPE, "void", 10, 0},
};
const RxAttrSchema rx_attrs_resize2d[1] = {{false, true, resize2d_specs, 9}};

/* ------------------------------------------------------------ layouts */

bool rx_layout_axes(const char *layout, const char *canon, int *pos) {
  size_t n = strlen(canon);
  if (!layout || strlen(layout) != n) return false;
  for (size_t i = 0; i < n; i++) {
    const char *p = strchr(layout, canon[i]);
    if (!p) return false;
    pos[i] = (int)(p - layout);
  }
  return true;
}

/* ------------------------------------------------------------ helpers */

static const char *op_name(const RxInferCall *q) { return q->op->script_name; }

static const RxSInfo *tensor_operand(const RxInferCall *q, int i, bool *bad) {
  const RxSInfo *s = q->args[i];
  if (s && s->kind == RX_SI_TENSOR) return s;
  if (!s || s->kind == RX_SI_OBJECT) return NULL;
  StrBuf sb;
  sb_init(&sb);
  rx_sinfo_str(&sb, s);
  diag_error(q->diag, q->arg_spans[i], "R.%s expects a tensor, got %s", op_name(q), sb.data);
  sb_free(&sb);
  *bad = true;
  return NULL;
}

static char *shape_text(const RxSInfo *s) {
  StrBuf sb;
  sb_init(&sb);
  rx_shape_str(&sb, s->shape, s->ndim);
  return sb.data;
}

/* Reads a layout attribute; reports it when it is not a permutation of canon. */
static bool layout_attr(const RxInferCall *q, const char *key, const char *canon, int *pos) {
  const char *l = rx_attr_str(q->attrs, key, canon);
  if (rx_layout_axes(l, canon, pos)) return true;
  diag_error(q->diag, q->span, "R.%s: %s \"%s\" is not supported (a permutation of %s)", op_name(q), key, l,
             canon);
  return false;
}

static bool rank_is(const RxInferCall *q, int i, const RxSInfo *s, int nd, const char *what, const char *layout) {
  if (s->ndim < 0 || s->ndim == nd) return true;
  diag_error(q->diag, q->arg_spans[i], "R.%s: %s must be %d-D (layout %s), got %d-D", op_name(q), what, nd, layout,
             s->ndim);
  return false;
}

static TirExpr *i64(IrHeap *h, DType t, int64_t v) { return tir_int(h, t, v); }

/* (in + pad - dil * (k - 1) - 1 [+ stride - 1]) // stride + 1, simplified. */
static TirExpr *window_out(IrHeap *h, TirExpr *in, int64_t pad, int64_t dil, TirExpr *k, int64_t stride,
                           bool ceil_mode) {
  DType t = in->dtype;
  if (!dt_eq(k->dtype, t)) k = tir_cast(h, t, k);
  TirExpr *num = tir_binary(h, TIR_ADD, in, i64(h, t, pad - 1 + (ceil_mode ? stride - 1 : 0)));
  num = tir_binary(h, TIR_SUB, num, tir_binary(h, TIR_MUL, i64(h, t, dil), tir_binary(h, TIR_SUB, k, i64(h, t, 1))));
  TirExpr *e = tir_binary(h, TIR_ADD, tir_binary(h, TIR_FLOORDIV, num, i64(h, t, stride)), i64(h, t, 1));
  ArithCtx *a = arith_new(h);
  TirExpr *r = arith_simplify(a, e);
  arith_free(a);
  return r ? r : e;
}

static bool positive_ints(const RxInferCall *q, const char *key, int64_t *v, int n, bool allow_zero) {
  int got = rx_attr_ints(q->attrs, key, v, n);
  for (int i = 0; i < got && i < n; i++)
    if (v[i] < (allow_zero ? 0 : 1)) {
      diag_error(q->diag, q->span, "R.%s: %s must be %s, got %lld", op_name(q), key,
                 allow_zero ? "non-negative" : "positive", (long long)v[i]);
      return false;
    }
  return got == n;
}

static bool const_dim(const TirExpr *e, int64_t *v) { return e && tir_is_const_int(e, v); }

/* A window (kernel or pool) that does not fit the padded input. */
static bool window_fits(const RxInferCall *q, const RxSInfo *data, TirExpr *out, const char *what) {
  int64_t v;
  if (!const_dim(out, &v) || v >= 1) return true;
  char *ds = shape_text(data);
  diag_error(q->diag, q->span, "R.%s: the %s is larger than the padded input (data shape %s)", op_name(q), what, ds);
  free(ds);
  return false;
}

/* The output tensor: dims in NCHW order placed by out layout positions. */
static RxSInfo *nchw_result(const RxInferCall *q, TirExpr **nchw, const int *opos, DType t) {
  TirExpr *shape[4];
  for (int i = 0; i < 4; i++) shape[opos[i]] = nchw[i];
  return rx_sinfo_tensor(q->h, shape, 4, t);
}

/* ------------------------------------------------------------ conv2d */

typedef struct ConvAttrs {
  int64_t strides[2], pad[4], dil[2], out_pad[2], groups;
  int dpos[4], kpos[4], opos[4];
  DType out_dtype;
} ConvAttrs;

static bool conv_attrs(const RxInferCall *q, ConvAttrs *ca, const char *kcanon, bool transpose) {
  memset(ca, 0, sizeof *ca);
  ca->groups = rx_attr_int(q->attrs, "groups", 1);
  if (!positive_ints(q, "strides", ca->strides, 2, false) || !positive_ints(q, "padding", ca->pad, 4, true) ||
      !positive_ints(q, "dilation", ca->dil, 2, false))
    return false;
  if (transpose && !positive_ints(q, "output_padding", ca->out_pad, 2, true)) return false;
  if (ca->groups < 1) {
    diag_error(q->diag, q->span, "R.%s: groups must be positive, got %lld", op_name(q), (long long)ca->groups);
    return false;
  }
  if (!layout_attr(q, "data_layout", "NCHW", ca->dpos) || !layout_attr(q, "kernel_layout", kcanon, ca->kpos) ||
      !layout_attr(q, "out_layout", "NCHW", ca->opos))
    return false;
  ca->out_dtype = rx_attr_dtype(q->attrs, "out_dtype");
  return true;
}

/* Channel rules shared by conv2d and conv2d_transpose: `cin` channels of data
 * against the kernel's `kin` (times groups for conv2d). */
static bool check_channels(const RxInferCall *q, const RxSInfo *x, const RxSInfo *w, TirExpr *cin, TirExpr *kin,
                           TirExpr *kout, int64_t groups, bool transpose) {
  int64_t c, ki, ko;
  char *xs = shape_text(x), *ws = shape_text(w);
  bool ok = true;
  if (!transpose && const_dim(cin, &c) && c % groups) {
    diag_error(q->diag, q->span, "R.%s: groups=%lld does not divide the %lld input channels of data (shape %s)",
               op_name(q), (long long)groups, (long long)c, xs);
    ok = false;
  } else if (!transpose && const_dim(kout, &ko) && ko % groups) {
    diag_error(q->diag, q->span, "R.%s: groups=%lld does not divide the %lld output channels of weight (shape %s)",
               op_name(q), (long long)groups, (long long)ko, ws);
    ok = false;
  } else if (!transpose && const_dim(cin, &c) && const_dim(kin, &ki) && c != ki * groups) {
    diag_error(q->diag, q->span,
               "R.%s: data has %lld input channels (shape %s) but weight expects %lld (shape %s, groups=%lld)",
               op_name(q), (long long)c, xs, (long long)(ki * groups), ws, (long long)groups);
    ok = false;
  } else if (transpose && const_dim(cin, &c) && const_dim(kin, &ki) && c != ki) {
    diag_error(q->diag, q->span, "R.%s: data has %lld input channels (shape %s) but weight expects %lld (shape %s)",
               op_name(q), (long long)c, xs, (long long)ki, ws);
    ok = false;
  } else if (transpose && const_dim(cin, &c) && c % groups) {
    diag_error(q->diag, q->span, "R.%s: groups=%lld does not divide the %lld input channels of data (shape %s)",
               op_name(q), (long long)groups, (long long)c, xs);
    ok = false;
  }
  free(xs);
  free(ws);
  return ok;
}

static DType conv_dtype(const RxInferCall *q, const RxSInfo *x, const RxSInfo *w, DType od) {
  if (!dt_is_void(od)) return od;
  if (!dt_is_void(x->dtype) && !dt_is_void(w->dtype) && !dt_eq(x->dtype, w->dtype)) return dt_void;
  return x->dtype;
}

/* ------------------------------------------------------------ blocked conv2d */

/* A layout attribute that is a (possibly blocked) layout of canon. */
static bool layout_map_attr(const RxInferCall *q, const char *key, const char *canon, RxLayoutMap *m) {
  const char *l = rx_attr_str(q->attrs, key, canon);
  if (rx_layout_map(l, canon, m)) return true;
  diag_error(q->diag, q->span, "R.%s: %s \"%s\" is not a layout of %s", op_name(q), key, l, canon);
  return false;
}

/* The canonical dims of a tensor in layout m: a blocked axis is blocks * factor. */
static bool logical_dims(const RxInferCall *q, int i, const RxSInfo *s, const RxLayoutMap *m, const char *key,
                         TirExpr **dims) {
  for (int a = 0; a < 4; a++) {
    dims[a] = s->shape[m->pos[a]];
    if (m->sub[a] < 0) continue;
    int64_t f;
    if (const_dim(s->shape[m->sub[a]], &f) && f != m->fac[a]) {
      char *st = shape_text(s);
      diag_error(q->diag, q->arg_spans[i], "R.%s: %s \"%s\" has a block of %lld but the operand's shape is %s",
                 op_name(q), key, rx_attr_str(q->attrs, key, ""), (long long)m->fac[a], st);
      free(st);
      return false;
    }
    dims[a] = tir_binary(q->h, TIR_MUL, dims[a], tir_int(q->h, dims[a]->dtype, m->fac[a]));
  }
  ArithCtx *a = arith_new(q->h);
  for (int k = 0; k < 4; k++) dims[k] = arith_simplify(a, dims[k]);
  arith_free(a);
  return true;
}

/* conv2d with data NCHW[x]c, kernel OIHW[x]i[y]o, out NCHW[y]c (TVM's
 * conv2d_NCHWc); groups must be 1. */
static RxSInfo *infer_conv2d_blocked(const RxInferCall *q, const RxSInfo *x, const RxSInfo *w, const ConvAttrs *ca) {
  RxLayoutMap dm, km, om;
  if (!layout_map_attr(q, "data_layout", "NCHW", &dm) || !layout_map_attr(q, "kernel_layout", "OIHW", &km) ||
      !layout_map_attr(q, "out_layout", "NCHW", &om))
    return NULL;
  if (ca->groups != 1) {
    diag_error(q->diag, q->span, "R.%s: blocked layouts need groups=1, got %lld", op_name(q), (long long)ca->groups);
    return NULL;
  }
  DType t = conv_dtype(q, x, w, ca->out_dtype);
  if ((x->ndim >= 0 && x->ndim != dm.ndim) || (w->ndim >= 0 && w->ndim != km.ndim)) {
    diag_error(q->diag, q->span, "R.%s: data must be %d-D and weight %d-D for layouts %s / %s, got %d-D and %d-D",
               op_name(q), dm.ndim, km.ndim, rx_attr_str(q->attrs, "data_layout", ""),
               rx_attr_str(q->attrs, "kernel_layout", ""), x->ndim, w->ndim);
    return NULL;
  }
  if (!x->shape || !w->shape) return rx_sinfo_tensor(q->h, NULL, om.ndim, t);
  TirExpr *xd[4], *wd[4];
  if (!logical_dims(q, 0, x, &dm, "data_layout", xd) || !logical_dims(q, 1, w, &km, "kernel_layout", wd) ||
      !check_channels(q, x, w, xd[1], wd[1], wd[0], 1, false))
    return NULL;
  IrHeap *h = q->h;
  TirExpr *out[4] = {xd[0], wd[0], NULL, NULL};
  out[2] = window_out(h, xd[2], ca->pad[0] + ca->pad[2], ca->dil[0], wd[2], ca->strides[0], false);
  out[3] = window_out(h, xd[3], ca->pad[1] + ca->pad[3], ca->dil[1], wd[3], ca->strides[1], false);
  if (!window_fits(q, x, out[2], "kernel") || !window_fits(q, x, out[3], "kernel")) return NULL;
  TirExpr *shape[RX_LAYOUT_MAX];
  for (int a = 0; a < 4; a++) {
    int64_t v;
    shape[om.pos[a]] = out[a];
    if (om.sub[a] < 0) continue;
    if (const_dim(out[a], &v) && v % om.fac[a]) {
      diag_error(q->diag, q->span, "R.%s: out_layout \"%s\": the block of %lld does not divide the %lld %s",
                 op_name(q), rx_attr_str(q->attrs, "out_layout", ""), (long long)om.fac[a], (long long)v,
                 a == 1 ? "output channels" : "output elements of that axis");
      return NULL;
    }
    shape[om.pos[a]] = tir_binary(h, TIR_FLOORDIV, out[a], tir_int(h, out[a]->dtype, om.fac[a]));
    shape[om.sub[a]] = tir_int(h, out[a]->dtype, om.fac[a]);
  }
  ArithCtx *a = arith_new(h);
  for (int k = 0; k < om.ndim; k++) shape[k] = arith_simplify(a, shape[k]);
  arith_free(a);
  return rx_sinfo_tensor(h, shape, om.ndim, t);
}

static bool any_blocked(const RxInferCall *q) {
  const char *keys[3] = {"data_layout", "kernel_layout", "out_layout"}, *canon[3] = {"NCHW", "OIHW", "NCHW"};
  for (int i = 0; i < 3; i++) {
    RxLayoutMap m;
    if (rx_layout_map(rx_attr_str(q->attrs, keys[i], canon[i]), canon[i], &m) && m.blocked) return true;
  }
  return false;
}

RxSInfo *rx_infer_conv2d(const RxInferCall *q) {
  bool bad = false, transpose = q->op->id == RX_OP_NN_CONV2D_TRANSPOSE;
  const RxSInfo *x = tensor_operand(q, 0, &bad), *w = tensor_operand(q, 1, &bad);
  ConvAttrs ca;
  if (!bad && !transpose && any_blocked(q)) {
    memset(&ca, 0, sizeof ca);
    ca.groups = rx_attr_int(q->attrs, "groups", 1);
    ca.out_dtype = rx_attr_dtype(q->attrs, "out_dtype");
    if (!positive_ints(q, "strides", ca.strides, 2, false) || !positive_ints(q, "padding", ca.pad, 4, true) ||
        !positive_ints(q, "dilation", ca.dil, 2, false))
      return NULL;
    if (!x || !w) return rx_sinfo_tensor(q->h, NULL, -1, x ? x->dtype : dt_void);
    return infer_conv2d_blocked(q, x, w, &ca);
  }
  if (bad || !conv_attrs(q, &ca, transpose ? "IOHW" : "OIHW", transpose)) return NULL;
  if (!x || !w) return rx_sinfo_tensor(q->h, NULL, 4, x ? x->dtype : dt_void);
  if (!rank_is(q, 0, x, 4, "data", rx_attr_str(q->attrs, "data_layout", "NCHW")) ||
      !rank_is(q, 1, w, 4, "weight", rx_attr_str(q->attrs, "kernel_layout", "OIHW")))
    return NULL;
  DType t = conv_dtype(q, x, w, ca.out_dtype);
  if (!dt_is_void(x->dtype) && !dt_is_void(w->dtype) && dt_is_void(t)) {
    char b1[32], b2[32];
    diag_error(q->diag, q->span, "R.%s: data and weight dtypes differ (%s vs %s); give out_dtype", op_name(q),
               dt_str(x->dtype, b1), dt_str(w->dtype, b2));
    return NULL;
  }
  if (!x->shape || !w->shape) return rx_sinfo_tensor(q->h, NULL, 4, t);
  TirExpr *N = x->shape[ca.dpos[0]], *C = x->shape[ca.dpos[1]], *H = x->shape[ca.dpos[2]], *W = x->shape[ca.dpos[3]];
  /* conv2d: kpos = O, I, H, W; conv2d_transpose: kpos = I, O, H, W */
  TirExpr *K0 = w->shape[ca.kpos[0]], *K1 = w->shape[ca.kpos[1]], *KH = w->shape[ca.kpos[2]],
          *KW = w->shape[ca.kpos[3]];
  if (!check_channels(q, x, w, C, transpose ? K0 : K1, transpose ? K1 : K0, ca.groups, transpose)) return NULL;
  TirExpr *out[4] = {N, NULL, NULL, NULL};
  IrHeap *h = q->h;
  if (!transpose) {
    out[1] = K0;
    out[2] = window_out(h, H, ca.pad[0] + ca.pad[2], ca.dil[0], KH, ca.strides[0], false);
    out[3] = window_out(h, W, ca.pad[1] + ca.pad[3], ca.dil[1], KW, ca.strides[1], false);
    if (!window_fits(q, x, out[2], "kernel") || !window_fits(q, x, out[3], "kernel")) return NULL;
  } else {
    for (int i = 0; i < 2; i++)
      if (ca.out_pad[i] >= ca.strides[i] && ca.out_pad[i] >= ca.dil[i]) {
        diag_error(q->diag, q->span, "R.%s: output_padding (%lld) must be smaller than strides or dilation",
                   op_name(q), (long long)ca.out_pad[i]);
        return NULL;
      }
    DType dt = H->dtype;
    TirExpr *g = tir_int(h, K1->dtype, ca.groups);
    ArithCtx *a = arith_new(h);
    out[1] = arith_simplify(a, tir_binary(h, TIR_MUL, K1, g));
    TirExpr *in[2] = {H, W}, *k[2] = {KH, KW};
    for (int i = 0; i < 2; i++) {
      /* (in - 1) * stride - pad_before - pad_after + dil * (k - 1) + output_padding + 1 */
      TirExpr *kk = dt_eq(k[i]->dtype, dt) ? k[i] : tir_cast(h, dt, k[i]);
      TirExpr *e = tir_binary(h, TIR_MUL, tir_binary(h, TIR_SUB, in[i], i64(h, dt, 1)), i64(h, dt, ca.strides[i]));
      e = tir_binary(h, TIR_ADD, e, tir_binary(h, TIR_MUL, i64(h, dt, ca.dil[i]), tir_binary(h, TIR_SUB, kk, i64(h, dt, 1))));
      e = tir_binary(h, TIR_ADD, e, i64(h, dt, ca.out_pad[i] + 1 - ca.pad[i] - ca.pad[i + 2]));
      out[2 + i] = arith_simplify(a, e);
    }
    arith_free(a);
    if (!window_fits(q, x, out[2], "padding") || !window_fits(q, x, out[3], "padding")) return NULL;
  }
  return nchw_result(q, out, ca.opos, t);
}

/* ------------------------------------------------------------ pooling */

/* A blocked pooling layout (NCHW16c): only C may be blocked, and out_layout
 * must be the same; *ok false after an error. */
static bool pool_blocked(const RxInferCall *q, RxLayoutMap *m, bool *ok) {
  const char *l = rx_attr_str(q->attrs, "layout", "NCHW");
  *ok = true;
  if (!rx_layout_map(l, "NCHW", m) || !m->blocked) return false;
  if (m->sub[0] >= 0 || m->sub[2] >= 0 || m->sub[3] >= 0 || strcmp(rx_attr_str(q->attrs, "out_layout", l), l)) {
    diag_error(q->diag, q->span, "R.%s: layout \"%s\": only C may be blocked, and out_layout must be the same",
               op_name(q), l);
    *ok = false;
  }
  return true;
}

RxSInfo *rx_infer_pool2d(const RxInferCall *q) {
  bool bad = false, ok;
  const RxSInfo *x = tensor_operand(q, 0, &bad);
  if (bad) return NULL;
  int64_t k[2], s[2], d[2], p[4];
  int dpos[4], opos[4];
  RxLayoutMap bm;
  bool blocked = pool_blocked(q, &bm, &ok);
  if (!ok) return NULL;
  if (!positive_ints(q, "pool_size", k, 2, false) || !positive_ints(q, "strides", s, 2, false) ||
      !positive_ints(q, "dilation", d, 2, false) || !positive_ints(q, "padding", p, 4, true) ||
      (!blocked && (!layout_attr(q, "layout", "NCHW", dpos) || !layout_attr(q, "out_layout", "NCHW", opos))))
    return NULL;
  int nd = blocked ? bm.ndim : 4;
  if (blocked)
    for (int i = 0; i < 4; i++) dpos[i] = opos[i] = bm.pos[i];
  bool ceil_mode = rx_attr_bool(q->attrs, "ceil_mode", false);
  if (!x) return rx_sinfo_tensor(q->h, NULL, nd, dt_void);
  if (!rank_is(q, 0, x, nd, "data", rx_attr_str(q->attrs, "layout", "NCHW"))) return NULL;
  if (!x->shape) return rx_sinfo_tensor(q->h, NULL, nd, x->dtype);
  IrHeap *h = q->h;
  TirExpr *out[4] = {x->shape[dpos[0]], x->shape[dpos[1]], NULL, NULL};
  for (int i = 0; i < 2; i++) {
    TirExpr *in = x->shape[dpos[2 + i]];
    TirExpr *kk = tir_int(h, in->dtype, k[i]);
    out[2 + i] = window_out(h, in, p[i] + p[i + 2], d[i], kk, s[i], ceil_mode);
    int64_t o, n;
    /* ceil mode: a last window that starts in the bottom padding is dropped */
    if (ceil_mode && const_dim(out[2 + i], &o) && const_dim(in, &n) && (o - 1) * s[i] >= n + p[i])
      out[2 + i] = tir_int(h, in->dtype, o - 1);
    if (!window_fits(q, x, out[2 + i], "pooling window")) return NULL;
  }
  if (blocked) { /* the input's shape with the window's H and W */
    TirExpr *shape[RX_LAYOUT_MAX];
    for (int i = 0; i < nd; i++) shape[i] = x->shape[i];
    shape[bm.pos[2]] = out[2], shape[bm.pos[3]] = out[3];
    return rx_sinfo_tensor(h, shape, nd, x->dtype);
  }
  return nchw_result(q, out, opos, x->dtype);
}

RxSInfo *rx_infer_adaptive_pool2d(const RxInferCall *q) {
  bool bad = false;
  const RxSInfo *x = tensor_operand(q, 0, &bad);
  int dpos[4], opos[4];
  if (bad || !layout_attr(q, "layout", "NCHW", dpos) || !layout_attr(q, "out_layout", "NCHW", opos)) return NULL;
  int64_t os[2];
  int n = rx_attr_ints(q->attrs, "output_size", os, 2);
  if (n == 1) os[1] = os[0];
  if (n > 2 || n == 0) {
    diag_error(q->diag, q->span, "R.%s: output_size takes 1 or 2 integers, got %d", op_name(q), n);
    return NULL;
  }
  for (int i = 0; i < 2 && n > 0; i++)
    if (os[i] < 1) {
      diag_error(q->diag, q->span, "R.%s: output_size must be positive, got %lld", op_name(q), (long long)os[i]);
      return NULL;
    }
  if (!x) return rx_sinfo_tensor(q->h, NULL, 4, dt_void);
  if (!rank_is(q, 0, x, 4, "data", rx_attr_str(q->attrs, "layout", "NCHW"))) return NULL;
  if (!x->shape) return rx_sinfo_tensor(q->h, NULL, 4, x->dtype);
  TirExpr *out[4] = {x->shape[dpos[0]], x->shape[dpos[1]], x->shape[dpos[2]], x->shape[dpos[3]]};
  for (int i = 0; i < 2 && n > 0; i++) out[2 + i] = tir_int(q->h, out[2 + i]->dtype, os[i]);
  return nchw_result(q, out, opos, x->dtype);
}

/* ------------------------------------------------------------ resize2d */

static bool one_of(const char *s, const char *const *names) {
  for (; *names; names++)
    if (!strcmp(s, *names)) return true;
  return false;
}

static bool resize_attrs_ok(const RxInferCall *q) {
  static const char *const methods[] = {"nearest_neighbor", "linear", "cubic", NULL};
  static const char *const modes[] = {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                                      "tf_half_pixel_for_nn", NULL};
  static const char *const roundings[] = {"round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil", "",
                                          NULL};
  const char *m = rx_attr_str(q->attrs, "method", "linear");
  const char *c = rx_attr_str(q->attrs, "coordinate_transformation_mode", "half_pixel");
  const char *r = rx_attr_str(q->attrs, "rounding_method", "round");
  const char *bad = !one_of(m, methods) ? "method" : !one_of(c, modes) ? "coordinate_transformation_mode"
                    : !one_of(r, roundings) ? "rounding_method" : NULL;
  if (!bad) return true;
  diag_error(q->diag, q->span, "R.%s: unknown %s \"%s\"", op_name(q), bad,
             rx_attr_str(q->attrs, bad, ""));
  return false;
}

RxSInfo *rx_infer_resize2d(const RxInferCall *q) {
  bool bad = false;
  const RxSInfo *x = tensor_operand(q, 0, &bad);
  int dpos[4];
  if (bad || !layout_attr(q, "layout", "NCHW", dpos) || !resize_attrs_ok(q)) return NULL;
  const RxSInfo *sz = q->args[1];
  if (!sz || sz->kind != RX_SI_SHAPE) {
    diag_error(q->diag, q->arg_spans[1], "R.%s: size must be a shape of 1 or 2 values, like (16, 16)", op_name(q));
    return NULL;
  }
  if (sz->ndim != 1 && sz->ndim != 2 && sz->ndim >= 0) {
    diag_error(q->diag, q->arg_spans[1], "R.%s: size has %d values; it takes 1 or 2 (height, width)", op_name(q),
               sz->ndim);
    return NULL;
  }
  for (int i = 0; sz->shape && i < sz->ndim; i++) {
    int64_t v;
    if (const_dim(sz->shape[i], &v) && v < 1) {
      diag_error(q->diag, q->arg_spans[1], "R.%s: size must be positive, got %lld", op_name(q), (long long)v);
      return NULL;
    }
  }
  DType od = rx_attr_dtype(q->attrs, "out_dtype");
  DType t = !dt_is_void(od) ? od : x ? x->dtype : dt_void;
  if (!x) return rx_sinfo_tensor(q->h, NULL, 4, t);
  if (!rank_is(q, 0, x, 4, "data", rx_attr_str(q->attrs, "layout", "NCHW"))) return NULL;
  if (!x->shape || !sz->shape) return rx_sinfo_tensor(q->h, NULL, 4, t);
  TirExpr *out[4] = {x->shape[dpos[0]], x->shape[dpos[1]], sz->shape[0], sz->shape[sz->ndim - 1]};
  return nchw_result(q, out, dpos, t);
}
