/* ndarray.c - host tensors: 64-byte aligned zeroed storage behind a DLTensor.
 *
 * One allocation holds the TvsNDArray header (with the shape storage); the
 * data lives in a second, aligned allocation.  Also the dtype names used by
 * the runtime (which must not depend on the compiler's ir/dtype.h). */
#include "runtime/ndarray.h"
#include "runtime/host_memory.h"

#include <stdio.h>
#include <math.h>
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
  /* whole blocks of the alignment; at least one, so that empty tensors
   * still have a valid, freeable pointer */
  size_t rounded = nbytes + (TVS_ALLOC_ALIGN - 1);
  if (rounded < nbytes) return NULL;
  rounded &= ~(size_t)(TVS_ALLOC_ALIGN - 1);
  if (rounded == 0) rounded = TVS_ALLOC_ALIGN;
  if (rounded > (size_t)PTRDIFF_MAX) return NULL;
  TvsNDArray *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  void *data = tvs_host_alloc(rounded, TVS_ALLOC_ALIGN);
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

double tvs_ndarray_get_f64(const DLTensor *t, int64_t i) {
  const char *p = (const char *)t->data + i * (int64_t)tvs_dtype_bytes(t->dtype);
  int bits = t->dtype.bits;
  switch (t->dtype.code) {
    case kDLFloat:
      if (bits == 32) return *(const float *)p;
      if (bits == 64) return *(const double *)p;
      {
        uint16_t h = *(const uint16_t *)p;
        int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
        return (h & 0x8000) ? -v : v;
      }
    case kDLBfloat: {
      uint32_t x = (uint32_t)*(const uint16_t *)p << 16;
      float f;
      memcpy(&f, &x, 4);
      return f;
    }
    case kDLInt:
      if (bits == 8) return *(const int8_t *)p;
      if (bits == 16) return *(const int16_t *)p;
      if (bits == 32) return *(const int32_t *)p;
      return (double)*(const int64_t *)p;
    case kDLUInt:
      if (bits == 8) return *(const uint8_t *)p;
      if (bits == 16) return *(const uint16_t *)p;
      if (bits == 32) return *(const uint32_t *)p;
      return (double)*(const uint64_t *)p;
    default: return *(const uint8_t *)p;
  }
}

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void tvs_ndarray_fill_random(DLTensor *t, uint64_t *rng_state) {
  static const uint16_t f16[] = {0xBC00, 0xB800, 0x0000, 0x3800, 0x3C00, 0x3400, 0xB400};
  int64_t n = tvs_ndarray_numel(t);
  size_t sz = tvs_dtype_bytes(t->dtype);
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = splitmix64(rng_state);
    double u = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    char *p = (char *)t->data + i * (int64_t)sz;
    if (t->dtype.code == kDLFloat && t->dtype.bits == 32) {
      *(float *)p = (float)u;
    } else if (t->dtype.code == kDLFloat && t->dtype.bits == 64) {
      *(double *)p = u;
    } else if (t->dtype.code == kDLFloat) {
      *(uint16_t *)p = f16[r % 7];
    } else if (t->dtype.code == kDLBfloat) {
      float f = (float)u;
      uint32_t x;
      memcpy(&x, &f, 4);
      *(uint16_t *)p = (uint16_t)(x >> 16);
    } else if (t->dtype.code == kDLInt || t->dtype.code == kDLUInt) {
      int64_t v = t->dtype.code == kDLUInt ? (int64_t)(r % 11) : (int64_t)(r % 11) - 5;
      memcpy(p, &v, sz); /* little-endian: the low bytes */
    } else {
      *(uint8_t *)p = (uint8_t)(r & 1);
    }
  }
}
