/* onnx_ops_tensor.c - converters of ONNX's shape and indexing ops.  Static
 * shapes are known here, so Shape, Size, Constant, ConstantOfShape and Range
 * give known values, and Reshape / Squeeze / Unsqueeze / Gather / Concat /
 * Slice fold on known values (the Shape -> Gather -> Concat -> Reshape
 * subgraphs of exported models disappear). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_ops.h"

enum { FOLD_MAX = 1 << 16 }; /* known values at most this many elements are folded */

static int need(OxCtx *c, OxVal **in, int nin, int k) {
  for (int i = 0; i < k; i++)
    if (i >= nin || !in[i]) return ox_fail(c, "input %d is missing", i);
  return 0;
}

static TvsNDArray *i64_array(int ndim, const int64_t *shape, const int64_t *vals) {
  TvsNDArray *a = tvs_ndarray_empty(ndim, shape, (DLDataType){kDLInt, 64, 1});
  if (a && tvs_ndarray_numel(&a->t)) memcpy(a->t.data, vals, sizeof(int64_t) * (size_t)tvs_ndarray_numel(&a->t));
  return a;
}

static bool small_known(const OxVal *v) { return v->cval && tvs_ndarray_numel(&v->cval->t) <= FOLD_MAX; }

/* A copy of v's known value with a new shape (same elements). */
static TvsNDArray *reshaped_copy(const OxVal *v, int ndim, const int64_t *dims) {
  TvsNDArray *a = tvs_ndarray_empty(ndim, dims, v->cval->t.dtype);
  if (a && tvs_ndarray_nbytes(&a->t)) memcpy(a->t.data, v->cval->t.data, tvs_ndarray_nbytes(&a->t));
  return a;
}

/* Output i is x with the given static shape: folded, or R.reshape. */
static int emit_reshape(OxCtx *c, int i, OxVal *x, int ndim, const int64_t *dims, char *const *sym) {
  int64_t from = 1, to = 1;
  for (int k = 0; k < x->ndim; k++)
    if (x->dims[k] < 0 || from < 0 || __builtin_mul_overflow(from, x->dims[k], &from)) from = -1;
  for (int k = 0; k < ndim; k++)
    if (dims[k] < 0 || to < 0 || __builtin_mul_overflow(to, dims[k], &to)) to = -1;
  if (from >= 0 && to >= 0 && from != to)
    return ox_fail(c, "cannot reshape %lld elements into %lld", (long long)from, (long long)to);
  if (small_known(x)) {
    bool stat = true;
    for (int k = 0; k < ndim; k++) stat &= dims[k] >= 0;
    if (stat) return ox_define_const(c, i, reshaped_copy(x, ndim, dims)) ? 0 : -1;
  }
  StrBuf sb;
  sb_init(&sb);
  int rc = ox_shape_arg(c, &sb, ndim, dims, sym);
  if (!rc) ox_emit(c, i, x->dt, ndim, dims, sym, "R.reshape(%s, %s)", ox_ref(c, x), sb.data);
  sb_free(&sb);
  return rc;
}

int ox_cv_constant(OxCtx *c, OxVal **in, int nin) {
  const Onnx__AttributeProto *a = ox_attr(c, "value");
  if (a && a->t) {
    TvsNDArray *v = onnx_tensor_value(c->m, a->t, c->d);
    return v && ox_define_const(c, 0, v) ? 0 : -1;
  }
  if ((a = ox_attr(c, "value_float")) || (a = ox_attr(c, "value_int"))) {
    bool f = !strcmp(a->name, "value_float");
    TvsNDArray *v = tvs_ndarray_empty(0, NULL, f ? (DLDataType){kDLFloat, 32, 1} : (DLDataType){kDLInt, 64, 1});
    if (f) *(float *)v->t.data = a->f;
    else *(int64_t *)v->t.data = a->i;
    return ox_define_const(c, 0, v) ? 0 : -1;
  }
  if ((a = ox_attr(c, "value_floats")) || (a = ox_attr(c, "value_ints"))) {
    bool f = !strcmp(a->name, "value_floats");
    int64_t n = (int64_t)(f ? a->n_floats : a->n_ints);
    TvsNDArray *v = tvs_ndarray_empty(1, &n, f ? (DLDataType){kDLFloat, 32, 1} : (DLDataType){kDLInt, 64, 1});
    if (n) memcpy(v->t.data, f ? (void *)a->floats : (void *)a->ints, f ? sizeof(float) * (size_t)n : sizeof(int64_t) * (size_t)n);
    return ox_define_const(c, 0, v) ? 0 : -1;
  }
  return ox_fail(c, "a Constant needs a 'value', 'value_float(s)' or 'value_int(s)' attribute");
}

int ox_cv_shape(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  int64_t start = ox_attr_int(c, "start", 0), end = ox_attr_int(c, "end", x->ndim);
  if (start < 0) start += x->ndim;
  if (end < 0) end += x->ndim;
  if (start < 0) start = 0;
  if (start > x->ndim) start = x->ndim;
  if (end > x->ndim) end = x->ndim;
  int64_t n = end > start ? end - start : 0;
  for (int64_t k = start; k < end; k++)
    if (x->dims[k] < 0) return ox_fail(c, "Shape of a symbolic size ('%s') is not supported", x->sym[k]);
  return ox_define_const(c, 0, i64_array(1, &n, x->dims + start)) ? 0 : -1;
}

int ox_cv_size(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  int64_t n = 1;
  for (int k = 0; k < in[0]->ndim; k++) {
    if (in[0]->dims[k] < 0) return ox_fail(c, "Size of a symbolic shape is not supported");
    n *= in[0]->dims[k];
  }
  return ox_define_const(c, 0, i64_array(0, NULL, &n)) ? 0 : -1;
}

int ox_cv_constant_of_shape(OxCtx *c, OxVal **in, int nin) {
  int64_t dims[OX_MAX_NDIM];
  int nd = ox_const_ints(c, nin ? in[0] : NULL, "the shape input", dims, OX_MAX_NDIM);
  if (nd < 0) return -1;
  const Onnx__AttributeProto *a = ox_attr(c, "value");
  TvsNDArray *val = a && a->t ? onnx_tensor_value(c->m, a->t, c->d) : NULL;
  if (a && a->t && !val) return -1;
  DLDataType dt = val ? val->t.dtype : (DLDataType){kDLFloat, 32, 1};
  if (ox_too_big(c, nd, dims)) {
    if (val) tvs_ndarray_free(val);
    return -1;
  }
  TvsNDArray *r = tvs_ndarray_empty(nd, dims, dt);
  if (!r) {
    if (val) tvs_ndarray_free(val);
    return ox_fail(c, "invalid shape");
  }
  size_t eb = tvs_dtype_bytes(dt);
  for (int64_t i = 0; val && i < tvs_ndarray_numel(&r->t); i++) memcpy((char *)r->t.data + (size_t)i * eb, val->t.data, eb);
  if (val) tvs_ndarray_free(val);
  return ox_define_const(c, 0, r) ? 0 : -1;
}

int ox_cv_range(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 3)) return -1;
  double s, l, d;
  if (!ox_const_scalar(in[0], &s) || !ox_const_scalar(in[1], &l) || !ox_const_scalar(in[2], &d) || d == 0)
    return ox_fail(c, "start, limit and delta must be known at import time (and delta non-zero)");
  double cnt = (l - s) / d;
  int64_t n = cnt > 0 ? (int64_t)(cnt + 0.999999999) : 0;
  if (!(cnt < (double)((int64_t)1 << 26))) return ox_fail(c, "a Range of more than 2^26 elements is not supported");
  if (in[0]->dt.code != kDLFloat) {
    if ((int64_t)d == 0) return ox_fail(c, "an integer Range needs a non-zero integer delta");
    n = (int64_t)((l - s) / d) + (((int64_t)(l - s) % (int64_t)d) != 0), n = n < 0 ? 0 : n;
  }
  TvsNDArray *r = tvs_ndarray_empty(1, &n, in[0]->dt);
  if (!r) return ox_fail(c, "invalid range");
  for (int64_t i = 0; i < n; i++) {
    double v = s + (double)i * d;
    DLDataType dt = in[0]->dt;
    if (dt.code == kDLFloat && dt.bits == 32) ((float *)r->t.data)[i] = (float)v;
    else if (dt.code == kDLFloat) ((double *)r->t.data)[i] = v;
    else if (dt.bits == 64) ((int64_t *)r->t.data)[i] = (int64_t)v;
    else if (dt.bits == 32) ((int32_t *)r->t.data)[i] = (int32_t)v;
    else ((int16_t *)r->t.data)[i] = (int16_t)v;
  }
  return ox_define_const(c, 0, r) ? 0 : -1;
}

/* Reshape: 0 copies the input's size (unless allowzero), -1 is inferred. */
int ox_cv_reshape(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal *x = in[0];
  int64_t dims[OX_MAX_NDIM], known = 1, total = 1;
  char *sym[OX_MAX_NDIM] = {0};
  int nd = ox_const_ints(c, in[1], "the shape input", dims, OX_MAX_NDIM), infer = -1;
  if (nd < 0) return -1;
  bool allowzero = ox_attr_int(c, "allowzero", 0) != 0, symbolic = false;
  for (int k = 0; k < x->ndim; k++) {
    symbolic |= x->dims[k] < 0;
    if (__builtin_mul_overflow(total, x->dims[k] < 0 ? 1 : x->dims[k], &total))
      return ox_fail(c, "the input's size overflows");
  }
  for (int k = 0; k < nd; k++) {
    if (dims[k] == 0 && !allowzero) {
      if (k >= x->ndim) return ox_fail(c, "shape entry %d is 0 but the input has rank %d", k, x->ndim);
      dims[k] = x->dims[k], sym[k] = x->sym[k];
    }
    if (dims[k] == -1 && !sym[k]) {
      if (infer >= 0) return ox_fail(c, "the shape has two -1 entries");
      infer = k;
    } else if (dims[k] >= 0 && __builtin_mul_overflow(known, dims[k], &known)) {
      return ox_fail(c, "the shape's size overflows");
    } else if (dims[k] < -1) {
      return ox_fail(c, "shape entry %d is %lld", k, (long long)dims[k]);
    }
  }
  if (infer >= 0) {
    if (symbolic) dims[infer] = -1; /* stays -1 in the text: R.reshape infers it */
    else if (known == 0 || total % known) return ox_fail(c, "cannot reshape %lld elements with this shape", (long long)total);
    else dims[infer] = total / known;
  }
  return emit_reshape(c, 0, x, nd, dims, sym);
}

int ox_cv_flatten(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  int64_t axis = ox_attr_int(c, "axis", 1);
  if (axis < 0) axis += x->ndim;
  if (axis < 0 || axis > x->ndim) return ox_fail(c, "axis %lld is out of range", (long long)axis);
  int64_t dims[2] = {1, 1};
  char *sym[2] = {0};
  for (int k = 0; k < x->ndim; k++) {
    int64_t *d = &dims[k >= axis];
    if (x->dims[k] < 0) *d = -1, sym[k >= axis] = x->sym[k];
    else if (*d >= 0) *d *= x->dims[k];
  }
  return emit_reshape(c, 0, x, 2, dims, sym);
}

/* The axes of Squeeze / Unsqueeze: an attribute before opset 13, an input after. */
static int axes_of(OxCtx *c, OxVal **in, int nin, int64_t *axes) {
  if (c->opset < 13) return ox_attr_ints(c, "axes", axes, OX_MAX_NDIM);
  if (nin < 2 || !in[1]) return -1;
  return ox_const_ints(c, in[1], "the axes input", axes, OX_MAX_NDIM) < 0 ? -2 : (int)tvs_ndarray_numel(&in[1]->cval->t);
}

int ox_cv_squeeze(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  int64_t axes[OX_MAX_NDIM], dims[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM] = {0};
  bool drop[OX_MAX_NDIM] = {0};
  int na = axes_of(c, in, nin, axes), nd = 0;
  if (na == -2) return -1;
  for (int i = 0; i < na; i++) {
    int a = ox_axis(c, axes[i], x->ndim);
    if (a < 0) return -1;
    if (x->dims[a] != 1) return ox_fail(c, "cannot squeeze axis %d of size %lld", a, (long long)x->dims[a]);
    drop[a] = true;
  }
  for (int k = 0; k < x->ndim; k++)
    if (!(na < 0 ? x->dims[k] == 1 : drop[k])) dims[nd] = x->dims[k], sym[nd++] = x->sym[k];
  return emit_reshape(c, 0, x, nd, dims, sym);
}

int ox_cv_unsqueeze(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  int64_t axes[OX_MAX_NDIM], dims[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM] = {0};
  bool ins[OX_MAX_NDIM] = {0};
  int na = axes_of(c, in, nin, axes);
  if (na < 0) return na == -1 ? ox_fail(c, "axes are required") : -1;
  int nd = x->ndim + na;
  if (nd > OX_MAX_NDIM) return ox_fail(c, "the result would have %d dimensions", nd);
  for (int i = 0; i < na; i++) {
    int a = ox_axis(c, axes[i], nd);
    if (a < 0) return -1;
    ins[a] = true;
  }
  for (int k = 0, j = 0; k < nd; k++) {
    if (ins[k]) dims[k] = 1;
    else dims[k] = x->dims[j], sym[k] = x->sym[j], j++;
  }
  return emit_reshape(c, 0, x, nd, dims, sym);
}

int ox_cv_transpose(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  int64_t perm[OX_MAX_NDIM], dims[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM];
  int n = ox_attr_ints(c, "perm", perm, OX_MAX_NDIM);
  if (n < 0)
    for (n = 0; n < x->ndim; n++) perm[n] = x->ndim - 1 - n;
  if (n != x->ndim) return ox_unsupported_attr(c, "perm", "of another length than the rank");
  for (int k = 0; k < n; k++) {
    if (perm[k] < 0 || perm[k] >= n) return ox_unsupported_attr(c, "perm", "with an out-of-range axis");
    dims[k] = x->dims[perm[k]], sym[k] = x->sym[perm[k]];
  }
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, perm, n);
  ox_emit(c, 0, x->dt, n, dims, sym, "R.permute_dims(%s, axes=%s)", ox_ref(c, x), sb.data);
  sb_free(&sb);
  return 0;
}

/* Concat: folded when every input is known (shape vectors), else R.concat. */
int ox_cv_concat(OxCtx *c, OxVal **in, int nin) {
  if (nin < 1 || need(c, in, nin, nin)) return ox_fail(c, "needs at least one input");
  int axis = ox_axis(c, ox_attr_int(c, "axis", 0), in[0]->ndim);
  if (axis < 0) return -1;
  int64_t dims[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM];
  memcpy(dims, in[0]->dims, sizeof dims);
  memcpy(sym, in[0]->sym, sizeof sym);
  bool known = in[0]->ndim == 1 && in[0]->dt.code == kDLInt && in[0]->dt.bits == 64;
  for (int i = 1; i < nin; i++) {
    if (in[i]->ndim != in[0]->ndim) return ox_fail(c, "inputs have different ranks");
    dims[axis] = dims[axis] < 0 || in[i]->dims[axis] < 0 ? -1 : dims[axis] + in[i]->dims[axis];
    if (dims[axis] < 0) return ox_fail(c, "concatenating along a symbolic axis is not supported");
  }
  for (int i = 0; i < nin; i++) known &= small_known(in[i]) && in[i]->dt.code == kDLInt && in[i]->dt.bits == 64;
  if (known) {
    int64_t *vals = xmalloc(sizeof(int64_t) * (size_t)(dims[0] + 1)), off = 0;
    for (int i = 0; i < nin; i++) {
      int64_t n = in[i]->dims[0];
      if (n) memcpy(vals + off, in[i]->cval->t.data, sizeof(int64_t) * (size_t)n);
      off += n;
    }
    OxVal *v = ox_define_const(c, 0, i64_array(1, dims, vals));
    free(vals);
    return v ? 0 : -1;
  }
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < nin; i++) sb_printf(&sb, "%s%s", i ? ", " : "", ox_ref(c, in[i]));
  ox_emit(c, 0, in[0]->dt, in[0]->ndim, dims, sym, "R.concat((%s%s), axis=%d)", sb.data, nin == 1 ? "," : "", axis);
  sb_free(&sb);
  return 0;
}

int ox_cv_split(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  int axis = ox_axis(c, ox_attr_int(c, "axis", 0), x->ndim), nout = (int)c->node->n_output;
  if (axis < 0) return -1;
  if (x->dims[axis] < 0) return ox_fail(c, "splitting a symbolic axis is not supported");
  int64_t sizes[64];
  int ns = c->opset < 13 ? ox_attr_ints(c, "split", sizes, 64)
                         : (nin > 1 && in[1] ? ox_const_ints(c, in[1], "the split input", sizes, 64) : -1);
  if (c->opset >= 13 && nin > 1 && in[1] && ns < 0) return -1;
  if (nout > 64) return ox_fail(c, "too many outputs");
  if (nout < 1) return ox_fail(c, "a Split needs at least one output");
  if (ns < 0) { /* equal parts; the last one smaller (opset 18's num_outputs) */
    int64_t part = (x->dims[axis] + nout - 1) / nout;
    for (int i = 0; i < nout; i++) sizes[i] = i < nout - 1 ? part : x->dims[axis] - part * (nout - 1);
    ns = nout;
  }
  if (ns != nout) return ox_fail(c, "split has %d sizes for %d outputs", ns, nout);
  int64_t idx[64], acc = 0;
  for (int i = 0; i + 1 < ns; i++) acc += sizes[i], idx[i] = acc;
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, idx, ns - 1);
  const char *t = ox_tmp(c, "R.split(%s, indices_or_sections=%s, axis=%d)", ox_ref(c, x), sb.data, axis);
  sb_free(&sb);
  for (int i = 0; i < nout; i++) {
    int64_t dims[OX_MAX_NDIM];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = sizes[i];
    ox_emit(c, i, x->dt, x->ndim, dims, x->sym, "%s[%d]", t, i);
  }
  return 0;
}

/* numpy slice of a size-n axis: start and count. */
static void slice_range(int64_t n, int64_t b, int64_t e, int64_t s, int64_t *start, int64_t *count) {
  if (b < 0) b += n;
  if (e < 0) e += n;
  if (s > 0) {
    b = b < 0 ? 0 : b > n ? n : b;
    e = e < 0 ? 0 : e > n ? n : e;
    *count = e > b ? (e - b + s - 1) / s : 0;
  } else {
    b = b < -1 ? -1 : b > n - 1 ? n - 1 : b;
    e = e < -1 ? -1 : e > n - 1 ? n - 1 : e;
    *count = b > e ? (b - e + (-s) - 1) / (-s) : 0;
  }
  *start = b;
}

static int gather_elems(OxCtx *c, OxVal *x, OxVal *idx) {
  int64_t n = tvs_ndarray_numel(&idx->cval->t), len = x->dims[0];
  int64_t *out = xmalloc(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++) {
    int64_t k = (int64_t)tvs_ndarray_get_f64(&idx->cval->t, i);
    if (k < 0) k += len;
    if (k < 0 || k >= len) {
      free(out);
      return ox_fail(c, "index %lld is out of range for size %lld", (long long)k, (long long)len);
    }
    out[i] = ((int64_t *)x->cval->t.data)[k];
  }
  OxVal *v = ox_define_const(c, 0, i64_array(idx->ndim, idx->dims, out));
  free(out);
  return v ? 0 : -1;
}

/* Gather: R.take; indices known at import get their negative values wrapped. */
int ox_cv_gather(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal *x = in[0], *idx = in[1];
  int axis = ox_axis(c, ox_attr_int(c, "axis", 0), x->ndim);
  if (axis < 0) return -1;
  if (x->cval && idx->cval && x->ndim == 1 && x->dt.code == kDLInt && x->dt.bits == 64 && small_known(x))
    return gather_elems(c, x, idx);
  if (x->ndim + idx->ndim - 1 > OX_MAX_NDIM) return ox_fail(c, "the result has too many dimensions");
  const char *ir = ox_ref(c, idx);
  if (idx->cval && x->dims[axis] >= 0) {
    int64_t n = tvs_ndarray_numel(&idx->cval->t);
    TvsNDArray *w = tvs_ndarray_empty(idx->ndim, idx->dims, (DLDataType){kDLInt, 64, 1});
    for (int64_t i = 0; i < n; i++) {
      int64_t k = (int64_t)tvs_ndarray_get_f64(&idx->cval->t, i);
      ((int64_t *)w->t.data)[i] = k < 0 ? k + x->dims[axis] : k;
    }
    OxVal *wv = ox_new_output(c, -1);
    free(wv->name);
    wv->name = xasprintf("%s_indices", c->node->output[0]);
    wv->dt = w->t.dtype, wv->cval = w;
    ox_set_shape(wv, idx->ndim, idx->dims, NULL);
    ir = ox_ref(c, wv);
  }
  int64_t dims[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM];
  int nd = 0;
  for (int k = 0; k < axis; k++) dims[nd] = x->dims[k], sym[nd++] = x->sym[k];
  for (int k = 0; k < idx->ndim; k++) dims[nd] = idx->dims[k], sym[nd++] = idx->sym[k];
  for (int k = axis + 1; k < x->ndim; k++) dims[nd] = x->dims[k], sym[nd++] = x->sym[k];
  /* indices known here were wrapped above; run-time ones may be negative: "wrap" */
  ox_emit(c, 0, x->dt, nd, dims, sym, "R.take(%s, %s, axis=%d%s)", ox_ref(c, x), ir, axis,
          idx->cval ? "" : ", mode=\"wrap\"");
  return 0;
}

/* Slice: starts / ends / axes / steps are attributes before opset 10, inputs after (known at import). */
int ox_cv_slice(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 1)) return -1;
  OxVal *x = in[0];
  int64_t st[OX_MAX_NDIM], en[OX_MAX_NDIM], ax[OX_MAX_NDIM], sp[OX_MAX_NDIM];
  int n, n2, na = -1, nsp = -1;
  if (c->opset < 10) {
    n = ox_attr_ints(c, "starts", st, OX_MAX_NDIM), n2 = ox_attr_ints(c, "ends", en, OX_MAX_NDIM);
    na = ox_attr_ints(c, "axes", ax, OX_MAX_NDIM);
  } else {
    if (need(c, in, nin, 3)) return -1;
    if ((n = ox_const_ints(c, in[1], "starts", st, OX_MAX_NDIM)) < 0) return -1;
    if ((n2 = ox_const_ints(c, in[2], "ends", en, OX_MAX_NDIM)) < 0) return -1;
    if (nin > 3 && in[3] && (na = ox_const_ints(c, in[3], "axes", ax, OX_MAX_NDIM)) < 0) return -1;
    if (nin > 4 && in[4] && (nsp = ox_const_ints(c, in[4], "steps", sp, OX_MAX_NDIM)) < 0) return -1;
  }
  if (n < 0 || n != n2 || (na >= 0 && na != n) || (nsp >= 0 && nsp != n))
    return ox_fail(c, "starts, ends, axes and steps must have the same length");
  int64_t dims[OX_MAX_NDIM], begin[OX_MAX_NDIM], count[OX_MAX_NDIM];
  memcpy(dims, x->dims, sizeof dims);
  for (int i = 0; i < n; i++) {
    if (na < 0) ax[i] = i;
    if (nsp < 0) sp[i] = 1;
    int a = ox_axis(c, ax[i], x->ndim);
    if (a < 0) return -1;
    ax[i] = a;
    if (sp[i] == 0) return ox_fail(c, "a step of 0");
    if (x->dims[a] < 0) return ox_fail(c, "slicing a symbolic axis is not supported");
    slice_range(x->dims[a], st[i], en[i], sp[i], &begin[i], &count[i]);
    dims[a] = count[i];
    en[i] = begin[i] + count[i] * sp[i];
    if (sp[i] < 0 && en[i] < 0) en[i] = -x->dims[a] - 1; /* runs to the front: numpy's "None" */
  }
  if (x->cval && x->ndim == 1 && small_known(x)) { /* a shape vector: folded */
    TvsNDArray *r = tvs_ndarray_empty(1, &count[0], x->dt);
    size_t eb = tvs_dtype_bytes(x->dt);
    for (int64_t i = 0; r && i < count[0]; i++)
      memcpy((char *)r->t.data + (size_t)i * eb, (char *)x->cval->t.data + (size_t)(begin[0] + i * sp[0]) * eb, eb);
    return r && ox_define_const(c, 0, r) ? 0 : -1;
  }
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "axes=");
  ox_ints_text(&sb, ax, n);
  sb_puts(&sb, ", begin=");
  ox_ints_text(&sb, begin, n);
  sb_puts(&sb, ", end=");
  ox_ints_text(&sb, en, n);
  sb_puts(&sb, ", strides=");
  ox_ints_text(&sb, sp, n);
  ox_emit(c, 0, x->dt, x->ndim, dims, x->sym, "R.strided_slice(%s, %s)", ox_ref(c, x), sb.data);
  sb_free(&sb);
  return 0;
}

/* Expand: broadcast_to the two-way broadcast of the input's shape and the given one. */
int ox_cv_expand(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal t = {0}, out = {0};
  t.name = (char *)"shape";
  t.ndim = ox_const_ints(c, in[1], "the shape input", t.dims, OX_MAX_NDIM);
  if (t.ndim < 0 || ox_broadcast(c, in[0], &t, &out)) return -1;
  StrBuf sb;
  sb_init(&sb);
  int rc = ox_shape_arg(c, &sb, out.ndim, out.dims, out.sym);
  if (!rc) ox_emit(c, 0, in[0]->dt, out.ndim, out.dims, out.sym, "R.broadcast_to(%s, %s)", ox_ref(c, in[0]), sb.data);
  sb_free(&sb);
  ox_shape_free(&out);
  return rc;
}

int ox_cv_tile(OxCtx *c, OxVal **in, int nin) {
  if (need(c, in, nin, 2)) return -1;
  OxVal *x = in[0];
  int64_t reps[OX_MAX_NDIM], dims[OX_MAX_NDIM];
  int n = ox_const_ints(c, in[1], "repeats", reps, OX_MAX_NDIM);
  if (n < 0) return -1;
  if (n != x->ndim) return ox_fail(c, "repeats has %d values for rank %d", n, x->ndim);
  for (int k = 0; k < n; k++) dims[k] = x->dims[k] < 0 ? -1 : x->dims[k] * reps[k];
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, reps, n);
  ox_emit(c, 0, x->dt, n, dims, x->sym, "R.tile(%s, repeats=%s)", ox_ref(c, x), sb.data);
  sb_free(&sb);
  return 0;
}
