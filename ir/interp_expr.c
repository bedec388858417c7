/* interp_expr.c - the reference interpreter: values, dtype semantics, expressions.
 *
 * Integers wrap to their width (computed in uint64); floats round to their format
 * after every op (own RNE for float16/bfloat16).  Where C has UB we define: float->int
 * saturates (NaN -> 0); shifts by amounts outside [0, bits) give 0 (>>: sign fill). */
#include "ir/interp_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ------------------------------------------------------------- state */

int interp_error(Interp *in, Span sp, const char *fmt, ...) {
  if (!sp.file) sp = in->span.file ? in->span : in->fspan;
  va_list ap;
  va_start(ap, fmt);
  diag_report(in->diag, DIAG_ERROR, sp, fmt, ap);
  va_end(ap);
  return -1;
}

void interp_init(Interp *in, const IrModule *m, DiagCtx *diag, const char *fname, Span fspan) {
  memset(in, 0, sizeof *in);
  in->mod = m;
  in->diag = diag;
  in->fname = fname;
  in->fspan = fspan;
  in->span = span_none;
}

IMark interp_mark(const Interp *in) { return (IMark){in->nvars, in->nstores, in->nviews}; }

void interp_pop(Interp *in, IMark m) {
  while (in->nvars > m.nvars) free(in->vars[--in->nvars].vec);
  while (in->nstores > m.nstores) {
    IStorage *s = &in->stores[--in->nstores];
    if (s->owned) free(s->data);
  }
  if (in->nviews > m.nviews) in->nviews = m.nviews;
}

void interp_cleanup(Interp *in) {
  interp_pop(in, (IMark){0, 0, 0});
  free(in->vars);
  free(in->stores);
  free(in->views);
  in->vars = NULL;
  in->stores = NULL;
  in->views = NULL;
  in->capvars = in->capstores = in->capviews = 0;
}

IBinding *interp_lookup(Interp *in, const TirVar *v) {
  for (int i = in->nvars - 1; i >= 0; i--)
    if (in->vars[i].var == v) return &in->vars[i];
  return NULL;
}

static IBinding *push_binding(Interp *in, const TirVar *v) {
  VEC_RESERVE(in->vars, in->capvars, in->nvars + 1);
  IBinding *b = &in->vars[in->nvars++];
  memset(b, 0, sizeof *b);
  b->var = v;
  return b;
}

void interp_bind(Interp *in, const TirVar *v, const IVal *val) {
  IBinding *b = push_binding(in, v);
  b->t = val->t;
  if (val->t.lanes > 1) {
    b->vec = xmalloc((size_t)val->t.lanes * sizeof *b->vec);
    memcpy(b->vec, val->v, (size_t)val->t.lanes * sizeof *b->vec);
  } else {
    b->s = val->v[0];
  }
}

void interp_bind_int(Interp *in, const TirVar *v, int64_t x) {
  IBinding *b = push_binding(in, v);
  b->t = dt_element(v->dtype);
  if (!dt_is_integer(b->t) && !dt_is_bool(b->t)) b->t = dt_int64;
  b->s = interp_normalize_int(b->t, (uint64_t)x);
}

int interp_push_storage(Interp *in, const TirVar *var, void *data, size_t nbytes, bool owned) {
  VEC_RESERVE(in->stores, in->capstores, in->nstores + 1);
  in->stores[in->nstores] = (IStorage){var, data, nbytes, owned};
  return in->nstores++;
}

int interp_find_storage(const Interp *in, const TirVar *var) {
  for (int i = in->nstores - 1; i >= 0; i--)
    if (in->stores[i].var == var) return i;
  return -1;
}

int interp_push_view(Interp *in, const IView *v) {
  VEC_RESERVE(in->views, in->capviews, in->nviews + 1);
  in->views[in->nviews] = *v;
  return in->nviews++;
}

/* ----------------------------------------------------- scalar semantics */

IScalar interp_normalize_int(DType t, uint64_t u) {
  IScalar r;
  if (t.code == DT_BOOL) {
    r.i = (int64_t)(u & 1);
  } else if (t.bits >= 64 || t.bits == 0) {
    r.u = u;
  } else if (t.code == DT_INT) {
    unsigned sh = 64u - t.bits;
    r.i = (int64_t)(u << sh) >> sh; /* arithmetic shift (GCC/Clang defined) */
  } else {
    r.u = u & ((UINT64_C(1) << t.bits) - 1);
  }
  return r;
}

uint16_t interp_f16_bits(double x) {
  double v = dt_round_format(x, 11, -14, 15);
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  if (isnan(v)) return sign | 0x7e00;
  double a = fabs(v);
  if (isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int e;
  (void)frexp(a, &e);
  int E = e - 1;
  if (E < -14) return sign | (uint16_t)ldexp(a, 24); /* subnormal: multiple of 2^-24 */
  uint16_t mant = (uint16_t)(ldexp(a, 10 - E) - 1024.0);
  return (uint16_t)(sign | (uint16_t)((E + 15) << 10) | mant);
}

double interp_f16_value(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v;
  if (exp == 0) v = ldexp(mant, -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = ldexp(mant + 1024, exp - 25);
  return sign ? -v : v;
}

uint16_t interp_bf16_bits(double x) {
  double v = dt_round_format(x, 8, -126, 127);
  if (isnan(v)) return signbit(v) ? 0xffc0 : 0x7fc0;
  float f = (float)v; /* exact: every bfloat16 value is a float32 value */
  uint32_t b;
  memcpy(&b, &f, 4);
  return (uint16_t)(b >> 16);
}

double interp_bf16_value(uint16_t h) {
  uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

IScalar interp_read_elem(DType t, const void *p) {
  IScalar r;
  r.u = 0;
  switch (t.code) {
    case DT_BOOL: r.i = *(const unsigned char *)p != 0; break;
    case DT_INT: case DT_UINT: {
      uint64_t u = 0;
      switch (t.bits) {
        case 8: { uint8_t x; memcpy(&x, p, 1); u = x; break; }
        case 16: { uint16_t x; memcpy(&x, p, 2); u = x; break; }
        case 32: { uint32_t x; memcpy(&x, p, 4); u = x; break; }
        default: memcpy(&u, p, 8); break;
      }
      r = interp_normalize_int(t, u);
      break;
    }
    case DT_FLOAT:
      if (t.bits == 16) { uint16_t h; memcpy(&h, p, 2); r.f = interp_f16_value(h); }
      else if (t.bits == 32) { float f; memcpy(&f, p, 4); r.f = f; }
      else memcpy(&r.f, p, 8);
      break;
    case DT_BFLOAT: { uint16_t h; memcpy(&h, p, 2); r.f = interp_bf16_value(h); break; }
    default: memcpy(&r.u, p, 8); break; /* handle */
  }
  return r;
}

void interp_write_elem(DType t, void *p, IScalar v) {
  switch (t.code) {
    case DT_BOOL: *(unsigned char *)p = v.i != 0; break;
    case DT_INT: case DT_UINT:
      switch (t.bits) {
        case 8: { uint8_t x = (uint8_t)v.u; memcpy(p, &x, 1); break; }
        case 16: { uint16_t x = (uint16_t)v.u; memcpy(p, &x, 2); break; }
        case 32: { uint32_t x = (uint32_t)v.u; memcpy(p, &x, 4); break; }
        default: memcpy(p, &v.u, 8); break;
      }
      break;
    case DT_FLOAT:
      if (t.bits == 16) { uint16_t h = interp_f16_bits(v.f); memcpy(p, &h, 2); }
      else if (t.bits == 32) { float f = (float)dt_round_float(t, v.f); memcpy(p, &f, 4); }
      else memcpy(p, &v.f, 8);
      break;
    case DT_BFLOAT: { uint16_t h = interp_bf16_bits(v.f); memcpy(p, &h, 2); break; }
    default: memcpy(p, &v.u, 8); break;
  }
}

/* Float -> integer: truncation toward zero.  C leaves out-of-range values
 * undefined; we saturate to the target's range and map NaN to 0 (the
 * semantics of LLVM's fptosi.sat / Rust `as`). */
static IScalar float_to_int(DType to, double x) {
  IScalar r;
  r.u = 0;
  if (isnan(x)) return r;
  double t = trunc(x);
  if (to.code == DT_INT) {
    double lim = ldexp(1.0, to.bits - 1);
    if (t < -lim) r.i = to.bits >= 64 ? INT64_MIN : -(INT64_C(1) << (to.bits - 1));
    else if (t >= lim) r.i = to.bits >= 64 ? INT64_MAX : (INT64_C(1) << (to.bits - 1)) - 1;
    else r.i = (int64_t)t;
  } else {
    double lim = ldexp(1.0, to.bits);
    if (t <= 0) r.u = 0;
    else if (t >= lim) r.u = to.bits >= 64 ? UINT64_MAX : (UINT64_C(1) << to.bits) - 1;
    else r.u = (uint64_t)t;
  }
  return r;
}

IScalar interp_cast_scalar(DType from, IScalar v, DType to) {
  from = dt_element(from);
  to = dt_element(to);
  IScalar r;
  r.u = 0;
  bool from_f = dt_is_float(from);
  if (to.code == DT_BOOL) {
    r.i = from_f ? (v.f != 0) : (v.u != 0);
  } else if (dt_is_integer(to)) {
    r = from_f ? float_to_int(to, v.f) : interp_normalize_int(to, v.u);
  } else if (dt_is_float(to)) {
    if (from_f) r.f = dt_round_float(to, v.f);
    else if (to.bits == 64 && to.code == DT_FLOAT)
      r.f = from.code == DT_UINT ? (double)v.u : (double)v.i;
    else if (to.bits == 32 && to.code == DT_FLOAT)
      r.f = from.code == DT_UINT ? (double)(float)v.u : (double)(float)v.i;
    else
      r.f = dt_round_float(to, dt_int_to_double(from, v.i));
  } else {
    r = v; /* handle / void: keep the bits */
  }
  return r;
}

static bool int_is_signed(DType t) { return t.code == DT_INT || t.code == DT_BOOL; }

/* Shifts with amounts outside [0, bits): << gives 0, >> gives 0 or the sign fill. */
static IScalar shift_left(DType t, IScalar a, IScalar s, DType st) {
  int64_t amt = int_is_signed(st) ? s.i : (s.u > 64 ? 64 : (int64_t)s.u);
  int bits = t.code == DT_BOOL ? 1 : t.bits;
  if (amt < 0 || amt >= bits) return interp_normalize_int(t, 0);
  return interp_normalize_int(t, a.u << amt);
}

static IScalar shift_right(DType t, IScalar a, IScalar s, DType st) {
  int64_t amt = int_is_signed(st) ? s.i : (s.u > 64 ? 64 : (int64_t)s.u);
  int bits = t.code == DT_BOOL ? 1 : t.bits;
  IScalar r;
  if (amt < 0 || amt >= bits) {
    r.i = (t.code == DT_INT && a.i < 0) ? -1 : 0;
    return interp_normalize_int(t, r.u);
  }
  if (t.code == DT_INT) r.i = a.i >> amt; /* arithmetic shift of a sign-extended value */
  else r.u = a.u >> amt;
  return interp_normalize_int(t, r.u);
}

int interp_binop(Interp *in, TirExprKind op, DType t, IScalar a, IScalar b, IScalar *out,
                 Span sp) {
  t = dt_element(t);
  IScalar r;
  r.u = 0;
  if (dt_is_float(t)) {
    double x = a.f, y = b.f, z;
    switch (op) {
      case TIR_ADD: z = x + y; break;
      case TIR_SUB: z = x - y; break;
      case TIR_MUL: z = x * y; break;
      case TIR_DIV: z = x / y; break;
      case TIR_MOD: z = fmod(x, y); break;
      case TIR_FLOORDIV: z = floor(x / y); break;
      case TIR_FLOORMOD: z = x - floor(x / y) * y; break;
      case TIR_MIN: z = x < y ? x : y; break; /* select(a < b, a, b), as codegen emits */
      case TIR_MAX: z = x > y ? x : y; break;
      case TIR_EQ: r.i = x == y; *out = r; return 0;
      case TIR_NE: r.i = x != y; *out = r; return 0;
      case TIR_LT: r.i = x < y; *out = r; return 0;
      case TIR_LE: r.i = x <= y; *out = r; return 0;
      case TIR_GT: r.i = x > y; *out = r; return 0;
      case TIR_GE: r.i = x >= y; *out = r; return 0;
      case TIR_AND: r.i = x != 0 && y != 0; *out = r; return 0;
      case TIR_OR: r.i = x != 0 || y != 0; *out = r; return 0;
      default: return interp_error(in, sp, "operator %s is not defined on floats",
                                   tir_expr_kind_name(op));
    }
    /* FloorDiv/FloorMod of floats round the quotient first, as the lowered code does. */
    r.f = dt_round_float(t, z);
    *out = r;
    return 0;
  }
  if (!dt_is_integer(t) && !dt_is_bool(t))
    return interp_error(in, sp, "operator %s is not defined on this dtype", tir_expr_kind_name(op));
  bool sgn = int_is_signed(t);
  switch (op) {
    case TIR_ADD: r.u = a.u + b.u; break;
    case TIR_SUB: r.u = a.u - b.u; break;
    case TIR_MUL: r.u = a.u * b.u; break;
    case TIR_DIV: case TIR_MOD: case TIR_FLOORDIV: case TIR_FLOORMOD:
      if (b.u == 0) return interp_error(in, sp, "division by zero");
      if (!sgn) {
        r.u = (op == TIR_DIV || op == TIR_FLOORDIV) ? a.u / b.u : a.u % b.u;
      } else if (a.i == INT64_MIN && b.i == -1) {
        /* only reachable for int64: the quotient wraps, the remainder is 0 */
        r.u = (op == TIR_DIV || op == TIR_FLOORDIV) ? (uint64_t)INT64_MIN : 0;
      } else {
        int64_t q = a.i / b.i, m = a.i % b.i;
        if (op == TIR_FLOORDIV || op == TIR_FLOORMOD) {
          if (m != 0 && ((m < 0) != (b.i < 0))) {
            q -= 1;
            m += b.i;
          }
        }
        r.i = (op == TIR_DIV || op == TIR_FLOORDIV) ? q : m;
      }
      break;
    case TIR_MIN: r = sgn ? (a.i < b.i ? a : b) : (a.u < b.u ? a : b); break;
    case TIR_MAX: r = sgn ? (a.i > b.i ? a : b) : (a.u > b.u ? a : b); break;
    case TIR_EQ: r.i = a.u == b.u; *out = r; return 0;
    case TIR_NE: r.i = a.u != b.u; *out = r; return 0;
    case TIR_LT: r.i = sgn ? a.i < b.i : a.u < b.u; *out = r; return 0;
    case TIR_LE: r.i = sgn ? a.i <= b.i : a.u <= b.u; *out = r; return 0;
    case TIR_GT: r.i = sgn ? a.i > b.i : a.u > b.u; *out = r; return 0;
    case TIR_GE: r.i = sgn ? a.i >= b.i : a.u >= b.u; *out = r; return 0;
    case TIR_AND: r.i = a.u != 0 && b.u != 0; *out = r; return 0;
    case TIR_OR: r.i = a.u != 0 || b.u != 0; *out = r; return 0;
    default: return interp_error(in, sp, "operator %s is not defined on integers",
                                 tir_expr_kind_name(op));
  }
  *out = interp_normalize_int(t, r.u);
  return 0;
}

/* ----------------------------------------------------------- buffers */

int interp_make_view(Interp *in, const TirBuffer *b, int st, IView *v) {
  memset(v, 0, sizeof *v);
  v->buf = b;
  v->storage = st;
  if (b->ndim > INTERP_MAX_DIMS || b->ndim < 0)
    return interp_error(in, b->span, "buffer '%s' has %d dimensions; the interpreter supports %d",
                        b->name, b->ndim, INTERP_MAX_DIMS);
  v->ndim = b->ndim;
  v->esz = dt_bytes(b->dtype);
  for (int i = 0; i < b->ndim; i++) {
    if (interp_eval_int(in, b->shape[i], &v->shape[i])) return -1;
    if (v->shape[i] < 0)
      return interp_error(in, b->span, "buffer '%s' has a negative extent %lld in dimension %d",
                          b->name, (long long)v->shape[i], i);
  }
  if (b->nstrides == b->ndim && b->strides) {
    for (int i = 0; i < b->ndim; i++)
      if (interp_eval_int(in, b->strides[i], &v->strides[i])) return -1;
  } else {
    int64_t s = 1;
    for (int i = b->ndim - 1; i >= 0; i--) {
      v->strides[i] = s;
      if (__builtin_mul_overflow(s, v->shape[i] ? v->shape[i] : 1, &s))
        return interp_error(in, b->span, "the size of buffer '%s' overflows", b->name);
    }
  }
  v->elem_offset = 0;
  if (b->elem_offset && interp_eval_int(in, b->elem_offset, &v->elem_offset)) return -1;
  return 0;
}

int interp_view(Interp *in, const TirBuffer *b, IView **out) {
  for (int i = in->nviews - 1; i >= 0; i--)
    if (in->views[i].buf == b) {
      *out = &in->views[i];
      return 0;
    }
  int st = interp_find_storage(in, b->data);
  if (st < 0)
    return interp_error(in, span_none, "buffer '%s' is used outside the scope that allocates it",
                        b->name);
  IView v;
  if (interp_make_view(in, b, st, &v)) return -1;
  int k = interp_push_view(in, &v); /* may move in->views: index after the push */
  *out = &in->views[k];
  return 0;
}

static void fmt_index(StrBuf *sb, const int64_t *idx, int n) {
  sb_putc(sb, '[');
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%lld", i ? ", " : "", (long long)idx[i]);
  sb_putc(sb, ']');
}

static void fmt_shape(StrBuf *sb, const int64_t *shape, int n) {
  sb_putc(sb, '(');
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (n == 1) sb_putc(sb, ',');
  sb_putc(sb, ')');
}

int interp_flat_index(Interp *in, const IView *v, const int64_t *idx, int n, bool store,
                      Span sp, int64_t *off) {
  const char *what = store ? "store to" : "load from";
  if (n != v->ndim)
    return interp_error(in, sp, "%s buffer '%s' with %d indices, but it has %d dimensions",
                        store ? "store to" : "load from", v->buf->name, n, v->ndim);
  int64_t o = v->elem_offset;
  bool ovf = false;
  for (int i = 0; i < n; i++) {
    if (idx[i] < 0 || idx[i] >= v->shape[i]) {
      StrBuf sb;
      sb_init(&sb);
      fmt_index(&sb, idx, n);
      sb_puts(&sb, " outside shape ");
      fmt_shape(&sb, v->shape, n);
      interp_error(in, sp, "out-of-bounds %s buffer '%s': index %s", what, v->buf->name, sb.data);
      sb_free(&sb);
      return -1;
    }
    int64_t t;
    ovf |= __builtin_mul_overflow(idx[i], v->strides[i], &t);
    ovf |= __builtin_add_overflow(o, t, &o);
  }
  const IStorage *s = &in->stores[v->storage];
  size_t cap = v->esz ? s->nbytes / v->esz : 0;
  if (ovf || o < 0 || (uint64_t)o >= cap) {
    StrBuf sb;
    sb_init(&sb);
    fmt_index(&sb, idx, n);
    interp_error(in, sp,
                 "out-of-bounds %s buffer '%s': index %s is element %lld of a storage of %zu "
                 "elements",
                 what, v->buf->name, sb.data, ovf ? -1LL : (long long)o, cap);
    sb_free(&sb);
    return -1;
  }
  *off = o;
  return 0;
}

/* Evaluates n index expressions into idx[n * lanes] (lane-major per dim). */
static int eval_indices(Interp *in, TirExpr **exprs, int n, int lanes, int64_t *idx) {
  IVal *t = xmalloc(sizeof *t);
  int rc = 0;
  for (int d = 0; d < n && rc == 0; d++) {
    if (interp_eval(in, exprs[d], t)) {
      rc = -1;
      break;
    }
    if (!dt_is_integer(t->t) && !dt_is_bool(t->t)) {
      rc = interp_error(in, exprs[d]->span, "buffer index is not an integer");
      break;
    }
    for (int l = 0; l < lanes; l++) {
      IScalar s = t->v[t->t.lanes > 1 ? l : 0];
      idx[(size_t)l * (size_t)n + (size_t)d] =
          (t->t.code == DT_UINT && s.u > (uint64_t)INT64_MAX) ? INT64_MAX : s.i;
    }
  }
  free(t);
  return rc;
}

/* Scalar index fast path: no allocation. */
static int eval_index_scalar(Interp *in, TirExpr **exprs, int n, int64_t *idx) {
  IVal t;
  for (int d = 0; d < n; d++) {
    if (interp_eval(in, exprs[d], &t)) return -1;
    if (!dt_is_integer(t.t) && !dt_is_bool(t.t))
      return interp_error(in, exprs[d]->span, "buffer index is not an integer");
    if (t.t.lanes != 1)
      return interp_error(in, exprs[d]->span, "vector index in a scalar buffer access");
    idx[d] = (t.t.code == DT_UINT && t.v[0].u > (uint64_t)INT64_MAX) ? INT64_MAX : t.v[0].i;
  }
  return 0;
}

/* Reads (store == false) or writes lanes of buffer b at the given indices. */
static int access(Interp *in, const TirBuffer *b, TirExpr **exprs, int n, IVal *val, bool store,
                  Span sp) {
  IView *v;
  if (interp_view(in, b, &v)) return -1;
  /* keep the index: evaluating the indices may push views and move the array */
  size_t vi = (size_t)(v - in->views);
  if (n > INTERP_MAX_DIMS) return interp_error(in, sp, "too many indices");
  int lanes = val->t.lanes;
  DType et = dt_element(b->dtype);
  if (b->dtype.lanes != 1)
    return interp_error(in, sp, "buffers of vector dtype are not supported by the interpreter");
  int64_t small[INTERP_MAX_DIMS];
  int64_t *idx = small;
  if (lanes == 1) {
    if (eval_index_scalar(in, exprs, n, small)) return -1;
  } else {
    idx = xmalloc((size_t)lanes * (size_t)(n ? n : 1) * sizeof *idx);
    if (eval_indices(in, exprs, n, lanes, idx)) {
      free(idx);
      return -1;
    }
  }
  v = &in->views[vi];
  for (int l = 0; l < lanes; l++) {
    int64_t off;
    if (interp_flat_index(in, v, idx + (size_t)l * (size_t)n, n, store, sp, &off)) goto fail;
    unsigned char *p = in->stores[v->storage].data + (size_t)off * v->esz;
    if (in->race && interp_race_access(in, b, p, off, store, sp)) goto fail;
    if (store) interp_write_elem(et, p, val->v[l]);
    else val->v[l] = interp_read_elem(et, p);
  }
  if (idx != small) free(idx);
  return 0;
fail:
  if (idx != small) free(idx);
  return -1;
}

int interp_store(Interp *in, const TirStmt *s, IVal *val) {
  return access(in, s->store.buf, s->store.idx, s->store.n, val, true, s->span);
}

/* --------------------------------------------------------- expressions */

int interp_eval_int(Interp *in, const TirExpr *e, int64_t *out) {
  if (e->kind == TIR_INT) {
    *out = e->ival;
    return 0;
  }
  IVal v;
  if (interp_eval(in, e, &v)) return -1;
  if ((!dt_is_integer(v.t) && !dt_is_bool(v.t)) || v.t.lanes != 1)
    return interp_error(in, e->span, "expected a scalar integer expression");
  *out = (v.t.code == DT_UINT && v.v[0].u > (uint64_t)INT64_MAX) ? INT64_MAX : v.v[0].i;
  return 0;
}

/* The interpreter formula of a float math op (tir_ops.def): x and y are
 * its double operands (y unused by one-operand ops); NAN for other ops. */
static double math_formula(TirOpId op, double x, double y) {
  switch (op) {
#define X(E, S, T, N, K, L, M, C, I) \
  case TIR_OP_##E: return C;
#include "ir/tir_ops.def"
#undef X
    default: return NAN;
  }
}

static double lane_as_double(DType t, IScalar s) {
  if (dt_is_float(t)) return s.f;
  if (t.code == DT_UINT) return (double)s.u;
  return (double)s.i;
}

/* Broadcasts a scalar operand to `lanes`; errors on mismatched vector widths. */
static int lane_count(Interp *in, const TirExpr *e, int a, int b, int *lanes) {
  if (a != b && a != 1 && b != 1)
    return interp_error(in, e->span, "vector lanes mismatch (%d vs %d) in %s", a, b,
                        tir_expr_kind_name(e->kind));
  *lanes = a > b ? a : b;
  return 0;
}

/* The SPECIAL ops: returns 0 or -1 like interp_eval, or 1 for other ops. */
static int eval_call_special(Interp *in, const TirExpr *e, IVal *out) {
  const TirOpInfo *op = e->call.op;
  DType rt = e->dtype;
  int n = e->call.n;
  switch (op->id) {
    case TIR_OP_CALL_EXTERN: case TIR_OP_CALL_PURE_EXTERN: {
      const char *fn = n > 0 && e->call.args[0]->kind == TIR_STR ? e->call.args[0]->str : "?";
      if (!strcmp(fn, "tvm_storage_sync")) { /* a GPU barrier: threads run one by one here */
        interp_race_sync(in);
        out->t = rt;
        out->v[0].i = 0;
        return 0;
      }
      return interp_error(in, e->span, "%s '%s' cannot run in the interpreter", op->name, fn);
    }
    case TIR_OP_RET: { /* the function's value; the rest of its body is skipped */
      if (interp_eval(in, e->call.args[0], out)) return -1;
      if (in->ret) *in->ret = *out;
      in->returned = true;
      return 0;
    }
    case TIR_OP_CALL_GLOBAL:
      return interp_call_global(in, e, out);
    case TIR_OP_OPAQUE: {
      const char *fn = n > 0 && e->call.args[0]->kind == TIR_STR ? e->call.args[0]->str : "?";
      return interp_error(in, e->span, "T.%s cannot run in the interpreter (a builtin TVS keeps opaque)", fn);
    }
    case TIR_OP_LIKELY:
      return interp_eval(in, e->call.args[0], out);
    case TIR_OP_ASSUME:
      out->t = dt_bool;
      out->v[0].i = 1;
      return 0;
    case TIR_OP_IF_THEN_ELSE: {
      IVal *c = xmalloc(sizeof *c);
      int rc = interp_eval(in, e->call.args[0], c);
      if (rc == 0 && c->t.lanes == 1) {
        rc = interp_eval(in, e->call.args[c->v[0].u != 0 ? 1 : 2], out);
      } else if (rc == 0) {
        /* vector condition: evaluate both arms and pick per lane */
        IVal *f = xmalloc(sizeof *f);
        rc = interp_eval(in, e->call.args[1], out);
        if (rc == 0) rc = interp_eval(in, e->call.args[2], f);
        if (rc == 0) {
          int lanes = c->t.lanes;
          if (out->t.lanes != lanes || f->t.lanes != lanes)
            rc = interp_error(in, e->span, "vector lanes mismatch in if_then_else");
          for (int l = 0; rc == 0 && l < lanes; l++)
            if (!c->v[l].u) out->v[l] = f->v[l];
        }
        free(f);
      }
      free(c);
      return rc;
    }
    case TIR_OP_REINTERPRET: {
      IVal *a = xmalloc(sizeof *a);
      int rc = interp_eval(in, e->call.args[0], a);
      if (rc == 0 && dt_bytes(dt_element(a->t)) != dt_bytes(dt_element(rt)))
        rc = interp_error(in, e->span, "T.reinterpret between types of different sizes");
      if (rc == 0) {
        out->t = dt_with_lanes(rt, a->t.lanes);
        for (int l = 0; l < a->t.lanes; l++) {
          unsigned char buf[8] = {0};
          interp_write_elem(dt_element(a->t), buf, a->v[l]);
          out->v[l] = interp_read_elem(dt_element(rt), buf);
        }
      }
      free(a);
      return rc;
    }
    default: return 1;
  }
}

/* One lane of an INT_BIT op (integer or bool operands x, y). */
static IScalar int_bit_lane(TirOpId op, DType at, DType bt, DType et, IScalar x, IScalar y) {
  IScalar r;
  r.u = 0;
  switch (op) {
    case TIR_OP_BITWISE_AND: r.u = x.u & y.u; break;
    case TIR_OP_BITWISE_OR: r.u = x.u | y.u; break;
    case TIR_OP_BITWISE_XOR: r.u = x.u ^ y.u; break;
    case TIR_OP_BITWISE_NOT: r.u = ~x.u; break;
    case TIR_OP_SHIFT_LEFT: r = shift_left(at, x, y, bt); break;
    case TIR_OP_SHIFT_RIGHT: r = shift_right(at, x, y, bt); break;
    case TIR_OP_POPCOUNT: {
      IScalar m = interp_normalize_int(dt_with_lanes(dt_uint64, 1), x.u);
      if (at.bits < 64) m.u &= (UINT64_C(1) << at.bits) - 1;
      r.u = (uint64_t)__builtin_popcountll(m.u);
      break;
    }
    default: break;
  }
  return dt_is_integer(et) || dt_is_bool(et) ? interp_normalize_int(et, r.u) : interp_cast_scalar(dt_int64, r, et);
}

/* One lane of a PURE op: classification, exact integer rounding, or the
 * op's formula in double. */
static IScalar pure_lane(const TirOpInfo *op, DType at, DType bt, DType et, IScalar x, IScalar y) {
  IScalar r;
  r.u = 0;
  double dx = lane_as_double(at, x), dy = lane_as_double(bt, y);
  if (op->id == TIR_OP_ISNAN || op->id == TIR_OP_ISINF || op->id == TIR_OP_ISFINITE) {
    r.i = op->id == TIR_OP_ISNAN ? isnan(dx) : op->id == TIR_OP_ISINF ? isinf(dx) != 0
                                                                      : isfinite(dx) != 0;
    return interp_cast_scalar(dt_bool, r, et);
  }
  if (!dt_is_float(at) && op->int_exact && dt_is_integer(et)) {
    /* integer operands: exact (fabs wraps like negation) */
    if (op->id == TIR_OP_FABS && at.code == DT_INT && x.i < 0) r.u = (uint64_t)0 - x.u;
    else r = x;
    return interp_normalize_int(et, r.u);
  }
  double z = math_formula(op->id, dx, dy);
  r.f = z;
  return interp_cast_scalar(dt_float64, r, et);
}

static int eval_call(Interp *in, const TirExpr *e, IVal *out) {
  const TirOpInfo *op = e->call.op;
  DType rt = e->dtype;
  int n = e->call.n;
  if (op->nargs >= 0 && n != op->nargs)
    return interp_error(in, e->span, "T.%s takes %d arguments but %d were given", op->name,
                        op->nargs, n);
  int special = eval_call_special(in, e, out);
  if (special <= 0) return special;
  /* PURE and INT_BIT ops: evaluate every argument (at most 2) lane-wise. */
  if (n < 1 || n > 2) return interp_error(in, e->span, "T.%s: bad argument count", op->name);
  IVal *a = xmalloc(2 * sizeof *a);
  IVal *b = a + 1;
  int rc = interp_eval(in, e->call.args[0], a);
  if (rc == 0 && n == 2) rc = interp_eval(in, e->call.args[1], b);
  int lanes = a->t.lanes;
  if (rc == 0 && n == 2) rc = lane_count(in, e, a->t.lanes, b->t.lanes, &lanes);
  if (rc) {
    free(a);
    return -1;
  }
  DType at = dt_element(a->t), bt = n == 2 ? dt_element(b->t) : at;
  DType et = dt_element(rt);
  out->t = dt_with_lanes(et, lanes);
  for (int l = 0; l < lanes && rc == 0; l++) {
    IScalar x = a->v[a->t.lanes > 1 ? l : 0];
    IScalar y = n == 2 ? b->v[b->t.lanes > 1 ? l : 0] : x;
    if (op->kind != TIR_OPK_INT_BIT) out->v[l] = pure_lane(op, at, bt, et, x, y);
    else if (!dt_is_integer(at) && !dt_is_bool(at))
      rc = interp_error(in, e->span, "T.%s needs integer operands", op->name);
    else out->v[l] = int_bit_lane(op->id, at, bt, et, x, y);
  }
  free(a);
  return rc;
}

/* IntImm / FloatImm, rounded or wrapped to their dtype. */
static int eval_const(const TirExpr *e, IVal *out) {
  out->t = e->dtype;
  out->t.lanes = 1;
  if (e->kind == TIR_INT) {
    if (dt_is_float(e->dtype)) out->v[0].f = dt_round_float(e->dtype, (double)e->ival);
    else out->v[0] = interp_normalize_int(e->dtype, (uint64_t)e->ival);
  } else {
    if (dt_is_float(e->dtype)) out->v[0].f = dt_round_float(e->dtype, e->fval);
    else out->v[0] = interp_cast_scalar(dt_float64, (IScalar){.f = e->fval}, e->dtype);
  }
  return 0;
}

static int eval_var(Interp *in, const TirExpr *e, IVal *out) {
  IBinding *b = interp_lookup(in, e->var);
  if (!b) {
    int st = interp_find_storage(in, e->var);
    if (st >= 0) { /* a data pointer used as a value (only passed around) */
      out->t = dt_handle;
      out->v[0].u = (uint64_t)(uintptr_t)in->stores[st].data;
      return 0;
    }
    return interp_error(in, e->span, "variable '%s' has no value here", e->var->name);
  }
  out->t = b->t;
  if (b->vec) memcpy(out->v, b->vec, (size_t)b->t.lanes * sizeof *b->vec);
  else out->v[0] = b->s;
  return 0;
}

/* Arithmetic and comparisons, lane by lane (a scalar operand broadcasts). */
static int eval_binary(Interp *in, const TirExpr *e, IVal *out) {
  IVal b;
  if (interp_eval(in, e->bin.a, out) || interp_eval(in, e->bin.b, &b)) return -1;
  int lanes = 1;
  if (lane_count(in, e, out->t.lanes, b.t.lanes, &lanes)) return -1;
  DType t = dt_element(out->t);
  if (!dt_eq(t, dt_element(b.t))) {
    char x[DT_STR_MAX], y[DT_STR_MAX];
    return interp_error(in, e->span, "operands of %s have different dtypes (%s vs %s)",
                        tir_expr_kind_name(e->kind), dt_str(t, x), dt_str(dt_element(b.t), y));
  }
  bool avec = out->t.lanes > 1, bvec = b.t.lanes > 1;
  /* iterate downward so that a scalar a (lane 0) is read before lane 0 is written */
  for (int l = lanes - 1; l >= 0; l--)
    if (interp_binop(in, e->kind, t, out->v[avec ? l : 0], b.v[bvec ? l : 0], &out->v[l],
                     e->span))
      return -1;
  out->t = (e->kind >= TIR_EQ) ? dt_with_lanes(dt_bool, lanes) : dt_with_lanes(t, lanes);
  return 0;
}

/* And / Or: scalars short-circuit, vectors evaluate both sides. */
static int eval_logic(Interp *in, const TirExpr *e, IVal *out) {
  if (interp_eval(in, e->bin.a, out)) return -1;
  bool is_and = e->kind == TIR_AND;
  if (out->t.lanes == 1) {
    bool av = dt_is_float(out->t) ? out->v[0].f != 0 : out->v[0].u != 0;
    if (av != is_and) { /* short circuit: false and _, true or _ */
      out->t = dt_bool;
      out->v[0].i = av;
      return 0;
    }
    if (interp_eval(in, e->bin.b, out)) return -1;
    if (out->t.lanes != 1) return interp_error(in, e->span, "vector lanes mismatch");
    bool bv = dt_is_float(out->t) ? out->v[0].f != 0 : out->v[0].u != 0;
    out->t = dt_bool;
    out->v[0].i = bv;
    return 0;
  }
  IVal b;
  if (interp_eval(in, e->bin.b, &b)) return -1;
  int lanes = 1;
  if (lane_count(in, e, out->t.lanes, b.t.lanes, &lanes)) return -1;
  for (int l = lanes - 1; l >= 0; l--) {
    bool x = out->v[out->t.lanes > 1 ? l : 0].u != 0, y = b.v[b.t.lanes > 1 ? l : 0].u != 0;
    out->v[l].i = is_and ? (x && y) : (x || y);
  }
  out->t = dt_with_lanes(dt_bool, lanes);
  return 0;
}

static int eval_select(Interp *in, const TirExpr *e, IVal *out) {
  IVal *cf = xmalloc(2 * sizeof *cf);
  int rc = interp_eval(in, e->sel.cond, cf);
  if (rc == 0) rc = interp_eval(in, e->sel.t, out);
  if (rc == 0) rc = interp_eval(in, e->sel.f, &cf[1]);
  if (rc == 0) {
    int lanes = cf[0].t.lanes;
    if (out->t.lanes > lanes) lanes = out->t.lanes;
    if (cf[1].t.lanes > lanes) lanes = cf[1].t.lanes;
    if ((cf[0].t.lanes != 1 && cf[0].t.lanes != lanes) ||
        (out->t.lanes != 1 && out->t.lanes != lanes) ||
        (cf[1].t.lanes != 1 && cf[1].t.lanes != lanes))
      rc = interp_error(in, e->span, "vector lanes mismatch in Select");
    for (int l = lanes - 1; rc == 0 && l >= 0; l--) {
      bool c = cf[0].v[cf[0].t.lanes > 1 ? l : 0].u != 0;
      out->v[l] = c ? out->v[out->t.lanes > 1 ? l : 0] : cf[1].v[cf[1].t.lanes > 1 ? l : 0];
    }
    out->t = dt_with_lanes(out->t, lanes);
  }
  free(cf);
  return rc;
}

/* Not and Cast: one operand, lane by lane. */
static int eval_unary(Interp *in, const TirExpr *e, IVal *out) {
  if (interp_eval(in, e->un.a, out)) return -1;
  if (e->kind == TIR_NOT) {
    for (int l = 0; l < out->t.lanes; l++)
      out->v[l].i = dt_is_float(out->t) ? out->v[l].f == 0 : out->v[l].u == 0;
    out->t = dt_with_lanes(dt_bool, out->t.lanes);
    return 0;
  }
  DType from = dt_element(out->t), to = dt_element(e->dtype);
  for (int l = 0; l < out->t.lanes; l++) out->v[l] = interp_cast_scalar(from, out->v[l], to);
  out->t = dt_with_lanes(to, out->t.lanes);
  return 0;
}

static int eval_load(Interp *in, const TirExpr *e, IVal *out) {
  int lanes = e->dtype.lanes;
  if (lanes > INTERP_MAX_LANES)
    return interp_error(in, e->span, "vector of %d lanes is too wide for the interpreter", lanes);
  out->t = e->dtype;
  return access(in, e->load.buf, e->load.idx, e->load.n, out, false, e->span);
}

static int eval_ramp(Interp *in, const TirExpr *e, IVal *out) {
  int lanes = e->ramp.lanes;
  if (lanes < 1 || lanes > INTERP_MAX_LANES)
    return interp_error(in, e->span, "Ramp of %d lanes is not supported", lanes);
  IVal b;
  if (interp_eval(in, e->ramp.base, out) || interp_eval(in, e->ramp.stride, &b)) return -1;
  if (out->t.lanes != 1 || b.t.lanes != 1)
    return interp_error(in, e->span, "Ramp base and stride must be scalars");
  DType t = dt_element(out->t);
  IScalar base = out->v[0], stride = b.v[0];
  for (int l = 0; l < lanes; l++) {
    if (dt_is_float(t)) {
      out->v[l].f = dt_round_float(t, base.f + (double)l * stride.f);
    } else {
      out->v[l] = interp_normalize_int(t, base.u + (uint64_t)l * stride.u);
    }
  }
  out->t = dt_with_lanes(t, lanes);
  return 0;
}

static int eval_broadcast(Interp *in, const TirExpr *e, IVal *out) {
  int lanes = e->bcast.lanes;
  if (lanes < 1 || lanes > INTERP_MAX_LANES)
    return interp_error(in, e->span, "Broadcast of %d lanes is not supported", lanes);
  if (interp_eval(in, e->bcast.value, out)) return -1;
  if (out->t.lanes != 1) return interp_error(in, e->span, "Broadcast of a vector");
  for (int l = 1; l < lanes; l++) out->v[l] = out->v[0];
  out->t = dt_with_lanes(out->t, lanes);
  return 0;
}

static int eval_let(Interp *in, const TirExpr *e, IVal *out) {
  if (interp_eval(in, e->let.value, out)) return -1;
  IMark m = interp_mark(in);
  interp_bind(in, e->let.var, out);
  int rc = interp_eval(in, e->let.body, out);
  interp_pop(in, m);
  return rc;
}

int interp_eval(Interp *in, const TirExpr *e, IVal *out) {
  switch (e->kind) {
    case TIR_INT: case TIR_FLOAT: return eval_const(e, out);
    case TIR_STR: return interp_error(in, e->span, "a string cannot be evaluated as a value");
    case TIR_VAR: return eval_var(in, e, out);
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_DIV: case TIR_MOD:
    case TIR_FLOORDIV: case TIR_FLOORMOD: case TIR_MIN: case TIR_MAX:
    case TIR_EQ: case TIR_NE: case TIR_LT: case TIR_LE: case TIR_GT: case TIR_GE:
      return eval_binary(in, e, out);
    case TIR_AND: case TIR_OR: return eval_logic(in, e, out);
    case TIR_NOT: case TIR_CAST: return eval_unary(in, e, out);
    case TIR_SELECT: return eval_select(in, e, out);
    case TIR_LOAD: return eval_load(in, e, out);
    case TIR_RAMP: return eval_ramp(in, e, out);
    case TIR_BROADCAST: return eval_broadcast(in, e, out);
    case TIR_LET: return eval_let(in, e, out);
    case TIR_CALL: return eval_call(in, e, out);
    default:
      return interp_error(in, e->span, "cannot evaluate a %s expression",
                          tir_expr_kind_name(e->kind));
  }
}
