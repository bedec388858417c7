/* primitive_blockize.c - blockize (the method table also lists tensorize,
 * implemented in primitive_tensorize.c).
 *
 * blockize(loop) turns the loop nest from `loop` down to its only block into
 * a new outer block `<block>_o` realized where `loop` was.  Each binding of
 * the block is divided as outer * E + inner, where inner uses only the loops
 * under `loop` (from `loop` down) and E is the extent it spans:
 *   - the outer block gets one iter `<v>_o` per original iter, domain
 *     [0, extent / E), bound to the outer part;
 *   - the inner block (the original, its handle stays valid) keeps an iter
 *     `<v>_i` of domain [0, E) bound to the inner part where E > 1, and the
 *     original iter var is replaced by `v_o * E + v_i` (or just one of them);
 *   - a reduction block whose outer iters include a reduce iter keeps its
 *     init in the outer block as a `<block>_init` nest over the inner loops
 *     the init needs; the inner block then has no init and also reads what
 *     it writes.
 * The outer block's regions are the inner ones relaxed over the inner iters.
 * blockize([b1, b2, ...]) wraps consecutive sibling blocks (under their
 * lowest common ancestor) into one block `outer_b1_b2_` whose iters come
 * from the first block's division and must be the same for every block. */
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/structural_equal.h"
#include "sched/sched_internal.h"
#include "sched/tensor_intrin.h"

/* ------------------------------------------------------- small helpers */

/* Block realizes under st, not counting those nested in blocks. */
static int count_realizes(const TirStmt *st) {
  if (!st) return 0;
  if (st->kind == TIR_S_BLOCK_REALIZE) return 1;
  int n = 0;
  if (st->kind == TIR_S_SEQ) {
    for (int i = 0; i < st->seq.n; i++) n += count_realizes(st->seq.stmts[i]);
    return n;
  }
  TirStmt *kids[8];
  int k = sch_children(st, kids, 8);
  for (int i = 0; i < k; i++) n += count_realizes(kids[i]);
  return n;
}

static bool uses_any_var(const TirExpr *e, TirVar *const *vars, int n) {
  for (int i = 0; i < n; i++)
    if (tir_expr_uses_var(e, vars[i])) return true;
  return false;
}

static TirVar *suffixed_var(IrHeap *h, const TirVar *v, const char *suffix) {
  char *n = xasprintf("%s%s", v->name, suffix);
  TirVar *nv = tir_var(h, n, v->dtype);
  free(n);
  nv->span = v->span;
  return nv;
}

/* Handles keep denoting a block that a primitive rebuilt with new iters
 * (TVM's block sref reuse). */
void sch_rekey_block_handles(Schedule *s, const TirBlock *old, const TirBlock *nb) {
  const TirVar *old_var = old->niters ? old->iters[0].var : NULL;
  for (int i = 0; i < s->nrvs; i++) {
    SchRVInfo *r = &s->rvs[i];
    if (r->kind != SCH_RV_BLOCK) continue;
    bool hit = old_var ? r->key == old_var
                       : (!r->key && r->block_name && !strcmp(r->block_name, old->name));
    if (!hit) continue;
    free(r->block_name);
    r->block_name = NULL;
    r->key = NULL;
    if (nb->niters) r->key = nb->iters[0].var;
    else r->block_name = xstrdup(nb->name);
  }
}

/* --------------------------------------------------- subspace division */

/* One binding divided as outer * inner_ext + inner. */
typedef struct IterDiv {
  TirExpr *outer, *outer_ext;
  TirExpr *inner, *inner_ext;
} IterDiv;

static TirExpr *piece_expr(IrHeap *h, const ArithIterSplit *sp, const TirExpr *loop_extent) {
  TirExpr *e = tir_var_ref(h, (TirVar *)sp->var);
  DType t = e->dtype;
  if (!tir_is_one(sp->lower_factor)) e = tir_binary(h, TIR_FLOORDIV, e, tir_cast(h, t, sp->lower_factor));
  int64_t lf = 1, ext = 0, full = -1;
  tir_is_const_int(sp->lower_factor, &lf);
  tir_is_const_int(sp->extent, &ext);
  if (loop_extent) tir_is_const_int(loop_extent, &full);
  if (full < 0 || lf * ext != full) e = tir_binary(h, TIR_FLOORMOD, e, tir_cast(h, t, sp->extent));
  return e;
}

static TirExpr *add_term(ArithCtx *ctx, TirExpr *acc, TirExpr *term, int64_t scale) {
  IrHeap *h = arith_heap(ctx);
  DType t = term->dtype;
  if (scale != 1) term = tir_binary(h, TIR_MUL, term, tir_int(h, t, scale));
  return acc ? tir_binary(h, TIR_ADD, acc, term) : term;
}

/* The loop extent of var among the loops (or NULL). */
static TirExpr *extent_of(TirStmt *const *loops, int n, const TirVar *v) {
  for (int i = 0; i < n; i++)
    if (loops[i]->loop.var == v) return loops[i]->loop.extent;
  return NULL;
}

/* Divides one affine binding of iter iv, given as the pieces sp[0..np) of
 * its iter split (largest scale first), by the inner loops (vars ivars):
 * the pieces over inner loops must be a dense suffix whose extent divides
 * the iter's; false when the binding is not divisible so. */
static bool compute_affine_division(ArithCtx *ctx, const ArithIterSplit *sp, int np, const TirIterVar *iv,
                                    DType t, TirVar *const *ivars, TirStmt *const *inner_loops, int ninner,
                                    TirStmt *const *outer_loops, int nouter, IterDiv *d) {
  IrHeap *h = arith_heap(ctx);
  /* Pieces from the largest scale to the smallest: outer ones first. */
  int m = 0;
  while (m < np && sp[m].var && !uses_any_var(tir_var_ref(h, (TirVar *)sp[m].var), ivars, ninner)) m++;
  int64_t expect = 1;
  for (int j = np - 1; j >= m; j--) {
    int64_t sc, ext;
    if (!sp[j].var || !tir_is_const_int(sp[j].scale, &sc) || !tir_is_const_int(sp[j].extent, &ext) ||
        sc != expect || !extent_of(inner_loops, ninner, sp[j].var))
      return false;
    expect *= ext;
  }
  int64_t inner_ext = expect, dom_ext;
  if (!tir_is_const_int(iv->dom.extent, &dom_ext) || dom_ext % inner_ext) return false;
  TirExpr *outer = NULL, *inner = NULL;
  for (int j = 0; j < m; j++) {
    int64_t sc;
    if (!sp[j].var || !tir_is_const_int(sp[j].scale, &sc) || sc % inner_ext) return false;
    outer = add_term(ctx, outer, piece_expr(h, &sp[j], extent_of(outer_loops, nouter, sp[j].var)),
                     sc / inner_ext);
  }
  for (int j = m; j < np; j++) {
    int64_t sc = 1;
    tir_is_const_int(sp[j].scale, &sc);
    inner = add_term(ctx, inner, piece_expr(h, &sp[j], extent_of(inner_loops, ninner, sp[j].var)), sc);
  }
  if (!outer) outer = tir_int(h, t, 0);
  if (!inner) inner = tir_int(h, t, 0);
  *d = (IterDiv){arith_simplify(ctx, outer), tir_int(h, t, dom_ext / inner_ext),
                 arith_simplify(ctx, inner), tir_int(h, t, inner_ext)};
  return true;
}

/* Divides the realize's bindings by the inner loops; false when they are
 * not divisible.  The outer/inner predicates are the realize's predicate
 * when it uses only outer / only inner loop vars. */
static bool divide_bindings(ArithCtx *ctx, const TirStmt *realize, TirStmt *const *outer_loops,
                            int nouter, TirStmt *const *inner_loops, int ninner, IterDiv *div,
                            TirExpr **outer_pred,
                            TirExpr **inner_pred) {
  IrHeap *h = arith_heap(ctx);
  const TirBlock *b = tir_realize_block(realize);
  int n = b->niters;
  TirVar *ivars[64], *ovars[64];
  const TirVar *all[128];
  if (nouter > 64 || ninner > 64) return false;
  for (int i = 0; i < ninner; i++) ivars[i] = inner_loops[i]->loop.var, all[i] = ivars[i];
  for (int i = 0; i < nouter; i++) ovars[i] = outer_loops[i]->loop.var, all[ninner + i] = ovars[i];
  TirExpr *pred = realize->realize.pred;
  *outer_pred = *inner_pred = tir_bool(h, true);
  if (!sch_is_trivial_pred(pred)) {
    bool ui = uses_any_var(pred, ivars, ninner), uo = uses_any_var(pred, ovars, nouter);
    if (ui && uo) return false;
    if (ui) *inner_pred = pred;
    else *outer_pred = pred;
  }
  TirRange *doms = xmalloc((size_t)(n ? n : 1) * sizeof *doms);
  for (int k = 0; k < n; k++) doms[k] = b->iters[k].dom;
  /* (Bindings that do not cover their domains densely, e.g. under a
   * predicate, are only divisible in the trivial way below.) */
  ArithIterMap im = arith_detect_iter_map(ctx, realize->realize.values, doms, n, all, ninner + nouter,
                                          ARITH_ITER_INJECTIVE);
  free(doms);
  bool ok = true;
  for (int k = 0; k < n && ok; k++) {
    TirExpr *bind = realize->realize.values[k];
    const TirIterVar *iv = &b->iters[k];
    DType t = bind->dtype;
    bool ui = uses_any_var(bind, ivars, ninner), uo = uses_any_var(bind, ovars, nouter);
    IterDiv *d = &div[k];
    if (!ui) { /* everything outer */
      *d = (IterDiv){bind, iv->dom.extent, tir_int(h, t, 0), tir_int(h, t, 1)};
      continue;
    }
    if (!uo && !im.ok) { /* everything inner (no affine structure needed) */
      if (!tir_is_zero(iv->dom.min)) {
        ok = false;
        break;
      }
      *d = (IterDiv){tir_int(h, t, 0), tir_int(h, t, 1), bind, iv->dom.extent};
      continue;
    }
    if (!im.ok || !tir_is_zero(iv->dom.min)) {
      ok = false;
      break;
    }
    if (!compute_affine_division(ctx, im.splits[k], im.nsplits[k], iv, t, ivars, inner_loops, ninner,
                                 outer_loops, nouter, d)) {
      ok = false;
      break;
    }
  }
  arith_iter_map_free(&im);
  return ok;
}

/* ----------------------------------------------------- region relaxing */

/* Regions relaxed over the ranges bound in ctx (the inner iters); a side
 * that cannot be bounded covers the whole dimension. */
static TirBufferRegion *relax_regions(ArithCtx *ctx, const TirBufferRegion *rs, int n) {
  IrHeap *h = arith_heap(ctx);
  TirBufferRegion *out = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out);
  for (int i = 0; i < n; i++) {
    out[i].buffer = rs[i].buffer;
    out[i].n = rs[i].n;
    out[i].ranges = ir_alloc(h, (size_t)(rs[i].n ? rs[i].n : 1) * sizeof *out[i].ranges);
    for (int d = 0; d < rs[i].n; d++) {
      TirRange r = rs[i].ranges[d];
      TirExpr *last = tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, r.min, r.extent),
                                 tir_int(h, r.min->dtype, 1));
      TirExpr *lo = NULL, *hi = NULL;
      if (arith_symbolic_bounds(ctx, r.min, &lo, NULL) && arith_symbolic_bounds(ctx, last, NULL, &hi)) {
        TirExpr *ext = tir_binary(h, TIR_ADD, tir_binary(h, TIR_SUB, hi, lo), tir_int(h, lo->dtype, 1));
        out[i].ranges[d] = (TirRange){arith_simplify(ctx, lo), arith_simplify(ctx, ext)};
      } else {
        TirExpr *sh = rs[i].buffer->shape[d];
        out[i].ranges[d] = (TirRange){tir_int(h, sh->dtype, 0), sh};
      }
    }
  }
  return out;
}

/* Union of regions per buffer (first-appearance order), for blockize of
 * several blocks: per dimension [min of mins, max of ends). */
static TirBufferRegion *union_regions(ArithCtx *ctx, const TirBufferRegion *rs, int n, int *nout) {
  IrHeap *h = arith_heap(ctx);
  TirBufferRegion *out = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out);
  int m = 0;
  for (int i = 0; i < n; i++) {
    int j = 0;
    while (j < m && out[j].buffer != rs[i].buffer) j++;
    if (j == m) {
      out[m] = rs[i];
      out[m].ranges = ir_memdup(h, rs[i].ranges, (size_t)(rs[i].n ? rs[i].n : 1) * sizeof *rs[i].ranges);
      m++;
      continue;
    }
    for (int d = 0; d < rs[i].n; d++) {
      TirRange a = out[j].ranges[d], b = rs[i].ranges[d];
      TirExpr *lo = arith_simplify(ctx, tir_binary(h, TIR_MIN, a.min, b.min));
      TirExpr *hi = arith_simplify(ctx, tir_binary(h, TIR_MAX, tir_binary(h, TIR_ADD, a.min, a.extent),
                                                   tir_binary(h, TIR_ADD, b.min, b.extent)));
      out[j].ranges[d] = (TirRange){lo, arith_simplify(ctx, tir_binary(h, TIR_SUB, hi, lo))};
    }
  }
  *nout = m;
  return out;
}

/* ------------------------------------------------------ block rebuilding */

/* Simplifies integer expressions a substitution changed (TVM simplifies
 * every substituted expression). */
typedef struct SubstCtx {
  ArithCtx *ctx;
  const IrPtrMap *map;
} SubstCtx;

static TirExpr *subst_var(TirMutator *m, TirExpr *e) {
  SubstCtx *sc = m->ctx;
  TirExpr *v = ir_ptrmap_get(sc->map, e->var);
  return v ? v : e;
}

static TirExpr *subst_simplify(TirMutator *m, TirExpr *e) {
  SubstCtx *sc = m->ctx;
  TirExpr *r = tir_mutate_expr_children(m, e);
  if (r != e && dt_is_int(r->dtype) && r->dtype.lanes == 1) return arith_simplify(sc->ctx, r);
  return r;
}

static TirStmt *substitute_block_stmt(ArithCtx *ctx, TirStmt *st, const IrPtrMap *map) {
  TirMutator m;
  tir_mutator_init(&m, arith_heap(ctx));
  SubstCtx sc = {ctx, map};
  m.ctx = &sc;
  for (int k = 0; k < TIR_NUM_EXPR_KINDS; k++) m.expr[k] = subst_simplify;
  m.expr[TIR_VAR] = subst_var;
  TirStmt *r = tir_mutate_stmt(&m, st);
  tir_mutator_free(&m);
  return r;
}

/* The result of dividing one block: its new inner realize and the outer
 * iters / bindings it asks for. */
typedef struct Divided {
  TirIterVar *outer_iters;  /* one per original iter */
  TirExpr **outer_vals;
  int nouter;
  TirExpr *outer_pred;
  TirStmt *inner_realize;   /* the inner block (no init) */
  TirBlock subst;           /* the original block after substitution */
  bool outer_reduce;        /* an outer iter is a reduce iter */
} Divided;

/* Builds the inner block of realize given the division; when reuse is set,
 * the outer iters are given (blockize of several blocks) and must match. */
static bool build_inner(ArithCtx *ctx, const TirStmt *realize, const IterDiv *div, TirExpr *inner_pred,
                        TirExpr *outer_pred, bool preserve_unit_iters, const Divided *reuse,
                        Divided *out) {
  IrHeap *h = arith_heap(ctx);
  const TirBlock *b = tir_realize_block(realize);
  int n = b->niters;
  memset(out, 0, sizeof *out);
  out->outer_iters = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out->outer_iters);
  out->outer_vals = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out->outer_vals);
  out->nouter = n;
  out->outer_pred = outer_pred;
  TirIterVar *iiters = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *iiters);
  TirExpr **ivals = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *ivals);
  int ni = 0;
  IrPtrMap sub;
  ir_ptrmap_init(&sub);
  if (reuse && reuse->nouter != n) {
    ir_ptrmap_free(&sub);
    return false;
  }
  for (int k = 0; k < n; k++) {
    const TirIterVar *iv = &b->iters[k];
    const IterDiv *d = &div[k];
    DType t = iv->var->dtype;
    TirExpr *oval = d->outer;
    if (tir_is_one(d->outer_ext) && !preserve_unit_iters) oval = tir_int(h, t, 0);
    TirIterVar oit;
    if (reuse) {
      oit = reuse->outer_iters[k];
      if (!arith_can_prove_equal(ctx, oit.dom.extent, d->outer_ext) ||
          !arith_can_prove_equal(ctx, reuse->outer_vals[k], oval)) {
        ir_ptrmap_free(&sub);
        return false;
      }
      oval = reuse->outer_vals[k];
    } else {
      oit = (TirIterVar){suffixed_var(h, iv->var, "_o"), {tir_int(h, t, 0), d->outer_ext}, iv->type};
    }
    out->outer_iters[k] = oit;
    out->outer_vals[k] = oval;
    out->outer_reduce |= oit.type == TIR_ITER_REDUCE;
    TirExpr *s;
    if (tir_is_one(d->inner_ext)) {
      s = tir_is_one(d->outer_ext) && !preserve_unit_iters ? tir_int(h, t, 0) : tir_var_ref(h, oit.var);
    } else {
      TirVar *inv = suffixed_var(h, iv->var, "_i");
      iiters[ni] = (TirIterVar){inv, {tir_int(h, t, 0), d->inner_ext}, iv->type};
      ivals[ni++] = d->inner;
      arith_bind_range(ctx, inv, tir_int(h, t, 0), d->inner_ext);
      if (tir_is_one(d->outer_ext))
        s = tir_var_ref(h, inv);
      else
        s = tir_binary(h, TIR_ADD, tir_binary(h, TIR_MUL, tir_var_ref(h, oit.var), d->inner_ext),
                       tir_var_ref(h, inv));
    }
    ir_ptrmap_put(&sub, iv->var, s);
  }
  /* Substitute in a block without iters (the iters are replaced). */
  TirBlock tmp = *b;
  tmp.iters = NULL;
  tmp.niters = 0;
  TirStmt *sb = substitute_block_stmt(ctx, tir_block(h, &tmp), &sub);
  ir_ptrmap_free(&sub);
  out->subst = sb->block;
  TirBlock ib = sb->block;
  ib.iters = iiters;
  ib.niters = ni;
  ib.init = NULL;
  if (b->init && out->outer_reduce) {
    TirBufferRegion *rd = ir_alloc(h, (size_t)(ib.nreads + ib.nwrites + 1) * sizeof *rd);
    memcpy(rd, ib.writes, (size_t)ib.nwrites * sizeof *rd);
    if (ib.nreads) memcpy(rd + ib.nwrites, ib.reads, (size_t)ib.nreads * sizeof *rd);
    ib.reads = rd;
    ib.nreads += ib.nwrites;
  }
  TirStmt *blk = tir_block(h, &ib);
  blk->span = realize->realize.block->span;
  out->inner_realize = tir_block_realize(h, ivals, ni, inner_pred, blk);
  out->inner_realize->span = realize->span;
  return true;
}

/* The init nest of the outer block: `<block>_init` over copies of the inner
 * loops its data-parallel iters need. */
static TirStmt *outer_init(IrHeap *h, const TirStmt *inner_realize, TirStmt *init,
                           TirStmt *const *inner_loops, int ninner, const char *block_name) {
  const TirBlock *ib = tir_realize_block(inner_realize);
  IrPtrMap sub;
  ir_ptrmap_init(&sub);
  TirBlock nb = {0};
  nb.iters = ir_alloc(h, (size_t)(ib->niters ? ib->niters : 1) * sizeof *nb.iters);
  TirExpr **vals = ir_alloc(h, (size_t)(ib->niters ? ib->niters : 1) * sizeof *vals);
  for (int k = 0; k < ib->niters; k++) {
    const TirIterVar *iv = &ib->iters[k];
    if (iv->type != TIR_ITER_SPATIAL || !tir_stmt_uses_var(init, iv->var)) continue;
    TirIterVar c = *iv;
    c.var = suffixed_var(h, iv->var, "_init");
    ir_ptrmap_put(&sub, iv->var, tir_var_ref(h, c.var));
    vals[nb.niters] = inner_realize->realize.values[k];
    nb.iters[nb.niters++] = c;
  }
  char *nm = xasprintf("%s_init", block_name);
  nb.name = ir_strdup(h, nm);
  free(nm);
  nb.writes = ib->writes;
  nb.nwrites = ib->nwrites;
  nb.body = init;
  /* An init that is not a constant (e.g. `D = C` after
   * fuse_reduction_epilogue) reads what its value loads. */
  {
    TirBufferRegion *iw = NULL;
    int niw = 0;
    tir_infer_access_regions(h, &nb, &nb.reads, &nb.nreads, &iw, &niw);
  }
  /* The predicate's conjuncts over loops the init nest does not copy (those
   * of the reduce iters only) are dropped, as decompose_reduction does. */
  TirExpr *pred = NULL;
  {
    PtrVec todo = {0}, keep = {0};
    pv_push(&todo, inner_realize->realize.pred);
    while (todo.len) {
      TirExpr *c = todo.items[--todo.len];
      if (c->kind == TIR_AND) {
        pv_push(&todo, c->bin.b);
        pv_push(&todo, c->bin.a);
        continue;
      }
      bool dropped = false;
      for (int i = 0; i < ninner && !dropped; i++) {
        bool used = false;
        for (int k = 0; k < nb.niters; k++) used |= tir_expr_uses_var(vals[k], inner_loops[i]->loop.var);
        dropped = !used && tir_expr_uses_var(c, inner_loops[i]->loop.var);
      }
      if (!dropped && !sch_is_trivial_pred(c)) pv_push(&keep, c);
    }
    for (int i = 0; i < keep.len; i++) pred = pred ? tir_binary(h, TIR_AND, pred, keep.items[i]) : keep.items[i];
    pv_free(&todo);
    pv_free(&keep);
  }
  TirStmt *st = tir_block_realize(h, vals, nb.niters, pred ? pred : tir_bool(h, true), tir_block(h, &nb));
  /* loops innermost first */
  for (int i = ninner - 1; i >= 0; i--) {
    const TirStmt *l = inner_loops[i];
    bool used = false;
    for (int k = 0; k < nb.niters; k++) used |= tir_expr_uses_var(vals[k], l->loop.var);
    if (!used) continue;
    TirVar *nv = suffixed_var(h, l->loop.var, "");
    ir_ptrmap_put(&sub, l->loop.var, tir_var_ref(h, nv));
    st = sch_for_with_body(h, l, st);
    st->loop.var = nv;
  }
  TirStmt *r = tir_substitute_stmt(h, st, &sub);
  ir_ptrmap_free(&sub);
  return r;
}

static void bind_loops(ArithCtx *ctx, TirStmt *const *loops, int n) {
  for (int i = 0; i < n; i++) arith_bind_range(ctx, loops[i]->loop.var, loops[i]->loop.min, loops[i]->loop.extent);
}

/* ------------------------------------------------------ blockize(loop) */

/* The nest from `loop` down to its only block: its loops go to inner_loops
 * (at most 64), and the block's realize is returned (NULL after an error
 * when the subtree is not a nest of loops around one block). */
static const TirStmt *check_blockize_nest(Schedule *s, TirStmt *loop, const char *prim,
                                          TirStmt **inner_loops, int *ninner) {
  int nr = count_realizes(loop->loop.body);
  if (nr != 1) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
             "%s: loop '%s' must have exactly one block in its subtree (it has %d)", prim,
             sch_loop_name(loop), nr);
    return NULL;
  }
  *ninner = 0;
  TirStmt *cur = loop;
  while (cur->kind == TIR_S_FOR && *ninner < 64) {
    inner_loops[(*ninner)++] = cur;
    cur = cur->loop.body;
  }
  if (cur->kind != TIR_S_BLOCK_REALIZE) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
             "%s: the subtree of loop '%s' must be a nest of loops around one block", prim,
             sch_loop_name(loop));
    return NULL;
  }
  return cur;
}

/* The block's iters and init allow the division div of its bindings by the
 * loops from `loop` (inner_loops); false after an error. */
static bool check_blockize_division(Schedule *s, ArithCtx *ctx, const TirBlock *b, const IterDiv *div,
                                    TirStmt *const *inner_loops, int ninner, const TirStmt *loop,
                                    const char *prim) {
  IrHeap *h = arith_heap(ctx);
  /* The iters are divided into outer * inner_extent + inner from 0 (an iter
   * narrowed by loop_partition to [3, 11) would get an outer iter over
   * [0, 8) bound to values from 3). */
  for (int k = 0; k < b->niters; k++)
    if (!tir_is_zero(b->iters[k].dom.min)) {
      StrBuf ms;
      sb_init(&ms);
      print_tir_expr(&ms, b->iters[k].dom.min);
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: the domain of iter '%s' of block '%s' starts at %s, not at 0", prim,
               b->iters[k].var->name, b->name, ms.data);
      sb_free(&ms);
      return false;
    }
  /* An init is split into an outer one over the data-parallel iters: a
   * block with other iters (opaque after rolling_buffer) is not a
   * reduction block whose init can be (TVM's reduction block). */
  for (int k = 0; k < b->niters && b->init; k++)
    if (b->iters[k].type != TIR_ITER_SPATIAL && b->iters[k].type != TIR_ITER_REDUCE) {
      sch_fail(s, SCH_ERR_REDUCTION, 0,
               "%s: block '%s' has an init and the iter '%s', neither data-parallel nor a "
               "reduction; it is not a reduction block",
               prim, b->name, b->iters[k].var->name);
      return false;
    }
  /* The outer block runs the init before the inner loops: the inner part of
   * every reduce iter must start there at 0, where the block's init would
   * run (not e.g. at 10 for a loop partition's piece `range(10, 12)`). */
  for (int k = 0; k < b->niters && b->init; k++) {
    if (b->iters[k].type != TIR_ITER_REDUCE) continue;
    IrPtrMap at_min;
    ir_ptrmap_init(&at_min);
    for (int i = 0; i < ninner; i++) ir_ptrmap_put(&at_min, inner_loops[i]->loop.var, inner_loops[i]->loop.min);
    TirExpr *first = tir_substitute_expr(h, div[k].inner, &at_min);
    ir_ptrmap_free(&at_min);
    if (!arith_prove(ctx, tir_binary(h, TIR_EQ, first, tir_int(h, first->dtype, 0)))) {
      sch_fail(s, SCH_ERR_REDUCTION, 0,
               "%s: the reduce iter '%s' of block '%s' does not start at the start of its "
               "domain in the loops from '%s'; the block's init would not run first",
               prim, b->iters[k].var->name, b->name, sch_loop_name(loop));
      return false;
    }
  }
  return true;
}

/* The outer realize `<block>_o` around the inner loops and the divided
 * inner block (*inner_out). */
static TirStmt *build_blockize_outer(ArithCtx *ctx, const TirStmt *realize, const IterDiv *div,
                                     TirExpr *opred, TirExpr *ipred, TirStmt *const *inner_loops,
                                     int ninner, bool preserve_unit_iters, const TirBlock **inner_out) {
  IrHeap *h = arith_heap(ctx);
  const TirBlock *b = tir_realize_block(realize);
  Divided dv;
  arith_push(ctx);
  build_inner(ctx, realize, div, ipred, opred, preserve_unit_iters, NULL, &dv);
  TirBlock ob = {0};
  char *nm = xasprintf("%s_o", b->name);
  ob.name = ir_strdup(h, nm);
  free(nm);
  ob.iters = dv.outer_iters;
  ob.niters = dv.nouter;
  ob.reads = relax_regions(ctx, dv.subst.reads, dv.subst.nreads);
  ob.nreads = dv.subst.nreads;
  ob.writes = relax_regions(ctx, dv.subst.writes, dv.subst.nwrites);
  ob.nwrites = dv.subst.nwrites;
  arith_pop(ctx);
  TirStmt *body = dv.inner_realize;
  for (int i = ninner - 1; i >= 0; i--) body = sch_for_with_body(h, inner_loops[i], body);
  ob.body = body;
  if (dv.subst.init)
    ob.init = dv.outer_reduce ? outer_init(h, dv.inner_realize, dv.subst.init, inner_loops, ninner, b->name)
                              : NULL;
  if (dv.subst.init && !dv.outer_reduce) {
    /* All reduce iters are inner: the inner block keeps its init. */
    TirBlock ib = *tir_realize_block(dv.inner_realize);
    ib.init = dv.subst.init;
    dv.inner_realize = sch_realize_with(h, dv.inner_realize, &ib, NULL, NULL);
    body = dv.inner_realize;
    for (int i = ninner - 1; i >= 0; i--) body = sch_for_with_body(h, inner_loops[i], body);
    ob.body = body;
  }
  TirStmt *oblk = tir_block(h, &ob);
  oblk->span = realize->realize.block->span;
  TirStmt *res = tir_block_realize(h, dv.outer_vals, dv.nouter, dv.outer_pred, oblk);
  res->span = realize->span;
  *inner_out = tir_realize_block(dv.inner_realize);
  return res;
}

/* Builds the outer realize for blockize(loop) (shared with tensorize);
 * reports errors as prim.  *old_block receives the inner block's old
 * version (whose handles follow it); *inner_out receives the new inner block. */
TirStmt *sch_blockize_build(Schedule *s, IrHeap *h, TirStmt *loop, const SchPath *lp,
                            bool preserve_unit_iters, const char *prim, const TirBlock **old_block,
                            const TirBlock **inner_out) {
  TirStmt *inner_loops[64];
  int ninner = 0;
  const TirStmt *realize = check_blockize_nest(s, loop, prim, inner_loops, &ninner);
  if (!realize) return NULL;
  const TirBlock *b = tir_realize_block(realize);
  TirStmt *outer_loops[64];
  int nouter = 0;
  int scope = sch_scope_index(lp, lp->n - 1);
  for (int d = scope + 1; d < lp->n - 1 && nouter < 64; d++)
    if (lp->s[d]->kind == TIR_S_FOR) outer_loops[nouter++] = lp->s[d];
  ArithCtx *ctx = arith_new(h);
  bind_loops(ctx, outer_loops, nouter);
  bind_loops(ctx, inner_loops, ninner);
  IterDiv *div = xcalloc((size_t)(b->niters ? b->niters : 1), sizeof *div);
  TirExpr *opred, *ipred;
  TirStmt *res = NULL;
  if (!divide_bindings(ctx, realize, outer_loops, nouter, inner_loops, ninner, div,
                       &opred, &ipred)) {
    sch_fail(s, SCH_ERR_NOT_AFFINE, 0,
             "%s: the bindings of the inner block '%s' can not be blockized by the loops "
             "starting at '%s'",
             prim, b->name, sch_loop_name(loop));
  } else if (check_blockize_division(s, ctx, b, div, inner_loops, ninner, loop, prim)) {
    res = build_blockize_outer(ctx, realize, div, opred, ipred, inner_loops, ninner,
                               preserve_unit_iters, inner_out);
    *old_block = b;
  }
  free(div);
  arith_free(ctx);
  return res;
}

static SchRV blockize_loop(Schedule *s, SchRV loop_rv, bool preserve_unit_iters) {
  const char *prim = "blockize";
  SchPath lp = {0};
  SchRV res = -1;
  TirStmt *loop = sch_find_loop(s, loop_rv, prim, 0, &lp);
  if (!loop) goto done;
  const char *func = s->rvs[loop_rv].func;
  IrModule *nm = sch_begin(s);
  const TirBlock *old = NULL, *inner = NULL;
  TirStmt *outer = sch_blockize_build(s, nm->heap, loop, &lp, preserve_unit_iters, prim, &old, &inner);
  if (!outer) {
    ir_module_free(nm);
    goto done;
  }
  TirStmt *root = sch_replace_at(nm->heap, &lp, lp.n - 1, outer);
  sch_commit(s, nm, func, root);
  sch_rekey_block_handles(s, old, inner);
  res = sch_block_rv(s, func, outer);
  SchVal args[2] = {sch_val_rv(loop_rv), sch_val_bool(preserve_unit_iters)};
  sch_record(s, prim, args, 2, &res, 1);
done:
  sch_path_free(&lp);
  return res;
}

SchRV sch_blockize(Schedule *s, SchRV loop, bool preserve_unit_iters) {
  return blockize_loop(s, loop, preserve_unit_iters);
}

/* ---------------------------------------------------- blockize(blocks) */

/* The listed blocks and where they sit. */
typedef struct BlockizeSites {
  SchPath *paths;   /* one per block */
  int n;
  int lca;          /* depth of their lowest common ancestor on every path */
  TirStmt *seqst;   /* that ancestor when it is a sequence, else NULL */
  int first, last;  /* positions of the blocks' subtrees in seqst */
} BlockizeSites;

/* What the divided blocks give the outer block. */
typedef struct BlockizeParts {
  TirStmt **bodies;              /* per block: its inner loops around its inner block */
  const TirBlock **olds, **news; /* per block: the old and the new inner block */
  TirBufferRegion *rds, *wrs;    /* the relaxed regions of all the blocks */
  int nrds, caprds, nwrs, capwrs;
  Divided first_dv;              /* the first block's division: the outer iters */
  StrBuf name;                   /* `outer_b1_b2_` */
} BlockizeParts;

/* The blocks are distinct, not nested, and consecutive siblings whose
 * subtrees hold one block each; fills bs (false after an error). */
static bool check_blockize_blocks(Schedule *s, const SchRV *blocks, int n, const char *prim,
                                  BlockizeSites *bs) {
  SchPath *paths = bs->paths;
  if (n < 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 0, "%s: expects a loop or a non-empty list of blocks", prim);
    return false;
  }
  for (int i = 0; i < n; i++) {
    if (!sch_find_block(s, blocks[i], prim, 0, &paths[i])) return false;
    if (sch_block_scope_index(s, prim, &paths[i]) < 0) return false;
    for (int j = 0; j < i; j++)
      if (paths[j].s[paths[j].n - 1] == paths[i].s[paths[i].n - 1]) {
        sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 0, "%s: block '%s' is listed twice", prim,
                 tir_realize_block(paths[i].s[paths[i].n - 1])->name);
        return false;
      }
  }
  /* The lowest common ancestor: the deepest statement on every path (for
   * one block, its parent). */
  int lca = 0;
  if (n == 1) {
    lca = paths[0].n - 2;
  } else {
    for (;; lca++) {
      bool same = true;
      for (int i = 0; i < n; i++)
        if (lca >= paths[i].n - 1 || paths[i].s[lca] != paths[0].s[lca]) same = false;
      if (!same) break;
    }
    lca--;
  }
  if (lca < 0 || (n > 1 && paths[0].s[lca + 1] == paths[1].s[lca + 1])) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0, "%s: the blocks must not be nested in one another", prim);
    return false;
  }
  bs->lca = lca;
  TirStmt *anc = paths[0].s[lca];
  TirStmt *seqst = bs->seqst = anc->kind == TIR_S_SEQ ? anc : NULL;
  if (n > 1 && !seqst) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0, "%s: the blocks must be siblings under one loop or block", prim);
    return false;
  }
  /* Positions of the blocks' subtrees in the sequence: consecutive, in order. */
  bs->first = bs->last = -1;
  if (!seqst) return true;
  for (int i = 0; i < n; i++) {
    int pos = -1;
    for (int k = 0; k < seqst->seq.n; k++)
      if (seqst->seq.stmts[k] == paths[i].s[lca + 1]) pos = k;
    if (pos < 0 || (i > 0 && pos != bs->last + 1)) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: the blocks must be consecutive siblings, in program order", prim);
      return false;
    }
    if (i == 0) bs->first = pos;
    bs->last = pos;
  }
  for (int k = bs->first; k <= bs->last; k++)
    if (count_realizes(seqst->seq.stmts[k]) != 1) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0, "%s: the subtrees of the blocks must hold one block each",
               prim);
      return false;
    }
  return true;
}

/* Divides block i by the loops between it and the common ancestor and adds
 * its inner nest, regions and name to pt (false after an error). */
static bool build_blockize_part(Schedule *s, ArithCtx *ctx, const BlockizeSites *bs, int i,
                                TirStmt *const *outer_loops, int nouter, bool preserve_unit_iters,
                                const char *prim, BlockizeParts *pt) {
  IrHeap *h = arith_heap(ctx);
  const SchPath *p = &bs->paths[i];
  TirStmt *realize = p->s[p->n - 1];
  const TirBlock *b = tir_realize_block(realize);
  TirStmt *inner_loops[64];
  int ninner = 0;
  for (int d = bs->lca + 1; d < p->n - 1 && ninner < 64; d++) {
    if (p->s[d]->kind != TIR_S_FOR) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
               "%s: the statements between the blocks and their common ancestor must be loops", prim);
      return false;
    }
    inner_loops[ninner++] = p->s[d];
  }
  arith_push(ctx);
  bind_loops(ctx, inner_loops, ninner);
  IterDiv *div = xcalloc((size_t)(b->niters ? b->niters : 1), sizeof *div);
  TirExpr *opred, *ipred;
  Divided dv;
  bool ok = divide_bindings(ctx, realize, outer_loops, nouter, inner_loops, ninner, div, &opred,
                            &ipred) &&
            build_inner(ctx, realize, div, ipred, opred, preserve_unit_iters, i ? &pt->first_dv : NULL, &dv);
  free(div);
  if (!ok) {
    arith_pop(ctx);
    sch_fail(s, SCH_ERR_NOT_AFFINE, 0,
             "%s: the bindings of the inner block '%s' can not be blockized by the loops "
             "starting at '%s'",
             prim, b->name, ninner ? sch_loop_name(inner_loops[0]) : b->name);
    return false;
  }
  if (dv.subst.init && dv.outer_reduce) {
    arith_pop(ctx);
    sch_fail(s, SCH_ERR_REDUCTION, 0,
             "%s: block '%s' would need an outer reduction; blockize of several blocks "
             "allows no reduce iter in the outer block",
             prim, b->name);
    return false;
  }
  if (i == 0) pt->first_dv = dv;
  if (dv.subst.init) { /* all reduce iters inner: the inner block keeps its init */
    TirBlock ib = *tir_realize_block(dv.inner_realize);
    ib.init = dv.subst.init;
    dv.inner_realize = sch_realize_with(h, dv.inner_realize, &ib, NULL, NULL);
  }
  TirBufferRegion *r = relax_regions(ctx, dv.subst.reads, dv.subst.nreads);
  TirBufferRegion *w = relax_regions(ctx, dv.subst.writes, dv.subst.nwrites);
  arith_pop(ctx);
  VEC_RESERVE(pt->rds, pt->caprds, pt->nrds + dv.subst.nreads + 1);
  memcpy(pt->rds + pt->nrds, r, (size_t)dv.subst.nreads * sizeof *pt->rds);
  pt->nrds += dv.subst.nreads;
  VEC_RESERVE(pt->wrs, pt->capwrs, pt->nwrs + dv.subst.nwrites + 1);
  memcpy(pt->wrs + pt->nwrs, w, (size_t)dv.subst.nwrites * sizeof *pt->wrs);
  pt->nwrs += dv.subst.nwrites;
  sb_printf(&pt->name, "%s_", b->name);
  TirStmt *body = dv.inner_realize;
  for (int k = ninner - 1; k >= 0; k--) body = sch_for_with_body(h, inner_loops[k], body);
  pt->bodies[i] = body;
  pt->olds[i] = b;
  pt->news[i] = tir_realize_block(dv.inner_realize);
  return true;
}

/* The outer block over the parts replaces the blocks' subtrees; commits nm
 * and returns the outer realize. */
static TirStmt *replace_blockize_blocks(Schedule *s, IrModule *nm, ArithCtx *ctx, const BlockizeSites *bs,
                                        const BlockizeParts *pt, const char *func) {
  IrHeap *h = nm->heap;
  const SchPath *p0 = &bs->paths[0];
  TirBlock ob = {0};
  ob.name = ir_strdup(h, pt->name.data);
  ob.iters = pt->first_dv.outer_iters;
  ob.niters = pt->first_dv.nouter;
  ob.reads = union_regions(ctx, pt->rds, pt->nrds, &ob.nreads);
  ob.writes = union_regions(ctx, pt->wrs, pt->nwrs, &ob.nwrites);
  ob.body = tir_seq(h, pt->bodies, bs->n);
  TirStmt *oblk = tir_block(h, &ob);
  TirStmt *outer =
      tir_block_realize(h, pt->first_dv.outer_vals, pt->first_dv.nouter, pt->first_dv.outer_pred, oblk);
  outer->span = oblk->span = p0->s[p0->n - 1]->span;
  /* Replace the consecutive subtrees by the new block. */
  TirStmt *root;
  const TirStmt *seqst = bs->seqst;
  if (seqst) {
    int cnt = seqst->seq.n - (bs->last - bs->first);
    TirStmt **items = xmalloc((size_t)cnt * sizeof *items);
    int c = 0;
    for (int k = 0; k < seqst->seq.n; k++) {
      if (k == bs->first) items[c++] = outer;
      else if (k < bs->first || k > bs->last) items[c++] = seqst->seq.stmts[k];
    }
    TirStmt *ns = tir_seq(h, items, cnt);
    free(items);
    root = sch_replace_at(h, p0, bs->lca, ns);
  } else {
    root = sch_replace_at(h, p0, bs->lca + 1, outer);
  }
  sch_commit(s, nm, func, root);
  return outer;
}

SchRV sch_blockize_blocks(Schedule *s, const SchRV *blocks, int n, bool preserve_unit_iters) {
  const char *prim = "blockize";
  SchRV res = -1;
  BlockizeSites bs = {0};
  bs.paths = xcalloc((size_t)(n ? n : 1), sizeof *bs.paths);
  bs.n = n;
  BlockizeParts pt = {0};
  sb_init(&pt.name);
  IrModule *nm = NULL;
  ArithCtx *ctx = NULL;
  if (!check_blockize_blocks(s, blocks, n, prim, &bs)) goto done;
  const char *func = s->rvs[blocks[0]].func;
  nm = sch_begin(s);
  IrHeap *h = nm->heap;
  ctx = arith_new(h);
  TirStmt *outer_loops[64];
  int nouter = 0;
  int scope = sch_scope_index(&bs.paths[0], bs.lca + 1);
  for (int d = scope + 1; d <= bs.lca && nouter < 64; d++)
    if (bs.paths[0].s[d]->kind == TIR_S_FOR) outer_loops[nouter++] = bs.paths[0].s[d];
  bind_loops(ctx, outer_loops, nouter);
  pt.bodies = ir_alloc(h, (size_t)n * sizeof *pt.bodies);
  pt.olds = ir_alloc(h, (size_t)n * sizeof *pt.olds);
  pt.news = ir_alloc(h, (size_t)n * sizeof *pt.news);
  sb_puts(&pt.name, "outer_");
  for (int i = 0; i < n; i++)
    if (!build_blockize_part(s, ctx, &bs, i, outer_loops, nouter, preserve_unit_iters, prim, &pt)) goto done;
  TirStmt *outer = replace_blockize_blocks(s, nm, ctx, &bs, &pt, func);
  nm = NULL;
  for (int i = 0; i < n; i++) sch_rekey_block_handles(s, pt.olds[i], pt.news[i]);
  res = sch_block_rv(s, func, outer);
  SchVal args[2] = {sch_val_rv_list(blocks, n), sch_val_bool(preserve_unit_iters)};
  sch_record(s, prim, args, 2, &res, 1);
done:
  if (nm) ir_module_free(nm);
  if (ctx) arith_free(ctx);
  free(pt.rds);
  free(pt.wrs);
  sb_free(&pt.name);
  for (int i = 0; i < n; i++) sch_path_free(&bs.paths[i]);
  free(bs.paths);
  return res;
}

/* --------------------------------------------------------- method table */

static int ap_blockize(Schedule *s, SchVal *a, SchVal *r) {
  SchRV out;
  if (a[0].kind == SV_LIST) {
    SchRV *bs = xmalloc((size_t)(a[0].n ? a[0].n : 1) * sizeof *bs);
    for (int i = 0; i < a[0].n; i++) bs[i] = (SchRV)a[0].items[i].i;
    out = sch_blockize_blocks(s, bs, a[0].n, a[1].i != 0);
    free(bs);
  } else {
    out = sch_blockize(s, (SchRV)a[0].i, a[1].i != 0);
  }
  if (out < 0) return -1;
  *r = sch_val_rv(out);
  return 0;
}

static int ap_tensorize(Schedule *s, SchVal *a, SchVal *r) {
  (void)r;
  return sch_tensorize(s, (SchRV)a[0].i, a[1].s, a[2].i != 0);
}

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_blockize[] = {
    {"blockize", {P("target", SP_LOOP_OR_BLOCKS, NULL), P("preserve_unit_iters", SP_BOOL, "True")}, 2,
     SO_ONE, true, ap_blockize},
    {"tensorize",
     {P("block_or_loop", SP_BLOCK_OR_LOOP, NULL), P("tensor_intrin", SP_STR, NULL),
      P("preserve_unit_iters", SP_BOOL, "True")},
     3, SO_NONE, true, ap_tensorize},
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
