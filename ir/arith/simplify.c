/* simplify.c - canonical simplification of loop-IR expressions.
 *
 * Integer Add/Sub/Mul become canonical sums (poly.c); `//` and `%` by
 * constants split off the multiples of the divisor and resolve the rest by
 * its range; min/max and comparisons are decided by bounds of the difference
 * of their operands; booleans, Select, if_then_else and casts of constants
 * fold.  Floats only fold constants and apply exact identities. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith_internal.h"
#include "ir/structural_equal.h"
#include "base/util.h"

static TirExpr *simp(ArithCtx *ctx, const TirExpr *e);

static TirExpr *with_span(ArithCtx *ctx, TirExpr *n, const TirExpr *orig) {
  (void)ctx;
  n->span = orig->span;
  return n;
}

/* e with children a, b; e itself when unchanged. */
static TirExpr *rebuild_bin(ArithCtx *ctx, const TirExpr *e, TirExpr *a, TirExpr *b) {
  if (a == e->bin.a && b == e->bin.b) return (TirExpr *)e;
  return with_span(ctx, tir_binary(ctx->h, e->kind, a, b), e);
}

static bool is_int_const(const TirExpr *e, int64_t *v) {
  if (e->kind != TIR_INT || e->dtype.lanes != 1) return false;
  if (v) *v = e->ival;
  return true;
}

static bool is_bool_const(const TirExpr *e, bool *v) {
  if (e->kind != TIR_INT || !dt_is_bool(e->dtype) || e->dtype.lanes != 1) return false;
  if (v) *v = e->ival != 0;
  return true;
}

static bool same(const TirExpr *a, const TirExpr *b) { return a == b || seq_tir_expr(a, b); }

/* ------------------------------------------------------------ poly view */

static void poly_atom(ArithCtx *ctx, const TirExpr *atom, APoly *p) {
  arith_poly_init(p, atom->dtype);
  arith_poly_add_atom(ctx, p, atom, 1);
}

static bool children_match(const TirExpr *e) {
  return dt_eq(e->bin.a->dtype, e->dtype) && dt_eq(e->bin.b->dtype, e->dtype);
}

void arith_poly_of_simplified(ArithCtx *ctx, const TirExpr *e, APoly *p) {
  if (e->kind == TIR_INT) {
    arith_poly_init(p, e->dtype);
    p->c = arith_pwrap(e->dtype, (uint64_t)e->ival);
    return;
  }
  if ((e->kind == TIR_ADD || e->kind == TIR_SUB || e->kind == TIR_MUL) && children_match(e)) {
    APoly a, b;
    arith_poly_of_simplified(ctx, e->bin.a, &a);
    arith_poly_of_simplified(ctx, e->bin.b, &b);
    if (e->kind == TIR_MUL) {
      if (arith_poly_mul(ctx, p, &a, &b)) {
        arith_poly_free(&a);
        arith_poly_free(&b);
        return;
      }
      arith_poly_free(&a);
      arith_poly_free(&b);
      poly_atom(ctx, e, p);
      return;
    }
    arith_poly_add(ctx, &a, &b, e->kind == TIR_ADD ? 1 : -1);
    arith_poly_free(&b);
    *p = a;
    return;
  }
  poly_atom(ctx, e, p);
}

/* The atom `a OP b` (as expressions) added to out with coefficient 1. */
static void atom_binop(ArithCtx *ctx, TirExprKind k, const APoly *a, const APoly *b, APoly *out) {
  TirExpr *e = tir_binary(ctx->h, k, arith_poly_to_expr(ctx, a), arith_poly_to_expr(ctx, b));
  arith_poly_init(out, a->t);
  arith_poly_add_atom(ctx, out, e, 1);
}

/* --------------------------------------------------------- floordiv/mod */

/* If p is exactly 1 * (X OP c1) + k, returns that atom. */
static const TirExpr *single_atom(const APoly *p, TirExprKind op) {
  if (p->n != 1 || p->terms[0].coef != 1 || p->terms[0].n != 1) return NULL;
  const TirExpr *a = p->terms[0].atoms[0];
  if (a->kind != op || !is_int_const(a->bin.b, NULL) || a->bin.b->ival <= 0) return NULL;
  return a;
}

static uint64_t poly_gcd(const APoly *p, int64_t c) {
  uint64_t g = arith_uabs(c);
  for (int i = 0; i < p->n; i++) g = arith_ugcd(g, arith_uabs(p->terms[i].coef));
  return arith_ugcd(g, arith_uabs(p->c));
}

/* Splits a into q * c + r: terms whose coefficient c divides go to q. */
static void split_multiples(const APoly *a, int64_t c, APoly *q, APoly *r) {
  arith_poly_init(q, a->t);
  arith_poly_init(r, a->t);
  for (int i = 0; i < a->n; i++) {
    const ATerm *t = &a->terms[i];
    APoly *dst = (t->coef % c == 0) ? q : r;
    int64_t coef = (t->coef % c == 0) ? t->coef / c : t->coef;
    VEC_RESERVE(dst->terms, dst->cap, dst->n + 1);
    ATerm *nt = &dst->terms[dst->n++];
    nt->coef = coef;
    nt->n = t->n;
    nt->atoms = xmalloc((size_t)t->n * sizeof *nt->atoms);
    memcpy(nt->atoms, t->atoms, (size_t)t->n * sizeof *nt->atoms);
  }
}

/* Resolves r // c to a constant when r's range lies in one period. */
static bool div_resolves(ArithCtx *ctx, const APoly *r, int64_t c, int64_t *k) {
  if (arith_poly_is_const(r)) {
    *k = arith_floordiv64(r->c, c);
    return true;
  }
  AIv iv = arith_iv_poly(ctx, r);
  if (iv.lo == AIV_NINF || iv.hi == AIV_PINF) return false;
  int64_t a = arith_floordiv64(iv.lo, c), b = arith_floordiv64(iv.hi, c);
  if (a != b) return false;
  *k = a;
  return true;
}

void arith_floordiv_const(ArithCtx *ctx, const APoly *a, int64_t c, APoly *out) {
  DType t = a->t;
  if (c == 1) {
    arith_poly_copy(out, a);
    return;
  }
  /* (X // c1 + k) // c == (X + k * c1) // (c1 * c) */
  const TirExpr *in = single_atom(a, TIR_FLOORDIV);
  int64_t c1c, kc1;
  if (in && !__builtin_mul_overflow(in->bin.b->ival, c, &c1c) &&
      !__builtin_mul_overflow(a->c, in->bin.b->ival, &kc1) && dt_eq(in->dtype, t)) {
    APoly x;
    arith_poly_of_simplified(ctx, in->bin.a, &x);
    x.c = arith_pwrap(t, (uint64_t)x.c + (uint64_t)kc1);
    arith_floordiv_const(ctx, &x, c1c, out);
    arith_poly_free(&x);
    return;
  }
  APoly q, r;
  split_multiples(a, c, &q, &r);
  r.c = a->c;
  arith_poly_normalize(ctx, &q);
  arith_poly_normalize(ctx, &r);
  int64_t k;
  if (div_resolves(ctx, &r, c, &k)) {
    q.c = k;
  } else {
    /* keep the constant of the remainder in [0, c) */
    int64_t qc = arith_floordiv64(a->c, c);
    r.c = arith_floormod64(a->c, c);
    if (div_resolves(ctx, &r, c, &k)) {
      q.c = arith_pwrap(t, (uint64_t)qc + (uint64_t)k);
    } else {
      q.c = qc;
      uint64_t g = poly_gcd(&r, c);
      /* (g2 * Y + k) // (g2 * c') == Y // c' when 0 <= k < g2 (g2 the gcd
       * of the terms): the constant never reaches the next multiple */
      uint64_t g2 = 0;
      for (int i = 0; i < r.n; i++) g2 = arith_ugcd(g2, arith_uabs(r.terms[i].coef));
      if (g == 1 && g2 > 1 && g2 <= (uint64_t)c && c % (int64_t)g2 == 0 && r.c >= 0 &&
          (uint64_t)r.c < g2) {
        r.c = 0;
        g = g2;
      }
      int64_t cc = c;
      if (g > 1) {
        for (int i = 0; i < r.n; i++) r.terms[i].coef /= (int64_t)g;
        r.c /= (int64_t)g;
        cc /= (int64_t)g;
      }
      APoly atom;
      if (cc == 1) {
        arith_poly_add(ctx, &q, &r, 1);
      } else {
        APoly d;
        arith_poly_init(&d, t);
        d.c = cc;
        atom_binop(ctx, TIR_FLOORDIV, &r, &d, &atom);
        arith_poly_add(ctx, &q, &atom, 1);
        arith_poly_free(&atom);
        arith_poly_free(&d);
      }
    }
  }
  arith_poly_free(&r);
  arith_poly_move(out, &q);
}

static void floormod_const(ArithCtx *ctx, const APoly *a, int64_t c, APoly *out) {
  DType t = a->t;
  if (c == 1) {
    arith_poly_init(out, t);
    return;
  }
  /* (X % c1) % c == X % c when c divides c1 */
  const TirExpr *in = single_atom(a, TIR_FLOORMOD);
  if (in && a->c == 0 && in->bin.b->ival % c == 0 && dt_eq(in->dtype, t)) {
    APoly x;
    arith_poly_of_simplified(ctx, in->bin.a, &x);
    floormod_const(ctx, &x, c, out);
    arith_poly_free(&x);
    return;
  }
  APoly q, r;
  split_multiples(a, c, &q, &r);
  arith_poly_free(&q);
  r.c = arith_floormod64(a->c, c);
  arith_poly_normalize(ctx, &r);
  if (arith_poly_is_const(&r)) {
    arith_poly_move(out, &r);
    return;
  }
  AIv iv = arith_iv_poly(ctx, &r);
  if (iv.lo != AIV_NINF && iv.hi != AIV_PINF) {
    int64_t k = arith_floordiv64(iv.lo, c);
    if (k == arith_floordiv64(iv.hi, c)) {
      r.c = arith_pwrap(t, (uint64_t)r.c - (uint64_t)k * (uint64_t)c);
      arith_poly_move(out, &r);
      return;
    }
  }
  uint64_t g = poly_gcd(&r, c);
  int64_t cc = c;
  if (g > 1) {
    for (int i = 0; i < r.n; i++) r.terms[i].coef /= (int64_t)g;
    r.c /= (int64_t)g;
    cc /= (int64_t)g;
  }
  APoly d, atom;
  arith_poly_init(&d, t);
  d.c = cc;
  atom_binop(ctx, TIR_FLOORMOD, &r, &d, &atom);
  arith_poly_scale(&atom, (int64_t)(g > 1 ? g : 1));
  arith_poly_move(out, &atom);
  arith_poly_free(&d);
  arith_poly_free(&r);
}

/* A symbolic divisor b = 1 * M (a single monomial): a == q * M + r with
 * 0 <= r < b gives q and r. */
static bool sym_divmod(ArithCtx *ctx, const APoly *a, const APoly *b, APoly *q, APoly *r) {
  if (b->n != 1 || b->c != 0 || b->terms[0].coef != 1) return false;
  const ATerm *m = &b->terms[0];
  arith_poly_init(q, a->t);
  arith_poly_init(r, a->t);
  r->c = a->c;
  for (int i = 0; i < a->n; i++) {
    const ATerm *t = &a->terms[i];
    /* does t's monomial contain m's atoms (as a multiset)? */
    bool used[64] = {false};
    bool ok = t->n <= 64 && t->n >= m->n;
    for (int k = 0; ok && k < m->n; k++) {
      bool found = false;
      for (int j = 0; j < t->n; j++)
        if (!used[j] && (t->atoms[j] == m->atoms[k] || seq_tir_expr(t->atoms[j], m->atoms[k]))) {
          used[j] = found = true;
          break;
        }
      ok = found;
    }
    if (ok) {
      const TirExpr *rest[64];
      int nr = 0;
      for (int j = 0; j < t->n; j++)
        if (!used[j]) rest[nr++] = t->atoms[j];
      arith_poly_add_mono(ctx, q, t->coef, rest, nr);
    } else {
      arith_poly_add_mono(ctx, r, t->coef, t->atoms, t->n);
    }
  }
  arith_poly_normalize(ctx, q);
  arith_poly_normalize(ctx, r);
  /* the remainder must lie in [0, b) (empty remainder: b only needs to be non-zero) */
  if (arith_poly_is_const(r) && r->c == 0) return true;
  APoly d;
  arith_poly_copy(&d, r);
  bool ok = arith_prove_poly_cmp(ctx, TIR_GE, &d);
  arith_poly_add(ctx, &d, b, -1);
  ok = ok && arith_prove_poly_cmp(ctx, TIR_LT, &d);
  arith_poly_free(&d);
  if (!ok) {
    arith_poly_free(q);
    arith_poly_free(r);
  }
  return ok;
}

static void simp_divmod(ArithCtx *ctx, const TirExpr *e, APoly *out) {
  TirExprKind k = e->kind;
  APoly a, b;
  arith_simp_poly(ctx, e->bin.a, &a);
  arith_simp_poly(ctx, e->bin.b, &b);
  DType t = e->dtype;
  bool sgn = arith_is_signed_poly(t);
  if (arith_poly_is_const(&a) && arith_poly_is_const(&b) && b.c != 0) {
    TirExpr *f = arith_const_fold(ctx->h, k, arith_mk_int(ctx, t, a.c), arith_mk_int(ctx, t, b.c));
    arith_poly_init(out, t);
    out->c = arith_pwrap(t, (uint64_t)f->ival);
    goto done;
  }
  if (arith_poly_is_const(&b) && b.c == 1) {
    if (k == TIR_DIV || k == TIR_FLOORDIV) arith_poly_copy(out, &a);
    else arith_poly_init(out, t);
    goto done;
  }
  if (!sgn) goto keep;
  if (arith_poly_is_const(&b) && b.c > 0) {
    int64_t c = b.c;
    if (k == TIR_DIV || k == TIR_MOD) {
      /* truncated division equals floor division on non-negative numerators */
      if (arith_iv_poly(ctx, &a).lo < 0) goto keep;
      k = k == TIR_DIV ? TIR_FLOORDIV : TIR_FLOORMOD;
    }
    if (k == TIR_FLOORDIV) arith_floordiv_const(ctx, &a, c, out);
    else floormod_const(ctx, &a, c, out);
    goto done;
  }
  if (!arith_poly_is_const(&b) && (k == TIR_FLOORDIV || k == TIR_FLOORMOD)) {
    APoly q, r;
    if (sym_divmod(ctx, &a, &b, &q, &r)) {
      if (k == TIR_FLOORDIV) {
        arith_poly_move(out, &q);
        arith_poly_free(&r);
      } else {
        arith_poly_move(out, &r);
        arith_poly_free(&q);
      }
      goto done;
    }
  }
keep:
  atom_binop(ctx, k, &a, &b, out);
done:
  arith_poly_free(&a);
  arith_poly_free(&b);
}

/* ------------------------------------------------------------ poly entry */

void arith_simp_poly(ArithCtx *ctx, const TirExpr *e, APoly *p) {
  DType t = e->dtype;
  switch (e->kind) {
    case TIR_INT:
      arith_poly_init(p, t);
      p->c = arith_pwrap(t, (uint64_t)e->ival);
      return;
    case TIR_VAR: {
      const ABinding *b = arith_lookup(ctx, e->var);
      if (b && b->kind == AB_VALUE && dt_eq(b->a->dtype, t) && ctx->depth < ARITH_MAX_DEPTH) {
        ctx->depth++;
        arith_simp_poly(ctx, b->a, p);
        ctx->depth--;
        return;
      }
      poly_atom(ctx, e, p);
      return;
    }
    case TIR_ADD: case TIR_SUB: case TIR_MUL: {
      if (!children_match(e)) break;
      APoly a, b;
      arith_simp_poly(ctx, e->bin.a, &a);
      arith_simp_poly(ctx, e->bin.b, &b);
      if (e->kind == TIR_MUL) {
        if (!arith_poly_mul(ctx, p, &a, &b)) {
          TirExpr *m = tir_binary(ctx->h, TIR_MUL, arith_poly_to_expr(ctx, &a),
                                  arith_poly_to_expr(ctx, &b));
          poly_atom(ctx, m, p);
        }
        arith_poly_free(&a);
      } else {
        arith_poly_add(ctx, &a, &b, e->kind == TIR_ADD ? 1 : -1);
        *p = a;
      }
      arith_poly_free(&b);
      return;
    }
    case TIR_FLOORDIV: case TIR_FLOORMOD: case TIR_DIV: case TIR_MOD:
      if (!children_match(e)) break;
      simp_divmod(ctx, e, p);
      return;
    default: break;
  }
  TirExpr *s = simp(ctx, e);
  if (!arith_is_poly_type(s->dtype)) {
    poly_atom(ctx, s, p);
    return;
  }
  arith_poly_of_simplified(ctx, s, p);
}

/* ------------------------------------------------------------ min / max */

static TirExpr *simp_minmax(ArithCtx *ctx, const TirExpr *e) {
  TirExpr *a = simp(ctx, e->bin.a), *b = simp(ctx, e->bin.b);
  bool is_min = e->kind == TIR_MIN;
  TirExpr *f = arith_const_fold(ctx->h, e->kind, a, b);
  if (f) return f;
  if (same(a, b)) return a;
  if (arith_is_signed_poly(e->dtype) && children_match(e)) {
    APoly d, pb;
    arith_poly_of_simplified(ctx, a, &d);
    arith_poly_of_simplified(ctx, b, &pb);
    arith_poly_add(ctx, &d, &pb, -1);
    arith_poly_free(&pb);
    int r = 0;
    if (arith_prove_poly_cmp(ctx, TIR_LE, &d)) r = -1;      /* a <= b */
    else if (arith_prove_poly_cmp(ctx, TIR_GE, &d)) r = 1;  /* a >= b */
    arith_poly_free(&d);
    if (r) return (r < 0) == is_min ? a : b;
    /* min(min(x, c1), c2) -> min(x, min(c1, c2)) */
    int64_t c2;
    if (a->kind == e->kind && is_int_const(b, &c2) && is_int_const(a->bin.b, NULL)) {
      TirExpr *cc = arith_const_fold(ctx->h, e->kind, a->bin.b, b);
      return tir_binary(ctx->h, e->kind, a->bin.a, cc);
    }
  }
  /* operands stay in order, as TVM's rewrite rules leave them */
  return rebuild_bin(ctx, e, a, b);
}

/* ---------------------------------------------------------- comparisons */

static TirExprKind flip_cmp(TirExprKind k) {
  switch (k) {
    case TIR_LT: return TIR_GT;
    case TIR_LE: return TIR_GE;
    case TIR_GT: return TIR_LT;
    case TIR_GE: return TIR_LE;
    default: return k;
  }
}

static TirExprKind negate_cmp(TirExprKind k) {
  switch (k) {
    case TIR_LT: return TIR_GE;
    case TIR_LE: return TIR_GT;
    case TIR_GT: return TIR_LE;
    case TIR_GE: return TIR_LT;
    case TIR_EQ: return TIR_NE;
    default: return TIR_EQ;
  }
}

/* `x // c CMP k` (c > 0, k constant) as a comparison of x itself, as TVM's
 * rewrite rules leave it: x // c < k is x < c * k, and k < x // c is
 * (k + 1) * c - 1 < x (<= and >= are the negations).  NULL when l, r have
 * another form. */
static TirExpr *floordiv_cmp(ArithCtx *ctx, TirExprKind k, const APoly *l, const APoly *r) {
  int64_t c, kc = r->c, bound;
  if (l->n != 1 || l->c != 0 || r->n != 0 || l->terms[0].coef != 1 || l->terms[0].n != 1) return NULL;
  const TirExpr *at = l->terms[0].atoms[0];
  if (at->kind != TIR_FLOORDIV || !is_int_const(at->bin.b, &c) || c <= 0) return NULL;
  bool overflow;
  switch (k) {
    case TIR_LT: case TIR_GE: overflow = __builtin_mul_overflow(kc, c, &bound); break;
    case TIR_LE: case TIR_GT:
      overflow = __builtin_add_overflow(kc, 1, &bound) || __builtin_mul_overflow(bound, c, &bound) ||
                 __builtin_sub_overflow(bound, 1, &bound);
      break;
    default: return NULL;
  }
  if (overflow || arith_pwrap(l->t, (uint64_t)bound) != bound) return NULL;
  TirExpr *x = at->bin.a, *cb = tir_int(ctx->h, l->t, bound);
  if (k == TIR_GT) return tir_binary(ctx->h, TIR_LT, cb, x);
  if (k == TIR_GE) return tir_binary(ctx->h, TIR_LE, cb, x);
  return tir_binary(ctx->h, k, x, cb);
}

/* `d CMP 0` in canonical printed form (d not constant). */
static TirExpr *canonical_cmp(ArithCtx *ctx, TirExprKind k, APoly *d) {
  DType t = d->t;
  uint64_t g = 0;
  for (int i = 0; i < d->n; i++) g = arith_ugcd(g, arith_uabs(d->terms[i].coef));
  int64_t rhs;  /* d' CMP rhs where d' = (d - c) / g */
  if (__builtin_sub_overflow((int64_t)0, d->c, &rhs) || g == 0 || g > (uint64_t)INT64_MAX) g = 1;
  if (g > 1) {
    int64_t gi = (int64_t)g;
    for (int i = 0; i < d->n; i++) d->terms[i].coef /= gi;
    switch (k) {
      case TIR_LT: case TIR_GE: rhs = arith_ceildiv64(rhs, gi); break;
      case TIR_LE: case TIR_GT: rhs = arith_floordiv64(rhs, gi); break;
      default:
        if (rhs % gi != 0) return tir_bool(ctx->h, k == TIR_NE);
        rhs /= gi;
        break;
    }
    d->c = -rhs;
  }
  /* lhs: positive terms (+ the constant when positive); rhs: the rest negated */
  APoly l, r;
  arith_poly_init(&l, t);
  arith_poly_init(&r, t);
  for (int i = 0; i < d->n; i++) {
    const ATerm *term = &d->terms[i];
    if (term->coef > 0) arith_poly_add_mono(ctx, &l, term->coef, term->atoms, term->n);
    else arith_poly_add_mono(ctx, &r, -term->coef, term->atoms, term->n);
  }
  if (d->c > 0) l.c = d->c;
  else r.c = arith_pwrap(t, (uint64_t)0 - (uint64_t)d->c);
  if (l.n == 0) {
    APoly tmp = l;
    l = r;
    r = tmp;
    k = flip_cmp(k);
  }
  TirExpr *res = floordiv_cmp(ctx, k, &l, &r);
  /* TVM's simplifier leaves no > or >=: a > b is b < a, a >= b is b <= a */
  if (!res && (k == TIR_GT || k == TIR_GE))
    res = tir_binary(ctx->h, k == TIR_GT ? TIR_LT : TIR_LE, arith_poly_to_expr(ctx, &r),
                     arith_poly_to_expr(ctx, &l));
  if (!res) res = tir_binary(ctx->h, k, arith_poly_to_expr(ctx, &l), arith_poly_to_expr(ctx, &r));
  arith_poly_free(&l);
  arith_poly_free(&r);
  return res;
}

static TirExpr *simp_cmp(ArithCtx *ctx, const TirExpr *e) {
  TirExpr *a = simp(ctx, e->bin.a), *b = simp(ctx, e->bin.b);
  TirExpr *f = arith_const_fold(ctx->h, e->kind, a, b);
  if (f) return f;
  DType t = a->dtype;
  bool exact_eq = dt_is_integer(t) || dt_is_bool(t) || dt_is_handle(t);
  if (exact_eq && t.lanes == 1 && same(a, b))
    return tir_bool(ctx->h, e->kind == TIR_EQ || e->kind == TIR_LE || e->kind == TIR_GE);
  if (!arith_is_signed_poly(t) || !dt_eq(t, b->dtype)) return rebuild_bin(ctx, e, a, b);
  APoly d, pb;
  arith_poly_of_simplified(ctx, a, &d);
  arith_poly_of_simplified(ctx, b, &pb);
  arith_poly_add(ctx, &d, &pb, -1);
  arith_poly_free(&pb);
  TirExpr *res;
  if (arith_prove_poly_cmp(ctx, e->kind, &d)) res = tir_bool(ctx->h, true);
  else if (arith_prove_poly_cmp(ctx, negate_cmp(e->kind), &d)) res = tir_bool(ctx->h, false);
  else res = canonical_cmp(ctx, e->kind, &d);
  arith_poly_free(&d);
  if (res->kind != TIR_INT && same(res, e)) return (TirExpr *)e;
  return res;
}

/* ------------------------------------------------------------ booleans */

static TirExpr *simp_not(ArithCtx *ctx, const TirExpr *e) {
  TirExpr *a = simp(ctx, e->un.a);
  bool v;
  if (is_bool_const(a, &v)) return tir_bool(ctx->h, !v);
  if (a->kind == TIR_NOT) return a->un.a;
  if (a->kind >= TIR_EQ && a->kind <= TIR_GE) {
    DType t = a->bin.a->dtype;
    /* for floats `not (x < y)` is not `x >= y` (NaN) */
    if (dt_is_integer(t) || dt_is_bool(t) || a->kind == TIR_EQ || a->kind == TIR_NE) {
      TirExpr *n = tir_binary(ctx->h, negate_cmp(a->kind), a->bin.a, a->bin.b);
      return simp(ctx, n);
    }
  }
  if (a == e->un.a) return (TirExpr *)e;
  return with_span(ctx, tir_not(ctx->h, a), e);
}

static TirExpr *simp_andor(ArithCtx *ctx, const TirExpr *e) {
  bool is_and = e->kind == TIR_AND;
  TirExpr *a = simp(ctx, e->bin.a);
  bool v;
  /* short-circuit on the left operand */
  if (is_bool_const(a, &v) && a->dtype.lanes == 1) {
    if (v != is_and) return a;  /* False and _ / True or _ */
    return simp(ctx, e->bin.b);
  }
  TirExpr *b = simp(ctx, e->bin.b);
  if (is_bool_const(b, &v)) {
    if (v != is_and) return b;
    return a;
  }
  if (same(a, b)) return a;
  /* x and not x / x or not x (a negated integer comparison included) */
  if ((b->kind == TIR_NOT && same(b->un.a, a)) || (a->kind == TIR_NOT && same(a->un.a, b)))
    return tir_bool(ctx->h, !is_and);
  if (a->kind >= TIR_EQ && a->kind <= TIR_GE && b->kind == negate_cmp(a->kind) &&
      !dt_is_float(a->bin.a->dtype) && same(a->bin.a, b->bin.a) && same(a->bin.b, b->bin.b))
    return tir_bool(ctx->h, !is_and);
  /* the negation written with its operands swapped (x < y, y <= x) */
  if (a->kind >= TIR_EQ && a->kind <= TIR_GE && b->kind == flip_cmp(negate_cmp(a->kind)) &&
      !dt_is_float(a->bin.a->dtype) && same(a->bin.a, b->bin.b) && same(a->bin.b, b->bin.a))
    return tir_bool(ctx->h, !is_and);
  return rebuild_bin(ctx, e, a, b);
}

/* ------------------------------------------------------------ float ops */

static bool is_float_const(const TirExpr *e, double v) {
  return e->kind == TIR_FLOAT && e->fval == v;
}

static TirExpr *simp_float_arith(ArithCtx *ctx, const TirExpr *e) {
  TirExpr *a = simp(ctx, e->bin.a), *b = simp(ctx, e->bin.b);
  TirExpr *f = arith_const_fold(ctx->h, e->kind, a, b);
  if (f) return f;
  if (dt_is_float(e->dtype)) {
    /* exact IEEE identities only (x + 0.0 is not x for x = -0.0) */
    switch (e->kind) {
      case TIR_MUL:
        if (is_float_const(b, 1.0)) return a;
        if (is_float_const(a, 1.0)) return b;
        break;
      case TIR_DIV:
        if (is_float_const(b, 1.0)) return a;
        break;
      case TIR_SUB:
        if (b->kind == TIR_FLOAT && b->fval == 0 && !signbit(b->fval)) return a;
        break;
      case TIR_ADD:
        if (b->kind == TIR_FLOAT && b->fval == 0 && signbit(b->fval)) return a;
        break;
      default: break;
    }
  }
  return rebuild_bin(ctx, e, a, b);
}

/* ------------------------------------------------------------ dispatch */

static TirExpr *simp_args(ArithCtx *ctx, const TirExpr *e) {
  TirExpr **args = NULL;
  for (int i = 0; i < e->call.n; i++) {
    TirExpr *s = simp(ctx, e->call.args[i]);
    if (s != e->call.args[i] && !args) {
      args = xmalloc((size_t)e->call.n * sizeof *args);
      memcpy(args, e->call.args, (size_t)e->call.n * sizeof *args);
    }
    if (args) args[i] = s;
  }
  if (!args) return (TirExpr *)e;
  TirExpr *r = with_span(ctx, tir_call(ctx->h, e->dtype, e->call.op, args, e->call.n), e);
  free(args);
  return r;
}

static TirExpr *simp(ArithCtx *ctx, const TirExpr *e) {
  if (!e) return NULL;
  if (ctx->depth >= 4 * ARITH_MAX_DEPTH) return (TirExpr *)e;
  DType t = e->dtype;
  switch (e->kind) {
    case TIR_INT: case TIR_FLOAT: case TIR_STR: return (TirExpr *)e;
    case TIR_VAR: {
      const ABinding *b = arith_lookup(ctx, e->var);
      if (b && b->kind == AB_VALUE && dt_eq(b->a->dtype, t) && ctx->depth < ARITH_MAX_DEPTH) {
        ctx->depth++;
        TirExpr *r = simp(ctx, b->a);
        ctx->depth--;
        return r;
      }
      return (TirExpr *)e;
    }
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_DIV: case TIR_MOD:
    case TIR_FLOORDIV: case TIR_FLOORMOD:
      if (arith_is_poly_type(t) && children_match(e)) {
        APoly p;
        arith_simp_poly(ctx, e, &p);
        TirExpr *r = arith_poly_to_expr(ctx, &p);
        arith_poly_free(&p);
        return r;
      }
      return simp_float_arith(ctx, e);
    case TIR_MIN: case TIR_MAX: return simp_minmax(ctx, e);
    case TIR_EQ: case TIR_NE: case TIR_LT: case TIR_LE: case TIR_GT: case TIR_GE:
      return simp_cmp(ctx, e);
    case TIR_AND: case TIR_OR: return simp_andor(ctx, e);
    case TIR_NOT: return simp_not(ctx, e);
    case TIR_SELECT: {
      TirExpr *c = simp(ctx, e->sel.cond);
      bool v;
      if (is_bool_const(c, &v)) return simp(ctx, v ? e->sel.t : e->sel.f);
      TirExpr *a = simp(ctx, e->sel.t), *b = simp(ctx, e->sel.f);
      if (same(a, b)) return a;
      if (c == e->sel.cond && a == e->sel.t && b == e->sel.f) return (TirExpr *)e;
      return with_span(ctx, tir_select(ctx->h, c, a, b), e);
    }
    case TIR_CAST: {
      TirExpr *a = simp(ctx, e->un.a);
      TirExpr *f = arith_const_fold_cast(ctx->h, t, a);
      if (f) return f;
      if (dt_eq(a->dtype, t)) return a;
      if (a == e->un.a) return (TirExpr *)e;
      return with_span(ctx, tir_cast(ctx->h, t, a), e);
    }
    case TIR_LOAD: {
      TirExpr **idx = NULL;
      for (int i = 0; i < e->load.n; i++) {
        TirExpr *s = simp(ctx, e->load.idx[i]);
        if (s != e->load.idx[i] && !idx) {
          idx = xmalloc((size_t)e->load.n * sizeof *idx);
          memcpy(idx, e->load.idx, (size_t)e->load.n * sizeof *idx);
        }
        if (idx) idx[i] = s;
      }
      if (!idx) return (TirExpr *)e;
      TirExpr *r = with_span(ctx, tir_load(ctx->h, e->load.buf, idx, e->load.n), e);
      r->dtype = e->dtype;
      free(idx);
      return r;
    }
    case TIR_RAMP: {
      TirExpr *b = simp(ctx, e->ramp.base), *s = simp(ctx, e->ramp.stride);
      if (b == e->ramp.base && s == e->ramp.stride) return (TirExpr *)e;
      return with_span(ctx, tir_ramp(ctx->h, b, s, e->ramp.lanes), e);
    }
    case TIR_BROADCAST: {
      TirExpr *v = simp(ctx, e->bcast.value);
      if (v == e->bcast.value) return (TirExpr *)e;
      return with_span(ctx, tir_broadcast(ctx->h, v, e->bcast.lanes), e);
    }
    case TIR_LET: {
      TirExpr *v = simp(ctx, e->let.value);
      if (v->kind == TIR_INT || v->kind == TIR_FLOAT || v->kind == TIR_VAR) {
        arith_push(ctx);
        arith_bind_value(ctx, e->let.var, v);
        TirExpr *r = simp(ctx, e->let.body);
        arith_pop(ctx);
        return r;
      }
      TirExpr *body = simp(ctx, e->let.body);
      if (v == e->let.value && body == e->let.body) return (TirExpr *)e;
      return with_span(ctx, tir_let(ctx->h, e->let.var, v, body), e);
    }
    case TIR_CALL: {
      const TirOpInfo *op = e->call.op;
      if (op->id == TIR_OP_IF_THEN_ELSE && e->call.n == 3) {
        TirExpr *c = simp(ctx, e->call.args[0]);
        bool v;
        if (is_bool_const(c, &v)) return simp(ctx, e->call.args[v ? 1 : 2]);
      }
      return simp_args(ctx, e);
    }
    default: return (TirExpr *)e;
  }
}

TirExpr *arith_simp(ArithCtx *ctx, const TirExpr *e) { return simp(ctx, e); }

TirExpr *arith_simplify(ArithCtx *ctx, const TirExpr *e) {
  if (!e) return NULL;
  TirExpr *r = simp(ctx, e);
  if (r != e && seq_tir_expr(r, e)) return (TirExpr *)e;
  return r;
}
