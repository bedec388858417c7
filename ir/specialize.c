/* specialize.c - PrimFunc specialization: substitute a template's size and
 * attribute vars, then simplify knowing every loop and block-iter range (see
 * specialize.h).  Two mutators: one substitutes (buffers are rebuilt and
 * re-mapped by the mutator's default), one simplifies bottom-up. */
#include "ir/specialize.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/arith.h"
#include "ir/mutate.h"
#include "base/util.h"

/* ------------------------------------------------------------ substitution */

static TirExpr *subst_var(TirMutator *m, TirExpr *e) {
  const IrPtrMap *vmap = m->ctx;
  TirExpr *v = ir_ptrmap_has(vmap, e->var) ? ir_ptrmap_get(vmap, e->var) : NULL;
  if (!v) return e;
  /* a value of another integer width (an int32 constant for an int64 var) */
  if (!dt_eq(v->dtype, e->dtype)) {
    int64_t c;
    v = tir_is_const_int(v, &c) ? tir_int(m->heap, e->dtype, c) : tir_cast(m->heap, e->dtype, v);
  }
  return v;
}

/* ------------------------------------------------------------ simplify */

static bool const_cond(const TirExpr *e, bool *val) {
  int64_t v;
  if (!e || !tir_is_const_int(e, &v)) return false;
  *val = v != 0;
  return true;
}

/* A conjunct that always holds drops out of an `and`; a false one decides it. */
static TirExpr *fold_and(IrHeap *h, TirExpr *e) {
  if (e->kind != TIR_AND) return e;
  bool a, b;
  bool ka = const_cond(e->bin.a, &a), kb = const_cond(e->bin.b, &b);
  if ((ka && !a) || (kb && !b)) return tir_bool(h, false);
  if (ka) return e->bin.b;
  if (kb) return e->bin.a;
  return e;
}

/* Nodes in e (the simplifier's canonical sum-of-products form can be much
 * larger than a product of sums: TOPI's window counts). */
static int expr_size(const TirExpr *e) {
  if (!e) return 0;
  switch (e->kind) {
  case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return 1;
  case TIR_NOT: case TIR_CAST: return 1 + expr_size(e->un.a);
  case TIR_SELECT: return 1 + expr_size(e->sel.cond) + expr_size(e->sel.t) + expr_size(e->sel.f);
  case TIR_LOAD: case TIR_CALL: case TIR_RAMP: case TIR_BROADCAST: case TIR_LET: return 8;
  default: return 1 + expr_size(e->bin.a) + expr_size(e->bin.b);
  }
}

/* A value read from memory (data, not an index: kept as written). */
static bool reads_memory(const TirExpr *e) {
  if (!e) return false;
  switch (e->kind) {
  case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return false;
  case TIR_LOAD: return true;
  case TIR_NOT: case TIR_CAST: return reads_memory(e->un.a);
  case TIR_SELECT: return reads_memory(e->sel.cond) || reads_memory(e->sel.t) || reads_memory(e->sel.f);
  case TIR_CALL:
    for (int i = 0; i < e->call.n; i++)
      if (reads_memory(e->call.args[i])) return true;
    return false;
  case TIR_RAMP: case TIR_BROADCAST: case TIR_LET: return true;
  default: return reads_memory(e->bin.a) || reads_memory(e->bin.b);
  }
}

static TirExpr *sp_expr(TirMutator *m, TirExpr *e) {
  ArithCtx *a = m->ctx;
  TirExpr *r = tir_mutate_expr_children(m, e);
  bool c;
  if (r->kind == TIR_SELECT && const_cond(r->sel.cond, &c)) return c ? r->sel.t : r->sel.f;
  if (r->kind == TIR_CALL && r->call.op && r->call.op->id == TIR_OP_IF_THEN_ELSE && r->call.n == 3 &&
      const_cond(r->call.args[0], &c))
    return c ? r->call.args[1] : r->call.args[2];
  if (r->dtype.lanes != 1 || r->kind == TIR_CALL || reads_memory(r)) return r;
  TirExpr *s = arith_simplify(a, r);
  /* a condition keeps its written form (`1 <= v`, as TOPI writes it) unless it folds */
  if (s && dt_is_bool(r->dtype) && !const_cond(s, &c)) s = NULL;
  if (s && expr_size(s) > expr_size(r)) s = NULL;
  if (s) r = s;
  return fold_and(m->heap, r);
}

static TirStmt *sp_for(TirMutator *m, TirStmt *s) {
  ArithCtx *a = m->ctx;
  TirExpr *mn = tir_mutate_expr(m, s->loop.min), *ex = tir_mutate_expr(m, s->loop.extent);
  arith_push(a);
  arith_bind_range(a, s->loop.var, mn, ex);
  TirStmt *body = tir_mutate_stmt(m, s->loop.body);
  arith_pop(a);
  if (mn == s->loop.min && ex == s->loop.extent && body == s->loop.body) return s;
  TirStmt *c = tir_stmt_with_span(m->heap, s, s->span);
  c->loop.min = mn;
  c->loop.extent = ex;
  c->loop.body = body;
  return c;
}

/* Iter ranges are known inside; the access regions are inferred again from
 * the simplified body (TVM's regions come from the specialized computation). */
static TirStmt *sp_block(TirMutator *m, TirStmt *s) {
  ArithCtx *a = m->ctx;
  arith_push(a);
  for (int i = 0; i < s->block.niters; i++) {
    const TirIterVar *iv = &s->block.iters[i];
    arith_bind_range(a, iv->var, tir_mutate_expr(m, iv->dom.min), tir_mutate_expr(m, iv->dom.extent));
  }
  TirStmt *r = tir_mutate_stmt_children(m, s);
  arith_pop(a);
  if (r == s || s->block.niters == 0) return r;
  TirBlock blk = r->block;
  tir_infer_access_regions(m->heap, &blk, &blk.reads, &blk.nreads, &blk.writes, &blk.nwrites);
  return tir_stmt_with_span(m->heap, tir_block(m->heap, &blk), s->span);
}

TirFunc *tir_specialize(IrHeap *h, const TirFunc *f, TirVar *const *vars, TirExpr *const *values, int n) {
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int i = 0; i < n; i++) ir_ptrmap_put(&vmap, vars[i], values[i]);
  TirMutator sub;
  tir_mutator_init(&sub, h);
  sub.expr[TIR_VAR] = subst_var;
  sub.ctx = &vmap;
  TirFunc *g = tir_mutate_func(&sub, (TirFunc *)f);
  tir_mutator_free(&sub);
  ir_ptrmap_free(&vmap);

  TirMutator simp;
  tir_mutator_init(&simp, h);
  ArithCtx *a = arith_new(h);
  for (int k = 0; k < TIR_NUM_EXPR_KINDS; k++) simp.expr[k] = sp_expr;
  simp.stmt[TIR_S_FOR] = sp_for;
  simp.stmt[TIR_S_BLOCK] = sp_block;
  simp.ctx = a;
  g = tir_mutate_func(&simp, g);
  tir_mutator_free(&simp);
  arith_free(a);
  return g;
}

/* ------------------------------------------------------------ copy blocks */

/* The block under a nest of loops (through its realize), or NULL. */
static const TirStmt *nest_block(const TirStmt *s) {
  while (s && s->kind == TIR_S_FOR) s = s->loop.body;
  return s && s->kind == TIR_S_BLOCK_REALIZE ? s->realize.block : NULL;
}

/* X[v...] = A[v...] with the block's own iters in order, X of A's shape. */
static bool is_copy(const TirBlock *b, TirBuffer **dst, TirBuffer **src) {
  const TirStmt *st = b->body;
  if (b->init || !st || st->kind != TIR_S_STORE || st->store.value->kind != TIR_LOAD) return false;
  const TirExpr *ld = st->store.value;
  if (st->store.n != b->niters || ld->load.n != b->niters) return false;
  if (ld->load.buf->ndim != st->store.buf->ndim) return false;
  for (int i = 0; i < b->niters; i++) {
    const TirExpr *x = st->store.idx[i], *y = ld->load.idx[i];
    if (x->kind != TIR_VAR || y->kind != TIR_VAR || x->var != b->iters[i].var || y->var != x->var) return false;
  }
  *dst = st->store.buf;
  *src = ld->load.buf;
  return true;
}

static TirBuffer *swap_buffer(TirMutator *m, TirBuffer *b) {
  TirBuffer **pair = m->ctx;
  return b == pair[0] ? pair[1] : NULL;
}

TirFunc *tir_inline_copy_block(IrHeap *h, const TirFunc *f, const char *name) {
  const TirStmt *rr = f->body;
  if (!rr || rr->kind != TIR_S_BLOCK_REALIZE) return (TirFunc *)f;
  const TirBlock *root = &rr->realize.block->block;
  const TirStmt *body = root->body;
  int n = body->kind == TIR_S_SEQ ? body->seq.n : 1;
  TirStmt *const *items = body->kind == TIR_S_SEQ ? body->seq.stmts : (TirStmt *const *)&root->body;
  TirBuffer *pair[2] = {NULL, NULL};
  int at = -1;
  for (int i = 0; i < n && at < 0; i++) {
    const TirStmt *b = nest_block(items[i]);
    if (b && !strcmp(b->block.name, name) && is_copy(&b->block, &pair[0], &pair[1])) at = i;
  }
  if (at < 0 || n < 2) return (TirFunc *)f;
  TirStmt **rest = xcalloc((size_t)n, sizeof *rest);
  TirBuffer **allocs = xcalloc((size_t)(root->nallocs + 1), sizeof *allocs);
  int k = 0, na = 0;
  for (int i = 0; i < n; i++)
    if (i != at) rest[k++] = items[i];
  for (int i = 0; i < root->nallocs; i++)
    if (root->allocs[i] != pair[0]) allocs[na++] = root->allocs[i];
  TirBlock nb = *root;
  nb.body = k == 1 ? rest[0] : tir_seq(h, rest, k);
  nb.allocs = ir_memdup(h, allocs, (size_t)(na + 1) * sizeof *allocs);
  nb.nallocs = na;
  free(rest);
  free(allocs);
  TirStmt *nr = tir_stmt_with_span(h, rr, rr->span);
  nr->realize.block = tir_stmt_with_span(h, tir_block(h, &nb), rr->realize.block->span);
  TirMutator m;
  tir_mutator_init(&m, h);
  m.buffer = swap_buffer;
  m.ctx = pair;
  TirStmt *nbody = tir_mutate_stmt(&m, nr);
  tir_mutator_free(&m);
  TirFunc *g = ir_memdup(h, f, sizeof *f);
  g->body = nbody;
  return g;
}

/* ------------------------------------------------------------ retype */

typedef struct Retype {
  DType to;
  const TirBuffer *only; /* retype this buffer only (the output), or NULL: every float32 one */
  IrPtrMap bufs;         /* retyped buffer -> its copy */
} Retype;

static TirBuffer *rt_buffer(TirMutator *m, TirBuffer *b) {
  Retype *r = m->ctx;
  if (r->only ? b != r->only : !dt_eq(b->dtype, dt_float32)) return NULL;
  if (ir_ptrmap_has(&r->bufs, b)) return ir_ptrmap_get(&r->bufs, b);
  TirBuffer *nb = tir_buffer_copy(m->heap, b);
  nb->dtype = r->to;
  ir_ptrmap_put(&r->bufs, b, nb);
  return nb;
}

/* A float32 literal in dtype t; float32's limits (a max pool's padding and
 * init) become t's. */
static TirExpr *rt_literal(IrHeap *h, double v, DType t) {
  bool lim = v >= FLT_MAX || v <= -FLT_MAX;
  if (dt_is_float(t)) {
    double mx = t.bits == 64 ? DBL_MAX : t.bits == 16 ? (t.code == DT_BFLOAT ? 3.3895313892515355e+38 : 65504.0) : FLT_MAX;
    return tir_float(h, t, lim ? (v > 0 ? mx : -mx) : v);
  }
  int64_t hi = dt_is_uint(t) ? (t.bits >= 63 ? INT64_MAX : (int64_t)((1ULL << t.bits) - 1))
                             : (t.bits >= 64 ? INT64_MAX : (int64_t)((1ULL << (t.bits - 1)) - 1));
  int64_t lo = dt_is_uint(t) ? 0 : -hi - 1;
  return tir_int(h, t, lim ? (v > 0 ? hi : lo) : (int64_t)v);
}

/* A float32 value in dtype to: literals converted, other nodes retyped (their
 * children already are). */
static TirExpr *rt_node(IrHeap *h, TirExpr *c, DType to) {
  if (c->kind == TIR_FLOAT) return rt_literal(h, c->fval, to);
  TirExpr *n = ir_memdup(h, c, sizeof *c);
  n->dtype = to;
  return n;
}

static TirExpr *rt_expr(TirMutator *m, TirExpr *e) {
  Retype *r = m->ctx;
  TirExpr *c = tir_mutate_expr_children(m, e);
  return dt_eq(c->dtype, dt_float32) && !r->only ? rt_node(m->heap, c, r->to) : c;
}

TirFunc *tir_retype(IrHeap *h, const TirFunc *f, DType to) {
  if (dt_eq(to, dt_float32)) return (TirFunc *)f;
  Retype r = {to, NULL, {0}};
  ir_ptrmap_init(&r.bufs);
  TirMutator m;
  tir_mutator_init(&m, h);
  for (int k = 0; k < TIR_NUM_EXPR_KINDS; k++) m.expr[k] = rt_expr;
  m.buffer = rt_buffer;
  m.ctx = &r;
  TirFunc *g = tir_mutate_func(&m, (TirFunc *)f);
  tir_mutator_free(&m);
  ir_ptrmap_free(&r.bufs);
  return g;
}

/* The value stored into the output, computed in dtype `to`: loads of other
 * buffers cast (TOPI's T.Cast(out_dtype, x) * T.Cast(out_dtype, w)). */
static TirExpr *out_value(IrHeap *h, TirExpr *e, DType to) {
  if (e->dtype.lanes != 1) return e;
  switch (e->kind) {
  case TIR_INT: return dt_is_float(to) ? e : tir_int(h, to, e->ival);
  case TIR_FLOAT: return rt_literal(h, e->fval, to);
  case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_DIV: case TIR_MIN: case TIR_MAX: {
    TirExpr *n = ir_memdup(h, e, sizeof *e);
    n->bin.a = out_value(h, e->bin.a, to);
    n->bin.b = out_value(h, e->bin.b, to);
    n->dtype = to;
    return n;
  }
  default: return dt_eq(e->dtype, to) ? e : tir_cast(h, to, e);
  }
}

static TirStmt *ro_store(TirMutator *m, TirStmt *s) {
  Retype *r = m->ctx;
  if (s->store.buf != r->only) return tir_mutate_stmt_children(m, s);
  TirStmt *c = tir_stmt_with_span(m->heap, s, s->span);
  c->store.buf = tir_mutate_buffer(m, s->store.buf);
  TirExpr *v = s->store.value;
  /* the accumulation reads the output itself: that load is already in `to` */
  c->store.value = out_value(m->heap, tir_mutate_expr(m, v), r->to);
  return c;
}

static TirExpr *ro_load(TirMutator *m, TirExpr *e) {
  Retype *r = m->ctx;
  if (e->load.buf != r->only) return tir_mutate_expr_children(m, e);
  return tir_load(m->heap, tir_mutate_buffer(m, e->load.buf), e->load.idx, e->load.n);
}

TirFunc *tir_retype_output(IrHeap *h, const TirFunc *f, DType to) {
  const TirBuffer *ob = f->nparams ? f->buffer_map[f->nparams - 1] : NULL;
  if (!ob || dt_eq(ob->dtype, to)) return (TirFunc *)f;
  Retype r = {to, ob, {0}};
  ir_ptrmap_init(&r.bufs);
  TirMutator m;
  tir_mutator_init(&m, h);
  m.expr[TIR_LOAD] = ro_load;
  m.stmt[TIR_S_STORE] = ro_store;
  m.buffer = rt_buffer;
  m.ctx = &r;
  TirFunc *g = tir_mutate_func(&m, (TirFunc *)f);
  tir_mutator_free(&m);
  ir_ptrmap_free(&r.bufs);
  return g;
}
