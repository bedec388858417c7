/* interp_relax_tensor.c - reference semantics of the tensor family: matmul and
 * linear, the reductions, and the shape and indexing operators.
 *
 * The oracle the legalized prim_funcs are checked against.  The result's shape
 * is the call's inferred struct info evaluated with the function's size vars
 * (inference is checked against numpy by the operator tests); the values are
 * computed here element by element in the tensor's dtype (integer wrap-around,
 * float rounding) with the TIR interpreter's scalar semantics. */
#include "ir/interp_internal.h"
#include "ir/relax_op.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

typedef struct RxInterpVal RVal;
typedef struct RxInterpCtx RxCtx;

#define MAXD TVS_MAX_NDIM

static DType dl_type(DLDataType d) {
  DType t = {DT_VOID, d.bits, d.lanes};
  switch (d.code) {
    case kDLInt: t.code = DT_INT; break;
    case kDLUInt: t.code = DT_UINT; break;
    case kDLFloat: t.code = DT_FLOAT; break;
    case kDLBfloat: t.code = DT_BFLOAT; break;
    case kDLBool: t.code = DT_BOOL; t.bits = 1; break;
    default: break;
  }
  return t;
}

static unsigned char *elem(const DLTensor *t, const int64_t *idx) {
  int64_t off = 0, s = 1;
  for (int d = t->ndim - 1; d >= 0; d--) {
    off += idx[d] * (t->strides ? t->strides[d] : s);
    s *= t->shape[d];
  }
  return (unsigned char *)t->data + t->byte_offset + (size_t)off * tvs_dtype_bytes(t->dtype);
}

/* Advances a row-major multi-index over shape; false after the last. */
static bool next_index(int64_t *idx, const int64_t *shape, int nd) {
  for (int d = nd - 1; d >= 0; d--) {
    if (++idx[d] < shape[d]) return true;
    idx[d] = 0;
  }
  return false;
}

static int64_t numel(const int64_t *s, int n) {
  int64_t p = 1;
  for (int i = 0; i < n; i++) p *= s[i];
  return p;
}

static void unravel(int64_t flat, const int64_t *shape, int nd, int64_t *idx) {
  for (int d = nd - 1; d >= 0; d--) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
}

/* The evaluated shape of a tensor struct info; its rank or -1 after an error. */
static int sinfo_shape(RxCtx *c, const RxExpr *e, const RxSInfo *si, int64_t *shape) {
  Interp *in = rx_interp_tin(c);
  if (!si || si->kind != RX_SI_TENSOR || !si->shape || si->ndim > MAXD)
    return interp_error(in, e->span, "R.%s: the result's shape is not known to the interpreter",
                        e->call.op->script_name);
  for (int d = 0; d < si->ndim; d++)
    if (interp_eval_int(in, si->shape[d], &shape[d])) return -1;
  return si->ndim;
}

/* Evaluates the call's first n operands; tensors in t[] (NULL for a tuple operand). */
static int operands(RxCtx *c, const RxExpr *e, int n, RVal **v, const DLTensor **t) {
  for (int i = 0; i < n; i++) v[i] = NULL;
  for (int i = 0; i < n && i < e->call.n; i++) {
    if (rx_interp_eval(c, e->call.args[i], &v[i])) goto fail;
    t[i] = rx_interp_as_tensor(v[i]);
    if (!t[i] && rx_interp_tuple_size(v[i]) < 0) {
      interp_error(rx_interp_tin(c), e->call.args[i]->span, "R.%s expects a tensor operand", e->call.op->script_name);
      goto fail;
    }
  }
  return 0;
fail:
  for (int i = 0; i < n; i++) rx_interp_release(v[i]);
  return -1;
}

static void release(RVal **v, int n) {
  for (int i = 0; i < n; i++) rx_interp_release(v[i]);
}

static int alloc_out(RxCtx *c, const RxExpr *e, const RxSInfo *si, DLDataType dt, TvsNDArray **out, int64_t *shape,
                     int *nd) {
  *nd = sinfo_shape(c, e, si, shape);
  if (*nd < 0) return -1;
  *out = tvs_ndarray_empty(*nd, shape, dt);
  if (!*out) return interp_error(rx_interp_tin(c), e->span, "R.%s: cannot allocate the result", e->call.op->script_name);
  return 0;
}

/* ------------------------------------------------------------ matmul, linear */

/* out[..., i, j] = sum_k a[..., i, k] * b[..., k, j] in the output dtype; b is
 * read transposed (linear's weight) when tb; bias added when given. */
static int matmul(RxCtx *c, const RxExpr *e, const DLTensor *a, const DLTensor *b, bool tb, const DLTensor *bias,
                  RVal **res) {
  Interp *in = rx_interp_tin(c);
  if (a->ndim == 0 || b->ndim == 0) return interp_error(in, e->span, "R.%s: 0-d operand", e->call.op->script_name);
  TvsNDArray *r;
  int64_t os[MAXD], oi[MAXD] = {0}, ia[MAXD], ib[MAXD];
  int nd;
  DType ot = dt_element(e->sinfo->dtype), at = dl_type(a->dtype), bt = dl_type(b->dtype);
  if (alloc_out(c, e, e->sinfo, interp_dl_dtype(ot), &r, os, &nd)) return -1;
  int64_t K = a->shape[a->ndim - 1];
  int kb_dim = b->ndim == 1 ? 0 : tb ? b->ndim - 1 : b->ndim - 2;
  if (b->shape[kb_dim] != K) {
    tvs_ndarray_free(r);
    return interp_error(in, e->span, "R.%s: x1 has %lld columns but x2 has %lld rows", e->call.op->script_name,
                        (long long)K, (long long)b->shape[kb_dim]);
  }
  int nb = nd - (a->ndim >= 2) - (b->ndim >= 2);
  size_t esz = tvs_dtype_bytes(r->t.dtype);
  int64_t n = numel(os, nd);
  for (int64_t f = 0; f < n; f++, next_index(oi, os, nd)) {
    /* batch dims broadcast from the right; then the row of a and the column of b */
    for (int d = 0; d < a->ndim - 2; d++) {
      int o = nb - (a->ndim - 2) + d;
      ia[d] = a->shape[d] == 1 ? 0 : oi[o];
    }
    for (int d = 0; d < b->ndim - 2; d++) {
      int o = nb - (b->ndim - 2) + d;
      ib[d] = b->shape[d] == 1 ? 0 : oi[o];
    }
    if (a->ndim >= 2) ia[a->ndim - 2] = oi[nb];
    int64_t j = b->ndim >= 2 ? oi[nd - 1] : 0;
    IScalar acc = interp_cast_scalar(dt_int32, (IScalar){.i = 0}, ot);
    for (int64_t k = 0; k < K; k++) {
      ia[a->ndim - 1] = k;
      if (b->ndim == 1) ib[0] = k;
      else if (tb) ib[b->ndim - 2] = j, ib[b->ndim - 1] = k;
      else ib[b->ndim - 2] = k, ib[b->ndim - 1] = j;
      IScalar x = interp_cast_scalar(at, interp_read_elem(at, elem(a, ia)), ot);
      IScalar y = interp_cast_scalar(bt, interp_read_elem(bt, elem(b, ib)), ot);
      IScalar p;
      if (interp_binop(in, TIR_MUL, ot, x, y, &p, e->span) || interp_binop(in, TIR_ADD, ot, acc, p, &acc, e->span)) {
        tvs_ndarray_free(r);
        return -1;
      }
    }
    if (bias) {
      int64_t bi[MAXD];
      for (int d = 0; d < bias->ndim; d++) bi[d] = bias->shape[d] == 1 ? 0 : oi[nd - bias->ndim + d];
      DType bty = dl_type(bias->dtype);
      IScalar bv = interp_cast_scalar(bty, interp_read_elem(bty, elem(bias, bi)), ot);
      if (interp_binop(in, TIR_ADD, ot, acc, bv, &acc, e->span)) {
        tvs_ndarray_free(r);
        return -1;
      }
    }
    interp_write_elem(ot, (unsigned char *)r->t.data + (size_t)f * esz, acc);
  }
  *res = rx_interp_tensor(r);
  return 0;
}

int rx_eval_matmul(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[2];
  const DLTensor *t[2];
  if (operands(c, e, 2, v, t)) return -1;
  int rc = matmul(c, e, t[0], t[1], false, NULL, out);
  release(v, 2);
  return rc;
}

int rx_eval_linear(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[3];
  const DLTensor *t[3] = {NULL, NULL, NULL};
  int n = e->call.n > 2 ? 3 : 2;
  if (operands(c, e, n, v, t)) return -1;
  int rc = matmul(c, e, t[0], t[1], true, n > 2 ? t[2] : NULL, out);
  release(v, n);
  return rc;
}

/* ------------------------------------------------------------ reductions */

/* Which input dims are reduced (axis attribute; None = all). */
static void reduced_dims(const IrValue *attrs, int nd, bool *red) {
  int64_t ax[MAXD];
  int n = rx_attr_ints(attrs, "axis", ax, MAXD);
  for (int d = 0; d < nd; d++) red[d] = n < 0;
  for (int i = 0; i < n; i++) red[ax[i] < 0 ? ax[i] + nd : ax[i]] = true;
}

/* The output element of input index idx (reduced dims dropped or kept as 0). */
static int64_t out_flat(const int64_t *idx, const DLTensor *x, const bool *red) {
  int64_t f = 0;
  for (int d = 0; d < x->ndim; d++)
    if (!red[d]) f = f * x->shape[d] + idx[d];
  return f;
}

/* acc[o] OP= x over the input; first[] marks outputs not yet set. */
static int fold(RxCtx *c, const RxExpr *e, const DLTensor *x, const bool *red, TirExprKind op, DType t,
                IScalar *acc, const IScalar *sub, int64_t *count) {
  Interp *in = rx_interp_tin(c);
  int64_t idx[MAXD] = {0}, n = tvs_ndarray_numel(x);
  for (int64_t i = 0; i < n; i++, next_index(idx, x->shape, x->ndim)) {
    int64_t o = out_flat(idx, x, red);
    IScalar v = interp_read_elem(t, elem(x, idx));
    if (sub) { /* variance: (x - mean)^2 */
      if (interp_binop(in, TIR_SUB, t, v, sub[o], &v, e->span) || interp_binop(in, TIR_MUL, t, v, v, &v, e->span))
        return -1;
    }
    if (count[o]++ == 0 && op != TIR_ADD) acc[o] = v;
    else if (interp_binop(in, op, t, acc[o], v, &acc[o], e->span)) return -1;
  }
  return 0;
}

/* acc[o] /= count (mean and variance divide by the reduced size, as TOPI does). */
static int divide(RxCtx *c, const RxExpr *e, DType t, IScalar *acc, int64_t m, int64_t cnt) {
  IScalar d = interp_cast_scalar(dt_int64, (IScalar){.i = cnt}, t);
  for (int64_t o = 0; o < m; o++)
    if (interp_binop(rx_interp_tin(c), TIR_DIV, t, acc[o], d, &acc[o], e->span)) return -1;
  return 0;
}

static int reduce(RxCtx *c, const RxExpr *e, const DLTensor *x, RVal **res) {
  RxOpId id = e->call.op->id;
  TvsNDArray *r;
  int64_t os[MAXD];
  int nd;
  if (alloc_out(c, e, e->sinfo, x->dtype, &r, os, &nd)) return -1;
  bool red[MAXD];
  reduced_dims(e->call.attrs, x->ndim, red);
  DType t = dl_type(x->dtype);
  int64_t m = numel(os, nd), cnt = 1;
  for (int d = 0; d < x->ndim; d++) cnt *= red[d] ? x->shape[d] : 1;
  IScalar *acc = xcalloc((size_t)(m ? m : 1), sizeof *acc), *mean = NULL;
  int64_t *count = xcalloc((size_t)(m ? m : 1), sizeof *count);
  for (int64_t o = 0; o < m; o++)
    acc[o] = interp_cast_scalar(dt_int32, (IScalar){.i = id == RX_OP_PROD ? 1 : 0}, t);
  int rc = fold(c, e, x, red, (TirExprKind)e->call.op->tir_binop, t, acc, NULL, count);
  bool var = id == RX_OP_VARIANCE || id == RX_OP_STD;
  if (!rc && (id == RX_OP_MEAN || var)) rc = divide(c, e, t, acc, m, cnt);
  if (!rc && var) {
    mean = acc;
    acc = xcalloc((size_t)(m ? m : 1), sizeof *acc);
    memset(count, 0, (size_t)(m ? m : 1) * sizeof *count);
    for (int64_t o = 0; o < m; o++) acc[o] = interp_cast_scalar(dt_int32, (IScalar){.i = 0}, t);
    rc = fold(c, e, x, red, TIR_ADD, t, acc, mean, count);
    if (!rc) rc = divide(c, e, t, acc, m, cnt);
  }
  size_t esz = tvs_dtype_bytes(x->dtype);
  for (int64_t o = 0; !rc && o < m; o++) {
    IScalar v = acc[o];
    if (id == RX_OP_STD) v = interp_cast_scalar(dt_float64, (IScalar){.f = sqrt(interp_cast_scalar(t, v, dt_float64).f)}, t);
    interp_write_elem(t, (unsigned char *)r->t.data + (size_t)o * esz, v);
  }
  free(acc);
  free(mean);
  free(count);
  if (rc) {
    tvs_ndarray_free(r);
    return -1;
  }
  *res = rx_interp_tensor(r);
  return 0;
}

int rx_eval_reduce(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[1];
  const DLTensor *t[1];
  if (operands(c, e, 1, v, t)) return -1;
  int rc = reduce(c, e, t[0], out);
  release(v, 1);
  return rc;
}

/* argmax/argmin: the first index of the extreme along axis (flat index when None). */
static int argreduce(RxCtx *c, const RxExpr *e, const DLTensor *x, RVal **res) {
  TvsNDArray *r;
  int64_t os[MAXD];
  int nd;
  if (alloc_out(c, e, e->sinfo, (DLDataType){kDLInt, 64, 1}, &r, os, &nd)) return -1;
  int64_t axv;
  bool none = rx_attr_ints(e->call.attrs, "axis", &axv, 1) < 0;
  int ax = none ? -1 : (int)(axv < 0 ? axv + x->ndim : axv);
  bool red[MAXD];
  for (int d = 0; d < x->ndim; d++) red[d] = none || d == ax;
  DType t = dl_type(x->dtype);
  int64_t m = numel(os, nd);
  IScalar *best = xcalloc((size_t)(m ? m : 1), sizeof *best);
  int64_t *count = xcalloc((size_t)(m ? m : 1), sizeof *count), *arg = (int64_t *)r->t.data;
  int64_t idx[MAXD] = {0}, n = tvs_ndarray_numel(x);
  TirExprKind better = (TirExprKind)e->call.op->tir_binop;
  int rc = 0;
  for (int64_t i = 0; i < n && !rc; i++, next_index(idx, x->shape, x->ndim)) {
    int64_t o = out_flat(idx, x, red), k = none ? i : idx[ax];
    IScalar v = interp_read_elem(t, elem(x, idx)), b;
    if (count[o]++ == 0) b.i = 1;
    else rc = interp_binop(rx_interp_tin(c), better, t, v, best[o], &b, e->span);
    if (!rc && b.i) best[o] = v, arg[o] = k;
  }
  free(best);
  free(count);
  if (rc) {
    tvs_ndarray_free(r);
    return -1;
  }
  *res = rx_interp_tensor(r);
  return 0;
}

int rx_eval_argreduce(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[1];
  const DLTensor *t[1];
  if (operands(c, e, 1, v, t)) return -1;
  int rc = argreduce(c, e, t[0], out);
  release(v, 1);
  return rc;
}

/* ------------------------------------------------------------ injective ops */

/* Maps an output index to the input element it copies: which operand
 * (tensors[k]) and where (src).  -1 after an error. */
typedef int (*SrcFn)(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                     int64_t *src);

/* out[i] = in[src(i)] over the shape of struct info si. */
static int gather(RxCtx *c, const RxExpr *e, const RxSInfo *si, const DLTensor *const *in, int nin, SrcFn fn,
                  TvsNDArray **res) {
  TvsNDArray *r;
  int64_t os[MAXD], oi[MAXD] = {0}, src[MAXD];
  int nd;
  if (alloc_out(c, e, si, in[0]->dtype, &r, os, &nd)) return -1;
  size_t esz = tvs_dtype_bytes(r->t.dtype);
  int64_t n = numel(os, nd);
  for (int64_t f = 0; f < n; f++, next_index(oi, os, nd)) {
    int k = fn(c, e, in, nin, oi, os, nd, src);
    if (k < 0) {
      tvs_ndarray_free(r);
      return -1;
    }
    memcpy((unsigned char *)r->t.data + (size_t)f * esz, elem(in[k], src), esz);
  }
  *res = r;
  return 0;
}

/* One tensor operand (and any further operands' values ignored), one result. */
static int eval_unary_gather(RxCtx *c, const RxExpr *e, SrcFn fn, RVal **out) {
  RVal *v[1];
  const DLTensor *t[1];
  if (operands(c, e, 1, v, t)) return -1;
  TvsNDArray *r;
  int rc = gather(c, e, e->sinfo, t, 1, fn, &r);
  release(v, 1);
  if (!rc) *out = rx_interp_tensor(r);
  return rc;
}

static int src_reshape(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                       int64_t *src) {
  (void)c, (void)e, (void)nin;
  int64_t f = 0;
  for (int d = 0; d < ond; d++) f = f * os[d] + oi[d];
  unravel(f, in[0]->shape, in[0]->ndim, src);
  return 0;
}

int rx_eval_reshape(RxCtx *c, const RxExpr *e, RVal **out) { return eval_unary_gather(c, e, src_reshape, out); }

static int src_permute(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                       int64_t *src) {
  (void)os;
  (void)c, (void)nin;
  int64_t ax[MAXD];
  int n = rx_attr_ints(e->call.attrs, "axes", ax, MAXD);
  for (int i = 0; i < ond; i++) {
    int64_t a = n < 0 ? ond - 1 - i : ax[i] < 0 ? ax[i] + ond : ax[i];
    src[a] = oi[i];
  }
  (void)in;
  return 0;
}

int rx_eval_permute_dims(RxCtx *c, const RxExpr *e, RVal **out) { return eval_unary_gather(c, e, src_permute, out); }

/* layout_transform: the input element is the index map's inverse of the output's. */
static int src_layout(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os,
                      int ond, int64_t *src) {
  (void)in, (void)nin, (void)os, (void)ond;
  RxIndexMap m;
  StrBuf err;
  sb_init(&err);
  bool ok = rx_index_map_parse(rx_attr_str(e->call.attrs, "index_map", ""), &m, &err);
  if (!ok) rx_interp_error(c, e->span, "R.layout_transform: %s", err.data);
  sb_free(&err);
  if (!ok) return -1;
  rx_index_map_inverse(&m, oi, src);
  return 0;
}

int rx_eval_layout_transform(RxCtx *c, const RxExpr *e, RVal **out) { return eval_unary_gather(c, e, src_layout, out); }

static int src_broadcast(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                         int64_t *src) {
  (void)os;
  (void)c, (void)e, (void)nin;
  const DLTensor *x = in[0];
  for (int d = 0; d < x->ndim; d++) src[d] = x->shape[d] == 1 ? 0 : oi[ond - x->ndim + d];
  return 0;
}

int rx_eval_broadcast_to(RxCtx *c, const RxExpr *e, RVal **out) { return eval_unary_gather(c, e, src_broadcast, out); }

static int src_tile(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                    int64_t *src) {
  (void)os;
  (void)c, (void)e, (void)nin;
  const DLTensor *x = in[0];
  for (int d = 0; d < x->ndim; d++) src[d] = oi[ond - x->ndim + d] % x->shape[d];
  return 0;
}

int rx_eval_tile(RxCtx *c, const RxExpr *e, RVal **out) { return eval_unary_gather(c, e, src_tile, out); }

static int src_repeat(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                      int64_t *src) {
  (void)os;
  (void)c, (void)nin, (void)ond;
  const DLTensor *x = in[0];
  int64_t rep = rx_attr_int(e->call.attrs, "repeats", 1), axv;
  if (rx_attr_ints(e->call.attrs, "axis", &axv, 1) < 0) {
    unravel(oi[0] / rep, x->shape, x->ndim, src);
    return 0;
  }
  int ax = (int)(axv < 0 ? axv + x->ndim : axv);
  for (int d = 0; d < x->ndim; d++) src[d] = d == ax ? oi[d] / rep : oi[d];
  return 0;
}

int rx_eval_repeat(RxCtx *c, const RxExpr *e, RVal **out) { return eval_unary_gather(c, e, src_repeat, out); }

static int src_slice(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                     int64_t *src) {
  (void)os;
  (void)c, (void)nin;
  const DLTensor *x = in[0];
  int64_t ax[MAXD], b[MAXD], en[MAXD], s[MAXD];
  int na = rx_attr_ints(e->call.attrs, "axes", ax, MAXD);
  rx_attr_ints(e->call.attrs, "begin", b, MAXD);
  rx_attr_ints(e->call.attrs, "end", en, MAXD);
  bool strided = rx_attr_ints(e->call.attrs, "strides", s, MAXD) >= 0;
  for (int d = 0; d < ond; d++) src[d] = oi[d];
  for (int i = 0; i < na; i++) {
    int d = (int)(ax[i] < 0 ? ax[i] + x->ndim : ax[i]);
    int64_t st = strided ? s[i] : 1, start, cnt;
    rx_slice_range(x->shape[d], b[i], en[i], st, &start, &cnt);
    src[d] = start + oi[d] * st;
  }
  return 0;
}

int rx_eval_strided_slice(RxCtx *c, const RxExpr *e, RVal **out) { return eval_unary_gather(c, e, src_slice, out); }

/* take: in[0] is the data, in[1] the indices. */
static int src_take(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                    int64_t *src) {
  (void)os;
  (void)nin, (void)ond;
  const DLTensor *x = in[0], *ix = in[1];
  int64_t axv;
  int ax = rx_attr_ints(e->call.attrs, "axis", &axv, 1) < 0 ? 0 : (int)(axv < 0 ? axv + x->ndim : axv);
  DType it = dl_type(ix->dtype);
  IScalar iv = interp_read_elem(it, elem(ix, oi + ax));
  int64_t i = dt_is_int(it) || dt_is_bool(it) ? iv.i : (int64_t)iv.u, n = x->shape[ax];
  const char *mode = rx_attr_str(e->call.attrs, "mode", "fast");
  if (!strcmp(mode, "clip")) i = i < 0 ? 0 : i >= n ? n - 1 : i;
  else if (!strcmp(mode, "wrap")) i = ((i % n) + n) % n;
  else if (i < 0 || i >= n)
    return interp_error(rx_interp_tin(c), e->span, "R.take: index %lld is out of range for axis %d of size %lld",
                        (long long)i, ax, (long long)n);
  for (int d = 0; d < ax; d++) src[d] = oi[d];
  src[ax] = i;
  for (int d = ax + 1; d < x->ndim; d++) src[d] = oi[d - 1 + ix->ndim];
  return 0;
}

int rx_eval_take(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[2];
  const DLTensor *t[2];
  if (operands(c, e, 2, v, t)) return -1;
  TvsNDArray *r;
  int rc = gather(c, e, e->sinfo, t, 2, src_take, &r);
  release(v, 2);
  if (!rc) *out = rx_interp_tensor(r);
  return rc;
}

/* concat: the operand whose slice along the axis holds the output index. */
static int src_concat(RxCtx *c, const RxExpr *e, const DLTensor *const *in, int nin, const int64_t *oi, const int64_t *os, int ond,
                      int64_t *src) {
  (void)os;
  (void)c;
  int64_t axv;
  int ax = rx_attr_ints(e->call.attrs, "axis", &axv, 1) < 0 ? 0 : (int)(axv < 0 ? axv + ond : axv);
  int64_t p = oi[ax];
  for (int k = 0; k < nin; k++) {
    if (p < in[k]->shape[ax] || k == nin - 1) {
      for (int d = 0; d < ond; d++) src[d] = d == ax ? p : oi[d];
      return k;
    }
    p -= in[k]->shape[ax];
  }
  return -1;
}

int rx_eval_concat(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[1];
  const DLTensor *t[1];
  if (operands(c, e, 1, v, t)) return -1;
  int n = rx_interp_tuple_size(v[0]), rc = 0;
  const DLTensor **ins = xcalloc((size_t)(n > 0 ? n : 1), sizeof *ins);
  for (int i = 0; i < n && !rc; i++)
    if (!(ins[i] = rx_interp_as_tensor(rx_interp_tuple_field(v[0], i))))
      rc = interp_error(rx_interp_tin(c), e->span, "R.concat: field %d is not a tensor", i);
  if (n <= 0 && !rc) rc = interp_error(rx_interp_tin(c), e->span, "R.concat expects a non-empty tuple of tensors");
  TvsNDArray *r;
  if (!rc) rc = gather(c, e, e->sinfo, ins, n, src_concat, &r);
  if (!rc) *out = rx_interp_tensor(r);
  free(ins);
  release(v, 1);
  return rc;
}

/* split: piece k copies the input from its start along the axis. */
static int split_start(const RxExpr *e, const DLTensor *x, int ax, int k, int64_t *start) {
  int64_t beg[257], len[257];
  int n = rx_split_pieces(e->call.attrs, x->shape[ax], beg, len, 257);
  if (n <= k) return -1;
  *start = beg[k];
  return 0;
}

int rx_eval_split(RxCtx *c, const RxExpr *e, RVal **out) {
  RVal *v[1];
  const DLTensor *t[1];
  if (operands(c, e, 1, v, t)) return -1;
  const RxSInfo *si = e->sinfo;
  const DLTensor *x = t[0];
  int64_t axv = rx_attr_int(e->call.attrs, "axis", 0);
  int ax = (int)(axv < 0 ? axv + x->ndim : axv), n = si->nfields, rc = 0;
  TvsNDArray **rs = xcalloc((size_t)(n ? n : 1), sizeof *rs);
  for (int k = 0; k < n && !rc; k++) {
    int64_t os[MAXD], oi[MAXD] = {0}, src[MAXD], start;
    int nd;
    if (split_start(e, x, ax, k, &start)) {
      rc = interp_error(rx_interp_tin(c), e->span, "R.split: axis %d of size %lld cannot be split so", ax,
                        (long long)x->shape[ax]);
      break;
    }
    if ((rc = alloc_out(c, e, si->fields[k], x->dtype, &rs[k], os, &nd))) break;
    size_t esz = tvs_dtype_bytes(x->dtype);
    int64_t m = numel(os, nd);
    for (int64_t f = 0; f < m; f++, next_index(oi, os, nd)) {
      for (int d = 0; d < nd; d++) src[d] = d == ax ? oi[d] + start : oi[d];
      memcpy((unsigned char *)rs[k]->t.data + (size_t)f * esz, elem(x, src), esz);
    }
  }
  if (!rc) *out = rx_interp_tensor_tuple(rs, n);
  else
    for (int k = 0; k < n; k++) tvs_ndarray_free(rs[k]);
  free(rs);
  release(v, 1);
  return rc;
}
