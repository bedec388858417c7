/* test_elab_tir.c - elaboration of modules and T.prim_func bodies.
 *
 * Parses small TVMScript programs, elaborates them and checks the loop IR by
 * walking it (blocks, iters, regions, literal dtypes, the implicit root), then
 * checks each class of user error for its message and line:col. */
#include "check.h"
#include "lang/elab.h"
#include "lang/elab_internal.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static PtrVec sources;

static IrModule *load(const char *text, DiagCtx *d) {
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  pv_push(&sources, src);
  diag_init(d, NULL);
  return tvs_load_module(src, d);
}

/* Loads a program that must elaborate cleanly. */
static IrModule *ok(const char *text) {
  DiagCtx d;
  IrModule *m = load(text, &d);
  if (!m || d.nerr) {
    for (int i = 0; i < d.len; i++)
      fprintf(stderr, "  unexpected: %u:%u: %s\n", d.items[i].span.line, d.items[i].span.col,
              d.items[i].msg);
  }
  CHECK(m != NULL);
  diag_free(&d);
  return m;
}

/* Loads a program that must fail with `msg` (a substring) at line:col. */
static void expect_error(const char *text, unsigned line, unsigned col, const char *msg) {
  DiagCtx d;
  IrModule *m = load(text, &d);
  CHECK(m == NULL);
  ir_module_free(m);
  int found = -1;
  for (int i = 0; i < d.len; i++)
    if (strstr(d.items[i].msg, msg)) {
      found = i;
      break;
    }
  if (found < 0) {
    fprintf(stderr, "  expected error containing \"%s\"; got:\n", msg);
    for (int i = 0; i < d.len; i++)
      fprintf(stderr, "    %u:%u: %s\n", d.items[i].span.line, d.items[i].span.col, d.items[i].msg);
    CHECK(found >= 0);
  } else {
    check_passed++;
    if (d.items[found].span.line != line || d.items[found].span.col != col)
      fprintf(stderr, "  \"%s\" at %u:%u, expected %u:%u\n", d.items[found].msg,
              d.items[found].span.line, d.items[found].span.col, line, col);
    CHECK_EQ_INT(d.items[found].span.line, line);
    CHECK_EQ_INT(d.items[found].span.col, col);
  }
  diag_free(&d);
}

/* --------------------------------------------------------------- walkers */

static const TirStmt *find_block(const TirStmt *s, const char *name) {
  if (!s) return NULL;
  const TirStmt *r;
  switch (s->kind) {
  case TIR_S_BLOCK_REALIZE:
    if (!strcmp(tir_realize_block(s)->name, name)) return s;
    return find_block(s->realize.block, name);
  case TIR_S_BLOCK:
    if ((r = find_block(s->block.init, name))) return r;
    return find_block(s->block.body, name);
  case TIR_S_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if ((r = find_block(s->seq.stmts[i], name))) return r;
    return NULL;
  case TIR_S_FOR: return find_block(s->loop.body, name);
  case TIR_S_IF:
    if ((r = find_block(s->ifs.then_s, name))) return r;
    return find_block(s->ifs.else_s, name);
  case TIR_S_LET: return find_block(s->let.body, name);
  default: return NULL;
  }
}

/* The first statement of kind k in pre-order. */
static const TirStmt *find_stmt(const TirStmt *s, TirStmtKind k) {
  if (!s) return NULL;
  if (s->kind == k) return s;
  const TirStmt *r;
  switch (s->kind) {
  case TIR_S_BLOCK_REALIZE: return find_stmt(s->realize.block, k);
  case TIR_S_BLOCK:
    if ((r = find_stmt(s->block.init, k))) return r;
    return find_stmt(s->block.body, k);
  case TIR_S_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if ((r = find_stmt(s->seq.stmts[i], k))) return r;
    return NULL;
  case TIR_S_FOR: return find_stmt(s->loop.body, k);
  case TIR_S_IF:
    if ((r = find_stmt(s->ifs.then_s, k))) return r;
    return find_stmt(s->ifs.else_s, k);
  case TIR_S_LET: return find_stmt(s->let.body, k);
  case TIR_S_ASSERT: return find_stmt(s->assrt.body, k);
  default: return NULL;
  }
}

static const TirFunc *func(const IrModule *m, const char *name) {
  const IrGlobal *g = m ? ir_module_lookup(m, name) : NULL;
  return g && g->kind == IR_FUNC_TIR ? g->tir : NULL;
}

static bool is_dtype(DType t, DType want) { return dt_eq(t, want); }

/* ------------------------------------------------------------------ tests */

static const char *mm_relu =
    "import tvm\n"
    "from tvm.script import tir as T\n"
    "\n"
    "@tvm.script.ir_module\n"
    "class MyModule:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((128, 128), \"float32\"),\n"
    "                B: T.Buffer((128, 128), \"float32\"),\n"
    "                C: T.Buffer((128, 128), \"float32\")):\n"
    "        T.func_attr({\"tir.noalias\": True})\n"
    "        Y = T.alloc_buffer((128, 128), dtype=\"float32\")\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.block(\"Y\"):\n"
    "                vi = T.axis.spatial(128, i)\n"
    "                vj = T.axis.spatial(128, j)\n"
    "                vk = T.axis.reduce(128, k)\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(128, 128):\n"
    "            with T.block(\"C\"):\n"
    "                vi = T.axis.spatial(128, i)\n"
    "                vj = T.axis.spatial(128, j)\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n";

static void test_mm_relu(void) {
  IrModule *m = ok(mm_relu);
  if (!m) return;
  CHECK_EQ_STR(m->name, "MyModule");
  CHECK(!m->implicit);
  CHECK_EQ_INT(m->nfuncs, 1);
  const TirFunc *f = func(m, "mm_relu");
  CHECK(f != NULL);
  if (!f) goto out;
  CHECK_EQ_INT(f->nparams, 3);
  CHECK(f->buffer_param_sugar);
  CHECK_EQ_STR(f->buffer_map[0]->name, "A");
  CHECK(is_dtype(f->buffer_map[0]->dtype, dt_float32));
  CHECK(is_dtype(f->params[0]->dtype, dt_handle));
  const IrValue *gs = irv_dict_get(f->attrs, "global_symbol");
  CHECK(gs && gs->kind == IRV_STR && !strcmp(gs->s, "mm_relu"));
  const IrValue *na = irv_dict_get(f->attrs, "tir.noalias");
  CHECK(na && na->kind == IRV_BOOL && na->i == 1);
  /* implicit root block holding Y */
  CHECK_EQ_INT(f->body->kind, TIR_S_BLOCK_REALIZE);
  const TirBlock *root = tir_realize_block(f->body);
  CHECK_EQ_STR(root->name, "root");
  CHECK_EQ_INT(root->niters, 0);
  CHECK_EQ_INT(root->nreads, 0);
  CHECK_EQ_INT(root->nwrites, 0);
  CHECK_EQ_INT(root->nallocs, 1);
  CHECK_EQ_STR(root->allocs[0]->name, "Y");
  CHECK_EQ_INT(root->body->kind, TIR_S_SEQ);
  /* block Y */
  const TirStmt *ry = find_block(f->body, "Y");
  CHECK(ry != NULL);
  if (!ry) goto out;
  const TirBlock *y = tir_realize_block(ry);
  CHECK_EQ_INT(y->niters, 3);
  CHECK_EQ_INT(y->iters[0].type, TIR_ITER_SPATIAL);
  CHECK_EQ_INT(y->iters[2].type, TIR_ITER_REDUCE);
  CHECK_EQ_STR(y->iters[2].var->name, "vk");
  CHECK(tir_is_zero(y->iters[1].dom.min));
  int64_t v = 0;
  CHECK(tir_is_const_int(y->iters[1].dom.extent, &v) && v == 128);
  CHECK_EQ_INT(y->nreads, 2);
  CHECK(y->nreads == 2 && y->reads[0].buffer == f->buffer_map[0]);
  CHECK(y->nreads == 2 && y->reads[1].buffer == f->buffer_map[1]);
  CHECK_EQ_INT(y->nwrites, 1);
  CHECK(y->nwrites == 1 && y->writes[0].buffer == root->allocs[0]);
  CHECK(y->init != NULL && y->init->kind == TIR_S_STORE);
  CHECK(y->init && y->init->store.value->kind == TIR_FLOAT);
  CHECK_EQ_INT(ry->realize.n, 3);
  CHECK(ry->realize.values[0]->kind == TIR_VAR && !strcmp(ry->realize.values[0]->var->name, "i"));
  CHECK(tir_is_one(ry->realize.pred) && is_dtype(ry->realize.pred->dtype, dt_bool));
  /* block C: max node */
  const TirStmt *rc = find_block(f->body, "C");
  CHECK(rc != NULL);
  if (rc) {
    const TirStmt *st = tir_realize_block(rc)->body;
    CHECK_EQ_INT(st->kind, TIR_S_STORE);
    CHECK_EQ_INT(st->store.value->kind, TIR_MAX);
    CHECK_EQ_INT(tir_realize_block(rc)->nreads, 1);
  }
  /* the loop nest of grid(128, 128, 128) */
  const TirStmt *loop = find_stmt(f->body, TIR_S_FOR);
  CHECK(loop && !strcmp(loop->loop.var->name, "i") && loop->loop.kind == TIR_FOR_SERIAL);
  CHECK(loop && loop->loop.body->kind == TIR_S_FOR && !strcmp(loop->loop.body->loop.var->name, "j"));
out:
  ir_module_free(m);
}

static void test_implicit_module(void) {
  IrModule *m = ok("from tvm.script import tir as T\n"
                   "@T.prim_func\n"
                   "def first(A: T.Buffer((4,), \"float32\")):\n"
                   "    for i in range(4):\n"
                   "        A[i] = 1\n"
                   "@T.prim_func(private=True)\n"
                   "def second(A: T.Buffer(8, \"int32\")):\n"
                   "    for i in T.serial(10, 128):\n"
                   "        A[0] = i\n"
                   "sch = tir.Schedule(Module)\n"
                   "b = sch.get_block(\"C\")\n"
                   "def apply_trace(sch):\n"
                   "    pass\n");
  if (!m) return;
  CHECK(m->implicit);
  CHECK_EQ_STR(m->name, "Module");
  CHECK_EQ_INT(m->nfuncs, 2);
  CHECK_EQ_STR(m->funcs[0].name, "first");
  CHECK_EQ_STR(m->funcs[1].name, "second");
  const TirFunc *f = func(m, "first");
  /* no blocks, no allocations: no root block */
  CHECK(f && f->body->kind == TIR_S_FOR);
  if (f) {
    const TirStmt *st = f->body->loop.body;
    CHECK(st->kind == TIR_S_STORE && st->store.value->kind == TIR_FLOAT &&
          is_dtype(st->store.value->dtype, dt_float32));
  }
  const TirFunc *g = func(m, "second");
  CHECK(g && irv_dict_get(g->attrs, "global_symbol") == NULL);
  if (g) {
    CHECK_EQ_INT(g->buffer_map[0]->ndim, 1);
    int64_t v = 0;
    CHECK(tir_is_const_int(g->body->loop.min, &v) && v == 10);
    CHECK(tir_is_const_int(g->body->loop.extent, &v) && v == 118);
  }
  ir_module_free(m);
}

static void test_literal_types(void) {
  IrModule *m = ok("@T.prim_func\n"
                   "def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"int64\"), x: T.float32):\n"
                   "    for i in T.grid(T.int64(8)):\n"
                   "        B[i] = i + 1\n"
                   "        A[i] = x * 2\n"
                   "        A[i] = -x\n"
                   "        A[i] = T.float32(0.5) + 3\n"
                   "        A[i] = T.min_value(\"float32\")\n"
                   "    for j in T.serial(T.int64(2), 8):\n"
                   "        A[j] += T.Cast(\"float32\", j) / 4\n");
  if (!m) return;
  const TirFunc *f = func(m, "f");
  if (!f) {
    CHECK(f != NULL);
    ir_module_free(m);
    return;
  }
  CHECK_EQ_INT(f->nparams, 3);
  CHECK(is_dtype(f->params[2]->dtype, dt_float32));
  CHECK(f->buffer_map[2] == NULL);
  const TirStmt *loop = f->body->kind == TIR_S_SEQ ? f->body->seq.stmts[0] : NULL;
  CHECK(loop && loop->kind == TIR_S_FOR);
  if (!loop) goto out;
  CHECK(is_dtype(loop->loop.var->dtype, dt_int64));
  CHECK(is_dtype(loop->loop.extent->dtype, dt_int64));
  const TirStmt *body = loop->loop.body;
  CHECK_EQ_INT(body->kind, TIR_S_SEQ);
  if (body->kind != TIR_S_SEQ) goto out;
  /* B[i] = i + 1 : the literal takes int64 */
  const TirExpr *add = body->seq.stmts[0]->store.value;
  CHECK_EQ_INT(add->kind, TIR_ADD);
  CHECK(is_dtype(add->bin.b->dtype, dt_int64) && add->bin.b->kind == TIR_INT);
  /* A[i] = x * 2 : FloatImm 2.0f */
  const TirExpr *mul = body->seq.stmts[1]->store.value;
  CHECK(mul->kind == TIR_MUL && mul->bin.b->kind == TIR_FLOAT && mul->bin.b->fval == 2.0);
  CHECK(is_dtype(mul->bin.b->dtype, dt_float32));
  /* -x : 0.0f - x */
  const TirExpr *neg = body->seq.stmts[2]->store.value;
  CHECK(neg->kind == TIR_SUB && neg->bin.a->kind == TIR_FLOAT && neg->bin.a->fval == 0.0);
  const TirExpr *sum = body->seq.stmts[3]->store.value;
  CHECK(sum->kind == TIR_ADD && sum->bin.b->kind == TIR_FLOAT && sum->bin.b->fval == 3.0);
  const TirExpr *mv = body->seq.stmts[4]->store.value;
  CHECK(mv->kind == TIR_FLOAT && mv->fval == -3.4028234663852886e+38);
  /* T.serial(T.int64(2), 8): int64 loop, extent 6 */
  const TirStmt *l2 = f->body->seq.stmts[1];
  CHECK(is_dtype(l2->loop.var->dtype, dt_int64));
  int64_t v = 0;
  CHECK(tir_is_const_int(l2->loop.extent, &v) && v == 6);
  /* += becomes a load plus the value */
  const TirExpr *acc = l2->loop.body->store.value;
  CHECK(acc->kind == TIR_ADD && acc->bin.a->kind == TIR_LOAD && acc->bin.b->kind == TIR_DIV);
out:
  ir_module_free(m);
}

static void test_symbolic(void) {
  IrModule *m = ok("@T.prim_func\n"
                   "def f(A: T.Buffer((n, 128), \"float32\"), b: T.handle):\n"
                   "    n = T.int32()\n"
                   "    m, k = T.int64(), T.int64()\n"
                   "    B = T.match_buffer(b, (m, k), \"float16\")\n"
                   "    for i, j in T.grid(n, 128):\n"
                   "        with T.block(\"A\"):\n"
                   "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                   "            A[vi, vj] = T.float32(1)\n");
  if (!m) return;
  const TirFunc *f = func(m, "f");
  if (f) {
    const TirExpr *d0 = f->buffer_map[0]->shape[0];
    CHECK(d0->kind == TIR_VAR && d0->var->is_size_var && !strcmp(d0->var->name, "n"));
    CHECK(is_dtype(f->buffer_map[0]->shape[1]->dtype, dt_int32));
    CHECK(f->buffer_map[1] != NULL && is_dtype(f->buffer_map[1]->dtype, dt_float16));
    CHECK(f->buffer_map[1] && is_dtype(f->buffer_map[1]->shape[0]->dtype, dt_int64));
    const TirStmt *ra = find_block(f->body, "A");
    CHECK(ra && tir_realize_block(ra)->iters[0].dom.extent->kind == TIR_VAR);
    /* reads inferred: none; writes [A] */
    CHECK(ra && tir_realize_block(ra)->nreads == 0 && tir_realize_block(ra)->nwrites == 1);
  }
  ir_module_free(m);
}

static void test_regions_and_blocks(void) {
  IrModule *m = ok("@T.prim_func\n"
                   "def f(A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\"), "
                   "S: T.Buffer((), \"float32\")):\n"
                   "    for i in range(120):\n"
                   "        with T.block(\"B\"):\n"
                   "            vi = T.axis.S((8, 128), i + 8)\n"
                   "            T.reads(A[vi - 8:vi + 1], S[()])\n"
                   "            T.writes([B[vi]])\n"
                   "            T.block_attr({\"k\": 1})\n"
                   "            tmp = T.alloc_buffer((4,), scope=\"local\")\n"
                   "            tmp[0] = A[vi]\n"
                   "            B[vi] = tmp[0] - A[vi - 8] + S[()]\n"
                   "    for i0, i1 in T.grid(4, 32):\n"
                   "        with T.block(\"W\"):\n"
                   "            vi = T.axis.spatial(120, i0 * 32 + i1)\n"
                   "            T.where(i0 * 32 + i1 < 120)\n"
                   "            B[vi] = A[vi]\n"
                   "    with T.block():\n"
                   "        T.reads(A)\n"
                   "        T.writes(B[0:16])\n"
                   "        T.evaluate(0)\n");
  if (!m) return;
  const TirFunc *f = func(m, "f");
  if (!f) {
    CHECK(f != NULL);
    ir_module_free(m);
    return;
  }
  const TirStmt *rb = find_block(f->body, "B");
  CHECK(rb != NULL);
  if (rb) {
    const TirBlock *b = tir_realize_block(rb);
    int64_t v = 0;
    CHECK(tir_is_const_int(b->iters[0].dom.min, &v) && v == 8);
    CHECK(tir_is_const_int(b->iters[0].dom.extent, &v) && v == 120);
    CHECK_EQ_INT(b->nreads, 2);
    CHECK(b->reads[0].ranges[0].min->kind == TIR_SUB);
    CHECK(tir_is_const_int(b->reads[0].ranges[0].extent, &v) && v == 9);
    CHECK(b->nreads == 2 && b->reads[1].n == 0);
    CHECK_EQ_INT(b->nwrites, 1);
    CHECK(tir_is_one(b->writes[0].ranges[0].extent));
    CHECK(irv_dict_get(b->annotations, "k") != NULL);
    CHECK_EQ_INT(b->nallocs, 1);
    CHECK(b->nallocs == 1 && !strcmp(b->allocs[0]->scope, "local"));
  }
  const TirStmt *rw = find_block(f->body, "W");
  CHECK(rw && rw->realize.pred->kind == TIR_LT);
  const TirStmt *ra = find_block(f->body, "");
  CHECK(ra != NULL);
  if (ra) {
    const TirBlock *b = tir_realize_block(ra);
    int64_t v = 0;
    CHECK(b->nreads == 1 && tir_is_const_int(b->reads[0].ranges[0].extent, &v) && v == 128);
    CHECK(b->nwrites == 1 && tir_is_const_int(b->writes[0].ranges[0].extent, &v) && v == 16);
    CHECK(b->body->kind == TIR_S_EVAL);
  }
  ir_module_free(m);
}

static void test_statements(void) {
  IrModule *m = ok("from tvm import tir\n"
                   "@T.prim_func\n"
                   "def f(A: T.Buffer((16,), \"int32\"), n: T.int32):\n"
                   "    x: T.int32 = 5\n"
                   "    y = x * 2\n"
                   "    for i in range(16):\n"
                   "        if i < n and not i == 3:\n"
                   "            A[i] = tir.max(y, i) // 2 % 3\n"
                   "        elif 0 < i < 4:\n"
                   "            A[i] = T.if_then_else(i > 2, 1, 0)\n"
                   "        else:\n"
                   "            A[i] = T.abs(i - 8) << 1\n"
                   "    assert n > 0, \"n must be positive\"\n"
                   "    T.evaluate(T.call_extern(\"int32\", \"foo\", n))\n");
  if (!m) return;
  const TirFunc *f = func(m, "f");
  if (!f) {
    CHECK(f != NULL);
    ir_module_free(m);
    return;
  }
  CHECK_EQ_INT(f->body->kind, TIR_S_LET);
  CHECK(is_dtype(f->body->let.var->dtype, dt_int32) && f->body->let.value->kind == TIR_INT);
  const TirStmt *l2 = f->body->let.body;
  CHECK(l2->kind == TIR_S_LET && l2->let.value->kind == TIR_MUL);
  const TirStmt *iff = find_stmt(f->body, TIR_S_IF);
  CHECK(iff && iff->ifs.cond->kind == TIR_AND && iff->ifs.cond->bin.b->kind == TIR_NOT);
  CHECK(iff && iff->ifs.else_s && iff->ifs.else_s->kind == TIR_S_IF);
  if (iff) {
    const TirExpr *v = iff->ifs.then_s->store.value;
    CHECK(v->kind == TIR_FLOORMOD && v->bin.a->kind == TIR_FLOORDIV && v->bin.a->bin.a->kind == TIR_MAX);
    const TirExpr *chain = iff->ifs.else_s->ifs.cond;
    CHECK(chain->kind == TIR_AND && chain->bin.a->kind == TIR_LT && chain->bin.b->kind == TIR_LT);
    const TirExpr *sh = iff->ifs.else_s->ifs.else_s->store.value;
    CHECK(sh->kind == TIR_CALL && sh->call.op->id == TIR_OP_SHIFT_LEFT);
    CHECK(sh->call.args[0]->kind == TIR_SELECT);
  }
  const TirStmt *as = find_stmt(f->body, TIR_S_ASSERT);
  CHECK(as && as->assrt.msg->kind == TIR_STR && as->assrt.body->kind == TIR_S_EVAL);
  if (as) {
    const TirExpr *call = as->assrt.body->eval.value;
    CHECK(call->kind == TIR_CALL && call->call.op->id == TIR_OP_CALL_EXTERN);
    CHECK(call->call.n == 2 && call->call.args[0]->kind == TIR_STR);
  }
  ir_module_free(m);
}

static void test_pass_and_root(void) {
  IrModule *m = ok("@T.prim_func\n"
                   "def empty():\n"
                   "    pass\n"
                   "@T.prim_func\n"
                   "def only_alloc():\n"
                   "    X = T.alloc_buffer((4,))\n"
                   "    T.evaluate(0)\n"
                   "@T.prim_func\n"
                   "def explicit(A: T.Buffer((4,), \"float32\")):\n"
                   "    with T.block(\"root\"):\n"
                   "        for i in range(4):\n"
                   "            with T.block(\"A\"):\n"
                   "                vi = T.axis.spatial(4, i)\n"
                   "                A[vi] = 0.0\n");
  if (!m) return;
  const TirFunc *e = func(m, "empty");
  CHECK(e && e->body->kind == TIR_S_EVAL && tir_is_zero(e->body->eval.value));
  const TirFunc *oa = func(m, "only_alloc");
  CHECK(oa && oa->body->kind == TIR_S_BLOCK_REALIZE && tir_realize_block(oa->body)->nallocs == 1);
  const TirFunc *ex = func(m, "explicit");
  CHECK(ex && ex->body->kind == TIR_S_BLOCK_REALIZE);
  if (ex) {
    const TirBlock *root = tir_realize_block(ex->body);
    CHECK(!strcmp(root->name, "root") && root->nreads == 0 && root->nwrites == 0);
    CHECK(root->body->kind == TIR_S_FOR);
  }
  ir_module_free(m);
}

static void test_aliases_and_int64_iters(void) {
  IrModule *m = ok("from tvm.script import tir as tir_\n"
                   "import tvm\n"
                   "@tir_.prim_func\n"
                   "def f(A: tir_.Buffer((T.int64(8),), \"float32\")):\n"
                   "    for j0 in tir_.serial(T.int64(8)):\n"
                   "        with T.sblock(\"A\"):\n"
                   "            vj = T.axis.spatial(T.int64(8), j0)\n"
                   "            A[vj] = tvm.tir.exp(A[vj])\n");
  if (!m) return;
  const TirFunc *f = func(m, "f");
  const TirStmt *ra = f ? find_block(f->body, "A") : NULL;
  CHECK(ra != NULL);
  if (ra) {
    const TirBlock *b = tir_realize_block(ra);
    CHECK(is_dtype(b->iters[0].var->dtype, dt_int64));
    CHECK(is_dtype(ra->realize.values[0]->dtype, dt_int64));
    CHECK(b->body->kind == TIR_S_STORE && b->body->store.value->kind == TIR_CALL &&
          b->body->store.value->call.op->id == TIR_OP_EXP);
  }
  ir_module_free(m);
}

static void test_builtins(void) {
  CHECK(builtin_known("T.grid"));
  CHECK(builtin_known("T.exp"));
  CHECK(builtin_known("T.float32x4"));
  CHECK(builtin_known("R.nn.relu"));
  CHECK(builtin_known("te.compute"));
  CHECK(!builtin_known("T.gird"));
  CHECK_EQ_STR(builtin_suggest("T.gird"), "T.grid");
  CHECK_EQ_STR(builtin_suggest("T.flaot32"), "T.float32");
  CHECK(builtin_suggest("T.completely_unrelated_name") == NULL);
}

static void test_errors(void) {
  const char *hdr = "@T.prim_func\ndef f(A: T.Buffer((8, 8), \"float32\"), "
                    "C: T.Buffer((8,), \"float32\")):\n";
  char buf[2048];
#define PROG(body) (snprintf(buf, sizeof buf, "%s%s", hdr, body), buf)
  expect_error(PROG("    for i in range(8):\n        C[i] = A[i, jj]\n"), 4, 21,
               "use of undefined name 'jj'");
  expect_error(PROG("    for i in range(8):\n        C[i] = A[i, 0, 1]\n"), 4, 16,
               "buffer 'A' has 2 dimensions but is indexed with 3 indices");
  expect_error(PROG("    for i in range(8):\n        C[i] = T.Ramp(i, 1, 4)\n"), 4, 16,
               "cannot store a value of type 'int32x4' into buffer 'C' of type 'float32'");
  expect_error(PROG("    for i in range(8):\n        C[i] = (i < 2) + A[i, i]\n"), 4, 17,
               "dtype mismatch in '+': 'bool' vs 'float32'");
  expect_error(PROG("    for i in range(8):\n        C[i] = A\n"), 4, 16,
               "buffer 'A' used as a value");
  /* a binding outside its domain is a warning, as TVM's parser accepts it (lit diag/) */
  expect_error(PROG("    for i, j in T.grid(8, 8):\n"
                    "        with T.block(\"C\"):\n"
                    "            vi, vj = T.axis.remap(\"SSR\", [i, j])\n"
                    "            C[vi] = 0.0\n"),
               5, 35, "T.axis.remap kind string \"SSR\" has 3 letters but 2 iter variables");
  expect_error(PROG("    for i in range(8):\n"
                    "        with T.block(\"C\"):\n"
                    "            vi = T.axis.remap(\"S\", [i+1])\n"
                    "            C[vi] = 0.0\n"),
               5, 37, "'i+1' is not a loop variable");
  expect_error(PROG("    for i in range(8):\n"
                    "        with T.block(\"C\"):\n"
                    "            vi = T.axis.spatial(8, i)\n"
                    "            vi = T.axis.spatial(8, i)\n"
                    "            C[vi] = 0.0\n"),
               6, 13, "block iter 'vi' is declared twice");
  expect_error(PROG("    with T.init():\n        C[0] = 0.0\n"), 3, 10, "T.init used outside a block");
  expect_error(PROG("    for i in range(8):\n        vi = T.axis.spatial(8, i)\n"), 4, 14,
               "T.axis.spatial used outside a block");
  expect_error(PROG("    for i in range(8):\n"
                    "        with T.block(\"C\"):\n"
                    "            vi = T.axis.spatial(8, i)\n"
                    "            C[vi] = 0.0\n"
                    "        C[vi] = 1.0\n"),
               7, 11, "use of undefined name 'vi'");
  expect_error(PROG("    for i in T.gird(8):\n        C[i] = 0.0\n"), 3, 14,
               "unknown builtin 'T.gird'; did you mean 'T.grid'?");
  expect_error(PROG("    for i in range(8):\n        C[i] = T.exx(A[i, i])\n"), 4, 16,
               "unknown builtin 'T.exx'; did you mean 'T.exp'?");
  expect_error(PROG("    for i in T.grid(8, foo=1):\n        C[i] = 0.0\n"), 3, 24,
               "unexpected keyword argument 'foo' to T.grid");
  expect_error(PROG("    x = 1\n    x = 2\n"), 4, 5, "cannot reassign variable 'x' in TIR");
  expect_error(PROG("    for i in range(8):\n        C[i] = T.Cast(\"float32\", T.uint8(300))\n"),
               4, 42, "value 300 does not fit in uint8");
  expect_error(PROG("    return\n"), 3, 5, "cannot return without a value");
  expect_error(PROG("    for i in range(8):\n        C[i] = T.exp(i)\n"), 4, 22,
               "T.exp expects a float argument, got 'int32'");
  expect_error(PROG("    C[0:2] = 1.0\n"), 3, 14,
               "cannot store a scalar of type 'float32' into 2 lanes of buffer 'C'; "
               "broadcast it, e.g. T.Broadcast(v, 2)");
  expect_error(PROG("    C[0] = T.floordiv(1, 0)\n"), 3, 12, "division by zero");
  expect_error(PROG("    for i in range(8):\n        if A[i, 0]:\n            C[i] = 1.0\n"), 4, 12,
               "if condition must be a boolean, got 'float32'");
  expect_error("@T.prim_fun\ndef f():\n    pass\n", 1, 2,
               "unknown decorator 'T.prim_fun'; did you mean 'T.prim_func'?");
  expect_error("@I.ir_module\nclass M:\n    def f():\n        pass\n", 3, 9,
               "function 'f' in an ir_module class needs a decorator such as @T.prim_func or "
               "@R.function");
  expect_error("@I.ir_module\nclass M:\n    pass\n@I.ir_module\nclass N:\n    pass\n", 5, 7,
               "at most one ir_module class");
  expect_error("@I.ir_module\nclass M:\n    pass\n@T.prim_func\ndef f():\n    pass\n", 5, 5,
               "cannot be combined with the ir_module class");
  expect_error("@T.prim_func\ndef f(a):\n    pass\n", 2, 7, "needs a type annotation");
#undef PROG
}

static void test_corpus(void) {
  const char *dir = getenv("TVS_SOURCE_DIR");
  if (!dir) return;
  static const char *const files[] = {
      "arith_float_ops", "axis_domain_pair", "axis_short_forms", "batch_matmul",
      "block_attr_evaluate", "int_div_mod", "loop_kinds", "match_buffer_transpose",
      "math_unary_f32", "matmul_bias_relu", "matmul_remap_reads", "minmax_limits",
      "mm_relu_call", "mm_relu_subscript", "nested_blocks", "scalar_clip_params",
      "scalar_prefix_n", "select_logic", "split_where", "symbolic_m_int64",
      "symbolic_n_rowsum", "thread_binding_add"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char *path = xasprintf("%s/tests/corpus/%s.tvs", dir, files[i]);
    const char *err;
    SourceFile *src = src_from_path(path, &err);
    free(path);
    if (!src) continue; /* the corpus is optional for this unit test */
    DiagCtx d;
    diag_init(&d, NULL);
    IrModule *m = tvs_load_module(src, &d);
    if (!m)
      for (int k = 0; k < d.len; k++)
        fprintf(stderr, "  %s:%u:%u: %s\n", files[i], d.items[k].span.line, d.items[k].span.col,
                d.items[k].msg);
    CHECK(m != NULL);
    ir_module_free(m);
    diag_free(&d);
    src_free(src);
  }
}

int main(void) {
  test_mm_relu();
  test_implicit_module();
  test_literal_types();
  test_symbolic();
  test_regions_and_blocks();
  test_statements();
  test_pass_and_root();
  test_aliases_and_int64_iters();
  test_builtins();
  test_errors();
  test_corpus();
  for (int i = 0; i < sources.len; i++) src_free(sources.items[i]);
  pv_free(&sources);
  TEST_MAIN_END();
}
