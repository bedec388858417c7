/* primitive_cache_index.c - schedule primitive cache_index.
 *
 * cache_index(block, storage_scope, cse_thresh) precomputes the common
 * sub-expressions of a block's stores into buffers `index_var_<k>`, each
 * written by a block `index_<k>` inserted before the block's statement in
 * its scope; the block then loads them.  The selection follows TVM's
 * IndexInfoCollector: per store, the largest pure computations (no loads, no
 * opaque calls, not a leaf, Ramp or Broadcast) are counted, equal up to
 * simplification; one seen fewer than cse_thresh times gives its count to
 * its direct sub-computations (most complex first); the survivors, in the
 * post-order of the stored value, are numbered most complex first.  The
 * block's reads and writes are left as they were, as TVM leaves them. */
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/structural_equal.h"
#include "sched/sched_internal.h"

/* The sub-expressions of e (operands, load indices, call arguments). */
static int expr_kids(const TirExpr *e, TirExpr **out, int cap) {
  int n = 0;
#define ADD(x) do { if ((x) && n < cap) out[n++] = (x); } while (0)
  switch (e->kind) {
    case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: break;
    case TIR_NOT: case TIR_CAST: ADD(e->un.a); break;
    case TIR_SELECT: ADD(e->sel.cond); ADD(e->sel.t); ADD(e->sel.f); break;
    case TIR_LOAD: for (int i = 0; i < e->load.n; i++) ADD(e->load.idx[i]); break;
    case TIR_CALL: for (int i = 0; i < e->call.n; i++) ADD(e->call.args[i]); break;
    case TIR_RAMP: ADD(e->ramp.base); ADD(e->ramp.stride); break;
    case TIR_BROADCAST: ADD(e->bcast.value); break;
    case TIR_LET: ADD(e->let.value); break;
    default: ADD(e->bin.a); ADD(e->bin.b); break;
  }
#undef ADD
  return n;
}

static int expr_complexity(const TirExpr *e) {
  TirExpr *k[16];
  int n = expr_kids(e, k, 16), c = 1;
  for (int i = 0; i < n; i++) c += expr_complexity(k[i]);
  return c;
}

/* Side-effect free (TVM's CallEffectKind <= kPure): no loads, lets or
 * calls other than the pure intrinsics. */
static bool expr_pure(const TirExpr *e) {
  if (e->kind == TIR_LOAD || e->kind == TIR_LET) return false;
  if (e->kind == TIR_CALL) {
    const TirOpInfo *op = e->call.op;
    bool pure = op->kind != TIR_OPK_SPECIAL || op->id == TIR_OP_IF_THEN_ELSE || op->id == TIR_OP_LIKELY ||
                op->id == TIR_OP_CALL_PURE_EXTERN || op->id == TIR_OP_REINTERPRET;
    if (!pure) return false;
  }
  TirExpr *k[16];
  int n = expr_kids(e, k, 16);
  for (int i = 0; i < n; i++)
    if (!expr_pure(k[i])) return false;
  return true;
}

/* One store's computations: representatives, their normal forms (TVM's
 * EquivalentTerms compares simplified forms), counts, processed flags. */
typedef struct IndexCands {
  const TirBlock *blk;  /* the target block: candidates use only its iter vars */
  ArithCtx *norm;       /* a context with no bindings, for normal forms */
  PtrVec exprs, norms;
  int64_t *counts;
  bool *done;
  int cap, dcap;
} IndexCands;

static const TirExpr *normal_form(IndexCands *ic, const TirExpr *e) {
  return arith_simplify(ic->norm, e);
}

/* An eligible computation: pure, not a leaf, Ramp or Broadcast, and over
 * the block's iter vars only (the index buffers are computed from them). */
static bool eligible(const IndexCands *ic, const TirExpr *e) {
  if (e->kind == TIR_INT || e->kind == TIR_FLOAT || e->kind == TIR_STR || e->kind == TIR_VAR ||
      e->kind == TIR_RAMP || e->kind == TIR_BROADCAST || e->dtype.lanes != 1 || !expr_pure(e))
    return false;
  PtrVec vars = {0};
  tir_expr_free_vars(e, &vars);
  bool ok = true;
  for (int i = 0; i < vars.len && ok; i++) {
    bool iter = false;
    for (int k = 0; k < ic->blk->niters; k++) iter |= ic->blk->iters[k].var == vars.items[i];
    ok = iter;
  }
  pv_free(&vars);
  return ok;
}

static int cand_find(IndexCands *ic, const TirExpr *e) {
  const TirExpr *ne = NULL;
  for (int i = 0; i < ic->exprs.len; i++) {
    if (seq_tir_expr(ic->exprs.items[i], e)) return i;
    if (!ne) ne = normal_form(ic, e);
    if (seq_tir_expr(ic->norms.items[i], ne)) return i;
  }
  return -1;
}

static void cand_add(IndexCands *ic, TirExpr *e, int64_t count) {
  int i = cand_find(ic, e);
  if (i >= 0) {
    ic->counts[i] += count;
    return;
  }
  int n = ic->exprs.len;
  VEC_RESERVE(ic->counts, ic->cap, n + 1);
  VEC_RESERVE(ic->done, ic->dcap, n + 1);
  ic->counts[n] = count;
  ic->done[n] = false;
  pv_push(&ic->exprs, e);
  pv_push(&ic->norms, (void *)normal_form(ic, e));
}

/* The largest eligible sub-expressions of e (e itself when eligible). */
static void cand_collect(IndexCands *ic, TirExpr *e, int64_t count) {
  if (eligible(ic, e)) {
    cand_add(ic, e, count);
    return;
  }
  TirExpr *k[16];
  int n = expr_kids(e, k, 16);
  for (int i = 0; i < n; i++) cand_collect(ic, k[i], count);
}

/* The stores of the target block's body (nested blocks keep their own). */
static void block_stores(TirStmt *st, PtrVec *stores) {
  if (st->kind == TIR_S_STORE) {
    pv_push(stores, st);
    return;
  }
  if (st->kind == TIR_S_BLOCK_REALIZE) return;
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = st->kind == TIR_S_SEQ ? st->seq.stmts : kids;
  if (st->kind == TIR_S_SEQ) n = st->seq.n;
  for (int i = 0; i < n; i++) block_stores(all[i], stores);
}

/* Computations seen fewer than thresh times give their count to their
 * direct sub-computations, the most complex first (so that a computation
 * has all its parents' counts before its own turn). */
static void cand_spread(IndexCands *ic, int64_t thresh) {
  for (;;) {
    int best = -1, bc = 0;
    for (int i = 0; i < ic->exprs.len; i++) {
      int c = ic->done[i] ? 0 : expr_complexity(ic->exprs.items[i]);
      if (!ic->done[i] && c > bc) best = i, bc = c;
    }
    if (best < 0) return;
    ic->done[best] = true;
    if (ic->counts[best] >= thresh) continue;
    TirExpr *k[16];
    int n = expr_kids(ic->exprs.items[best], k, 16);
    for (int j = 0; j < n; j++) cand_collect(ic, k[j], ic->counts[best]);
  }
}

/* Post-order over e: computations seen at least thresh times equivalent to
 * a node, in that order, appended to out (once each). */
static void cand_order(IndexCands *ic, int64_t thresh, const TirExpr *e, PtrVec *out) {
  TirExpr *k[16];
  int n = expr_kids(e, k, 16);
  for (int i = 0; i < n; i++) cand_order(ic, thresh, k[i], out);
  if (e->kind == TIR_INT || e->kind == TIR_FLOAT || e->kind == TIR_STR || e->kind == TIR_VAR) return;
  const TirExpr *ne = normal_form(ic, e);
  for (int i = 0; i < ic->exprs.len; i++) {
    if (ic->counts[i] < thresh) continue;
    if (!seq_tir_expr(ic->exprs.items[i], e) && !seq_tir_expr(ic->norms.items[i], ne)) continue;
    bool seen = false;
    for (int j = 0; j < out->len; j++) seen |= out->items[j] == ic->exprs.items[i];
    if (!seen) pv_push(out, ic->exprs.items[i]);
  }
}

/* The expressions to cache, in the order their buffers are numbered. */
static void compute_index_order(IndexCands *ic, int cse_thresh, PtrVec *stores, PtrVec *order) {
  block_stores(ic->blk->body, stores);
  for (int s = 0; s < stores->len; s++) {
    const TirStmt *st = stores->items[s];
    ic->exprs.len = ic->norms.len = 0;
    cand_collect(ic, st->store.value, 1);
    for (int i = 0; i < st->store.n; i++) cand_collect(ic, st->store.idx[i], 1);
    cand_spread(ic, cse_thresh);
    cand_order(ic, cse_thresh, st->store.value, order);
  }
  /* Most complex first (stable), so that larger expressions are replaced whole. */
  for (int i = 1; i < order->len; i++)
    for (int j = i; j > 0 && expr_complexity(order->items[j]) > expr_complexity(order->items[j - 1]); j--) {
      void *t = order->items[j];
      order->items[j] = order->items[j - 1];
      order->items[j - 1] = t;
    }
}

/* Replaces the sub-expressions equivalent to `what` by `with` (outermost first). */
typedef struct ExprSwap {
  ArithCtx *norm;
  const TirExpr *what, *what_norm;
  TirExpr *with;
} ExprSwap;

static TirExpr *swap_expr_any(TirMutator *m, TirExpr *e) {
  ExprSwap *x = m->ctx;
  if (seq_tir_expr(e, x->what)) return x->with;
  if (e->dtype.code == x->what->dtype.code && e->kind != TIR_VAR && e->kind != TIR_INT && e->kind != TIR_FLOAT &&
      seq_tir_expr(arith_simplify(x->norm, e), x->what_norm))
    return x->with;
  return tir_mutate_expr_children(m, e);
}

static TirExpr *swap_expr(IrHeap *h, ArithCtx *norm, TirExpr *e, const TirExpr *what, TirExpr *with) {
  ExprSwap x = {norm, what, arith_simplify(norm, what), with};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &x;
  for (int k = 0; k < TIR_NUM_EXPR_KINDS; k++) m.expr[k] = swap_expr_any;
  TirExpr *out = tir_mutate_expr(&m, e);
  tir_mutator_free(&m);
  return out;
}

/* The target block's stores with every cached expression replaced by a
 * load of its index buffer. */
typedef struct IndexRewrite {
  ArithCtx *norm;
  PtrVec *exprs;      /* the cached expressions */
  TirExpr **loads;    /* their replacement loads */
} IndexRewrite;

static TirStmt *index_store(TirMutator *m, TirStmt *st) {
  IndexRewrite *ir = m->ctx;
  IrHeap *h = m->heap;
  TirExpr *v = st->store.value;
  TirExpr **idx = ir_memdup(h, st->store.idx, (size_t)(st->store.n ? st->store.n : 1) * sizeof *idx);
  for (int k = 0; k < ir->exprs->len; k++) {
    v = swap_expr(h, ir->norm, v, ir->exprs->items[k], ir->loads[k]);
    for (int i = 0; i < st->store.n; i++)
      idx[i] = swap_expr(h, ir->norm, idx[i], ir->exprs->items[k], ir->loads[k]);
  }
  TirStmt *out = tir_store(h, st->store.buf, v, idx, st->store.n);
  out->span = st->span;
  return out;
}

/* The items of a body (a SEQ's statements, else the statement itself). */
static TirStmt **body_items(TirStmt **body, int *n) {
  if ((*body)->kind == TIR_S_SEQ) {
    *n = (*body)->seq.n;
    return (*body)->seq.stmts;
  }
  *n = 1;
  return body;
}

/* The index buffers and their stages, one per cached expression. */
typedef struct IndexStages {
  TirStmt **stages;    /* the loops around each stage's realize */
  TirStmt **realizes;
  TirBuffer **bufs;
  TirExpr **loads;     /* the load replacing the expression in the target block */
} IndexStages;

/* The buffer `index_var_<k>` for expression e: one dimension per block
 * iter var e uses (into bvars), as large as its binding's range (ctx binds
 * the loops).  *binds_out receives the bindings, lvars the loop vars they use. */
static TirBuffer *build_index_buffer(IrHeap *h, ArithCtx *ctx, const TirStmt *realize, const TirExpr *e, int k,
                                     const char *storage_scope, PtrVec *bvars, PtrVec *lvars,
                                     TirExpr ***binds_out) {
  const TirBlock *b = tir_realize_block(realize);
  tir_expr_free_vars(e, bvars);
  TirExpr **binds = ir_alloc(h, (size_t)(bvars->len ? bvars->len : 1) * sizeof *binds);
  for (int i = 0; i < bvars->len; i++) {
    for (int it = 0; it < b->niters; it++)
      if (b->iters[it].var == bvars->items[i]) binds[i] = realize->realize.values[it];
    tir_expr_free_vars(binds[i], lvars);
  }
  char name[32];
  snprintf(name, sizeof name, "index_var_%d", k);
  TirExpr **shape = ir_alloc(h, (size_t)(bvars->len ? bvars->len : 1) * sizeof *shape);
  for (int i = 0; i < bvars->len; i++) {
    TirExpr *hi = NULL;
    if (!arith_symbolic_bounds(ctx, binds[i], NULL, &hi)) hi = b->iters[0].dom.extent; /* unreachable for bound loops */
    shape[i] = arith_simplify(ctx, tir_binary(h, TIR_ADD, hi, tir_int(h, hi->dtype, 1)));
  }
  *binds_out = binds;
  TirBuffer *buf = tir_buffer(h, name, e->dtype, shape, bvars->len, storage_scope);
  /* TVM declares the index buffers with strides [1] (a single stride, which
   * TVS represents only for one dimension). */
  if (bvars->len == 1) {
    buf->strides = ir_alloc(h, sizeof *buf->strides);
    buf->strides[0] = tir_int(h, dt_int32, 1);
    buf->nstrides = 1;
  }
  return buf;
}

/* Stage k computing expression e into is->bufs[k]: loops ax_i over the
 * loops (on bp below the scope) the bindings use, iters v_i over the
 * buffer's shape; also the load that replaces e. */
static void build_index_stage(IrHeap *h, const SchPath *bp, int scope_i, const TirExpr *e, int k,
                              const PtrVec *bvars, const PtrVec *lvars, TirExpr **binds, IndexStages *is) {
  TirBuffer *buf = is->bufs[k];
  char name[32];
  IrPtrMap lmap, bmap;
  ir_ptrmap_init(&lmap);
  ir_ptrmap_init(&bmap);
  TirVar **ax = ir_alloc(h, (size_t)(lvars->len ? lvars->len : 1) * sizeof *ax);
  TirExpr **axext = ir_alloc(h, (size_t)(lvars->len ? lvars->len : 1) * sizeof *axext);
  TirExpr **axmin = ir_alloc(h, (size_t)(lvars->len ? lvars->len : 1) * sizeof *axmin);
  for (int i = 0; i < lvars->len; i++) {
    const TirStmt *loop = NULL;
    for (int d = scope_i + 1; d < bp->n && !loop; d++)
      if (bp->s[d]->kind == TIR_S_FOR && bp->s[d]->loop.var == lvars->items[i]) loop = bp->s[d];
    snprintf(name, sizeof name, "ax%d", i);
    ax[i] = tir_var(h, name, loop ? loop->loop.var->dtype : ((TirVar *)lvars->items[i])->dtype);
    axext[i] = loop ? loop->loop.extent : tir_int(h, ax[i]->dtype, 1);
    /* (a loop may start past 0, e.g. a loop_partition piece's) */
    axmin[i] = loop ? loop->loop.min : tir_int(h, ax[i]->dtype, 0);
    ir_ptrmap_put(&lmap, lvars->items[i], tir_var_ref(h, ax[i]));
  }
  int nb = bvars->len;
  TirBlock cb = {0};
  snprintf(name, sizeof name, "index_%d", k);
  cb.name = ir_strdup(h, name);
  cb.iters = ir_alloc(h, (size_t)(nb ? nb : 1) * sizeof *cb.iters);
  TirExpr **vals = ir_alloc(h, (size_t)(nb ? nb : 1) * sizeof *vals);
  TirExpr **idx = ir_alloc(h, (size_t)(nb ? nb : 1) * sizeof *idx);
  TirExpr **uses = ir_alloc(h, (size_t)(nb ? nb : 1) * sizeof *uses);
  for (int i = 0; i < nb; i++) {
    TirVar *bv = bvars->items[i];
    snprintf(name, sizeof name, "v%d", i);
    TirVar *v = tir_var(h, name, bv->dtype);
    /* The range of its binding (TVM pairs block var i with loop var i
     * for the domain, which a fused or split binding overruns). */
    TirExpr *ext = buf->shape[i];
    TirIterVar iv = {v, {tir_int(h, bv->dtype, 0), ext}, TIR_ITER_SPATIAL};
    cb.iters[i] = iv;
    vals[i] = tir_substitute_expr(h, binds[i], &lmap);
    idx[i] = tir_var_ref(h, v);
    uses[i] = tir_var_ref(h, bv);
    ir_ptrmap_put(&bmap, bv, tir_var_ref(h, v));
  }
  cb.niters = nb;
  cb.body = tir_store(h, buf, tir_substitute_expr(h, e, &bmap), idx, nb);
  tir_infer_access_regions(h, &cb, &cb.reads, &cb.nreads, &cb.writes, &cb.nwrites);
  TirStmt *st = tir_block_realize(h, vals, nb, tir_bool(h, true), tir_block(h, &cb));
  is->realizes[k] = st;
  for (int i = lvars->len - 1; i >= 0; i--)
    st = tir_for(h, ax[i], axmin[i], axext[i], TIR_FOR_SERIAL, NULL, NULL, st);
  is->stages[k] = st;
  is->loads[k] = tir_load(h, buf, uses, nb);
  ir_ptrmap_free(&lmap);
  ir_ptrmap_free(&bmap);
}

/* The target block using the index buffers, and the stages inserted before
 * its top-level statement in the scope block, which allocates the buffers;
 * the new root. */
static TirStmt *replace_index_scope(IrHeap *h, ArithCtx *norm, const SchPath *bp, int scope_i, PtrVec *order,
                                    const IndexStages *is) {
  const TirStmt *realize = bp->s[bp->n - 1];
  const TirBlock *b = tir_realize_block(realize);
  int nb_ = order->len;
  /* The target block's accesses use the index buffers. */
  IndexRewrite irw = {norm, order, is->loads};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &irw;
  m.stmt[TIR_S_STORE] = index_store;
  TirBlock tb = *b;
  tb.body = tir_mutate_stmt(&m, b->body);
  tir_mutator_free(&m);
  /* The reads keep their regions, as TVM's; the loads of the index buffers
   * are added after them (TVM omits them, which hides the new dependences
   * from later primitives and from the verifier). */
  tb.reads = ir_alloc(h, (size_t)(b->nreads + nb_ + 1) * sizeof *tb.reads);
  if (b->nreads) memcpy(tb.reads, b->reads, (size_t)b->nreads * sizeof *tb.reads);
  for (int k = 0; k < nb_; k++) {
    const TirExpr *ld = is->loads[k];
    TirRange *r = ir_alloc(h, (size_t)(ld->load.n ? ld->load.n : 1) * sizeof *r);
    for (int d = 0; d < ld->load.n; d++) r[d].min = ld->load.idx[d], r[d].extent = tir_int(h, ld->load.idx[d]->dtype, 1);
    tb.reads[tb.nreads++] = (TirBufferRegion){is->bufs[k], r, ld->load.n};
  }
  TirStmt *nrealize = sch_realize_with(h, realize, &tb, NULL, NULL);
  /* Rebuild up to the scope block; insert the stages before the target's
   * top-level statement and allocate the index buffers there. */
  TirStmt *cur = nrealize;
  for (int d = bp->n - 2; d > scope_i; d--) cur = sch_replace_child(h, bp->s[d], bp->s[d + 1], cur);
  TirStmt *scope_blk = bp->s[scope_i];
  TirStmt *newbody = cur; /* the scope body rebuilt: same shape as the old one */
  int n;
  TirStmt **items = body_items(&newbody, &n);
  int at = 0;
  for (int i = 0; i < n; i++)
    if (sch_contains(items[i], nrealize)) at = i;
  TirStmt **nitems = ir_alloc(h, (size_t)(n + nb_) * sizeof *nitems);
  int c = 0;
  for (int i = 0; i < n; i++) {
    if (i == at)
      for (int k = 0; k < nb_; k++) nitems[c++] = is->stages[k];
    nitems[c++] = items[i];
  }
  TirStmt *body = c > 1 ? tir_seq(h, nitems, c) : nitems[0];
  TirBlock sb = scope_blk->block;
  /* (the target may sit in the scope block's init, e.g. blockize's) */
  if (scope_blk->block.init && bp->s[scope_i + 1] == scope_blk->block.init) sb.init = body;
  else sb.body = body;
  sb.allocs = ir_alloc(h, (size_t)(sb.nallocs + nb_ + 1) * sizeof *sb.allocs);
  if (scope_blk->block.nallocs) memcpy(sb.allocs, scope_blk->block.allocs, (size_t)sb.nallocs * sizeof *sb.allocs);
  for (int k = 0; k < nb_; k++) sb.allocs[sb.nallocs++] = is->bufs[k];
  TirStmt *nscope = tir_block(h, &sb);
  nscope->span = scope_blk->span;
  SchPath up = {0};
  for (int d = 0; d <= scope_i; d++) sch_path_push(&up, bp->s[d]);
  TirStmt *root = sch_replace_at(h, &up, scope_i, nscope);
  sch_path_free(&up);
  return root;
}

int sch_cache_index(Schedule *s, SchRV block, const char *storage_scope, int cse_thresh, SchRV **out) {
  const char *prim = "cache_index";
  SchPath bp = {0};
  PtrVec stores = {0}, order = {0};
  IndexCands ic = {0};
  ArithCtx *ctx = NULL, *norm = NULL;
  int rc = -1;
  *out = NULL;
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block].func;
  if (!sch_valid_storage_scope(storage_scope)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "%s: the storage scope \"%s\" is invalid", prim, storage_scope);
    goto done;
  }
  if (cse_thresh < 0) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: cse_thresh %d must not be negative", prim, cse_thresh);
    goto done;
  }
  int scope_i = sch_block_scope_index(s, prim, &bp);
  if (scope_i < 0) goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  ctx = arith_new(h);
  ic.norm = norm = arith_new(h);
  ic.blk = b;
  compute_index_order(&ic, cse_thresh, &stores, &order);
  int nb_ = order.len;
  IndexStages is;
  is.stages = ir_alloc(h, (size_t)(nb_ ? nb_ : 1) * sizeof *is.stages);
  is.realizes = ir_alloc(h, (size_t)(nb_ ? nb_ : 1) * sizeof *is.realizes);
  is.bufs = ir_alloc(h, (size_t)(nb_ ? nb_ : 1) * sizeof *is.bufs);
  is.loads = ir_alloc(h, (size_t)(nb_ ? nb_ : 1) * sizeof *is.loads);
  /* Loop ranges on the path, for the index buffers' shapes. */
  for (int d = scope_i + 1; d < bp.n; d++)
    if (bp.s[d]->kind == TIR_S_FOR) arith_bind_range(ctx, bp.s[d]->loop.var, bp.s[d]->loop.min, bp.s[d]->loop.extent);
  for (int k = 0; k < nb_; k++) {
    PtrVec bvars = {0}, lvars = {0};
    TirExpr **binds;
    is.bufs[k] = build_index_buffer(h, ctx, realize, order.items[k], k, storage_scope, &bvars, &lvars, &binds);
    build_index_stage(h, &bp, scope_i, order.items[k], k, &bvars, &lvars, binds, &is);
    pv_free(&bvars);
    pv_free(&lvars);
  }
  TirStmt *root = replace_index_scope(h, norm, &bp, scope_i, &order, &is);
  sch_commit(s, nm, func, root);
  *out = xmalloc((size_t)(nb_ ? nb_ : 1) * sizeof **out);
  for (int k = 0; k < nb_; k++) (*out)[k] = sch_block_rv(s, func, is.realizes[k]);
  SchVal args[3] = {sch_val_rv(block), sch_val_str(storage_scope), sch_val_int(cse_thresh)};
  sch_record(s, prim, args, 3, *out, nb_);
  rc = nb_;
done:
  if (ctx) arith_free(ctx);
  if (norm) arith_free(norm);
  free(ic.counts);
  free(ic.done);
  pv_free(&ic.norms);
  pv_free(&ic.exprs);
  pv_free(&stores);
  pv_free(&order);
  sch_path_free(&bp);
  return rc;
}

