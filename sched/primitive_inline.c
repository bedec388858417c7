/* primitive_inline.c - compute_inline and reverse_compute_inline.
 *
 * compute_inline substitutes a producer's single store expression into every
 * load of its buffer and removes the producer; reverse_compute_inline folds a
 * consumer into its only producer's store.  Blocks whose accesses change get
 * their read/write regions recomputed (tir_infer_access_regions), and the
 * intermediate buffer's allocation goes away once nothing uses it. */
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/structural_equal.h"
#include "sched/index_map.h"
#include "sched/sched_internal.h"

/* Is store's index list distinct iter vars of b?  Fills vars (n entries). */
static bool plain_iter_indices(const TirBlock *b, TirExpr **idx, int n, const TirVar **vars) {
  for (int i = 0; i < n; i++) {
    if (idx[i]->kind != TIR_VAR) return false;
    bool is_iter = false;
    for (int k = 0; k < b->niters; k++) is_iter |= b->iters[k].var == idx[i]->var;
    if (!is_iter) return false;
    for (int j = 0; j < i; j++)
      if (vars[j] == idx[i]->var) return false;
    vars[i] = idx[i]->var;
  }
  return true;
}

/* TVM's IsCompleteBlock (an init is checked separately where it matters). */
static bool block_is_complete(const TirBlock *b) {
  for (int k = 0; k < b->niters; k++)
    if (b->iters[k].type != TIR_ITER_SPATIAL) return false;
  for (int k = 0; k < b->nwrites; k++)
    if (sch_block_reads(b, b->writes[k].buffer)) return false;
  return true;
}

/* Whether e uses an iter var of b that is not among vars[0..n). */
static bool uses_other_iter(const TirExpr *e, const TirBlock *b, const TirVar **vars, int n) {
  for (int k = 0; k < b->niters; k++) {
    bool listed = false;
    for (int i = 0; i < n; i++) listed |= vars[i] == b->iters[k].var;
    if (!listed && tir_expr_uses_var(e, b->iters[k].var)) return true;
  }
  return false;
}

/* ------------------------------------------------- the rewriting mutator */

typedef struct InlineState {
  const TirBuffer *buf;   /* the inlined buffer */
  const TirVar **vars;    /* the producer's store index vars */
  int n;
  const TirExpr *value;   /* the producer's stored value */
  bool drop_only;         /* only drop the allocation of buf */
} InlineState;

static TirExpr *inline_load(TirMutator *m, TirExpr *e) {
  InlineState *st = m->ctx;
  TirExpr *r = tir_mutate_expr_children(m, e);
  if (st->drop_only || r->load.buf != st->buf) return r;
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int i = 0; i < st->n && i < r->load.n; i++) ir_ptrmap_put(&vmap, st->vars[i], r->load.idx[i]);
  TirExpr *v = tir_substitute_expr(m->heap, st->value, &vmap);
  ir_ptrmap_free(&vmap);
  return v;
}

static TirStmt *inline_block(TirMutator *m, TirStmt *s) {
  InlineState *st = m->ctx;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  bool reads = sch_block_reads(&s->block, st->buf) && !st->drop_only;
  int alloc_at = -1;
  for (int i = 0; i < r->block.nallocs; i++)
    if (r->block.allocs[i] == st->buf) alloc_at = i;
  if (!reads && alloc_at < 0) return r;
  TirBlock b = r->block;
  if (reads) tir_infer_access_regions(m->heap, &r->block, &b.reads, &b.nreads, &b.writes, &b.nwrites);
  if (alloc_at >= 0) {
    TirBuffer **allocs = ir_alloc(m->heap, (size_t)b.nallocs * sizeof *allocs);
    int k = 0;
    for (int i = 0; i < b.nallocs; i++)
      if (i != alloc_at) allocs[k++] = b.allocs[i];
    b.allocs = allocs;
    b.nallocs = k;
  }
  TirStmt *nb = tir_block(m->heap, &b);
  nb->span = s->span;
  return nb;
}

static TirStmt *rewrite(IrHeap *h, TirStmt *root, InlineState *st) {
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = st;
  m.expr[TIR_LOAD] = inline_load;
  m.stmt[TIR_S_BLOCK] = inline_block;
  TirStmt *r = tir_mutate_stmt(&m, root);
  tir_mutator_free(&m);
  return r;
}

/* The common checks; returns the scope's block realizes in sibs. */
static bool common_checks(Schedule *s, const char *prim, const SchPath *bp, const TirBlock *b,
                          PtrVec *sibs) {
  if (b->init) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0, "%s: block '%s' has an init statement", prim, b->name);
    return false;
  }
  int scope = sch_block_scope_index(s, prim, bp);
  if (scope < 0) return false;
  sch_scope_blocks(bp->s[scope], sibs);
  if (!sch_check_no_war(s, prim, 0, sibs, b)) return false;
  if (!block_is_complete(b)) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0, "%s: block '%s' is not a complete block", prim, b->name);
    return false;
  }
  return true;
}

/* A block other than `self` writing buf anywhere under st, or reading it
 * outside `scope` (a statement under st), else NULL. */
static const TirBlock *outside_user(const TirStmt *st, const TirStmt *self, const TirStmt *scope,
                                    const TirBuffer *buf, bool inside, bool *writes) {
  if (st == scope) inside = true;
  if (st->kind == TIR_S_BLOCK_REALIZE && st != self) {
    const TirBlock *o = tir_realize_block(st);
    bool w = false;
    for (int i = 0; i < o->nwrites; i++) w |= o->writes[i].buffer == buf;
    if (w && !sch_contains(st, self)) {
      *writes = true;
      return o;
    }
    if (!inside && sch_block_reads(o, buf) && !sch_contains(st, self)) {
      *writes = false;
      return o;
    }
  }
  TirStmt *kids[64];
  int n = sch_children((TirStmt *)st, kids, 64);
  const TirStmt *const *all = (const TirStmt *const *)kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = (const TirStmt *const *)st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) {
    const TirBlock *o = outside_user(all[i], self, scope, buf, inside, writes);
    if (o) return o;
  }
  return NULL;
}

/* A use of buf other than an element load or store: its data pointer in
 * an expression (`B.access_ptr(...)`, `B.data`) or a match_buffer view of
 * it; inlining would leave that access without a buffer (TVM's
 * OpaqueAccessError and match-buffer check). */
typedef struct OpaqueUse {
  const TirBuffer *buf;
  const TirBlock *matcher; /* the block holding a match_buffer of buf */
  bool data;               /* buf->data used as a value */
} OpaqueUse;

static bool opaque_expr(TirVisitor *v, const TirExpr *e) {
  OpaqueUse *u = v->ctx;
  if (e->kind == TIR_VAR && e->var == u->buf->data) {
    u->data = true;
    v->stop = true;
  }
  return true;
}

static bool opaque_stmt(TirVisitor *v, const TirStmt *st) {
  OpaqueUse *u = v->ctx;
  if (st->kind != TIR_S_BLOCK) return true;
  for (int i = 0; i < st->block.nmatches; i++)
    if (st->block.matches[i].source.buffer == u->buf) {
      u->matcher = &st->block;
      v->stop = true;
    }
  return true;
}

static bool check_no_opaque_access(Schedule *s, const char *prim, const TirFunc *f, const TirBuffer *buf) {
  OpaqueUse u = {buf, NULL, false};
  TirVisitor v = {0};
  v.pre_expr = opaque_expr;
  v.pre_stmt = opaque_stmt;
  v.ctx = &u;
  tir_visit_stmt(&v, f->body);
  if (u.matcher) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 0,
             "%s: block '%s' matches a buffer view of '%s' (match_buffer); a matched buffer cannot be inlined",
             prim, u.matcher->name, buf->name);
    return false;
  }
  if (u.data) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 0,
             "%s: buffer '%s' is accessed opaquely (its data pointer is used, e.g. by access_ptr), so it "
             "cannot be inlined",
             prim, buf->name);
    return false;
  }
  return true;
}

int sch_compute_inline(Schedule *s, SchRV rv) {
  const char *prim = "compute_inline";
  SchPath bp = {0};
  PtrVec sibs = {0};
  int rc = -1;
  TirStmt *realize = sch_find_block(s, rv, prim, 0, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  TirFunc *f = sch_cur_func(s, s->rvs[rv].func);
  if (b->nwrites != 1) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 0,
             "%s: block '%s' writes %d buffers; only a block writing a single buffer can be inlined",
             prim, b->name, b->nwrites);
    goto done;
  }
  if (!common_checks(s, prim, &bp, b, &sibs)) goto done;
  const TirBuffer *buf = b->writes[0].buffer;
  if (sch_is_param_buffer(f, buf)) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0,
             "%s: block '%s' is an output block (it writes the function's buffer '%s')", prim,
             b->name, buf->name);
    goto done;
  }
  if (sibs.len == 1) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0, "%s: block '%s' is the only leaf in its scope", prim, b->name);
    goto done;
  }
  {
    /* Its loads are replaced all over the function: the buffer may have no
     * other writer, nor readers outside the block's scope (e.g. a
     * loop_partition piece, whose expression may read a cache allocated in
     * the piece). */
    bool w = false;
    const TirBlock *o = outside_user(f->body, realize, bp.s[sch_scope_index(&bp, bp.n - 1)], buf,
                                     false, &w);
    if (o) {
      sch_fail(s, w ? SCH_ERR_BUFFER_ACCESS : SCH_ERR_DATAFLOW, 0,
               w ? "%s: block '%s' is not the only writer of buffer '%s' (block '%s' writes it)"
                 : "%s: block '%s' writes buffer '%s', which block '%s' reads outside its scope",
               prim, b->name, buf->name, o->name);
      goto done;
    }
  }
  if (!check_no_opaque_access(s, prim, f, buf)) goto done;
  const TirStmt *body = b->body;
  const TirVar *vars[64];
  if (body->kind != TIR_S_STORE || body->store.buf != buf || body->store.n > 64 ||
      !plain_iter_indices(b, body->store.idx, body->store.n, vars) ||
      uses_other_iter(body->store.value, b, vars, body->store.n)) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0,
             "%s: the body of block '%s' is not a single store '%s[v0, v1, ...] = expr' over "
             "distinct block iters, so it cannot be inlined",
             prim, b->name, buf->name);
    goto done;
  }
  {
    IrModule *nm = sch_begin(s);
    IrHeap *h = nm->heap;
    TirStmt *root = sch_replace_at(h, &bp, bp.n - 1, NULL);
    InlineState st = {buf, vars, body->store.n, body->store.value, false};
    root = rewrite(h, root, &st);
    sch_commit(s, nm, s->rvs[rv].func, root);
    SchVal args[1] = {sch_val_rv(rv)};
    sch_record(s, prim, args, 1, NULL, 0);
    rc = 0;
  }
done:
  pv_free(&sibs);
  sch_path_free(&bp);
  return rc;
}

/* Replaces loads of buf (whose indices are the consumer's vars) by value. */
typedef struct LoadSubst {
  const TirBuffer *buf;
  const TirExpr *value;
} LoadSubst;

static TirExpr *subst_load(TirMutator *m, TirExpr *e) {
  LoadSubst *ls = m->ctx;
  TirExpr *r = tir_mutate_expr_children(m, e);
  return r->load.buf == ls->buf ? (TirExpr *)ls->value : r;
}

/* Collects the loads of buf in value into loads (an explicit walk); false on
 * a vector or let expression, which reverse inlining does not handle. */
static bool collect_buffer_loads(const TirExpr *value, const TirBuffer *buf, PtrVec *loads) {
  bool ok = true;
  PtrVec stack = {0};
  pv_push(&stack, (void *)value);
  while (stack.len) {
    const TirExpr *e = stack.items[--stack.len];
    if (e->kind == TIR_LOAD && e->load.buf == buf) pv_push(loads, (void *)e);
    switch (e->kind) {
      case TIR_LOAD: for (int i = 0; i < e->load.n; i++) pv_push(&stack, e->load.idx[i]); break;
      case TIR_NOT: case TIR_CAST: pv_push(&stack, e->un.a); break;
      case TIR_SELECT: pv_push(&stack, e->sel.cond); pv_push(&stack, e->sel.t); pv_push(&stack, e->sel.f); break;
      case TIR_CALL: for (int i = 0; i < e->call.n; i++) pv_push(&stack, e->call.args[i]); break;
      case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: break;
      case TIR_RAMP: case TIR_BROADCAST: case TIR_LET: ok = false; break;
      default: pv_push(&stack, e->bin.a); pv_push(&stack, e->bin.b); break;
    }
  }
  pv_free(&stack);
  return ok;
}

/* The consumer's only producer of buf, once it is a complete block whose
 * only consumer is b, writes no parameter and has a trivial predicate
 * (NULL + error otherwise). */
static TirStmt *check_single_producer(Schedule *s, const char *prim, const TirFunc *f,
                                      const TirBlock *b, const PtrVec *sibs, const TirBuffer *buf) {
  TirStmt *producer = NULL;
  int nprod = 0;
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *o = tir_realize_block(sibs->items[i]);
    if (o != b && sch_block_writes(o, buf)) producer = sibs->items[i], nprod++;
  }
  const TirBlock *pb = producer ? tir_realize_block(producer) : NULL;
  int nconsumers = 0;
  for (int i = 0; pb && i < sibs->len; i++)
    if (tir_realize_block(sibs->items[i]) != pb && sch_block_reads(tir_realize_block(sibs->items[i]), buf))
      nconsumers++;
  if (nprod != 1 || !block_is_complete(pb) || nconsumers != 1) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0,
             "%s: block '%s' must have a single producer block, and that producer must be a "
             "complete block whose only consumer is '%s'",
             prim, b->name, b->name);
    return NULL;
  }
  if (sch_is_param_buffer(f, buf)) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0, "%s: the producer block '%s' is an output block", prim,
             pb->name);
    return NULL;
  }
  return producer;
}

/* The producer now runs the consumer's computation at each point it
 * produces: where it produces more than the consumer reads (e.g. a
 * padded buffer copied back by its consumer), the points outside the
 * consumer's iter domains are skipped by a predicate (TVM's inlined
 * consumer predicate), else they would be stored out of bounds.  Returns
 * that predicate over the producer's loops (NULL when none is needed). */
static TirExpr *compute_inlined_predicate(IrHeap *h, const TirStmt *producer, const TirBlock *b,
                                          const IrPtrMap *vmap) {
  const TirBlock *pb = tir_realize_block(producer);
  TirExpr *ipred = NULL;
  ArithCtx *pc = arith_new(h);
  for (int i = 0; i < pb->niters; i++)
    arith_bind_range(pc, pb->iters[i].var, pb->iters[i].dom.min, pb->iters[i].dom.extent);
  IrPtrMap to_loops;
  ir_ptrmap_init(&to_loops);
  for (int i = 0; i < pb->niters && i < producer->realize.n; i++)
    ir_ptrmap_put(&to_loops, pb->iters[i].var, producer->realize.values[i]);
  for (int k = 0; k < b->niters; k++) {
    const TirIterVar *cv = &b->iters[k];
    TirExpr *e = ir_ptrmap_get(vmap, cv->var);
    if (!e) continue;
    TirExpr *lo = tir_binary(h, TIR_GE, e, cv->dom.min);
    TirExpr *hi = tir_binary(h, TIR_LT, e, tir_binary(h, TIR_ADD, cv->dom.min, cv->dom.extent));
    TirExpr *conds[2] = {lo, hi};
    for (int c = 0; c < 2; c++) {
      if (arith_prove(pc, conds[c])) continue;
      TirExpr *x = arith_simplify(pc, tir_substitute_expr(h, conds[c], &to_loops));
      ipred = ipred ? tir_binary(h, TIR_AND, ipred, x) : x;
    }
  }
  ir_ptrmap_free(&to_loops);
  arith_free(pc);
  return ipred;
}

/* The consumer's store at the producer's points: value' = g(pval) with
 * u := the producer's store indices. */
static TirStmt *build_inlined_store(IrHeap *h, const TirBlock *b, const TirStmt *pbody,
                                    const TirBuffer *buf, const IrPtrMap *vmap) {
  const TirStmt *cbody = b->body;
  TirExpr **idx = ir_alloc(h, (size_t)(cbody->store.n ? cbody->store.n : 1) * sizeof *idx);
  for (int i = 0; i < cbody->store.n; i++) idx[i] = tir_substitute_expr(h, cbody->store.idx[i], vmap);
  /* the producer's own loads of buf (a reduction's accumulator) now load
   * what the consumer stores there (TVM's RecursionResolver) */
  TirMutator m;
  tir_mutator_init(&m, h);
  LoadSubst ls = {buf, tir_load(h, cbody->store.buf, idx, cbody->store.n)};
  m.ctx = &ls;
  m.expr[TIR_LOAD] = subst_load;
  TirExpr *prhs = tir_mutate_expr(&m, pbody->store.value);
  ls.value = prhs;
  TirExpr *val = tir_substitute_expr(h, cbody->store.value, vmap);
  val = tir_mutate_expr(&m, val);
  tir_mutator_free(&m);
  TirStmt *store = tir_store(h, cbody->store.buf, val, idx, cbody->store.n);
  store->span = pbody->span;
  return store;
}

typedef struct PointEnv {
  const TirVar *const *vars;
  int n;
  int64_t val[16];
} PointEnv;

static bool point_lookup(void *ctx, const TirVar *v, int64_t *out) {
  PointEnv *pe = ctx;
  for (int k = 0; k < pe->n; k++)
    if (pe->vars[k] == v) return *out = pe->val[k], true;
  return false;
}

/* x // c % e in TVM's inverse form: no division by 1, no modulo at the top. */
static TirExpr *radix_digit(IrHeap *h, TirExpr *f, int64_t c, int64_t e, bool top) {
  DType t = f->dtype;
  if (c != 1) f = tir_binary(h, TIR_FLOORDIV, f, tir_int(h, t, c));
  return top ? f : tir_binary(h, TIR_FLOORMOD, f, tir_int(h, t, e));
}

/* lin (over vars, extents ext) is exactly sum(coeff[k] * x_k) with the
 * coefficients the mixed radix of the extents covering [0, total) (checked on
 * every point, or a stride of them for big boxes); then x_k is the digit
 * F // coeff % ext of F (the producer's index there), as TVM's
 * InverseAffineIterMap writes it.  Fills vmap; false otherwise. */
static bool radix_inverse(IrHeap *h, const TirVar *const *vars, const int64_t *ext, int n,
                          const TirExpr *lin, TirExpr *F, int64_t total, IrPtrMap *vmap) {
  PointEnv pe = {vars, n, {0}};
  int64_t coeff[16], base;
  if (!arith_eval_int(lin, point_lookup, &pe, &base) || base != 0) return false;
  for (int k = 0; k < n; k++) {
    pe.val[k] = 1;
    if (!arith_eval_int(lin, point_lookup, &pe, &coeff[k])) return false;
    pe.val[k] = 0;
  }
  int64_t npts = 1;
  for (int k = 0; k < n; k++) npts *= ext[k];
  int64_t step = npts > 65536 ? npts / 65536 + 1 : 1;
  for (int64_t q = 0; q < npts; q += step) {
    int64_t r = q, want = 0, got;
    for (int k = n - 1; k >= 0; k--) pe.val[k] = r % ext[k], r /= ext[k], want += coeff[k] * pe.val[k];
    if (!arith_eval_int(lin, point_lookup, &pe, &got) || got != want) return false;
  }
  int64_t need = 1;
  for (int seen = 0; seen < n; seen++) {
    int k = 0;
    while (k < n && coeff[k] != need) k++;
    if (k == n) return false;
    need *= ext[k];
  }
  if (need != total) return false;
  for (int k = 0; k < n; k++)
    ir_ptrmap_put(vmap, vars[k], radix_digit(h, F, coeff[k], ext[k], coeff[k] * ext[k] == total));
  return true;
}

/* Each load index a fusion of its own iters (B[i * 16 + j, k]): each inverted
 * alone; iters shared between indices (B[f // 128, f % 128]): the row-major
 * linear index inverted as one, f = P1 + P0 * 128.  Unit iters the loads do
 * not use take their minimum (TVM's default). */
static bool digits_inverse(IrHeap *h, const TirBlock *b, const TirExpr *ld, const TirStmt *pbody,
                           IrPtrMap *vmap) {
  int n = b->niters, nd = ld->load.n;
  if (n > 16 || nd > 16 || nd != pbody->store.n) return false;
  int64_t st[16], shp[16], total = 1, ext[16];
  int owner[16];
  bool shared = false;
  for (int j = nd - 1; j >= 0; j--) {
    if (!tir_is_const_int(ld->load.buf->shape[j], &shp[j]) || shp[j] <= 0) return false;
    st[j] = total;
    total *= shp[j];
  }
  for (int k = 0; k < n; k++) {
    int64_t lo;
    if (!tir_is_const_int(b->iters[k].dom.min, &lo) || lo != 0 ||
        !tir_is_const_int(b->iters[k].dom.extent, &ext[k]))
      return false;
    owner[k] = -1;
    for (int j = 0; j < nd; j++) {
      if (!tir_expr_uses_var(ld->load.idx[j], b->iters[k].var)) continue;
      if (owner[k] >= 0) shared = true;
      owner[k] = j;
    }
    if (owner[k] < 0) {
      if (ext[k] != 1) return false;
      ir_ptrmap_put(vmap, b->iters[k].var, b->iters[k].dom.min);
    }
  }
  const TirVar *vars[16];
  int64_t ve[16];
  if (shared) {
    TirExpr *lin = NULL, *F = pbody->store.idx[nd - 1];
    for (int j = 0; j < nd; j++) {
      TirExpr *t = ld->load.idx[j];
      if (st[j] != 1) t = tir_binary(h, TIR_MUL, t, tir_int(h, t->dtype, st[j]));
      lin = lin ? tir_binary(h, TIR_ADD, lin, t) : t;
    }
    for (int j = nd - 2; j >= 0; j--)
      F = tir_binary(h, TIR_ADD, F, tir_binary(h, TIR_MUL, pbody->store.idx[j], tir_int(h, F->dtype, st[j])));
    int m = 0;
    for (int k = 0; k < n; k++)
      if (owner[k] >= 0) vars[m] = b->iters[k].var, ve[m++] = ext[k];
    return radix_inverse(h, vars, ve, m, lin, F, total, vmap);
  }
  for (int j = 0; j < nd; j++) {
    int m = 0;
    for (int k = 0; k < n; k++)
      if (owner[k] == j) vars[m] = b->iters[k].var, ve[m++] = ext[k];
    if (!radix_inverse(h, vars, ve, m, ld->load.idx[j], pbody->store.idx[j], shp[j], vmap)) return false;
  }
  return true;
}

/* TVM's affine reverse inlining: the consumer loads buf at one list of
 * indices that is a bijective quasi-affine map of its iters (B[f // 128,
 * f % 128] with f fusing them); its inverse, applied to the producer's store
 * indices, gives each consumer iter at the producer's points.  Fills vmap
 * (consumer iter -> expression over the producer's iters); false otherwise. */
static bool affine_consumer_map(IrHeap *h, const TirBlock *b, const TirBlock *pb,
                                const TirBuffer *buf, IrPtrMap *vmap) {
  const TirStmt *pbody = pb->body;
  PtrVec loads = {0};
  const TirStmt *cbody = b->body;
  bool ok = cbody->kind == TIR_S_STORE && pbody->kind == TIR_S_STORE && pbody->store.buf == buf &&
            cbody->store.buf != buf && collect_buffer_loads(cbody->store.value, buf, &loads) &&
            loads.len > 0;
  const TirExpr *first = ok ? loads.items[0] : NULL;
  for (int i = 1; ok && i < loads.len; i++) {
    const TirExpr *ld = loads.items[i];
    for (int k = 0; k < ld->load.n; k++) ok &= seq_tir_expr(ld->load.idx[k], first->load.idx[k]);
  }
  pv_free(&loads);
  const TirVar *pv[64];
  if (!ok || b->niters == 0 || b->niters > 64 || pbody->store.n > 64 ||
      !plain_iter_indices(pb, pbody->store.idx, pbody->store.n, pv))
    return false;
  if (digits_inverse(h, b, first, pbody, vmap)) return true;
  ir_ptrmap_clear(vmap);
  SchIndexMap m = {0};
  m.nsrc = b->niters;
  m.src = ir_alloc(h, (size_t)m.nsrc * sizeof *m.src);
  TirExpr **ext = ir_alloc(h, (size_t)m.nsrc * sizeof *ext);
  int64_t lo;
  for (int k = 0; k < b->niters; k++) {
    if (!tir_is_const_int(b->iters[k].dom.min, &lo) || lo != 0) return false;
    m.src[k] = b->iters[k].var;
    ext[k] = b->iters[k].dom.extent;
  }
  m.ndst = first->load.n;
  m.dst = first->load.idx;
  SchIndexMap inv;
  const char *why = NULL;
  if (!sch_index_map_inverse(h, &m, ext, NULL, &inv, NULL, &why) || inv.ndst != b->niters ||
      inv.nsrc != pbody->store.n)
    return false;
  IrPtrMap to_prod;
  ir_ptrmap_init(&to_prod);
  for (int j = 0; j < inv.nsrc; j++) ir_ptrmap_put(&to_prod, inv.src[j], pbody->store.idx[j]);
  for (int k = 0; k < b->niters; k++)
    ir_ptrmap_put(vmap, b->iters[k].var, tir_substitute_expr(h, inv.dst[k], &to_prod));
  ir_ptrmap_free(&to_prod);
  return true;
}

/* The consumer's iters at the producer's points (TVM's
 * ReverseComputeInliner): its body a single store whose loads of buf share
 * one list of indices, inverted at the producer's store indices; every
 * consumer iter must stay within what the producer covers.  Fills vmap;
 * returns 0, 1 (body pattern) or 2 (not covered). */
static int consumer_inverse(IrHeap *h, const TirBlock *b, const TirStmt *producer,
                            const TirBuffer *buf, IrPtrMap *vmap) {
  const TirBlock *pb = tir_realize_block(producer);
  const TirStmt *pbody = pb->body, *cbody = b->body;
  PtrVec loads = {0};
  bool ok = cbody->kind == TIR_S_STORE && pbody->kind == TIR_S_STORE && pbody->store.buf == buf &&
            cbody->store.buf != buf && collect_buffer_loads(cbody->store.value, buf, &loads) &&
            loads.len > 0;
  if (ok && pb->init)
    ok = pb->init->kind == TIR_S_STORE && pb->init->store.buf == buf;
  for (int i = 0; ok && i < cbody->store.n; i++) {
    PtrVec il = {0};
    ok = collect_buffer_loads(cbody->store.idx[i], buf, &il) && il.len == 0;
    pv_free(&il);
  }
  const TirExpr *first = ok ? loads.items[0] : NULL;
  for (int i = 1; ok && i < loads.len; i++) {
    const TirExpr *ld = loads.items[i];
    for (int k = 0; k < ld->load.n; k++) ok &= seq_tir_expr(ld->load.idx[k], first->load.idx[k]);
  }
  pv_free(&loads);
  if (!ok) return 1;
  if (!sch_inverse_load_indices(h, b, first->load.idx, first->load.n, pbody->store.idx, vmap) &&
      !affine_consumer_map(h, b, pb, buf, vmap))
    return 1;
  /* TVM's CheckConsumerCovered */
  ArithCtx *ac = arith_new(h);
  for (int i = 0; i < pb->niters; i++)
    arith_bind_range(ac, pb->iters[i].var, pb->iters[i].dom.min, pb->iters[i].dom.extent);
  int bad = 0;
  for (int k = 0; k < b->niters && !bad; k++) {
    TirExpr *e = ir_ptrmap_get(vmap, b->iters[k].var);
    int64_t lo, hi, dmin, dext;
    if (!e) { bad = 2; break; }
    if (!arith_const_bounds(ac, e, &lo, &hi) || !tir_is_const_int(b->iters[k].dom.min, &dmin) ||
        !tir_is_const_int(b->iters[k].dom.extent, &dext))
      continue;
    if (lo > dmin || hi < dmin + dext - 1) bad = 2;
  }
  arith_free(ac);
  return bad;
}

/* The producer, its body now the consumer's computation, replaces the
 * producer; the consumer goes, and so does buf's allocation.  Returns the
 * new root. */
static TirStmt *replace_producer_and_consumer(IrHeap *h, TirStmt *fbody, TirStmt *producer,
                                              TirStmt *realize, TirStmt *store, TirStmt *init,
                                              TirExpr *ipred,
                                              const TirBuffer *buf, SchPath *pp, SchPath *cp) {
  TirBlock nb = *tir_realize_block(producer);
  nb.body = store;
  if (init) nb.init = init;
  tir_infer_access_regions(h, &nb, &nb.reads, &nb.nreads, &nb.writes, &nb.nwrites);
  TirStmt *nr = sch_realize_with(h, producer, &nb, NULL, ipred);
  if (!sch_path_to_realize(fbody, producer->realize.block, pp)) tvs_unreachable();
  TirStmt *root = sch_replace_at(h, pp, pp->n - 1, nr);
  if (!sch_path_to_realize(root, realize->realize.block, cp)) tvs_unreachable();
  root = sch_replace_at(h, cp, cp->n - 1, NULL);
  InlineState st = {buf, NULL, 0, NULL, true};
  return rewrite(h, root, &st);
}

/* The only buffer b reads that a block of its scope (sibs) writes, or NULL
 * when none or several are. */
static const TirBuffer *scope_single_read(const TirBlock *b, const PtrVec *sibs) {
  const TirBuffer *found = NULL;
  for (int r = 0; r < b->nreads; r++) {
    const TirBuffer *buf = b->reads[r].buffer;
    if (buf == found) continue;
    bool written = false;
    for (int i = 0; i < sibs->len && !written; i++) {
      const TirBlock *o = tir_realize_block(sibs->items[i]);
      written = o != b && sch_block_writes(o, buf);
    }
    if (!written) continue;
    if (found) return NULL;
    found = buf;
  }
  return found;
}

int sch_reverse_compute_inline(Schedule *s, SchRV rv) {
  const char *prim = "reverse_compute_inline";
  SchPath bp = {0}, pp = {0}, cp = {0};
  PtrVec sibs = {0};
  int rc = -1;
  TirStmt *realize = sch_find_block(s, rv, prim, 0, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  TirFunc *f = sch_cur_func(s, s->rvs[rv].func);
  if (b->init) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0, "%s: block '%s' has an init statement", prim, b->name);
    goto done;
  }
  if (!common_checks(s, prim, &bp, b, &sibs)) goto done;
  /* as TVM's GetSingleRead: of the buffers the block reads, exactly one may
   * be written in its scope (the producer's); others (weights, a bias) are
   * read as they are */
  const TirBuffer *buf = scope_single_read(b, &sibs);
  if (!buf) {
    sch_fail(s, SCH_ERR_BUFFER_ACCESS, 0,
             "%s: block '%s' must read exactly one buffer written in its scope to be reverse-inlined",
             prim, b->name);
    goto done;
  }
  TirStmt *producer = check_single_producer(s, prim, f, b, &sibs, buf);
  if (!producer || !check_no_opaque_access(s, prim, f, buf)) goto done;
  const TirBlock *pb = tir_realize_block(producer);
  const TirStmt *pbody = pb->body;
  IrModule *nm = sch_begin(s);
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  int why = consumer_inverse(nm->heap, b, producer, buf, &vmap);
  if (!why && !sch_is_trivial_pred(realize->realize.pred)) why = 3;
  if (why) {
    ir_ptrmap_free(&vmap);
    ir_module_free(nm);
    if (why == 1)
      sch_fail(s, SCH_ERR_BODY_PATTERN, 0,
               "%s: the body of block '%s' is not a single store whose loads of '%s' are one "
               "bijective affine map of its iters, so it cannot be reverse-inlined",
               prim, b->name, buf->name);
    else if (why == 2)
      sch_fail(s, SCH_ERR_BODY_PATTERN, 0,
               "%s: the iters of block '%s' range wider than the points block '%s' produces",
               prim, b->name, pb->name);
    else
      sch_fail(s, SCH_ERR_BODY_PATTERN, 0, "%s: the consumer block '%s' has a non-trivial predicate",
               prim, b->name);
    goto done;
  }
  {
    IrHeap *h = nm->heap;
    TirExpr *ipred = compute_inlined_predicate(h, producer, b, &vmap);
    TirStmt *store = build_inlined_store(h, b, pbody, buf, &vmap);
    TirStmt *init = pb->init ? build_inlined_store(h, b, pb->init, buf, &vmap) : NULL;
    ir_ptrmap_free(&vmap);
    TirFunc *fn = sch_cur_func(s, s->rvs[rv].func);
    TirStmt *root =
        replace_producer_and_consumer(h, fn->body, producer, realize, store, init, ipred, buf, &pp,
                                      &cp);
    sch_commit(s, nm, s->rvs[rv].func, root);
    SchVal args[1] = {sch_val_rv(rv)};
    sch_record(s, prim, args, 1, NULL, 0);
    rc = 0;
  }
done:
  pv_free(&sibs);
  sch_path_free(&bp);
  sch_path_free(&pp);
  sch_path_free(&cp);
  return rc;
}
