/* bounds.c - interval analysis, symbolic bounds and proofs.
 *
 * Constant intervals are inclusive int64 pairs where INT64_MIN / INT64_MAX
 * stand for -inf / +inf; arithmetic saturates to them.  A wrapping operation
 * whose interval leaves its dtype's range gets the whole range (the value may
 * have wrapped).  Symbolic bounds replace every range-bound variable by the
 * end of its range (recursively) and keep free symbols such as shape vars. */
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith_internal.h"
#include "ir/structural_equal.h"
#include "base/util.h"

/* ------------------------------------------------------------ intervals */

AIv arith_iv_full(void) { return (AIv){AIV_NINF, AIV_PINF}; }

AIv arith_iv_dtype(DType t) {
  if (t.code == DT_BOOL) return (AIv){0, 1};
  if (t.code == DT_INT && t.bits < 64 && t.bits > 0)
    return (AIv){-(INT64_C(1) << (t.bits - 1)), (INT64_C(1) << (t.bits - 1)) - 1};
  if (t.code == DT_UINT && t.bits < 64 && t.bits > 0)
    return (AIv){0, (int64_t)((UINT64_C(1) << t.bits) - 1)};
  if (t.code == DT_UINT) return (AIv){0, AIV_PINF};
  return arith_iv_full();
}

static AIv iv_const(int64_t v) { return (AIv){v, v}; }
static bool iv_finite(AIv a) { return a.lo != AIV_NINF && a.hi != AIV_PINF; }

static AIv iv_intersect(AIv a, AIv b) {
  AIv r = {a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
  if (r.lo > r.hi) return a; /* contradictory facts: ignore the narrowing */
  return r;
}

static AIv iv_union(AIv a, AIv b) {
  return (AIv){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

static int64_t add_lo(int64_t a, int64_t b) {
  if (a == AIV_NINF || b == AIV_NINF) return AIV_NINF;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? AIV_PINF : AIV_NINF;
  return r;
}
static int64_t add_hi(int64_t a, int64_t b) {
  if (a == AIV_PINF || b == AIV_PINF) return AIV_PINF;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? AIV_PINF : AIV_NINF;
  return r;
}

static AIv iv_add(AIv a, AIv b) { return (AIv){add_lo(a.lo, b.lo), add_hi(a.hi, b.hi)}; }

static int64_t neg_sat(int64_t v) {
  if (v == AIV_NINF) return AIV_PINF;
  if (v == AIV_PINF) return AIV_NINF;
  return -v;
}
static AIv iv_neg(AIv a) { return (AIv){neg_sat(a.hi), neg_sat(a.lo)}; }

/* Saturating product where infinities keep their sign. */
static int64_t mul_sat(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  bool inf = a == AIV_NINF || a == AIV_PINF || b == AIV_NINF || b == AIV_PINF;
  int64_t r;
  if (inf || __builtin_mul_overflow(a, b, &r)) return neg ? AIV_NINF : AIV_PINF;
  return r;
}

static AIv iv_mul(AIv a, AIv b) {
  int64_t c[4] = {mul_sat(a.lo, b.lo), mul_sat(a.lo, b.hi), mul_sat(a.hi, b.lo),
                  mul_sat(a.hi, b.hi)};
  AIv r = {c[0], c[0]};
  for (int i = 1; i < 4; i++) {
    if (c[i] < r.lo) r.lo = c[i];
    if (c[i] > r.hi) r.hi = c[i];
  }
  return r;
}

/* floor(a / d) for d > 0 with a possibly infinite; d may be +inf. */
static int64_t fdiv_pos(int64_t a, int64_t d) {
  if (a == AIV_NINF || a == AIV_PINF) return a;
  if (d == AIV_PINF) return a >= 0 ? 0 : -1;
  return arith_floordiv64(a, d);
}

/* Floor division by an interval of positive divisors. */
static AIv iv_floordiv(AIv a, AIv d) {
  if (d.lo > 0) {
    int64_t c[4] = {fdiv_pos(a.lo, d.lo), fdiv_pos(a.lo, d.hi), fdiv_pos(a.hi, d.lo),
                    fdiv_pos(a.hi, d.hi)};
    AIv r = {c[0], c[0]};
    for (int i = 1; i < 4; i++) {
      if (c[i] < r.lo) r.lo = c[i];
      if (c[i] > r.hi) r.hi = c[i];
    }
    return r;
  }
  if (d.hi < 0) return iv_floordiv(iv_neg(a), iv_neg(d)); /* a // d == -a // -d */
  return arith_iv_full();
}

static AIv iv_floormod(AIv a, AIv d) {
  if (d.lo > 0) {
    if (d.lo == d.hi && iv_finite(a)) {
      int64_t c = d.lo, k = arith_floordiv64(a.lo, c);
      if (k == arith_floordiv64(a.hi, c)) return (AIv){a.lo - k * c, a.hi - k * c};
    }
    if (a.lo >= 0 && a.hi < d.lo) return a;
    return (AIv){0, d.hi == AIV_PINF ? AIV_PINF : d.hi - 1};
  }
  if (d.hi < 0) return (AIv){d.lo == AIV_NINF ? AIV_NINF : d.lo + 1, 0};
  return arith_iv_full();
}

/* Truncated division and remainder (T.truncdiv / T.truncmod). */
static AIv iv_truncdiv(AIv a, AIv d) {
  if (a.lo >= 0) return iv_floordiv(a, d);
  if (d.lo > 0 && a.hi <= 0) return iv_neg(iv_floordiv(iv_neg(a), d));
  if (d.lo > 0) {
    AIv n = iv_neg(iv_floordiv((AIv){0, neg_sat(a.lo)}, d));
    AIv p = iv_floordiv((AIv){0, a.hi}, d);
    return iv_union(n, p);
  }
  return arith_iv_full();
}

static AIv iv_truncmod(AIv a, AIv d) {
  if (a.lo >= 0) return iv_floormod(a, d);
  if (d.lo > 0) {
    int64_t m = d.hi == AIV_PINF ? AIV_PINF : d.hi - 1;
    AIv r = {neg_sat(m), a.hi <= 0 ? 0 : m};
    return r;
  }
  return arith_iv_full();
}

/* A wrapping op's result: its interval, or its dtype's full range when the
 * mathematical value may leave the range. */
static AIv iv_wrap(DType t, AIv r) {
  AIv d = arith_iv_dtype(t);
  if (t.code == DT_UINT && t.bits >= 64) {
    if (r.lo < 0) return d;
    return r;
  }
  if (t.code == DT_INT && t.bits >= 64) return r;
  if (r.lo < d.lo || r.hi > d.hi) return d;
  return r;
}

static AIv var_iv(ArithCtx *ctx, const TirVar *v);

static bool int_like(DType t) {
  return (dt_is_integer(t) || dt_is_bool(t)) && t.lanes == 1;
}

AIv arith_iv_expr(ArithCtx *ctx, const TirExpr *e) {
  DType t = e->dtype;
  if (!int_like(t)) return arith_iv_full();
  if (ctx->depth >= ARITH_MAX_DEPTH) return arith_iv_dtype(t);
  ctx->depth++;
  AIv r = arith_iv_dtype(t), a, b;
  switch (e->kind) {
    case TIR_INT:
      if (t.code == DT_UINT && e->ival < 0) r = (AIv){0, AIV_PINF};
      else r = iv_const(arith_wrap_int(t, (uint64_t)e->ival));
      break;
    case TIR_VAR: r = var_iv(ctx, e->var); break;
    case TIR_ADD: case TIR_SUB: case TIR_MUL:
      a = arith_iv_expr(ctx, e->bin.a);
      b = arith_iv_expr(ctx, e->bin.b);
      if (e->kind == TIR_ADD) r = iv_add(a, b);
      else if (e->kind == TIR_SUB) r = iv_add(a, iv_neg(b));
      else r = iv_mul(a, b);
      r = iv_wrap(t, r);
      break;
    case TIR_FLOORDIV: case TIR_FLOORMOD: case TIR_DIV: case TIR_MOD:
      a = arith_iv_expr(ctx, e->bin.a);
      b = arith_iv_expr(ctx, e->bin.b);
      if (e->kind == TIR_FLOORDIV) r = iv_floordiv(a, b);
      else if (e->kind == TIR_FLOORMOD) r = iv_floormod(a, b);
      else if (e->kind == TIR_DIV) r = iv_truncdiv(a, b);
      else r = iv_truncmod(a, b);
      r = iv_wrap(t, r);
      break;
    case TIR_MIN: case TIR_MAX:
      a = arith_iv_expr(ctx, e->bin.a);
      b = arith_iv_expr(ctx, e->bin.b);
      if (e->kind == TIR_MIN) r = (AIv){a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
      else r = (AIv){a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
      break;
    case TIR_SELECT:
      r = iv_union(arith_iv_expr(ctx, e->sel.t), arith_iv_expr(ctx, e->sel.f));
      break;
    case TIR_CAST: {
      DType from = e->un.a->dtype;
      if (int_like(from)) {
        a = arith_iv_expr(ctx, e->un.a);
        AIv d = arith_iv_dtype(t);
        if (t.code == DT_BOOL) r = (AIv){0, 1};
        else if (a.lo >= d.lo && a.hi <= d.hi) r = a;
      }
      break;
    }
    case TIR_CALL:
      if (e->call.op->id == TIR_OP_IF_THEN_ELSE && e->call.n == 3)
        r = iv_union(arith_iv_expr(ctx, e->call.args[1]), arith_iv_expr(ctx, e->call.args[2]));
      break;
    default: break;
  }
  ctx->depth--;
  return iv_intersect(r, arith_iv_dtype(t));
}

/* Bounds of e after simplification (more precise for sums). */
static AIv iv_simplified(ArithCtx *ctx, const TirExpr *e) {
  if (!arith_is_poly_type(e->dtype)) return arith_iv_expr(ctx, e);
  APoly p;
  arith_simp_poly(ctx, e, &p);
  AIv r = arith_iv_poly(ctx, &p);
  arith_poly_free(&p);
  return r;
}

static AIv var_iv(ArithCtx *ctx, const TirVar *v) {
  AIv r = arith_iv_dtype(v->dtype);
  if (v->is_size_var && r.lo < 0) r.lo = 0;
  const ABinding *b = arith_lookup(ctx, v);
  if (b && b->kind == AB_RANGE) {
    AIv mn = iv_simplified(ctx, b->a), ext = iv_simplified(ctx, b->b);
    AIv range = {mn.lo, add_hi(add_hi(mn.hi, ext.hi), -1)};
    r = iv_intersect(r, range);
  } else if (b && b->kind == AB_VALUE) {
    r = iv_intersect(r, iv_simplified(ctx, b->a));
  }
  for (int i = 0; i < ctx->nfacts; i++)
    if (ctx->facts[i].var == v) r = iv_intersect(r, (AIv){ctx->facts[i].lo, ctx->facts[i].hi});
  return r;
}

/* Narrows r (the interval of poly p) with facts on p's linear part. */
static AIv apply_facts(ArithCtx *ctx, const APoly *p, AIv r) {
  if (p->n == 0 || ctx->nvarfacts == 0) return r;
  uint64_t g = 0;
  for (int i = 0; i < p->n; i++) g = arith_ugcd(g, arith_uabs(p->terms[i].coef));
  if (g == 0 || g > (uint64_t)INT64_MAX) return r;
  int64_t s = p->terms[0].coef < 0 ? -(int64_t)g : (int64_t)g;
  APoly l;
  arith_poly_init(&l, p->t);
  for (int i = 0; i < p->n; i++)
    arith_poly_add_mono(ctx, &l, p->terms[i].coef / s, p->terms[i].atoms, p->terms[i].n);
  TirExpr *le = NULL;
  for (int i = 0; i < ctx->nfacts; i++) {
    const AFact *f = &ctx->facts[i];
    if (f->var) continue;
    if (!le) le = arith_poly_to_expr(ctx, &l);
    if (!seq_tir_expr(le, f->d)) continue;
    AIv fi = iv_mul((AIv){f->lo, f->hi}, iv_const(s));
    r = iv_intersect(r, iv_add(fi, iv_const(p->c)));
  }
  arith_poly_free(&l);
  return r;
}

AIv arith_iv_poly(ArithCtx *ctx, const APoly *p) {
  AIv r = iv_const(p->c);
  for (int i = 0; i < p->n; i++) {
    const ATerm *t = &p->terms[i];
    AIv m = arith_iv_expr(ctx, t->atoms[0]);
    for (int k = 1; k < t->n; k++) {
      AIv x = arith_iv_expr(ctx, t->atoms[k]);
      if (t->atoms[k] == t->atoms[k - 1] || seq_tir_expr(t->atoms[k], t->atoms[k - 1])) {
        /* x * x: a square is never negative */
        AIv sq = iv_mul(m, x);
        if (k == 1 && sq.lo < 0) sq.lo = 0;
        m = sq;
      } else {
        m = iv_mul(m, x);
      }
    }
    r = iv_add(r, iv_mul(m, iv_const(t->coef)));
  }
  if (arith_is_signed_poly(p->t) || p->n == 0) r = iv_wrap(p->t, r);
  else r = arith_iv_dtype(p->t); /* unsigned sums: the signed view of coefficients wraps */
  return apply_facts(ctx, p, r);
}

/* ------------------------------------------------------------ public */

bool arith_const_bounds(ArithCtx *ctx, const TirExpr *e, int64_t *lo, int64_t *hi) {
  if (!int_like(e->dtype)) return false;
  AIv r = iv_simplified(ctx, e);
  if (!iv_finite(r)) return false;
  if (lo) *lo = r.lo;
  if (hi) *hi = r.hi;
  return true;
}

/* ------------------------------------------------------- symbolic bounds */

static bool has_range_var(ArithCtx *ctx, const TirExpr *e) {
  if (e->kind == TIR_VAR) {
    const ABinding *b = arith_lookup(ctx, e->var);
    return b && b->kind == AB_RANGE;
  }
  if (e->kind == TIR_INT) return false;
  PtrVec vs = {0};
  tir_expr_free_vars(e, &vs);
  bool found = false;
  for (int i = 0; i < vs.len && !found; i++) {
    const ABinding *b = arith_lookup(ctx, vs.items[i]);
    found = b && b->kind == AB_RANGE;
  }
  pv_free(&vs);
  return found;
}

static bool sym_bound_rec(ArithCtx *ctx, const APoly *p, bool upper, APoly *out);

/* Symbolic bounds are built with wrapping poly arithmetic; keeping every
 * coefficient below a quarter of the dtype's range guarantees that no sum or
 * checked product of them wraps. */
static bool small(DType t, int64_t v) {
  int64_t lim = t.bits >= 64 ? (INT64_C(1) << 61) : (INT64_C(1) << (t.bits - 2));
  return v > -lim && v < lim;
}

static bool poly_small(const APoly *p) {
  if (!small(p->t, p->c)) return false;
  for (int i = 0; i < p->n; i++)
    if (!small(p->t, p->terms[i].coef)) return false;
  return true;
}

/* r += k * m unless a coefficient could wrap. */
static bool add_checked(ArithCtx *ctx, APoly *r, const APoly *m, int64_t k) {
  int64_t y;
  if (!poly_small(r) || __builtin_mul_overflow(m->c, k, &y) || !small(r->t, y)) return false;
  for (int i = 0; i < m->n; i++)
    if (__builtin_mul_overflow(m->terms[i].coef, k, &y) || !small(r->t, y)) return false;
  arith_poly_add(ctx, r, m, k);
  return poly_small(r);
}

/* A bound of one atom in the given direction. */
static bool atom_bound(ArithCtx *ctx, const TirExpr *a, bool upper, APoly *out) {
  DType t = a->dtype;
  if (!has_range_var(ctx, a)) {
    arith_poly_init(out, t);
    arith_poly_add_atom(ctx, out, a, 1);
    return true;
  }
  if (a->kind == TIR_VAR) {
    const ABinding *b = arith_lookup(ctx, a->var);
    APoly mn, x;
    arith_simp_poly(ctx, b->a, &mn);
    if (upper) {
      APoly ext;
      arith_simp_poly(ctx, b->b, &ext);
      arith_poly_add(ctx, &mn, &ext, 1);
      arith_poly_free(&ext);
      mn.c = arith_pwrap(t, (uint64_t)mn.c - 1);
    }
    bool ok = sym_bound_rec(ctx, &mn, upper, &x);
    arith_poly_free(&mn);
    if (ok) {
      /* a constant interval from facts may be tighter */
      AIv iv = var_iv(ctx, a->var);
      if (arith_poly_is_const(&x)) {
        if (upper && iv.hi < x.c) x.c = iv.hi;
        if (!upper && iv.lo > x.c) x.c = iv.lo;
      }
      *out = x;
      return true;
    }
  } else if (a->kind == TIR_FLOORDIV && a->bin.b->kind == TIR_INT && a->bin.b->ival > 0 &&
             dt_eq(a->bin.a->dtype, t)) {
    APoly x, bx;
    arith_poly_of_simplified(ctx, a->bin.a, &x);
    bool ok = sym_bound_rec(ctx, &x, upper, &bx);
    arith_poly_free(&x);
    if (ok) {
      arith_floordiv_const(ctx, &bx, a->bin.b->ival, out);
      arith_poly_free(&bx);
      return true;
    }
  } else if ((a->kind == TIR_MIN || a->kind == TIR_MAX) && dt_eq(a->bin.a->dtype, t)) {
    APoly x, y, bx, by;
    arith_poly_of_simplified(ctx, a->bin.a, &x);
    arith_poly_of_simplified(ctx, a->bin.b, &y);
    bool okx = sym_bound_rec(ctx, &x, upper, &bx);
    bool oky = sym_bound_rec(ctx, &y, upper, &by);
    arith_poly_free(&x);
    arith_poly_free(&y);
    /* min: an upper bound of either side bounds it; both are needed below */
    bool either = (a->kind == TIR_MIN) == upper;
    if (okx && oky) {
      TirExpr *m = tir_binary(ctx->h, a->kind, arith_poly_to_expr(ctx, &bx),
                              arith_poly_to_expr(ctx, &by));
      arith_poly_free(&bx);
      arith_poly_free(&by);
      arith_simp_poly(ctx, m, out);
      return true;
    }
    if (either && (okx || oky)) {
      if (okx) *out = bx;
      else *out = by;
      return true;
    }
    if (okx) arith_poly_free(&bx);
    if (oky) arith_poly_free(&by);
  }
  AIv iv = arith_iv_expr(ctx, a);
  int64_t v = upper ? iv.hi : iv.lo;
  if (v == AIV_NINF || v == AIV_PINF || !small(t, v)) return false;
  arith_poly_init(out, t);
  out->c = v;
  return true;
}

static bool sym_bound_rec(ArithCtx *ctx, const APoly *p, bool upper, APoly *out) {
  if (ctx->depth >= ARITH_MAX_DEPTH) return false;
  ctx->depth++;
  APoly r;
  arith_poly_init(&r, p->t);
  r.c = p->c;
  bool ok = true;
  for (int i = 0; i < p->n && ok; i++) {
    const ATerm *t = &p->terms[i];
    bool any = false;
    for (int k = 0; k < t->n && !any; k++) any = has_range_var(ctx, t->atoms[k]);
    if (!any) {
      if (!small(r.t, t->coef)) {
        ok = false;
        break;
      }
      arith_poly_add_mono(ctx, &r, t->coef, t->atoms, t->n);
      continue;
    }
    bool dir = (t->coef > 0) == upper;
    APoly m;
    if (t->n == 1) {
      ok = atom_bound(ctx, t->atoms[0], dir, &m);
    } else {
      /* a product of non-negative factors is monotone in each of them */
      for (int k = 0; k < t->n && ok; k++) ok = arith_iv_expr(ctx, t->atoms[k]).lo >= 0;
      if (ok) {
        arith_poly_init(&m, p->t);
        m.c = 1;
        for (int k = 0; k < t->n && ok; k++) {
          APoly f, prod;
          ok = atom_bound(ctx, t->atoms[k], dir, &f);
          if (!ok) break;
          if (!dir && arith_iv_poly(ctx, &f).lo < 0) arith_poly_set_const(&f, 0);
          ok = arith_poly_mul(ctx, &prod, &m, &f);
          arith_poly_free(&f);
          if (ok && !poly_small(&prod)) {
            arith_poly_free(&prod);
            ok = false;
          }
          if (ok) {
            arith_poly_free(&m);
            arith_poly_move(&m, &prod);
          }
        }
        if (!ok) arith_poly_free(&m);
      }
    }
    if (!ok) break;
    ok = add_checked(ctx, &r, &m, t->coef);
    arith_poly_free(&m);
  }
  ctx->depth--;
  if (!ok) {
    arith_poly_free(&r);
    return false;
  }
  *out = r;
  return true;
}

bool arith_sym_bound(ArithCtx *ctx, const APoly *p, bool upper, APoly *out) {
  return sym_bound_rec(ctx, p, upper, out);
}

bool arith_symbolic_bounds(ArithCtx *ctx, const TirExpr *e, TirExpr **lo, TirExpr **hi) {
  if (!arith_is_poly_type(e->dtype)) return false;
  APoly p, b;
  arith_simp_poly(ctx, e, &p);
  bool ok = true;
  if (lo) {
    ok = arith_sym_bound(ctx, &p, false, &b);
    if (ok) {
      *lo = arith_poly_to_expr(ctx, &b);
      arith_poly_free(&b);
    }
  }
  if (ok && hi) {
    ok = arith_sym_bound(ctx, &p, true, &b);
    if (ok) {
      *hi = arith_poly_to_expr(ctx, &b);
      arith_poly_free(&b);
    }
  }
  arith_poly_free(&p);
  return ok;
}

/* ------------------------------------------------------------ proofs */

static bool iv_decides(TirExprKind k, AIv r) {
  switch (k) {
    case TIR_LT: return r.hi != AIV_PINF && r.hi < 0;
    case TIR_LE: return r.hi != AIV_PINF && r.hi <= 0;
    case TIR_GT: return r.lo != AIV_NINF && r.lo > 0;
    case TIR_GE: return r.lo != AIV_NINF && r.lo >= 0;
    case TIR_EQ: return r.lo == 0 && r.hi == 0;
    case TIR_NE: return (r.hi != AIV_PINF && r.hi < 0) || (r.lo != AIV_NINF && r.lo > 0);
    default: return false;
  }
}

bool arith_prove_poly_cmp(ArithCtx *ctx, TirExprKind k, const APoly *d) {
  if (!arith_is_signed_poly(d->t)) return false;
  if (iv_decides(k, arith_iv_poly(ctx, d))) return true;
  if (k == TIR_EQ) return false;
  bool need_hi = k == TIR_LT || k == TIR_LE || k == TIR_NE;
  bool need_lo = k == TIR_GT || k == TIR_GE || k == TIR_NE;
  bool any = false;
  for (int i = 0; i < d->n && !any; i++)
    for (int j = 0; j < d->terms[i].n && !any; j++) any = has_range_var(ctx, d->terms[i].atoms[j]);
  if (!any) return false;
  APoly b;
  if (need_hi && arith_sym_bound(ctx, d, true, &b)) {
    AIv r = arith_iv_poly(ctx, &b);
    arith_poly_free(&b);
    if (k != TIR_NE && iv_decides(k, r)) return true;
    if (k == TIR_NE && r.hi != AIV_PINF && r.hi < 0) return true;
  }
  if (need_lo && arith_sym_bound(ctx, d, false, &b)) {
    AIv r = arith_iv_poly(ctx, &b);
    arith_poly_free(&b);
    if (k != TIR_NE && iv_decides(k, r)) return true;
    if (k == TIR_NE && r.lo != AIV_NINF && r.lo > 0) return true;
  }
  return false;
}

bool arith_prove(ArithCtx *ctx, const TirExpr *cond) {
  if (!cond) return false;
  if (cond->kind == TIR_AND) return arith_prove(ctx, cond->bin.a) && arith_prove(ctx, cond->bin.b);
  if (cond->kind == TIR_OR) return arith_prove(ctx, cond->bin.a) || arith_prove(ctx, cond->bin.b);
  TirExpr *s = arith_simp(ctx, cond);
  if (s->kind == TIR_INT && s->dtype.lanes == 1) return s->ival != 0;
  return false;
}

bool arith_can_prove_equal(ArithCtx *ctx, const TirExpr *a, const TirExpr *b) {
  if (a == b) return true;
  if (arith_is_poly_type(a->dtype) && dt_eq(a->dtype, b->dtype)) {
    APoly pa, pb;
    arith_simp_poly(ctx, a, &pa);
    arith_simp_poly(ctx, b, &pb);
    arith_poly_add(ctx, &pa, &pb, -1);
    arith_poly_free(&pb);
    bool ok = arith_poly_is_const(&pa) && pa.c == 0;
    if (!ok && arith_is_signed_poly(pa.t)) ok = arith_prove_poly_cmp(ctx, TIR_EQ, &pa);
    arith_poly_free(&pa);
    return ok;
  }
  TirExpr *sa = arith_simp(ctx, a), *sb = arith_simp(ctx, b);
  return seq_tir_expr(sa, sb);
}
