/* interp_relax_spatial.c - reference semantics of the spatial operators:
 * nn.conv2d, nn.conv2d_transpose, nn.max_pool2d, nn.avg_pool2d,
 * nn.adaptive_avg_pool2d, image.resize2d (TOPI's definitions, any layout that
 * is a permutation of NCHW / OIHW).
 *
 * Straight loops over the output in NCHW order with the layouts mapped to
 * positions; sums accumulate in double and are rounded once to the result's
 * dtype (the oracle the legalized prim_funcs are compared with). */
#include "ir/interp_internal.h"
#include "ir/relax_op.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "base/util.h"

/* ------------------------------------------------------------ elements */

/* The element at index idx (the tensor's own axes), as a double. */
static double read_at(const DLTensor *t, const int64_t *idx) {
  DType dt = rx_interp_dtype(t->dtype);
  const unsigned char *p = (const unsigned char *)t->data + t->byte_offset +
                           (size_t)rx_interp_offset(t, idx) * tvs_dtype_bytes(t->dtype);
  IScalar v = interp_read_elem(dt, p);
  return dt_is_float(dt) ? v.f : dt_is_uint(dt) ? (double)v.u : (double)v.i;
}

/* Stores x at index idx, converted to the tensor's dtype. */
static void write_at(TvsNDArray *r, const int64_t *idx, double x) {
  DType dt = rx_interp_dtype(r->t.dtype);
  IScalar v;
  if (dt_is_float(dt)) v = interp_cast_scalar(dt_float64, (IScalar){.f = x}, dt);
  else v = interp_cast_scalar(dt_int64, (IScalar){.i = (int64_t)x}, dt);
  interp_write_elem(dt, (unsigned char *)r->t.data + (size_t)rx_interp_offset(&r->t, idx) * tvs_dtype_bytes(r->t.dtype),
                    v);
}

static double get(const DLTensor *t, const int *pos, int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t idx[4];
  idx[pos[0]] = a, idx[pos[1]] = b, idx[pos[2]] = c, idx[pos[3]] = d;
  return read_at(t, idx);
}

static void put(TvsNDArray *r, const int *pos, int64_t a, int64_t b, int64_t c, int64_t d, double x) {
  int64_t idx[4];
  idx[pos[0]] = a, idx[pos[1]] = b, idx[pos[2]] = c, idx[pos[3]] = d;
  write_at(r, idx, x);
}

/* get/put through a (possibly blocked) layout map (conv2d's NCHW16c). */
static double getm(const DLTensor *t, const RxLayoutMap *m, int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t canon[4] = {a, b, c, d}, idx[RX_LAYOUT_MAX];
  rx_layout_index(m, canon, 4, idx);
  return read_at(t, idx);
}

static void putm(TvsNDArray *r, const RxLayoutMap *m, int64_t a, int64_t b, int64_t c, int64_t d, double x) {
  int64_t canon[4] = {a, b, c, d}, idx[RX_LAYOUT_MAX];
  rx_layout_index(m, canon, 4, idx);
  write_at(r, idx, x);
}

/* The result tensor: NCHW dims placed by layout positions, the call's dtype. */
static TvsNDArray *result(const RxExpr *e, const int *pos, const int64_t *nchw) {
  int64_t shape[4];
  for (int i = 0; i < 4; i++) shape[pos[i]] = nchw[i];
  return tvs_ndarray_empty(4, shape, interp_dl_dtype(e->sinfo->dtype));
}

static int finish(struct RxInterpCtx *c, const RxExpr *e, TvsNDArray *r, struct RxInterpVal **v, int n,
                  struct RxInterpVal **out) {
  for (int i = 0; i < n; i++) rx_interp_release(v[i]);
  if (!r) return rx_interp_error(c, e->span, "R.%s: cannot allocate the result", e->call.op->script_name);
  *out = rx_interp_tensor(r);
  return 0;
}

/* The call's tensor operands (n of them), checked 4-D (or of the rank of
 * their layouts, ndims[i], when given). */
static int operands_ranked(struct RxInterpCtx *c, const RxExpr *e, int n, struct RxInterpVal **v,
                           const DLTensor **t, const int *ndims) {
  if (rx_interp_operands_exact(c, e, v)) return -1;
  for (int i = 0; i < n; i++) {
    t[i] = rx_interp_as_tensor(v[i]);
    if (!t[i] || t[i]->ndim != (ndims ? ndims[i] : 4)) {
      for (int k = 0; k < e->call.op->min_args; k++) rx_interp_release(v[k]);
      return rx_interp_error(c, e->span, "R.%s expects 4-D tensors", e->call.op->script_name);
    }
  }
  return 0;
}

static void layout(const RxExpr *e, const char *key, const char *canon, int *pos) {
  if (!rx_layout_axes(rx_attr_str(e->call.attrs, key, canon), canon, pos))
    for (int i = 0; i < 4; i++) pos[i] = i;
}

static void layout_map(const RxExpr *e, const char *key, const char *canon, RxLayoutMap *m) {
  if (!rx_layout_map(rx_attr_str(e->call.attrs, key, canon), canon, m)) rx_layout_map(canon, canon, m);
}

/* The result tensor of canonical dims nchw in layout m (blocks of an axis: dim / factor). */
static TvsNDArray *result_m(const RxExpr *e, const RxLayoutMap *m, const int64_t *nchw) {
  int64_t shape[RX_LAYOUT_MAX];
  for (int i = 0; i < 4; i++) {
    shape[m->pos[i]] = nchw[i] / m->fac[i];
    if (m->sub[i] >= 0) shape[m->sub[i]] = m->fac[i];
  }
  return tvs_ndarray_empty(m->ndim, shape, interp_dl_dtype(e->sinfo->dtype));
}

/* The ranks of conv2d's data and weight by their layouts. */
static void conv_ranks(const RxExpr *e, const char *kcanon, int *nd) {
  RxLayoutMap m;
  layout_map(e, "data_layout", "NCHW", &m);
  nd[0] = m.ndim;
  layout_map(e, "kernel_layout", kcanon, &m);
  nd[1] = m.ndim;
}

static void ints(const RxExpr *e, const char *key, int64_t *v, int n, int64_t def) {
  for (int i = 0; i < n; i++) v[i] = def;
  rx_attr_ints(e->call.attrs, key, v, n);
}

static int operands(struct RxInterpCtx *c, const RxExpr *e, int n, struct RxInterpVal **v, const DLTensor **t) {
  return operands_ranked(c, e, n, v, t, NULL);
}

/* ------------------------------------------------------------ conv2d */

typedef struct Conv {
  RxLayoutMap dp, kp, op;
  int64_t s[2], p[4], d[2], opad[2], groups;
  int64_t N, C, H, W, K0, K1, KH, KW;
} Conv;

static void conv_read(const RxExpr *e, const DLTensor *x, const DLTensor *w, Conv *cv, const char *kcanon) {
  layout_map(e, "data_layout", "NCHW", &cv->dp);
  layout_map(e, "kernel_layout", kcanon, &cv->kp);
  layout_map(e, "out_layout", "NCHW", &cv->op);
  ints(e, "strides", cv->s, 2, 1);
  ints(e, "padding", cv->p, 4, 0);
  ints(e, "dilation", cv->d, 2, 1);
  ints(e, "output_padding", cv->opad, 2, 0);
  cv->groups = rx_attr_int(e->call.attrs, "groups", 1);
  const RxLayoutMap *d = &cv->dp, *k = &cv->kp;
  cv->N = x->shape[d->pos[0]] * d->fac[0], cv->C = x->shape[d->pos[1]] * d->fac[1];
  cv->H = x->shape[d->pos[2]] * d->fac[2], cv->W = x->shape[d->pos[3]] * d->fac[3];
  cv->K0 = w->shape[k->pos[0]] * k->fac[0], cv->K1 = w->shape[k->pos[1]] * k->fac[1];
  cv->KH = w->shape[k->pos[2]] * k->fac[2], cv->KW = w->shape[k->pos[3]] * k->fac[3];
}

static double conv_at(const DLTensor *x, const DLTensor *w, const Conv *cv, int64_t n, int64_t o, int64_t y,
                      int64_t xx) {
  int64_t opg = cv->K0 / cv->groups, cpg = cv->K1, g = o / opg;
  double acc = 0;
  for (int64_t ic = 0; ic < cpg; ic++)
    for (int64_t ky = 0; ky < cv->KH; ky++) {
      int64_t iy = y * cv->s[0] + ky * cv->d[0] - cv->p[0];
      if (iy < 0 || iy >= cv->H) continue;
      for (int64_t kx = 0; kx < cv->KW; kx++) {
        int64_t ix = xx * cv->s[1] + kx * cv->d[1] - cv->p[1];
        if (ix < 0 || ix >= cv->W) continue;
        acc += getm(x, &cv->dp, n, g * cpg + ic, iy, ix) * getm(w, &cv->kp, o, ic, ky, kx);
      }
    }
  return acc;
}

int rx_eval_conv2d(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[2];
  const DLTensor *t[2];
  int nd[2];
  conv_ranks(e, "OIHW", nd);
  if (operands_ranked(c, e, 2, v, t, nd)) return -1;
  Conv cv;
  conv_read(e, t[0], t[1], &cv, "OIHW");
  if (cv.groups < 1 || cv.K1 * cv.groups != cv.C || cv.K0 % cv.groups) {
    rx_interp_release(v[0]);
    rx_interp_release(v[1]);
    return rx_interp_error(c, e->span, "R.nn.conv2d: channels of data and weight do not match (groups=%lld)",
                         (long long)cv.groups);
  }
  int64_t oh = (cv.H + cv.p[0] + cv.p[2] - cv.d[0] * (cv.KH - 1) - 1) / cv.s[0] + 1;
  int64_t ow = (cv.W + cv.p[1] + cv.p[3] - cv.d[1] * (cv.KW - 1) - 1) / cv.s[1] + 1;
  int64_t dims[4] = {cv.N, cv.K0, oh < 0 ? 0 : oh, ow < 0 ? 0 : ow};
  TvsNDArray *r = result_m(e, &cv.op, dims);
  for (int64_t n = 0; r && n < dims[0]; n++)
    for (int64_t o = 0; o < dims[1]; o++)
      for (int64_t y = 0; y < dims[2]; y++)
        for (int64_t xx = 0; xx < dims[3]; xx++) putm(r, &cv.op, n, o, y, xx, conv_at(t[0], t[1], &cv, n, o, y, xx));
  return finish(c, e, r, v, 2, out);
}

/* conv2d_transpose: the gradient of conv2d (kernel IOHW: input, output/groups). */
static double convt_at(const DLTensor *x, const DLTensor *w, const Conv *cv, int64_t n, int64_t o, int64_t y,
                       int64_t xx) {
  int64_t opg = cv->K1, cpg = cv->C / cv->groups, g = o / opg;
  double acc = 0;
  for (int64_t ic = g * cpg; ic < (g + 1) * cpg; ic++)
    for (int64_t ky = 0; ky < cv->KH; ky++) {
      int64_t ty = y + cv->p[0] - ky * cv->d[0];
      if (ty < 0 || ty % cv->s[0] || ty / cv->s[0] >= cv->H) continue;
      for (int64_t kx = 0; kx < cv->KW; kx++) {
        int64_t tx = xx + cv->p[1] - kx * cv->d[1];
        if (tx < 0 || tx % cv->s[1] || tx / cv->s[1] >= cv->W) continue;
        acc += getm(x, &cv->dp, n, ic, ty / cv->s[0], tx / cv->s[1]) * getm(w, &cv->kp, ic, o % opg, ky, kx);
      }
    }
  return acc;
}

int rx_eval_conv2d_transpose(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[2];
  const DLTensor *t[2];
  if (operands(c, e, 2, v, t)) return -1;
  Conv cv;
  conv_read(e, t[0], t[1], &cv, "IOHW");
  if (cv.groups < 1 || cv.K0 != cv.C || cv.C % cv.groups) {
    rx_interp_release(v[0]);
    rx_interp_release(v[1]);
    return rx_interp_error(c, e->span, "R.nn.conv2d_transpose: channels of data and weight do not match");
  }
  int64_t oh = (cv.H - 1) * cv.s[0] - cv.p[0] - cv.p[2] + cv.d[0] * (cv.KH - 1) + cv.opad[0] + 1;
  int64_t ow = (cv.W - 1) * cv.s[1] - cv.p[1] - cv.p[3] + cv.d[1] * (cv.KW - 1) + cv.opad[1] + 1;
  int64_t dims[4] = {cv.N, cv.K1 * cv.groups, oh < 0 ? 0 : oh, ow < 0 ? 0 : ow};
  TvsNDArray *r = result_m(e, &cv.op, dims);
  for (int64_t n = 0; r && n < dims[0]; n++)
    for (int64_t o = 0; o < dims[1]; o++)
      for (int64_t y = 0; y < dims[2]; y++)
        for (int64_t xx = 0; xx < dims[3]; xx++) putm(r, &cv.op, n, o, y, xx, convt_at(t[0], t[1], &cv, n, o, y, xx));
  return finish(c, e, r, v, 2, out);
}

/* ------------------------------------------------------------ pooling */

typedef struct Pool {
  RxLayoutMap dp, op;
  int64_t k[2], s[2], d[2], p[4];
  bool ceil_mode, include_pad, is_max;
  int64_t in[2];
} Pool;

/* TOPI's divisor of avg_pool for output position o along axis i. */
static int64_t pool_count(const Pool *pl, int i, int64_t o) {
  int64_t start = o * pl->s[i] - pl->p[i], end = start + (pl->k[i] - 1) * pl->d[i];
  if (pl->include_pad) {
    int64_t lim = pl->in[i] + pl->p[i + 2] - 1;
    return ((end < lim ? end : lim) - start) / pl->d[i] + 1;
  }
  int64_t jumps = (pl->d[i] - 1 - start) / pl->d[i];
  if (jumps < 0) jumps = 0;
  if (end > pl->in[i] - 1) end = pl->in[i] - 1;
  return (end - (start + pl->d[i] * jumps)) / pl->d[i] + 1;
}

static double pool_at(const DLTensor *x, const Pool *pl, int64_t n, int64_t ch, int64_t y, int64_t xx) {
  double acc = pl->is_max ? -DBL_MAX : 0;
  for (int64_t ky = 0; ky < pl->k[0]; ky++)
    for (int64_t kx = 0; kx < pl->k[1]; kx++) {
      int64_t iy = y * pl->s[0] + ky * pl->d[0] - pl->p[0], ix = xx * pl->s[1] + kx * pl->d[1] - pl->p[1];
      bool in = iy >= 0 && iy < pl->in[0] && ix >= 0 && ix < pl->in[1];
      double v = in ? getm(x, &pl->dp, n, ch, iy, ix) : pl->is_max ? -FLT_MAX : 0;
      acc = pl->is_max ? (v > acc ? v : acc) : acc + v;
    }
  if (pl->is_max) return acc;
  int64_t cnt = pool_count(pl, 0, y) * pool_count(pl, 1, xx);
  return acc / (double)(cnt < 1 ? 1 : cnt);
}

int rx_eval_pool2d(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[1];
  const DLTensor *t[1];
  Pool pl;
  layout_map(e, "layout", "NCHW", &pl.dp);
  layout_map(e, "out_layout", "NCHW", &pl.op);
  if (operands_ranked(c, e, 1, v, t, &pl.dp.ndim)) return -1;
  ints(e, "pool_size", pl.k, 2, 1);
  ints(e, "strides", pl.s, 2, 1);
  ints(e, "dilation", pl.d, 2, 1);
  ints(e, "padding", pl.p, 4, 0);
  pl.ceil_mode = rx_attr_bool(e->call.attrs, "ceil_mode", false);
  pl.include_pad = rx_attr_bool(e->call.attrs, "count_include_pad", false);
  pl.is_max = e->call.op->id == RX_OP_NN_MAX_POOL2D;
  const DLTensor *x = t[0];
  int64_t dims[4] = {x->shape[pl.dp.pos[0]], x->shape[pl.dp.pos[1]] * pl.dp.fac[1], 0, 0};
  for (int i = 0; i < 2; i++) {
    pl.in[i] = x->shape[pl.dp.pos[2 + i]];
    int64_t num = pl.in[i] + pl.p[i] + pl.p[i + 2] - pl.d[i] * (pl.k[i] - 1) - 1 + (pl.ceil_mode ? pl.s[i] - 1 : 0);
    int64_t o = num < 0 ? 0 : num / pl.s[i] + 1;
    if (pl.ceil_mode && o > 0 && (o - 1) * pl.s[i] >= pl.in[i] + pl.p[i]) o--;
    dims[2 + i] = o;
  }
  TvsNDArray *r = result_m(e, &pl.op, dims);
  for (int64_t n = 0; r && n < dims[0]; n++)
    for (int64_t ch = 0; ch < dims[1]; ch++)
      for (int64_t y = 0; y < dims[2]; y++)
        for (int64_t xx = 0; xx < dims[3]; xx++) putm(r, &pl.op, n, ch, y, xx, pool_at(x, &pl, n, ch, y, xx));
  return finish(c, e, r, v, 1, out);
}

int rx_eval_adaptive_pool2d(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[1];
  const DLTensor *t[1];
  if (operands(c, e, 1, v, t)) return -1;
  int dp[4], op[4];
  layout(e, "layout", "NCHW", dp);
  layout(e, "out_layout", "NCHW", op);
  const DLTensor *x = t[0];
  int64_t H = x->shape[dp[2]], W = x->shape[dp[3]], os[2] = {H, W};
  int n = rx_attr_ints(e->call.attrs, "output_size", os, 2);
  if (n == 1) os[1] = os[0];
  int64_t dims[4] = {x->shape[dp[0]], x->shape[dp[1]], os[0], os[1]};
  TvsNDArray *r = result(e, op, dims);
  for (int64_t b = 0; r && b < dims[0]; b++)
    for (int64_t ch = 0; ch < dims[1]; ch++)
      for (int64_t y = 0; y < os[0]; y++)
        for (int64_t xx = 0; xx < os[1]; xx++) {
          /* TOPI: [floor(o * in / out), ceil((o + 1) * in / out)) */
          int64_t y0 = y * H / os[0], y1 = ((y + 1) * H + os[0] - 1) / os[0];
          int64_t x0 = xx * W / os[1], x1 = ((xx + 1) * W + os[1] - 1) / os[1];
          double acc = 0;
          for (int64_t iy = y0; iy < y1; iy++)
            for (int64_t ix = x0; ix < x1; ix++) acc += get(x, dp, b, ch, iy, ix);
          put(r, op, b, ch, y, xx, acc / (double)((y1 - y0) * (x1 - x0)));
        }
  return finish(c, e, r, v, 1, out);
}

/* ------------------------------------------------------------ resize2d */

typedef struct Resize {
  int mode;      /* 0 half_pixel, 1 align_corners, 2 asymmetric, 3 pytorch_half_pixel, 4 tf_half_pixel_for_nn */
  int rounding;  /* 0 round, 1 floor, 2 ceil, 3 round_prefer_floor, 4 round_prefer_ceil */
  bool nearest;
} Resize;

static int index_of(const char *s, const char *const *names, int def) {
  for (int i = 0; names[i]; i++)
    if (!strcmp(s, names[i])) return i;
  return def;
}

/* TOPI's source coordinate of output position o (in: input size, out: output size). */
static double src_coord(const Resize *rz, int64_t o, int64_t in, int64_t out) {
  double scale = (double)in / (double)out;
  switch (rz->mode) {
    case 1: return out > 1 ? (double)o * (double)(in - 1) / (double)(out - 1) : 0.0;
    case 2: return (double)o * scale;
    case 3: return out > 1 ? ((double)o + 0.5) * scale - 0.5 : 0.0;
    case 4: return ((double)o + 0.5) * scale;
    default: return ((double)o + 0.5) * scale - 0.5;
  }
}

static int64_t clampi(int64_t v, int64_t n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static int64_t nearest_index(const Resize *rz, double x) {
  switch (rz->rounding) {
    case 1: return (int64_t)floor(x + 1e-5);
    case 2: return (int64_t)ceil(x - 1e-5);
    case 3: return (int64_t)ceil(x - 0.5);
    case 4: return (int64_t)floor(x + 0.5);
    default: return (int64_t)nearbyint(x);
  }
}

static double resize_at(const DLTensor *x, const int *dp, const Resize *rz, const int64_t *dims, int64_t b,
                        int64_t ch, int64_t y, int64_t xx) {
  int64_t H = x->shape[dp[2]], W = x->shape[dp[3]];
  double sy = src_coord(rz, y, H, dims[2]), sx = src_coord(rz, xx, W, dims[3]);
  if (rz->nearest) return get(x, dp, b, ch, clampi(nearest_index(rz, sy), H), clampi(nearest_index(rz, sx), W));
  double fy = floor(sy), fx = floor(sx), ly = sy - fy, lx = sx - fx;
  int64_t y0 = clampi((int64_t)fy, H), y1 = clampi((int64_t)fy + 1, H);
  int64_t x0 = clampi((int64_t)fx, W), x1 = clampi((int64_t)fx + 1, W);
  double top = get(x, dp, b, ch, y0, x0) * (1 - lx) + get(x, dp, b, ch, y0, x1) * lx;
  double bot = get(x, dp, b, ch, y1, x0) * (1 - lx) + get(x, dp, b, ch, y1, x1) * lx;
  return top * (1 - ly) + bot * ly;
}

int rx_eval_resize2d(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  static const char *const modes[] = {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                                      "tf_half_pixel_for_nn", NULL};
  static const char *const roundings[] = {"round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil", NULL};
  struct RxInterpVal *v[2];
  const DLTensor *t[1];
  if (operands(c, e, 1, v, t)) return -1;
  const int64_t *size;
  int ns = -1;
  if (!rx_interp_as_shape(v[1], &size, &ns)) ns = -1;
  const char *method = rx_attr_str(e->call.attrs, "method", "linear");
  if (ns < 1 || ns > 2 || !strcmp(method, "cubic")) {
    rx_interp_release(v[0]);
    rx_interp_release(v[1]);
    return rx_interp_error(c, e->span, ns < 1 || ns > 2 ? "R.image.resize2d: size must be a shape of 1 or 2 values"
                                                      : "R.image.resize2d: method \"cubic\" is not supported by the interpreter");
  }
  Resize rz;
  rz.mode = index_of(rx_attr_str(e->call.attrs, "coordinate_transformation_mode", "half_pixel"), modes, 0);
  rz.nearest = !strcmp(method, "nearest_neighbor");
  const char *rm = rx_attr_str(e->call.attrs, "rounding_method", "round");
  rz.rounding = !*rm ? (rz.mode == 4 ? 4 : 0) : index_of(rm, roundings, 0);
  int dp[4];
  layout(e, "layout", "NCHW", dp);
  const DLTensor *x = t[0];
  int64_t dims[4] = {x->shape[dp[0]], x->shape[dp[1]], size[0], size[ns - 1]};
  if ((x->shape[dp[2]] == 0 || x->shape[dp[3]] == 0) && dims[0] * dims[1] * dims[2] * dims[3] > 0) {
    rx_interp_release(v[0]);
    rx_interp_release(v[1]);
    return rx_interp_error(c, e->span, "R.image.resize2d: cannot resize an empty image to a non-empty one");
  }
  TvsNDArray *r = result(e, dp, dims);
  for (int64_t b = 0; r && b < dims[0]; b++)
    for (int64_t ch = 0; ch < dims[1]; ch++)
      for (int64_t y = 0; y < dims[2]; y++)
        for (int64_t xx = 0; xx < dims[3]; xx++) put(r, dp, b, ch, y, xx, resize_at(x, dp, &rz, dims, b, ch, y, xx));
  return finish(c, e, r, v, 2, out);
}
