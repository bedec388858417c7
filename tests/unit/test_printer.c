/* test_printer.c - the TVMScript printer against exact expected text.
 *
 * IR is built by hand with the tir.h / relax.h constructors (mm_relu, a split
 * nest with T.where, symbolic shapes, every expression kind, literal dtypes,
 * name collisions, Relax functions); round-trip tests (print -> parse ->
 * print) run on the same modules and on the .tvs files of tests/corpus. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/module.h"
#include "ir/printer.h"
#include "base/util.h"

#ifndef TVS_PRINTER_NO_ROUNDTRIP
#include "ir/structural_equal.h"
#include "base/diag.h"
#include "lang/elab.h"
#endif

static IrHeap *H;

/* ------------------------------------------------------------ builders */

static TirExpr *I(int64_t v) { return tir_i32(H, v); }
static TirExpr *I64(int64_t v) { return tir_int(H, dt_int64, v); }
static TirExpr *F32(double v) { return tir_float(H, dt_float32, v); }
static TirExpr *V(TirVar *v) { return tir_var_ref(H, v); }
static TirExpr *BIN(TirExprKind k, TirExpr *a, TirExpr *b) { return tir_binary(H, k, a, b); }
static TirExpr *ADD(TirExpr *a, TirExpr *b) { return BIN(TIR_ADD, a, b); }
static TirExpr *MUL(TirExpr *a, TirExpr *b) { return BIN(TIR_MUL, a, b); }
static TirVar *IV(const char *n) { return tir_var(H, n, dt_int32); }

static TirBuffer *BUF(const char *name, DType t, int n, ...) {
  TirExpr *shape[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) shape[i] = va_arg(ap, TirExpr *);
  va_end(ap);
  return tir_buffer(H, name, t, shape, n, "global");
}

static TirExpr *LD(TirBuffer *b, int n, ...) {
  TirExpr *idx[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) idx[i] = va_arg(ap, TirExpr *);
  va_end(ap);
  return tir_load(H, b, idx, n);
}

static TirStmt *ST(TirBuffer *b, TirExpr *val, int n, ...) {
  TirExpr *idx[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) idx[i] = va_arg(ap, TirExpr *);
  va_end(ap);
  return tir_store(H, b, val, idx, n);
}

/* A region from (min, extent) pairs. */
static TirBufferRegion REG(TirBuffer *b, int n, ...) {
  TirRange *r = ir_alloc(H, (size_t)(n ? n : 1) * sizeof *r);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    r[i].min = va_arg(ap, TirExpr *);
    r[i].extent = va_arg(ap, TirExpr *);
  }
  va_end(ap);
  return (TirBufferRegion){b, r, n};
}

static TirStmt *SEQ2(TirStmt *a, TirStmt *b) {
  TirStmt *s[2] = {a, b};
  return tir_seq(H, s, 2);
}

static TirStmt *FOR(TirVar *v, TirExpr *ext, TirStmt *body) {
  return tir_for(H, v, ext->dtype.bits == 64 ? I64(0) : I(0), ext, TIR_FOR_SERIAL, NULL, NULL,
                 body);
}

static IrValue *ATTRS_GS(const char *gs, bool noalias) {
  const char *keys[2];
  IrValue *vals[2];
  int n = 0;
  if (gs) { keys[n] = "global_symbol"; vals[n++] = irv_str(H, gs); }
  if (noalias) { keys[n] = "tir.noalias"; vals[n++] = irv_bool(H, true); }
  return n ? irv_dict(H, keys, vals, n) : NULL;
}

/* Wraps body in the implicit root block with allocs. */
static TirStmt *ROOT(TirStmt *body, TirBuffer **allocs, int nallocs) {
  TirBlock b = {0};
  b.name = "root";
  b.allocs = allocs;
  b.nallocs = nallocs;
  b.body = body;
  return tir_block_realize(H, NULL, 0, NULL, tir_block(H, &b));
}

static TirFunc *FUNC(TirBuffer **bufs, int n, TirStmt *body, IrValue *attrs, bool sugar) {
  TirVar *params[16];
  for (int i = 0; i < n; i++) params[i] = tir_var(H, bufs[i]->name[0] == 'A' ? "a" : "p", dt_handle);
  TirFunc *f = tir_func(H, params, bufs, n, body, attrs);
  f->buffer_param_sugar = sugar;
  return f;
}

static char *print_mod(const IrModule *m) {
  StrBuf sb;
  sb_init(&sb);
  PrintOptions o = print_options_default();
  print_module(&sb, m, &o);
  return sb.data; /* sb_take would re-initialize (allocate) sb */
}

static char *print_e(const TirExpr *e) {
  StrBuf sb;
  sb_init(&sb);
  print_tir_expr(&sb, e);
  return sb.data; /* sb_take would re-initialize (allocate) sb */
}

#define CHECK_EXPR(e, text)      \
  do {                           \
    char *s_ = print_e(e);       \
    CHECK_EQ_STR(s_, text);      \
    free(s_);                    \
  } while (0)

static char *print_s(const TirStmt *s) {
  StrBuf sb;
  sb_init(&sb);
  print_tir_stmt(&sb, s, 0);
  return sb.data; /* sb_take would re-initialize (allocate) sb */
}

#define CHECK_STMT(s, text)      \
  do {                           \
    char *s_ = print_s(s);       \
    CHECK_EQ_STR(s_, text);      \
    free(s_);                    \
  } while (0)

/* Modules kept for the round-trip tests. */
static IrModule *built[32];
static int nbuilt;

static void keep(IrModule *m) { built[nbuilt++] = m; }

/* ------------------------------------------------------------ mm_relu */

static const char *mm_relu_text =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        # with T.block(\"root\"):\n"
    "        Y = T.alloc_buffer((128, 128))\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                T.reads(A[vi, vk], B[vk, vj])\n"
    "                T.writes(Y[vi, vj])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0.0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(128, 128):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(Y[vi, vj])\n"
    "                T.writes(C[vi, vj])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))\n";

static TirFunc *build_mm_relu(void) {
  TirBuffer *A = BUF("A", dt_float32, 2, I(128), I(128));
  TirBuffer *B = BUF("B", dt_float32, 2, I(128), I(128));
  TirBuffer *C = BUF("C", dt_float32, 2, I(128), I(128));
  TirBuffer *Y = BUF("Y", dt_float32, 2, I(128), I(128));
  TirVar *i = IV("i"), *j = IV("j"), *k = IV("k");
  TirVar *vi = IV("vi"), *vj = IV("vj"), *vk = IV("vk");
  TirIterVar iters[3] = {{vi, {I(0), I(128)}, TIR_ITER_SPATIAL},
                         {vj, {I(0), I(128)}, TIR_ITER_SPATIAL},
                         {vk, {I(0), I(128)}, TIR_ITER_REDUCE}};
  TirBufferRegion reads[2] = {REG(A, 2, V(vi), I(1), V(vk), I(1)), REG(B, 2, V(vk), I(1), V(vj), I(1))};
  TirBufferRegion writes[1] = {REG(Y, 2, V(vi), I(1), V(vj), I(1))};
  TirBlock by = {0};
  by.name = "Y";
  by.iters = iters;
  by.niters = 3;
  by.reads = reads;
  by.nreads = 2;
  by.writes = writes;
  by.nwrites = 1;
  by.init = ST(Y, F32(0.0), 2, V(vi), V(vj));
  by.body = ST(Y, ADD(LD(Y, 2, V(vi), V(vj)), MUL(LD(A, 2, V(vi), V(vk)), LD(B, 2, V(vk), V(vj)))),
               2, V(vi), V(vj));
  TirExpr *vals[3] = {V(i), V(j), V(k)};
  TirStmt *ry = tir_block_realize(H, vals, 3, NULL, tir_block(H, &by));
  TirStmt *l1 = FOR(i, I(128), FOR(j, I(128), FOR(k, I(128), ry)));

  TirVar *i2 = IV("i"), *j2 = IV("j"), *vi2 = IV("vi"), *vj2 = IV("vj");
  TirIterVar iters2[2] = {{vi2, {I(0), I(128)}, TIR_ITER_SPATIAL},
                          {vj2, {I(0), I(128)}, TIR_ITER_SPATIAL}};
  TirBufferRegion reads2[1] = {REG(Y, 2, V(vi2), I(1), V(vj2), I(1))};
  TirBufferRegion writes2[1] = {REG(C, 2, V(vi2), I(1), V(vj2), I(1))};
  TirBlock bc = {0};
  bc.name = "C";
  bc.iters = iters2;
  bc.niters = 2;
  bc.reads = reads2;
  bc.nreads = 1;
  bc.writes = writes2;
  bc.nwrites = 1;
  bc.body = ST(C, BIN(TIR_MAX, LD(Y, 2, V(vi2), V(vj2)), F32(0.0)), 2, V(vi2), V(vj2));
  TirExpr *vals2[2] = {V(i2), V(j2)};
  TirStmt *rc = tir_block_realize(H, vals2, 2, NULL, tir_block(H, &bc));
  TirStmt *l2 = FOR(i2, I(128), FOR(j2, I(128), rc));
  TirBuffer *allocs[1] = {Y};
  TirBuffer *bufs[3] = {A, B, C};
  return FUNC(bufs, 3, ROOT(SEQ2(l1, l2), allocs, 1), ATTRS_GS("mm_relu", true), true);
}

static void test_mm_relu(void) {
  IrModule *m = ir_module_new("Module");
  H = m->heap;
  ir_module_add_tir(m, "mm_relu", build_mm_relu());
  char *s = print_mod(m);
  CHECK_EQ_STR(s, mm_relu_text);
  free(s);
  /* The implicit-module form: one top-level prim_func, tir header only. */
  m->implicit = true;
  s = print_mod(m);
  CHECK(!strncmp(s, "# from tvm.script import tir as T\n\n@T.prim_func\ndef mm_relu(", 59));
  CHECK(strstr(s, "\n    # with T.block(\"root\"):\n    Y = T.alloc_buffer((128, 128))\n") != NULL);
  free(s);
  m->implicit = false;
  keep(m);
}

/* ------------------------------------------------------------ split + where */

static void test_split_where(void) {
  IrModule *m = ir_module_new("Module");
  H = m->heap;
  m->implicit = true;
  TirBuffer *A = BUF("A", dt_float32, 1, I(120));
  TirBuffer *B = BUF("B", dt_float32, 1, I(120));
  TirVar *i0 = IV("i_0"), *i1 = IV("i_1"), *vi = IV("vi");
  TirIterVar it[1] = {{vi, {I(0), I(120)}, TIR_ITER_SPATIAL}};
  TirBufferRegion rd[1] = {REG(A, 1, V(vi), I(1))};
  TirBufferRegion wr[1] = {REG(B, 1, V(vi), I(1))};
  TirBlock b = {0};
  b.name = "B";
  b.iters = it;
  b.niters = 1;
  b.reads = rd;
  b.nreads = 1;
  b.writes = wr;
  b.nwrites = 1;
  b.body = ST(B, MUL(LD(A, 1, V(vi)), F32(3.0)), 1, V(vi));
  TirExpr *val[1] = {ADD(MUL(V(i0), I(32)), V(i1))};
  TirExpr *pred = BIN(TIR_LT, ADD(MUL(V(i0), I(32)), V(i1)), I(120));
  TirStmt *r = tir_block_realize(H, val, 1, pred, tir_block(H, &b));
  TirBuffer *bufs[2] = {A, B};
  TirFunc *f = FUNC(bufs, 2, ROOT(FOR(i0, I(4), FOR(i1, I(32), r)), NULL, 0),
                    ATTRS_GS("split", false), true);
  ir_module_add_tir(m, "split", f);
  char *s = print_mod(m);
  CHECK_EQ_STR(s,
               "# from tvm.script import tir as T\n"
               "\n"
               "@T.prim_func\n"
               "def split(A: T.Buffer((120,), \"float32\"), B: T.Buffer((120,), \"float32\")):\n"
               "    # with T.block(\"root\"):\n"
               "    for i_0, i_1 in T.grid(4, 32):\n"
               "        with T.block(\"B\"):\n"
               "            vi = T.axis.spatial(120, i_0 * 32 + i_1)\n"
               "            T.where(i_0 * 32 + i_1 < 120)\n"
               "            T.reads(A[vi])\n"
               "            T.writes(B[vi])\n"
               "            B[vi] = A[vi] * T.float32(3.0)\n");
  free(s);
  keep(m);
}

/* ------------------------------------------------------------ symbolic shapes */

static void test_symbolic(void) {
  IrModule *m = ir_module_new("Module");
  H = m->heap;
  TirVar *n = IV("n");
  n->is_size_var = true;
  TirBuffer *A = BUF("A", dt_float32, 2, V(n), I(128));
  TirBuffer *B = BUF("B", dt_int32, 1, V(n));
  TirBuffer *C = BUF("C", dt_float32, 1, I(4));
  TirVar *i = IV("i");
  TirStmt *body = FOR(i, V(n), ST(B, tir_cast(H, dt_int32, LD(A, 2, V(i), I(0))), 1, V(i)));
  TirBuffer *bufs[3] = {A, B, C};
  TirFunc *f = FUNC(bufs, 3, body, NULL, true);
  ir_module_add_tir(m, "sym", f);
  char *s = print_mod(m);
  CHECK_EQ_STR(s,
               "# from tvm.script import ir as I\n"
               "# from tvm.script import tir as T\n"
               "\n"
               "@I.ir_module\n"
               "class Module:\n"
               "    @T.prim_func(private=True)\n"
               "    def sym(a: T.handle, p: T.handle, C: T.Buffer((4,), \"float32\")):\n"
               "        n = T.int32()\n"
               "        A = T.match_buffer(a, (n, 128))\n"
               "        B = T.match_buffer(p, (n,), \"int32\")\n"
               "        for i in range(n):\n"
               "            B[i] = T.Cast(\"int32\", A[i, 0])\n");
  free(s);
  /* Without the sugar flag every buffer param is a handle + match_buffer. */
  f->buffer_param_sugar = false;
  s = print_mod(m);
  CHECK(strstr(s, "def sym(a: T.handle, p: T.handle, p_1: T.handle):\n") != NULL);
  CHECK(strstr(s, "        C = T.match_buffer(p_1, (4,))\n") != NULL);
  free(s);
  f->buffer_param_sugar = true;
  keep(m);

  /* int64 size var, scalar param, and a symbolic param declared by the scalar. */
  IrModule *m2 = ir_module_new("Module");
  H = m2->heap;
  TirVar *mm = tir_var(H, "m", dt_int64);
  TirBuffer *X = BUF("X", dt_float32, 2, V(mm), I64(4));
  TirVar *k = IV("k");
  TirVar *params[2] = {tir_var(H, "x", dt_handle), k};
  TirBuffer *bm[2] = {X, NULL};
  TirVar *ii = tir_var(H, "i", dt_int64);
  TirStmt *b2 = FOR(ii, V(mm), ST(X, tir_cast(H, dt_float32, V(k)), 2, V(ii), I64(0)));
  TirFunc *f2 = tir_func(H, params, bm, 2, b2, ATTRS_GS("scale", false));
  f2->buffer_param_sugar = true;
  ir_module_add_tir(m2, "scale", f2);
  m2->implicit = true;
  s = print_mod(m2);
  CHECK_EQ_STR(s,
               "# from tvm.script import tir as T\n"
               "\n"
               "@T.prim_func\n"
               "def scale(x: T.handle, k: T.int32):\n"
               "    m = T.int64()\n"
               "    X = T.match_buffer(x, (m, T.int64(4)))\n"
               "    for i in range(m):\n"
               "        X[i, T.int64(0)] = T.Cast(\"float32\", k)\n");
  free(s);
  keep(m2);
}

/* ------------------------------------------------------------ expressions */

static void test_expressions(void) {
  TirVar *a = IV("a"), *b = IV("b"), *c = IV("c"), *d = IV("d");
  TirExpr *A = V(a), *B = V(b), *C = V(c), *D = V(d);
  CHECK_EXPR(MUL(ADD(A, B), C), "(a + b) * c");
  CHECK_EXPR(ADD(A, MUL(B, C)), "a + b * c");
  CHECK_EXPR(BIN(TIR_SUB, A, BIN(TIR_SUB, B, C)), "a - (b - c)");
  CHECK_EXPR(BIN(TIR_SUB, BIN(TIR_SUB, A, B), C), "a - b - c");
  CHECK_EXPR(BIN(TIR_FLOORMOD, BIN(TIR_FLOORDIV, A, B), C), "a // b % c");
  CHECK_EXPR(BIN(TIR_FLOORDIV, A, MUL(B, C)), "a // (b * c)");
  CHECK_EXPR(BIN(TIR_EQ, BIN(TIR_LT, A, B), BIN(TIR_LT, C, D)), "(a < b) == (c < d)");
  TirExpr *x = BIN(TIR_LT, A, B), *y = BIN(TIR_GE, C, D), *z = BIN(TIR_NE, A, D);
  CHECK_EXPR(BIN(TIR_OR, BIN(TIR_AND, x, y), z), "a < b and c >= d or a != d");
  CHECK_EXPR(BIN(TIR_AND, BIN(TIR_OR, x, y), z), "(a < b or c >= d) and a != d");
  CHECK_EXPR(tir_not(H, BIN(TIR_AND, x, y)), "not (a < b and c >= d)");
  CHECK_EXPR(BIN(TIR_AND, tir_not(H, x), y), "not a < b and c >= d");
  CHECK_EXPR(BIN(TIR_LE, ADD(A, I(1)), MUL(B, I(2))), "a + 1 <= b * 2");
  CHECK_EXPR(BIN(TIR_GT, A, I(-5)), "a > -5");
  CHECK_EXPR(MUL(A, I(-5)), "a * -5");
  CHECK_EXPR(BIN(TIR_DIV, A, B), "T.truncdiv(a, b)");
  CHECK_EXPR(BIN(TIR_MOD, A, B), "T.truncmod(a, b)");
  TirVar *fx = tir_var(H, "x", dt_float32);
  CHECK_EXPR(BIN(TIR_DIV, V(fx), ADD(V(fx), F32(1.0))), "x / (x + T.float32(1.0))");
  CHECK_EXPR(BIN(TIR_MIN, A, BIN(TIR_MAX, B, I(0))), "T.min(a, T.max(b, 0))");
  CHECK_EXPR(tir_select(H, x, A, B), "T.Select(a < b, a, b)");
  CHECK_EXPR(tir_cast(H, dt_float16, V(fx)), "T.Cast(\"float16\", x)");
  CHECK_EXPR(tir_ramp(H, A, I(1), 4), "T.Ramp(a, 1, 4)");
  CHECK_EXPR(tir_broadcast(H, F32(0.5), 8), "T.Broadcast(T.float32(0.5), 8)");
  TirVar *lv = IV("t");
  CHECK_EXPR(tir_let(H, lv, ADD(A, I(1)), MUL(V(lv), V(lv))), "T.Let(t * t, where={t: a + 1})");
  TirExpr *arg1[1] = {V(fx)};
  CHECK_EXPR(tir_call(H, dt_float32, tir_op_lookup("exp"), arg1, 1), "T.exp(x)");
  CHECK_EXPR(tir_call(H, dt_float16, tir_op_lookup("exp"), arg1, 1), "T.exp(x, dtype=\"float16\")");
  CHECK_EXPR(tir_call(H, dt_bool, tir_op_lookup("isnan"), arg1, 1), "T.isnan(x)");
  TirExpr *ite[3] = {x, V(fx), F32(0.0)};
  CHECK_EXPR(tir_call(H, dt_float32, tir_op_lookup("if_then_else"), ite, 3),
             "T.if_then_else(a < b, x, T.float32(0.0))");
  TirExpr *lk[1] = {x};
  CHECK_EXPR(tir_call(H, dt_bool, tir_op_lookup("likely"), lk, 1), "T.likely(a < b)");
  TirExpr *ext[3] = {tir_str(H, "my\"fn"), V(fx), I(3)};
  CHECK_EXPR(tir_call(H, dt_float32, tir_op_lookup("call_extern"), ext, 3),
             "T.call_extern(\"float32\", \"my\\\"fn\", x, 3)");
  TirExpr *band[2] = {A, B}, *bor[2], *shl[2], *bnot[1] = {A};
  bor[0] = tir_call(H, dt_int32, tir_op_lookup("bitwise_and"), band, 2);
  bor[1] = C;
  CHECK_EXPR(tir_call(H, dt_int32, tir_op_lookup("bitwise_or"), bor, 2), "a & b | c");
  shl[0] = A;
  shl[1] = ADD(B, C);
  CHECK_EXPR(tir_call(H, dt_int32, tir_op_lookup("shift_left"), shl, 2), "a << b + c");
  TirExpr *shl2[2] = {A, B};
  CHECK_EXPR(ADD(tir_call(H, dt_int32, tir_op_lookup("shift_right"), shl2, 2), C), "(a >> b) + c");
  CHECK_EXPR(MUL(tir_call(H, dt_int32, tir_op_lookup("bitwise_not"), bnot, 1), B), "~a * b");
  TirExpr *x2[2] = {A, B};
  CHECK_EXPR(tir_call(H, dt_int32, tir_op_lookup("bitwise_xor"), x2, 2), "a ^ b");
  TirBuffer *S = BUF("S", dt_float32, 0);
  CHECK_EXPR(tir_load(H, S, NULL, 0), "S[()]");
}

static void test_literals(void) {
  CHECK_EXPR(I(5), "5");
  CHECK_EXPR(I(-7), "-7");
  CHECK_EXPR(I(-2147483648LL), "T.int32(-2147483648)");
  CHECK_EXPR(I64(5), "T.int64(5)");
  CHECK_EXPR(tir_int(H, dt_int8, -128), "T.int8(-128)");
  CHECK_EXPR(tir_int(H, dt_uint8, 255), "T.uint8(255)");
  CHECK_EXPR(tir_int(H, dt_uint64, -1), "T.uint64(18446744073709551615)");
  CHECK_EXPR(tir_int(H, dt_int16, 300), "T.int16(300)");
  CHECK_EXPR(tir_bool(H, true), "T.bool(True)");
  CHECK_EXPR(tir_bool(H, false), "T.bool(False)");
  CHECK_EXPR(F32(0.5), "T.float32(0.5)");
  CHECK_EXPR(F32(0.0), "T.float32(0.0)");
  CHECK_EXPR(F32(-2.0), "T.float32(-2.0)");
  CHECK_EXPR(F32(1e-05), "T.float32(1e-05)");
  CHECK_EXPR(F32(0.0001), "T.float32(0.0001)");
  CHECK_EXPR(F32(-3.4028234663852886e+38), "T.float32(-3.4028234663852886e+38)");
  CHECK_EXPR(F32(1e16), "T.float32(1e+16)");
  CHECK_EXPR(F32(1234.5), "T.float32(1234.5)");
  CHECK_EXPR(F32(123456789012345.0), "T.float32(123456789012345.0)");
  CHECK_EXPR(tir_float(H, dt_float64, 0.1), "T.float64(0.1)");
  CHECK_EXPR(tir_float(H, dt_float16, 0.25), "T.float16(0.25)");
  CHECK_EXPR(tir_float(H, dt_bfloat16, 1.5), "T.bfloat16(1.5)");
  CHECK_EXPR(F32(INFINITY), "T.float32(\"inf\")");
  CHECK_EXPR(F32(-INFINITY), "T.float32(\"-inf\")");
  CHECK_EXPR(F32(NAN), "T.float32(\"nan\")");
  CHECK_EXPR(tir_float(H, dt_float32, 1.0 / 3.0), "T.float32(0.3333333333333333)");
  CHECK_EXPR(tir_str(H, "a\\b\nc"), "\"a\\\\b\\nc\"");
}

/* ------------------------------------------------------------ statements */

static void test_statements(void) {
  TirBuffer *A = BUF("A", dt_float32, 1, I(16));
  TirVar *i = IV("i"), *x = IV("x");
  TirStmt *st = ST(A, F32(1.0), 1, V(i));
  TirStmt *st2 = ST(A, F32(2.0), 1, V(i));
  TirStmt *ifs = tir_if(H, BIN(TIR_LT, V(i), I(4)), st,
                        tir_if(H, BIN(TIR_LT, V(i), I(8)), st2, ST(A, F32(3.0), 1, V(i))));
  CHECK_STMT(ifs,
             "if i < 4:\n    A[i] = T.float32(1.0)\nelif i < 8:\n    A[i] = T.float32(2.0)\n"
             "else:\n    A[i] = T.float32(3.0)\n");
  CHECK_STMT(tir_let_stmt(H, x, ADD(V(i), I(1)), ST(A, F32(0.0), 1, V(x))),
             "x: T.int32 = i + 1\nA[x] = T.float32(0.0)\n");
  CHECK_STMT(tir_assert(H, BIN(TIR_GT, V(i), I(0)), tir_str(H, "bad"), st),
             "assert i > 0, \"bad\"\nA[i] = T.float32(1.0)\n");
  CHECK_STMT(tir_while(H, BIN(TIR_LT, V(i), I(3)), st), "while i < 3:\n    A[i] = T.float32(1.0)\n");
  CHECK_STMT(tir_evaluate(H, I(0)), "T.evaluate(0)\n");
  TirVar *ptr = tir_var(H, "buf", dt_handle);
  TirBuffer *D = BUF("D", dt_float32, 1, I(16));
  D->data = ptr;
  CHECK_STMT(tir_allocate(H, ptr, dt_float32, (TirExpr *[]){I(16)}, 1, "global",
                          tir_decl_buffer(H, D, ST(D, F32(0.0), 1, I(0)))),
             "D = T.decl_buffer((16,))\n"
             "D[0] = T.float32(0.0)\n");
  /* TVM's one-line sugar only when the buffer covers exactly the allocation */
  CHECK_STMT(tir_allocate(H, ptr, dt_float32, (TirExpr *[]){I(32)}, 1, "global",
                          tir_decl_buffer(H, D, ST(D, F32(0.0), 1, I(0)))),
             "buf = T.allocate([32], \"float32\", \"global\")\n"
             "D = T.decl_buffer((16,), data=buf)\n"
             "D[0] = T.float32(0.0)\n");
  TirVar *tx = IV("tx");
  /* the last statement of its frame: TVM's concise form, no with-block */
  CHECK_STMT(tir_attr_stmt(H, "pragma_x", tx, I(1), st),
             "T.attr(tx, \"pragma_x\", 1)\nA[i] = T.float32(1.0)\n");
  CHECK_STMT(tir_seq(H, (TirStmt *[]){tir_attr_stmt(H, "pragma_x", tx, I(1), st), st}, 2),
             "with T.attr(tx, \"pragma_x\", 1):\n    A[i] = T.float32(1.0)\nA[i] = T.float32(1.0)\n");
  /* loop kinds */
  TirVar *j = IV("j");
  CHECK_STMT(tir_for(H, j, I(0), I(4), TIR_FOR_VECTORIZED, NULL, NULL, st),
             "for j in T.vectorized(4):\n    A[i] = T.float32(1.0)\n");
  CHECK_STMT(tir_for(H, j, I(10), I(118), TIR_FOR_PARALLEL, NULL, NULL, st),
             "for j in T.parallel(10, 128):\n    A[i] = T.float32(1.0)\n");
  CHECK_STMT(tir_for(H, j, I(0), I(8), TIR_FOR_UNROLLED, NULL, NULL, st),
             "for j in T.unroll(8):\n    A[i] = T.float32(1.0)\n");
  CHECK_STMT(tir_for(H, j, I(0), I(32), TIR_FOR_THREAD_BINDING, "threadIdx.x", NULL, st),
             "for j in T.thread_binding(32, thread=\"threadIdx.x\"):\n    A[i] = T.float32(1.0)\n");
  CHECK_STMT(tir_for(H, j, I(10), I(118), TIR_FOR_SERIAL, NULL, NULL, st),
             "for j in range(10, 128):\n    A[i] = T.float32(1.0)\n");
  CHECK_STMT(tir_for(H, j, V(x), I(4), TIR_FOR_SERIAL, NULL, NULL, st),
             "for j in range(x, x + 4):\n    A[i] = T.float32(1.0)\n");
  const char *k1[1] = {"pragma_unroll"};
  IrValue *v1[1] = {irv_int(H, 16)};
  CHECK_STMT(tir_for(H, j, I(0), I(8), TIR_FOR_SERIAL, NULL, irv_dict(H, k1, v1, 1), st),
             "for j in T.serial(8, annotations={\"pragma_unroll\": 16}):\n    A[i] = T.float32(1.0)\n");
  TirVar *j64 = tir_var(H, "j", dt_int64);
  CHECK_STMT(FOR(j64, I64(128), st), "for j in range(T.int64(128)):\n    A[i] = T.float32(1.0)\n");
  /* A grid whose inner extent depends on the outer var stays two loops. */
  TirVar *r = IV("r"), *q = IV("q");
  CHECK_STMT(FOR(r, I(4), FOR(q, V(r), st)),
             "for r in range(4):\n    for q in range(r):\n        A[i] = T.float32(1.0)\n");
}

/* ------------------------------------------------------------ blocks */

static void test_blocks(void) {
  IrModule *m = ir_module_new("Module");
  H = m->heap;
  m->implicit = true;
  TirBuffer *A = BUF("A", dt_float32, 2, I(64), I(64));
  TirBuffer *B = BUF("B", dt_float32, 2, I(64), I(64));
  TirBuffer *Sh = tir_buffer(H, "A_shared", dt_float32, (TirExpr *[]){I(16), I(64)}, 2, "shared");
  TirBuffer *sub = BUF("A_sub", dt_float32, 2, I(16), I(16));
  TirVar *io = IV("io"), *j = IV("j"), *k = IV("k");
  TirVar *vio = IV("vio"), *vj = IV("vj"), *vk = IV("vk");
  TirIterVar it[3] = {{vio, {I(0), I(4)}, TIR_ITER_SPATIAL},
                      {vj, {I(0), I(64)}, TIR_ITER_SPATIAL},
                      {vk, {I(8), I(56)}, TIR_ITER_REDUCE}};
  TirBufferRegion rd[1] = {REG(A, 2, MUL(V(vio), I(16)), I(16), I(0), I(64))};
  TirBufferRegion wr[1] = {REG(B, 2, MUL(V(vio), I(16)), I(16), V(vj), I(1))};
  TirMatchBuffer mb[1] = {{sub, REG(A, 2, MUL(V(vio), I(16)), I(16), I(0), I(16))}};
  const char *keys[2] = {"meta_schedule.unroll", "note"};
  IrValue *vals[2] = {irv_int(H, 16), irv_str(H, "x")};
  TirBlock b = {0};
  b.name = "blk";
  b.iters = it;
  b.niters = 3;
  b.reads = rd;
  b.nreads = 1;
  b.writes = wr;
  b.nwrites = 1;
  b.allocs = (TirBuffer *[]){Sh};
  b.nallocs = 1;
  b.matches = mb;
  b.nmatches = 1;
  b.annotations = irv_dict(H, keys, vals, 2);
  b.init = ST(B, F32(0.0), 2, MUL(V(vio), I(16)), V(vj));
  b.body = ST(B, LD(sub, 2, I(0), I(0)), 2, MUL(V(vio), I(16)), V(vj));
  TirExpr *bind[3] = {V(io), V(j), V(k)};
  TirStmt *r = tir_block_realize(H, bind, 3, NULL, tir_block(H, &b));
  TirStmt *loops = FOR(io, I(4), FOR(j, I(64), tir_for(H, k, I(8), I(56), TIR_FOR_SERIAL, NULL, NULL, r)));
  TirBuffer *bufs[2] = {A, B};
  TirFunc *f = FUNC(bufs, 2, ROOT(loops, NULL, 0), ATTRS_GS("blocks", false), true);
  ir_module_add_tir(m, "blocks", f);
  char *s = print_mod(m);
  CHECK_EQ_STR(s,
               "# from tvm.script import tir as T\n"
               "\n"
               "@T.prim_func\n"
               "def blocks(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\")):\n"
               "    # with T.block(\"root\"):\n"
               "    for io, j in T.grid(4, 64):\n"
               "        for k in range(8, 64):\n"
               "            with T.block(\"blk\"):\n"
               "                vio, vj, vk = T.axis.remap(\"SSR\", [io, j, k])\n"
               "                T.reads(A[vio * 16:vio * 16 + 16, 0:64])\n"
               "                T.writes(B[vio * 16:vio * 16 + 16, vj])\n"
               "                T.block_attr({\"meta_schedule.unroll\": 16, \"note\": \"x\"})\n"
               "                A_shared = T.alloc_buffer((16, 64), scope=\"shared\")\n"
               "                A_sub = T.match_buffer(A[vio * 16:vio * 16 + 16, 0:16], (16, 16))\n"
               "                with T.init():\n"
               "                    B[vio * 16, vj] = T.float32(0.0)\n"
               "                B[vio * 16, vj] = A_sub[0, 0]\n");
  free(s);
  keep(m);

  /* One remappable iter between non-remappable ones: no remap line; a
   * domain with nonzero min prints as a pair; scan/opaque iters. */
  IrModule *m2 = ir_module_new("Module");
  H = m2->heap;
  m2->implicit = true;
  TirBuffer *C = BUF("C", dt_int32, 1, I(32));
  TirVar *i = IV("i"), *a1 = IV("va"), *a2 = IV("vb"), *a3 = IV("vc");
  TirIterVar it2[3] = {{a1, {I(0), I(32)}, TIR_ITER_SPATIAL},
                       {a2, {I(2), I(32)}, TIR_ITER_SCAN},
                       {a3, {I(0), I(1)}, TIR_ITER_OPAQUE}};
  TirBufferRegion wr2[1] = {REG(C, 1, V(a1), I(1))};
  TirBlock b2 = {0};
  b2.name = "c";
  b2.iters = it2;
  b2.niters = 3;
  b2.writes = wr2;
  b2.nwrites = 1;
  b2.body = ST(C, ADD(V(a2), V(a3)), 1, V(a1));
  TirExpr *bind2[3] = {V(i), ADD(V(i), I(2)), I(0)};
  TirStmt *r2 = tir_block_realize(H, bind2, 3, NULL, tir_block(H, &b2));
  TirBuffer *bufs2[1] = {C};
  TirFunc *f2 = tir_func(H, (TirVar *[]){tir_var(H, "c", dt_handle)}, bufs2, 1,
                         ROOT(FOR(i, I(32), r2), NULL, 0), NULL);
  f2->buffer_param_sugar = true;
  ir_module_add_tir(m2, "iters", f2);
  s = print_mod(m2);
  CHECK_EQ_STR(s,
               "# from tvm.script import tir as T\n"
               "\n"
               "@T.prim_func(private=True)\n"
               "def iters(C: T.Buffer((32,), \"int32\")):\n"
               "    # with T.block(\"root\"):\n"
               "    for i in range(32):\n"
               "        with T.block(\"c\"):\n"
               "            va = T.axis.spatial(32, i)\n"
               "            vb = T.axis.scan((2, 34), i + 2)\n"
               "            vc = T.axis.opaque(1, 0)\n"
               "            T.reads()\n"
               "            T.writes(C[va])\n"
               "            C[va] = vb + vc\n");
  free(s);
  keep(m2);
}

/* ------------------------------------------------------------ names and attrs */

static void test_names_attrs(void) {
  IrModule *m = ir_module_new("Module");
  H = m->heap;
  TirBuffer *A1 = BUF("A", dt_float32, 1, I(8));
  TirBuffer *A2 = BUF("A", dt_float32, 1, I(8));
  TirBuffer *E = BUF("", dt_float32, 1, I(8));
  TirVar *i = IV("i"), *i_in = IV("i"), *i_sib = IV("i"), *kw = IV("for");
  TirStmt *inner = FOR(i_in, I(8), ST(A2, LD(A1, 1, V(i)), 1, V(i_in)));
  TirStmt *l1 = FOR(i, I(8), tir_seq(H, (TirStmt *[]){inner, ST(E, F32(1.0), 1, V(i))}, 2));
  TirStmt *l2 = FOR(i_sib, I(8), tir_let_stmt(H, kw, V(i_sib), ST(A1, F32(2.0), 1, V(kw))));
  const char *keys[4] = {"global_symbol", "tir.noalias", "target_bits", "arr"};
  IrValue *arr[3] = {irv_float(H, 0.25), irv_none(H), irv_expr(H, I64(3))};
  IrValue *vals[4] = {irv_str(H, "other_name"), irv_bool(H, false), irv_int(H, 64),
                      irv_array(H, arr, 3)};
  TirBuffer *bufs[3] = {A1, A2, E};
  TirFunc *f = FUNC(bufs, 3, SEQ2(l1, l2), irv_dict(H, keys, vals, 4), true);
  ir_module_add_tir(m, "names", f);
  char *s = print_mod(m);
  CHECK_EQ_STR(s,
               "# from tvm.script import ir as I\n"
               "# from tvm.script import tir as T\n"
               "\n"
               "@I.ir_module\n"
               "class Module:\n"
               "    @T.prim_func\n"
               "    def names(A: T.Buffer((8,), \"float32\"), A_1: T.Buffer((8,), \"float32\"), v: T.Buffer((8,), \"float32\")):\n"
               "        T.func_attr({\"global_symbol\": \"other_name\", \"tir.noalias\": T.bool(False), \"target_bits\": 64, \"arr\": [0.25, None, T.int64(3)]})\n"
               "        for i in range(8):\n"
               "            for i_1 in range(8):\n"
               "                A_1[i_1] = A[i]\n"
               "            v[i] = T.float32(1.0)\n"
               "        for i in range(8):\n"
               "            for_1: T.int32 = i\n"
               "            A[for_1] = T.float32(2.0)\n");
  free(s);
  keep(m);
}

/* ------------------------------------------------------------ relax */

static RxSInfo *TENSOR1(int64_t n) {
  return rx_sinfo_tensor(H, (TirExpr *[]){I64(n)}, 1, dt_float32);
}

static void test_relax(void) {
  IrModule *m = ir_module_new("Module");
  H = m->heap;
  /* prim_func add(A, B) over int64 shapes */
  TirBuffer *A = BUF("A", dt_float32, 1, I64(16));
  TirBuffer *B = BUF("B", dt_float32, 1, I64(16));
  TirVar *i = tir_var(H, "i", dt_int64);
  TirBuffer *bufs[2] = {A, B};
  TirFunc *add = FUNC(bufs, 2, FOR(i, I64(16), ST(B, ADD(LD(A, 1, V(i)), F32(1.0)), 1, V(i))),
                      NULL, true);
  ir_module_add_tir(m, "add", add);

  RxExpr *x = rx_var(H, "x", TENSOR1(16), false);
  RxExpr *w = rx_var(H, "w", rx_sinfo_tensor(H, (TirExpr *[]){I64(16), I64(16)}, 2, dt_float32), false);
  RxExpr *lv = rx_var(H, "lv", TENSOR1(16), true);
  RxExpr *lv1 = rx_var(H, "lv1", TENSOR1(16), true);
  RxSInfo *pair[2] = {TENSOR1(16), TENSOR1(16)};
  RxExpr *t = rx_var(H, "t", rx_sinfo_tuple(H, pair, 2), true);
  RxExpr *gv = rx_var(H, "gv", TENSOR1(16), false);
  RxSInfo *out1[1] = {TENSOR1(16)};
  RxExpr *ct_args[2] = {rx_global_var(H, "add"), rx_tuple(H, (RxExpr *[]){x}, 1)};
  RxExpr *ct = rx_call(H, rx_op_lookup("call_tir"), ct_args, 2, NULL, out1, 1, TENSOR1(16));
  RxExpr *ad = rx_call(H, rx_op_lookup("add"), (RxExpr *[]){lv, x}, 2, NULL, NULL, 0, TENSOR1(16));
  RxBinding bs[4] = {{lv, ct, NULL, span_none},
                     {lv1, ad, NULL, span_none},
                     {t, rx_tuple(H, (RxExpr *[]){lv, lv1}, 2), NULL, span_none},
                     {gv, rx_tuple_get(H, t, 1), NULL, span_none}};
  RxBlock blk = {true, bs, 4};
  RxFunc *mainf = ir_alloc(H, sizeof *mainf);
  mainf->params = (RxExpr **)ir_memdup(H, (RxExpr *[]){x, w}, 2 * sizeof(RxExpr *));
  mainf->nparams = 2;
  mainf->ret_sinfo = TENSOR1(16);
  mainf->body = rx_seq(H, &blk, 1, gv);
  mainf->attrs = ATTRS_GS("main", false);
  mainf->is_pure = true;
  ir_module_add_relax(m, "main", mainf);

  char *s = print_mod(m);
  CHECK_EQ_STR(s,
               "# from tvm.script import ir as I\n"
               "# from tvm.script import tir as T\n"
               "# from tvm.script import relax as R\n"
               "\n"
               "@I.ir_module\n"
               "class Module:\n"
               "    @T.prim_func(private=True)\n"
               "    def add(A: T.Buffer((T.int64(16),), \"float32\"), B: T.Buffer((T.int64(16),), \"float32\")):\n"
               "        for i in range(T.int64(16)):\n"
               "            B[i] = A[i] + T.float32(1.0)\n"
               "\n"
               "    @R.function\n"
               "    def main(x: R.Tensor((16,), dtype=\"float32\"), w: R.Tensor((16, 16), dtype=\"float32\")) -> R.Tensor((16,), dtype=\"float32\"):\n"
               "        cls = Module\n"
               "        with R.dataflow():\n"
               "            lv: R.Tensor((16,), dtype=\"float32\") = R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((16,), dtype=\"float32\"))\n"
               "            lv1: R.Tensor((16,), dtype=\"float32\") = R.add(lv, x)\n"
               "            t: R.Tuple(R.Tensor((16,), dtype=\"float32\"), R.Tensor((16,), dtype=\"float32\")) = (lv, lv1)\n"
               "            gv: R.Tensor((16,), dtype=\"float32\") = t[1]\n"
               "            R.output(gv)\n"
               "        return gv\n");
  free(s);
  keep(m);

  /* Symbolic shapes, attrs, constants, match_cast, shapes, several outputs. */
  IrModule *m2 = ir_module_new("Module");
  H = m2->heap;
  TirVar *n = tir_var(H, "n", dt_int64);
  TirExpr *dn[2] = {V(n), I64(4)};
  RxSInfo *tn = rx_sinfo_tensor(H, dn, 2, dt_float32);
  RxExpr *px = rx_var(H, "x", tn, false);
  RxExpr *y = rx_var(H, "y", tn, false);
  RxExpr *c = rx_var(H, "c", rx_sinfo_tensor(H, (TirExpr *[]){NULL}, 0, dt_float32), false);
  float one = 1.0f;
  int32_t ci[2] = {1, 2};
  RxExpr *c2 = rx_var(H, "c2", rx_sinfo_tensor(H, (TirExpr *[]){I64(2)}, 1, dt_int32), false);
  RxExpr *z = rx_var(H, "z", tn, false);
  RxExpr *sv = rx_var(H, "s", rx_sinfo_shape(H, dn, 2), false);
  RxExpr *pv = rx_var(H, "p", rx_sinfo_prim(H, dt_int64), false);
  RxSInfo *two[2] = {tn, tn};
  RxExpr *o = rx_var(H, "o", rx_sinfo_tuple(H, two, 2), false);
  RxExpr *relu = rx_call(H, rx_op_lookup("nn.relu"), (RxExpr *[]){px}, 1, NULL, NULL, 0, tn);
  RxExpr *dps_args[3] = {rx_extern_func(H, "ext_fn"), rx_tuple(H, (RxExpr *[]){y, z}, 2),
                         rx_shape_expr(H, (TirExpr *[]){V(n)}, 1)};
  RxExpr *dps = rx_call(H, rx_op_lookup("call_tir"), dps_args, 3, NULL, two, 2,
                        rx_sinfo_tuple(H, two, 2));
  const char *ak[1] = {"axis"};
  IrValue *av[1] = {irv_int(H, 1)};
  RxExpr *sm = rx_call(H, rx_op_lookup("nn.softmax"), (RxExpr *[]){y}, 1, irv_dict(H, ak, av, 1),
                       NULL, 0, tn);
  RxExpr *smv = rx_var(H, "sm", tn, false);
  RxBinding bs2[8] = {
      {y, relu, NULL, span_none},
      {c, rx_const(H, dt_float32, NULL, 0, &one), NULL, span_none},
      {c2, rx_const(H, dt_int32, (int64_t[]){2}, 1, ci), NULL, span_none},
      {z, y, tn, span_none},
      {sv, rx_shape_expr(H, dn, 2), NULL, span_none},
      {pv, rx_prim_value(H, I64(5)), NULL, span_none},
      {o, dps, NULL, span_none},
      {smv, sm, NULL, span_none}};
  RxBlock blk2 = {false, bs2, 8};
  RxFunc *g = ir_alloc(H, sizeof *g);
  g->params = (RxExpr **)ir_memdup(H, (RxExpr *[]){px}, sizeof(RxExpr *));
  g->nparams = 1;
  g->ret_sinfo = tn;
  g->body = rx_seq(H, &blk2, 1, z);
  const char *fk[1] = {"num_input"};
  IrValue *fv[1] = {irv_int(H, 1)};
  g->attrs = irv_dict(H, fk, fv, 1);
  g->is_pure = false;
  g->sym_vars = (TirVar **)ir_memdup(H, (TirVar *[]){n}, sizeof(TirVar *));
  g->nsym_vars = 1;
  ir_module_add_relax(m2, "f", g);
  s = print_mod(m2);
  CHECK_EQ_STR(s,
               "# from tvm.script import ir as I\n"
               "# from tvm.script import tir as T\n"
               "# from tvm.script import relax as R\n"
               "\n"
               "@I.ir_module\n"
               "class Module:\n"
               "    @R.function(private=True, pure=False)\n"
               "    def f(x: R.Tensor((\"n\", 4), dtype=\"float32\")) -> R.Tensor((\"n\", 4), dtype=\"float32\"):\n"
               "        R.func_attr({\"num_input\": 1})\n"
               "        n = T.int64()\n"
               "        y: R.Tensor((n, 4), dtype=\"float32\") = R.nn.relu(x)\n"
               "        c: R.Tensor((), dtype=\"float32\") = R.const(1.0, \"float32\")\n"
               "        c2: R.Tensor((2,), dtype=\"int32\") = R.const([1, 2], \"int32\")\n"
               "        z = R.match_cast(y, R.Tensor((n, 4), dtype=\"float32\"))\n"
               "        s: R.Shape([n, 4]) = R.shape([n, 4])\n"
               "        p: R.Prim(\"int64\") = R.prim_value(T.int64(5))\n"
               "        o: R.Tuple(R.Tensor((n, 4), dtype=\"float32\"), R.Tensor((n, 4), dtype=\"float32\")) = R.call_tir(\"ext_fn\", (y, z), out_sinfo=[R.Tensor((n, 4), dtype=\"float32\"), R.Tensor((n, 4), dtype=\"float32\")], tir_vars=R.shape([n]))\n"
               "        sm: R.Tensor((n, 4), dtype=\"float32\") = R.nn.softmax(y, axis=1)\n"
               "        return z\n");
  free(s);
  keep(m2);
}

/* ------------------------------------------------------------ colour */

static void test_color(void) {
  IrModule *m = built[0];
  StrBuf sb;
  sb_init(&sb);
  PrintOptions o = print_options_default();
  o.color = true;
  print_module(&sb, m, &o);
  CHECK(strstr(sb.data, "\x1b[") != NULL);
  /* Stripping the escapes gives the plain text back. */
  StrBuf plain;
  sb_init(&plain);
  for (const char *c = sb.data; *c; c++) {
    if (*c == '\x1b') {
      while (*c && *c != 'm') c++;
      continue;
    }
    sb_putc(&plain, *c);
  }
  CHECK_EQ_STR(plain.data, mm_relu_text);
  sb_free(&plain);
  sb_free(&sb);
  CHECK_EQ_INT(print_options_default().indent, 4);
  CHECK(print_options_default().show_header);
}

/* ------------------------------------------------------------ round trip */

#ifndef TVS_PRINTER_NO_ROUNDTRIP
/* print -> load -> print must give the same text; returns the reprint. */
static int nstruct_diff;

static bool roundtrip_text(const char *name, const char *text, char **again,
                           const IrModule *orig) {
  SourceFile *src = src_from_string(name, text, strlen(text));
  DiagCtx diag;
  diag_init(&diag, stderr);
  diag.color = false;
  IrModule *m = tvs_load_module(src, &diag);
  bool ok = m != NULL;
  *again = NULL;
  if (m) {
    *again = print_mod(m);
    char *diff = NULL;
    if (orig && !seq_module(orig, m, &(SEqualOptions){false}, &diff)) {
      nstruct_diff++;
      fprintf(stderr, "round trip: %s is not structurally equal: %s\n", name, diff ? diff : "?");
    }
    free(diff);
  } else fprintf(stderr, "round trip: %s failed to load:\n%s", name, text);
  diag_flush(&diag);
  ir_module_free(m);
  diag_free(&diag);
  src_free(src);
  return ok;
}

/* Shows the first line where two printed texts differ. */
static void report_first_diff(const char *a, const char *b) {
  int line = 1;
  const char *la = a, *lb = b;
  while (*a && *a == *b) {
    if (*a == '\n') {
      line++;
      la = a + 1;
      lb = b + 1;
    }
    a++;
    b++;
  }
  int na = (int)strcspn(la, "\n"), nb = (int)strcspn(lb, "\n");
  fprintf(stderr, "  line %d\n  first:  %.*s\n  second: %.*s\n", line, na, la, nb, lb);
}

static void test_roundtrip_built(void) {
  /* Sanity: the comparison used below does see differences. */
  CHECK(!seq_module(built[0], built[1], &(SEqualOptions){false}, NULL));
  for (int i = 0; i < nbuilt; i++) {
    char *s = print_mod(built[i]);
    char *again;
    char name[32];
    snprintf(name, sizeof name, "<built %d>", i);
    CHECK(roundtrip_text(name, s, &again, built[i]));
    if (again && strcmp(again, s)) report_first_diff(s, again);
    CHECK(again && !strcmp(again, s));
    free(again);
    free(s);
  }
}

static void test_roundtrip_corpus(void) {
  const char *root = getenv("TVS_SOURCE_DIR");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/corpus", root ? root : ".");
  DIR *d = opendir(dir);
  if (!d) {
    printf("[SKIP] corpus round trip: %s not found\n", dir);
    return;
  }
  struct dirent *de;
  int nfiles = 0, nfail = 0;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len < 5 || strcmp(de->d_name + len - 4, ".tvs")) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    const char *err;
    SourceFile *src = src_from_path(path, &err);
    if (!src) continue;
    DiagCtx diag;
    diag_init(&diag, NULL);
    IrModule *m = tvs_load_module(src, &diag);
    nfiles++;
    if (!m) {
      fprintf(stderr, "corpus %s: does not load (not a printer failure)\n", de->d_name);
      diag_free(&diag);
      src_free(src);
      continue;
    }
    char *first = print_mod(m);
    char *second = NULL;
    bool ok = roundtrip_text(de->d_name, first, &second, m);
    if (!ok || !second || strcmp(first, second)) {
      nfail++;
      fprintf(stderr, "corpus %s: printed text does not round-trip\n", de->d_name);
      if (second) report_first_diff(first, second);
    }
    CHECK(ok && second && !strcmp(first, second));
    free(first);
    free(second);
    ir_module_free(m);
    diag_free(&diag);
    src_free(src);
  }
  closedir(d);
  printf("corpus round trip: %d files, %d failures\n", nfiles, nfail);
  printf("structural differences after a round trip: %d\n", nstruct_diff);
  CHECK_EQ_INT(nstruct_diff, 0);
}
#endif

int main(void) {
  test_mm_relu();
  test_split_where();
  test_symbolic();
  IrHeap *scratch = ir_heap_new();
  H = scratch;
  test_expressions();
  test_literals();
  test_statements();
  ir_heap_release(scratch);
  test_blocks();
  test_names_attrs();
  test_relax();
  test_color();
#ifndef TVS_PRINTER_NO_ROUNDTRIP
  test_roundtrip_built();
  test_roundtrip_corpus();
#endif
  for (int i = 0; i < nbuilt; i++) ir_module_free(built[i]);
  TEST_MAIN_END();
}
