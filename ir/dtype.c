/* dtype.c - dtype names and sizes. */
#include "ir/dtype.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const DType dt_bool = {DT_BOOL, 1, 1}, dt_int8 = {DT_INT, 8, 1}, dt_int16 = {DT_INT, 16, 1},
            dt_int32 = {DT_INT, 32, 1}, dt_int64 = {DT_INT, 64, 1}, dt_uint8 = {DT_UINT, 8, 1},
            dt_uint16 = {DT_UINT, 16, 1}, dt_uint32 = {DT_UINT, 32, 1},
            dt_uint64 = {DT_UINT, 64, 1}, dt_float16 = {DT_FLOAT, 16, 1},
            dt_bfloat16 = {DT_BFLOAT, 16, 1}, dt_float32 = {DT_FLOAT, 32, 1},
            dt_float64 = {DT_FLOAT, 64, 1}, dt_handle = {DT_HANDLE, 64, 1},
            dt_void = {DT_VOID, 0, 1};

size_t dt_bytes(DType t) {
  if (t.code == DT_BOOL) return t.lanes;
  return (size_t)((t.bits + 7) / 8) * t.lanes;
}

bool dt_parse(const char *s, DType *out) {
  static const struct { const char *prefix; DTypeCode code; } codes[] = {
      {"bfloat", DT_BFLOAT}, {"float", DT_FLOAT}, {"uint", DT_UINT}, {"int", DT_INT}};
  if (!s[0] || !strcmp(s, "void")) { *out = dt_void; return true; }
  if (!strcmp(s, "bool")) { *out = dt_bool; return true; }
  if (!strcmp(s, "handle")) { *out = dt_handle; return true; }
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    size_t n = strlen(codes[i].prefix);
    if (strncmp(s, codes[i].prefix, n) != 0) continue;
    const char *p = s + n;
    if (*p < '0' || *p > '9') return false;
    char *end;
    long bits = strtol(p, &end, 10);
    long lanes = 1;
    if (*end == 'x') {
      char *end2;
      if (end[1] < '0' || end[1] > '9') return false;
      lanes = strtol(end + 1, &end2, 10);
      end = end2;
    }
    if (*end) return false;
    DType t = {(uint8_t)codes[i].code, (uint8_t)bits, (uint16_t)lanes};
    bool ok;
    switch (codes[i].code) {
      /* sub-byte int4 / int1 / uint1 (TVM's packed types) are stored one byte per element */
      case DT_INT: case DT_UINT:
        ok = bits == 1 || bits == 4 || bits == 8 || bits == 16 || bits == 32 || bits == 64;
        break;
      case DT_FLOAT: ok = bits == 16 || bits == 32 || bits == 64; break;
      case DT_BFLOAT: ok = bits == 16; break;
      default: ok = false;
    }
    if (!ok || lanes < 1 || lanes > 1024) return false;
    *out = t;
    return true;
  }
  return false;
}

const char *dt_str(DType t, char *buf) {
  const char *base;
  switch ((DTypeCode)t.code) {
    case DT_INT: base = "int"; break;
    case DT_UINT: base = "uint"; break;
    case DT_FLOAT: base = "float"; break;
    case DT_BFLOAT: base = "bfloat"; break;
    case DT_BOOL: base = "bool"; break;
    case DT_HANDLE: strcpy(buf, "handle"); return buf;
    case DT_VOID: buf[0] = '\0'; return buf;
    default: strcpy(buf, "?"); return buf;
  }
  int n;
  if (t.code == DT_BOOL) n = snprintf(buf, DT_STR_MAX, "%s", base);
  else n = snprintf(buf, DT_STR_MAX, "%s%d", base, t.bits);
  if (t.lanes != 1) snprintf(buf + n, (size_t)(DT_STR_MAX - n), "x%d", t.lanes);
  return buf;
}

double dt_round_format(double x, int p, int emin, int emax) {
  if (!isfinite(x) || x == 0) return x;
  double ax = fabs(x);
  int e;
  (void)frexp(ax, &e);
  int E = e - 1;
  if (E < emin) E = emin;
  /* scaling by powers of two is exact in double for every narrower format */
  double r = ldexp(nearbyint(ldexp(ax, (p - 1) - E)), E - (p - 1));
  double maxv = ldexp(2.0 - ldexp(1.0, 1 - p), emax);
  if (r > maxv) r = INFINITY;
  return copysign(r, x);
}

double dt_round_float(DType t, double x) {
  if (t.code == DT_BFLOAT) return dt_round_format(x, 8, -126, 127);
  switch (t.bits) {
    case 16: return dt_round_format(x, 11, -14, 15);
    case 32:
      if (!(fabs(x) > FLT_MAX)) return (double)(float)x; /* NaN and in range */
      return dt_round_format(x, 24, -126, 127);
    default: return x;
  }
}

double dt_int_to_double(DType from, int64_t v) {
  bool neg = from.code == DT_INT && v < 0;
  uint64_t mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  double d;
  if (mag < (UINT64_C(1) << 53)) {
    d = (double)mag;
  } else {
    int sh = 64 - __builtin_clzll(mag) - 53;
    uint64_t m = mag >> sh;
    if (mag & ((UINT64_C(1) << sh) - 1)) m |= 1; /* sticky bit */
    d = ldexp((double)m, sh);
  }
  return neg ? -d : d;
}
