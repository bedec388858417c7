/* primitive_reduction.c - decompose_reduction.
 *
 * Splits a reduction block into `<name>_init` (its T.init() body, under
 * copies `<var>_init` of the data-parallel loops between `loop` and the
 * block, placed right before `loop`) and `<name>_update` (the block without
 * init; the block's handle keeps denoting it). */
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "sched/sched_internal.h"

static bool uses_any(const TirExpr *e, TirVar *const *vars, int n) {
  for (int i = 0; i < n; i++)
    if (tir_expr_uses_var(e, vars[i])) return true;
  return false;
}

/* Conjuncts of pred that use none of vars, joined with `and` (NULL if none). */
static TirExpr *keep_conjuncts(IrHeap *h, TirExpr *pred, TirVar *const *vars, int n) {
  if (pred->kind == TIR_AND) {
    TirExpr *a = keep_conjuncts(h, pred->bin.a, vars, n);
    TirExpr *b = keep_conjuncts(h, pred->bin.b, vars, n);
    if (a && b) return tir_binary(h, TIR_AND, a, b);
    return a ? a : b;
  }
  return uses_any(pred, vars, n) ? NULL : pred;
}

/* What decompose_reduction works on: the block, its path, and the loop at
 * which the init goes (bp.s[li]). */
typedef struct {
  Schedule *s;
  const char *prim;
  SchPath *bp;
  TirStmt *realize, *loop;
  const TirBlock *b;
  int li;
} DecompReduction;

/* The loop is an ancestor of the block inside its scope, the block is a
 * reduction block, and no loop above `loop` feeds a reduce iter. */
static bool check_reduction_and_loop(DecompReduction *r) {
  Schedule *s = r->s;
  const char *prim = r->prim;
  const SchPath *bp = r->bp;
  const TirBlock *b = r->b;
  int li = -1;
  for (int d = 0; d < bp->n; d++)
    if (bp->s[d] == r->loop) li = d;
  int scope = sch_scope_index(bp, bp->n - 1);
  if (li < 0 || li < scope) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 1, "%s: loop '%s' is not an ancestor of block '%s'", prim,
             sch_loop_name(r->loop), b->name);
    return false;
  }
  r->li = li;
  bool has_reduce = false, other = false;
  for (int k = 0; k < b->niters; k++) {
    has_reduce |= b->iters[k].type == TIR_ITER_REDUCE;
    /* (TVM's reduction block: only data-parallel and reduce iters; an
     * opaque one, e.g. after rolling_buffer, has no place in the init) */
    other |= b->iters[k].type != TIR_ITER_REDUCE && b->iters[k].type != TIR_ITER_SPATIAL;
  }
  if (!b->init || !has_reduce || other) {
    sch_fail(s, SCH_ERR_REDUCTION, 0, "%s: block '%s' is not a reduction block", prim, b->name);
    return false;
  }
  for (int d = scope + 1; d < li; d++) {
    if (bp->s[d]->kind != TIR_S_FOR) continue;
    for (int k = 0; k < b->niters; k++)
      if (b->iters[k].type == TIR_ITER_REDUCE &&
          tir_expr_uses_var(r->realize->realize.values[k], bp->s[d]->loop.var)) {
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 1,
                 "%s: loop '%s' must be higher than all the loops related to reduce block var "
                 "'%s' (loop '%s' is above it)",
                 prim, sch_loop_name(r->loop), b->iters[k].var->name, sch_loop_name(bp->s[d]));
        return false;
      }
  }
  /* A loop in [loop, block) that no iter uses would repeat the update
   * without the init (TVM does not check this and computes a wrong result). */
  for (int d = li; d < bp->n - 1; d++) {
    if (bp->s[d]->kind != TIR_S_FOR || tir_is_one(bp->s[d]->loop.extent)) continue;
    bool used = false;
    for (int k = 0; k < b->niters && k < r->realize->realize.n; k++)
      used |= tir_expr_uses_var(r->realize->realize.values[k], bp->s[d]->loop.var);
    if (!used) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 1,
               "%s: loop '%s' is not bound to any iter of block '%s'; the update would be "
               "repeated without its init",
               prim, sch_loop_name(bp->s[d]), b->name);
      return false;
    }
  }
  return true;
}

/* Whether an affine binding (coefficients co over loops of extents lext)
 * visits some value twice: sorted by coefficient, each loop's coefficient
 * must reach the span of the smaller ones. */
static bool binding_revisits(const int64_t *co, const int64_t *lext, int nl) {
  int64_t span[64], c[64];
  int m = 0;
  for (int q = 0; q < nl; q++)
    if (co[q]) c[m] = co[q] < 0 ? -co[q] : co[q], span[m++] = lext[q];
  for (int x = 1; x < m; x++) /* insertion sort by coefficient */
    for (int y = x; y > 0 && c[y] < c[y - 1]; y--) {
      int64_t tc_ = c[y], ts = span[y];
      c[y] = c[y - 1], span[y] = span[y - 1];
      c[y - 1] = tc_, span[y - 1] = ts;
    }
  for (int x = 0; x + 1 < m; x++)
    if (c[x + 1] < c[x] * span[x]) return true;
  return false;
}

/* Nor may those loops visit an output point twice (compute_at under a
 * tile smaller than the region it needs: `vj = j_0 * 2 + ax0`, ax0 in
 * [0, 8)): the block's init ran again at each visit, the hoisted one
 * runs once.  Checked for affine bindings (binding_revisits). */
static bool check_visits_once(const DecompReduction *r) {
  const SchPath *bp = r->bp;
  const TirBlock *b = r->b;
  IrHeap *th = ir_heap_new();
  ArithCtx *tc = arith_new(th);
  const TirVar *lv[64];
  int64_t lext[64];
  int nl = 0;
  for (int d = r->li; d < bp->n - 1 && nl < 64; d++) {
    int64_t e;
    if (bp->s[d]->kind != TIR_S_FOR || !tir_is_const_int(bp->s[d]->loop.extent, &e) || e <= 1) continue;
    lv[nl] = bp->s[d]->loop.var;
    lext[nl++] = e;
    arith_bind_range(tc, bp->s[d]->loop.var, bp->s[d]->loop.min, bp->s[d]->loop.extent);
  }
  const char *bad = NULL;
  for (int k = 0; k < b->niters && k < r->realize->realize.n && !bad && nl; k++) {
    int64_t co[64];
    TirExpr *rest = NULL;
    if (b->iters[k].type != TIR_ITER_SPATIAL) continue;
    if (!arith_affine(tc, r->realize->realize.values[k], lv, nl, co, &rest)) continue;
    if (binding_revisits(co, lext, nl)) bad = b->iters[k].var->name;
  }
  arith_free(tc);
  ir_heap_release(th);
  if (bad) {
    sch_fail(r->s, SCH_ERR_REDUCTION, 1,
             "%s: the loops from '%s' visit some values of iter '%s' of block '%s' more "
             "than once; the init would run once where the block's runs at each visit",
             r->prim, sch_loop_name(r->loop), bad, b->name);
    return false;
  }
  return true;
}

/* The init goes before `loop`: the reduce iters must be at the start of
 * their domains in the first iteration of the loops from there (a loop
 * starting elsewhere, e.g. `range(3, 6)`, would run it where the block's
 * init never runs). */
static bool check_reduce_starts_at_loop(const DecompReduction *r) {
  const SchPath *bp = r->bp;
  const TirBlock *b = r->b;
  IrHeap *th = ir_heap_new();
  ArithCtx *tc = arith_new(th);
  IrPtrMap at_min;
  ir_ptrmap_init(&at_min);
  for (int d = r->li; d < bp->n - 1; d++)
    if (bp->s[d]->kind == TIR_S_FOR) ir_ptrmap_put(&at_min, bp->s[d]->loop.var, bp->s[d]->loop.min);
  const char *bad = NULL;
  for (int k = 0; k < b->niters && k < r->realize->realize.n && !bad; k++) {
    if (b->iters[k].type != TIR_ITER_REDUCE) continue;
    TirExpr *first = tir_substitute_expr(th, r->realize->realize.values[k], &at_min);
    if (!arith_prove(tc, tir_binary(th, TIR_EQ, first, b->iters[k].dom.min))) bad = b->iters[k].var->name;
  }
  ir_ptrmap_free(&at_min);
  arith_free(tc);
  ir_heap_release(th);
  if (bad) {
    sch_fail(r->s, SCH_ERR_REDUCTION, 1,
             "%s: the reduce iter '%s' of block '%s' does not start at the start of its "
             "domain in the loops from '%s'; the init would run where the block's does not",
             r->prim, bad, b->name, sch_loop_name(r->loop));
    return false;
  }
  return true;
}

/* Loops from `loop` down to the block: copies `<var>_init` of the
 * data-parallel ones (outermost first, bodies unset; vmap maps each copied
 * var to its copy); the vars of the others go to dropped. */
static int build_init_loops(IrHeap *h, const DecompReduction *r, IrPtrMap *vmap,
                            TirStmt **copied, TirVar **dropped, int *ndropped) {
  const TirBlock *b = r->b;
  int ncopied = 0;
  for (int d = r->li; d < r->bp->n - 1; d++) {
    TirStmt *l = r->bp->s[d];
    if (l->kind != TIR_S_FOR) continue;
    bool spatial = false; /* loops used by a data-parallel iter are copied */
    for (int k = 0; k < b->niters && k < r->realize->realize.n; k++)
      if (b->iters[k].type == TIR_ITER_SPATIAL &&
          tir_expr_uses_var(r->realize->realize.values[k], l->loop.var))
        spatial = true;
    if (spatial) {
      char nbuf[256];
      snprintf(nbuf, sizeof nbuf, "%s_init", l->loop.var->name);
      TirVar *nv = tir_var(h, nbuf, l->loop.var->dtype);
      ir_ptrmap_put(vmap, l->loop.var, tir_var_ref(h, nv));
      TirStmt *c = tir_for(h, nv, l->loop.min, l->loop.extent, l->loop.kind, l->loop.thread_tag,
                           l->loop.annotations, NULL);
      c->span = l->span;
      copied[ncopied++] = c;
    } else {
      dropped[(*ndropped)++] = l->loop.var;
    }
  }
  return ncopied;
}

/* The init block's realize: fresh iter vars for the data-parallel iters,
 * bindings through vmap, the init body, and the predicate's conjuncts that
 * use no dropped loop. */
static TirStmt *build_init_realize(IrHeap *h, const DecompReduction *r, IrPtrMap *vmap,
                                   TirVar *const *dropped, int ndropped) {
  const TirBlock *b = r->b;
  const TirStmt *realize = r->realize;
  TirBlock ib = {0};
  ib.iters = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *ib.iters);
  TirExpr **vals = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *vals);
  IrPtrMap imap;
  ir_ptrmap_init(&imap);
  for (int k = 0; k < b->niters; k++) {
    if (b->iters[k].type != TIR_ITER_SPATIAL) continue;
    TirIterVar iv = b->iters[k];
    TirVar *nv = tir_var(h, iv.var->name, iv.var->dtype);
    ir_ptrmap_put(&imap, iv.var, tir_var_ref(h, nv));
    iv.var = nv;
    vals[ib.niters] = tir_substitute_expr(h, realize->realize.values[k], vmap);
    ib.iters[ib.niters++] = iv;
  }
  char nbuf[256];
  snprintf(nbuf, sizeof nbuf, "%s_init", b->name);
  ib.name = nbuf;
  ib.annotations = b->annotations; /* TVM's init block keeps the block's annotations */
  ib.body = tir_substitute_stmt(h, b->init, &imap);
  ib.writes = ir_alloc(h, (size_t)(b->nwrites ? b->nwrites : 1) * sizeof *ib.writes);
  for (int i = 0; i < b->nwrites; i++) {
    TirBufferRegion wr = b->writes[i];
    wr.ranges = ir_alloc(h, (size_t)(wr.n ? wr.n : 1) * sizeof *wr.ranges);
    for (int d = 0; d < wr.n; d++) {
      wr.ranges[d].min = tir_substitute_expr(h, b->writes[i].ranges[d].min, &imap);
      wr.ranges[d].extent = tir_substitute_expr(h, b->writes[i].ranges[d].extent, &imap);
    }
    ib.writes[i] = wr;
  }
  ib.nwrites = b->nwrites;
  /* An init that is not a constant (e.g. `D = C` after
   * fuse_reduction_epilogue) reads what its value loads. */
  {
    TirBufferRegion *iw = NULL;
    int niw = 0;
    tir_infer_access_regions(h, &ib, &ib.reads, &ib.nreads, &iw, &niw);
  }
  ir_ptrmap_free(&imap);
  TirExpr *pred = tir_bool(h, true);
  if (!sch_is_trivial_pred(realize->realize.pred)) {
    TirExpr *kept = keep_conjuncts(h, realize->realize.pred, dropped, ndropped);
    if (kept) pred = tir_substitute_expr(h, kept, vmap);
  }
  TirStmt *iblock = tir_block(h, &ib);
  iblock->span = realize->realize.block->span;
  TirStmt *init = tir_block_realize(h, vals, ib.niters, pred, iblock);
  init->span = realize->span;
  return init;
}

/* The init nest: the init realize under the copied data-parallel loops.
 * *init_realize gets the realize itself. */
static TirStmt *build_init_nest(IrHeap *h, const DecompReduction *r, TirStmt **init_realize) {
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  int nl = r->bp->n;
  TirStmt **copied = xmalloc((size_t)nl * sizeof *copied);
  TirVar **dropped = xmalloc((size_t)nl * sizeof *dropped);
  int ndropped = 0;
  int ncopied = build_init_loops(h, r, &vmap, copied, dropped, &ndropped);
  TirStmt *init = build_init_realize(h, r, &vmap, dropped, ndropped);
  *init_realize = init;
  for (int i = ncopied - 1; i >= 0; i--) {
    copied[i]->loop.min = tir_substitute_expr(h, copied[i]->loop.min, &vmap);
    copied[i]->loop.extent = tir_substitute_expr(h, copied[i]->loop.extent, &vmap);
    copied[i]->loop.body = init;
    init = copied[i];
  }
  free(copied);
  free(dropped);
  ir_ptrmap_free(&vmap);
  return init;
}

/* The update block (no init, regions recomputed) replaces the block, and
 * the init nest goes right before `loop`.  Returns the new root. */
static TirStmt *replace_with_init_and_update(IrHeap *h, const DecompReduction *r, TirStmt *init,
                                             SchPath *np) {
  TirBlock ub = *r->b;
  char nbuf[256];
  ub.init = NULL;
  snprintf(nbuf, sizeof nbuf, "%s_update", r->b->name);
  ub.name = nbuf;
  tir_infer_access_regions(h, &ub, &ub.reads, &ub.nreads, &ub.writes, &ub.nwrites);
  TirStmt *update = sch_realize_with(h, r->realize, &ub, NULL, NULL);
  TirStmt *root = sch_replace_at(h, r->bp, r->bp->n - 1, update);
  if (!sch_path_to_loop(root, r->loop->loop.var, np)) tvs_unreachable();
  TirStmt *pair[2] = {init, np->s[np->n - 1]};
  return sch_replace_at(h, np, np->n - 1, tir_seq(h, pair, 2));
}

SchRV sch_decompose_reduction(Schedule *s, SchRV block_rv, SchRV loop_rv) {
  const char *prim = "decompose_reduction";
  SchPath bp = {0}, lp = {0}, np = {0};
  SchRV res = -1;
  TirStmt *realize = sch_find_block(s, block_rv, prim, 0, &bp);
  TirStmt *loop = realize ? sch_find_loop(s, loop_rv, prim, 1, &lp) : NULL;
  if (!loop) goto done;
  DecompReduction r = {s, prim, &bp, realize, loop, tir_realize_block(realize), -1};
  if (!check_reduction_and_loop(&r) || !check_visits_once(&r) || !check_reduce_starts_at_loop(&r))
    goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirStmt *init_realize = NULL;
  TirStmt *init = build_init_nest(h, &r, &init_realize);
  TirStmt *root = replace_with_init_and_update(h, &r, init, &np);
  const char *func = s->rvs[block_rv].func;
  sch_commit(s, nm, func, root);
  res = sch_block_rv(s, func, init_realize);
  SchVal args[2] = {sch_val_rv(block_rv), sch_val_rv(loop_rv)};
  sch_record(s, prim, args, 2, &res, 1);
done:
  sch_path_free(&bp);
  sch_path_free(&lp);
  sch_path_free(&np);
  return res;
}
