/* test_visit.c - the TIR walker (counts, pruning, abort), free variables, the
 * copy-on-write mutator (same pointer when unchanged) and tir_substitute. */
#include <string.h>

#include "ir/mutate.h"
#include "ir/structural_equal.h"
#include "ir/visit.h"
#include "tests/unit/check.h"

/* ------------------------------------------------------------ builder */

static TirExpr *v(IrHeap *h, TirVar *x) { return tir_var_ref(h, x); }
static TirExpr *i32(IrHeap *h, int64_t x) { return tir_i32(h, x); }

static TirBufferRegion point_region(IrHeap *h, TirBuffer *b, TirVar *x, TirVar *y) {
  TirRange *r = ir_alloc(h, 2 * sizeof *r);
  r[0] = (TirRange){v(h, x), i32(h, 1)};
  r[1] = (TirRange){v(h, y), i32(h, 1)};
  return (TirBufferRegion){b, r, 2};
}

/* def f(A: (n, 8), B: (n, 8)):
 *   for i in range(n): for j in range(8):
 *     with T.block("B"): vi = S(n, i); vj = S(8, j)
 *       T.reads(A[vi, vj]); T.writes(B[vi, vj]); B[vi, vj] = A[vi, vj] * 2.0
 * where n is the literal 16 unless `n` is given. */
static TirFunc *build(IrHeap *h, TirVar *n) {
  TirExpr *sh[2] = {n ? v(h, n) : i32(h, 16), i32(h, 8)};
  TirBuffer *A = tir_buffer(h, "A", dt_float32, sh, 2, NULL);
  TirBuffer *B = tir_buffer(h, "B", dt_float32, sh, 2, NULL);
  TirVar *params[2] = {tir_var(h, "a", dt_handle), tir_var(h, "b", dt_handle)};
  TirBuffer *bm[2] = {A, B};
  TirVar *i = tir_var(h, "i", dt_int32), *j = tir_var(h, "j", dt_int32);
  TirVar *vi = tir_var(h, "vi", dt_int32), *vj = tir_var(h, "vj", dt_int32);
  TirBlock blk = {0};
  blk.name = "B";
  TirIterVar its[2] = {{vi, {i32(h, 0), n ? v(h, n) : i32(h, 16)}, TIR_ITER_SPATIAL},
                       {vj, {i32(h, 0), i32(h, 8)}, TIR_ITER_SPATIAL}};
  blk.iters = its;
  blk.niters = 2;
  TirBufferRegion rd = point_region(h, A, vi, vj), wr = point_region(h, B, vi, vj);
  blk.reads = &rd;
  blk.nreads = 1;
  blk.writes = &wr;
  blk.nwrites = 1;
  TirExpr *li[2] = {v(h, vi), v(h, vj)}, *si[2] = {v(h, vi), v(h, vj)};
  TirExpr *val = tir_binary(h, TIR_MUL, tir_load(h, A, li, 2), tir_float(h, dt_float32, 2.0));
  blk.body = tir_store(h, B, val, si, 2);
  TirExpr *binds[2] = {v(h, i), v(h, j)};
  TirStmt *s = tir_block_realize(h, binds, 2, NULL, tir_block(h, &blk));
  s = tir_for(h, j, i32(h, 0), i32(h, 8), TIR_FOR_SERIAL, NULL, NULL, s);
  s = tir_for(h, i, i32(h, 0), n ? v(h, n) : i32(h, 16), TIR_FOR_SERIAL, NULL, NULL, s);
  return tir_func(h, params, bm, 2, s, NULL);
}

/* ------------------------------------------------------------ walker */

typedef struct Counts {
  int stmts, post_stmts, exprs, vars, def_vars, def_bufs, use_bufs, loads;
  int stmt_kind[TIR_NUM_STMT_KINDS];
  TirStmtKind prune_kind;  /* prune children of this kind (or -1) */
  bool stop_at_load;
} Counts;

static bool c_pre_expr(TirVisitor *vis, const TirExpr *e) {
  Counts *c = vis->ctx;
  c->exprs++;
  if (e->kind == TIR_VAR) c->vars++;
  if (e->kind == TIR_LOAD) {
    c->loads++;
    if (c->stop_at_load) vis->stop = true;
  }
  return true;
}

static bool c_pre_stmt(TirVisitor *vis, const TirStmt *s) {
  Counts *c = vis->ctx;
  c->stmts++;
  c->stmt_kind[s->kind]++;
  return (int)s->kind != (int)c->prune_kind;
}

static void c_post_stmt(TirVisitor *vis, const TirStmt *s) { ((Counts *)vis->ctx)->post_stmts++; }
static void c_def_var(TirVisitor *vis, const TirVar *x) { ((Counts *)vis->ctx)->def_vars++; }
static void c_def_buf(TirVisitor *vis, const TirBuffer *b) { ((Counts *)vis->ctx)->def_bufs++; }
static void c_use_buf(TirVisitor *vis, const TirBuffer *b) { ((Counts *)vis->ctx)->use_bufs++; }

static Counts count(const TirFunc *f, int prune_kind, bool stop_at_load) {
  Counts c;
  memset(&c, 0, sizeof c);
  c.prune_kind = (TirStmtKind)prune_kind;
  c.stop_at_load = stop_at_load;
  TirVisitor vis = {.pre_expr = c_pre_expr, .pre_stmt = c_pre_stmt, .post_stmt = c_post_stmt,
                    .def_var = c_def_var, .def_buffer = c_def_buf, .use_buffer = c_use_buf,
                    .ctx = &c};
  tir_visit_func(&vis, f);
  return c;
}

static void test_walker(IrHeap *h) {
  TirFunc *f = build(h, NULL);
  Counts c = count(f, -1, false);
  CHECK_EQ_INT(c.stmts, 5); /* For, For, BlockRealize, Block, BufferStore */
  CHECK_EQ_INT(c.post_stmts, 5);
  CHECK_EQ_INT(c.stmt_kind[TIR_S_FOR], 2);
  CHECK_EQ_INT(c.stmt_kind[TIR_S_BLOCK], 1);
  /* buffer shapes 4, loop ranges 4, bindings 2 + predicate, iter doms 4,
   * regions 8, store value 5 (Mul, Load, vi, vj, 2.0) + indices 2 */
  CHECK_EQ_INT(c.exprs, 30);
  CHECK_EQ_INT(c.vars, 2 + 4 + 4);
  CHECK_EQ_INT(c.def_vars, 8); /* a, b, A.data, B.data, i, j, vi, vj */
  CHECK_EQ_INT(c.def_bufs, 2);
  CHECK_EQ_INT(c.use_bufs, 4); /* reads A, writes B, store B, load A */
  CHECK_EQ_INT(c.loads, 1);

  Counts p = count(f, TIR_S_BLOCK, false); /* prune the block's contents */
  CHECK_EQ_INT(p.stmts, 4);
  CHECK_EQ_INT(p.post_stmts, 4);
  CHECK_EQ_INT(p.exprs, 11);
  CHECK_EQ_INT(p.use_bufs, 0);

  Counts s = count(f, -1, true); /* abort at the first load */
  CHECK_EQ_INT(s.loads, 1);
  CHECK_EQ_INT(s.exprs, 4 + 4 + 3 + 4 + 8 + 2);
  CHECK_EQ_INT(s.post_stmts, 0);
}

static void test_free_vars(IrHeap *h) {
  TirVar *x = tir_var(h, "x", dt_int32), *y = tir_var(h, "y", dt_int32);
  TirVar *z = tir_var(h, "z", dt_int32), *w = tir_var(h, "w", dt_int32);
  TirExpr *e = tir_binary(h, TIR_MUL, tir_binary(h, TIR_ADD, v(h, x), v(h, y)), v(h, x));
  e = tir_binary(h, TIR_ADD, e, tir_let(h, z, i32(h, 1), tir_binary(h, TIR_ADD, v(h, z), v(h, w))));
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  CHECK_EQ_INT(fv.len, 3);
  CHECK(fv.len == 3 && fv.items[0] == x && fv.items[1] == y && fv.items[2] == w);
  pv_free(&fv);
  CHECK(tir_expr_uses_var(e, z));
  CHECK(!tir_expr_uses_var(i32(h, 3), x));

  TirFunc *f = build(h, NULL);
  tir_stmt_free_vars(f->body, &fv);
  CHECK_EQ_INT(fv.len, 0);
  pv_free(&fv);
  TirVar *n = tir_var(h, "n", dt_int32);
  TirFunc *g = build(h, n);
  tir_stmt_free_vars(g->body, &fv);
  CHECK(fv.len == 1 && fv.items[0] == n);
  pv_free(&fv);
  CHECK(tir_stmt_uses_var(g->body, n));
}

/* ------------------------------------------------------------ mutator */

static TirExpr *mul_to_add(TirMutator *m, TirExpr *e) {
  TirExpr *c = tir_mutate_expr_children(m, e);
  return tir_binary(m->heap, TIR_ADD, c->bin.a, c->bin.b);
}

static TirStmt *drop_eval(TirMutator *m, TirStmt *s) { return NULL; }

static void test_mutator(void) {
  IrHeap *h = ir_heap_new();
  TirFunc *f = build(h, NULL);
  IrHeap *h2 = ir_heap_new();
  ir_heap_depend(h2, h);
  TirMutator m;
  tir_mutator_init(&m, h2);
  CHECK(tir_mutate_func(&m, f) == f); /* identity: same pointer, nothing allocated */
  CHECK(tir_mutate_stmt(&m, f->body) == f->body);
  CHECK_EQ_INT(ir_heap_bytes(h2), 0);
  tir_mutator_free(&m);

  tir_mutator_init(&m, h2);
  m.expr[TIR_MUL] = mul_to_add;
  TirFunc *g = tir_mutate_func(&m, f);
  tir_mutator_free(&m);
  CHECK(g != f);
  CHECK(!seq_tir_func(f, g, NULL, NULL));
  const TirStmt *fi = f->body, *gi = g->body;
  CHECK(gi != fi && gi->loop.min == fi->loop.min && gi->loop.extent == fi->loop.extent);
  CHECK(g->buffer_map[0] == f->buffer_map[0]); /* unchanged buffers shared */
  const TirBlock *gb = tir_realize_block(gi->loop.body->loop.body);
  const TirBlock *fb = tir_realize_block(fi->loop.body->loop.body);
  CHECK(gb->reads == fb->reads); /* unchanged arrays shared */
  CHECK(gb->body->store.value->kind == TIR_ADD);
  CHECK(gb->body->store.value->bin.a == fb->body->store.value->bin.a);

  /* deleting a statement from a sequence */
  TirStmt *st = fb->body;
  TirStmt *seq2[2] = {st, tir_evaluate(h, i32(h, 0))};
  TirStmt *sq = tir_seq(h, seq2, 2);
  tir_mutator_init(&m, h2);
  m.stmt[TIR_S_EVAL] = drop_eval;
  CHECK(tir_mutate_stmt(&m, sq) == st);
  tir_mutator_free(&m);
  ir_heap_release(h2);
  ir_heap_release(h);
}

static void test_substitute(IrHeap *h) {
  TirVar *x = tir_var(h, "x", dt_int32), *y = tir_var(h, "y", dt_int32), *q = tir_var(h, "q", dt_int32);
  TirExpr *y2 = tir_binary(h, TIR_MUL, v(h, y), i32(h, 2));
  TirExpr *e = tir_binary(h, TIR_ADD, v(h, x), y2);
  TirExpr *r = tir_substitute_expr1(h, e, x, i32(h, 5));
  CHECK(r != e);
  CHECK(seq_tir_expr(r, tir_binary(h, TIR_ADD, i32(h, 5), y2)));
  CHECK(r->bin.b == y2); /* untouched subtree shared */
  CHECK(tir_substitute_expr1(h, e, q, i32(h, 5)) == e);
  IrPtrMap vm = {0};
  ir_ptrmap_put(&vm, x, v(h, y));
  ir_ptrmap_put(&vm, y, v(h, x));
  CHECK(seq_tir_expr(tir_substitute_expr(h, e, &vm),
                     tir_binary(h, TIR_ADD, v(h, y), tir_binary(h, TIR_MUL, v(h, x), i32(h, 2)))));
  ir_ptrmap_free(&vm);

  /* renaming a loop var: definitions follow, the result is equal up to renaming */
  TirFunc *f = build(h, NULL);
  TirVar *i = f->body->loop.var, *i2 = tir_var(h, "i_new", dt_int32);
  TirStmt *s = tir_substitute_stmt1(h, f->body, i, v(h, i2));
  CHECK(s != f->body);
  CHECK(s->loop.var == i2);
  CHECK(!tir_stmt_uses_var(s, i));
  CHECK(tir_stmt_uses_var(s, i2));
  CHECK(seq_tir_stmt(f->body, s, NULL));
  CHECK(shash_tir_stmt(f->body) == shash_tir_stmt(s));

  /* n -> 16 inside buffer shapes: buffers are rebuilt and used consistently */
  TirVar *n = tir_var(h, "n", dt_int32);
  TirFunc *g = build(h, n);
  TirStmt *gs = tir_substitute_stmt1(h, g->body, n, i32(h, 16));
  const TirBlock *blk = tir_realize_block(gs->loop.body->loop.body);
  TirBuffer *nb = blk->body->store.buf;
  CHECK(nb != g->buffer_map[1]);
  CHECK(tir_is_const_int(nb->shape[0], NULL) && nb->shape[0]->ival == 16);
  CHECK(blk->writes[0].buffer == nb);
  CHECK(blk->reads[0].buffer == blk->body->store.value->bin.a->load.buf);
  CHECK(!tir_stmt_uses_var(gs, n));
  CHECK(tir_stmt_uses_var(g->body, n)); /* the original is untouched */
  PtrVec fv = {0};
  tir_stmt_free_vars(gs, &fv);
  CHECK_EQ_INT(fv.len, 0);
  pv_free(&fv);
  CHECK(tir_is_const_int(gs->loop.extent, NULL) && gs->loop.extent->ival == 16);
}

static void test_ptrmap(void) {
  IrPtrMap m = {0};
  int keys[100];
  for (int i = 0; i < 100; i++) ir_ptrmap_put(&m, &keys[i], (void *)(intptr_t)(i + 1));
  bool ok = m.len == 100;
  for (int i = 0; i < 100; i++) ok = ok && ir_ptrmap_get(&m, &keys[i]) == (void *)(intptr_t)(i + 1);
  CHECK(ok);
  ir_ptrmap_put(&m, &keys[5], NULL);
  CHECK(ir_ptrmap_has(&m, &keys[5]) && ir_ptrmap_get(&m, &keys[5]) == NULL && m.len == 100);
  ir_ptrmap_clear(&m);
  CHECK(!ir_ptrmap_has(&m, &keys[0]) && m.len == 0);
  ir_ptrmap_free(&m);
}

int main(void) {
  IrHeap *h = ir_heap_new();
  test_walker(h);
  test_free_vars(h);
  test_mutator();
  test_substitute(h);
  test_ptrmap();
  ir_heap_release(h);
  TEST_MAIN_END();
}
