/* primitive_misc.c - loop-nest primitives of TVM's later releases: merge
 * (v0.12) and loop_partition (v0.16).  The padding primitives (pad_einsum,
 * decompose_padding) are in primitive_padding.c and fuse_reduction_epilogue
 * in primitive_epilogue.c; all of them are listed in sch_methods_misc here.
 *
 * Each checks legality on the current version first (TVM v0.23's rules,
 * reference/schedule_primitives.md section 2), then rebuilds the changed part
 * copy-on-write in a derived version, with TVM's generated names (`i_m`,
 * `B_i0`, `B_i0_partition`, `B_i_common`). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "sched/sched_internal.h"

/* A name built like printf, copied into the heap h. */
static const char *heap_name(IrHeap *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *heap_name(IrHeap *h, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return ir_strdup(h, buf);
}

static bool has_annotations(const TirStmt *loop) {
  return (loop->loop.annotations && loop->loop.annotations->n > 0) ||
         loop->loop.kind == TIR_FOR_THREAD_BINDING;
}

/* ---------------------------------------------------------------- merge */

/* Rebuilds st with statement `target` replaced by repl and the statements in
 * drop removed (pointer identity; loops left empty go too). */
static TirStmt *merge_rebuild(IrHeap *h, TirStmt *st, TirStmt *target, TirStmt *repl,
                              TirStmt *const *drop, int ndrop) {
  if (st == target) return repl;
  for (int i = 0; i < ndrop; i++)
    if (st == drop[i]) return NULL;
  bool touched = sch_contains(st, target);
  for (int i = 0; i < ndrop && !touched; i++) touched = sch_contains(st, drop[i]);
  if (!touched) return st;
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  TirStmt **copy = xmalloc((size_t)(n ? n : 1) * sizeof *copy);
  TirStmt **nw = xmalloc((size_t)(n ? n : 1) * sizeof *nw);
  memcpy(copy, all, (size_t)n * sizeof *copy);
  for (int i = 0; i < n; i++) nw[i] = merge_rebuild(h, copy[i], target, repl, drop, ndrop);
  TirStmt *cur = st;
  if (st->kind == TIR_S_SEQ) {
    /* Rebuilt at once: removing items one by one could collapse the
     * sequence into a single statement mid-way. */
    int m = 0;
    for (int i = 0; i < n; i++)
      if (nw[i]) nw[m++] = nw[i];
    cur = tir_seq(h, nw, m);
  } else {
    for (int i = 0; i < n && cur; i++)
      if (nw[i] != copy[i]) cur = sch_replace_child(h, cur, copy[i], nw[i]);
  }
  free(copy);
  free(nw);
  return cur;
}

/* The loops to merge and what the checks find out about them. */
typedef struct MergeState {
  int n;
  SchPath *paths;   /* per loop: its path */
  TirStmt **loops;  /* the given loops */
  TirStmt ***nests; /* per loop: given loop ... outermost below the LCA */
  int *depth;       /* per loop: the length of its nest */
  int lca;          /* depth of the lowest common ancestor in the paths */
} MergeState;

/* Finds the loops (each once) and their lowest common ancestor, which none
 * of them may be. */
static bool check_merge_loops(Schedule *s, const SchRV *rvs, MergeState *ms) {
  int n = ms->n;
  for (int i = 0; i < n; i++) {
    ms->loops[i] = sch_find_loop(s, rvs[i], "merge", i, &ms->paths[i]);
    if (!ms->loops[i]) return false;
    for (int k = 0; k < i; k++)
      if (ms->loops[k] == ms->loops[i]) {
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "merge: loop '%s' appears more than once",
                 sch_loop_name(ms->loops[i]));
        return false;
      }
  }
  /* The lowest common ancestor: the longest common prefix of the paths. */
  int lca = ms->paths[0].n - 1;
  for (int i = 1; i < n; i++) {
    int k = 0;
    while (k < ms->paths[i].n && k <= lca && ms->paths[i].s[k] == ms->paths[0].s[k]) k++;
    lca = k - 1;
  }
  ms->lca = lca;
  for (int i = 0; i < n; i++)
    if (ms->paths[i].n - 1 <= lca && n > 1) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "merge: loop '%s' encloses the other loops to merge",
               sch_loop_name(ms->loops[i]));
      return false;
    }
  return true;
}

/* Collects each loop's nest up to the LCA and checks the nests: plain loops
 * from 0, chains of only children, one block scope, equal depths. */
static bool check_merge_nests(Schedule *s, MergeState *ms) {
  SchPath *paths = ms->paths;
  TirStmt ***nests = ms->nests;
  int *depth = ms->depth;
  for (int i = 0; i < ms->n; i++) {
    /* Loops from the given one up to the LCA must form a chain of only children. */
    nests[i] = xmalloc((size_t)paths[i].n * sizeof **nests);
    for (int k = paths[i].n - 1; k > ms->lca; k--) {
      TirStmt *st = paths[i].s[k];
      if (st->kind != TIR_S_FOR) continue;
      if (has_annotations(st)) {
        sch_fail(s, SCH_ERR_LOOP_KIND, i,
                 "merge: loop '%s' has annotations or a thread binding", sch_loop_name(st));
        return false;
      }
      if (!tir_is_zero(st->loop.min)) {
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "merge: loop '%s' does not start at 0", sch_loop_name(st));
        return false;
      }
      nests[i][depth[i]++] = st;
    }
    for (int k = depth[i] - 1; k > 0; k--)
      if (nests[i][k]->loop.body != nests[i][k - 1]) {
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "merge: loop '%s' is not the only child of loop '%s'",
                 sch_loop_name(nests[i][k - 1]), sch_loop_name(nests[i][k]));
        return false;
      }
    if (sch_scope_index(&paths[i], paths[i].n - 1) != sch_scope_index(&paths[0], paths[0].n - 1)) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "merge: loops '%s' and '%s' are not under the same block scope",
               sch_loop_name(ms->loops[0]), sch_loop_name(ms->loops[i]));
      return false;
    }
    if (i > 0 && depth[i] != depth[0]) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i,
               "merge: the nesting depth of the loops to merge must be the same: loop '%s' is %d "
               "deep and loop '%s' %d deep below their common ancestor",
               sch_loop_name(ms->loops[0]), depth[0], sch_loop_name(ms->loops[i]), depth[i]);
      return false;
    }
  }
  return true;
}

/* The loops at each nest level must have provably equal extents. */
static bool check_merge_extents(Schedule *s, const MergeState *ms) {
  TirStmt ***nests = ms->nests;
  ArithCtx *ctx = arith_new(sch_mod(s)->heap);
  for (int i = 1; i < ms->n; i++)
    for (int k = 0; k < ms->depth[0]; k++)
      if (!arith_can_prove_equal(ctx, nests[i][k]->loop.extent, nests[0][k]->loop.extent)) {
        StrBuf a, b;
        sb_init(&a);
        sb_init(&b);
        print_tir_expr(&a, nests[0][k]->loop.extent);
        print_tir_expr(&b, nests[i][k]->loop.extent);
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i,
                 "merge: the extents of the loops to merge must be the same: loop '%s' has "
                 "extent %s and loop '%s' extent %s",
                 sch_loop_name(nests[0][k]), a.data, sch_loop_name(nests[i][k]), b.data);
        sb_free(&a);
        sb_free(&b);
        arith_free(ctx);
        return false;
      }
  arith_free(ctx);
  return true;
}

/* The new function body: one nest of `<var>_m` loops running every nest's
 * body in turn, in place of the last nest; the others go.  mv receives the
 * new loop vars (innermost first). */
static TirStmt *build_merge(IrHeap *h, const MergeState *ms, TirVar ***mv_out) {
  int n = ms->n, dn = ms->depth[0];
  TirStmt ***nests = ms->nests;
  TirVar **mv = ir_alloc(h, (size_t)dn * sizeof *mv);
  for (int k = 0; k < dn; k++) {
    char *name = xasprintf("%s_m", nests[0][k]->loop.var->name);
    mv[k] = tir_var(h, name, nests[0][k]->loop.var->dtype);
    free(name);
  }
  TirStmt **bodies = ir_alloc(h, (size_t)n * sizeof *bodies);
  for (int i = 0; i < n; i++) {
    IrPtrMap vmap;
    ir_ptrmap_init(&vmap);
    for (int k = 0; k < dn; k++) ir_ptrmap_put(&vmap, nests[i][k]->loop.var, tir_var_ref(h, mv[k]));
    bodies[i] = tir_substitute_stmt(h, nests[i][0]->loop.body, &vmap);
    ir_ptrmap_free(&vmap);
  }
  TirStmt *inner = tir_for(h, mv[0], tir_int(h, mv[0]->dtype, 0), nests[0][0]->loop.extent,
                           TIR_FOR_SERIAL, NULL, NULL, tir_seq(h, bodies, n));
  inner->span = nests[n - 1][0]->span;
  TirStmt *outer = inner;
  for (int k = 1; k < dn; k++) {
    outer = tir_for(h, mv[k], tir_int(h, mv[k]->dtype, 0), nests[0][k]->loop.extent,
                    TIR_FOR_SERIAL, NULL, NULL, outer);
    outer->span = nests[n - 1][k]->span;
  }
  /* The merged nest takes the place of the last nest; the others go. */
  TirStmt **drop = xmalloc((size_t)n * sizeof *drop);
  for (int i = 0; i + 1 < n; i++) drop[i] = nests[i][dn - 1];
  TirStmt *sub = merge_rebuild(h, ms->paths[0].s[ms->lca], nests[n - 1][dn - 1], outer, drop, n - 1);
  free(drop);
  *mv_out = mv;
  return sch_replace_at(h, &ms->paths[0], ms->lca, sub);
}

SchRV sch_merge(Schedule *s, const SchRV *rvs, int n) {
  if (n < 2) { /* (one loop has no nest below its common ancestor with others) */
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, -1, "merge: expected at least two loops to merge, got %d", n);
    return -1;
  }
  MergeState ms = {0};
  ms.n = n;
  ms.paths = xcalloc((size_t)n, sizeof *ms.paths);
  ms.loops = xcalloc((size_t)n, sizeof *ms.loops);
  ms.nests = xcalloc((size_t)n, sizeof *ms.nests);
  ms.depth = xcalloc((size_t)n, sizeof *ms.depth);
  SchRV res = -1;
  if (check_merge_loops(s, rvs, &ms) && check_merge_nests(s, &ms) && check_merge_extents(s, &ms)) {
    IrModule *nm = sch_begin(s);
    TirVar **mv = NULL;
    TirStmt *root = build_merge(nm->heap, &ms, &mv);
    const char *func = s->rvs[rvs[0]].func;
    sch_commit(s, nm, func, root);
    res = sch_new_rv(s, SCH_RV_LOOP, func, mv[0], NULL);
    SchVal args[1] = {sch_val_rv_list(rvs, n)};
    sch_record(s, "merge", args, 1, &res, 1);
  }
  for (int i = 0; i < n; i++) {
    sch_path_free(&ms.paths[i]);
    free(ms.nests[i]);
  }
  free(ms.paths);
  free(ms.loops);
  free(ms.nests);
  free(ms.depth);
  return res;
}

/* ------------------------------------------------------- loop_partition */

typedef struct PartCtx {
  TirVar *pvar;           /* the partition's loop var */
  TirExpr *min, *extent;  /* its range */
} PartCtx;

/* Loop vars, block iter vars and let vars get a fresh copy per partition. */
static TirVar *part_def_var(TirMutator *m, TirVar *var) {
  (void)m;
  if (var->dtype.code == DT_HANDLE) return var;
  TirVar *nv = ir_memdup(m->heap, var, sizeof *var);
  return nv;
}

static TirStmt *part_realize(TirMutator *m, TirStmt *s) {
  PartCtx *c = m->ctx;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  const TirBlock *ob = tir_realize_block(r);
  int at = -1;
  for (int i = 0; i < r->realize.n && at < 0; i++)
    if (r->realize.values[i]->kind == TIR_VAR && r->realize.values[i]->var == c->pvar) at = i;
  TirBlock blk = *ob;
  blk.name = heap_name(m->heap, "%s_%s", ob->name, c->pvar->name);
  if (at >= 0) {
    TirIterVar *its = ir_alloc(m->heap, (size_t)blk.niters * sizeof *its);
    memcpy(its, ob->iters, (size_t)blk.niters * sizeof *its);
    DType dt = its[at].var->dtype;
    its[at].dom.min = dt_eq(c->min->dtype, dt) ? c->min : tir_int(m->heap, dt, c->min->ival);
    its[at].dom.extent =
        dt_eq(c->extent->dtype, dt) ? c->extent : tir_int(m->heap, dt, c->extent->ival);
    blk.iters = its;
    /* The block keeps its regions, points at its iters.  (TVM widens the
     * region of each buffer accessed at plain iters to those iters'
     * domains; a write region claiming the whole piece per instance would
     * make a write-back (write_at, cache_write) copy what is not written yet.) */
  }
  return sch_realize_with(m->heap, r, &blk, NULL, NULL);
}

/* The regions of an opaque block inferred from its body, simplified (the
 * inner blocks' regions union as e.g. `T.min(0 // 2, 2 // 2)`, which would
 * not print and parse back the same). */
static void infer_regions(IrHeap *h, TirBlock *b) {
  tir_infer_access_regions(h, b, &b->reads, &b->nreads, &b->writes, &b->nwrites);
  ArithCtx *a = arith_new(h);
  for (int pass = 0; pass < 2; pass++) {
    TirBufferRegion *rs = pass ? b->writes : b->reads;
    int n = pass ? b->nwrites : b->nreads;
    for (int i = 0; i < n; i++)
      for (int d = 0; d < rs[i].n; d++) {
        rs[i].ranges[d].min = arith_simplify(a, rs[i].ranges[d].min);
        rs[i].ranges[d].extent = arith_simplify(a, rs[i].ranges[d].extent);
      }
  }
  arith_free(a);
}

/* The name of the first block down the chain of loops from st, or NULL. */
static const char *first_block_name(const TirStmt *st) {
  while (st->kind == TIR_S_FOR) st = st->loop.body;
  return st->kind == TIR_S_BLOCK_REALIZE ? tir_realize_block(st)->name : NULL;
}

/* The loop checks: a plain loop with constant bounds around a nest with one
 * block, no reduce iter of which (in a block with an init) it is bound to.
 * Sets the bounds and the block's name. */
static bool check_partition_loop(Schedule *s, const TirStmt *loop, int64_t *lo, int64_t *ext,
                                 const char **bname_out) {
  const char *name = sch_loop_name(loop);
  if (has_annotations(loop)) {
    sch_fail(s, SCH_ERR_LOOP_KIND, 0, "loop_partition: loop '%s' has annotations or a thread binding", name);
    return false;
  }
  if (!tir_is_const_int(loop->loop.min, lo) || !tir_is_const_int(loop->loop.extent, ext)) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
             "loop_partition: the min and extent of loop '%s' must be known at compile time, but "
             "they are symbolic",
             name);
    return false;
  }
  const char *bname = first_block_name(loop->loop.body);
  if (!bname) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0,
             "loop_partition: the body of loop '%s' is not a loop nest around one block",
             name);
    return false;
  }
  /* A reduce iter bound to the loop in a block with an init: each piece
   * would start the reduction over (TVM narrows the iter's domain to the
   * piece, and the init runs at the start of every piece). */
  TirStmt *st = loop->loop.body;
  while (st->kind == TIR_S_FOR) st = st->loop.body;
  const TirBlock *b = tir_realize_block(st);
  for (int i = 0; i < b->niters && i < st->realize.n && b->init; i++) {
    if (b->iters[i].type == TIR_ITER_REDUCE && tir_expr_uses_var(st->realize.values[i], loop->loop.var)) {
      sch_fail(s, SCH_ERR_REDUCTION, 0,
               "loop_partition: loop '%s' is bound to the reduce iter '%s' of block '%s', which "
               "has an init; every piece would start the reduction over (decompose_reduction "
               "first)",
               name, b->iters[i].var->name, b->name);
      return false;
    }
  }
  *bname_out = bname;
  return true;
}

/* The factor checks: at most one inferred (position in *infer_at, -1: none),
 * the others positive and adding up (*sum) to less than the extent. */
static bool check_partition_factors(Schedule *s, const TirStmt *loop, const int64_t *factors, int n,
                                    int64_t ext, int *infer_at, int64_t *sum) {
  if (n < 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "loop_partition: factors must not be empty");
    return false;
  }
  for (int i = 0; i < n; i++) {
    if (factors[i] == 0 || factors[i] == -1) {
      if (*infer_at >= 0) {
        sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "loop_partition: only one factor can be None or -1");
        return false;
      }
      *infer_at = i;
    } else if (factors[i] < 0) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
               "loop_partition: all the constant factors must be positive, got %lld",
               (long long)factors[i]);
      return false;
    } else {
      *sum += factors[i];
    }
  }
  if (*sum >= ext) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "loop_partition: the factors add up to %lld, which is not less than the extent %lld "
             "of loop '%s'",
             (long long)*sum, (long long)ext, sch_loop_name(loop));
    return false;
  }
  return true;
}

/* Piece i, the loop var over [start, stop): an opaque block
 * `<block>_<loop><i>_partition` around a copy of the loop whose blocks get
 * fresh vars, the piece's domain and `_<var>` names. */
static TirStmt *build_partition_piece(IrHeap *h, const TirStmt *loop, const char *bname, int i,
                                      TirVar *var, int64_t start, int64_t stop) {
  DType dt = var->dtype;
  PartCtx c = {var, tir_int(h, dt, start), tir_int(h, dt, stop - start)};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &c;
  m.def_var = part_def_var;
  m.stmt[TIR_S_BLOCK_REALIZE] = part_realize;
  TirExpr *ref = tir_var_ref(h, var);
  if (!dt_eq(dt, loop->loop.var->dtype)) ref = tir_cast(h, loop->loop.var->dtype, ref);
  TirStmt *body = tir_substitute_stmt1(h, loop->loop.body, loop->loop.var, ref);
  body = tir_mutate_stmt(&m, body);
  tir_mutator_free(&m);
  TirStmt *f = tir_for(h, var, c.min, c.extent, TIR_FOR_SERIAL, NULL, NULL, body);
  f->span = loop->span;
  TirBlock pb = {0};
  pb.name = heap_name(h, "%s_%s%d_partition", bname, sch_loop_name(loop), i);
  pb.body = f;
  /* Unlike TVM (empty regions), the opaque blocks declare what their
   * bodies access: the dependency analyses of later primitives (a
   * cache_read placed after the writer, compute_at...) read regions. */
  infer_regions(h, &pb);
  return tir_block_realize(h, NULL, 0, tir_bool(h, true), tir_block(h, &pb));
}

/* The opaque `<block>_<loop>_common` block holding the np pieces, which end
 * at end[i]; vars receives the pieces' loop vars. */
static TirStmt *build_partition(IrHeap *h, const TirStmt *loop, const char *bname, int64_t lo,
                                const int64_t *end, int np, TirVar **vars) {
  const char *name = sch_loop_name(loop);
  DType dt = loop->loop.var->dtype;
  if (dt.bits < 32) dt.bits = 32;
  TirStmt **parts = ir_alloc(h, (size_t)np * sizeof *parts);
  int64_t start = lo;
  for (int i = 0; i < np; i++) {
    char *vn = xasprintf("%s%d", name, i);
    vars[i] = tir_var(h, vn, dt);
    free(vn);
    parts[i] = build_partition_piece(h, loop, bname, i, vars[i], start, end[i]);
    start = end[i];
  }
  TirBlock cb = {0};
  cb.name = heap_name(h, "%s_%s_common", bname, name);
  cb.body = tir_seq(h, parts, np);
  infer_regions(h, &cb);
  TirStmt *common = tir_block_realize(h, NULL, 0, tir_bool(h, true), tir_block(h, &cb));
  common->span = loop->span;
  return common;
}

int sch_loop_partition(Schedule *s, SchRV loop_rv, const int64_t *factors, int n,
                       bool preserve_unit_iters, SchRV *out) {
  SchPath p = {0};
  TirStmt *loop = sch_find_loop(s, loop_rv, "loop_partition", 0, &p);
  if (!loop) return sch_path_free(&p), -1;
  int64_t lo, ext, sum = 0;
  int infer_at = -1;
  const char *bname = NULL;
  if (!check_partition_loop(s, loop, &lo, &ext, &bname) ||
      !check_partition_factors(s, loop, factors, n, ext, &infer_at, &sum)) {
    sch_path_free(&p);
    return -1;
  }
  /* Partition boundaries: the running sums of the sizes; without an
   * inferred size the rest of the range is one more partition. */
  int np = infer_at >= 0 ? n : n + 1;
  int64_t *end = xmalloc((size_t)np * sizeof *end);
  int64_t acc = lo;
  for (int i = 0; i < n; i++) {
    acc += i == infer_at ? ext - sum : factors[i];
    end[i] = acc;
  }
  if (infer_at < 0) end[n] = lo + ext;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirVar **vars = ir_alloc(h, (size_t)np * sizeof *vars);
  TirStmt *common = build_partition(h, loop, bname, lo, end, np, vars);
  free(end);
  TirStmt *root = sch_replace_at(h, &p, p.n - 1, common);
  const char *func = s->rvs[loop_rv].func;
  sch_commit(s, nm, func, root);
  for (int i = 0; i < np; i++) out[i] = sch_new_rv(s, SCH_RV_LOOP, func, vars[i], NULL);
  SchVal fv = sch_val_none();
  fv.kind = SV_LIST;
  fv.n = n;
  fv.items = xmalloc((size_t)n * sizeof *fv.items);
  for (int i = 0; i < n; i++)
    fv.items[i] = factors[i] == 0 || factors[i] == -1 ? sch_val_none() : sch_val_int(factors[i]);
  SchVal args[3] = {sch_val_rv(loop_rv), fv, sch_val_bool(preserve_unit_iters)};
  sch_record(s, "loop_partition", args, 3, out, np);
  sch_path_free(&p);
  return np;
}

/* -------------------------------------------------------- method table */

static int ap_merge(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *l = xmalloc((size_t)(a[0].n ? a[0].n : 1) * sizeof *l);
  for (int i = 0; i < a[0].n; i++) l[i] = (SchRV)a[0].items[i].i;
  SchRV rv = sch_merge(s, l, a[0].n);
  free(l);
  if (rv < 0) return -1;
  *r = sch_val_rv(rv);
  return 0;
}

static int ap_loop_partition(Schedule *s, SchVal *a, SchVal *r) {
  int n = a[1].n;
  int64_t *f = xmalloc((size_t)(n ? n : 1) * sizeof *f);
  SchRV *o = xmalloc((size_t)(n + 1) * sizeof *o);
  for (int i = 0; i < n; i++) f[i] = a[1].items[i].kind == SV_NONE ? 0 : a[1].items[i].i;
  int np = sch_loop_partition(s, (SchRV)a[0].i, f, n, a[2].i != 0, o);
  free(f);
  if (np < 0) return free(o), -1;
  *r = sch_val_rv_list(o, np);
  free(o);
  return 0;
}

static int ap_decompose_padding(Schedule *s, SchVal *a, SchVal *r) {
  SchRV rv = sch_decompose_padding(s, (SchRV)a[0].i, (SchRV)a[1].i);
  if (rv < 0) return -1;
  *r = sch_val_rv(rv);
  return 0;
}

static int ap_fuse_reduction_epilogue(Schedule *s, SchVal *a, SchVal *r) {
  return sch_fuse_reduction_epilogue(s, (SchRV)a[0].i, (SchRV)a[1].i);
}

static int ap_pad_einsum(Schedule *s, SchVal *a, SchVal *r) {
  int n = a[1].n;
  int64_t *p = xmalloc((size_t)(n ? n : 1) * sizeof *p);
  for (int i = 0; i < n; i++) p[i] = a[1].items[i].i;
  int rc = sch_pad_einsum(s, (SchRV)a[0].i, p, n);
  free(p);
  return rc;
}

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_misc[] = {
    {"merge", {P("loops", SP_LOOPS, NULL)}, 1, SO_ONE, true, ap_merge},
    {"loop_partition",
     {P("loop", SP_LOOP, NULL), P("factors", SP_FACTORS, NULL), P("preserve_unit_iters", SP_BOOL, "True")},
     3, SO_LIST, true, ap_loop_partition},
    {"pad_einsum", {P("block", SP_BLOCK, NULL), P("padding", SP_INTS, NULL)}, 2, SO_NONE, true, ap_pad_einsum},
    {"decompose_padding", {P("block", SP_BLOCK, NULL), P("loop", SP_LOOP, NULL)}, 2, SO_ONE, true,
     ap_decompose_padding},
    {"fuse_reduction_epilogue", {P("reduction_block", SP_BLOCK, NULL), P("epilogue_block", SP_BLOCK, NULL)},
     2, SO_NONE, true, ap_fuse_reduction_epilogue},
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P
