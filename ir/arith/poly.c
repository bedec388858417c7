/* poly.c - the canonical sum: coef * monomial terms plus a constant.
 *
 * Defines the deterministic order of variables, atoms and terms (documented in
 * ir/arith.h), combines like terms exactly (coefficients wrap to the dtype's
 * width) and turns a sum back into an expression in natural reading order. */
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith_internal.h"
#include "ir/structural_equal.h"
#include "base/util.h"

#define MAX_PRODUCT_TERMS 64

bool arith_is_poly_type(DType t) {
  return (t.code == DT_INT || t.code == DT_UINT) && t.lanes == 1 &&
         (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64);
}

bool arith_is_signed_poly(DType t) { return arith_is_poly_type(t) && t.code == DT_INT; }

int64_t arith_pwrap(DType t, uint64_t v) {
  if (t.bits >= 64) return (int64_t)v;
  uint64_t mask = (UINT64_C(1) << t.bits) - 1;
  v &= mask;
  if ((v >> (t.bits - 1)) & 1) v |= ~mask;
  return (int64_t)v;
}

TirExpr *arith_mk_int(ArithCtx *ctx, DType t, int64_t v) {
  return tir_int(ctx->h, t, arith_wrap_int(t, (uint64_t)v));
}

/* ---------------------------------------------------------------- order */

static int seen_seq(ArithCtx *ctx, const TirVar *v) {
  void *p = ir_ptrmap_get(&ctx->seen, v);
  if (p) return (int)(intptr_t)p;
  ctx->nseen++;
  ir_ptrmap_put(&ctx->seen, v, (void *)(intptr_t)ctx->nseen);
  return ctx->nseen;
}

int arith_var_cmp(ArithCtx *ctx, const TirVar *a, const TirVar *b) {
  if (a == b) return 0;
  int ra = arith_bind_index(ctx, a), rb = arith_bind_index(ctx, b);
  if (ra >= 0 && rb >= 0) return ra < rb ? -1 : 1;
  if (ra >= 0) return -1;
  if (rb >= 0) return 1;
  int c = strcmp(a->name ? a->name : "", b->name ? b->name : "");
  if (c) return c < 0 ? -1 : 1;
  return seen_seq(ctx, a) < seen_seq(ctx, b) ? -1 : 1;
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

/* A total order on expressions consistent with structural equality except
 * for buffers and let vars with equal names (then 0; callers keep order). */
static int expr_cmp(ArithCtx *ctx, const TirExpr *a, const TirExpr *b) {
  if (a == b) return 0;
  if (!a || !b) return a ? 1 : -1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->dtype.code != b->dtype.code) return cmp_i64(a->dtype.code, b->dtype.code);
  if (a->dtype.bits != b->dtype.bits) return cmp_i64(a->dtype.bits, b->dtype.bits);
  if (a->dtype.lanes != b->dtype.lanes) return cmp_i64(a->dtype.lanes, b->dtype.lanes);
  int c;
  switch (a->kind) {
    case TIR_INT: return cmp_i64(a->ival, b->ival);
    case TIR_FLOAT: {
      uint64_t x, y;
      memcpy(&x, &a->fval, 8);
      memcpy(&y, &b->fval, 8);
      return x < y ? -1 : x > y;
    }
    case TIR_STR: c = strcmp(a->str, b->str); return c < 0 ? -1 : c > 0;
    case TIR_VAR: return arith_var_cmp(ctx, a->var, b->var);
    case TIR_NOT: case TIR_CAST: return expr_cmp(ctx, a->un.a, b->un.a);
    case TIR_SELECT:
      if ((c = expr_cmp(ctx, a->sel.cond, b->sel.cond))) return c;
      if ((c = expr_cmp(ctx, a->sel.t, b->sel.t))) return c;
      return expr_cmp(ctx, a->sel.f, b->sel.f);
    case TIR_LOAD:
      c = strcmp(a->load.buf->name, b->load.buf->name);
      if (c) return c < 0 ? -1 : 1;
      if (a->load.n != b->load.n) return cmp_i64(a->load.n, b->load.n);
      for (int i = 0; i < a->load.n; i++)
        if ((c = expr_cmp(ctx, a->load.idx[i], b->load.idx[i]))) return c;
      return 0;
    case TIR_RAMP:
      if ((c = expr_cmp(ctx, a->ramp.base, b->ramp.base))) return c;
      if ((c = expr_cmp(ctx, a->ramp.stride, b->ramp.stride))) return c;
      return cmp_i64(a->ramp.lanes, b->ramp.lanes);
    case TIR_BROADCAST:
      if ((c = expr_cmp(ctx, a->bcast.value, b->bcast.value))) return c;
      return cmp_i64(a->bcast.lanes, b->bcast.lanes);
    case TIR_LET:
      if ((c = expr_cmp(ctx, a->let.value, b->let.value))) return c;
      return expr_cmp(ctx, a->let.body, b->let.body);
    case TIR_CALL:
      if (a->call.op->id != b->call.op->id) return cmp_i64(a->call.op->id, b->call.op->id);
      if (a->call.n != b->call.n) return cmp_i64(a->call.n, b->call.n);
      for (int i = 0; i < a->call.n; i++)
        if ((c = expr_cmp(ctx, a->call.args[i], b->call.args[i]))) return c;
      return 0;
    default:
      if ((c = expr_cmp(ctx, a->bin.a, b->bin.a))) return c;
      return expr_cmp(ctx, a->bin.b, b->bin.b);
  }
}

/* The first variable of e in variable order, NULL when e has none. */
static const TirVar *lead_var(ArithCtx *ctx, const TirExpr *e) {
  if (e->kind == TIR_VAR) return e->var;
  PtrVec vs = {0};
  tir_expr_free_vars(e, &vs);
  const TirVar *best = NULL;
  for (int i = 0; i < vs.len; i++) {
    const TirVar *v = vs.items[i];
    if (!best || arith_var_cmp(ctx, v, best) < 0) best = v;
  }
  pv_free(&vs);
  return best;
}

int arith_atom_cmp(ArithCtx *ctx, const TirExpr *a, const TirExpr *b) {
  if (a == b) return 0;
  const TirVar *va = lead_var(ctx, a), *vb = lead_var(ctx, b);
  if (va && vb) {
    int c = arith_var_cmp(ctx, va, vb);
    if (c) return c;
  } else if (va || vb) {
    return va ? -1 : 1;
  }
  bool xa = a->kind == TIR_VAR, xb = b->kind == TIR_VAR;
  if (xa != xb) return xa ? -1 : 1;
  return expr_cmp(ctx, a, b);
}

static int term_cmp(ArithCtx *ctx, const ATerm *s, const ATerm *t) {
  int n = s->n < t->n ? s->n : t->n;
  for (int k = 0; k < n; k++) {
    int c = arith_atom_cmp(ctx, s->atoms[k], t->atoms[k]);
    if (c) return c;
  }
  if (s->n != t->n) return s->n > t->n ? -1 : 1;
  return 0;
}

static bool atom_eq(const TirExpr *a, const TirExpr *b) {
  if (a == b) return true;
  if (a->kind == TIR_VAR || b->kind == TIR_VAR)
    return a->kind == b->kind && a->var == b->var;
  return seq_tir_expr(a, b);
}

static bool mono_eq(const ATerm *s, const ATerm *t) {
  if (s->n != t->n) return false;
  for (int k = 0; k < s->n; k++)
    if (!atom_eq(s->atoms[k], t->atoms[k])) return false;
  return true;
}

/* ---------------------------------------------------------------- polys */

void arith_poly_init(APoly *p, DType t) {
  memset(p, 0, sizeof *p);
  p->t = t;
}

void arith_poly_free(APoly *p) {
  for (int i = 0; i < p->n; i++) free(p->terms[i].atoms);
  free(p->terms);
  p->terms = NULL;
  p->n = p->cap = 0;
}

static void push_term(APoly *p, int64_t coef, const TirExpr **atoms, int n) {
  VEC_RESERVE(p->terms, p->cap, p->n + 1);
  ATerm *t = &p->terms[p->n++];
  t->coef = coef;
  t->n = n;
  t->atoms = xmalloc((size_t)n * sizeof *t->atoms);
  memcpy(t->atoms, atoms, (size_t)n * sizeof *atoms);
}

void arith_poly_copy(APoly *dst, const APoly *src) {
  arith_poly_init(dst, src->t);
  dst->c = src->c;
  for (int i = 0; i < src->n; i++)
    push_term(dst, src->terms[i].coef, src->terms[i].atoms, src->terms[i].n);
}

void arith_poly_move(APoly *dst, APoly *src) {
  *dst = *src;
  src->terms = NULL;
  src->n = src->cap = 0;
}

void arith_poly_set_const(APoly *p, int64_t c) {
  DType t = p->t;
  arith_poly_free(p);
  arith_poly_init(p, t);
  p->c = arith_pwrap(t, (uint64_t)c);
}

static int64_t wmul(DType t, int64_t a, int64_t b) {
  return arith_pwrap(t, (uint64_t)a * (uint64_t)b);
}
static int64_t wadd(DType t, int64_t a, int64_t b) {
  return arith_pwrap(t, (uint64_t)a + (uint64_t)b);
}

void arith_poly_add_atom(ArithCtx *ctx, APoly *p, const TirExpr *atom, int64_t k) {
  const TirExpr *atoms[1] = {atom};
  push_term(p, arith_pwrap(p->t, (uint64_t)k), atoms, 1);
  arith_poly_normalize(ctx, p);
}

void arith_poly_add_mono(ArithCtx *ctx, APoly *p, int64_t coef, const TirExpr *const *atoms, int n) {
  if (n == 0) {
    p->c = wadd(p->t, p->c, coef);
    return;
  }
  push_term(p, arith_pwrap(p->t, (uint64_t)coef), (const TirExpr **)atoms, n);
  arith_poly_normalize(ctx, p);
}

void arith_poly_add(ArithCtx *ctx, APoly *p, const APoly *q, int64_t k) {
  p->c = wadd(p->t, p->c, wmul(p->t, q->c, k));
  for (int i = 0; i < q->n; i++)
    push_term(p, wmul(p->t, q->terms[i].coef, k), q->terms[i].atoms, q->terms[i].n);
  arith_poly_normalize(ctx, p);
}

void arith_poly_scale(APoly *p, int64_t k) {
  p->c = wmul(p->t, p->c, k);
  int m = 0;
  for (int i = 0; i < p->n; i++) {
    p->terms[i].coef = wmul(p->t, p->terms[i].coef, k);
    if (p->terms[i].coef == 0) free(p->terms[i].atoms);
    else p->terms[m++] = p->terms[i];
  }
  p->n = m;
}

bool arith_poly_mul(ArithCtx *ctx, APoly *out, const APoly *a, const APoly *b) {
  if ((a->n + 1) * (b->n + 1) > MAX_PRODUCT_TERMS) return false;
  APoly r;
  arith_poly_init(&r, a->t);
  r.c = wmul(a->t, a->c, b->c);
  for (int i = 0; i < a->n; i++)
    push_term(&r, wmul(a->t, a->terms[i].coef, b->c), a->terms[i].atoms, a->terms[i].n);
  for (int j = 0; j < b->n; j++)
    push_term(&r, wmul(a->t, b->terms[j].coef, a->c), b->terms[j].atoms, b->terms[j].n);
  for (int i = 0; i < a->n; i++)
    for (int j = 0; j < b->n; j++) {
      const ATerm *s = &a->terms[i], *t = &b->terms[j];
      int n = s->n + t->n;
      const TirExpr **atoms = xmalloc((size_t)n * sizeof *atoms);
      memcpy(atoms, s->atoms, (size_t)s->n * sizeof *atoms);
      memcpy(atoms + s->n, t->atoms, (size_t)t->n * sizeof *atoms);
      push_term(&r, wmul(a->t, s->coef, t->coef), atoms, n);
      free(atoms);
    }
  arith_poly_normalize(ctx, &r);
  *out = r;
  return true;
}

bool arith_poly_is_const(const APoly *p) { return p->n == 0; }

bool arith_poly_equal(const APoly *a, const APoly *b) {
  if (a->c != b->c || a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->terms[i].coef != b->terms[i].coef || !mono_eq(&a->terms[i], &b->terms[i])) return false;
  return true;
}

void arith_poly_normalize(ArithCtx *ctx, APoly *p) {
  /* sort each term's atoms (insertion sort: stable, small) */
  for (int i = 0; i < p->n; i++) {
    ATerm *t = &p->terms[i];
    for (int k = 1; k < t->n; k++) {
      const TirExpr *x = t->atoms[k];
      int j = k - 1;
      while (j >= 0 && arith_atom_cmp(ctx, t->atoms[j], x) > 0) {
        t->atoms[j + 1] = t->atoms[j];
        j--;
      }
      t->atoms[j + 1] = x;
    }
  }
  /* combine like terms (first occurrence keeps its place) */
  int m = 0;
  for (int i = 0; i < p->n; i++) {
    int j;
    for (j = 0; j < m; j++)
      if (mono_eq(&p->terms[j], &p->terms[i])) break;
    if (j < m) {
      p->terms[j].coef = wadd(p->t, p->terms[j].coef, p->terms[i].coef);
      free(p->terms[i].atoms);
    } else {
      p->terms[m++] = p->terms[i];
    }
  }
  p->n = m;
  /* drop zeros */
  m = 0;
  for (int i = 0; i < p->n; i++) {
    if (p->terms[i].coef == 0) free(p->terms[i].atoms);
    else p->terms[m++] = p->terms[i];
  }
  p->n = m;
  /* order terms */
  for (int k = 1; k < p->n; k++) {
    ATerm x = p->terms[k];
    int j = k - 1;
    while (j >= 0 && term_cmp(ctx, &p->terms[j], &x) > 0) {
      p->terms[j + 1] = p->terms[j];
      j--;
    }
    p->terms[j + 1] = x;
  }
}

bool arith_term_uses_var(const ATerm *term, const TirVar *var) {
  for (int k = 0; k < term->n; k++)
    if (tir_expr_uses_var(term->atoms[k], var)) return true;
  return false;
}

/* ------------------------------------------------------------- to expr */

/* The most negative value of t's width: it is its own negation. */
static int64_t dtype_min(DType t) {
  return t.bits >= 64 ? INT64_MIN : -(INT64_C(1) << (t.bits - 1));
}

TirExpr *arith_term_expr(ArithCtx *ctx, DType t, const ATerm *term, int64_t coef) {
  TirExpr *e = (TirExpr *)term->atoms[0];
  for (int k = 1; k < term->n; k++) e = tir_binary(ctx->h, TIR_MUL, e, (TirExpr *)term->atoms[k]);
  if (coef != 1) e = tir_binary(ctx->h, TIR_MUL, e, arith_mk_int(ctx, t, coef));
  return e;
}

TirExpr *arith_poly_to_expr(ArithCtx *ctx, const APoly *p) {
  DType t = p->t;
  IrHeap *h = ctx->h;
  int64_t tmin = dtype_min(t);
  TirExpr *acc = NULL;
  bool const_used = false;
  for (int i = 0; i < p->n; i++) {
    const ATerm *term = &p->terms[i];
    if (term->coef < 0 && term->coef != tmin) continue;
    TirExpr *te = arith_term_expr(ctx, t, term, term->coef);
    acc = acc ? tir_binary(h, TIR_ADD, acc, te) : te;
  }
  for (int i = 0; i < p->n; i++) {
    const ATerm *term = &p->terms[i];
    if (!(term->coef < 0 && term->coef != tmin)) continue;
    if (acc) {
      acc = tir_binary(h, TIR_SUB, acc, arith_term_expr(ctx, t, term, -term->coef));
    } else if (p->c > 0) {
      acc = tir_binary(h, TIR_SUB, arith_mk_int(ctx, t, p->c),
                       arith_term_expr(ctx, t, term, -term->coef));
      const_used = true;
    } else {
      acc = arith_term_expr(ctx, t, term, term->coef);
    }
  }
  if (!acc) return arith_mk_int(ctx, t, p->c);
  if (!const_used && p->c != 0) {
    if (p->c < 0 && p->c != tmin)
      acc = tir_binary(h, TIR_SUB, acc, arith_mk_int(ctx, t, -p->c));
    else
      acc = tir_binary(h, TIR_ADD, acc, arith_mk_int(ctx, t, p->c));
  }
  return acc;
}
