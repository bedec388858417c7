/* test_elab_relax.c - elaboration of @R.function: struct info, bindings,
 * dataflow blocks, call_tir, operators with shape/dtype inference, constants
 * and the error messages (with line:col) for bad programs. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
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

/* Elaborates text expecting an error at line:col whose message contains msg. */
static bool fails(const char *text, unsigned line, unsigned col, const char *msg) {
  diag_clear(&D);
  SourceFile *src = src_from_string("t.tvs", text, strlen(text));
  IrModule *m = tvs_load_module(src, &D);
  bool ok = m == NULL;
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
  if (m) ir_module_free(m);
  src_free(src);
  return ok && found;
}

static const RxFunc *rx(const IrModule *m, const char *name) {
  const IrGlobal *g = m ? ir_module_lookup(m, name) : NULL;
  return g && g->kind == IR_FUNC_RELAX ? g->rx : NULL;
}

static bool dim_is(const TirExpr *e, int64_t v) {
  return e && e->kind == TIR_INT && e->ival == v && dt_eq(e->dtype, dt_int64);
}

static bool tensor_is(const RxSInfo *s, int ndim, DType t) {
  return s && s->kind == RX_SI_TENSOR && s->ndim == ndim && dt_eq(s->dtype, t);
}

static const char *MOD_ADD =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def add_one(A: T.Buffer((T.int64(16),), \"float32\"), B: T.Buffer((T.int64(16),), \"float32\")):\n"
    "        for i in range(T.int64(16)):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.remap(\"S\", [i])\n"
    "                B[vi] = A[vi] + T.float32(1)\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((16,), dtype=\"float32\")) -> R.Tensor((16,), dtype=\"float32\"):\n"
    "        cls = Module\n"
    "        with R.dataflow():\n"
    "            lv0 = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((16,), dtype=\"float32\"))\n"
    "            y = R.nn.relu(lv0)\n"
    "            R.output(y)\n"
    "        return y\n";

static void test_call_tir_dataflow(void) {
  IrModule *m = load(MOD_ADD);
  const RxFunc *f = rx(m, "main");
  CHECK(f != NULL);
  if (!f) return;
  CHECK_EQ_INT(f->nparams, 1);
  CHECK(f->params[0]->kind == RX_VAR);
  CHECK(tensor_is(f->params[0]->sinfo, 1, dt_float32));
  CHECK(dim_is(f->params[0]->sinfo->shape[0], 16));
  CHECK(tensor_is(f->ret_sinfo, 1, dt_float32));
  CHECK(f->is_pure);
  CHECK(f->body->kind == RX_SEQ);
  CHECK_EQ_INT(f->body->seq.nblocks, 1);
  const RxBlock *b = &f->body->seq.blocks[0];
  CHECK(b->is_dataflow);
  CHECK_EQ_INT(b->n, 2);
  CHECK(b->bindings[0].var->kind == RX_DATAFLOW_VAR);
  CHECK(b->bindings[1].var->kind == RX_VAR);
  const RxExpr *call = b->bindings[0].value;
  CHECK(call->kind == RX_CALL && !strcmp(call->call.op->name, "relax.call_tir"));
  CHECK_EQ_INT(call->call.n, 2);
  CHECK(call->call.args[0]->kind == RX_GLOBAL_VAR && !strcmp(call->call.args[0]->gvar.name, "add_one"));
  CHECK(call->call.args[1]->kind == RX_TUPLE && call->call.args[1]->tuple.n == 1);
  CHECK(call->call.args[1]->tuple.fields[0] == f->params[0]);
  CHECK_EQ_INT(call->call.nsinfo_args, 1);
  CHECK(tensor_is(call->sinfo, 1, dt_float32));
  const RxExpr *relu = b->bindings[1].value;
  CHECK(relu->kind == RX_CALL && !strcmp(relu->call.op->name, "relax.nn.relu"));
  CHECK(relu->call.args[0] == b->bindings[0].var);
  CHECK(f->body->seq.body == b->bindings[1].var);
  const IrValue *gs = irv_dict_get(f->attrs, "global_symbol");
  CHECK(gs && gs->kind == IRV_STR && !strcmp(gs->s, "main"));
  ir_module_free(m);
}

static void test_symbolic(void) {
  const char *text =
      "from tvm.script import relax as R\n"
      "from tvm.script import tir as T\n"
      "@R.function\n"
      "def f(x: R.Tensor((\"n\", 784), \"float32\"), w: R.Tensor((784, \"m\"), \"float32\")) -> R.Tensor(ndim=2):\n"
      "    n = T.int64()\n"
      "    m, k = T.int64(), T.int64()\n"
      "    y = R.matmul(x, w)\n"
      "    z: R.Tensor((n, m), \"float32\") = R.add(y, y)\n"
      "    s = R.shape([n, k])\n"
      "    return z\n";
  IrModule *m = load(text);
  const RxFunc *f = rx(m, "f");
  CHECK(f != NULL);
  if (!f) return;
  CHECK_EQ_INT(f->nsym_vars, 3);
  CHECK(!strcmp(f->sym_vars[0]->name, "n") && !strcmp(f->sym_vars[1]->name, "m") &&
        !strcmp(f->sym_vars[2]->name, "k"));
  CHECK(dt_eq(f->sym_vars[0]->dtype, dt_int64));
  const RxSInfo *x = f->params[0]->sinfo;
  CHECK(x->shape[0]->kind == TIR_VAR && x->shape[0]->var == f->sym_vars[0]);
  CHECK(dim_is(x->shape[1], 784));
  const RxBlock *b = &f->body->seq.blocks[0];
  CHECK(!b->is_dataflow);
  CHECK_EQ_INT(b->n, 3);
  const RxSInfo *y = b->bindings[0].var->sinfo;
  CHECK(tensor_is(y, 2, dt_float32));
  CHECK(y->shape && y->shape[0]->var == f->sym_vars[0] && y->shape[1]->var == f->sym_vars[1]);
  CHECK(b->bindings[2].value->kind == RX_SHAPE_EXPR && b->bindings[2].value->shape.n == 2);
  CHECK(b->bindings[2].value->shape.values[1]->var == f->sym_vars[2]);
  CHECK(f->ret_sinfo && f->ret_sinfo->ndim == 2 && f->ret_sinfo->shape == NULL);
  ir_module_free(m);
}

static void test_ops_and_consts(void) {
  const char *text =
      "@R.function(private=True)\n"
      "def g(a: R.Tensor((4, 1, 3), \"float32\"), b: R.Tensor((5, 3), \"float32\"), c: R.Tensor((2, 8, 16), \"float16\"),\n"
      "      d: R.Tensor((16, 4), \"float16\"), e: R.Tensor(\"float32\", ndim=2), o: R.Object, t: R.Tuple(R.Tensor((2,), \"int32\"), R.Shape([3])),\n"
      "      p: R.Prim(\"int64\"), u: R.Tensor()):\n"
      "    s = R.add(a, b)\n"
      "    mm = R.matmul(c, d, out_dtype=\"float32\")\n"
      "    k1 = R.const(1, \"int32\")\n"
      "    k2 = R.const(2.0, \"float16\")\n"
      "    k3 = R.const(2)\n"
      "    k4 = R.const(1.0)\n"
      "    k5 = R.const(True)\n"
      "    k6 = R.const([[1, 2, 3], [4, 5, 6]], \"float32\")\n"
      "    m2 = R.multiply(s, R.const(2.0, \"float32\"))\n"
      "    ee = R.exp(e)\n"
      "    t0 = t[0]\n"
      "    tup = (s, mm)\n"
      "    pv = R.prim_value(5)\n"
      "    return tup\n";
  IrModule *m = load(text);
  const RxFunc *f = rx(m, "g");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(irv_dict_get(f->attrs, "global_symbol") == NULL);
  CHECK(f->params[5]->sinfo->kind == RX_SI_OBJECT);
  CHECK(f->params[6]->sinfo->kind == RX_SI_TUPLE && f->params[6]->sinfo->nfields == 2);
  CHECK(f->params[7]->sinfo->kind == RX_SI_PRIM && dt_eq(f->params[7]->sinfo->dtype, dt_int64));
  CHECK(f->params[8]->sinfo->kind == RX_SI_TENSOR && f->params[8]->sinfo->ndim == -1);
  CHECK(f->params[4]->sinfo->ndim == 2 && f->params[4]->sinfo->shape == NULL);
  const RxBlock *b = &f->body->seq.blocks[0];
  const RxSInfo *s = b->bindings[0].var->sinfo;
  CHECK(tensor_is(s, 3, dt_float32));
  CHECK(dim_is(s->shape[0], 4) && dim_is(s->shape[1], 5) && dim_is(s->shape[2], 3));
  const RxSInfo *mm = b->bindings[1].var->sinfo;
  CHECK(tensor_is(mm, 3, dt_float32));
  CHECK(dim_is(mm->shape[0], 2) && dim_is(mm->shape[1], 8) && dim_is(mm->shape[2], 4));
  const RxExpr *k1 = b->bindings[2].value, *k2 = b->bindings[3].value, *k3 = b->bindings[4].value;
  const RxExpr *k4 = b->bindings[5].value, *k5 = b->bindings[6].value, *k6 = b->bindings[7].value;
  CHECK(k1->kind == RX_CONST && dt_eq(k1->cnst.dtype, dt_int32) && k1->cnst.ndim == 0 && *(int32_t *)k1->cnst.data == 1);
  CHECK(dt_eq(k2->cnst.dtype, dt_float16) && *(uint16_t *)k2->cnst.data == 0x4000);
  CHECK(dt_eq(k3->cnst.dtype, dt_int32));
  CHECK(dt_eq(k4->cnst.dtype, dt_float32) && *(float *)k4->cnst.data == 1.0f);
  CHECK(dt_eq(k5->cnst.dtype, dt_bool));
  CHECK(k6->cnst.ndim == 2 && k6->cnst.shape[0] == 2 && k6->cnst.shape[1] == 3 && ((float *)k6->cnst.data)[5] == 6.0f);
  CHECK(tensor_is(k6->sinfo, 2, dt_float32));
  /* constants are leaves: used directly as arguments */
  CHECK(b->bindings[8].value->kind == RX_CALL && b->bindings[8].value->call.args[1]->kind == RX_CONST);
  CHECK(tensor_is(b->bindings[9].var->sinfo, 2, dt_float32));
  CHECK(b->bindings[10].value->kind == RX_TUPLE_GET_ITEM && tensor_is(b->bindings[10].var->sinfo, 1, dt_int32));
  CHECK(f->body->seq.body->kind == RX_VAR);
  CHECK(f->body->seq.body->sinfo->kind == RX_SI_TUPLE);
  CHECK(b->bindings[12].value->kind == RX_PRIM_VALUE && dt_eq(b->bindings[12].value->prim.value->dtype, dt_int64));
  ir_module_free(m);
}

static void test_legacy_and_lists(void) {
  const char *text =
      "import tvm\n"
      "from tvm.script import relax as R\n"
      "from tvm.script import tir as T\n"
      "@tvm.script.ir_module\n"
      "class MyModule:\n"
      "    @T.prim_func\n"
      "    def linear0(X: T.Buffer[(1, 784), \"float32\"], W: T.Buffer[(128, 784), \"float32\"], Z: T.Buffer[(1, 128), \"float32\"]):\n"
      "        T.func_attr({\"global_symbol\": \"linear0\", \"tir.noalias\": True})\n"
      "        for i, j, k in T.grid(1, 128, 784):\n"
      "            with T.block(\"Z\"):\n"
      "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "                with T.init():\n"
      "                    Z[vi, vj] = T.float32(0)\n"
      "                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]\n"
      "    @T.prim_func\n"
      "    def two(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\"), C: T.Buffer((8,), \"float32\")):\n"
      "        for i in range(8):\n"
      "            with T.block(\"B\"):\n"
      "                vi = T.axis.remap(\"S\", [i])\n"
      "                B[vi] = A[vi]\n"
      "                C[vi] = A[vi]\n"
      "    @R.function\n"
      "    def main(x: Tensor((1, 784), \"float32\"), w0: Tensor((128, 784), \"float32\"), a: R.Tensor([8], \"float32\")):\n"
      "        with R.dataflow():\n"
      "            lv0 = R.call_tir(linear0, (x, w0), (1, 128), dtype=\"float32\")\n"
      "            pair = R.call_tir(MyModule.two, a, [R.Tensor((8,), \"float32\"), R.Tensor((8,), \"float32\")])\n"
      "            q = R.call_dps_packed(\"env.linear\", (x, w0), R.Tensor((1, 128), \"float32\"))\n"
      "            R.output(lv0, pair)\n"
      "        return lv0\n";
  IrModule *m = load(text);
  const RxFunc *f = rx(m, "main");
  CHECK(f != NULL);
  if (!f) return;
  const RxBlock *b = &f->body->seq.blocks[0];
  CHECK_EQ_INT(b->n, 3);
  const RxExpr *c0 = b->bindings[0].value;
  CHECK(c0->call.args[0]->kind == RX_GLOBAL_VAR && !strcmp(c0->call.args[0]->gvar.name, "linear0"));
  CHECK(tensor_is(c0->sinfo, 2, dt_float32) && dim_is(c0->sinfo->shape[1], 128));
  const RxExpr *c1 = b->bindings[1].value;
  CHECK(c1->call.args[1]->kind == RX_TUPLE && c1->call.args[1]->tuple.n == 1);
  CHECK(c1->sinfo->kind == RX_SI_TUPLE && c1->sinfo->nfields == 2);
  CHECK_EQ_INT(c1->call.nsinfo_args, 2);
  CHECK(b->bindings[1].var->kind == RX_VAR);
  CHECK(b->bindings[2].var->kind == RX_DATAFLOW_VAR);
  CHECK(!strcmp(b->bindings[2].value->call.op->name, "relax.call_dps_packed"));
  CHECK(b->bindings[2].value->call.args[0]->kind == RX_EXTERN_FUNC);
  ir_module_free(m);
}

static void test_match_cast_if(void) {
  const char *text =
      "from tvm.script import relax as R\n"
      "from tvm.script import tir as T\n"
      "@R.function\n"
      "def f(x: R.Tensor(\"float32\", ndim=1), c: R.Tensor((), \"bool\")) -> R.Tensor((\"m\",), \"float32\"):\n"
      "    m = T.int64()\n"
      "    y = R.match_cast(x, R.Tensor((m,), \"float32\"))\n"
      "    if c:\n"
      "        w = R.add(y, y)\n"
      "        r = R.multiply(w, w)\n"
      "    else:\n"
      "        r = R.subtract(y, y)\n"
      "    return r\n";
  IrModule *m = load(text);
  const RxFunc *f = rx(m, "f");
  CHECK(f != NULL);
  if (!f) return;
  const RxBlock *b = &f->body->seq.blocks[0];
  CHECK_EQ_INT(b->n, 2);
  CHECK(b->bindings[0].cast_to != NULL);
  CHECK(b->bindings[0].var->sinfo->shape[0]->var == f->sym_vars[0]);
  const RxExpr *ife = b->bindings[1].value;
  CHECK(ife->kind == RX_IF);
  CHECK(ife->ifs.then_e->kind == RX_SEQ && ife->ifs.then_e->seq.blocks[0].n == 2);
  CHECK(tensor_is(ife->sinfo, 1, dt_float32));
  CHECK(f->body->seq.body == b->bindings[1].var);
  ir_module_free(m);
}

static const char *PRE =
    "from tvm.script import relax as R\n"
    "from tvm.script import tir as T\n";

static void test_errors(void) {
  StrBuf sb;
  sb_init(&sb);
#define ERR(body, line, col, msg)                 \
  do {                                            \
    sb.len = 0;                                   \
    sb.data[0] = 0;                               \
    sb_puts(&sb, PRE);                            \
    sb_puts(&sb, body);                           \
    CHECK(fails(sb.data, line, col, msg));        \
  } while (0)
  ERR("@R.function\ndef f(x: R.Tensor((16,), \"float32\"), y: R.Tensor((8,), \"float32\")):\n"
      "    z = R.add(x, y)\n    return z\n",
      5, 9, "R.add: shapes (16,) and (8,) cannot be broadcast");
  ERR("@R.function\ndef f(x: R.Tensor((1, 784), \"float32\"), y: R.Tensor((128, 10), \"float32\")):\n"
      "    z = R.matmul(x, y)\n    return z\n",
      5, 9, "R.matmul: x1 has 784 columns but x2 has 128 rows (shapes (1, 784) and (128, 10))");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\"), y: R.Tensor((4,), \"int32\")):\n"
      "    z = R.add(x, y)\n    return z\n",
      5, 9, "R.add: dtype mismatch 'float32' vs 'int32'");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n"
      "    with R.dataflow():\n        lv0 = R.add(x, x)\n        gv = R.add(lv0, x)\n        R.output(gv)\n"
      "    return lv0\n",
      9, 12, "'lv0' is local to its dataflow block; list it in R.output(...)");
  ERR("@I.ir_module\nclass Module:\n    @R.function\n    def f(x: R.Tensor((4,), \"float32\")):\n"
      "        cls = Module\n        y = R.call_tir(cls.nope, (x,), out_sinfo=R.Tensor((4,), \"float32\"))\n        return y\n",
      8, 24, "module has no function 'nope'");
  ERR("@T.prim_func\ndef add(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
      "    for i in range(4):\n        with T.block(\"B\"):\n            vi = T.axis.remap(\"S\", [i])\n"
      "            B[vi] = A[vi]\n"
      "@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n"
      "    y = R.call_tir(add, (x, x), out_sinfo=R.Tensor((4,), \"float32\"))\n    return y\n",
      11, 9, "call_tir to 'add' passes 3 tensors but the prim_func takes 2 parameters");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n"
      "    y: R.Tensor((5,), \"float32\") = R.add(x, x)\n    return y\n",
      5, 8, "annotation R.Tensor((5,), dtype=\"float32\") does not match");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"int32\"):\n"
      "    return x\n",
      5, 5, "returns R.Tensor((4,), dtype=\"float32\") but its return annotation is");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n"
      "    return x\n    y = x\n",
      5, 5, "return must be the last statement");
  ERR("@R.function\ndef f(x):\n    return x\n", 4, 7, "parameter 'x' needs a struct info annotation");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    y = R.nn.rleu(x)\n    return y\n",
      5, 9, "unknown operator 'R.nn.rleu'");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    y = R.const([[1, 2], [3]])\n    return y\n",
      5, 26, "ragged");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    y = R.add(x)\n    return y\n",
      5, 9, "R.add takes 2 arguments but 1 were given");
  ERR("@R.function\ndef f(x: R.Tuple(R.Tensor((4,), \"float32\"))):\n    y = x[2]\n    return y\n",
      5, 11, "tuple index 2 is out of range");
  ERR("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    y = x\n", 5, 5, "must end with a return");
#undef ERR
  sb_free(&sb);
}

int main(void) {
  diag_init(&D, NULL);
  test_call_tir_dataflow();
  test_symbolic();
  test_ops_and_consts();
  test_legacy_and_lists();
  test_match_cast_if();
  test_errors();
  diag_free(&D);
  TEST_MAIN_END();
}
