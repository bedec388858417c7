/* region_cover.c - TVM's region-cover property of a scope: each block that
 * reads a buffer written by other blocks of its scope reads only what they
 * write there (regions relaxed over the loops inside the scope).  TVM's
 * rfactor requires it of its scope (a stage pipeline).  Only a gap that
 * constant bounds show is reported: symbolic regions pass. */
#include "sched/sched_internal.h"

/* Constant bounds [lo, hi] of dimension d of the region regs[i] of the
 * realize r (path p from the function body), its loops inside the scope
 * relaxed; false when not constant. */
static bool const_dim(IrHeap *h, const SchPath *p, const TirStmt *r, const TirBufferRegion *rg, int d,
                      int64_t *lo, int64_t *hi) {
  const TirBlock *b = tir_realize_block(r);
  int scope_i = sch_scope_index(p, p->n - 1);
  ArithCtx *ctx = arith_new(h);
  for (int k = scope_i + 1; k < p->n; k++)
    if (p->s[k]->kind == TIR_S_FOR) arith_bind_range(ctx, p->s[k]->loop.var, p->s[k]->loop.min, p->s[k]->loop.extent);
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int k = 0; k < b->niters && k < r->realize.n; k++) ir_ptrmap_put(&vmap, b->iters[k].var, r->realize.values[k]);
  TirExpr *mn = tir_substitute_expr(h, rg->ranges[d].min, &vmap);
  TirExpr *last = tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, mn, tir_substitute_expr(h, rg->ranges[d].extent, &vmap)),
                             tir_int(h, mn->dtype, 1));
  int64_t dummy;
  bool ok = arith_const_bounds(ctx, mn, lo, &dummy) && arith_const_bounds(ctx, last, &dummy, hi);
  ir_ptrmap_free(&vmap);
  arith_free(ctx);
  return ok;
}

/* The constant hull of what the blocks of sibs other than `except` write
 * (writes) of buf, or what `except` reads (!writes), in dimension d. */
static bool const_hull(IrHeap *h, TirStmt *root, const PtrVec *sibs, const TirStmt *only, bool writes,
                       const TirBuffer *buf, int d, int64_t *lo, int64_t *hi) {
  bool any = false;
  for (int i = 0; i < sibs->len; i++) {
    const TirStmt *r = sibs->items[i];
    if (writes == (r == only)) continue;
    const TirBlock *b = tir_realize_block(r);
    const TirBufferRegion *regs = writes ? b->writes : b->reads;
    int n = writes ? b->nwrites : b->nreads;
    for (int j = 0; j < n; j++) {
      if (regs[j].buffer != buf) continue;
      SchPath p = {0};
      int64_t a, z;
      bool ok = sch_path_to_realize(root, r->realize.block, &p) && const_dim(h, &p, r, &regs[j], d, &a, &z);
      sch_path_free(&p);
      if (!ok) return false;
      if (!any || a < *lo) *lo = a;
      if (!any || z > *hi) *hi = z;
      any = true;
    }
  }
  return any;
}

bool sch_check_region_cover(Schedule *s, const char *prim, int argi, IrHeap *h, TirStmt *root,
                            const PtrVec *sibs, const TirBlock *b) {
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *c = tir_realize_block(sibs->items[i]);
    for (int r = 0; r < c->nreads; r++) {
      const TirBuffer *buf = c->reads[r].buffer;
      for (int d = 0; d < buf->ndim; d++) {
        int64_t plo = 0, phi = 0, clo = 0, chi = 0;
        if (!const_hull(h, root, sibs, sibs->items[i], true, buf, d, &plo, &phi) ||
            !const_hull(h, root, sibs, sibs->items[i], false, buf, d, &clo, &chi) ||
            (clo >= plo && chi <= phi))
          continue;
        sch_fail(s, SCH_ERR_DATAFLOW, argi,
                 "%s: the scope root of block '%s' is not a stage pipeline: its region cover is "
                 "not complete (block '%s' reads [%lld, %lld] of dimension %d of buffer '%s', of "
                 "which the blocks of the scope write [%lld, %lld])",
                 prim, b->name, c->name, (long long)clo, (long long)chi, d, buf->name, (long long)plo,
                 (long long)phi);
        return false;
      }
    }
  }
  return true;
}
