/* test_elab_te.c - the tensor-expression sugar (@te.prim_func).
 *
 * Each TE function is compared by structural equality with the T.prim_func a
 * user would write by hand (what te.create_prim_func gives), then a few
 * structural facts and the error messages (with line:col) are checked. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/structural_equal.h"
#include "lang/elab.h"
#include "base/util.h"

static DiagCtx D;

static IrModule *load(const char *text) {
  diag_clear(&D);
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  IrModule *m = tvs_load_module(src, &D);
  if (!m)
    for (int i = 0; i < D.len; i++)
      fprintf(stderr, "  unexpected: %u:%u: %s\n", D.items[i].span.line, D.items[i].span.col, D.items[i].msg);
  src_free(src);
  return m;
}

static bool fails(const char *text, unsigned line, unsigned col, const char *msg) {
  diag_clear(&D);
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  IrModule *m = tvs_load_module(src, &D);
  bool found = false;
  for (int i = 0; i < D.len; i++)
    if (D.items[i].sev == DIAG_ERROR && strstr(D.items[i].msg, msg) && D.items[i].span.line == line &&
        D.items[i].span.col == col)
      found = true;
  if (!found) {
    fprintf(stderr, "  expected %u:%u: %s; got:\n", line, col, msg);
    for (int i = 0; i < D.len; i++)
      fprintf(stderr, "    %u:%u: %s\n", D.items[i].span.line, D.items[i].span.col, D.items[i].msg);
  }
  bool ok = m == NULL && found;
  if (m) ir_module_free(m);
  src_free(src);
  return ok;
}

static const TirFunc *tir(const IrModule *m, const char *name) {
  const IrGlobal *g = m ? ir_module_lookup(m, name) : NULL;
  return g && g->kind == IR_FUNC_TIR ? g->tir : NULL;
}

/* Elaborates text and compares functions te and ref (ignoring global_symbol). */
static bool same(const char *text, const char *te, const char *ref) {
  IrModule *m = load(text);
  const TirFunc *a = tir(m, te), *b = tir(m, ref);
  bool ok = false;
  if (a && b) {
    SEqualOptions opt = {.ignore_global_symbol = true};
    char *diff = NULL;
    ok = seq_tir_func(a, b, &opt, &diff);
    if (!ok) fprintf(stderr, "  %s vs %s: %s\n", te, ref, diff ? diff : "?");
    free(diff);
  }
  if (m) ir_module_free(m);
  return ok;
}

static const char *MM_RELU =
    "from tvm.script import tir as T\n"
    "@te.prim_func\n"
    "def mm_relu(A: te.placeholder((128, 128), \"float32\"), B: te.placeholder((128, 128), \"float32\")):\n"
    "    k = te.reduce_axis((0, 128), name=\"k\")\n"
    "    Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name=\"Y\")\n"
    "    C = te.compute((128, 128), lambda i, j: T.max(Y[i, j], T.float32(0)), name=\"C\")\n"
    "    return C\n"
    "@T.prim_func\n"
    "def ref(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    Y = T.alloc_buffer((128, 128))\n"
    "    for i, j, k in T.grid(128, 128, 128):\n"
    "        with T.block(\"Y\"):\n"
    "            v_i, v_j, v_k = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                Y[v_i, v_j] = T.float32(0)\n"
    "            Y[v_i, v_j] = Y[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]\n"
    "    for i, j in T.grid(128, 128):\n"
    "        with T.block(\"C\"):\n"
    "            v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "            C[v_i, v_j] = T.max(Y[v_i, v_j], T.float32(0))\n";

static void test_mm_relu(void) {
  CHECK(same(MM_RELU, "mm_relu", "ref"));
  IrModule *m = load(MM_RELU);
  const TirFunc *f = tir(m, "mm_relu");
  CHECK(f != NULL);
  if (!f) return;
  CHECK_EQ_INT(f->nparams, 3);
  CHECK(f->buffer_param_sugar);
  CHECK(!strcmp(f->buffer_map[2]->name, "C"));
  const IrValue *gs = irv_dict_get(f->attrs, "global_symbol");
  CHECK(gs && !strcmp(gs->s, "mm_relu"));
  const IrValue *na = irv_dict_get(f->attrs, "tir.noalias");
  CHECK(na && na->kind == IRV_BOOL && na->i == 1);
  CHECK(f->body->kind == TIR_S_BLOCK_REALIZE);
  const TirBlock *root = tir_realize_block(f->body);
  CHECK(!strcmp(root->name, "root"));
  CHECK_EQ_INT(root->nallocs, 1);
  CHECK(!strcmp(root->allocs[0]->name, "Y"));
  CHECK(root->body->kind == TIR_S_SEQ && root->body->seq.n == 2);
  const TirStmt *l = root->body->seq.stmts[0];
  CHECK(l->kind == TIR_S_FOR && !strcmp(l->loop.var->name, "i"));
  const TirStmt *lk = l->loop.body->loop.body;
  CHECK(lk->kind == TIR_S_FOR && !strcmp(lk->loop.var->name, "k"));
  const TirBlock *y = tir_realize_block(lk->loop.body);
  CHECK(!strcmp(y->name, "Y"));
  CHECK_EQ_INT(y->niters, 3);
  CHECK(!strcmp(y->iters[0].var->name, "v_i") && !strcmp(y->iters[2].var->name, "v_k"));
  CHECK(y->iters[2].type == TIR_ITER_REDUCE && y->iters[0].type == TIR_ITER_SPATIAL);
  CHECK(y->init != NULL);
  CHECK_EQ_INT(y->nreads, 2);
  CHECK(!strcmp(y->reads[0].buffer->name, "A") && !strcmp(y->reads[1].buffer->name, "B"));
  CHECK_EQ_INT(y->nwrites, 1);
  ir_module_free(m);
}

static const char *SOFTMAX =
    "@te.prim_func\n"
    "def softmax(A: te.placeholder((4, 16), \"float32\")):\n"
    "    k = te.reduce_axis((0, 16), name=\"k\")\n"
    "    M = te.compute((4,), lambda i: te.max(A[i, k], axis=k), name=\"M\")\n"
    "    E = te.compute((4, 16), lambda i, j: T.exp(A[i, j] - M[i]), name=\"E\")\n"
    "    S = te.compute((4,), lambda i: te.sum(E[i, k], axis=k), name=\"S\")\n"
    "    O = te.compute((4, 16), lambda i, j: E[i, j] / S[i], name=\"O\")\n"
    "    return O\n"
    "@T.prim_func\n"
    "def ref(A: T.Buffer((4, 16), \"float32\"), O: T.Buffer((4, 16), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    M = T.alloc_buffer((4,))\n"
    "    E = T.alloc_buffer((4, 16))\n"
    "    S = T.alloc_buffer((4,))\n"
    "    for i, k in T.grid(4, 16):\n"
    "        with T.block(\"M\"):\n"
    "            v_i, v_k = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                M[v_i] = T.float32(-3.4028234663852886e+38)\n"
    "            M[v_i] = T.max(M[v_i], A[v_i, v_k])\n"
    "    for i, j in T.grid(4, 16):\n"
    "        with T.block(\"E\"):\n"
    "            v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "            E[v_i, v_j] = T.exp(A[v_i, v_j] - M[v_i])\n"
    "    for i, k in T.grid(4, 16):\n"
    "        with T.block(\"S\"):\n"
    "            v_i, v_k = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                S[v_i] = T.float32(0)\n"
    "            S[v_i] = S[v_i] + E[v_i, v_k]\n"
    "    for i, j in T.grid(4, 16):\n"
    "        with T.block(\"O\"):\n"
    "            v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "            O[v_i, v_j] = E[v_i, v_j] / S[v_i]\n";

static const char *ELEMWISE =
    "@te.prim_func\n"
    "def ew(A: te.placeholder((8, 4), \"float16\"), B: te.placeholder((4,), \"float16\")):\n"
    "    C = te.compute((8, 4), lambda i, j: A[i, j] + B[j], name=\"C\")\n"
    "    D = te.compute((8, 4), lambda i, j: T.Cast(\"float32\", C[i, j]) * T.float32(2), name=\"D\")\n"
    "    return C, D\n"
    "@T.prim_func\n"
    "def ref(A: T.Buffer((8, 4), \"float16\"), B: T.Buffer((4,), \"float16\"), C: T.Buffer((8, 4), \"float16\"), D: T.Buffer((8, 4), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    for i, j in T.grid(8, 4):\n"
    "        with T.block(\"C\"):\n"
    "            v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "            C[v_i, v_j] = A[v_i, v_j] + B[v_j]\n"
    "    for i, j in T.grid(8, 4):\n"
    "        with T.block(\"D\"):\n"
    "            v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "            D[v_i, v_j] = T.Cast(\"float32\", C[v_i, v_j]) * T.float32(2)\n";

static const char *SYMBOLIC =
    "@te.prim_func\n"
    "def rowsum(A: te.placeholder((\"m\", 16))):\n"
    "    n = T.int32()\n"
    "    r = te.reduce_axis((0, 16), name=\"r\")\n"
    "    B = te.compute((n,), lambda i: te.sum(A[i, r], axis=r))\n"
    "    return B\n";

static const char *SYMBOLIC_OK =
    "@te.prim_func\n"
    "def rowsum(A: te.placeholder((n, 16))):\n"
    "    n = T.int32()\n"
    "    r = te.reduce_axis((2, 16), name=\"r\")\n"
    "    B = te.compute((n,), lambda i: te.sum(A[i, r], axis=r))\n"
    "    return B\n"
    "@T.prim_func\n"
    "def ref(a: T.handle, b: T.handle):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    n = T.int32()\n"
    "    A = T.match_buffer(a, (n, 16))\n"
    "    B = T.match_buffer(b, (n,))\n"
    "    for i in range(n):\n"
    "        for r in range(2, 16):\n"
    "            with T.block(\"compute\"):\n"
    "                v_i = T.axis.spatial(n, i)\n"
    "                v_r = T.axis.reduce((2, 16), r)\n"
    "                with T.init():\n"
    "                    B[v_i] = T.float32(0)\n"
    "                B[v_i] = B[v_i] + A[v_i, v_r]\n";

static void test_more(void) {
  CHECK(same(SOFTMAX, "softmax", "ref"));
  CHECK(same(ELEMWISE, "ew", "ref"));
  IrModule *m = load(ELEMWISE);
  const TirFunc *f = tir(m, "ew");
  CHECK(f && f->nparams == 4);
  if (f) {
    CHECK(dt_eq(f->buffer_map[2]->dtype, dt_float16));
    CHECK(dt_eq(f->buffer_map[3]->dtype, dt_float32));
    CHECK_EQ_INT(tir_realize_block(f->body)->nallocs, 0);
  }
  if (m) ir_module_free(m);
  /* string dims name size vars declared with T.int32() */
  CHECK(fails(SYMBOLIC, 2, 31, "undefined size variable 'm'"));
  CHECK(same(SYMBOLIC_OK, "rowsum", "ref"));
  m = load(SYMBOLIC_OK);
  f = tir(m, "rowsum");
  CHECK(f != NULL);
  if (f) {
    const TirBuffer *a = f->buffer_map[0];
    CHECK(a->shape[0]->kind == TIR_VAR && !strcmp(a->shape[0]->var->name, "n"));
    const TirBlock *root = tir_realize_block(f->body);
    const TirStmt *lr = root->body->loop.body;
    CHECK(lr->kind == TIR_S_FOR && lr->loop.min->kind == TIR_INT && lr->loop.min->ival == 2 &&
          lr->loop.extent->ival == 14);
    CHECK(!strcmp(tir_realize_block(lr->loop.body)->name, "compute"));
    CHECK(!strcmp(f->buffer_map[1]->name, "B"));
    /* the hand-written version uses handles + match_buffer: compare the blocks only */
    const TirFunc *r = tir(m, "ref");
    CHECK(r != NULL);
  }
  if (m) ir_module_free(m);
  /* dtype= override and int reductions */
  const char *imax =
      "@te.prim_func\n"
      "def f(A: te.placeholder((8, 8), \"int32\")):\n"
      "    k = te.reduce_axis((0, 8), name=\"k\")\n"
      "    B = te.compute((8,), lambda i: te.max(A[i, k], axis=k), name=\"B\")\n"
      "    C = te.compute((8,), lambda i: te.min(A[i, k], axis=[k]), name=\"C\")\n"
      "    D = te.compute((8,), lambda i: B[i] + C[i], name=\"D\", dtype=\"int64\")\n"
      "    return D\n";
  m = load(imax);
  f = tir(m, "f");
  CHECK(f != NULL);
  if (f) {
    const TirBlock *root = tir_realize_block(f->body);
    CHECK_EQ_INT(root->nallocs, 2);
    const TirStmt *lb = root->body->seq.stmts[0]->loop.body;
    const TirBlock *b = tir_realize_block(lb->loop.body);
    CHECK(b->init->store.value->kind == TIR_INT && b->init->store.value->ival == INT32_MIN);
    CHECK(b->body->store.value->kind == TIR_MAX);
    const TirBlock *cb = tir_realize_block(root->body->seq.stmts[1]->loop.body->loop.body);
    CHECK(cb->init->store.value->ival == INT32_MAX && cb->body->store.value->kind == TIR_MIN);
    CHECK(dt_eq(f->buffer_map[1]->dtype, dt_int64));
  }
  if (m) ir_module_free(m);
}

static void test_errors(void) {
  CHECK(fails("@te.prim_func\n"
              "def f(A: te.placeholder((8, 8))):\n"
              "    k = te.reduce_axis((0, 8), name=\"k\")\n"
              "    B = te.compute((8,), lambda i: A[i, k])\n"
              "    return B\n",
              4, 41, "reduce axis 'k' is used outside te.sum/te.max/te.min"));
  CHECK(fails("@te.prim_func\n"
              "def f(A: te.placeholder((8, 8))):\n"
              "    B = te.compute((8, 8), lambda i: A[i, i])\n"
              "    return B\n",
              3, 28, "the lambda takes 1 argument but the shape has 2 dimensions"));
  CHECK(fails("@te.prim_func\n"
              "def f(A: te.placeholder((8, 8))):\n"
              "    B = te.compute((8,), lambda i: A[i] + 1.0)\n"
              "    return B\n",
              3, 36, "tensor 'A' has 2 dimensions but is indexed with 1 index"));
  CHECK(fails("@te.prim_func\n"
              "def f(A: te.placeholder((8,))):\n"
              "    B = te.compute((8,), lambda i: te.exp(A[i]))\n"
              "    return B\n",
              3, 36, "unknown te builtin 'te.exp'"));
  CHECK(fails("@te.prim_func\n"
              "def f(A: te.placeholder((8,))):\n"
              "    B = te.comptue((8,), lambda i: A[i])\n"
              "    return B\n",
              3, 9, "unknown te builtin 'te.comptue'"));
  CHECK(fails("@te.prim_func\n"
              "def f(A: te.placeholder((8, 8))):\n"
              "    k = te.reduce_axis((0, 8), name=\"k\")\n"
              "    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k) * 2.0)\n"
              "    return B\n",
              4, 36, "te.sum must be the whole formula"));
  CHECK(fails("@te.prim_func\n"
              "def f(A: te.placeholder((8,))):\n"
              "    B = te.compute((8,), lambda i: A[i])\n",
              1, 2, "must return the tensor"));
  CHECK(fails("@te.prim_func\n"
              "def f(A: te.placeholder((8,))):\n"
              "    return A\n",
              3, 12, "'A' is a placeholder"));
  CHECK(fails("@te.prim_func\n"
              "def f(A: T.Buffer((8,))):\n"
              "    B = te.compute((8,), lambda i: A[i])\n"
              "    return B\n",
              2, 10, "must be annotated te.placeholder"));
}

int main(void) {
  diag_init(&D, NULL);
  test_mm_relu();
  test_more();
  test_errors();
  diag_free(&D);
  TEST_MAIN_END();
}
