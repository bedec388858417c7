/* inline_inverse.c - the inverse of a consumer's load indices, for
 * reverse_compute_inline (TVM's DetectIterMap + InverseAffineIterMap on the
 * indices with which the consumer loads the inlined buffer).
 *
 * Each load index must be a sum of scaled pieces of the consumer's iters,
 * a piece being `v`, `v // a`, `v % b` or `v // a % b` (constant a, b), the
 * pieces of one index a mixed radix (scales 1, e0, e0 * e1, ...), the pieces
 * of one iter its digits (divisors 1, e0, ...; the top digit may be padded:
 * `v // 16` of v in [0, 127) has 8 values).  Piece t of index j then takes
 * the value `P_j // scale_t % e_t` at the producer's store index P_j (no
 * modulo on the top piece, no division by 1), and each iter the sum of its
 * digits times their divisors, lowest first.  Unit iters the loads do not
 * use take their minimum (TVM's default for them). */
#include "sched/sched_internal.h"

#define MAXP 32
#define UNKNOWN INT64_MAX /* a symbolic extent: only a top digit may have it */

typedef struct Piece {
  int iter;       /* which iter of the consumer */
  int index;      /* which load index it appears in */
  int64_t lf;     /* divisor applied to the iter */
  int64_t ext;    /* values it takes */
  int64_t scale;  /* its weight in the index */
  TirExpr *value; /* its value at the producer's point */
} Piece;

typedef struct Pieces {
  const TirBlock *b;
  int64_t ext[64]; /* iter extents */
  Piece p[MAXP];
  int n;
} Pieces;

static int iter_of(const Pieces *ps, const TirExpr *e) {
  if (e->kind != TIR_VAR) return -1;
  for (int k = 0; k < ps->b->niters; k++)
    if (ps->b->iters[k].var == e->var) return k;
  return -1;
}

static bool add_piece(Pieces *ps, int iter, int index, int64_t lf, int64_t ext, int64_t scale) {
  if (ps->n == MAXP || ext <= 0) return false;
  ps->p[ps->n++] = (Piece){iter, index, lf, ext, scale, NULL};
  return true;
}

/* e (scaled by scale) as pieces of index j; false on another form. */
static bool collect(Pieces *ps, const TirExpr *e, int64_t scale, int j) {
  int64_t c, a;
  int k;
  switch (e->kind) {
    case TIR_ADD: return collect(ps, e->bin.a, scale, j) && collect(ps, e->bin.b, scale, j);
    case TIR_MUL:
      if (tir_is_const_int(e->bin.b, &c)) return collect(ps, e->bin.a, scale * c, j);
      if (tir_is_const_int(e->bin.a, &c)) return collect(ps, e->bin.b, scale * c, j);
      return false;
    case TIR_INT: return e->ival == 0;
    case TIR_VAR:
      k = iter_of(ps, e);
      return k >= 0 && add_piece(ps, k, j, 1, ps->ext[k], scale);
    case TIR_FLOORDIV:
      k = iter_of(ps, e->bin.a);
      if (k < 0 || !tir_is_const_int(e->bin.b, &c) || c <= 0) return false;
      return add_piece(ps, k, j, c, ps->ext[k] == UNKNOWN ? UNKNOWN : (ps->ext[k] + c - 1) / c, scale);
    case TIR_FLOORMOD:
      if (!tir_is_const_int(e->bin.b, &c) || c <= 0) return false;
      k = iter_of(ps, e->bin.a);
      if (k >= 0) return add_piece(ps, k, j, 1, c < ps->ext[k] ? c : ps->ext[k], scale);
      if (e->bin.a->kind != TIR_FLOORDIV || !tir_is_const_int(e->bin.a->bin.b, &a) || a <= 0)
        return false;
      k = iter_of(ps, e->bin.a->bin.a);
      if (k < 0) return false;
      int64_t top = ps->ext[k] == UNKNOWN ? UNKNOWN : (ps->ext[k] + a - 1) / a;
      return add_piece(ps, k, j, a, c < top ? c : top, scale);
    default: return false;
  }
}

/* Indices (into ps->p) of the pieces with field key == v, sorted by `by`. */
static int select_sorted(const Pieces *ps, bool by_iter, int v, int *out) {
  int m = 0;
  for (int t = 0; t < ps->n; t++)
    if ((by_iter ? ps->p[t].iter : ps->p[t].index) == v) out[m++] = t;
  for (int x = 1; x < m; x++)
    for (int y = x; y > 0; y--) {
      const Piece *p0 = &ps->p[out[y - 1]], *p1 = &ps->p[out[y]];
      int64_t k0 = by_iter ? p0->lf : p0->scale, k1 = by_iter ? p1->lf : p1->scale;
      if (k0 <= k1) break;
      int tmp = out[y];
      out[y] = out[y - 1];
      out[y - 1] = tmp;
    }
  return m;
}

bool sch_inverse_load_indices(IrHeap *h, const TirBlock *b, TirExpr *const *load_idx, int n,
                              TirExpr *const *store_idx, IrPtrMap *vmap) {
  if (b->niters > 64) return false;
  Pieces ps = {b, {0}, {{0}}, 0};
  for (int k = 0; k < b->niters; k++) {
    int64_t lo;
    if (!tir_is_const_int(b->iters[k].dom.min, &lo) || lo != 0) return false;
    if (!tir_is_const_int(b->iters[k].dom.extent, &ps.ext[k]) || ps.ext[k] <= 0) ps.ext[k] = UNKNOWN;
  }
  bool ok = true;
  for (int j = 0; j < n && ok; j++) ok = collect(&ps, load_idx[j], 1, j);
  int order[MAXP];
  /* each index a mixed radix of its pieces: their values at the producer */
  for (int j = 0; j < n && ok; j++) {
    int m = select_sorted(&ps, false, j, order);
    int64_t need = 1;
    for (int t = 0; t < m && ok; t++) {
      Piece *p = &ps.p[order[t]];
      ok = p->scale == need && (p->ext != UNKNOWN || t == m - 1);
      if (t < m - 1) need *= p->ext;
      TirExpr *v = store_idx[j];
      if (p->scale != 1) v = tir_binary(h, TIR_FLOORDIV, v, tir_int(h, v->dtype, p->scale));
      if (t < m - 1) v = tir_binary(h, TIR_FLOORMOD, v, tir_int(h, v->dtype, p->ext));
      p->value = v;
    }
  }
  /* each iter the sum of its digits */
  for (int k = 0; k < b->niters && ok; k++) {
    int m = select_sorted(&ps, true, k, order);
    if (m == 0) {
      ok = ps.ext[k] == 1;
      if (ok) ir_ptrmap_put(vmap, b->iters[k].var, b->iters[k].dom.min);
      continue;
    }
    int64_t need = 1;
    TirExpr *sum = NULL;
    for (int t = 0; t < m && ok; t++) {
      const Piece *p = &ps.p[order[t]];
      ok = p->lf == need && (p->ext != UNKNOWN || t == m - 1);
      need = p->ext == UNKNOWN ? UNKNOWN : need * p->ext;
      TirExpr *v = p->value;
      if (p->lf != 1) v = tir_binary(h, TIR_MUL, v, tir_int(h, v->dtype, p->lf));
      sum = sum ? tir_binary(h, TIR_ADD, sum, v) : v;
    }
    if (ok) ok = need >= ps.ext[k];
    if (ok) ir_ptrmap_put(vmap, b->iters[k].var, sum);
  }
  if (!ok) ir_ptrmap_clear(vmap);
  return ok;
}
