/* onnx_shape.c - the importer's static shapes and known values: axes,
 * broadcasting, inputs that must be constants, and the small element-wise
 * folding that shape computations (Shape -> Gather -> Add -> Concat) need. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_internal.h"

int ox_axis(OxCtx *c, int64_t axis, int rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= (rank ? rank : 1)) {
    ox_fail(c, "axis %lld is out of range for rank %d", (long long)axis, rank);
    return -1;
  }
  return (int)a;
}

int ox_broadcast(OxCtx *c, const OxVal *a, const OxVal *b, OxVal *out) {
  int n = a->ndim > b->ndim ? a->ndim : b->ndim;
  int64_t dims[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM] = {0};
  for (int k = 0; k < n; k++) {
    int ka = k - (n - a->ndim), kb = k - (n - b->ndim);
    int64_t da = ka >= 0 ? a->dims[ka] : 1, db = kb >= 0 ? b->dims[kb] : 1;
    char *sa = ka >= 0 ? a->sym[ka] : NULL, *sbn = kb >= 0 ? b->sym[kb] : NULL;
    if (da == 1) dims[k] = db, sym[k] = sbn;
    else if (db == 1 || (da == db && (!sa || (sbn && !strcmp(sa, sbn))))) dims[k] = da, sym[k] = sa;
    else if (da < 0 || db < 0) dims[k] = da < 0 ? db : da, sym[k] = da < 0 ? sbn : sa; /* assume they match */
    else return ox_fail(c, "shapes of '%s' and '%s' do not broadcast (dimension %d: %lld vs %lld)", a->name, b->name,
                        k, (long long)da, (long long)db);
  }
  ox_set_shape(out, n, dims, sym);
  return 0;
}

int ox_const_ints(OxCtx *c, const OxVal *v, const char *what, int64_t *out, int cap) {
  if (!v || !v->cval) return ox_fail(c, "%s must be known at import time (a constant or an initializer)", what);
  int64_t n = tvs_ndarray_numel(&v->cval->t);
  if (n > cap) return ox_fail(c, "%s has %lld values (at most %d)", what, (long long)n, cap);
  const DLTensor *t = &v->cval->t;
  for (int64_t i = 0; i < n; i++)
    out[i] = t->dtype.code == kDLInt && t->dtype.bits == 64 ? ((const int64_t *)t->data)[i]
                                                             : (int64_t)tvs_ndarray_get_f64(t, i);
  return (int)n;
}

bool ox_const_scalar(const OxVal *v, double *out) {
  if (!v || !v->cval || tvs_ndarray_numel(&v->cval->t) < 1) return false;
  *out = tvs_ndarray_get_f64(&v->cval->t, 0);
  return true;
}

static int64_t get_i64(const DLTensor *t, int64_t i) {
  if (t->dtype.code == kDLInt && t->dtype.bits == 64) return ((const int64_t *)t->data)[i];
  if (t->dtype.code == kDLInt && t->dtype.bits == 32) return ((const int32_t *)t->data)[i];
  return (int64_t)tvs_ndarray_get_f64(t, i);
}

static double apply_f(const char *op, double x, double y) {
  if (!strcmp(op, "Add")) return x + y;
  if (!strcmp(op, "Sub")) return x - y;
  if (!strcmp(op, "Mul")) return x * y;
  if (!strcmp(op, "Div")) return x / y;
  if (!strcmp(op, "Equal")) return x == y;
  if (!strcmp(op, "Less")) return x < y;
  if (!strcmp(op, "Greater")) return x > y;
  if (!strcmp(op, "Max")) return x > y ? x : y;
  if (!strcmp(op, "Min")) return x < y ? x : y;
  if (!strcmp(op, "FMod")) return fmod(x, y);
  return NAN;
}

static bool apply_i(const char *op, int64_t x, int64_t y, int64_t *r) {
  if (!strcmp(op, "Add")) *r = x + y;
  else if (!strcmp(op, "Sub")) *r = x - y;
  else if (!strcmp(op, "Mul")) *r = x * y;
  else if (!strcmp(op, "Div")) {
    if (y == 0) return false;
    *r = x / y; /* ONNX integer Div truncates, as C does */
  } else if (!strcmp(op, "Mod") || !strcmp(op, "FMod")) {
    if (y == 0 || (x == INT64_MIN && y == -1)) return false;
    *r = x % y; /* FMod (fmod=1): the dividend's sign, as C's % */
    if (!strcmp(op, "Mod") && *r != 0 && ((*r < 0) != (y < 0))) *r += y; /* Mod: the divisor's sign */
  } else if (!strcmp(op, "Equal")) *r = x == y;
  else if (!strcmp(op, "Less")) *r = x < y;
  else if (!strcmp(op, "Greater")) *r = x > y;
  else if (!strcmp(op, "Max")) *r = x > y ? x : y;
  else if (!strcmp(op, "Min")) *r = x < y ? x : y;
  else return false;
  return true;
}

static void set_elem(DLTensor *t, int64_t i, int64_t iv, double fv, bool is_int) {
  DLDataType dt = t->dtype;
  if (dt.code == kDLFloat && dt.bits == 32) ((float *)t->data)[i] = (float)(is_int ? (double)iv : fv);
  else if (dt.code == kDLFloat && dt.bits == 64) ((double *)t->data)[i] = is_int ? (double)iv : fv;
  else if (dt.code == kDLInt && dt.bits == 64) ((int64_t *)t->data)[i] = is_int ? iv : (int64_t)fv;
  else if (dt.code == kDLInt && dt.bits == 32) ((int32_t *)t->data)[i] = (int32_t)(is_int ? iv : (int64_t)fv);
  else if (dt.code == kDLBool) ((uint8_t *)t->data)[i] = (uint8_t)((is_int ? iv : (int64_t)fv) != 0);
}

static bool foldable_dtype(DLDataType dt) {
  return (dt.code == kDLFloat && dt.bits >= 32) || (dt.code == kDLInt && dt.bits >= 32) || dt.code == kDLBool;
}

TvsNDArray *ox_fold_binary(const char *op, const TvsNDArray *a, const TvsNDArray *b) {
  const DLTensor *x = &a->t, *y = &b->t;
  if (!foldable_dtype(x->dtype) || x->dtype.code != y->dtype.code || x->dtype.bits != y->dtype.bits) return NULL;
  int n = x->ndim > y->ndim ? x->ndim : y->ndim;
  int64_t shape[OX_MAX_NDIM];
  for (int k = 0; k < n; k++) {
    int64_t dx = k - (n - x->ndim) >= 0 ? x->shape[k - (n - x->ndim)] : 1;
    int64_t dy = k - (n - y->ndim) >= 0 ? y->shape[k - (n - y->ndim)] : 1;
    if (dx != dy && dx != 1 && dy != 1) return NULL;
    shape[k] = dx == 1 ? dy : dx;
  }
  bool cmp = !strcmp(op, "Equal") || !strcmp(op, "Less") || !strcmp(op, "Greater");
  TvsNDArray *r = tvs_ndarray_empty(n, shape, cmp ? (DLDataType){kDLBool, 8, 1} : x->dtype);
  if (!r) return NULL;
  bool is_int = x->dtype.code != kDLFloat;
  int64_t total = tvs_ndarray_numel(&r->t);
  for (int64_t i = 0; i < total; i++) {
    int64_t rem = i, ix = 0, iy = 0, sx = 1, sy = 1;
    for (int k = n - 1; k >= 0; k--) {
      int64_t idx = rem % shape[k];
      rem /= shape[k];
      int kx = k - (n - x->ndim), ky = k - (n - y->ndim);
      if (kx >= 0) ix += (x->shape[kx] == 1 ? 0 : idx) * sx, sx *= x->shape[kx];
      if (ky >= 0) iy += (y->shape[ky] == 1 ? 0 : idx) * sy, sy *= y->shape[ky];
    }
    int64_t iv = 0;
    if (is_int && !apply_i(op, get_i64(x, ix), get_i64(y, iy), &iv)) {
      tvs_ndarray_free(r);
      return NULL;
    }
    double fv = is_int ? 0 : apply_f(op, tvs_ndarray_get_f64(x, ix), tvs_ndarray_get_f64(y, iy));
    set_elem(&r->t, i, iv, fv, is_int);
  }
  return r;
}

bool ox_too_big(OxCtx *c, int ndim, const int64_t *dims) {
  int64_t n = 1;
  for (int k = 0; k < ndim; k++) {
    if (dims[k] < 0 || (dims[k] && n > ((int64_t)1 << 26) / dims[k])) {
      ox_fail(c, "a known value of more than 2^26 elements (or a negative size) is not supported");
      return true;
    }
    n *= dims[k];
  }
  return false;
}
