/* ndarray.c - host tensors: 64-byte aligned zeroed storage behind a DLTensor.
 *
 * One allocation holds the TvsNDArray header (with the shape storage); the
 * data lives in a second, aligned allocation.  Also the dtype names used by
 * the runtime (which must not depend on the compiler's ir/dtype.h). */
#include "runtime/ndarray.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TvsNDArray *tvs_ndarray_empty(int ndim, const int64_t *shape, DLDataType dtype) {
  if (ndim < 0 || ndim > TVS_MAX_NDIM) return NULL;
  size_t esz = tvs_dtype_bytes(dtype);
  if (esz == 0) return NULL;
  size_t count = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) return NULL;
    if (__builtin_mul_overflow(count, (size_t)shape[i], &count)) return NULL;
  }
  size_t nbytes;
  if (__builtin_mul_overflow(count, esz, &nbytes)) return NULL;
  /* aligned_alloc wants a multiple of the alignment; allocate at least one
   * block so that empty tensors still have a valid, freeable pointer. */
  size_t rounded = nbytes + (TVS_ALLOC_ALIGN - 1);
  if (rounded < nbytes) return NULL;
  rounded &= ~(size_t)(TVS_ALLOC_ALIGN - 1);
  if (rounded == 0) rounded = TVS_ALLOC_ALIGN;
  if (rounded > (size_t)PTRDIFF_MAX) return NULL;
  TvsNDArray *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  void *data = aligned_alloc(TVS_ALLOC_ALIGN, rounded);
  if (!data) {
    free(a);
    return NULL;
  }
  memset(data, 0, rounded);
  for (int i = 0; i < ndim; i++) a->shape[i] = shape[i];
  a->t.data = data;
  a->t.device.device_type = kDLCPU;
  a->t.device.device_id = 0;
  a->t.ndim = ndim;
  a->t.dtype = dtype;
  a->t.shape = a->shape;
  a->t.strides = NULL;
  a->t.byte_offset = 0;
  return a;
}

void tvs_ndarray_free(TvsNDArray *a) {
  if (!a) return;
  free(a->t.data);
  free(a);
}

int64_t tvs_ndarray_numel(const DLTensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
  return n;
}

size_t tvs_ndarray_nbytes(const DLTensor *t) {
  return (size_t)tvs_ndarray_numel(t) * tvs_dtype_bytes(t->dtype);
}

size_t tvs_dtype_bytes(DLDataType t) {
  if (t.code == kDLBool) return (size_t)(t.lanes ? t.lanes : 1);
  return (size_t)((t.bits + 7) / 8) * (t.lanes ? t.lanes : 1);
}

const char *tvs_dtype_str(DLDataType t, char *buf) {
  const char *base;
  switch (t.code) {
    case kDLInt: base = "int"; break;
    case kDLUInt: base = "uint"; break;
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    case kDLBool: base = "bool"; break;
    default:
      snprintf(buf, 24, "dtype(%u,%u,%u)", (unsigned)t.code, (unsigned)t.bits,
               (unsigned)t.lanes);
      return buf;
  }
  int n;
  if (t.code == kDLBool) n = snprintf(buf, 24, "%s", base);
  else n = snprintf(buf, 24, "%s%u", base, (unsigned)t.bits);
  if (t.lanes != 1 && n > 0 && n < 24) snprintf(buf + n, (size_t)(24 - n), "x%u", (unsigned)t.lanes);
  return buf;
}

bool tvs_dtype_parse(const char *s, DLDataType *out) {
  static const struct { const char *prefix; uint8_t code; } codes[] = {
      {"bfloat", kDLBfloat}, {"float", kDLFloat}, {"uint", kDLUInt}, {"int", kDLInt}};
  if (!s) return false;
  if (!strcmp(s, "bool")) {
    *out = (DLDataType){kDLBool, 8, 1};
    return true;
  }
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    size_t n = strlen(codes[i].prefix);
    if (strncmp(s, codes[i].prefix, n) != 0) continue;
    const char *p = s + n;
    if (*p < '0' || *p > '9') return false;
    char *end;
    long bits = strtol(p, &end, 10);
    long lanes = 1;
    if (*end == 'x') {
      if (end[1] < '0' || end[1] > '9') return false;
      lanes = strtol(end + 1, &end, 10);
    }
    if (*end) return false;
    bool ok;
    switch (codes[i].code) {
      case kDLInt: case kDLUInt: ok = bits == 8 || bits == 16 || bits == 32 || bits == 64; break;
      case kDLFloat: ok = bits == 16 || bits == 32 || bits == 64; break;
      default: ok = bits == 16; break; /* bfloat */
    }
    if (!ok || lanes < 1 || lanes > 1024) return false;
    *out = (DLDataType){codes[i].code, (uint8_t)bits, (uint16_t)lanes};
    return true;
  }
  return false;
}
