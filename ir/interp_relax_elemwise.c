/* interp_relax_elemwise.c - reference semantics of the element-wise family
 * for the graph interpreter: unary math and activations, comparisons,
 * logical ops and power with numpy broadcasting, where, astype, dropout
 * (inference: identity, mask of ones) and the creation operators.
 *
 * The math is done in double and rounded once to the result dtype (the
 * oracle is exact where the compiled code rounds each step in float32; the
 * tests' tolerances cover the difference).  Integer and bool operands keep
 * exact integer semantics (interp_binop, interp_cast_scalar). */
#include "ir/interp_internal.h"
#include "ir/relax_op.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define MAXD TVS_MAX_NDIM
#define PI 3.14159265358979323846

static bool same_dl(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

/* ------------------------------------------------------------ scalars */

static double to_f64(DType t, IScalar s) {
  if (dt_is_float(t)) return s.f;
  if (t.code == DT_UINT) return (double)s.u;
  return (double)s.i;
}

static IScalar from_f64(DType t, double x) {
  IScalar s = {.f = x};
  return interp_cast_scalar(dt_float64, s, t);
}

static void write_at(TvsNDArray *r, int64_t i, DType t, IScalar v) {
  interp_write_elem(t, (unsigned char *)r->t.data + (size_t)i * tvs_dtype_bytes(r->t.dtype), v);
}

/* Steps a row-major multi-index; false after the last element. */
static bool next_index(int64_t *idx, const int64_t *shape, int nd) {
  for (int d = nd - 1; d >= 0; d--) {
    if (++idx[d] < shape[d]) return true;
    idx[d] = 0;
  }
  return false;
}

/* The index into t (numpy-broadcast into an nd-d output) of output index oidx. */
static void bcast_index(const DLTensor *t, const int64_t *oidx, int nd, int64_t *iidx) {
  for (int d = 0; d < t->ndim; d++) {
    int od = d + nd - t->ndim;
    iidx[d] = t->shape[d] == 1 ? 0 : oidx[od];
  }
}

/* The numpy broadcast of the shapes of ts[0..n) into shape; -1 after an error. */
static int bcast_shape(struct RxInterpCtx *c, const RxExpr *e, const DLTensor **ts, int n, int64_t *shape,
                       int *nd) {
  *nd = 0;
  for (int i = 0; i < n; i++)
    if (ts[i]->ndim > *nd) *nd = ts[i]->ndim;
  for (int d = 0; d < *nd; d++) shape[d] = 1;
  for (int i = 0; i < n; i++)
    for (int d = 0; d < ts[i]->ndim; d++) {
      int od = d + *nd - ts[i]->ndim;
      int64_t x = ts[i]->shape[d];
      if (x == shape[od] || x == 1) continue;
      if (shape[od] != 1)
        return rx_interp_error(c, e->span, "R.%s: shapes cannot be broadcast (dimension %d: %lld vs %lld)",
                               e->call.op->script_name, od, (long long)shape[od], (long long)x);
      shape[od] = x;
    }
  return 0;
}

static TvsNDArray *new_result(struct RxInterpCtx *c, const RxExpr *e, int nd, const int64_t *shape, DType t) {
  TvsNDArray *r = tvs_ndarray_empty(nd, shape, interp_dl_dtype(t));
  if (!r) rx_interp_error(c, e->span, "R.%s: cannot allocate the result", e->call.op->script_name);
  return r;
}

/* ------------------------------------------------------------ unary */

/* The element function of a unary operator on a double. */
static double unary_f64(RxOpId id, double x, double alpha) {
  switch (id) {
  case RX_OP_ABS: return fabs(x);
  case RX_OP_NEGATIVE: return -x;
  case RX_OP_EXP: return exp(x);
  case RX_OP_LOG: return log(x);
  case RX_OP_SQRT: return sqrt(x);
  case RX_OP_RSQRT: return 1.0 / sqrt(x);
  case RX_OP_TANH: return tanh(x);
  case RX_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
  case RX_OP_ERF: return erf(x);
  case RX_OP_ROUND: return nearbyint(x);
  case RX_OP_FLOOR: return floor(x);
  case RX_OP_CEIL: return ceil(x);
  case RX_OP_SIN: return sin(x);
  case RX_OP_COS: return cos(x);
  case RX_OP_SQUARE: return x * x;
  case RX_OP_NN_LEAKYRELU: return x > 0 ? x : x * alpha;
  case RX_OP_NN_GELU: return x * (0.5 + erf(x * sqrt(0.5)) * 0.5);
  case RX_OP_NN_GELU_TANH: return 0.5 * x * (1.0 + tanh(sqrt(2.0 / PI) * x * (1.0 + 0.044715 * x * x)));
  case RX_OP_NN_SILU: return x / (1.0 + exp(-x));
  default: return x;
  }
}

/* One element of a unary call: x of dtype t into the result dtype rt. */
static IScalar unary_elem(const RxExpr *e, DType t, DType rt, IScalar x, const double *bounds) {
  RxOpId id = e->call.op->id;
  if (id == RX_OP_ASTYPE) return interp_cast_scalar(t, x, rt);
  if (id == RX_OP_LOGICAL_NOT) return (IScalar){.i = x.i == 0};
  if (id == RX_OP_CLIP) {
    double v = to_f64(t, x);
    v = v < bounds[0] ? bounds[0] : v;
    return from_f64(rt, v > bounds[1] ? bounds[1] : v);
  }
  /* integer operands of negative/abs/square keep wrap-around integer semantics */
  if (dt_is_integer(t) && (id == RX_OP_ROUND || id == RX_OP_FLOOR || id == RX_OP_CEIL)) return x;
  if (dt_is_integer(t) && (id == RX_OP_NEGATIVE || id == RX_OP_SQUARE || id == RX_OP_ABS)) {
    uint64_t u = id == RX_OP_SQUARE ? x.u * x.u : (id == RX_OP_ABS && x.i >= 0) ? x.u : 0 - x.u;
    return interp_normalize_int(t, u);
  }
  return from_f64(rt, unary_f64(id, to_f64(t, x), rx_attr_float(e->call.attrs, "alpha", 0.01)));
}

/* clip's bounds as doubles of x's dtype (TVM casts them to it). */
static int clip_bounds(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **v, DType t, double *b) {
  for (int i = 0; i < 2; i++) {
    DType pt;
    IScalar s;
    if (!rx_interp_as_prim(v[1 + i], &pt, &s))
      return rx_interp_error(c, e->span, "R.clip: %s must be a scalar value", i ? "max" : "min");
    b[i] = to_f64(t, interp_cast_scalar(pt, s, t));
  }
  return 0;
}

static int unary(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **v, struct RxInterpVal **out) {
  const DLTensor *x = rx_interp_as_tensor(v[0]);
  if (!x) return rx_interp_error(c, e->span, "R.%s expects a tensor", e->call.op->script_name);
  DType t = rx_interp_dtype(x->dtype), rt = t;
  if (e->call.op->id == RX_OP_ASTYPE) rt = rx_attr_dtype(e->call.attrs, "dtype");
  double bounds[2] = {0, 0};
  if (e->call.op->id == RX_OP_CLIP && clip_bounds(c, e, v, t, bounds)) return -1;
  TvsNDArray *r = new_result(c, e, x->ndim, x->shape, rt);
  if (!r) return -1;
  int64_t n = tvs_ndarray_numel(x), idx[MAXD] = {0};
  for (int64_t i = 0; i < n; i++, next_index(idx, x->shape, x->ndim))
    write_at(r, i, rt, unary_elem(e, t, rt, rx_interp_read(x, idx), bounds));
  *out = rx_interp_tensor(r);
  return 0;
}

int rx_eval_ew_unary(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[3];
  if (e->call.n > 3) return rx_interp_error(c, e->span, "R.%s: too many operands", e->call.op->script_name);
  if (rx_interp_operands(c, e, v)) return -1;
  int rc = unary(c, e, v, out);
  for (int i = 0; i < e->call.n; i++) rx_interp_release(v[i]);
  return rc;
}

/* ------------------------------------------------------------ broadcasting */

/* One output element of a broadcast binary: compare/logical give bool. */
static int binary_elem(struct RxInterpCtx *c, const RxExpr *e, DType t, IScalar a, IScalar b, IScalar *r) {
  if (e->call.op->id == RX_OP_POWER) {
    *r = from_f64(t, pow(to_f64(t, a), to_f64(t, b)));
    return 0;
  }
  return interp_binop(rx_interp_tin(c), (TirExprKind)e->call.op->tir_binop, t, a, b, r, e->span);
}

/* Broadcast n tensors, calling binary_elem (n == 2) or select (n == 3). */
static int broadcast(struct RxInterpCtx *c, const RxExpr *e, const DLTensor **ts, int n, DType rt,
                     struct RxInterpVal **out) {
  int64_t shape[MAXD], oidx[MAXD] = {0}, iidx[MAXD];
  int nd;
  if (bcast_shape(c, e, ts, n, shape, &nd)) return -1;
  TvsNDArray *r = new_result(c, e, nd, shape, rt);
  if (!r) return -1;
  int64_t total = tvs_ndarray_numel(&r->t);
  DType t = rx_interp_dtype(ts[n - 1]->dtype);
  for (int64_t i = 0; i < total; i++, next_index(oidx, shape, nd)) {
    IScalar s[3], res;
    for (int k = 0; k < n; k++) {
      bcast_index(ts[k], oidx, nd, iidx);
      s[k] = rx_interp_read(ts[k], iidx);
    }
    if (n == 3) res = s[0].i ? s[1] : s[2];
    else if (binary_elem(c, e, t, s[0], s[1], &res)) {
      tvs_ndarray_free(r);
      return -1;
    }
    write_at(r, i, rt, res);
  }
  *out = rx_interp_tensor(r);
  return 0;
}

static int eval_broadcast(struct RxInterpCtx *c, const RxExpr *e, int n, struct RxInterpVal **out) {
  struct RxInterpVal *v[3];
  if (e->call.n != n)
    return rx_interp_error(c, e->span, "R.%s takes %d operands", e->call.op->script_name, n);
  if (rx_interp_operands(c, e, v)) return -1;
  const DLTensor *ts[3];
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++)
    if (!(ts[i] = rx_interp_as_tensor(v[i])))
      rc = rx_interp_error(c, e->span, "R.%s expects tensor operands", e->call.op->script_name);
  if (rc == 0 && !same_dl(ts[n - 2]->dtype, ts[n - 1]->dtype))
    rc = rx_interp_error(c, e->span, "R.%s: operand dtypes differ", e->call.op->script_name);
  if (rc == 0) {
    DType rt = rx_interp_dtype(ts[n - 1]->dtype);
    if (e->sinfo && e->sinfo->kind == RX_SI_TENSOR && !dt_is_void(e->sinfo->dtype)) rt = e->sinfo->dtype;
    rc = broadcast(c, e, ts, n, rt, out);
  }
  for (int i = 0; i < n; i++) rx_interp_release(v[i]);
  return rc;
}

int rx_eval_ew_binary(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  return eval_broadcast(c, e, 2, out);
}

int rx_eval_where(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  return eval_broadcast(c, e, 3, out);
}

/* ------------------------------------------------------------ dropout, creation */

/* A tensor of shape filled with value (of dtype t). */
static TvsNDArray *filled(struct RxInterpCtx *c, const RxExpr *e, int nd, const int64_t *shape, DType t,
                          IScalar value) {
  TvsNDArray *r = new_result(c, e, nd, shape, t);
  if (!r) return NULL;
  int64_t n = tvs_ndarray_numel(&r->t);
  for (int64_t i = 0; i < n; i++) write_at(r, i, t, value);
  return r;
}

/* Inference dropout: (x, ones). */
int rx_eval_dropout(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[1];
  if (e->call.n != 1) return rx_interp_error(c, e->span, "R.nn.dropout takes one operand");
  if (rx_interp_operands(c, e, v)) return -1;
  const DLTensor *x = rx_interp_as_tensor(v[0]);
  if (!x) {
    rx_interp_release(v[0]);
    return rx_interp_error(c, e->span, "R.nn.dropout expects a tensor");
  }
  DType t = rx_interp_dtype(x->dtype);
  TvsNDArray *mask = filled(c, e, x->ndim, x->shape, t, from_f64(t, 1.0));
  if (!mask) {
    rx_interp_release(v[0]);
    return -1;
  }
  struct RxInterpVal *f[2] = {v[0], rx_interp_tensor(mask)};
  *out = rx_interp_tuple(f, 2);
  return 0;
}

/* The fill value of a creation call in dtype t. */
static int fill_value(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **v, DType t, IScalar *s) {
  RxOpId id = e->call.op->id;
  if (id == RX_OP_ZEROS || id == RX_OP_ZEROS_LIKE || id == RX_OP_ONES || id == RX_OP_ONES_LIKE) {
    bool one = id == RX_OP_ONES || id == RX_OP_ONES_LIKE;
    *s = interp_cast_scalar(dt_int32, (IScalar){.i = one}, t);
    return 0;
  }
  const DLTensor *f = e->call.n > 1 ? rx_interp_as_tensor(v[1]) : NULL;
  if (!f || tvs_ndarray_numel(f) != 1)
    return rx_interp_error(c, e->span, "R.%s: fill_value must be a scalar tensor", e->call.op->script_name);
  int64_t zero[MAXD] = {0};
  *s = interp_cast_scalar(rx_interp_dtype(f->dtype), rx_interp_read(f, zero), t);
  return 0;
}

static int create(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **v, struct RxInterpVal **out) {
  const DLTensor *like = rx_interp_as_tensor(v[0]);
  const int64_t *shape;
  int nd;
  if (like) shape = like->shape, nd = like->ndim;
  else if (!rx_interp_as_shape(v[0], &shape, &nd))
    return rx_interp_error(c, e->span, "R.%s expects a shape or a tensor", e->call.op->script_name);
  DType t = e->sinfo && e->sinfo->kind == RX_SI_TENSOR ? e->sinfo->dtype : dt_void;
  if (dt_is_void(t)) return rx_interp_error(c, e->span, "R.%s: unknown result dtype", e->call.op->script_name);
  IScalar s;
  if (fill_value(c, e, v, t, &s)) return -1;
  TvsNDArray *r = filled(c, e, nd, shape, t, s);
  if (!r) return -1;
  *out = rx_interp_tensor(r);
  return 0;
}

int rx_eval_create(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[2];
  if (e->call.n < 1 || e->call.n > 2)
    return rx_interp_error(c, e->span, "R.%s: wrong number of operands", e->call.op->script_name);
  if (rx_interp_operands(c, e, v)) return -1;
  int rc = create(c, e, v, out);
  for (int i = 0; i < e->call.n; i++) rx_interp_release(v[i]);
  return rc;
}
