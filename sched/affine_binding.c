/* affine_binding.c - TVM's block properties that loop primitives check:
 * affine bindings (IsAffineBinding) and compact data flow (every block under
 * a loop is complete, or a reduction block with affine bindings).
 *
 * A binding is affine when the block's iter values are quasi-affine maps of
 * the loops above it that cover the iters' domains densely
 * (arith_detect_iter_map), and the predicate only bounds such a map: each
 * conjunct `lhs < c` uses the loop vars of a single binding (a split's
 * `i_0 * 32 + i_1 < 100`), not a mix of several (`i * 128 + j < 100` over
 * bindings i and j, which TVM's iterator-map detection cannot absorb). */
#include <stdlib.h>

#include "sched/sched_internal.h"

/* Whether the vars of e all occur in one of the bindings. */
static bool within_one_binding(const TirExpr *e, TirExpr *const *vals, int n) {
  PtrVec ev = {0};
  tir_expr_free_vars(e, &ev);
  bool ok = ev.len == 0;
  for (int b = 0; b < n && !ok; b++) {
    bool all = true;
    for (int i = 0; i < ev.len && all; i++) all = tir_expr_uses_var(vals[b], ev.items[i]);
    ok = all;
  }
  pv_free(&ev);
  return ok;
}

static bool predicate_bounds_one_map(const TirExpr *p, TirExpr *const *vals, int n) {
  if (!p || sch_is_trivial_pred(p)) return true;
  if (p->kind == TIR_AND) return predicate_bounds_one_map(p->bin.a, vals, n) && predicate_bounds_one_map(p->bin.b, vals, n);
  if (p->kind == TIR_LT || p->kind == TIR_LE || p->kind == TIR_GT || p->kind == TIR_GE)
    return within_one_binding(p->bin.a, vals, n) && within_one_binding(p->bin.b, vals, n);
  return within_one_binding(p, vals, n);
}

/* Whether e is quasi-affine in loop variables: vars, integer constants, +, -,
 * multiplication by a constant, // and % by a positive constant.  What
 * fuse and split make of loop variables (TVM's iter map detects these; the
 * detection here does not take every split of a fused loop, so such bindings
 * are accepted on their form). */
static bool quasi_affine(const TirExpr *e) {
  int64_t c;
  switch (e->kind) {
    case TIR_VAR: case TIR_INT: return true;
    case TIR_ADD: case TIR_SUB: return quasi_affine(e->bin.a) && quasi_affine(e->bin.b);
    case TIR_MUL:
      return (tir_is_const_int(e->bin.a, &c) && quasi_affine(e->bin.b)) ||
             (tir_is_const_int(e->bin.b, &c) && quasi_affine(e->bin.a));
    case TIR_FLOORDIV: case TIR_FLOORMOD:
      return tir_is_const_int(e->bin.b, &c) && c > 0 && quasi_affine(e->bin.a);
    case TIR_CAST: return quasi_affine(e->un.a);
    default: return false;
  }
}

/* A necessary condition for a dense map: the loops the binding uses have at
 * least as many iterations together as the iter's domain (l * 16 over 8
 * iterations of l cannot cover 128 values). */
static bool covers_domain(const SchPath *p, const TirExpr *binding, const TirRange *dom) {
  int64_t need, have = 1, ext;
  if (!tir_is_const_int(dom->extent, &need)) return true;
  for (int i = 0; i < p->n && have < need; i++)
    if (p->s[i]->kind == TIR_S_FOR && tir_expr_uses_var(binding, p->s[i]->loop.var)) {
      if (!tir_is_const_int(p->s[i]->loop.extent, &ext)) return true;
      have *= ext;
    }
  return have >= need;
}

bool sch_binding_is_affine(TirStmt *root, const TirStmt *realize) {
  SchPath p = {0};
  if (!sch_path_to_realize(root, realize->realize.block, &p)) return sch_path_free(&p), true;
  const TirBlock *b = tir_realize_block(realize);
  bool ok = predicate_bounds_one_map(realize->realize.pred, realize->realize.values, realize->realize.n);
  /* (a predicate bounding a map, e.g. a non-divisible split's, is trusted
   * to cut it down to its domain: the coverage check would overrun) */
  if (ok && b->niters && sch_is_trivial_pred(realize->realize.pred)) {
    IrHeap *h = ir_heap_new();
    ArithCtx *ctx = arith_new(h);
    const TirVar **vars = xmalloc((size_t)(p.n + 1) * sizeof *vars);
    int nv = 0;
    for (int i = 0; i < p.n; i++)
      if (p.s[i]->kind == TIR_S_FOR) {
        arith_bind_range(ctx, p.s[i]->loop.var, p.s[i]->loop.min, p.s[i]->loop.extent);
        vars[nv++] = p.s[i]->loop.var;
      }
    TirRange *doms = xmalloc((size_t)b->niters * sizeof *doms);
    for (int k = 0; k < b->niters; k++) doms[k] = b->iters[k].dom;
    ArithIterMap im = arith_detect_iter_map(ctx, realize->realize.values, doms, b->niters, vars, nv,
                                            ARITH_ITER_INJECTIVE);
    ok = im.ok;
    arith_iter_map_free(&im);
    /* Overlapping tiles (v0 * 2 + v1 with v1 in [0, 4), compute_at's halos)
     * do not map densely but are affine to TVM: each binding linear in the
     * loops with a unit coefficient (not `l * 16`, not `k * k // 2`). */
    if (!ok) {
      ok = true;
      int64_t *co = xmalloc((size_t)(nv + 1) * sizeof *co);
      for (int k = 0; k < b->niters && ok; k++) {
        TirExpr *rest = NULL;
        bool unit = false, any = false;
        if (!arith_affine(ctx, realize->realize.values[k], vars, nv, co, &rest)) {
          ok = false;
          break;
        }
        for (int i = 0; i < nv; i++) {
          any |= co[i] != 0;
          unit |= co[i] == 1 || co[i] == -1;
        }
        ok = !any || unit;
      }
      free(co);
    }
    for (int k = 0; !ok && k <= b->niters; k++) {
      if (k == b->niters) ok = true;
      else if (!quasi_affine(realize->realize.values[k]) || !covers_domain(&p, realize->realize.values[k], &b->iters[k].dom)) break;
    }
    free(doms);
    free(vars);
    arith_free(ctx);
    ir_heap_release(h);
  }
  sch_path_free(&p);
  return ok;
}

/* TVM's IsCompleteBlock / IsReductionBlock (less the dominant-writer rule). */
static bool block_compact(TirStmt *root, const TirStmt *realize) {
  const TirBlock *b = tir_realize_block(realize);
  bool spatial = true, dp_or_reduce = true, reduce = false;
  for (int k = 0; k < b->niters; k++) {
    spatial &= b->iters[k].type == TIR_ITER_SPATIAL;
    reduce |= b->iters[k].type == TIR_ITER_REDUCE;
    dp_or_reduce &= b->iters[k].type == TIR_ITER_SPATIAL || b->iters[k].type == TIR_ITER_REDUCE;
  }
  bool self_read = false;
  for (int i = 0; i < b->nwrites; i++) self_read |= sch_block_reads(b, b->writes[i].buffer);
  if (spatial && !self_read && !b->init) return true;
  /* No reduce iter may index a written buffer (TVM's condition 5). */
  for (int w = 0; w < b->nwrites; w++)
    for (int d = 0; d < b->writes[w].n; d++)
      for (int k = 0; k < b->niters; k++)
        if (b->iters[k].type == TIR_ITER_REDUCE && tir_expr_uses_var(b->writes[w].ranges[d].min, b->iters[k].var))
          return false;
  /* (a reduction's update without its init, as decompose_reduction leaves
   * it, counts as a reduction block here) */
  return (b->init || reduce) && dp_or_reduce && sch_binding_is_affine(root, realize);
}

typedef struct CompactCheck {
  TirStmt *root;
  const TirBlock *bad;
} CompactCheck;

static bool compact_pre(TirVisitor *v, const TirStmt *st) {
  CompactCheck *cc = v->ctx;
  if (st->kind != TIR_S_BLOCK_REALIZE) return true;
  if (!block_compact(cc->root, st)) {
    cc->bad = tir_realize_block(st);
    v->stop = true;
  }
  return false; /* a block's own body is its business */
}

const TirBlock *sch_first_non_compact(TirStmt *root, const TirStmt *subtree) {
  CompactCheck cc = {root, NULL};
  TirVisitor v = {0};
  v.pre_stmt = compact_pre;
  v.ctx = &cc;
  tir_visit_stmt(&v, subtree);
  return cc.bad;
}
