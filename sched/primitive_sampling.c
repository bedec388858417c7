/* primitive_sampling.c - schedule primitives: sample_perfect_tile,
 * sample_categorical, sample_compute_location, and the schedule's RNG.
 *
 * The RNG is TVM's linear congruential engine (the minstd parameters:
 * x' = 48271 x mod 2^31-1, state in [1, 2^31-2]).  Draws follow TVM's
 * distributions, not its exact numbers: a perfect tile is uniform over the
 * ordered factorizations of the extent whose innermost factor is within
 * max_innermost_factor (TVM samples per prime and rejects, which gives the
 * same distribution; we count factorizations and pick one by index), a
 * categorical draw follows the weights, a compute location is uniform over
 * the candidates.  Each sample records its decision in the trace; a given
 * decision is reused (repaired like TVM when it no longer fits). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/sched_internal.h"

/* ------------------------------------------------------------------ RNG */

#define LCG_MOD 2147483647ULL /* 2^31 - 1 */
#define LCG_MUL 48271ULL

void sch_seed(Schedule *s, int64_t seed) {
  if (seed == -1) { /* no seed given: from the clock and an address */
    int local = 0;
    seed = (int64_t)time(NULL) ^ ((int64_t)clock() << 20) ^ (int64_t)((uintptr_t)&local >> 4);
    if (seed < 0) seed = -seed;
  }
  int64_t x = seed % (int64_t)LCG_MOD;
  if (x < 0) x += (int64_t)LCG_MOD;
  s->rand_state = x == 0 ? 1 : (uint64_t)x;
}

static uint64_t rng_next(Schedule *s) {
  if (s->rand_state == 0) s->rand_state = 1;
  s->rand_state = s->rand_state * LCG_MUL % LCG_MOD;
  return s->rand_state - 1; /* uniform in [0, LCG_MOD - 2] */
}

/* Uniform in [0, range), range >= 1, by rejection (unbiased). */
static uint64_t rng_below(Schedule *s, uint64_t range) {
  const uint64_t span1 = LCG_MOD - 1;
  if (range <= 1) return 0;
  if (range <= span1) {
    uint64_t limit = span1 - span1 % range, u;
    do u = rng_next(s); while (u >= limit);
    return u % range;
  }
  const uint64_t span2 = span1 * span1; /* two draws: [0, span1^2) */
  uint64_t limit = span2 - span2 % range, u;
  do u = rng_next(s) * span1 + rng_next(s); while (u >= limit);
  return u % range;
}

/* Uniform in [0, 1). */
static double rng_real(Schedule *s) { return (double)rng_next(s) / (double)(LCG_MOD - 1); }

int64_t sch_fork_seed(Schedule *s) { return (int64_t)rng_below(s, LCG_MOD - 1) + 1; }

void sch_set_debug_mask(Schedule *s, int debug_mask) { s->debug_mask = debug_mask; }

int64_t sch_expr_value(const Schedule *s, SchRV rv) {
  if (rv < 0 || rv >= s->nrvs || s->rvs[rv].kind != SCH_RV_EXPR) return 0;
  return s->rvs[rv].value;
}

static SchRV new_expr(Schedule *s, const char *func, int64_t value) {
  SchRV rv = sch_new_rv(s, SCH_RV_EXPR, func, NULL, NULL);
  s->rvs[rv].value = value;
  return rv;
}

static SchVal int_list(const int64_t *v, int n) {
  SchVal l = sch_val_none();
  l.kind = SV_LIST;
  l.n = n;
  l.items = xmalloc((size_t)(n ? n : 1) * sizeof *l.items);
  for (int i = 0; i < n; i++) l.items[i] = sch_val_int(v[i]);
  return l;
}

/* ---------------------------------------------------- sample_perfect_tile */

#define SAT_MAX ((uint64_t)1 << 62)

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  if (a && b > SAT_MAX / a) return SAT_MAX;
  return a * b;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b > SAT_MAX ? SAT_MAX : a + b; }

/* The number of ordered k-tuples of positive ints whose product is e: the
 * product over e's prime powers p^a of C(a + k - 1, k - 1). */
static uint64_t count_tuples(int64_t e, int k) {
  if (k <= 0) return e == 1;
  uint64_t total = 1;
  for (int64_t p = 2; p * p <= e; p++) {
    int a = 0;
    while (e % p == 0) e /= p, a++;
    uint64_t c = 1; /* C(a + k - 1, a), exact step by step */
    for (int i = 1; i <= a; i++) c = sat_mul(c, (uint64_t)(k - 1 + i)) / (uint64_t)i;
    total = sat_mul(total, c);
  }
  if (e > 1) total = sat_mul(total, (uint64_t)k);
  return total;
}

/* The divisors of e in increasing order (malloc'd), count in *n. */
static int64_t *divisors(int64_t e, int *n) {
  int len = 0, cap = 0, nhi = 0, caphi = 0;
  int64_t *d = NULL;  /* the divisors up to sqrt(e), increasing */
  int64_t *hi = NULL; /* their cofactors, decreasing */
  for (int64_t i = 1; i * i <= e; i++) {
    if (e % i) continue;
    VEC_PUSH(d, len, cap, i);
    if (i != e / i) VEC_PUSH(hi, nhi, caphi, e / i);
  }
  VEC_RESERVE(d, cap, len + nhi);
  for (int i = nhi - 1; i >= 0; i--) d[len++] = hi[i];
  free(hi);
  *n = len;
  return d;
}

/* Picks the divisor d of e (d <= maxd unless maxd < 0) with probability
 * proportional to count_tuples(e / d, rest). */
static int64_t pick_divisor(Schedule *s, int64_t e, int rest, int64_t maxd) {
  int nd;
  int64_t *d = divisors(e, &nd);
  uint64_t total = 0;
  for (int i = 0; i < nd; i++)
    if (maxd < 0 || d[i] <= maxd) total = sat_add(total, count_tuples(e / d[i], rest));
  uint64_t r = rng_below(s, total ? total : 1);
  int64_t pick = 1;
  for (int i = 0; i < nd; i++) {
    if (maxd >= 0 && d[i] > maxd) continue;
    uint64_t c = count_tuples(e / d[i], rest);
    pick = d[i];
    if (r < c) break;
    r -= c;
  }
  free(d);
  return pick;
}

static void draw_perfect_tile(Schedule *s, int64_t extent, int n, int64_t max_inner, int64_t *out) {
  for (int i = 0; i < n; i++) out[i] = 1;
  if (n == 1) {
    out[0] = extent;
    return;
  }
  int64_t inner = pick_divisor(s, extent, n - 1, max_inner);
  out[n - 1] = inner;
  int64_t rest = extent / inner;
  for (int i = 0; i < n - 2; i++) {
    out[i] = pick_divisor(s, rest, n - 2 - i, -1);
    rest /= out[i];
  }
  out[n - 2] = rest;
}

/* A decision that no longer divides the extent: from the innermost factor
 * out, a factor that does not divide what is left takes all of it, and the
 * outermost takes the rest (TVM's repair). */
static void repair_decision(int64_t extent, int64_t *v, int n) {
  int64_t len = extent;
  for (int i = n - 1; i > 0; i--) {
    if (len % v[i] != 0) v[i] = len;
    len /= v[i];
  }
  v[0] = len;
}

int sch_sample_perfect_tile(Schedule *s, SchRV loop_rv, int n, int max_innermost_factor,
                            const int64_t *decision, SchRV *out) {
  const char *prim = "sample_perfect_tile";
  SchPath p = {0};
  TirStmt *loop = sch_find_loop(s, loop_rv, prim, 0, &p);
  sch_path_free(&p);
  if (!loop) return -1;
  if (n < 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: cannot tile loop '%s' into %d pieces (n must be at least 1)", prim,
             sch_loop_name(loop), n);
    return -1;
  }
  if (max_innermost_factor == 0 || max_innermost_factor < -1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2,
             "%s: max_innermost_factor must be positive or -1 (no limit), got %d", prim,
             max_innermost_factor);
    return -1;
  }
  int64_t *v = xmalloc((size_t)n * sizeof *v);
  int64_t extent;
  bool symbolic = !tir_is_const_int(loop->loop.extent, &extent) || extent < 1;
  /* (a symbolic extent's decision is [-1, 1, ...], as sampled: replayed, it
   * is taken as it is) */
  if (decision && !symbolic) {
    for (int i = 0; i < n; i++)
      if (decision[i] < 1) {
        sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
                 "%s: the decision's factors must be positive, got %lld", prim,
                 (long long)decision[i]);
        free(v);
        return -1;
      }
  }
  if (symbolic) {
    for (int i = 0; i < n; i++) v[i] = i == 0 ? -1 : 1; /* a symbolic extent */
  } else if (decision) {
    memcpy(v, decision, (size_t)n * sizeof *v);
    repair_decision(extent, v, n);
  } else {
    draw_perfect_tile(s, extent, n, max_innermost_factor, v);
  }
  const char *func = s->rvs[loop_rv].func;
  for (int i = 0; i < n; i++) out[i] = new_expr(s, func, v[i]);
  SchVal args[4] = {sch_val_rv(loop_rv), sch_val_int(n), sch_val_int(max_innermost_factor),
                    int_list(v, n)};
  sch_record(s, prim, args, 4, out, n);
  free(v);
  return 0;
}

/* ---------------------------------------------------- sample_categorical */

SchRV sch_sample_categorical(Schedule *s, const int64_t *candidates, const double *probs, int n,
                             const int64_t *decision) {
  const char *prim = "sample_categorical";
  if (n < 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 0, "%s: there must be at least one candidate", prim);
    return -1;
  }
  double sum = 0;
  for (int i = 0; i < n; i++) {
    if (!(probs[i] >= 0)) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
               "%s: probabilities must be non-negative, got %g", prim, probs[i]);
      return -1;
    }
    sum += probs[i];
  }
  int64_t pick;
  if (decision) {
    if (*decision < 0 || *decision >= n) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2,
               "%s: decision %lld is out of range [0, %d) of the candidates", prim,
               (long long)*decision, n);
      return -1;
    }
    pick = *decision;
  } else {
    if (!(sum > 0)) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "%s: the probabilities sum to 0", prim);
      return -1;
    }
    double u = rng_real(s) * sum, acc = 0;
    pick = -1;
    for (int i = 0; i < n && pick < 0; i++) {
      acc += probs[i];
      if (probs[i] > 0 && u < acc) pick = i;
    }
    for (int i = n - 1; pick < 0 && i >= 0; i--) /* rounding at the top end */
      if (probs[i] > 0) pick = i;
  }
  SchRV rv = new_expr(s, NULL, candidates[pick]);
  SchVal args[3] = {int_list(candidates, n), sch_val_none(), sch_val_int(pick)};
  args[1].kind = SV_LIST;
  args[1].n = n;
  args[1].items = xmalloc((size_t)n * sizeof *args[1].items);
  for (int i = 0; i < n; i++) {
    args[1].items[i] = sch_val_none();
    args[1].items[i].kind = SV_FLOAT;
    args[1].items[i].f = probs[i];
  }
  sch_record(s, prim, args, 3, &rv, 1);
  return rv;
}

/* ----------------------------------------------- sample_compute_location */

/* What the blocks directly under loop bind its var to: data-parallel only
 * (0), reduction only (1), or otherwise (2); TVM's GetLoopIterType. */
static void loop_type_rec(const TirStmt *st, const TirVar *var, int *nsp, int *nred, int *nother) {
  if (st->kind == TIR_S_BLOCK_REALIZE) {
    const TirBlock *b = tir_realize_block(st);
    for (int i = 0; i < st->realize.n && i < b->niters; i++) {
      if (!tir_expr_uses_var(st->realize.values[i], var)) continue;
      if (b->iters[i].type == TIR_ITER_SPATIAL) (*nsp)++;
      else if (b->iters[i].type == TIR_ITER_REDUCE) (*nred)++;
      else (*nother)++;
    }
    return;
  }
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) loop_type_rec(all[i], var, nsp, nred, nother);
}

static int loop_iter_type(const TirStmt *loop) {
  int nsp = 0, nred = 0, nother = 0;
  loop_type_rec(loop->loop.body, loop->loop.var, &nsp, &nred, &nother);
  if (nother || (nsp && nred)) return 2;
  return nred ? 1 : 0;
}

/* Runs a primitive on s with errors kept out of s->diag; undoes it when it
 * succeeded.  Whether it succeeded. */
static bool try_and_undo(Schedule *s, SchRV block, SchRV loop) {
  DiagCtx quiet;
  diag_init(&quiet, NULL);
  DiagCtx *saved = s->diag;
  s->diag = &quiet;
  int nv = sch_num_versions(s);
  int rc = loop < 0 ? sch_compute_inline(s, block) : sch_compute_at(s, block, loop, true, -1);
  bool ok = rc == 0 && quiet.nerr == 0;
  while (sch_num_versions(s) > nv) sch_undo(s);
  s->diag = saved;
  diag_free(&quiet);
  return ok;
}

/* The candidates (index in the first consumer's loops, or a mark) and their
 * loop vars (NULL for marks), in increasing index order. */
static int collect_locations(Schedule *s, SchRV block, int64_t *idx, const TirVar **vars, int cap) {
  int n = 0;
  if (try_and_undo(s, block, -1)) idx[n] = SCH_LOC_INLINE, vars[n++] = NULL;
  idx[n] = SCH_LOC_ROOT, vars[n++] = NULL;
  SchRV *cons = NULL;
  DiagCtx quiet;
  diag_init(&quiet, NULL);
  DiagCtx *saved = s->diag;
  s->diag = &quiet;
  int ncons = sch_get_consumers(s, block, &cons);
  s->diag = saved;
  diag_free(&quiet);
  if (ncons <= 0) return free(cons), n;
  /* The loops around every consumer: the first consumer's loops, up to the
   * deepest one that also encloses the others (TVM's LCA boundary). */
  SchPath first = {0};
  TirStmt *r0 = sch_find_block(s, cons[0], "sample_compute_location", 0, &first);
  PtrVec loops = {0};
  int scope = r0 ? sch_scope_index(&first, first.n - 1) : first.n;
  for (int d = scope + 1; r0 && d < first.n - 1; d++)
    if (first.s[d]->kind == TIR_S_FOR) pv_push(&loops, first.s[d]);
  int boundary = loops.len - 1; /* one consumer: its innermost loop */
  if (r0 && (first.n < 2 || first.s[first.n - 2]->kind != TIR_S_FOR)) boundary = -1;
  for (int c = 1; c < ncons && boundary >= 0; c++) {
    SchPath pc = {0};
    TirStmt *rc = sch_find_block(s, cons[c], "sample_compute_location", 0, &pc);
    int common = -1;
    for (int i = 0; rc && i <= boundary; i++) {
      bool in = false;
      for (int d = 0; d < pc.n; d++) in |= pc.s[d] == loops.items[i];
      if (!in) break;
      common = i;
    }
    boundary = common;
    sch_path_free(&pc);
  }
  int last_dp = -1;
  for (int i = 0; i <= boundary; i++)
    if (loop_iter_type(loops.items[i]) == 0) last_dp = i;
  bool seen_reduce = false;
  for (int i = 0; i <= boundary && n < cap; i++) {
    const TirStmt *l = loops.items[i];
    int64_t ext;
    if (tir_is_const_int(l->loop.extent, &ext) && ext == 1) continue; /* unit loops */
    if (loop_iter_type(l) == 0) {
      if (seen_reduce) break; /* no data-parallel loop under a reduction loop */
    } else {
      seen_reduce = true;
      if (i > last_dp) break; /* nor trailing reduction loops */
    }
    SchRV lrv = sch_loop_rv(s, s->rvs[block].func, l);
    if (try_and_undo(s, block, lrv)) idx[n] = i, vars[n++] = l->loop.var;
  }
  pv_free(&loops);
  sch_path_free(&first);
  free(cons);
  return n;
}

SchRV sch_sample_compute_location(Schedule *s, SchRV block, const int64_t *decision) {
  const char *prim = "sample_compute_location";
  SchPath p = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &p);
  sch_path_free(&p);
  if (!realize) return -1;
  int ntrace = s->ntrace, nrvs = s->nrvs;
  int64_t idx[66];
  const TirVar *vars[66];
  int n = collect_locations(s, block, idx, vars, 66);
  sch_trace_truncate(s, ntrace); /* the lookups and tries leave nothing behind */
  sch_rvs_truncate(s, nrvs);
  int pick;
  if (decision) {
    /* The same candidate, else the nearest one before it, else root. */
    pick = -1;
    for (int i = 0; i < n; i++)
      if (idx[i] <= *decision) pick = i;
    if (pick < 0) pick = 0; /* idx[0] is root when inline is no candidate */
  } else {
    pick = (int)rng_below(s, (uint64_t)n);
  }
  const char *func = s->rvs[block].func;
  SchRV rv = sch_new_rv(s, SCH_RV_LOOP, func, vars[pick], NULL);
  if (!vars[pick]) s->rvs[rv].value = idx[pick];
  SchVal args[2] = {sch_val_rv(block), sch_val_int(idx[pick])};
  sch_record(s, prim, args, 2, &rv, 1);
  return rv;
}

/* ------------------------------------------------------------ appliers */

static int ap_sample_perfect_tile(Schedule *s, SchVal *a, SchVal *r) {
  int n = (int)a[1].i;
  const int64_t *dec = NULL;
  int64_t *buf = NULL;
  if (a[3].kind == SV_LIST) {
    if (a[3].n != n) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
               "sample_perfect_tile: the decision has %d factors but n is %d", a[3].n, n);
      return -1;
    }
    buf = xmalloc((size_t)(n ? n : 1) * sizeof *buf);
    for (int i = 0; i < n; i++) buf[i] = a[3].items[i].i;
    dec = buf;
  }
  SchRV *out = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *out);
  int rc = sch_sample_perfect_tile(s, (SchRV)a[0].i, n, (int)a[2].i, dec, out);
  free(buf);
  if (rc) return free(out), -1;
  *r = sch_val_rv_list(out, n);
  free(out);
  return 0;
}

static int ap_sample_categorical(Schedule *s, SchVal *a, SchVal *r) {
  if (a[0].n != a[1].n) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "sample_categorical: %d candidates but %d probabilities", a[0].n, a[1].n);
    return -1;
  }
  int n = a[0].n;
  int64_t *c = xmalloc((size_t)(n ? n : 1) * sizeof *c);
  double *pr = xmalloc((size_t)(n ? n : 1) * sizeof *pr);
  for (int i = 0; i < n; i++) c[i] = a[0].items[i].i, pr[i] = a[1].items[i].f;
  int64_t d = a[2].i;
  SchRV rv = sch_sample_categorical(s, c, pr, n, a[2].kind == SV_INT ? &d : NULL);
  free(c);
  free(pr);
  if (rv < 0) return -1;
  *r = sch_val_rv(rv);
  return 0;
}

static int ap_sample_compute_location(Schedule *s, SchVal *a, SchVal *r) {
  int64_t d = a[1].i;
  SchRV rv = sch_sample_compute_location(s, (SchRV)a[0].i, a[1].kind == SV_INT ? &d : NULL);
  if (rv < 0) return -1;
  *r = sch_val_rv(rv);
  return 0;
}

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_sampling[] = {
    {"sample_perfect_tile",
     {P("loop", SP_LOOP, NULL), P("n", SP_INT, NULL), P("max_innermost_factor", SP_INT, "16"),
      P("decision", SP_OPT_INTS, "None")},
     4, SO_LIST, true, ap_sample_perfect_tile},
    {"sample_categorical",
     {P("candidates", SP_INTS, NULL), P("probs", SP_FLOATS, NULL), P("decision", SP_OPT_INT, "None")},
     3, SO_ONE, true, ap_sample_categorical},
    {"sample_compute_location", {P("block", SP_BLOCK, NULL), P("decision", SP_OPT_INT, "None")}, 2, SO_ONE,
     true, ap_sample_compute_location},
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
