/* ctx.c - the analyzer context: variable bindings, assumed facts, scopes.
 *
 * Bindings form a stack searched from the top, so an inner binding of a var
 * hides an outer one until its scope is popped.  Facts are normalised linear
 * forms with an interval (see AFact) so that bounds can use them cheaply. */
#include "ir/arith/arith_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

ArithCtx *arith_new(IrHeap *h) {
  ArithCtx *ctx = xcalloc(1, sizeof *ctx);
  ctx->h = h;
  ir_ptrmap_init(&ctx->seen);
  return ctx;
}

void arith_free(ArithCtx *ctx) {
  if (!ctx) return;
  free(ctx->binds);
  free(ctx->facts);
  free(ctx->marks);
  ir_ptrmap_free(&ctx->seen);
  free(ctx);
}

IrHeap *arith_heap(const ArithCtx *ctx) { return ctx->h; }

static void push_bind(ArithCtx *ctx, ABinding b) {
  VEC_PUSH(ctx->binds, ctx->nbinds, ctx->capbinds, b);
}

void arith_bind_range(ArithCtx *ctx, const TirVar *var, TirExpr *min, TirExpr *extent) {
  push_bind(ctx, (ABinding){var, AB_RANGE, min, extent});
}

void arith_bind_value(ArithCtx *ctx, const TirVar *var, TirExpr *value) {
  push_bind(ctx, (ABinding){var, AB_VALUE, value, NULL});
}

int arith_bind_index(const ArithCtx *ctx, const TirVar *var) {
  for (int i = ctx->nbinds - 1; i >= 0; i--)
    if (ctx->binds[i].var == var) return i;
  return -1;
}

const ABinding *arith_lookup(const ArithCtx *ctx, const TirVar *var) {
  int i = arith_bind_index(ctx, var);
  return i < 0 ? NULL : &ctx->binds[i];
}

void arith_push(ArithCtx *ctx) {
  VEC_RESERVE(ctx->marks, ctx->capmarks, ctx->nmarks + 2);
  ctx->marks[ctx->nmarks++] = ctx->nbinds;
  ctx->marks[ctx->nmarks++] = ctx->nfacts;
}

void arith_pop(ArithCtx *ctx) {
  TVS_ASSERT(ctx->nmarks >= 2);
  int nfacts = ctx->marks[--ctx->nmarks];
  ctx->nbinds = ctx->marks[--ctx->nmarks];
  while (ctx->nfacts > nfacts) {
    ctx->nfacts--;
    if (!ctx->facts[ctx->nfacts].var) ctx->nvarfacts--;
  }
}

/* ---------------------------------------------------------------- facts */

static void push_fact(ArithCtx *ctx, AFact f) {
  VEC_PUSH(ctx->facts, ctx->nfacts, ctx->capfacts, f);
  if (!f.var) ctx->nvarfacts++;
}

static int64_t sat_sub(int64_t a, int64_t c) {
  /* a - c where a may be an infinity (kept) */
  if (a == AIV_NINF || a == AIV_PINF) return a;
  int64_t r;
  if (__builtin_sub_overflow(a, c, &r)) return c > 0 ? AIV_NINF : AIV_PINF;
  return r;
}

/* Records `d in [lo, hi]` for the poly d (constant included). */
static void assume_poly(ArithCtx *ctx, APoly *d, int64_t lo, int64_t hi) {
  if (d->n == 0) return;
  lo = sat_sub(lo, d->c);
  hi = sat_sub(hi, d->c);
  d->c = 0;
  uint64_t g = 0;
  for (int i = 0; i < d->n; i++) g = arith_ugcd(g, arith_uabs(d->terms[i].coef));
  if (g == 0 || g > (uint64_t)INT64_MAX) return;
  if (d->terms[0].coef < 0) {
    for (int i = 0; i < d->n; i++) {
      if (d->terms[i].coef == INT64_MIN) return;
      d->terms[i].coef = -d->terms[i].coef;
    }
    int64_t nlo = hi == AIV_PINF ? AIV_NINF : (hi == AIV_NINF ? AIV_PINF : -hi);
    int64_t nhi = lo == AIV_NINF ? AIV_PINF : (lo == AIV_PINF ? AIV_NINF : -lo);
    lo = nlo;
    hi = nhi;
  }
  int64_t gi = (int64_t)g;
  for (int i = 0; i < d->n; i++) d->terms[i].coef /= gi;
  if (lo != AIV_NINF) lo = arith_ceildiv64(lo, gi);
  if (hi != AIV_PINF) hi = arith_floordiv64(hi, gi);
  AFact f;
  f.d = arith_poly_to_expr(ctx, d);
  f.var = f.d->kind == TIR_VAR ? f.d->var : NULL;
  f.lo = lo;
  f.hi = hi;
  push_fact(ctx, f);
}

void arith_assume(ArithCtx *ctx, const TirExpr *cond) {
  if (!cond) return;
  if (cond->kind == TIR_AND) {
    arith_assume(ctx, cond->bin.a);
    arith_assume(ctx, cond->bin.b);
    return;
  }
  if (cond->kind == TIR_NOT) {
    const TirExpr *c = cond->un.a;
    TirExprKind neg;
    switch (c->kind) {
      case TIR_LT: neg = TIR_GE; break;
      case TIR_LE: neg = TIR_GT; break;
      case TIR_GT: neg = TIR_LE; break;
      case TIR_GE: neg = TIR_LT; break;
      default: return;
    }
    arith_assume(ctx, tir_binary(ctx->h, neg, c->bin.a, c->bin.b));
    return;
  }
  if (cond->kind < TIR_EQ || cond->kind > TIR_GE || cond->kind == TIR_NE) return;
  const TirExpr *a = cond->bin.a, *b = cond->bin.b;
  if (!arith_is_signed_poly(a->dtype) || !dt_eq(a->dtype, b->dtype)) return;
  APoly pa, pb;
  arith_simp_poly(ctx, a, &pa);
  arith_simp_poly(ctx, b, &pb);
  arith_poly_add(ctx, &pa, &pb, -1);
  arith_poly_free(&pb);
  int64_t lo = AIV_NINF, hi = AIV_PINF;
  switch (cond->kind) {
    case TIR_LT: hi = -1; break;
    case TIR_LE: hi = 0; break;
    case TIR_GT: lo = 1; break;
    case TIR_GE: lo = 0; break;
    default: lo = hi = 0; break; /* EQ */
  }
  assume_poly(ctx, &pa, lo, hi);
  arith_poly_free(&pa);
}
