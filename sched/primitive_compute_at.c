/* primitive_compute_at.c - compute_at and reverse_compute_at.
 *
 * Moves a producer under a loop of its consumers (or a consumer under a loop
 * of its producers) and regenerates loops `ax0, ax1, ...` that cover exactly
 * the region the other side touches under that loop: the other blocks'
 * regions are relaxed over the loops inside the target loop with the
 * analyzer, then mapped back to the moved block's iters through its own
 * access of the buffer.  The block itself (body, iters) is kept as is. */
#include <stdlib.h>
#include <string.h>

#include "sched/index_map.h"
#include "sched/sched_internal.h"

/* A closed symbolic interval; full = unknown (the whole domain). */
typedef struct Hull {
  TirExpr *lo, *hi;
  bool set, full;
} Hull;

static void hull_join(ArithCtx *ctx, Hull *h, TirExpr *lo, TirExpr *hi) {
  IrHeap *hp = arith_heap(ctx);
  if (h->full) return;
  if (!lo || !hi) {
    h->full = true;
    return;
  }
  if (!h->set) {
    h->lo = lo, h->hi = hi, h->set = true;
    return;
  }
  if (arith_prove(ctx, tir_binary(hp, TIR_LE, h->lo, lo))) { /* keep */
  } else if (arith_prove(ctx, tir_binary(hp, TIR_LE, lo, h->lo))) h->lo = lo;
  else h->full = true;
  if (arith_prove(ctx, tir_binary(hp, TIR_GE, h->hi, hi))) { /* keep */
  } else if (arith_prove(ctx, tir_binary(hp, TIR_GE, hi, h->hi))) h->hi = hi;
  else h->full = true;
}

/* The loops strictly between index `from` of path p and its end. */
static void bind_inner_loops(ArithCtx *ctx, const SchPath *p, int from) {
  for (int d = from + 1; d < p->n; d++)
    if (p->s[d]->kind == TIR_S_FOR)
      arith_bind_range(ctx, p->s[d]->loop.var, p->s[d]->loop.min, p->s[d]->loop.extent);
}

/* The thread-bound loops at or above index `upto` of path p that a buffer
 * in `scope` is relaxed over (TVM's LoopDomainOfSRefTreePath with the
 * buffer's storage scope as extra_relax_scope): a shared tile computed at a
 * loop inside threadIdx loops covers the whole thread block's need. */
static void bind_relaxed_thread_loops(ArithCtx *ctx, const SchPath *p, int upto, const char *scope) {
  if (tir_scope_is_global(scope)) return;
  for (int d = 0; d <= upto && d < p->n; d++) {
    const TirStmt *l = p->s[d];
    if (l->kind == TIR_S_FOR && l->loop.kind == TIR_FOR_THREAD_BINDING &&
        tir_storage_relaxed_under_thread(scope, l->loop.thread_tag))
      arith_bind_range(ctx, l->loop.var, l->loop.min, l->loop.extent);
  }
}

/* Joins into hull[ndim] the region of buf accessed (reads or writes) by the
 * realize `r`, in loop vars outside `loop` (loops inside relaxed). */
static void relax_access(ArithCtx *ctx, ArithCtx *rctx, TirStmt *root, const TirStmt *loop, TirStmt *r,
                         const TirBuffer *buf, bool writes, Hull *hull) {
  IrHeap *h = arith_heap(ctx);
  const TirBlock *b = tir_realize_block(r);
  SchPath p = {0};
  if (!sch_path_to_realize(root, r->realize.block, &p)) {
    sch_path_free(&p);
    return;
  }
  int from = 0;
  for (int d = 0; d < p.n; d++)
    if (p.s[d] == loop) from = d;
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int k = 0; k < b->niters && k < r->realize.n; k++)
    ir_ptrmap_put(&vmap, b->iters[k].var, r->realize.values[k]);
  arith_push(rctx);
  bind_inner_loops(rctx, &p, from);
  bind_relaxed_thread_loops(rctx, &p, from, buf->scope);
  const TirBufferRegion *regs = writes ? b->writes : b->reads;
  int nregs = writes ? b->nwrites : b->nreads;
  for (int i = 0; i < nregs; i++) {
    if (regs[i].buffer != buf) continue;
    for (int d = 0; d < regs[i].n; d++) {
      TirExpr *mn = tir_substitute_expr(h, regs[i].ranges[d].min, &vmap);
      TirExpr *last = tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, mn, tir_substitute_expr(h, regs[i].ranges[d].extent, &vmap)),
                                 tir_int(h, mn->dtype, 1));
      TirExpr *lo = NULL, *hi = NULL, *dummy = NULL;
      if (!arith_symbolic_bounds(rctx, mn, &lo, &dummy)) lo = NULL;
      if (!arith_symbolic_bounds(rctx, last, &dummy, &hi)) hi = NULL;
      hull_join(ctx, &hull[d], lo, hi);
    }
  }
  arith_pop(rctx);
  ir_ptrmap_free(&vmap);
  sch_path_free(&p);
}

/* Is `o` a producer of b (writes what b reads) / a consumer (reads what b writes)? */
static bool is_producer(const TirBlock *o, const TirBlock *b) {
  for (int k = 0; k < b->nreads; k++)
    if (sch_block_writes(o, b->reads[k].buffer)) return true;
  return false;
}

static bool is_consumer(const TirBlock *o, const TirBlock *b) {
  for (int k = 0; k < b->nwrites; k++)
    if (sch_block_reads(o, b->writes[k].buffer)) return true;
  return false;
}

static bool child_has(TirStmt *child, const TirBlock *b, bool producer) {
  PtrVec rs = {0};
  TirStmt fake = {0};
  fake.kind = TIR_S_BLOCK;
  fake.block.body = child;
  sch_scope_blocks(&fake, &rs);
  bool r = false;
  for (int i = 0; i < rs.len && !r; i++) {
    const TirBlock *o = tir_realize_block(rs.items[i]);
    if (o != b) r = producer ? is_producer(o, b) : is_consumer(o, b);
  }
  pv_free(&rs);
  return r;
}

static bool block_is_complete_or_reduction(const TirBlock *b) {
  bool has_reduce = false;
  for (int k = 0; k < b->niters; k++) {
    if (b->iters[k].type == TIR_ITER_REDUCE) has_reduce = true;
    else if (b->iters[k].type != TIR_ITER_SPATIAL) return false;
  }
  if (has_reduce) return b->init != NULL;
  for (int k = 0; k < b->nwrites; k++)
    if (sch_block_reads(b, b->writes[k].buffer)) return false;
  return true;
}

/* Whether the region of buf that realize r writes, relaxed over the loops
 * between loop and r, is exactly what r's instances there write: each index
 * affine in those loops (a constant-extent tile of them), their coefficients
 * (sorted) leaving no gaps, and no loop in two dimensions. */
static bool exact_write(IrHeap *h, TirStmt *loop, TirStmt *r, const TirBuffer *buf) {
  SchPath p = {0};
  if (!sch_path_to_realize(loop, r->realize.block, &p)) return false;
  const TirVar *lv[64];
  int64_t ext[64];
  int nl = 0;
  bool ok = true;
  IrHeap *th = ir_heap_new();
  ArithCtx *a = arith_new(th);
  for (int d = 0; d < p.n - 1 && ok; d++) {
    if (p.s[d]->kind != TIR_S_FOR) continue;
    int64_t e;
    if (nl == 64 || !tir_is_const_int(p.s[d]->loop.extent, &e)) ok = false;
    else if (e > 1) lv[nl] = p.s[d]->loop.var, ext[nl++] = e;
    arith_bind_range(a, p.s[d]->loop.var, p.s[d]->loop.min, p.s[d]->loop.extent);
  }
  const TirBlock *b = tir_realize_block(r);
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int k = 0; k < b->niters && k < r->realize.n; k++) ir_ptrmap_put(&vmap, b->iters[k].var, r->realize.values[k]);
  bool used[64] = {false};
  for (int i = 0; i < b->nwrites && ok; i++) {
    if (b->writes[i].buffer != buf) continue;
    for (int d = 0; d < b->writes[i].n && ok; d++) {
      int64_t co[64], c[64], sp[64];
      TirExpr *rest = NULL;
      TirExpr *mn = tir_substitute_expr(th, b->writes[i].ranges[d].min, &vmap);
      int64_t tile = 0;
      if (!tir_is_const_int(b->writes[i].ranges[d].extent, &tile) || tile < 1 ||
          !arith_affine(a, mn, lv, nl, co, &rest)) {
        ok = false;
        break;
      }
      int m = 0;
      /* A tile [mn, mn + E) (a block's write, e.g. blockize's outer block)
       * is one more contiguous piece, of stride 1 and extent E. */
      if (tile > 1) c[m] = 1, sp[m++] = tile;
      for (int q = 0; q < nl; q++) {
        if (!co[q]) continue;
        if (used[q]) ok = false;
        used[q] = true;
        c[m] = co[q] < 0 ? -co[q] : co[q], sp[m++] = ext[q];
      }
      for (int x = 1; x < m; x++)
        for (int y = x; y > 0 && c[y] < c[y - 1]; y--) {
          int64_t t1 = c[y], t2 = sp[y];
          c[y] = c[y - 1], sp[y] = sp[y - 1];
          c[y - 1] = t1, sp[y - 1] = t2;
        }
      if (m && c[0] != 1) ok = false;
      for (int x = 0; x + 1 < m && ok; x++)
        if (c[x + 1] > c[x] * sp[x]) ok = false;
    }
  }
  ir_ptrmap_free(&vmap);
  arith_free(a);
  ir_heap_release(th);
  sch_path_free(&p);
  (void)h;
  return ok;
}

/* What compute_at / reverse_compute_at work on. */
typedef struct ComputeAt {
  Schedule *s;
  const char *prim;
  bool reverse;
  SchPath *bp, *lp;
  TirStmt *realize, *loop;
  const TirBlock *b;
  const char *lname;
  TirFunc *f;
  PtrVec *sibs;   /* the block realizes of the block's scope */
  int bscope;     /* index of the scope block in bp */
} ComputeAt;

/* The block and the loop share a scope, the loop is not above the block,
 * and the block is a complete or reduction block of a stage pipeline; fills
 * ca->sibs. */
static bool check_scope_and_block(ComputeAt *ca) {
  Schedule *s = ca->s;
  const char *prim = ca->prim;
  const TirBlock *b = ca->b;
  int bscope = ca->bscope;
  int lscope = sch_scope_index(ca->lp, ca->lp->n - 1);
  if (sch_contains(ca->loop, ca->realize)) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 1, "%s: loop '%s' is an ancestor of block '%s'", prim,
             ca->lname, b->name);
    return false;
  }
  if (bscope < 0 || lscope < 0 || ca->bp->s[bscope] != ca->lp->s[lscope]) {
    sch_fail(s, SCH_ERR_DATAFLOW, 1,
             "%s: block '%s' and loop '%s' are not under the same block scope", prim, b->name,
             ca->lname);
    return false;
  }
  sch_scope_blocks(ca->bp->s[bscope], ca->sibs);
  if (!sch_check_stage_pipeline(s, prim, 0, ca->sibs, b)) return false;
  if (!block_is_complete_or_reduction(b)) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0,
             "%s: block '%s' is neither a complete block nor a reduction block", prim, b->name);
    return false;
  }
  return true;
}

/* The block can leave its place: its own loops are not used directly, it
 * writes no parameter (compute_at), and it is not alone in its scope. */
static bool check_block_movable(const ComputeAt *ca) {
  Schedule *s = ca->s;
  const char *prim = ca->prim;
  const TirBlock *b = ca->b;
  const SchPath *bp = ca->bp;
  /* The block's own loops are regenerated from its iters: a block using
   * one of them directly (an opaque block, e.g. loop_partition's, holding
   * blocks bound to the loop) would be left with an undefined var. */
  PtrVec fv = {0};
  tir_stmt_free_vars(ca->realize->realize.block, &fv);
  const TirStmt *used = NULL;
  for (int d = ca->bscope + 1; d < bp->n - 1 && !used; d++)
    for (int q = 0; q < fv.len && !used; q++)
      if (bp->s[d]->kind == TIR_S_FOR && bp->s[d]->loop.var == fv.items[q]) used = bp->s[d];
  pv_free(&fv);
  if (used) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
             "%s: block '%s' uses the var of its loop '%s' directly, not through a block "
             "iter; it cannot be moved",
             prim, b->name, sch_loop_name(used));
    return false;
  }
  if (!ca->reverse) {
    for (int k = 0; k < b->nwrites; k++)
      if (sch_is_param_buffer(ca->f, b->writes[k].buffer)) {
        sch_fail(s, SCH_ERR_DATAFLOW, 0,
                 "%s: block '%s' is an output block (it writes the function's buffer '%s')", prim,
                 b->name, b->writes[k].buffer->name);
        return false;
      }
  }
  if (ca->sibs->len == 1) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0, "%s: block '%s' is the only leaf in its scope", prim, b->name);
    return false;
  }
  return true;
}

/* Every block on the other side (consumers for compute_at, producers for
 * reverse_compute_at) is under the loop, and those outside it keep their
 * order. */
static bool check_other_side(const ComputeAt *ca) {
  Schedule *s = ca->s;
  const char *prim = ca->prim;
  const TirBlock *b = ca->b;
  const PtrVec *sibs = ca->sibs;
  bool reverse = ca->reverse;
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *o = tir_realize_block(sibs->items[i]);
    if (o == b) continue;
    bool need = reverse ? is_producer(o, b) : is_consumer(o, b);
    if (need && !sch_contains(ca->loop, sibs->items[i])) {
      sch_fail(s, SCH_ERR_DATAFLOW, 1,
               "%s: not all %s of block '%s' are under loop '%s' (block '%s' is not)", prim,
               reverse ? "producers" : "consumers", b->name, ca->lname, o->name);
      return false;
    }
  }
  /* The other side's blocks outside the loop must keep their order: for
   * compute_at its producers before the loop, for reverse_compute_at its
   * consumers after it (TVM does not check this and can produce wrong code). */
  int first_in = -1, last_in = -1;
  for (int i = 0; i < sibs->len; i++)
    if (tir_realize_block(sibs->items[i]) != b && sch_contains(ca->loop, sibs->items[i])) {
      if (first_in < 0) first_in = i;
      last_in = i;
    }
  for (int i = 0; first_in >= 0 && i < sibs->len; i++) {
    const TirBlock *o = tir_realize_block(sibs->items[i]);
    if (o == b || sch_contains(ca->loop, sibs->items[i])) continue;
    bool bad = reverse ? is_consumer(o, b) && i < last_in : is_producer(o, b) && i > first_in;
    if (bad) {
      sch_fail(s, SCH_ERR_DATAFLOW, 1, "%s: block '%s' %s block '%s' but is %s loop '%s'", prim,
               o->name, reverse ? "consumes" : "produces for", b->name,
               reverse ? "before" : "after", ca->lname);
      return false;
    }
  }
  return true;
}

/* Insertion point: after the last child holding a producer, before the
 * first child holding a consumer.  Returns the position among the loop
 * body's nkids children (-1 + error when there is none, or index is out
 * of range). */
static int compute_insertion_point(const ComputeAt *ca, int index, TirStmt ***kids, int *nkids) {
  const TirBlock *b = ca->b;
  TirStmt **body = &ca->loop->loop.body;
  *kids = (*body)->kind == TIR_S_SEQ ? (*body)->seq.stmts : body;
  *nkids = (*body)->kind == TIR_S_SEQ ? (*body)->seq.n : 1;
  int lower = 0, upper = *nkids;
  for (int i = 0; i < *nkids; i++)
    if (child_has((*kids)[i], b, true)) lower = i + 1;
  for (int i = *nkids - 1; i >= 0; i--)
    if (child_has((*kids)[i], b, false)) upper = i;
  if (lower > upper) {
    sch_fail(ca->s, SCH_ERR_DATAFLOW, 1,
             "%s: cannot find an insertion point under loop '%s' that satisfies the "
             "producer-consumer constraint of block '%s'",
             ca->prim, ca->lname, b->name);
    return -1;
  }
  int pos = index == -1 ? upper : index == -2 ? lower : index;
  if (pos < lower || pos > upper) {
    sch_fail(ca->s, SCH_ERR_INVALID_ARGUMENT, 3,
             "%s: index %d is outside the legal insertion range [%d, %d]", ca->prim, index, lower,
             upper);
    return -1;
  }
  return pos;
}

/* Joins into hull[] the region of buf that the other side's blocks under
 * the loop access; *any tells whether one does.  For reverse_compute_at,
 * false + error when a producer's write there cannot be told exactly. */
static bool compute_buffer_hull(const ComputeAt *ca, ArithCtx *ctx, ArithCtx *rctx, IrHeap *h,
                                const TirBuffer *buf, Hull *hull, bool *any) {
  const TirBlock *b = ca->b;
  const PtrVec *sibs = ca->sibs;
  bool reverse = ca->reverse;
  for (int j = 0; j < sibs->len; j++) {
    const TirBlock *o = tir_realize_block(sibs->items[j]);
    if (o == b || !sch_contains(ca->loop, sibs->items[j])) continue;
    if (reverse ? !sch_block_writes(o, buf) : !sch_block_reads(o, buf)) continue;
    relax_access(ctx, rctx, ca->f->body, ca->loop, sibs->items[j], buf, reverse, hull);
    *any = true;
    /* The consumer reads what the hull says is produced under the loop:
     * the hull must be exact, each dimension of the producer's write an
     * affine image without gaps of its own loops inside the loop (`v // 12`,
     * `v % 12` of a fused loop are not: the hull's whole rows would be
     * read before the later iterations produce them). */
    if (reverse && !exact_write(h, ca->loop, sibs->items[j], buf)) {
      sch_fail(ca->s, SCH_ERR_NOT_AFFINE, 1,
               "%s: the region of buffer '%s' that block '%s' writes under loop '%s' "
               "cannot be told exactly (its indices are not affine in the loops there)",
               ca->prim, buf->name, o->name, ca->lname);
      return false;
    }
  }
  return true;
}

/* Whether hull d covers the whole dimension d of buf. */
static bool hull_covers_dim(ArithCtx *ctx, IrHeap *h, const Hull *hull, const TirBuffer *buf,
                            int d) {
  return hull->set && !hull->full &&
         arith_prove(ctx, tir_binary(h, TIR_LE, hull->lo, tir_int(h, hull->lo->dtype, 0))) &&
         arith_prove(ctx, tir_binary(h, TIR_GE, hull->hi,
                                     tir_binary(h, TIR_SUB, buf->shape[d],
                                                tir_int(h, buf->shape[d]->dtype, 1))));
}

/* How dimension d of the block's own access maps to one iter. */
typedef struct DimMap {
  int which;     /* the iter */
  int64_t coef;  /* its coefficient */
  bool tile;     /* the tile [v * e, v * e + e) */
  TirExpr *rest; /* the rest of the index */
} DimMap;

/* TVM's dimension-wise forms: a point v + rest or rest - v (the affine
 * inverse), or the tile [v * e, v * e + e) (SolveBlockVarDomain's v * e). */
static bool map_dim(const TirBlock *b, ArithCtx *ctx, const TirBufferRegion *mine, int d,
                    const TirVar **ivars, DimMap *out) {
  int64_t coeffs[64];
  int nz = 0;
  int64_t ext = 0;
  out->which = -1, out->coef = 0, out->tile = false, out->rest = NULL;
  bool mapped = b->niters <= 64 && tir_is_const_int(mine->ranges[d].extent, &ext) &&
                arith_affine(ctx, mine->ranges[d].min, ivars, b->niters, coeffs, &out->rest);
  for (int k = 0; mapped && k < b->niters; k++)
    if (coeffs[k]) nz++, out->which = k;
  out->coef = mapped && nz == 1 ? coeffs[out->which] : 0;
  out->tile = out->coef > 1 && ext == out->coef && tir_is_zero(arith_simplify(ctx, out->rest));
  return mapped && nz == 1 && ((ext == 1 && (out->coef == 1 || out->coef == -1)) || out->tile);
}

/* Whether every dimension of the access maps dimension-wise. */
static bool dims_map_directly(const ComputeAt *ca, ArithCtx *ctx, const TirBufferRegion *mine,
                              const TirVar **ivars) {
  DimMap dm;
  for (int d = 0; d < mine->n; d++)
    if (!map_dim(ca->b, ctx, mine, d, ivars, &dm)) return false;
  return true;
}

/* TVM's UpdateBlockVarDomainAffine: when the block's own access `mine` is a
 * point whose indices are a bijective quasi-affine map of its iters
 * (`v // 16, v % 16`), the iters' ranges are the inverse map at the hull's
 * corners, joined into iter[].  False (nothing joined) when the access has
 * another form or a dimension of the hull is unknown. */
static bool iters_from_hull_affine(const ComputeAt *ca, ArithCtx *ctx, IrHeap *h,
                                   const TirBufferRegion *mine, const Hull *hull, Hull *iter) {
  const TirBlock *b = ca->b;
  int n = mine->n;
  if (n == 0 || n > 64 || b->niters == 0 || b->niters > 64) return false;
  TirExpr *idx[64], *lo[64], *hi[64], *ext[64];
  TirVar *src[64];
  for (int d = 0; d < n; d++) {
    if (!tir_is_one(mine->ranges[d].extent) || !hull[d].set || hull[d].full) return false;
    idx[d] = mine->ranges[d].min, lo[d] = hull[d].lo, hi[d] = hull[d].hi;
  }
  for (int k = 0; k < b->niters; k++) {
    if (!tir_is_zero(b->iters[k].dom.min)) return false;
    src[k] = b->iters[k].var, ext[k] = b->iters[k].dom.extent;
  }
  SchIndexMap m = {src, b->niters, idx, n, NULL, 0}, inv = {0};
  TirExpr *padding = NULL;
  const char *why = NULL;
  if (!sch_index_map_inverse(h, &m, ext, NULL, &inv, &padding, &why) || padding) return false;
  TirExpr *at_lo[64], *at_hi[64];
  sch_index_map_apply(h, &inv, lo, at_lo);
  sch_index_map_apply(h, &inv, hi, at_hi);
  for (int k = 0; k < b->niters && k < inv.ndst; k++)
    hull_join(ctx, &iter[k], arith_simplify(ctx, tir_binary(h, TIR_MIN, at_lo[k], at_hi[k])),
              arith_simplify(ctx, tir_binary(h, TIR_MAX, at_lo[k], at_hi[k])));
  return true;
}

static int iter_index(const TirBlock *b, const TirExpr *e) {
  if (e->kind != TIR_VAR) return -1;
  for (int k = 0; k < b->niters; k++)
    if (b->iters[k].var == e->var) return k;
  return -1;
}

/* TVM's SolveBlockVarDomain on a point index e (of the block's iters)
 * required over [lo, hi] (hi NULL: unbounded): `v // c` needs v in
 * [lo * c, hi * c + c - 1], `x // c` and `x % c` recurse into x, `v % c`
 * constrains nothing (*which stays -1).  False on another form. */
static bool solve_dim(const TirBlock *b, ArithCtx *ctx, IrHeap *h, const TirExpr *e, TirExpr *lo,
                      TirExpr *hi, int *which, TirExpr **ilo, TirExpr **ihi) {
  int k = iter_index(b, e);
  if (k >= 0) {
    *which = k, *ilo = lo, *ihi = hi;
    return true;
  }
  int64_t c;
  if ((e->kind != TIR_FLOORDIV && e->kind != TIR_FLOORMOD) || !tir_is_const_int(e->bin.b, &c) || c < 1)
    return false;
  if (e->kind == TIR_FLOORMOD) {
    if (iter_index(b, e->bin.a) >= 0) return true;
    if (!arith_prove(ctx, tir_binary(h, TIR_GE, lo, tir_int(h, lo->dtype, 0)))) return false;
    return solve_dim(b, ctx, h, e->bin.a, lo, NULL, which, ilo, ihi);
  }
  TirExpr *ce = tir_int(h, lo->dtype, c);
  TirExpr *nlo = arith_simplify(ctx, tir_binary(h, TIR_MUL, lo, ce));
  TirExpr *nhi = hi ? arith_simplify(ctx, tir_binary(h, TIR_ADD, tir_binary(h, TIR_MUL, hi, ce),
                                                     tir_int(h, lo->dtype, c - 1)))
                    : NULL;
  return solve_dim(b, ctx, h, e->bin.a, nlo, nhi, which, ilo, ihi);
}

/* Maps the hull of each dimension of the block's own access `mine` back to
 * the iter it is indexed by (`v + rest`), joining into iter[]. */
static bool compute_iters_from_hull(const ComputeAt *ca, ArithCtx *ctx, IrHeap *h,
                                    const TirBufferRegion *mine, const Hull *hull,
                                    const TirVar **ivars, Hull *iter) {
  const TirBlock *b = ca->b;
  const TirBuffer *buf = mine->buffer;
  for (int d = 0; d < mine->n; d++) {
    DimMap dm;
    bool mapped = map_dim(b, ctx, mine, d, ivars, &dm);
    int which = dm.which;
    int64_t coef = dm.coef;
    bool tile = dm.tile;
    TirExpr *rest = dm.rest;
    if (!mapped && tir_is_one(mine->ranges[d].extent) && hull[d].set && !hull[d].full) {
      int k = -1;
      TirExpr *ilo = NULL, *ihi = NULL;
      if (solve_dim(b, ctx, h, mine->ranges[d].min, hull[d].lo, hull[d].hi, &k, &ilo, &ihi)) {
        if (k >= 0) hull_join(ctx, &iter[k], ilo, ihi);
        continue;
      }
    }
    /* A consumer whose read of dimension d cannot be narrowed would read
     * elements not produced yet unless the loop produces the whole dim. */
    if (ca->reverse && !mapped && !hull_covers_dim(ctx, h, &hull[d], buf, d)) {
      sch_fail(ca->s, SCH_ERR_BUFFER_ACCESS, 1,
               "%s: cannot narrow the region of buffer '%s' that block '%s' reads under "
               "loop '%s' to what is produced there (dimension %d)",
               ca->prim, buf->name, b->name, ca->lname, d);
      return false;
    }
    if (!mapped) continue;
    if (hull[d].full || !hull[d].set) {
      iter[which].full = true;
      continue;
    }
    TirExpr *lo, *hi;
    if (tile) {
      TirExpr *c = tir_int(h, hull[d].lo->dtype, coef);
      lo = arith_simplify(ctx, tir_binary(h, TIR_FLOORDIV, hull[d].lo, c));
      hi = arith_simplify(ctx, tir_binary(h, TIR_FLOORDIV, hull[d].hi, c));
    } else if (coef == -1) {
      lo = arith_simplify(ctx, tir_binary(h, TIR_SUB, rest, hull[d].hi));
      hi = arith_simplify(ctx, tir_binary(h, TIR_SUB, rest, hull[d].lo));
    } else {
      lo = arith_simplify(ctx, tir_binary(h, TIR_SUB, hull[d].lo, rest));
      hi = arith_simplify(ctx, tir_binary(h, TIR_SUB, hull[d].hi, rest));
    }
    hull_join(ctx, &iter[which], lo, hi);
  }
  return true;
}

/* Per-iter ranges of the moved block (iter[], one per iter): what the
 * other side accesses under the loop, through the block's own accesses. */
static bool compute_iter_ranges(const ComputeAt *ca, ArithCtx *ctx, ArithCtx *rctx, IrHeap *h,
                                Hull *iter) {
  const TirBlock *b = ca->b;
  const TirVar **ivars = xmalloc((size_t)(b->niters ? b->niters : 1) * sizeof *ivars);
  for (int k = 0; k < b->niters; k++) ivars[k] = b->iters[k].var;
  const TirBufferRegion *mine = ca->reverse ? b->reads : b->writes;
  int nmine = ca->reverse ? b->nreads : b->nwrites;
  bool ok = true;
  for (int i = 0; i < nmine && ok; i++) {
    const TirBuffer *buf = mine[i].buffer;
    Hull *hull = xcalloc((size_t)(buf->ndim ? buf->ndim : 1), sizeof *hull);
    bool any = false;
    ok = compute_buffer_hull(ca, ctx, rctx, h, buf, hull, &any);
    if (ok && any && !dims_map_directly(ca, ctx, &mine[i], ivars) &&
        iters_from_hull_affine(ca, ctx, h, &mine[i], hull, iter)) {
      free(hull);
      continue;
    }
    if (ok && any) ok = compute_iters_from_hull(ca, ctx, h, &mine[i], hull, ivars, iter);
    free(hull);
  }
  free(ivars);
  return ok;
}

/* Whether the range [lo, hi] of a reduce iter varies only with threadIdx
 * loops above the target: each thread then reduces its part, combined by the
 * cross-thread reduction lowering (TVM's reverse_compute_at of an rfactor
 * write-back under a thread loop). */
static bool split_across_threads(const ComputeAt *ca, const TirExpr *lo, const TirExpr *hi) {
  bool any = false;
  for (int d = 0; d < ca->lp->n; d++) {
    const TirStmt *l = ca->lp->s[d];
    if (l->kind != TIR_S_FOR || (!tir_expr_uses_var(lo, l->loop.var) && !tir_expr_uses_var(hi, l->loop.var)))
      continue;
    if (l->loop.kind != TIR_FOR_THREAD_BINDING || !l->loop.thread_tag ||
        strncmp(l->loop.thread_tag, "threadIdx.", 10) != 0)
      return false;
    any = true;
  }
  return any;
}

/* TVM's BlockVarDomainInfo::Simplify on the range [*lo, *hi] an iter must
 * cover and its domain [dmin, dmax]: the range when inside the domain, the
 * domain when inside the range, a constant intersection; else the range,
 * with a predicate on each side of the domain it may pass (*clip_lo/hi). */
static void clip_to_domain(ArithCtx *ctx, IrHeap *h, TirExpr *dmin, TirExpr *dmax, TirExpr **lo,
                           TirExpr **hi, bool *clip_lo, bool *clip_hi) {
  bool in_lo = arith_prove(ctx, tir_binary(h, TIR_GE, *lo, dmin));
  bool in_hi = arith_prove(ctx, tir_binary(h, TIR_LE, *hi, dmax));
  bool cov_lo = arith_prove(ctx, tir_binary(h, TIR_LE, *lo, dmin));
  bool cov_hi = arith_prove(ctx, tir_binary(h, TIR_GE, *hi, dmax));
  if (cov_lo && cov_hi) { /* the domain (its own expressions) */
    *lo = dmin, *hi = dmax;
    return;
  }
  /* inside the domain: the range itself, both sides, as TVM (one side
   * replaced by the domain's would leave e.g. a unit blockIdx loop's var in
   * the extent, xx_0 * 14 + 15 for 15) */
  if (in_lo && in_hi) return;
  TirExpr *ilo = arith_simplify(ctx, tir_binary(h, TIR_MAX, *lo, dmin));
  TirExpr *ihi = arith_simplify(ctx, tir_binary(h, TIR_MIN, *hi, dmax));
  if (ilo->kind == TIR_INT && ihi->kind == TIR_INT) {
    *lo = ilo, *hi = ihi;
    return;
  }
  *clip_lo = !in_lo, *clip_hi = !in_hi;
}

/* The moved block under fresh loops `ax0, ax1, ...` covering iter[] (a
 * unit range binds directly unless preserve), with a predicate where a
 * range may pass the iter's domain.  NULL + error when a reduction would
 * be split. */
static TirStmt *build_moved_nest(const ComputeAt *ca, ArithCtx *ctx, IrHeap *h, const Hull *iter,
                                 bool preserve) {
  const TirBlock *b = ca->b;
  TirExpr **vals = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *vals);
  TirVar **lvars = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *lvars);
  TirExpr **lext = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *lext);
  int nloops = 0;
  TirExpr *pred = NULL;
  for (int k = 0; k < b->niters; k++) {
    const TirIterVar *iv = &b->iters[k];
    DType dt = iv->var->dtype;
    TirExpr *dmax = arith_simplify(ctx, tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, iv->dom.min, iv->dom.extent),
                                                   tir_int(h, dt, 1)));
    TirExpr *lo = iv->dom.min, *hi = dmax;
    bool clip_lo = false, clip_hi = false;
    if (iter[k].set && !iter[k].full) {
      lo = iter[k].lo, hi = iter[k].hi;
      clip_to_domain(ctx, h, iv->dom.min, dmax, &lo, &hi, &clip_lo, &clip_hi);
    }
    if (ca->reverse && b->init && iv->type == TIR_ITER_REDUCE && (lo != iv->dom.min || hi != dmax) &&
        !split_across_threads(ca, lo, hi)) {
      /* Splitting a reduction over iterations would re-run its init. */
      sch_fail(ca->s, SCH_ERR_REDUCTION, 1,
               "%s: reduce iter '%s' of block '%s' would be split over loop '%s'", ca->prim,
               iv->var->name, b->name, ca->lname);
      return NULL;
    }
    TirExpr *ext = arith_simplify(ctx, tir_binary(h, TIR_ADD, tir_binary(h, TIR_SUB, hi, lo), tir_int(h, dt, 1)));
    TirExpr *val;
    if (!preserve && tir_is_one(ext)) {
      val = lo;
    } else {
      char nbuf[32];
      snprintf(nbuf, sizeof nbuf, "ax%d", nloops);
      lvars[nloops] = tir_var(h, nbuf, dt);
      lext[nloops] = ext;
      if (tir_is_one(ext)) arith_bind_value(ctx, lvars[nloops], tir_int(h, dt, 0)); /* TVM's Bind */
      else arith_bind_range(ctx, lvars[nloops], tir_int(h, dt, 0), ext);
      /* TVM's `min + ax` as built (only a zero min folds away) */
      val = tir_is_zero(lo) ? tir_var_ref(h, lvars[nloops]) : tir_binary(h, TIR_ADD, lo, tir_var_ref(h, lvars[nloops]));
      nloops++;
    }
    vals[k] = val;
    TirExpr *terms[2] = {clip_lo ? tir_binary(h, TIR_GE, val, iv->dom.min) : NULL,
                         clip_hi ? tir_binary(h, TIR_LT, val, tir_binary(h, TIR_ADD, dmax, tir_int(h, dt, 1)))
                                 : NULL};
    for (int t = 0; t < 2; t++)
      if (terms[t]) pred = pred ? tir_binary(h, TIR_AND, pred, terms[t]) : terms[t];
  }
  if (pred) pred = arith_simplify(ctx, pred);
  else pred = tir_bool(h, true);
  TirStmt *nest = sch_realize_with(h, ca->realize, NULL, vals, pred);
  for (int k = nloops - 1; k >= 0; k--)
    nest = tir_for(h, lvars[k], tir_int(h, lvars[k]->dtype, 0), lext[k], TIR_FOR_SERIAL, NULL, NULL, nest);
  return nest;
}

/* The moved nest, computed under the loop's context (NULL + error). */
static TirStmt *build_nest_under_loop(const ComputeAt *ca, IrHeap *h, bool preserve) {
  const TirBlock *b = ca->b;
  ArithCtx *ctx = arith_new(h), *rctx = arith_new(h);
  for (int d = 0; d < ca->lp->n; d++) {
    const TirStmt *l = ca->lp->s[d];
    if (l->kind != TIR_S_FOR) continue;
    /* A loop of one iteration is its min (TVM's Analyzer::Bind); not a
     * thread-bound one, whose var the GPU passes' buffer compaction matches. */
    if (tir_is_one(l->loop.extent) && l->loop.kind != TIR_FOR_THREAD_BINDING)
      arith_bind_value(ctx, l->loop.var, l->loop.min);
    else arith_bind_range(ctx, l->loop.var, l->loop.min, l->loop.extent);
  }
  Hull *iter = xcalloc((size_t)(b->niters ? b->niters : 1), sizeof *iter);
  TirStmt *nest = NULL;
  if (compute_iter_ranges(ca, ctx, rctx, h, iter)) nest = build_moved_nest(ca, ctx, h, iter, preserve);
  free(iter);
  arith_free(ctx);
  arith_free(rctx);
  return nest;
}

/* Remove the block from where it was, then insert the nest under the loop
 * at pos among its nkids children.  Returns the new root. */
static TirStmt *replace_block_under_loop(const ComputeAt *ca, IrHeap *h, TirStmt *nest,
                                         TirStmt **kids, int nkids, int pos, SchPath *np) {
  TirStmt *root = sch_replace_at(h, ca->bp, ca->bp->n - 1, NULL);
  if (!sch_path_to_loop(root, ca->loop->loop.var, np)) tvs_unreachable();
  TirStmt **items = ir_alloc(h, (size_t)(nkids + 1) * sizeof *items);
  for (int i = 0, j = 0; i <= nkids; i++) items[i] = i == pos ? nest : kids[j++];
  TirStmt *nl = sch_for_with_body(h, np->s[np->n - 1], tir_seq(h, items, nkids + 1));
  return sch_replace_at(h, np, np->n - 1, nl);
}

static int compute_at_impl(Schedule *s, SchRV block_rv, SchRV loop_rv, bool preserve, int index,
                           bool reverse) {
  const char *prim = reverse ? "reverse_compute_at" : "compute_at";
  SchPath bp = {0}, lp = {0}, np = {0};
  PtrVec sibs = {0};
  int rc = -1;
  TirStmt *realize = sch_find_block(s, block_rv, prim, 0, &bp);
  TirStmt *loop = realize ? sch_find_loop(s, loop_rv, prim, 1, &lp) : NULL;
  if (!loop) goto done;
  ComputeAt ca = {s, prim, reverse, &bp, &lp, realize, loop, tir_realize_block(realize),
                  sch_loop_name(loop), sch_cur_func(s, s->rvs[block_rv].func), &sibs,
                  sch_scope_index(&bp, bp.n - 1)};
  if (!check_scope_and_block(&ca) || !check_block_movable(&ca) || !check_other_side(&ca)) goto done;
  TirStmt **kids;
  int nkids;
  int pos = compute_insertion_point(&ca, index, &kids, &nkids);
  if (pos < 0) goto done;
  IrModule *nm = sch_begin(s);
  TirStmt *nest = build_nest_under_loop(&ca, nm->heap, preserve);
  if (!nest) {
    ir_module_free(nm);
    goto done;
  }
  TirStmt *root = replace_block_under_loop(&ca, nm->heap, nest, kids, nkids, pos, &np);
  sch_commit(s, nm, s->rvs[block_rv].func, root);
  SchVal args[4] = {sch_val_rv(block_rv), sch_val_rv(loop_rv), sch_val_bool(preserve),
                    sch_val_int(index)};
  sch_record(s, prim, args, 4, NULL, 0);
  rc = 0;
done:
  pv_free(&sibs);
  sch_path_free(&bp);
  sch_path_free(&lp);
  sch_path_free(&np);
  return rc;
}

/* compute_at to a mark from sample_compute_location: "root" leaves the block
 * where it is, "inline" inlines it; either is recorded as the compute_at. */
static int compute_at_mark(Schedule *s, SchRV block, SchRV loop, bool preserve_unit_loops, int index) {
  SchPath p = {0};
  TirStmt *r = sch_find_block(s, block, "compute_at", 0, &p);
  sch_path_free(&p);
  if (!r) return -1;
  int ntrace = s->ntrace;
  if (s->rvs[loop].value == SCH_LOC_INLINE && sch_compute_inline(s, block) != 0) return -1;
  sch_trace_truncate(s, ntrace);
  SchVal args[4] = {sch_val_rv(block), sch_val_rv(loop), sch_val_bool(preserve_unit_loops),
                    sch_val_int(index)};
  sch_record(s, "compute_at", args, 4, NULL, 0);
  return 0;
}

int sch_compute_at(Schedule *s, SchRV block, SchRV loop, bool preserve_unit_loops, int index) {
  if (loop >= 0 && loop < s->nrvs && s->rvs[loop].kind == SCH_RV_LOOP && !s->rvs[loop].key)
    return compute_at_mark(s, block, loop, preserve_unit_loops, index);
  return compute_at_impl(s, block, loop, preserve_unit_loops, index, false);
}

int sch_reverse_compute_at(Schedule *s, SchRV block, SchRV loop, bool preserve_unit_loops,
                           int index) {
  return compute_at_impl(s, block, loop, preserve_unit_loops, index, true);
}
