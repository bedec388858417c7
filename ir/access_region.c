/* access_region.c - a block's read/write regions, as TVM v0.23's GetBlockAccessRegion.
 *
 * Walks the init then the body of a block, recording every buffer in order of
 * first access (separately for reads and writes) with the hull of the index
 * points accessed.  Loop vars of loops inside the block are relaxed over their
 * ranges by a small interval evaluator over affine forms; block iter vars stay
 * symbolic.  Nested blocks contribute their declared regions. */
#include "ir/access_region.h"
#include "ir/structural_equal.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ expr helpers */

/* A copy of e with every var vars[i] replaced by vals[i] (shares unchanged parts). */
static TirExpr *subst(IrHeap *h, TirExpr *e, TirVar **vars, TirExpr **vals, int n) {
  if (!e || n == 0) return e;
  switch (e->kind) {
  case TIR_INT: case TIR_FLOAT: case TIR_STR: return e;
  case TIR_VAR:
    for (int i = 0; i < n; i++)
      if (vars[i] == e->var) return vals[i];
    return e;
  case TIR_NOT: case TIR_CAST: {
    TirExpr *a = subst(h, e->un.a, vars, vals, n);
    if (a == e->un.a) return e;
    return e->kind == TIR_NOT ? tir_not(h, a) : tir_cast(h, e->dtype, a);
  }
  case TIR_SELECT: {
    TirExpr *c = subst(h, e->sel.cond, vars, vals, n), *t = subst(h, e->sel.t, vars, vals, n),
            *f = subst(h, e->sel.f, vars, vals, n);
    if (c == e->sel.cond && t == e->sel.t && f == e->sel.f) return e;
    return tir_select(h, c, t, f);
  }
  case TIR_LOAD: {
    TirExpr **idx = xmalloc((size_t)(e->load.n + 1) * sizeof *idx);
    bool changed = false;
    for (int i = 0; i < e->load.n; i++) {
      idx[i] = subst(h, e->load.idx[i], vars, vals, n);
      changed |= idx[i] != e->load.idx[i];
    }
    TirExpr *r = changed ? tir_load(h, e->load.buf, idx, e->load.n) : e;
    free(idx);
    return r;
  }
  case TIR_RAMP: {
    TirExpr *b = subst(h, e->ramp.base, vars, vals, n), *s = subst(h, e->ramp.stride, vars, vals, n);
    if (b == e->ramp.base && s == e->ramp.stride) return e;
    return tir_ramp(h, b, s, e->ramp.lanes);
  }
  case TIR_BROADCAST: {
    TirExpr *v = subst(h, e->bcast.value, vars, vals, n);
    return v == e->bcast.value ? e : tir_broadcast(h, v, e->bcast.lanes);
  }
  case TIR_LET: {
    TirExpr *v = subst(h, e->let.value, vars, vals, n), *b = subst(h, e->let.body, vars, vals, n);
    if (v == e->let.value && b == e->let.body) return e;
    return tir_let(h, e->let.var, v, b);
  }
  case TIR_CALL: {
    TirExpr **args = xmalloc((size_t)(e->call.n + 1) * sizeof *args);
    bool changed = false;
    for (int i = 0; i < e->call.n; i++) {
      args[i] = subst(h, e->call.args[i], vars, vals, n);
      changed |= args[i] != e->call.args[i];
    }
    TirExpr *r = changed ? tir_call(h, e->dtype, e->call.op, args, e->call.n) : e;
    free(args);
    return r;
  }
  default: {
    TirExpr *a = subst(h, e->bin.a, vars, vals, n), *b = subst(h, e->bin.b, vars, vals, n);
    if (a == e->bin.a && b == e->bin.b) return e;
    return tir_binary(h, e->kind, a, b);
  }
  }
}

/* ------------------------------------------------------------ affine forms */

typedef struct Term {
  TirExpr *atom;  /* a non-affine subexpression (var, load, floordiv, ...) */
  int64_t coef;   /* its coefficient */
} Term;

/* sum(coef * atom) + c, in order of first appearance of each atom. */
typedef struct Affine {
  Term *t;     /* terms */
  int n, cap;  /* used / allocated */
  int64_t c;   /* constant part */
} Affine;

static void aff_add_term(Affine *a, TirExpr *atom, int64_t coef) {
  for (int i = 0; i < a->n; i++)
    if (tir_expr_identical(a->t[i].atom, atom)) {
      a->t[i].coef += coef;
      return;
    }
  VEC_PUSH(a->t, a->n, a->cap, ((Term){atom, coef}));
}

static void aff_collect(Affine *a, TirExpr *e, int64_t scale) {
  int64_t v;
  switch (e->kind) {
  case TIR_INT: a->c += scale * e->ival; return;
  case TIR_ADD: aff_collect(a, e->bin.a, scale); aff_collect(a, e->bin.b, scale); return;
  case TIR_SUB: aff_collect(a, e->bin.a, scale); aff_collect(a, e->bin.b, -scale); return;
  case TIR_MUL:
    if (tir_is_const_int(e->bin.b, &v)) { aff_collect(a, e->bin.a, scale * v); return; }
    if (tir_is_const_int(e->bin.a, &v)) { aff_collect(a, e->bin.b, scale * v); return; }
    break;
  default: break;
  }
  aff_add_term(a, e, scale);
}

/* Rebuilds an affine form as `a * c1 + b * c2 + k` in dtype t. */
static TirExpr *aff_build(IrHeap *h, const Affine *a, DType t) {
  TirExpr *acc = NULL;
  for (int i = 0; i < a->n; i++) {
    int64_t c = a->t[i].coef;
    if (c == 0) continue;
    TirExpr *atom = a->t[i].atom;
    if (!acc) {
      acc = c == 1 ? atom : tir_binary(h, TIR_MUL, atom, tir_int(h, atom->dtype, c));
    } else if (c > 0) {
      TirExpr *term = c == 1 ? atom : tir_binary(h, TIR_MUL, atom, tir_int(h, atom->dtype, c));
      acc = tir_binary(h, TIR_ADD, acc, term);
    } else {
      TirExpr *term = c == -1 ? atom : tir_binary(h, TIR_MUL, atom, tir_int(h, atom->dtype, -c));
      acc = tir_binary(h, TIR_SUB, acc, term);
    }
  }
  if (!acc) return tir_int(h, t, a->c);
  if (a->c > 0) acc = tir_binary(h, TIR_ADD, acc, tir_int(h, acc->dtype, a->c));
  if (a->c < 0) acc = tir_binary(h, TIR_SUB, acc, tir_int(h, acc->dtype, -a->c));
  return acc;
}

/* Minimal simplification: constant folding and cancellation of affine terms. */
static TirExpr *simplify(IrHeap *h, TirExpr *e) {
  Affine a = {0};
  aff_collect(&a, e, 1);
  TirExpr *r = aff_build(h, &a, e->dtype);
  free(a.t);
  return r;
}

/* Is a - b a constant?  Then *d receives it. */
static bool const_diff(TirExpr *x, TirExpr *y, int64_t *d) {
  Affine a = {0};
  aff_collect(&a, x, 1);
  aff_collect(&a, y, -1);
  bool ok = true;
  for (int i = 0; i < a.n; i++)
    if (a.t[i].coef != 0) ok = false;
  *d = a.c;
  free(a.t);
  return ok;
}

static TirExpr *mk_add(IrHeap *h, TirExpr *a, TirExpr *b) {
  return simplify(h, tir_binary(h, TIR_ADD, a, b));
}
static TirExpr *mk_sub(IrHeap *h, TirExpr *a, TirExpr *b) {
  return simplify(h, tir_binary(h, TIR_SUB, a, b));
}
static TirExpr *mk_addc(IrHeap *h, TirExpr *a, int64_t c) {
  return mk_add(h, a, tir_int(h, a->dtype, c));
}
static TirExpr *mk_mulc(IrHeap *h, TirExpr *a, int64_t c) {
  return simplify(h, tir_binary(h, TIR_MUL, a, tir_int(h, a->dtype, c)));
}

/* ------------------------------------------------------------ intervals */

/* [min, max] with NULL meaning unbounded on that side. */
typedef struct Interval {
  TirExpr *min, *max;
} Interval;

static bool iv_is_point(Interval v) { return v.min && v.max && (v.min == v.max || tir_expr_identical(v.min, v.max)); }
static Interval iv_point(TirExpr *e) { return (Interval){e, e}; }

static TirExpr *bound_min(IrHeap *h, TirExpr *a, TirExpr *b) {
  int64_t d;
  if (!a || !b) return NULL;
  if (const_diff(a, b, &d)) return d <= 0 ? a : b;
  return tir_binary(h, TIR_MIN, a, b);
}
static TirExpr *bound_max(IrHeap *h, TirExpr *a, TirExpr *b) {
  int64_t d;
  if (!a || !b) return NULL;
  if (const_diff(a, b, &d)) return d >= 0 ? a : b;
  return tir_binary(h, TIR_MAX, a, b);
}
static Interval iv_union(IrHeap *h, Interval a, Interval b) {
  return (Interval){bound_min(h, a.min, b.min), bound_max(h, a.max, b.max)};
}

/* ------------------------------------------------------------ the detector */

typedef struct Dom {
  TirVar *var;     /* relaxed loop var */
  TirExpr *min;    /* its first value */
  TirExpr *max;    /* its last value (min + extent - 1), possibly narrowed */
} Dom;

/* Buffers accessed in one direction, with their regions. */
typedef struct AccessSet {
  TirBuffer **bufs;     /* in order of first access */
  Interval **regions;   /* per buffer, one interval per dimension */
  int n, cap;
} AccessSet;

typedef struct Detector {
  IrHeap *h;
  const TirBlock *blk;  /* the block analyzed */
  Dom *doms;            /* loops inside the block (a stack) */
  int ndoms, capdoms;
  TirVar **let_vars;    /* let bindings in scope (a stack) */
  TirExpr **let_vals;
  int nlets, caplets;
  TirBuffer **locals;   /* buffers declared inside the body (DeclBuffer) */
  int nlocals, caplocals;
  AccessSet reads, writes;
} Detector;

static Dom *find_dom(Detector *d, const TirVar *v) {
  for (int i = d->ndoms - 1; i >= 0; i--)
    if (d->doms[i].var == v) return &d->doms[i];
  return NULL;
}

static bool has_relaxed(Detector *d, const TirExpr *e);

static bool any_relaxed(Detector *d, TirExpr **es, int n) {
  for (int i = 0; i < n; i++)
    if (has_relaxed(d, es[i])) return true;
  return false;
}

static bool has_relaxed(Detector *d, const TirExpr *e) {
  if (!e) return false;
  switch (e->kind) {
  case TIR_INT: case TIR_FLOAT: case TIR_STR: return false;
  case TIR_VAR: return find_dom(d, e->var) != NULL;
  case TIR_NOT: case TIR_CAST: return has_relaxed(d, e->un.a);
  case TIR_SELECT: return has_relaxed(d, e->sel.cond) || has_relaxed(d, e->sel.t) || has_relaxed(d, e->sel.f);
  case TIR_LOAD: return any_relaxed(d, e->load.idx, e->load.n);
  case TIR_RAMP: return has_relaxed(d, e->ramp.base) || has_relaxed(d, e->ramp.stride);
  case TIR_BROADCAST: return has_relaxed(d, e->bcast.value);
  case TIR_LET: return has_relaxed(d, e->let.value) || has_relaxed(d, e->let.body);
  case TIR_CALL: return any_relaxed(d, e->call.args, e->call.n);
  default: return has_relaxed(d, e->bin.a) || has_relaxed(d, e->bin.b);
  }
}

static Interval eval_iv(Detector *d, TirExpr *e, int depth);

static Interval eval_bin_const(Detector *d, TirExpr *e, int depth) {
  IrHeap *h = d->h;
  int64_t c;
  Interval a = eval_iv(d, e->bin.a, depth);
  switch (e->kind) {
  case TIR_FLOORDIV:
  case TIR_DIV:
    if (!tir_is_const_int(e->bin.b, &c) || c <= 0) break;
    if (e->kind == TIR_DIV && !(a.min && tir_is_const_int(a.min, NULL) && a.min->ival >= 0)) break;
    return (Interval){a.min ? tir_binary(h, e->kind, a.min, e->bin.b) : NULL,
                      a.max ? tir_binary(h, e->kind, a.max, e->bin.b) : NULL};
  case TIR_FLOORMOD: {
    int64_t lo, hi;
    if (!tir_is_const_int(e->bin.b, &c) || c <= 0) break;
    if (tir_is_const_int(a.min, &lo) && tir_is_const_int(a.max, &hi) && lo >= 0 && hi < c)
      return a;
    /* A range inside one period (min and max differ by less than c and agree
     * on the quotient) is not detectable without a prover; keep it simple. */
    return (Interval){tir_int(h, e->dtype, 0), tir_int(h, e->dtype, c - 1)};
  }
  default: break;
  }
  return (Interval){NULL, NULL};
}

/* The interval of values e takes when the relaxed loop vars range over their domains. */
static Interval eval_iv(Detector *d, TirExpr *e, int depth) {
  IrHeap *h = d->h;
  if (depth > 32) return (Interval){NULL, NULL};
  if (!has_relaxed(d, e)) return iv_point(e);
  int64_t c;
  switch (e->kind) {
  case TIR_VAR: {
    Dom *dm = find_dom(d, e->var);
    Interval lo = eval_iv(d, dm->min, depth + 1), hi = eval_iv(d, dm->max, depth + 1);
    return (Interval){lo.min, hi.max};
  }
  case TIR_ADD: {
    Interval a = eval_iv(d, e->bin.a, depth), b = eval_iv(d, e->bin.b, depth);
    return (Interval){a.min && b.min ? mk_add(h, a.min, b.min) : NULL,
                      a.max && b.max ? mk_add(h, a.max, b.max) : NULL};
  }
  case TIR_SUB: {
    Interval a = eval_iv(d, e->bin.a, depth), b = eval_iv(d, e->bin.b, depth);
    return (Interval){a.min && b.max ? mk_sub(h, a.min, b.max) : NULL,
                      a.max && b.min ? mk_sub(h, a.max, b.min) : NULL};
  }
  case TIR_MUL: {
    TirExpr *x = e->bin.a;
    if (!tir_is_const_int(e->bin.b, &c)) {
      if (!tir_is_const_int(e->bin.a, &c)) return (Interval){NULL, NULL};
      x = e->bin.b;
    }
    Interval a = eval_iv(d, x, depth);
    TirExpr *lo = a.min ? mk_mulc(h, a.min, c) : NULL, *hi = a.max ? mk_mulc(h, a.max, c) : NULL;
    return c >= 0 ? (Interval){lo, hi} : (Interval){hi, lo};
  }
  case TIR_MIN:
  case TIR_MAX: {
    Interval a = eval_iv(d, e->bin.a, depth), b = eval_iv(d, e->bin.b, depth);
    if (e->kind == TIR_MIN)
      return (Interval){bound_min(h, a.min, b.min), bound_min(h, a.max, b.max)};
    return (Interval){bound_max(h, a.min, b.min), bound_max(h, a.max, b.max)};
  }
  case TIR_FLOORDIV: case TIR_FLOORMOD: case TIR_DIV:
    return eval_bin_const(d, e, depth);
  case TIR_RAMP: {
    Interval b = eval_iv(d, e->ramp.base, depth);
    if (!tir_is_const_int(e->ramp.stride, &c)) return (Interval){NULL, NULL};
    int64_t span = c * (e->ramp.lanes - 1);
    TirExpr *lo = b.min ? (span < 0 ? mk_addc(h, b.min, span) : b.min) : NULL;
    TirExpr *hi = b.max ? (span > 0 ? mk_addc(h, b.max, span) : b.max) : NULL;
    return (Interval){lo, hi};
  }
  case TIR_BROADCAST: return eval_iv(d, e->bcast.value, depth);
  case TIR_CAST: {
    Interval a = eval_iv(d, e->un.a, depth);
    if (!dt_is_integer(a.min ? a.min->dtype : e->dtype)) return (Interval){NULL, NULL};
    return (Interval){a.min ? tir_cast(h, e->dtype, a.min) : NULL, a.max ? tir_cast(h, e->dtype, a.max) : NULL};
  }
  default: return (Interval){NULL, NULL};
  }
}

/* An index: let-bound vars substituted, then relaxed. */
static Interval eval_index(Detector *d, TirExpr *e) {
  e = subst(d->h, e, d->let_vars, d->let_vals, d->nlets);
  return eval_iv(d, e, 0);
}

static bool is_local(Detector *d, const TirBuffer *b) {
  for (int i = 0; i < d->blk->nallocs; i++)
    if (d->blk->allocs[i] == b) return true;
  for (int i = 0; i < d->nlocals; i++)
    if (d->locals[i] == b) return true;
  return false;
}

static void set_update(Detector *d, AccessSet *s, TirBuffer *buf, Interval *region, int ndim) {
  for (int i = 0; i < s->n; i++)
    if (s->bufs[i] == buf) {
      for (int j = 0; j < ndim; j++) s->regions[i][j] = iv_union(d->h, s->regions[i][j], region[j]);
      return;
    }
  int cap = s->cap; /* bufs and regions share one capacity */
  VEC_RESERVE(s->bufs, cap, s->n + 1);
  if (cap != s->cap) s->regions = xrealloc(s->regions, (size_t)cap * sizeof *s->regions);
  s->cap = cap;
  s->bufs[s->n] = buf;
  s->regions[s->n] = xmalloc((size_t)(ndim + 1) * sizeof *region);
  memcpy(s->regions[s->n], region, (size_t)ndim * sizeof *region);
  s->n++;
}

/* Range covering an interval; the whole dimension [0, dim) when unbounded. */
static TirRange cover_range(IrHeap *h, Interval v, TirExpr *dim) {
  if (iv_is_point(v)) return (TirRange){v.min, tir_int(h, v.min->dtype, 1)};
  if (v.min && v.max) return (TirRange){v.min, mk_addc(h, mk_sub(h, v.max, v.min), 1)};
  return (TirRange){tir_int(h, dim->dtype, 0), dim};
}

/* Records an access; accesses through a block match_buffer count on its source. */
static void record(Detector *d, AccessSet *s, TirBuffer *buf, Interval *region, int ndim) {
  for (int m = 0; m < d->blk->nmatches; m++) {
    const TirMatchBuffer *mb = &d->blk->matches[m];
    if (mb->buffer != buf) continue;
    TirBuffer *src = mb->source.buffer;
    if (is_local(d, src)) return;
    int off = mb->source.n - ndim;
    if (off < 0) return;
    Interval *conv = xmalloc((size_t)(mb->source.n + 1) * sizeof *conv);
    for (int i = 0; i < mb->source.n; i++) {
      TirRange sr = mb->source.ranges[i];
      if (i < off) {
        conv[i] = iv_point(sr.min);
        continue;
      }
      TirRange tr = cover_range(d->h, region[i - off], buf->shape[i - off]);
      TirExpr *lo = mk_add(d->h, sr.min, tr.min);
      conv[i] = tir_is_one(tr.extent) ? iv_point(lo) : (Interval){lo, mk_addc(d->h, mk_add(d->h, lo, tr.extent), -1)};
    }
    set_update(d, s, src, conv, mb->source.n);
    free(conv);
    return;
  }
  if (is_local(d, buf)) return;
  set_update(d, s, buf, region, ndim);
}

static void access(Detector *d, AccessSet *s, TirBuffer *buf, TirExpr **idx, int n) {
  Interval *region = xmalloc((size_t)(n + 1) * sizeof *region);
  for (int i = 0; i < n; i++) region[i] = eval_index(d, idx[i]);
  record(d, s, buf, region, n);
  free(region);
}

static void push_dom(Detector *d, TirVar *v, TirExpr *min, TirExpr *max) {
  VEC_PUSH(d->doms, d->ndoms, d->capdoms, ((Dom){v, min, max}));
}

static void visit_expr(Detector *d, TirExpr *e);
static void visit_stmt(Detector *d, TirStmt *s);

/* Narrows the domains of relaxed loop vars by a condition known to hold
 * (when truth) or to fail; handles `v < c`-style comparisons against
 * constants and conjunctions of them.  Returns how many domains were pushed. */
static int narrow(Detector *d, TirExpr *cond, bool truth) {
  if (!cond) return 0;
  if (truth && cond->kind == TIR_AND) return narrow(d, cond->bin.a, true) + narrow(d, cond->bin.b, true);
  if (!truth && cond->kind == TIR_OR) return narrow(d, cond->bin.a, false) + narrow(d, cond->bin.b, false);
  if (cond->kind == TIR_NOT) return narrow(d, cond->un.a, !truth);
  if (cond->kind < TIR_LT || cond->kind > TIR_GE) return 0;
  TirExprKind k = cond->kind;
  TirExpr *x = cond->bin.a, *y = cond->bin.b;
  if (y->kind == TIR_VAR && x->kind != TIR_VAR) {  /* c < v  ->  v > c */
    TirExpr *t = x; x = y; y = t;
    k = k == TIR_LT ? TIR_GT : k == TIR_LE ? TIR_GE : k == TIR_GT ? TIR_LT : TIR_LE;
  }
  int64_t c, lo, hi;
  if (x->kind != TIR_VAR || !tir_is_const_int(y, &c)) return 0;
  Dom *dm = find_dom(d, x->var);
  if (!dm || !tir_is_const_int(dm->min, &lo) || !tir_is_const_int(dm->max, &hi)) return 0;
  if (!truth) k = k == TIR_LT ? TIR_GE : k == TIR_LE ? TIR_GT : k == TIR_GT ? TIR_LE : TIR_LT;
  switch (k) {
  case TIR_LT: if (c - 1 < hi) hi = c - 1; break;
  case TIR_LE: if (c < hi) hi = c; break;
  case TIR_GT: if (c + 1 > lo) lo = c + 1; break;
  default: if (c > lo) lo = c; break;
  }
  if (hi < lo) hi = lo;  /* empty: keep a point so regions stay well formed */
  DType t = x->dtype;
  push_dom(d, x->var, tir_int(d->h, t, lo), tir_int(d->h, t, hi));
  return 1;
}

static void visit_exprs(Detector *d, TirExpr **es, int n) {
  for (int i = 0; i < n; i++) visit_expr(d, es[i]);
}

static void visit_expr(Detector *d, TirExpr *e) {
  if (!e) return;
  switch (e->kind) {
  case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return;
  case TIR_NOT: case TIR_CAST: visit_expr(d, e->un.a); return;
  case TIR_SELECT: visit_expr(d, e->sel.cond); visit_expr(d, e->sel.t); visit_expr(d, e->sel.f); return;
  case TIR_LOAD:
    access(d, &d->reads, e->load.buf, e->load.idx, e->load.n);
    visit_exprs(d, e->load.idx, e->load.n);
    return;
  case TIR_RAMP: visit_expr(d, e->ramp.base); visit_expr(d, e->ramp.stride); return;
  case TIR_BROADCAST: visit_expr(d, e->bcast.value); return;
  case TIR_LET: visit_expr(d, e->let.value); visit_expr(d, e->let.body); return;
  case TIR_CALL:
    if (e->call.op->id == TIR_OP_IF_THEN_ELSE && e->call.n == 3) {
      visit_expr(d, e->call.args[0]);
      int saved = d->ndoms;
      narrow(d, e->call.args[0], true);
      visit_expr(d, e->call.args[1]);
      d->ndoms = saved;
      narrow(d, e->call.args[0], false);
      visit_expr(d, e->call.args[2]);
      d->ndoms = saved;
      return;
    }
    visit_exprs(d, e->call.args, e->call.n);
    return;
  default: visit_expr(d, e->bin.a); visit_expr(d, e->bin.b); return;
  }
}

/* A nested block contributes its declared regions with its iter vars
 * replaced by their bindings, relaxed over the loops in between. */
static void visit_nested(Detector *d, TirStmt *realize) {
  const TirBlock *nb = tir_realize_block(realize);
  int n = nb->niters < realize->realize.n ? nb->niters : realize->realize.n;
  TirVar **vars = xmalloc((size_t)(n + 1) * sizeof *vars);
  for (int i = 0; i < n; i++) vars[i] = nb->iters[i].var;
  for (int pass = 0; pass < 2; pass++) {
    const TirBufferRegion *regs = pass == 0 ? nb->reads : nb->writes;
    int nregs = pass == 0 ? nb->nreads : nb->nwrites;
    for (int r = 0; r < nregs; r++) {
      const TirBufferRegion *br = &regs[r];
      Interval *region = xmalloc((size_t)(br->n + 1) * sizeof *region);
      for (int j = 0; j < br->n; j++) {
        TirExpr *mn = subst(d->h, br->ranges[j].min, vars, realize->realize.values, n);
        TirExpr *ext = subst(d->h, br->ranges[j].extent, vars, realize->realize.values, n);
        mn = subst(d->h, mn, d->let_vars, d->let_vals, d->nlets);
        ext = subst(d->h, ext, d->let_vars, d->let_vals, d->nlets);
        Interval lo = eval_iv(d, mn, 0);
        if (tir_is_one(ext)) {
          region[j] = lo;
        } else {
          Interval hi = eval_iv(d, mk_addc(d->h, mk_add(d->h, mn, ext), -1), 0);
          region[j] = (Interval){lo.min, hi.max};
        }
      }
      record(d, pass == 0 ? &d->reads : &d->writes, br->buffer, region, br->n);
      free(region);
    }
  }
  free(vars);
}

static void visit_stmt(Detector *d, TirStmt *s) {
  if (!s) return;
  switch (s->kind) {
  case TIR_S_STORE:
    access(d, &d->writes, s->store.buf, s->store.idx, s->store.n);
    visit_exprs(d, s->store.idx, s->store.n);
    visit_expr(d, s->store.value);
    return;
  case TIR_S_SEQ:
    for (int i = 0; i < s->seq.n; i++) visit_stmt(d, s->seq.stmts[i]);
    return;
  case TIR_S_FOR: {
    visit_expr(d, s->loop.min);
    visit_expr(d, s->loop.extent);
    push_dom(d, s->loop.var, s->loop.min, mk_addc(d->h, mk_add(d->h, s->loop.min, s->loop.extent), -1));
    int saved = d->ndoms - 1;
    visit_stmt(d, s->loop.body);
    d->ndoms = saved;
    return;
  }
  case TIR_S_IF: {
    visit_expr(d, s->ifs.cond);
    int saved = d->ndoms;
    narrow(d, s->ifs.cond, true);
    visit_stmt(d, s->ifs.then_s);
    d->ndoms = saved;
    if (s->ifs.else_s) {
      narrow(d, s->ifs.cond, false);
      visit_stmt(d, s->ifs.else_s);
      d->ndoms = saved;
    }
    return;
  }
  case TIR_S_LET: {
    visit_expr(d, s->let.value);
    int cap = d->caplets; /* let_vars and let_vals share one capacity */
    VEC_RESERVE(d->let_vars, cap, d->nlets + 1);
    if (cap != d->caplets) d->let_vals = xrealloc(d->let_vals, (size_t)cap * sizeof *d->let_vals);
    d->caplets = cap;
    d->let_vars[d->nlets] = s->let.var;
    d->let_vals[d->nlets] = subst(d->h, s->let.value, d->let_vars, d->let_vals, d->nlets);
    d->nlets++;
    visit_stmt(d, s->let.body);
    d->nlets--;
    return;
  }
  case TIR_S_EVAL: visit_expr(d, s->eval.value); return;
  case TIR_S_ASSERT: visit_expr(d, s->assrt.cond); visit_expr(d, s->assrt.msg); visit_stmt(d, s->assrt.body); return;
  case TIR_S_WHILE: visit_expr(d, s->loop_while.cond); visit_stmt(d, s->loop_while.body); return;
  case TIR_S_BLOCK_REALIZE: visit_nested(d, s); return;
  case TIR_S_BLOCK: /* a bare block (not realized) only happens at the top */
    visit_stmt(d, s->block.init);
    visit_stmt(d, s->block.body);
    return;
  case TIR_S_ALLOCATE: visit_exprs(d, s->alloc.extents, s->alloc.n); visit_stmt(d, s->alloc.body); return;
  case TIR_S_DECL_BUFFER:
    VEC_PUSH(d->locals, d->nlocals, d->caplocals, s->decl.buf);
    visit_stmt(d, s->decl.body);
    return;
  case TIR_S_ATTR: visit_expr(d, s->attr.value); visit_stmt(d, s->attr.body); return;
  default: return;
  }
}

static bool in_set(const AccessSet *s, const TirBuffer *b) {
  for (int i = 0; i < s->n; i++)
    if (s->bufs[i] == b) return true;
  return false;
}

/* Turns an access set into heap-allocated regions, skipping `exclude`'s buffers. */
static TirBufferRegion *collect(Detector *d, AccessSet *s, const AccessSet *exclude, int *count) {
  TirBufferRegion *out = ir_alloc(d->h, (size_t)(s->n + 1) * sizeof *out);
  int m = 0;
  for (int i = 0; i < s->n; i++) {
    TirBuffer *b = s->bufs[i];
    if (exclude && in_set(exclude, b)) continue;
    int nd = b->ndim;
    TirRange *ranges = ir_alloc(d->h, (size_t)(nd + 1) * sizeof *ranges);
    for (int j = 0; j < nd; j++) ranges[j] = cover_range(d->h, s->regions[i][j], b->shape[j]);
    out[m++] = (TirBufferRegion){b, ranges, nd};
  }
  *count = m;
  return out;
}

static void set_free(AccessSet *s) {
  for (int i = 0; i < s->n; i++) free(s->regions[i]);
  free(s->regions);
  free(s->bufs);
}

void tir_infer_access_regions(IrHeap *h, const TirBlock *blk, TirBufferRegion **reads, int *nreads,
                              TirBufferRegion **writes, int *nwrites) {
  Detector d = {0};
  d.h = h;
  d.blk = blk;
  visit_stmt(&d, blk->init);
  visit_stmt(&d, blk->body);
  *writes = collect(&d, &d.writes, NULL, nwrites);
  *reads = collect(&d, &d.reads, blk->init ? &d.writes : NULL, nreads);
  set_free(&d.reads);
  set_free(&d.writes);
  free(d.doms);
  free(d.let_vars);
  free(d.let_vals);
  free(d.locals);
}
