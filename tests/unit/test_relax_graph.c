/* test_relax_graph.c - graph functions compiled ahead of time: LegalizeOps
 * (ir/transform/relax_legalize_ops.c) and the graph codegen
 * (codegen/cg_relax_graph.c), against the interpreter.
 *
 * - legalize: generated names (TVM's, with _1 when the name is taken),
 *   reuse of structurally equal functions, no high-level call left;
 * - run: a symbolic-batch graph mixing every legalized operator, returning a
 *   tuple of (a call_tir result, an intermediate also read later, an input)
 *   through the packed entry, equal to the interpreter on the same inputs;
 * - checks: the packed entry's argument checks (count, dtype, symbolic
 *   consistency across inputs and outputs), a call_tir dim only known at run
 *   time (also the inner dim of a legalized matmul over symbolic operands),
 *   and compile-time errors (static shape mismatch, an operator without
 *   legalization);
 * - registry: every row of ir/relax_ops.def has an id equal to its index, a
 *   TVM pattern kind, an attribute schema and an inference function; the
 *   interpreter and legalizer columns are filled exactly for the operators they
 *   support; lookups by script name and TVM name give the same row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codegen/codegen.h"
#include "ir/interp.h"
#include "ir/relax_op.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "base/util.h"
#include "runtime/ndarray.h"

static const char *mix_src =
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 4), \"float32\"), w: R.Tensor((4, 3), \"float32\"),\n"
    "             b: R.Tensor((3,), \"float32\"), c: R.Tensor((1, 3), \"float32\")):\n"
    "        with R.dataflow():\n"
    "            lv0 = R.matmul(x, w)\n"
    "            lv1 = R.add(lv0, b)\n"
    "            lv2 = R.add(lv1, b)\n"
    "            lv3 = R.add(lv2, c)\n"
    "            lv4 = R.nn.relu(lv3)\n"
    "            lv5 = R.maximum(lv4, R.const(0.5, \"float32\"))\n"
    "            lv6 = R.divide(lv5, R.const(2.0, \"float32\"))\n"
    "            lv7 = R.minimum(lv6, lv1)\n"
    "            lv8 = R.subtract(lv7, lv0)\n"
    "            gv = (lv8, lv1, x)\n"
    "            R.output(gv)\n"
    "        return gv\n";

/* A prim_func of static shape called on a symbolic tensor. */
static const char *dyn_src =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def copy4(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
    "        for i in range(4):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(4, i)\n"
    "                B[vi] = A[vi]\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\",), \"float32\")):\n"
    "        n = T.int64()\n"
    "        with R.dataflow():\n"
    "            gv = R.call_tir(Module.copy4, (x,), out_sinfo=R.Tensor((n,), \"float32\"))\n"
    "            R.output(gv)\n"
    "        return gv\n";

static const char *static_bad_src =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def copy4(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
    "        for i in range(4):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(4, i)\n"
    "                B[vi] = A[vi]\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((8,), \"float32\")):\n"
    "        with R.dataflow():\n"
    "            gv = R.call_tir(Module.copy4, (x,), out_sinfo=R.Tensor((8,), \"float32\"))\n"
    "            R.output(gv)\n"
    "        return gv\n";

/* Symbolic operands: B's rows of the matmul are tied to A's columns. */
static const char *sym_src =
    "@R.function\n"
    "def main(x: R.Tensor((\"n\", 3), \"float32\"), y: R.Tensor((1, 3), \"float32\"),\n"
    "         w: R.Tensor((\"k\", 2), \"float32\")):\n"
    "    with R.dataflow():\n"
    "        lv = R.add(x, y)\n"
    "        gv = R.matmul(lv, w)\n"
    "        R.output(gv)\n"
    "    return gv\n";

static const char *unlegalized_src =
    "@R.function\n"
    "def main(x: R.Tensor((\"n\",), \"int64\")):\n"
    "    n = T.int64()\n"
    "    with R.dataflow():\n"
    "        gv = R.clip(x, R.prim_value(n), 6)\n"
    "        R.output(gv)\n"
    "    return gv\n";

typedef struct Compiled {
  SourceFile *src;
  IrModule *m;    /* as written */
  IrModule *leg;  /* legalized */
  TVSModule *mod; /* JIT, graph functions included */
  DiagCtx d;
} Compiled;

/* Loads, legalizes, lowers, builds (with graph functions) and JITs text. */
static void compile(Compiled *c, const char *text) {
  memset(c, 0, sizeof *c);
  diag_init(&c->d, NULL);
  c->d.out = NULL;
  c->src = src_from_string("test.tvs", text, strlen(text));
  c->m = tvs_load_module(c->src, &c->d);
  if (!c->m || c->d.nerr) return;
  c->leg = rx_legalize_ops(c->m, &c->d, NULL);
  IrModule *low = tir_lower(c->leg, -1, &c->d, NULL, NULL);
  CgOptions opt = cg_options_default();
  opt.graph_funcs = true;
  CgResult *r = low ? cg_build(low, &opt, &c->d) : NULL;
  c->mod = r ? cg_jit(r, &c->d) : NULL;
  cg_free(r);
  ir_module_free(low);
}

static void compiled_free(Compiled *c) {
  tvs_module_free(c->mod);
  ir_module_free(c->leg);
  ir_module_free(c->m);
  src_free(c->src);
  diag_free(&c->d);
}

static const char *last_diag(const Compiled *c) { return c->d.len ? c->d.items[c->d.len - 1].msg : ""; }

static int call(TVSFunction *fn, TVSValue *v, int *codes, int n) {
  TVSValue ret;
  int rtc;
  return tvs_func_call(fn, v, codes, n, &ret, &rtc);
}

static void fill(DLTensor *t, unsigned seed) {
  int64_t n = tvs_ndarray_numel(t);
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    ((float *)t->data)[i] = (float)((seed >> 16) % 2001) / 1000.0f - 1.0f;
  }
}

static void test_legalize(void) {
  Compiled c;
  compile(&c, mix_src);
  CHECK(c.leg != NULL);
  if (!c.leg) return compiled_free(&c);
  const char *want[] = {"matmul", "add", "add1", "relu", "maximum", "divide", "minimum", "subtract"};
  int ntir = 0;
  for (int i = 0; i < c.leg->nfuncs; i++) ntir += c.leg->funcs[i].kind == IR_FUNC_TIR;
  CHECK_EQ_INT(ntir, 8); /* the second R.add(., b) reuses `add` */
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const IrGlobal *g = ir_module_lookup(c.leg, want[i]);
    CHECK(g && g->kind == IR_FUNC_TIR);
    if (!g) fprintf(stderr, "missing legalized function %s\n", want[i]);
  }
  CHECK(ir_module_lookup(c.leg, "add2") == NULL);
  /* every binding of main is a call_tir or a tuple now */
  const RxFunc *f = ir_module_lookup(c.leg, "main")->rx;
  int ncalls = 0;
  for (int bi = 0; bi < f->body->seq.nblocks; bi++)
    for (int i = 0; i < f->body->seq.blocks[bi].n; i++) {
      const RxExpr *v = f->body->seq.blocks[bi].bindings[i].value;
      if (v->kind != RX_CALL) continue;
      CHECK_EQ_STR(v->call.op->name, "relax.call_tir");
      ncalls++;
    }
  CHECK_EQ_INT(ncalls, 9);
  /* the generated add of the symbolic batch has its own size var */
  const TirFunc *add = ir_module_lookup(c.leg, "add")->tir;
  CHECK(add->buffer_map[0]->shape[0]->kind == TIR_VAR);
  CHECK(add->buffer_map[0]->shape[0]->var != f->params[0]->sinfo->shape[0]->var);
  CHECK_EQ_STR(add->buffer_map[2]->name, "T_add");
  compiled_free(&c);
}

static void test_run_and_checks(void) {
  Compiled c;
  compile(&c, mix_src);
  CHECK(c.mod != NULL);
  if (!c.mod) {
    fprintf(stderr, "compile: %s\n", last_diag(&c));
    return compiled_free(&c);
  }
  const TVSFuncInfo *info = tvs_module_func_info(c.mod, "main");
  CHECK(info != NULL);
  if (info) {
    CHECK_EQ_INT(info->num_params, 7);
    CHECK_EQ_INT(info->num_outputs, 3);
    CHECK_EQ_STR(info->params[4].name, "output_0");
    CHECK_EQ_STR(info->params[6].name, "output_2");
    CHECK_EQ_INT(info->params[4].shape[0], -1);
    CHECK_EQ_STR(info->params[4].sym_dims[0], "n");
  }
  DLDataType f32 = {kDLFloat, 32, 1}, i32 = {kDLInt, 32, 1};
  int64_t sx[2] = {5, 4}, sw[2] = {4, 3}, sb[1] = {3}, sc[2] = {1, 3}, so[2] = {5, 3}, so7[2] = {7, 3};
  TvsNDArray *a[7] = {tvs_ndarray_empty(2, sx, f32), tvs_ndarray_empty(2, sw, f32), tvs_ndarray_empty(1, sb, f32),
                      tvs_ndarray_empty(2, sc, f32), tvs_ndarray_empty(2, so, f32), tvs_ndarray_empty(2, so, f32),
                      tvs_ndarray_empty(2, sx, f32)};
  for (int i = 0; i < 4; i++) fill(&a[i]->t, 7u + (unsigned)i);
  TVSValue v[7];
  int codes[7];
  for (int i = 0; i < 7; i++) v[i].v_handle = &a[i]->t, codes[i] = TVS_TENSOR;
  TVSFunction *fn = tvs_module_get_function(c.mod, "main");
  CHECK_EQ_INT(call(fn, v, codes, 7), 0);
  /* the interpreter on the module as written */
  InterpArg args[4];
  memset(args, 0, sizeof args);
  for (int i = 0; i < 4; i++) args[i].tensor = &a[i]->t;
  DLTensor **res = NULL;
  int nres = 0;
  CHECK_EQ_INT(interp_run_relax(c.m, "main", args, 4, &res, &nres, &c.d), 0);
  CHECK_EQ_INT(nres, 3);
  for (int k = 0; k < nres && k < 3; k++) {
    int64_t n = tvs_ndarray_numel(res[k]), bad = 0;
    CHECK_EQ_INT(n, tvs_ndarray_numel(&a[4 + k]->t));
    for (int64_t i = 0; i < n; i++)
      bad += fabsf(((float *)res[k]->data)[i] - ((float *)a[4 + k]->t.data)[i]) > 1e-6f;
    CHECK_EQ_INT(bad, 0);
  }
  for (int k = 0; k < nres; k++) interp_free_result(res[k]);
  free(res);
  /* argument checks of the packed entry */
  CHECK_EQ_INT(call(fn, v, codes, 4), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "main: expected 7 arguments, got 4");
  TvsNDArray *o7 = tvs_ndarray_empty(2, so7, f32), *oi = tvs_ndarray_empty(2, so, i32);
  v[5].v_handle = &o7->t;
  CHECK_EQ_INT(call(fn, v, codes, 7), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "main: inconsistent value for symbolic dimension 'n': 7 (argument 'output_1') vs 5 (argument 'x')");
  v[5].v_handle = &oi->t;
  CHECK_EQ_INT(call(fn, v, codes, 7), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "main: argument 5 ('output_1') has dtype int32, expected float32");
  tvs_ndarray_free(o7);
  tvs_ndarray_free(oi);
  tvs_func_release(fn);
  for (int i = 0; i < 7; i++) tvs_ndarray_free(a[i]);
  compiled_free(&c);
}

static void test_runtime_dim_check(void) {
  Compiled c;
  compile(&c, dyn_src);
  CHECK(c.mod != NULL);
  if (!c.mod) {
    fprintf(stderr, "compile: %s\n", last_diag(&c));
    return compiled_free(&c);
  }
  TVSFunction *fn = tvs_module_get_function(c.mod, "main");
  DLDataType f32 = {kDLFloat, 32, 1};
  int64_t s4[1] = {4}, s5[1] = {5};
  TvsNDArray *x4 = tvs_ndarray_empty(1, s4, f32), *y4 = tvs_ndarray_empty(1, s4, f32);
  TvsNDArray *x5 = tvs_ndarray_empty(1, s5, f32), *y5 = tvs_ndarray_empty(1, s5, f32);
  fill(&x4->t, 3);
  TVSValue v[2] = {{.v_handle = &x4->t}, {.v_handle = &y4->t}};
  int codes[2] = {TVS_TENSOR, TVS_TENSOR};
  CHECK_EQ_INT(call(fn, v, codes, 2), 0);
  CHECK(!memcmp(x4->t.data, y4->t.data, 16));
  v[0].v_handle = &x5->t;
  v[1].v_handle = &y5->t;
  CHECK_EQ_INT(call(fn, v, codes, 2), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "main: call_tir to 'copy4': argument 0 ('A') shape[0] is 5, expected 4");
  tvs_func_release(fn);
  tvs_ndarray_free(x4);
  tvs_ndarray_free(y4);
  tvs_ndarray_free(x5);
  tvs_ndarray_free(y5);
  compiled_free(&c);
}

static void test_symbolic_operands(void) {
  Compiled c;
  compile(&c, sym_src);
  CHECK(c.mod != NULL);
  if (!c.mod) {
    fprintf(stderr, "compile: %s\n", last_diag(&c));
    return compiled_free(&c);
  }
  TVSFunction *fn = tvs_module_get_function(c.mod, "main");
  DLDataType f32 = {kDLFloat, 32, 1};
  int64_t sx[2] = {5, 3}, sy[2] = {1, 3}, sw[2] = {3, 2}, sw4[2] = {4, 2}, so[2] = {5, 2};
  TvsNDArray *x = tvs_ndarray_empty(2, sx, f32), *y = tvs_ndarray_empty(2, sy, f32);
  TvsNDArray *w = tvs_ndarray_empty(2, sw, f32), *w4 = tvs_ndarray_empty(2, sw4, f32);
  TvsNDArray *o = tvs_ndarray_empty(2, so, f32);
  fill(&x->t, 1);
  fill(&y->t, 2);
  fill(&w->t, 3);
  TVSValue v[4] = {{.v_handle = &x->t}, {.v_handle = &y->t}, {.v_handle = &w->t}, {.v_handle = &o->t}};
  int codes[4] = {TVS_TENSOR, TVS_TENSOR, TVS_TENSOR, TVS_TENSOR};
  CHECK_EQ_INT(call(fn, v, codes, 4), 0);
  const float *X = x->t.data, *Y = y->t.data, *W = w->t.data, *O = o->t.data;
  int bad = 0;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 2; j++) {
      float acc = 0;
      for (int k = 0; k < 3; k++) acc += (X[i * 3 + k] + Y[k]) * W[k * 2 + j];
      bad += fabsf(acc - O[i * 2 + j]) > 1e-6f;
    }
  CHECK_EQ_INT(bad, 0);
  v[2].v_handle = &w4->t;
  CHECK_EQ_INT(call(fn, v, codes, 4), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "main: call_tir to 'matmul': argument 1 ('B') shape[0] is 4, expected 3");
  tvs_func_release(fn);
  tvs_ndarray_free(x);
  tvs_ndarray_free(y);
  tvs_ndarray_free(w);
  tvs_ndarray_free(w4);
  tvs_ndarray_free(o);
  compiled_free(&c);
}

static void test_compile_errors(void) {
  Compiled c;
  compile(&c, static_bad_src);
  CHECK(c.mod == NULL);
  CHECK(strstr(last_diag(&c), "cannot compile graph function 'main': call_tir to 'copy4': argument 0 ('A') "
                              "shape[0] is 8, the prim_func expects 4") != NULL);
  if (c.mod || !strstr(last_diag(&c), "shape[0] is 8")) fprintf(stderr, "got: %s\n", last_diag(&c));
  compiled_free(&c);
  compile(&c, unlegalized_src);
  CHECK(c.mod == NULL);
  CHECK(strstr(last_diag(&c), "R.clip cannot be compiled") != NULL);
  if (!strstr(last_diag(&c), "R.clip")) fprintf(stderr, "got: %s\n", last_diag(&c));
  compiled_free(&c);
}

static void test_registry(void) {
  int n_eval = 0, n_legal = 0;
  for (int id = 0; id < RX_OP_COUNT; id++) {
    const RxOpInfo *op = rx_op_info((RxOpId)id);
    CHECK(op != NULL);
    if (!op) continue;
    CHECK_EQ_INT(op->id, id);
    CHECK(rx_op_lookup(op->script_name) == op);
    CHECK(rx_op_by_name(op->name) == op);
    char want[96];
    snprintf(want, sizeof want, "relax.%s", op->script_name);
    CHECK_EQ_STR(op->name, want);
    CHECK(strcmp(rx_op_pattern_name(op->pattern), "?") != 0);
    CHECK(op->infer != NULL);
    CHECK(op->attrs != NULL);
    CHECK(op->min_args >= 0 && op->min_args <= op->max_args);
    if (op->attrs) {
      CHECK(!op->attrs->open || op->attrs->n == 0);
      for (int k = 0; k < op->attrs->n; k++) CHECK(op->attrs->specs[k].name != NULL);
    }
    /* the binary families read the element operation from the row */
    bool bin = op->eval == rx_eval_binary || op->legalize == rx_legalize_binary;
    bool ew_bin = op->eval == rx_eval_ew_binary || op->legalize == rx_legalize_ew_binary;
    if (bin || (ew_bin && op->id != RX_OP_POWER)) CHECK(op->tir_binop >= 0); /* reductions read their combiner from it too */
    if (bin) CHECK(op->eval == rx_eval_binary && op->legalize == rx_legalize_binary);
    if (ew_bin) CHECK(op->eval == rx_eval_ew_binary && op->legalize == rx_legalize_ew_binary);
    /* every legalized operator has reference semantics to be checked against */
    if (op->legalize) CHECK(op->eval != NULL);
    /* legalizer and interpreter take the operands positionally, a fixed count */
    /* (the positions past min_args are attributes written positionally) */
    if (op->legalize || (op->eval && op->eval != rx_eval_call_tir))
      CHECK(op->min_args == op->max_args || op->attrs->n > 0);
    n_eval += op->eval != NULL;
    n_legal += op->legalize != NULL;
  }
  CHECK(rx_op_info(RX_OP_COUNT) == NULL);
  CHECK(rx_op_lookup("no_such_op") == NULL);
  CHECK(rx_op_by_name("relax.no_such_op") == NULL);
  /* the operator library grows family by family: at least call_tir (interpreter
   * only), the arithmetic binaries, matmul and nn.relu, and every legalized op
   * has reference semantics (checked above) */
  CHECK(n_eval >= 10 && n_legal >= 9 && n_eval > n_legal);
  CHECK(rx_op_info(RX_OP_CALL_TIR)->eval == rx_eval_call_tir);
  CHECK(rx_op_info(RX_OP_POWER)->eval == rx_eval_ew_binary && rx_op_info(RX_OP_EXP)->legalize == rx_legalize_ew_unary);
  /* TVM's pattern kinds and values */
  CHECK_EQ_INT(rx_op_info(RX_OP_ADD)->pattern, 1);
  CHECK_EQ_STR(rx_op_pattern_name(rx_op_info(RX_OP_ADD)->pattern), "kBroadcast");
  CHECK_EQ_INT(rx_op_info(RX_OP_EXP)->pattern, RX_PAT_ELEMWISE);
  CHECK_EQ_INT(rx_op_info(RX_OP_NN_RELU)->pattern, RX_PAT_ELEMWISE);
  CHECK_EQ_INT(rx_op_info(RX_OP_MATMUL)->pattern, 4);
  CHECK_EQ_INT(rx_op_info(RX_OP_SUM)->pattern, RX_PAT_COMM_REDUCE);
  CHECK_EQ_INT(rx_op_info(RX_OP_RESHAPE)->pattern, RX_PAT_INJECTIVE);
  CHECK_EQ_INT(rx_op_info(RX_OP_CALL_TIR)->pattern, 8);
  CHECK_EQ_STR(rx_op_pattern_name(RX_PAT_OUT_EWISE_FUSABLE), "kOutEWiseFusable");
  /* attribute schemas */
  const RxAttrSchema *mm = rx_op_info(RX_OP_MATMUL)->attrs;
  CHECK(mm->n == 1 && mm->check_keywords && !mm->open);
  CHECK_EQ_STR(mm->specs[0].name, "out_dtype");
  CHECK_EQ_STR(mm->specs[0].default_text, "void");
  CHECK_EQ_INT(mm->specs[0].pos, 2); /* matmul(x1, x2, out_dtype=None) */
  const RxAttrSchema *as = rx_op_info(RX_OP_ASTYPE)->attrs;
  CHECK(as->n == 1 && as->specs[0].pos == 1);
  CHECK(rx_op_info(RX_OP_ADD)->attrs->n == 0 && rx_op_info(RX_OP_ADD)->attrs->check_keywords);
  const RxAttrSchema *sm = rx_op_info(RX_OP_NN_SOFTMAX)->attrs;
  CHECK(!sm->open && sm->n == 1 && sm->specs[0].pos == 1 && !strcmp(sm->specs[0].default_text, "-1"));
  CHECK(rx_op_info(RX_OP_EQUAL)->infer == rx_infer_compare_bcast);
  CHECK(rx_op_info(RX_OP_NN_GELU)->infer == rx_infer_ew_unary);
}

int main(void) {
  test_legalize();
  test_run_and_checks();
  test_runtime_dim_check();
  test_symbolic_operands();
  test_compile_errors();
  test_registry();
  TEST_MAIN_END();
}
