/* affine.c - affine views of expressions and iterator-map detection.
 *
 * arith_affine reads coefficients off the canonical sum.  The iterator map
 * (a subset of TVM's DetectIterMap) parses each binding into pieces
 * scale * ((source // lower_factor) % extent) of loop vars or of fused sums
 * of such pieces, checks that each binding is dense on its domain, then that
 * the pieces of every source tile it without overlap (and, when bijective,
 * without gaps). */
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith_internal.h"
#include "ir/structural_equal.h"
#include "base/util.h"

/* ---------------------------------------------------------------- affine */

bool arith_affine(ArithCtx *ctx, const TirExpr *e, const TirVar *const *vars, int nvars,
                  int64_t *coeffs, TirExpr **rest) {
  if (!arith_is_poly_type(e->dtype)) return false;
  for (int k = 0; k < nvars; k++) coeffs[k] = 0;
  APoly p, r;
  arith_simp_poly(ctx, e, &p);
  arith_poly_init(&r, p.t);
  r.c = p.c;
  bool ok = true;
  for (int i = 0; i < p.n && ok; i++) {
    const ATerm *t = &p.terms[i];
    int which = -1;
    for (int k = 0; k < nvars; k++)
      if (arith_term_uses_var(t, vars[k])) {
        which = k;
        break;
      }
    if (which < 0) {
      arith_poly_add_mono(ctx, &r, t->coef, t->atoms, t->n);
      continue;
    }
    ok = t->n == 1 && t->atoms[0]->kind == TIR_VAR && t->atoms[0]->var == vars[which];
    if (ok) coeffs[which] = t->coef;
  }
  if (ok && rest) *rest = arith_poly_to_expr(ctx, &r);
  arith_poly_free(&r);
  arith_poly_free(&p);
  return ok;
}

/* ------------------------------------------------------------ iter maps */

typedef struct IMark IMark;

/* scale * ((mark // lf) % ext) */
typedef struct ISplit {
  IMark *mark;
  TirExpr *lf, *ext, *scale;
} ISplit;

struct IMark {
  const TirVar *var; /* source loop var, or NULL for a fused sum */
  TirExpr *extent;   /* number of values */
  ISplit *parts;     /* fused: the pieces, smallest scale last */
  int nparts;
  ISplit *uses;      /* pieces of this mark used by bindings / fused marks */
  int nuses, capuses;
};

typedef struct ISum {
  ISplit *s;
  int n, cap;
  TirExpr *base; /* the iterator-free part */
} ISum;

typedef struct IterCtx {
  ArithCtx *ctx;
  const TirVar *const *iters;
  int niters;
  IMark **marks; /* all marks, creation order */
  int nmarks, capmarks;
  const char *error;
} IterCtx;

static TirExpr *s_mul(IterCtx *ic, TirExpr *a, TirExpr *b) {
  return arith_simp(ic->ctx, tir_binary(ic->ctx->h, TIR_MUL, a, b));
}
static TirExpr *s_div(IterCtx *ic, TirExpr *a, TirExpr *b) {
  return arith_simp(ic->ctx, tir_binary(ic->ctx->h, TIR_FLOORDIV, a, b));
}
static bool s_eq(IterCtx *ic, TirExpr *a, TirExpr *b) {
  if (!dt_eq(a->dtype, b->dtype)) {
    int64_t x, y;
    return tir_is_const_int(a, &x) && tir_is_const_int(b, &y) && x == y;
  }
  return arith_can_prove_equal(ic->ctx, a, b);
}
static bool s_divisible(IterCtx *ic, TirExpr *a, TirExpr *b) {
  TirExpr *m = arith_simp(ic->ctx, tir_binary(ic->ctx->h, TIR_FLOORMOD, a, b));
  return tir_is_zero(m);
}
static TirExpr *k_int(IterCtx *ic, DType t, int64_t v) { return arith_mk_int(ic->ctx, t, v); }

static bool fail(IterCtx *ic, const char *why) {
  if (!ic->error) ic->error = why;
  return false;
}

static IMark *new_mark(IterCtx *ic, const TirVar *var, TirExpr *extent) {
  IMark *m = xcalloc(1, sizeof *m);
  m->var = var;
  m->extent = extent;
  VEC_PUSH(ic->marks, ic->nmarks, ic->capmarks, m);
  return m;
}

static void sum_push(ISum *s, ISplit sp) {
  VEC_PUSH(s->s, s->n, s->cap, sp);
}

static IMark *var_mark(IterCtx *ic, const TirVar *v) {
  for (int i = 0; i < ic->nmarks; i++)
    if (ic->marks[i]->var == v) return ic->marks[i];
  return NULL;
}

static bool uses_iter(IterCtx *ic, const TirExpr *e) {
  for (int i = 0; i < ic->niters; i++)
    if (tir_expr_uses_var(e, ic->iters[i])) return true;
  return false;
}

static bool split_eq(IterCtx *ic, const ISplit *a, const ISplit *b) {
  return a->mark == b->mark && s_eq(ic, a->lf, b->lf) && s_eq(ic, a->ext, b->ext) &&
         s_eq(ic, a->scale, b->scale);
}

/* Sorts pieces by scale, largest first (constant scales; symbolic keep order
 * unless provably ordered). */
static void sort_by_scale_desc(IterCtx *ic, ISplit *s, int n) {
  for (int k = 1; k < n; k++) {
    ISplit x = s[k];
    int j = k - 1;
    while (j >= 0) {
      int64_t a, b;
      bool lt = tir_is_const_int(s[j].scale, &a) && tir_is_const_int(x.scale, &b) && a < b;
      if (!lt) {
        /* symbolic: s[j] < x when x = s[j] * something > 1 is provable */
        TirExpr *d = arith_simp(ic->ctx, tir_binary(ic->ctx->h, TIR_LT, s[j].scale, x.scale));
        lt = tir_is_const_int(d, &a) && a == 1;
      }
      if (!lt) break;
      s[j + 1] = s[j];
      j--;
    }
    s[j + 1] = x;
  }
}

static bool parse_sum(IterCtx *ic, const TirExpr *e, ISum *out);

/* Views a sum as one piece with scale 1 (fusing dense sums into a mark). */
static bool sum_to_split(IterCtx *ic, ISum *s, DType t, ISplit *out) {
  if (!tir_is_zero(s->base)) return fail(ic, "a fused iterator has an offset");
  if (s->n == 0) return fail(ic, "a division of a constant by a constant");
  if (s->n == 1) {
    *out = s->s[0];
    return true;
  }
  sort_by_scale_desc(ic, s->s, s->n);
  if (!tir_is_one(s->s[s->n - 1].scale)) return fail(ic, "a fused iterator is not dense");
  for (int k = s->n - 2; k >= 0; k--)
    if (!s_eq(ic, s->s[k].scale, s_mul(ic, s->s[k + 1].scale, s->s[k + 1].ext)))
      return fail(ic, "a fused iterator is not dense");
  TirExpr *extent = s_mul(ic, s->s[0].scale, s->s[0].ext);
  /* reuse an equal fused mark */
  for (int i = 0; i < ic->nmarks; i++) {
    IMark *m = ic->marks[i];
    if (m->var || m->nparts != s->n) continue;
    bool eq = true;
    for (int k = 0; k < s->n && eq; k++) eq = split_eq(ic, &m->parts[k], &s->s[k]);
    if (eq) {
      *out = (ISplit){m, k_int(ic, t, 1), extent, k_int(ic, t, 1)};
      return true;
    }
  }
  IMark *m = new_mark(ic, NULL, extent);
  m->parts = xmalloc((size_t)s->n * sizeof *m->parts);
  memcpy(m->parts, s->s, (size_t)s->n * sizeof *m->parts);
  m->nparts = s->n;
  *out = (ISplit){m, k_int(ic, t, 1), extent, k_int(ic, t, 1)};
  return true;
}

/* Parses one atom with its scale into pieces added to out. */
static bool parse_atom(IterCtx *ic, const TirExpr *a, TirExpr *scale, ISum *out) {
  DType t = a->dtype;
  if (a->kind == TIR_VAR) {
    IMark *m = var_mark(ic, a->var);
    if (!m) return fail(ic, "a loop var has no known range");
    sum_push(out, (ISplit){m, k_int(ic, t, 1), m->extent, scale});
    return true;
  }
  if ((a->kind != TIR_FLOORDIV && a->kind != TIR_FLOORMOD) || a->bin.b->kind != TIR_INT ||
      a->bin.b->ival <= 0)
    return fail(ic, "a binding is not quasi-affine");
  int64_t c = a->bin.b->ival;
  ISum inner = {0};
  bool ok = parse_sum(ic, a->bin.a, &inner);
  ISplit sp;
  if (ok && inner.n == 1 && tir_is_zero(inner.base)) {
    /* (x * s) // c == x // (c / s); (x * s) % c == (x % (c / s)) * s */
    int64_t sc;
    if (tir_is_const_int(inner.s[0].scale, &sc) && sc > 1) {
      if (c % sc != 0) {
        free(inner.s);
        return fail(ic, "a scaled iterator is divided by a non-multiple of its scale");
      }
      c /= sc;
      if (a->kind == TIR_FLOORMOD) scale = s_mul(ic, scale, k_int(ic, t, sc));
      inner.s[0].scale = k_int(ic, t, 1);
    }
  }
  ok = ok && sum_to_split(ic, &inner, t, &sp);
  free(inner.s);
  if (!ok) return false;
  TirExpr *ce = k_int(ic, sp.ext->dtype, c);
  if (!tir_is_one(sp.scale)) return fail(ic, "a binding is not quasi-affine");
  if (c == 1) {
    if (a->kind == TIR_FLOORMOD) return true; /* x % 1 == 0 */
  } else if (!s_divisible(ic, sp.ext, ce)) {
    return fail(ic, "an iterator's extent is not divisible by the split factor");
  }
  if (a->kind == TIR_FLOORDIV)
    sp = (ISplit){sp.mark, s_mul(ic, sp.lf, ce), s_div(ic, sp.ext, ce), scale};
  else
    sp = (ISplit){sp.mark, sp.lf, ce, scale};
  sum_push(out, sp);
  return true;
}

static bool parse_sum(IterCtx *ic, const TirExpr *e, ISum *out) {
  if (!arith_is_signed_poly(e->dtype)) return fail(ic, "a binding is not an integer expression");
  ArithCtx *ctx = ic->ctx;
  APoly p, base;
  arith_simp_poly(ctx, e, &p);
  arith_poly_init(&base, p.t);
  base.c = p.c;
  bool ok = true;
  for (int i = 0; i < p.n && ok; i++) {
    const ATerm *t = &p.terms[i];
    int which = -1, nit = 0;
    for (int k = 0; k < t->n; k++)
      if (uses_iter(ic, t->atoms[k])) {
        which = k;
        nit++;
      }
    if (nit == 0) {
      arith_poly_add_mono(ctx, &base, t->coef, t->atoms, t->n);
      continue;
    }
    if (nit > 1) {
      ok = fail(ic, "a binding multiplies two iterators");
      break;
    }
    /* scale = coef * the iterator-free atoms */
    APoly sc;
    arith_poly_init(&sc, p.t);
    const TirExpr *others[64];
    int no = 0;
    for (int k = 0; k < t->n && no < 64; k++)
      if (k != which) others[no++] = t->atoms[k];
    arith_poly_add_mono(ctx, &sc, t->coef, others, no);
    TirExpr *scale = arith_poly_to_expr(ctx, &sc);
    arith_poly_free(&sc);
    ok = parse_atom(ic, t->atoms[which], scale, out);
  }
  out->base = arith_poly_to_expr(ctx, &base);
  arith_poly_free(&base);
  arith_poly_free(&p);
  return ok;
}

static void add_use(IMark *m, ISplit sp) {
  VEC_PUSH(m->uses, m->nuses, m->capuses, sp);
}

/* Checks that binding b's pieces are dense on [min, min + extent). */
static bool check_binding(IterCtx *ic, ISum *s, const TirRange *dom) {
  if (!s_eq(ic, s->base, dom->min)) return fail(ic, "a binding does not start at its domain's min");
  DType t = s->base->dtype;
  if (s->n == 0) {
    if (!tir_is_one(dom->extent)) return fail(ic, "a constant binding over a domain of extent > 1");
    return true;
  }
  sort_by_scale_desc(ic, s->s, s->n);
  TirExpr *expect = k_int(ic, t, 1);
  for (int k = s->n - 1; k >= 0; k--) {
    if (!s_eq(ic, s->s[k].scale, expect)) return fail(ic, "a binding is not surjective onto its domain");
    expect = s_mul(ic, expect, s->s[k].ext);
  }
  if (!s_eq(ic, expect, dom->extent)) return fail(ic, "a binding's extent differs from its domain's");
  return true;
}

/* Checks that the uses of m tile it: no overlap, and when exact, no gaps. */
static bool check_mark(IterCtx *ic, IMark *m, bool exact) {
  if (m->nuses == 0) {
    if (exact && !tir_is_one(m->extent)) return fail(ic, "a loop var is not used by the bindings");
    return true;
  }
  /* order uses by lower factor (ascending) */
  for (int k = 1; k < m->nuses; k++) {
    ISplit x = m->uses[k];
    int j = k - 1;
    while (j >= 0) {
      TirExpr *d = arith_simp(ic->ctx, tir_binary(ic->ctx->h, TIR_LT, x.lf, m->uses[j].lf));
      int64_t v;
      if (!(tir_is_const_int(d, &v) && v == 1)) break;
      m->uses[j + 1] = m->uses[j];
      j--;
    }
    m->uses[j + 1] = x;
  }
  DType t = m->extent->dtype;
  TirExpr *next = k_int(ic, t, 1);
  for (int k = 0; k < m->nuses; k++) {
    ISplit *u = &m->uses[k];
    if (exact) {
      if (!s_eq(ic, u->lf, next)) return fail(ic, "the bindings do not cover a loop var exactly");
    } else {
      /* u->lf >= next */
      TirExpr *d = arith_simp(ic->ctx, tir_binary(ic->ctx->h, TIR_GE, u->lf, next));
      int64_t v;
      if (!(tir_is_const_int(d, &v) && v == 1)) return fail(ic, "two bindings overlap on a loop var");
    }
    next = s_mul(ic, u->lf, u->ext);
  }
  if (exact && !s_eq(ic, next, m->extent)) return fail(ic, "the bindings do not cover a loop var exactly");
  return true;
}

ArithIterMap arith_detect_iter_map(ArithCtx *ctx, TirExpr *const *bindings, const TirRange *doms,
                                   int n, const TirVar *const *iters, int niters,
                                   ArithIterCheck check) {
  ArithIterMap res;
  memset(&res, 0, sizeof res);
  res.n = n;
  IterCtx ic = {ctx, iters, niters, NULL, 0, 0, NULL};
  ISum *sums = xcalloc((size_t)(n > 0 ? n : 1), sizeof *sums);
  bool ok = true;
  for (int i = 0; i < niters && ok; i++) {
    const ABinding *b = arith_lookup(ctx, iters[i]);
    if (!b || b->kind != AB_RANGE) ok = fail(&ic, "a loop var has no known range");
    else if (!s_eq(&ic, b->a, k_int(&ic, b->a->dtype, 0))) ok = fail(&ic, "a loop var's range does not start at 0");
    else new_mark(&ic, iters[i], arith_simp(ctx, b->b));
  }
  for (int i = 0; i < n && ok; i++) {
    ok = parse_sum(&ic, bindings[i], &sums[i]) && check_binding(&ic, &sums[i], &doms[i]);
    for (int k = 0; ok && k < sums[i].n; k++) add_use(sums[i].s[k].mark, sums[i].s[k]);
  }
  /* fused marks (latest first: they may contain earlier ones), then sources */
  bool exact = check == ARITH_ITER_BIJECTIVE;
  for (int i = ic.nmarks - 1; i >= 0 && ok; i--) {
    IMark *m = ic.marks[i];
    if (m->var) continue;
    if (m->nuses == 0) continue;
    ok = check_mark(&ic, m, exact);
    for (int k = 0; ok && k < m->nparts; k++) add_use(m->parts[k].mark, m->parts[k]);
  }
  for (int i = 0; i < ic.nmarks && ok; i++)
    if (ic.marks[i]->var) ok = check_mark(&ic, ic.marks[i], exact);
  res.ok = ok;
  res.error = ok ? NULL : (ic.error ? ic.error : "the bindings are not an iterator map");
  if (ok) {
    res.splits = xcalloc((size_t)(n > 0 ? n : 1), sizeof *res.splits);
    res.nsplits = xcalloc((size_t)(n > 0 ? n : 1), sizeof *res.nsplits);
    for (int i = 0; i < n; i++) {
      res.nsplits[i] = sums[i].n;
      res.splits[i] = xcalloc((size_t)(sums[i].n > 0 ? sums[i].n : 1), sizeof **res.splits);
      for (int k = 0; k < sums[i].n; k++) {
        const ISplit *s = &sums[i].s[k];
        res.splits[i][k] = (ArithIterSplit){s->mark->var, s->lf, s->ext, s->scale};
      }
    }
  }
  for (int i = 0; i < n; i++) free(sums[i].s);
  free(sums);
  for (int i = 0; i < ic.nmarks; i++) {
    free(ic.marks[i]->parts);
    free(ic.marks[i]->uses);
    free(ic.marks[i]);
  }
  free(ic.marks);
  return res;
}

void arith_iter_map_free(ArithIterMap *m) {
  if (m->splits)
    for (int i = 0; i < m->n; i++) free(m->splits[i]);
  free(m->splits);
  free(m->nsplits);
  m->splits = NULL;
  m->nsplits = NULL;
}
