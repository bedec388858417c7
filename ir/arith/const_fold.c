/* const_fold.c - exact constant folding of IntImm / FloatImm operations.
 *
 * Integers are computed in uint64 and wrapped to the dtype's width (the
 * interpreter's semantics); `//` `%` are floor division, T.truncdiv/truncmod
 * C division; float results are rounded to the dtype's format (float16 and
 * bfloat16 to nearest even).  Division by zero is never folded. */
#include <math.h>
#include <string.h>

#include "ir/arith/arith_internal.h"

int64_t arith_wrap_int(DType t, uint64_t v) {
  if (t.code == DT_BOOL) return (int64_t)(v & 1);
  if (t.bits >= 64 || t.bits == 0) return (int64_t)v;
  uint64_t mask = (UINT64_C(1) << t.bits) - 1;
  v &= mask;
  if (t.code == DT_INT && (v >> (t.bits - 1)) & 1) v |= ~mask; /* sign-extend */
  return (int64_t)v;
}

/* ---------------------------------------------------------- int helpers */

uint64_t arith_uabs(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

uint64_t arith_ugcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int64_t arith_floordiv64(int64_t a, int64_t b) {
  if (b == -1) return a == INT64_MIN ? INT64_MIN : -a;
  int64_t q = a / b, m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) q -= 1;
  return q;
}

int64_t arith_floormod64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

int64_t arith_ceildiv64(int64_t a, int64_t b) {
  int64_t q = a / b, m = a % b;
  if (m > 0) q += 1;
  return q;
}

/* ---------------------------------------------------------------- folding */

static bool is_const(const TirExpr *e) {
  return e && (e->kind == TIR_INT || e->kind == TIR_FLOAT) && e->dtype.lanes == 1;
}

static TirExpr *fold_float(IrHeap *h, TirExprKind k, DType t, double x, double y) {
  double z;
  switch (k) {
    case TIR_ADD: z = x + y; break;
    case TIR_SUB: z = x - y; break;
    case TIR_MUL: z = x * y; break;
    case TIR_DIV: if (y == 0) return NULL; z = x / y; break;
    case TIR_MOD: if (y == 0) return NULL; z = fmod(x, y); break;
    case TIR_FLOORDIV: if (y == 0) return NULL; z = floor(x / y); break;
    case TIR_FLOORMOD: if (y == 0) return NULL; z = x - floor(x / y) * y; break;
    case TIR_MIN: z = x < y ? x : y; break;
    case TIR_MAX: z = x > y ? x : y; break;
    case TIR_EQ: return tir_bool(h, x == y);
    case TIR_NE: return tir_bool(h, x != y);
    case TIR_LT: return tir_bool(h, x < y);
    case TIR_LE: return tir_bool(h, x <= y);
    case TIR_GT: return tir_bool(h, x > y);
    case TIR_GE: return tir_bool(h, x >= y);
    default: return NULL;
  }
  return tir_float(h, t, dt_round_float(t, z));
}

TirExpr *arith_const_fold(IrHeap *h, TirExprKind k, const TirExpr *a, const TirExpr *b) {
  if (!is_const(a) || !is_const(b) || a->kind != b->kind || !dt_eq(a->dtype, b->dtype)) return NULL;
  DType t = a->dtype;
  if (a->kind == TIR_FLOAT) return fold_float(h, k, t, a->fval, b->fval);
  if (!dt_is_integer(t) && !dt_is_bool(t)) return NULL;
  bool sgn = t.code != DT_UINT;
  /* normalized operands: signed sign-extended, unsigned zero-extended */
  int64_t x = arith_wrap_int(t, (uint64_t)a->ival), y = arith_wrap_int(t, (uint64_t)b->ival);
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y, r;
  switch (k) {
    case TIR_ADD: r = ux + uy; break;
    case TIR_SUB: r = ux - uy; break;
    case TIR_MUL: r = ux * uy; break;
    case TIR_DIV: case TIR_MOD: case TIR_FLOORDIV: case TIR_FLOORMOD:
      if (uy == 0) return NULL;
      if (!sgn) {
        r = (k == TIR_DIV || k == TIR_FLOORDIV) ? ux / uy : ux % uy;
      } else if (x == INT64_MIN && y == -1) {
        r = (k == TIR_DIV || k == TIR_FLOORDIV) ? (uint64_t)INT64_MIN : 0;
      } else if (k == TIR_DIV) {
        r = (uint64_t)(x / y);
      } else if (k == TIR_MOD) {
        r = (uint64_t)(x % y);
      } else if (k == TIR_FLOORDIV) {
        r = (uint64_t)arith_floordiv64(x, y);
      } else {
        r = (uint64_t)arith_floormod64(x, y);
      }
      break;
    case TIR_MIN: r = sgn ? (uint64_t)(x < y ? x : y) : (ux < uy ? ux : uy); break;
    case TIR_MAX: r = sgn ? (uint64_t)(x > y ? x : y) : (ux > uy ? ux : uy); break;
    case TIR_EQ: return tir_bool(h, ux == uy);
    case TIR_NE: return tir_bool(h, ux != uy);
    case TIR_LT: return tir_bool(h, sgn ? x < y : ux < uy);
    case TIR_LE: return tir_bool(h, sgn ? x <= y : ux <= uy);
    case TIR_GT: return tir_bool(h, sgn ? x > y : ux > uy);
    case TIR_GE: return tir_bool(h, sgn ? x >= y : ux >= uy);
    case TIR_AND: return tir_bool(h, ux != 0 && uy != 0);
    case TIR_OR: return tir_bool(h, ux != 0 || uy != 0);
    default: return NULL;
  }
  return tir_int(h, t, arith_wrap_int(t, r));
}

/* Float -> integer: truncation, saturating at the target's range, NaN -> 0. */
static int64_t float_to_int(DType to, double x) {
  if (isnan(x)) return 0;
  double t = trunc(x);
  if (to.code == DT_INT) {
    double lim = ldexp(1.0, to.bits - 1);
    if (t < -lim) return to.bits >= 64 ? INT64_MIN : -(INT64_C(1) << (to.bits - 1));
    if (t >= lim) return to.bits >= 64 ? INT64_MAX : (INT64_C(1) << (to.bits - 1)) - 1;
    return (int64_t)t;
  }
  double lim = ldexp(1.0, to.bits);
  if (t <= 0) return 0;
  if (t >= lim) return to.bits >= 64 ? (int64_t)UINT64_MAX : (int64_t)((UINT64_C(1) << to.bits) - 1);
  return (int64_t)(uint64_t)t;
}

TirExpr *arith_const_fold_cast(IrHeap *h, DType t, const TirExpr *a) {
  if (!is_const(a) || t.lanes != 1) return NULL;
  DType from = a->dtype;
  if (a->kind == TIR_FLOAT) {
    double x = a->fval;
    if (t.code == DT_BOOL) return tir_bool(h, x != 0);
    if (dt_is_integer(t)) return tir_int(h, t, arith_wrap_int(t, (uint64_t)float_to_int(t, x)));
    if (dt_is_float(t)) return tir_float(h, t, dt_round_float(t, x));
    return NULL;
  }
  if (!dt_is_integer(from) && !dt_is_bool(from)) return NULL;
  int64_t v = arith_wrap_int(from, (uint64_t)a->ival);
  if (t.code == DT_BOOL) return tir_bool(h, v != 0);
  if (dt_is_integer(t)) return tir_int(h, t, arith_wrap_int(t, (uint64_t)v));
  if (dt_is_float(t)) {
    double d;
    if (t.code == DT_FLOAT && t.bits == 64)
      d = from.code == DT_UINT ? (double)(uint64_t)v : (double)v;
    else
      d = dt_round_float(t, dt_int_to_double(from, v));
    return tir_float(h, t, d);
  }
  return NULL;
}
