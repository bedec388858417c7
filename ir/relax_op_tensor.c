/* relax_op_tensor.c - the tensor family's attribute schemas and struct-info
 * inference: matmul and linear, reductions (sum ... std, argmax/argmin), and
 * the shape and indexing operators (reshape ... repeat).
 *
 * The rules follow TVM v0.23's InferStructInfo* of relax/op/tensor: axes may
 * be negative, symbolic sizes stay symbolic (an output size may be an
 * expression of the inputs' size vars), and a constant mismatch is an error
 * naming the operator, the operand and the shapes. */
#include "ir/relax_op.h"

#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"

/* ------------------------------------------------------------ schemas */

static const RxAttrSpec matmul_specs[] = {{"out_dtype", RX_ATTR_DTYPE, "void", 2, 0}};
static const RxAttrSpec linear_specs[] = {{"out_dtype", RX_ATTR_DTYPE, "void", 3, 0}};
static const RxAttrSpec reduce_specs[] = {{"axis", RX_ATTR_AXES, "None", 1, 0},
                                          {"keepdims", RX_ATTR_BOOL, "False", 2, 0}};
static const RxAttrSpec arg_specs[] = {{"axis", RX_ATTR_OPT_INT, "None", 1, 0},
                                       {"keepdims", RX_ATTR_BOOL, "False", 2, 0}};
static const RxAttrSpec permute_specs[] = {{"axes", RX_ATTR_AXES, "None", 1, 0}};
static const RxAttrSpec squeeze_specs[] = {{"axis", RX_ATTR_AXES, "None", 1, 0}};
static const RxAttrSpec expand_specs[] = {{"axis", RX_ATTR_AXES, NULL, 1, 0}};
static const RxAttrSpec concat_specs[] = {{"axis", RX_ATTR_OPT_INT, "0", 1, 0}};
static const RxAttrSpec split_specs[] = {{"indices_or_sections", RX_ATTR_INT_OR_INTS, NULL, 1, 0},
                                         {"axis", RX_ATTR_INT, "0", 2, 0}};
static const RxAttrSpec slice_specs[] = {{"axes", RX_ATTR_INTS, NULL, 1, 0},
                                         {"begin", RX_ATTR_INTS, NULL, 2, 0},
                                         {"end", RX_ATTR_INTS, NULL, 3, 0},
                                         {"strides", RX_ATTR_AXES, "None", 4, 0},
                                         {"assume_inbound", RX_ATTR_BOOL, "False", 5, 0}};
static const RxAttrSpec take_specs[] = {{"axis", RX_ATTR_OPT_INT, "None", 2, 0},
                                        {"mode", RX_ATTR_STR, "fast", 3, 0}};
static const RxAttrSpec tile_specs[] = {{"repeats", RX_ATTR_INTS, NULL, 1, 0}};
static const RxAttrSpec repeat_specs[] = {{"repeats", RX_ATTR_INT, NULL, 1, 0},
                                          {"axis", RX_ATTR_OPT_INT, "None", 2, 0}};

const RxAttrSchema rx_attrs_matmul[1] = {{false, true, matmul_specs, 1}};
const RxAttrSchema rx_attrs_linear[1] = {{false, true, linear_specs, 1}};
const RxAttrSchema rx_attrs_reduce[1] = {{false, true, reduce_specs, 2}};
const RxAttrSchema rx_attrs_argreduce[1] = {{false, true, arg_specs, 2}};
const RxAttrSchema rx_attrs_permute_dims[1] = {{false, true, permute_specs, 1}};
const RxAttrSchema rx_attrs_squeeze[1] = {{false, true, squeeze_specs, 1}};
const RxAttrSchema rx_attrs_expand_dims[1] = {{false, true, expand_specs, 1}};
const RxAttrSchema rx_attrs_concat[1] = {{false, true, concat_specs, 1}};
const RxAttrSchema rx_attrs_split[1] = {{false, true, split_specs, 2}};
const RxAttrSchema rx_attrs_strided_slice[1] = {{false, true, slice_specs, 5}};
const RxAttrSchema rx_attrs_take[1] = {{false, true, take_specs, 2}};
const RxAttrSchema rx_attrs_tile[1] = {{false, true, tile_specs, 1}};
const RxAttrSchema rx_attrs_repeat[1] = {{false, true, repeat_specs, 2}};
const RxAttrSchema rx_attrs_shape_arg[1] = {{false, true, NULL, 0}};

/* ------------------------------------------------------------ helpers */

#define BAD ((const RxSInfo *)-1)
#define MAXD 32

static const char *op_name(const RxInferCall *q) { return q->op->script_name; }

static const char *shape_txt(const RxInferCall *q, TirExpr **s, int n) {
  StrBuf sb;
  sb_init(&sb);
  rx_shape_str(&sb, s, n);
  const char *r = arena_strdup(q->scratch, sb.data);
  sb_free(&sb);
  return r;
}

static const char *dtype_txt(const RxInferCall *q, DType t) {
  char buf[DT_STR_MAX];
  return arena_strdup(q->scratch, dt_str(t, buf));
}

/* Operand i as a tensor: its sinfo, NULL when unknown (R.Object), BAD after an error. */
static const RxSInfo *targ(const RxInferCall *q, int i) {
  if (i >= q->n || !q->args[i]) return NULL;
  const RxSInfo *s = q->args[i];
  if (s->kind == RX_SI_TENSOR) return s;
  if (s->kind == RX_SI_OBJECT) return NULL;
  StrBuf sb;
  sb_init(&sb);
  rx_sinfo_str(&sb, s);
  diag_error(q->diag, q->arg_spans[i], "R.%s expects a tensor, got %s", op_name(q), sb.data);
  sb_free(&sb);
  return BAD;
}

static RxSInfo *unknown(const RxInferCall *q, DType t, int ndim) { return rx_sinfo_tensor(q->h, NULL, ndim, t); }

static TirExpr *i64(const RxInferCall *q, int64_t v) { return tir_int(q->h, dt_int64, v); }

static TirExpr *simp(const RxInferCall *q, TirExpr *e) {
  ArithCtx *a = arith_new(q->h);
  TirExpr *r = arith_simplify(a, e);
  arith_free(a);
  return r;
}

/* Axis ax of an ndim-d tensor, negative counted from the end; -1 after an error. */
static int norm_axis(const RxInferCall *q, int64_t ax, int ndim) {
  if (ax < -ndim || ax >= ndim) {
    diag_error(q->diag, q->span, "R.%s: axis %lld is out of range for a %d-d tensor (expected %d..%d)",
               op_name(q), (long long)ax, ndim, -ndim, ndim - 1);
    return -1;
  }
  return (int)(ax < 0 ? ax + ndim : ax);
}

/* The axes attribute as flags red[0..ndim): all when None.  False after an error. */
static bool axes_mask(const RxInferCall *q, const char *key, int ndim, bool *red, bool none_all) {
  int64_t ax[MAXD];
  int n = rx_attr_ints(q->attrs, key, ax, MAXD);
  for (int d = 0; d < ndim; d++) red[d] = n < 0 && none_all;
  for (int i = 0; i < n; i++) {
    int a = norm_axis(q, ax[i], ndim);
    if (a < 0) return false;
    if (red[a]) {
      diag_error(q->diag, q->span, "R.%s: axis %lld is repeated", op_name(q), (long long)ax[i]);
      return false;
    }
    red[a] = true;
  }
  return true;
}

/* ------------------------------------------------------------ matmul */

/* The broadcast batch dims: 1 known, 0 unknown (symbolic and different), -1 after an error. */
static int batch_dims(const RxInferCall *q, const RxSInfo *a, int na, const RxSInfo *b, int nb, TirExpr **out, int n) {
  for (int i = 0; i < n; i++) {
    int ia = na - n + i, ib = nb - n + i;
    TirExpr *da = ia >= 0 ? a->shape[ia] : NULL, *db = ib >= 0 ? b->shape[ib] : NULL;
    int64_t x = -1, y = -1;
    bool cx = da && tir_is_const_int(da, &x), cy = db && tir_is_const_int(db, &y);
    if (!da || !db) out[i] = da ? da : db;
    else if (cx && cy && x != y && x != 1 && y != 1) {
      diag_error(q->diag, q->span, "R.%s: batch dimensions of x1 %s and x2 %s cannot be broadcast", op_name(q),
                 shape_txt(q, a->shape, a->ndim), shape_txt(q, b->shape, b->ndim));
      return -1;
    } else if (cx && x == 1) out[i] = db;
    else if ((cy && y == 1) || rx_dim_eq(da, db)) out[i] = da;
    else return 0;
  }
  return 1;
}

/* numpy.matmul of a and b (linear passes its weight transposed). */
static RxSInfo *matmul_sinfo(const RxInferCall *q, const RxSInfo *a, const RxSInfo *b, DType t) {
  if (a->ndim == 0 || b->ndim == 0) {
    diag_error(q->diag, q->span, "R.%s does not accept 0-d tensors", op_name(q));
    return NULL;
  }
  if (a->ndim < 0 || b->ndim < 0) return unknown(q, t, -1);
  int ba = a->ndim >= 2 ? a->ndim - 2 : 0, bb = b->ndim >= 2 ? b->ndim - 2 : 0;
  int nbat = ba > bb ? ba : bb;
  int n = nbat + (a->ndim >= 2) + (b->ndim >= 2);
  if (!a->shape || !b->shape) return unknown(q, t, n);
  TirExpr *ka = a->shape[a->ndim - 1], *kb = b->shape[b->ndim >= 2 ? b->ndim - 2 : 0];
  if (!rx_dim_may_eq(ka, kb)) {
    diag_error(q->diag, q->span, "R.%s: x1 has %lld columns but x2 has %lld rows (shapes %s and %s)", op_name(q),
               (long long)ka->ival, (long long)kb->ival, shape_txt(q, a->shape, a->ndim),
               shape_txt(q, b->shape, b->ndim));
    return NULL;
  }
  TirExpr *out[MAXD + 2];
  if (n > MAXD) return unknown(q, t, n);
  int bk = batch_dims(q, a, ba, b, bb, out, nbat);
  if (bk < 0) return NULL;
  bool known = bk > 0;
  int k = nbat;
  if (a->ndim >= 2) out[k++] = a->shape[a->ndim - 2];
  if (b->ndim >= 2) out[k++] = b->shape[b->ndim - 1];
  return rx_sinfo_tensor(q->h, known ? out : NULL, n, t);
}

static bool matmul_dtype(const RxInferCall *q, const RxSInfo *a, const RxSInfo *b, DType *t) {
  DType od = rx_attr_dtype(q->attrs, "out_dtype");
  if (dt_is_void(od) && !dt_is_void(a->dtype) && !dt_is_void(b->dtype) && !dt_eq(a->dtype, b->dtype)) {
    diag_error(q->diag, q->span, "R.%s: dtype mismatch '%s' vs '%s' (give out_dtype to mix them)", op_name(q),
               dtype_txt(q, a->dtype), dtype_txt(q, b->dtype));
    return false;
  }
  *t = !dt_is_void(od) ? od : !dt_is_void(a->dtype) ? a->dtype : b->dtype;
  return true;
}

RxSInfo *rx_infer_matmul(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0), *b = targ(q, 1);
  if (a == BAD || b == BAD) return NULL;
  if (!a || !b) return unknown(q, rx_attr_dtype(q->attrs, "out_dtype"), -1);
  DType t;
  if (!matmul_dtype(q, a, b, &t)) return NULL;
  return matmul_sinfo(q, a, b, t);
}

/* linear(x, w, b) = matmul(x, permute_dims(w)) + b. */
RxSInfo *rx_infer_linear(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0), *w = targ(q, 1), *bias = q->n > 2 ? targ(q, 2) : NULL;
  if (a == BAD || w == BAD || bias == BAD) return NULL;
  if (!a || !w) return unknown(q, rx_attr_dtype(q->attrs, "out_dtype"), -1);
  DType t;
  if (!matmul_dtype(q, a, w, &t)) return NULL;
  if (w->ndim > 2) {
    diag_error(q->diag, q->arg_spans[1], "R.linear: weight must be 1-d or 2-d, got %d-d", w->ndim);
    return NULL;
  }
  RxSInfo wt = *w;
  TirExpr *ws[2];
  if (w->shape && w->ndim == 2) {
    ws[0] = w->shape[1], ws[1] = w->shape[0];
    wt.shape = ws;
  }
  RxSInfo *r = matmul_sinfo(q, a, &wt, t);
  if (!r || !bias || !r->shape || !bias->shape) return r;
  for (int i = 0; i < bias->ndim; i++) {
    int od = r->ndim - bias->ndim + i;
    if (od < 0 || (!tir_is_one(bias->shape[i]) && !rx_dim_may_eq(bias->shape[i], r->shape[od]))) {
      diag_error(q->diag, q->arg_spans[2], "R.linear: bias of shape %s does not broadcast to the result %s",
                 shape_txt(q, bias->shape, bias->ndim), shape_txt(q, r->shape, r->ndim));
      return NULL;
    }
  }
  return r;
}

/* ------------------------------------------------------------ reductions */

static RxSInfo *reduce_sinfo(const RxInferCall *q, DType t) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  bool keep = rx_attr_bool(q->attrs, "keepdims", false);
  if (!a || a->ndim < 0) return unknown(q, t, -1);
  if (dt_is_void(t)) t = a->dtype;
  bool red[MAXD];
  if (a->ndim > MAXD || !axes_mask(q, "axis", a->ndim, red, true)) return a->ndim > MAXD ? unknown(q, t, -1) : NULL;
  TirExpr *out[MAXD];
  int n = 0;
  for (int d = 0; d < a->ndim; d++) {
    if (!red[d]) out[n++] = a->shape ? a->shape[d] : NULL;
    else if (keep) out[n++] = i64(q, 1);
  }
  return rx_sinfo_tensor(q->h, a->shape ? out : NULL, n, t);
}

RxSInfo *rx_infer_reduce(const RxInferCall *q) { return reduce_sinfo(q, dt_void); }

RxSInfo *rx_infer_argreduce(const RxInferCall *q) { return reduce_sinfo(q, dt_int64); }

/* ------------------------------------------------------------ shapes */

/* The shape operand i's values (a shape expression or a var of R.Shape sinfo);
 * false (no error) when unknown, *n = -1 when even its rank is. */
static bool shape_operand(const RxInferCall *q, int i, TirExpr ***vals, int *n, bool *bad) {
  *bad = false;
  *n = -1;
  const RxSInfo *s = i < q->n ? q->args[i] : NULL;
  if (!s) return false;
  if (s->kind != RX_SI_SHAPE) {
    if (s->kind == RX_SI_OBJECT) return false;
    diag_error(q->diag, q->arg_spans[i], "R.%s expects a shape (R.shape([...]) or a tuple of sizes)", op_name(q));
    *bad = true;
    return false;
  }
  *n = s->ndim;
  *vals = s->shape;
  return s->shape != NULL;
}

static TirExpr *numel(const RxInferCall *q, TirExpr **s, int n) {
  TirExpr *p = i64(q, 1);
  for (int i = 0; i < n; i++) p = tir_binary(q->h, TIR_MUL, p, s[i]);
  return simp(q, p);
}

RxSInfo *rx_infer_reshape(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  TirExpr **ns = NULL;
  int n;
  bool bad;
  if (a == BAD) return NULL;
  bool known = shape_operand(q, 1, &ns, &n, &bad);
  if (bad) return NULL;
  DType t = a ? a->dtype : dt_void;
  if (!known) return unknown(q, t, n);
  TirExpr **out = arena_alloc(q->scratch, (size_t)(n + 1) * sizeof *out);
  int infer_at = -1;
  for (int i = 0; i < n; i++) {
    int64_t v;
    out[i] = ns[i];
    if (tir_is_const_int(ns[i], &v) && v < 0) {
      if (v != -1 || infer_at >= 0) {
        diag_error(q->diag, q->arg_spans[1], "R.reshape: the new shape %s may hold one -1 and no other negative size",
                   shape_txt(q, ns, n));
        return NULL;
      }
      infer_at = i;
    }
  }
  if (!a || !a->shape) return rx_sinfo_tensor(q->h, infer_at < 0 ? out : NULL, n, t);
  TirExpr *in = numel(q, a->shape, a->ndim);
  if (infer_at >= 0) {
    TirExpr *rest = i64(q, 1);
    for (int i = 0; i < n; i++)
      if (i != infer_at) rest = tir_binary(q->h, TIR_MUL, rest, ns[i]);
    rest = simp(q, rest);
    int64_t x, y;
    if (tir_is_const_int(in, &x) && tir_is_const_int(rest, &y) && (y == 0 || x % y != 0)) {
      diag_error(q->diag, q->span, "R.reshape: cannot reshape %s (%lld elements) to %s", shape_txt(q, a->shape, a->ndim),
                 (long long)x, shape_txt(q, ns, n));
      return NULL;
    }
    out[infer_at] = simp(q, tir_binary(q->h, TIR_FLOORDIV, in, rest));
  }
  TirExpr *on = numel(q, out, n);
  int64_t x, y;
  if (tir_is_const_int(in, &x) && tir_is_const_int(on, &y) && x != y) {
    diag_error(q->diag, q->span, "R.reshape: cannot reshape %s (%lld elements) to %s (%lld elements)",
               shape_txt(q, a->shape, a->ndim), (long long)x, shape_txt(q, out, n), (long long)y);
    return NULL;
  }
  return rx_sinfo_tensor(q->h, out, n, t);
}

RxSInfo *rx_infer_permute_dims(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  if (!a || a->ndim < 0) return unknown(q, a ? a->dtype : dt_void, -1);
  int64_t ax[MAXD];
  int n = rx_attr_ints(q->attrs, "axes", ax, MAXD);
  if (n >= 0 && n != a->ndim) {
    diag_error(q->diag, q->span, "R.permute_dims: axes has %d entries but the tensor is %d-d", n, a->ndim);
    return NULL;
  }
  bool seen[MAXD] = {false};
  TirExpr *out[MAXD];
  for (int i = 0; i < a->ndim && i < MAXD; i++) {
    int d = n < 0 ? a->ndim - 1 - i : norm_axis(q, ax[i], a->ndim);
    if (d < 0) return NULL;
    if (seen[d]) {
      diag_error(q->diag, q->span, "R.permute_dims: axis %lld is repeated", (long long)ax[i]);
      return NULL;
    }
    seen[d] = true;
    if (a->shape) out[i] = a->shape[d];
  }
  return rx_sinfo_tensor(q->h, a->shape ? out : NULL, a->ndim, a->dtype);
}

RxSInfo *rx_infer_squeeze(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  if (!a || a->ndim < 0) return unknown(q, a ? a->dtype : dt_void, -1);
  bool sq[MAXD];
  if (!axes_mask(q, "axis", a->ndim, sq, false)) return NULL;
  bool all = rx_attr_ints(q->attrs, "axis", NULL, 0) < 0;
  if (!a->shape) return unknown(q, a->dtype, all ? -1 : a->ndim - rx_attr_ints(q->attrs, "axis", NULL, 0));
  TirExpr *out[MAXD];
  int n = 0;
  for (int d = 0; d < a->ndim; d++) {
    int64_t v;
    bool c = tir_is_const_int(a->shape[d], &v);
    if (all) {
      if (!c) return unknown(q, a->dtype, -1); /* a symbolic size may or may not be 1 */
      if (v == 1) continue;
    } else if (sq[d]) {
      if (c && v != 1) {
        diag_error(q->diag, q->span, "R.squeeze: axis %d of %s has size %lld, not 1", d,
                   shape_txt(q, a->shape, a->ndim), (long long)v);
        return NULL;
      }
      continue;
    }
    out[n++] = a->shape[d];
  }
  return rx_sinfo_tensor(q->h, out, n, a->dtype);
}

RxSInfo *rx_infer_expand_dims(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  int64_t ax[MAXD];
  int k = rx_attr_ints(q->attrs, "axis", ax, MAXD);
  if (k < 0) {
    diag_error(q->diag, q->span, "R.expand_dims needs axis (an integer or a list of integers)");
    return NULL;
  }
  if (!a || a->ndim < 0) return unknown(q, a ? a->dtype : dt_void, -1);
  int n = a->ndim + k;
  bool ins[MAXD] = {false};
  if (n > MAXD) return unknown(q, a->dtype, n);
  for (int i = 0; i < k; i++) {
    int d = norm_axis(q, ax[i], n);
    if (d < 0) return NULL;
    if (ins[d]) {
      diag_error(q->diag, q->span, "R.expand_dims: axis %lld is repeated", (long long)ax[i]);
      return NULL;
    }
    ins[d] = true;
  }
  if (!a->shape) return unknown(q, a->dtype, n);
  TirExpr *out[MAXD];
  for (int d = 0, j = 0; d < n; d++) out[d] = ins[d] ? i64(q, 1) : a->shape[j++];
  return rx_sinfo_tensor(q->h, out, n, a->dtype);
}

RxSInfo *rx_infer_flatten(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  if (!a || !a->shape) return unknown(q, a ? a->dtype : dt_void, 1);
  TirExpr *n = numel(q, a->shape, a->ndim);
  return rx_sinfo_tensor(q->h, &n, 1, a->dtype);
}

RxSInfo *rx_infer_broadcast_to(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  TirExpr **ns = NULL;
  int n;
  bool bad;
  if (a == BAD) return NULL;
  bool known = shape_operand(q, 1, &ns, &n, &bad);
  if (bad) return NULL;
  DType t = a ? a->dtype : dt_void;
  if (!known) return unknown(q, t, n);
  if (a && a->shape) {
    bool ok = a->ndim <= n;
    for (int i = 0; ok && i < a->ndim; i++) {
      TirExpr *d = a->shape[i], *o = ns[n - a->ndim + i];
      ok = tir_is_one(d) || rx_dim_may_eq(d, o);
    }
    if (!ok) {
      diag_error(q->diag, q->span, "R.broadcast_to: a tensor of shape %s cannot be broadcast to %s",
                 shape_txt(q, a->shape, a->ndim), shape_txt(q, ns, n));
      return NULL;
    }
  }
  return rx_sinfo_tensor(q->h, ns, n, t);
}

/* ------------------------------------------------------------ concat / split */

RxSInfo *rx_infer_concat(const RxInferCall *q) {
  const RxSInfo *t = q->n > 0 ? q->args[0] : NULL;
  if (!t || t->kind == RX_SI_OBJECT) return unknown(q, dt_void, -1);
  if (t->kind != RX_SI_TUPLE || t->nfields == 0) {
    diag_error(q->diag, q->arg_spans[0], "R.concat expects a non-empty tuple of tensors");
    return NULL;
  }
  const RxSInfo *f0 = t->fields[0];
  for (int i = 0; i < t->nfields; i++) {
    const RxSInfo *f = t->fields[i];
    if (f->kind != RX_SI_TENSOR) {
      diag_error(q->diag, q->arg_spans[0], "R.concat: field %d of the tuple is not a tensor", i);
      return NULL;
    }
    if (!dt_is_void(f->dtype) && !dt_is_void(f0->dtype) && !dt_eq(f->dtype, f0->dtype)) {
      diag_error(q->diag, q->arg_spans[0], "R.concat: tensor %d has dtype '%s' but tensor 0 has '%s'", i,
                 dtype_txt(q, f->dtype), dtype_txt(q, f0->dtype));
      return NULL;
    }
    if (f->ndim >= 0 && f0->ndim >= 0 && f->ndim != f0->ndim) {
      diag_error(q->diag, q->arg_spans[0], "R.concat: tensor %d is %d-d but tensor 0 is %d-d", i, f->ndim, f0->ndim);
      return NULL;
    }
  }
  int64_t axv;
  bool none = rx_attr_ints(q->attrs, "axis", &axv, 1) < 0;
  int nd = f0->ndim;
  if (none && nd != 1 && nd >= 0) {
    diag_error(q->diag, q->span, "R.concat with axis=None needs 1-d tensors, got %d-d", nd);
    return NULL;
  }
  if (nd < 0) return unknown(q, f0->dtype, -1);
  if (nd == 0) {
    diag_error(q->diag, q->span, "R.concat cannot concatenate 0-d tensors");
    return NULL;
  }
  int ax = none ? 0 : norm_axis(q, axv, nd);
  if (ax < 0) return NULL;
  TirExpr *out[MAXD];
  TirExpr *sum = i64(q, 0);
  for (int i = 0; i < t->nfields; i++) {
    const RxSInfo *f = t->fields[i];
    if (!f->shape) return unknown(q, f0->dtype, nd);
    for (int d = 0; d < nd; d++) {
      if (d == ax) continue;
      if (!rx_dim_may_eq(f->shape[d], f0->shape[d])) {
        diag_error(q->diag, q->arg_spans[0], "R.concat: tensor %d of shape %s and tensor 0 of shape %s differ in dimension %d",
                   i, shape_txt(q, f->shape, nd), shape_txt(q, f0->shape, nd), d);
        return NULL;
      }
    }
    sum = tir_binary(q->h, TIR_ADD, sum, f->shape[ax]);
  }
  for (int d = 0; d < nd; d++) out[d] = d == ax ? simp(q, sum) : f0->shape[d];
  return rx_sinfo_tensor(q->h, out, nd, f0->dtype);
}

/* split's pieces along an axis of size dim: starts in beg[], sizes in len[]; count or -1 after an error. */
int rx_split_pieces(const IrValue *attrs, int64_t dim, int64_t *beg, int64_t *len, int cap) {
  const IrValue *v = irv_dict_get(attrs, "indices_or_sections");
  if (!v) return -1;
  if (v->kind == IRV_INT) {
    int64_t k = v->i;
    if (k <= 0 || k > cap || dim % k) return -1;
    for (int i = 0; i < k; i++) beg[i] = i * (dim / k), len[i] = dim / k;
    return (int)k;
  }
  int n = v->n + 1;
  if (n > cap) return -1;
  int64_t p = 0;
  for (int i = 0; i < n; i++) {
    int64_t e = i < v->n ? v->items[i]->i : dim;
    if (e < 0) e += dim;
    if (e < 0) e = 0;
    if (e > dim) e = dim;
    int64_t b = p < dim ? p : dim;
    beg[i] = b;
    len[i] = e > b ? e - b : 0;
    p = e; /* numpy: piece i is x[idx[i-1]:idx[i]] */
  }
  return n;
}

RxSInfo *rx_infer_split(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  const IrValue *ios = irv_dict_get(q->attrs, "indices_or_sections");
  if (!ios || (ios->kind != IRV_INT && ios->kind != IRV_ARRAY)) {
    diag_error(q->diag, q->span, "R.split needs indices_or_sections (an integer or a list of integers)");
    return NULL;
  }
  int k = ios->kind == IRV_INT ? (int)ios->i : ios->n + 1;
  if (ios->kind == IRV_INT && ios->i <= 0) {
    diag_error(q->diag, q->span, "R.split: indices_or_sections must be positive, got %lld", (long long)ios->i);
    return NULL;
  }
  if (k > 256) {
    diag_error(q->diag, q->span, "R.split: too many sections (%d)", k);
    return NULL;
  }
  RxSInfo **fs = arena_alloc(q->scratch, (size_t)k * sizeof *fs);
  DType t = a ? a->dtype : dt_void;
  if (!a || a->ndim < 0) {
    for (int i = 0; i < k; i++) fs[i] = unknown(q, t, -1);
    return rx_sinfo_tuple(q->h, fs, k);
  }
  int ax = norm_axis(q, rx_attr_int(q->attrs, "axis", 0), a->ndim);
  if (ax < 0) return NULL;
  TirExpr *dim = a->shape ? a->shape[ax] : NULL;
  int64_t dv;
  bool cdim = dim && tir_is_const_int(dim, &dv);
  if (cdim && ios->kind == IRV_INT && dv % ios->i) {
    diag_error(q->diag, q->span, "R.split: axis %d of %s has size %lld, which %lld sections do not divide", ax,
               shape_txt(q, a->shape, a->ndim), (long long)dv, (long long)ios->i);
    return NULL;
  }
  int64_t beg[257], len[257];
  if (cdim) rx_split_pieces(q->attrs, dv, beg, len, 257);
  for (int i = 0; i < k; i++) {
    if (!a->shape || (!cdim && ios->kind != IRV_INT)) {
      fs[i] = unknown(q, t, a->ndim);
      continue;
    }
    TirExpr **s = ir_alloc(q->h, (size_t)(a->ndim + 1) * sizeof *s);
    for (int d = 0; d < a->ndim; d++) s[d] = a->shape[d];
    s[ax] = cdim ? i64(q, len[i]) : simp(q, tir_binary(q->h, TIR_FLOORDIV, dim, i64(q, ios->i)));
    fs[i] = rx_sinfo_tensor(q->h, s, a->ndim, t);
  }
  return rx_sinfo_tuple(q->h, fs, k);
}

/* ------------------------------------------------------------ indexing */

/* numpy slice of a size-dim axis: the start and the count. */
void rx_slice_range(int64_t dim, int64_t b, int64_t e, int64_t s, int64_t *start, int64_t *count) {
  if (s > 0) {
    b = b < 0 ? b + dim : b, e = e < 0 ? e + dim : e;
    b = b < 0 ? 0 : b > dim ? dim : b, e = e < 0 ? 0 : e > dim ? dim : e;
    *start = b;
    *count = e > b ? (e - b + s - 1) / s : 0;
  } else {
    b = b < 0 ? b + dim : b, e = e < -dim - 1 ? -1 : e < 0 ? e + dim : e;
    b = b < -1 ? -1 : b > dim - 1 ? dim - 1 : b, e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
    *start = b;
    *count = b > e ? (b - e + (-s) - 1) / (-s) : 0;
  }
}

/* The slice of an axis of (possibly symbolic) size dim as expressions: the
 * start in *start and the count; NULL for a negative stride over a symbolic
 * size (not modelled). */
TirExpr *rx_slice_expr(IrHeap *h, TirExpr *dim, int64_t b, int64_t e, int64_t s, TirExpr **start) {
  int64_t d, st, cnt;
  if (tir_is_const_int(dim, &d)) {
    rx_slice_range(d, b, e, s, &st, &cnt);
    *start = tir_int(h, dt_int64, st);
    return tir_int(h, dt_int64, cnt);
  }
  if (s <= 0) return NULL;
  TirExpr *zero = tir_int(h, dt_int64, 0), *lo, *hi;
  /* clamp like numpy: b, e < 0 count from the end; both into [0, dim] */
  lo = b >= 0 ? tir_binary(h, TIR_MIN, tir_int(h, dt_int64, b), dim)
              : tir_binary(h, TIR_MAX, tir_binary(h, TIR_ADD, dim, tir_int(h, dt_int64, b)), zero);
  hi = e >= 0 ? tir_binary(h, TIR_MIN, tir_int(h, dt_int64, e), dim)
              : tir_binary(h, TIR_MAX, tir_binary(h, TIR_ADD, dim, tir_int(h, dt_int64, e)), zero);
  TirExpr *len = tir_binary(h, TIR_MAX, tir_binary(h, TIR_SUB, hi, lo), zero);
  TirExpr *count = tir_binary(h, TIR_FLOORDIV, tir_binary(h, TIR_ADD, len, tir_int(h, dt_int64, s - 1)),
                              tir_int(h, dt_int64, s));
  ArithCtx *a = arith_new(h);
  *start = arith_simplify(a, lo);
  count = arith_simplify(a, count);
  arith_free(a);
  return count;
}

RxSInfo *rx_infer_strided_slice(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  int64_t ax[MAXD], b[MAXD], e[MAXD], s[MAXD];
  int na = rx_attr_ints(q->attrs, "axes", ax, MAXD), nb = rx_attr_ints(q->attrs, "begin", b, MAXD);
  int ne = rx_attr_ints(q->attrs, "end", e, MAXD), ns = rx_attr_ints(q->attrs, "strides", s, MAXD);
  if (nb != na || ne != na || (ns >= 0 && ns != na)) {
    diag_error(q->diag, q->span, "R.strided_slice: axes, begin, end and strides must have the same length (%d, %d, %d, %d)",
               na, nb, ne, ns < 0 ? na : ns);
    return NULL;
  }
  if (!a || a->ndim < 0) return unknown(q, a ? a->dtype : dt_void, -1);
  bool seen[MAXD] = {false};
  TirExpr *out[MAXD];
  bool known = a->shape != NULL;
  for (int d = 0; known && d < a->ndim; d++) out[d] = a->shape[d];
  for (int i = 0; i < na; i++) {
    int d = norm_axis(q, ax[i], a->ndim);
    if (d < 0) return NULL;
    int64_t st = ns < 0 ? 1 : s[i];
    if (st == 0) {
      diag_error(q->diag, q->span, "R.strided_slice: stride of axis %d is 0", d);
      return NULL;
    }
    if (seen[d]) {
      diag_error(q->diag, q->span, "R.strided_slice: axis %lld is repeated", (long long)ax[i]);
      return NULL;
    }
    seen[d] = true;
    TirExpr *start;
    if (!known) continue;
    out[d] = rx_slice_expr(q->h, a->shape[d], b[i], e[i], st, &start);
    known = out[d] != NULL; /* a negative stride over a symbolic size: not modelled */
  }
  return rx_sinfo_tensor(q->h, known ? out : NULL, a->ndim, a->dtype);
}

RxSInfo *rx_infer_take(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0), *ix = targ(q, 1);
  if (a == BAD || ix == BAD) return NULL;
  if (ix && !dt_is_void(ix->dtype) && !dt_is_integer(ix->dtype)) {
    diag_error(q->diag, q->arg_spans[1], "R.take: indices must be integers, got '%s'", dtype_txt(q, ix->dtype));
    return NULL;
  }
  const char *mode = rx_attr_str(q->attrs, "mode", "fast");
  if (strcmp(mode, "fast") && strcmp(mode, "clip") && strcmp(mode, "wrap") && strcmp(mode, "nan")) {
    diag_error(q->diag, q->span, "R.take: mode must be \"fast\", \"clip\", \"wrap\" or \"nan\", got \"%s\"", mode);
    return NULL;
  }
  if (!a || !ix || a->ndim < 0 || ix->ndim < 0) return unknown(q, a ? a->dtype : dt_void, -1);
  int64_t axv;
  bool none = rx_attr_ints(q->attrs, "axis", &axv, 1) < 0;
  if (none && a->ndim != 1) {
    diag_error(q->diag, q->span, "R.take with axis=None needs a 1-d tensor, got %d-d", a->ndim);
    return NULL;
  }
  int ax = none ? 0 : norm_axis(q, axv, a->ndim);
  if (ax < 0) return NULL;
  int n = a->ndim - 1 + ix->ndim;
  if (!a->shape || !ix->shape || n > MAXD) return unknown(q, a->dtype, n);
  TirExpr *out[MAXD];
  int k = 0;
  for (int d = 0; d < ax; d++) out[k++] = a->shape[d];
  for (int d = 0; d < ix->ndim; d++) out[k++] = ix->shape[d];
  for (int d = ax + 1; d < a->ndim; d++) out[k++] = a->shape[d];
  return rx_sinfo_tensor(q->h, out, n, a->dtype);
}

RxSInfo *rx_infer_tile(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  int64_t r[MAXD];
  int nr = rx_attr_ints(q->attrs, "repeats", r, MAXD);
  for (int i = 0; i < nr; i++)
    if (r[i] < 0) {
      diag_error(q->diag, q->span, "R.tile: repeats must not be negative, got %lld", (long long)r[i]);
      return NULL;
    }
  if (!a || a->ndim < 0) return unknown(q, a ? a->dtype : dt_void, -1);
  int n = a->ndim > nr ? a->ndim : nr;
  if (!a->shape || n > MAXD) return unknown(q, a->dtype, n);
  TirExpr *out[MAXD];
  for (int d = 0; d < n; d++) {
    int ia = d - (n - a->ndim), ir = d - (n - nr);
    TirExpr *dim = ia >= 0 ? a->shape[ia] : i64(q, 1);
    int64_t rep = ir >= 0 ? r[ir] : 1;
    out[d] = simp(q, tir_binary(q->h, TIR_MUL, dim, i64(q, rep)));
  }
  return rx_sinfo_tensor(q->h, out, n, a->dtype);
}

RxSInfo *rx_infer_repeat(const RxInferCall *q) {
  const RxSInfo *a = targ(q, 0);
  if (a == BAD) return NULL;
  int64_t rep = rx_attr_int(q->attrs, "repeats", 1), axv;
  if (rep < 0) {
    diag_error(q->diag, q->span, "R.repeat: repeats must not be negative, got %lld", (long long)rep);
    return NULL;
  }
  if (!a || a->ndim < 0) return unknown(q, a ? a->dtype : dt_void, -1);
  bool none = rx_attr_ints(q->attrs, "axis", &axv, 1) < 0;
  if (none) {
    if (!a->shape) return unknown(q, a->dtype, 1);
    TirExpr *n = simp(q, tir_binary(q->h, TIR_MUL, numel(q, a->shape, a->ndim), i64(q, rep)));
    return rx_sinfo_tensor(q->h, &n, 1, a->dtype);
  }
  int ax = norm_axis(q, axv, a->ndim);
  if (ax < 0) return NULL;
  if (!a->shape) return unknown(q, a->dtype, a->ndim);
  TirExpr **out = arena_alloc(q->scratch, (size_t)(a->ndim + 1) * sizeof *out);
  for (int d = 0; d < a->ndim; d++) out[d] = a->shape[d];
  out[ax] = simp(q, tir_binary(q->h, TIR_MUL, a->shape[ax], i64(q, rep)));
  return rx_sinfo_tensor(q->h, out, a->ndim, a->dtype);
}
