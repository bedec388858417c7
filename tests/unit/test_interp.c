/* test_interp.c - the reference interpreter (ir/interp.h) on hand-built IR.
 *
 * prim_funcs are built with the ir/tir.h constructors: mm_relu against a C
 * reference, dtype semantics (wraparound, floor/trunc division, float16 and
 * bfloat16 rounding, casts), block semantics (init, T.where, alloc, match_buffer),
 * error messages, symbolic shapes, vectors, and Relax graphs over call_tir. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/interp.h"
#include "ir/module.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"

static IrModule *M; /* module of the test being built */
static IrHeap *H;   /* its heap */
static DiagCtx D;   /* diagnostics, kept only */

/* ----------------------------------------------------------- builders */

static void new_module(void) {
  if (M) ir_module_free(M);
  M = ir_module_new("Test");
  H = M->heap;
  diag_clear(&D);
}

static TirExpr *I(int64_t v) { return tir_i32(H, v); }
static TirExpr *V(TirVar *v) { return tir_var_ref(H, v); }
static TirExpr *B2(TirExprKind k, TirExpr *a, TirExpr *b) { return tir_binary(H, k, a, b); }
static TirExpr *F32(double v) { return tir_float(H, dt_float32, v); }

static TirBuffer *buf1(const char *name, DType t, TirExpr *d0) {
  TirExpr *s[1] = {d0};
  return tir_buffer(H, name, t, s, 1, NULL);
}
static TirBuffer *buf2(const char *name, DType t, TirExpr *d0, TirExpr *d1) {
  TirExpr *s[2] = {d0, d1};
  return tir_buffer(H, name, t, s, 2, NULL);
}
static TirExpr *ld1(TirBuffer *b, TirExpr *i) { return tir_load(H, b, &i, 1); }
static TirExpr *ld2(TirBuffer *b, TirExpr *i, TirExpr *j) {
  TirExpr *x[2] = {i, j};
  return tir_load(H, b, x, 2);
}
static TirStmt *st1(TirBuffer *b, TirExpr *i, TirExpr *v) { return tir_store(H, b, v, &i, 1); }
static TirStmt *st2(TirBuffer *b, TirExpr *i, TirExpr *j, TirExpr *v) {
  TirExpr *x[2] = {i, j};
  return tir_store(H, b, v, x, 2);
}
static TirStmt *loop(TirVar *v, TirExpr *ext, TirStmt *body) {
  return tir_for(H, v, I(0), ext, TIR_FOR_SERIAL, NULL, NULL, body);
}
static TirStmt *seq2(TirStmt *a, TirStmt *b) {
  TirStmt *s[2] = {a, b};
  return tir_seq(H, s, 2);
}
static TirExpr *call(DType t, const char *op, TirExpr *a, TirExpr *b, TirExpr *c) {
  TirExpr *args[3] = {a, b, c};
  const TirOpInfo *info = tir_op_lookup(op);
  int n = info->nargs;
  if (n < 0) n = b ? 2 : 1;
  return tir_call(H, t, info, args, n);
}

/* A block realize with iters (var, extent, type, binding) and an optional init. */
typedef struct IterSpec {
  TirVar *var;
  int64_t extent;
  TirIterType type;
  TirExpr *binding;
} IterSpec;

static TirStmt *block(const char *name, IterSpec *its, int n, TirExpr *pred, TirStmt *init,
                      TirStmt *body, TirBuffer **allocs, int nallocs) {
  TirBlock blk;
  memset(&blk, 0, sizeof blk);
  blk.name = name;
  TirIterVar iv[8];
  TirExpr *vals[8];
  for (int i = 0; i < n; i++) {
    iv[i].var = its[i].var;
    iv[i].dom.min = I(0);
    iv[i].dom.extent = I(its[i].extent);
    iv[i].type = its[i].type;
    vals[i] = its[i].binding;
  }
  blk.iters = iv;
  blk.niters = n;
  blk.init = init;
  blk.body = body;
  blk.allocs = allocs;
  blk.nallocs = nallocs;
  return tir_block_realize(H, vals, n, pred, tir_block(H, &blk));
}

/* Adds prim_func name(params...) with buffers (NULL entries = scalar params). */
static TirFunc *add_func(const char *name, TirBuffer **bufs, TirVar **scalars, int n,
                         TirStmt *body) {
  TirVar *params[16];
  for (int i = 0; i < n; i++)
    params[i] = bufs[i] ? tir_var(H, bufs[i]->name, dt_handle) : scalars ? scalars[i] : NULL;
  TirFunc *f = tir_func(H, params, bufs, n, body, NULL);
  ir_module_add_tir(M, name, f);
  return f;
}

static TvsNDArray *arr(DLDataType t, int ndim, int64_t d0, int64_t d1) {
  int64_t s[2] = {d0, d1};
  return tvs_ndarray_empty(ndim, s, t);
}
static const DLDataType F32T = {kDLFloat, 32, 1}, I32T = {kDLInt, 32, 1};

static const char *last_error(void) {
  for (int i = D.len - 1; i >= 0; i--)
    if (D.items[i].sev == DIAG_ERROR) return D.items[i].msg;
  return "(no error)";
}
static int has_error(const char *want) {
  for (int i = 0; i < D.len; i++)
    if (D.items[i].sev == DIAG_ERROR && strstr(D.items[i].msg, want)) return 1;
  fprintf(stderr, "  no error containing '%s'; last: %s\n", want, last_error());
  return 0;
}

/* Runs `O[0] = e` in a fresh function and returns the stored element. */
typedef union Scalar {
  int64_t i;
  uint64_t u;
  double f;
  uint16_t h;
} Scalar;

static int eval_scalar(TirExpr *e, DType out_t, Scalar *out) {
  TirBuffer *o = buf1("O", out_t, I(1));
  TirBuffer *bufs[1] = {o};
  char name[32];
  snprintf(name, sizeof name, "expr%d", M->nfuncs);
  add_func(name, bufs, NULL, 1, st1(o, I(0), e));
  int64_t one = 1;
  DLDataType dl = {out_t.code == DT_BOOL ? kDLBool : out_t.code, out_t.code == DT_BOOL ? 8 : out_t.bits, 1};
  TvsNDArray *a = tvs_ndarray_empty(1, &one, dl);
  InterpArg args[1] = {{.tensor = &a->t}};
  int rc = interp_run_tir(M, name, args, 1, &D);
  memset(out, 0, sizeof *out);
  const void *p = a->t.data;
  if (out_t.code == DT_FLOAT && out_t.bits == 32) out->f = *(const float *)p;
  else if (out_t.code == DT_FLOAT && out_t.bits == 64) out->f = *(const double *)p;
  else if (out_t.bits == 16 && (out_t.code == DT_FLOAT || out_t.code == DT_BFLOAT)) out->h = *(const uint16_t *)p;
  else if (out_t.code == DT_INT) {
    switch (out_t.bits) {
      case 8: out->i = *(const int8_t *)p; break;
      case 16: out->i = *(const int16_t *)p; break;
      case 32: out->i = *(const int32_t *)p; break;
      default: out->i = *(const int64_t *)p;
    }
  } else {
    switch (out_t.bits) {
      case 1: case 8: out->u = *(const uint8_t *)p; break;
      case 16: out->u = *(const uint16_t *)p; break;
      case 32: out->u = *(const uint32_t *)p; break;
      default: out->u = *(const uint64_t *)p;
    }
  }
  tvs_ndarray_free(a);
  return rc;
}

static int64_t ev_i(TirExpr *e) {
  Scalar s;
  if (eval_scalar(e, e->dtype, &s)) return -999999;
  return e->dtype.code == DT_INT ? s.i : (int64_t)s.u;
}
static double ev_f(TirExpr *e) {
  Scalar s;
  if (eval_scalar(e, e->dtype, &s)) return -999999;
  return s.f;
}
static uint16_t ev_h(TirExpr *e) {
  Scalar s;
  if (eval_scalar(e, e->dtype, &s)) return 0xdead;
  return s.h;
}
static TirExpr *C(DType t, int64_t v) { return tir_int(H, t, v); }
static TirExpr *CF(DType t, double v) { return tir_float(H, t, v); }

/* ------------------------------------------------------------- mm_relu */

static TirFunc *build_mm_relu(int n) {
  TirBuffer *A = buf2("A", dt_float32, I(n), I(n)), *B = buf2("B", dt_float32, I(n), I(n)),
            *Cb = buf2("C", dt_float32, I(n), I(n)), *Y = buf2("Y", dt_float32, I(n), I(n));
  TirVar *i = tir_var(H, "i", dt_int32), *j = tir_var(H, "j", dt_int32), *k = tir_var(H, "k", dt_int32);
  TirVar *vi = tir_var(H, "vi", dt_int32), *vj = tir_var(H, "vj", dt_int32), *vk = tir_var(H, "vk", dt_int32);
  IterSpec its[3] = {{vi, n, TIR_ITER_SPATIAL, V(i)}, {vj, n, TIR_ITER_SPATIAL, V(j)},
                     {vk, n, TIR_ITER_REDUCE, V(k)}};
  TirStmt *init = st2(Y, V(vi), V(vj), F32(0));
  TirStmt *upd = st2(Y, V(vi), V(vj),
                     B2(TIR_ADD, ld2(Y, V(vi), V(vj)),
                        B2(TIR_MUL, ld2(A, V(vi), V(vk)), ld2(B, V(vk), V(vj)))));
  TirStmt *by = block("Y", its, 3, NULL, init, upd, NULL, 0);
  TirStmt *l1 = loop(i, I(n), loop(j, I(n), loop(k, I(n), by)));
  TirVar *i2 = tir_var(H, "i", dt_int32), *j2 = tir_var(H, "j", dt_int32);
  TirVar *ci = tir_var(H, "vi", dt_int32), *cj = tir_var(H, "vj", dt_int32);
  IterSpec its2[2] = {{ci, n, TIR_ITER_SPATIAL, V(i2)}, {cj, n, TIR_ITER_SPATIAL, V(j2)}};
  TirStmt *bc = block("C", its2, 2, NULL, NULL,
                      st2(Cb, V(ci), V(cj), B2(TIR_MAX, ld2(Y, V(ci), V(cj)), F32(0))), NULL, 0);
  TirStmt *l2 = loop(i2, I(n), loop(j2, I(n), bc));
  TirBuffer *allocs[1] = {Y};
  TirStmt *root = block("root", NULL, 0, NULL, NULL, seq2(l1, l2), allocs, 1);
  TirBuffer *bufs[3] = {A, B, Cb};
  return add_func("mm_relu", bufs, NULL, 3, root);
}

static void test_mm_relu(void) {
  new_module();
  build_mm_relu(16);
  TvsNDArray *a = arr(F32T, 2, 16, 16), *b = arr(F32T, 2, 16, 16), *c = arr(F32T, 2, 16, 16);
  float *pa = a->t.data, *pb = b->t.data, *pc = c->t.data;
  for (int i = 0; i < 256; i++) {
    pa[i] = (float)((i * 7 % 23) - 11) * 0.173f;
    pb[i] = (float)((i * 5 % 19) - 9) * 0.291f;
  }
  InterpArg args[3] = {{.tensor = &a->t}, {.tensor = &b->t}, {.tensor = &c->t}};
  CHECK_EQ_INT(interp_run_tir(M, "mm_relu", args, 3, &D), 0);
  int same = 1;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      float y = 0.0f;
      for (int k = 0; k < 16; k++) y = y + pa[i * 16 + k] * pb[k * 16 + j];
      float r = y > 0.0f ? y : 0.0f;
      same &= pc[i * 16 + j] == r;
    }
  CHECK(same);
  /* wrong argument count and unknown function */
  CHECK_EQ_INT(interp_run_tir(M, "mm_relu", args, 2, &D), -1);
  CHECK_EQ_STR(last_error(), "function 'mm_relu' takes 3 arguments but 2 were given");
  CHECK_EQ_INT(interp_run_tir(M, "nope", args, 3, &D), -1);
  CHECK(has_error("no function named 'nope'"));
  /* wrong dtype and rank */
  TvsNDArray *bi = arr(I32T, 2, 16, 16), *b1 = arr(F32T, 1, 256, 0);
  args[1].tensor = &bi->t;
  CHECK_EQ_INT(interp_run_tir(M, "mm_relu", args, 3, &D), -1);
  CHECK_EQ_STR(last_error(), "argument 'B': dtype is int32 but the function expects float32");
  args[1].tensor = &b1->t;
  CHECK_EQ_INT(interp_run_tir(M, "mm_relu", args, 3, &D), -1);
  CHECK_EQ_STR(last_error(), "argument 'B': expected a 2-D tensor but got a 1-D tensor");
  TvsNDArray *b8 = arr(F32T, 2, 16, 8);
  args[1].tensor = &b8->t;
  CHECK_EQ_INT(interp_run_tir(M, "mm_relu", args, 3, &D), -1);
  CHECK_EQ_STR(last_error(), "argument 'B': shape[1] is 8 but the function expects 16");
  args[1].tensor = NULL;
  CHECK_EQ_INT(interp_run_tir(M, "mm_relu", args, 3, &D), -1);
  CHECK_EQ_STR(last_error(), "argument 'B' must be a tensor");
  tvs_ndarray_free(a);
  tvs_ndarray_free(b);
  tvs_ndarray_free(c);
  tvs_ndarray_free(bi);
  tvs_ndarray_free(b1);
  tvs_ndarray_free(b8);
}

/* --------------------------------------------------------- dtype semantics */

static void test_int_semantics(void) {
  new_module();
  CHECK_EQ_INT(ev_i(B2(TIR_ADD, C(dt_int8, 127), C(dt_int8, 1))), -128);
  CHECK_EQ_INT(ev_i(B2(TIR_SUB, C(dt_uint8, 0), C(dt_uint8, 1))), 255);
  CHECK_EQ_INT(ev_i(B2(TIR_MUL, C(dt_int32, 65536), C(dt_int32, 65536))), 0);
  CHECK_EQ_INT(ev_i(B2(TIR_ADD, C(dt_int32, INT32_MAX), C(dt_int32, 1))), INT32_MIN);
  CHECK_EQ_INT(ev_i(B2(TIR_ADD, C(dt_int64, INT64_MAX), C(dt_int64, 1))), INT64_MIN);
  CHECK_EQ_INT(ev_i(B2(TIR_MUL, C(dt_int16, 300), C(dt_int16, 300))), 24464);
  CHECK(ev_i(B2(TIR_SUB, C(dt_uint64, 0), C(dt_uint64, 1))) == -1); /* all ones */
  /* floordiv / floormod: Python semantics */
  CHECK_EQ_INT(ev_i(B2(TIR_FLOORDIV, I(-7), I(2))), -4);
  CHECK_EQ_INT(ev_i(B2(TIR_FLOORMOD, I(-7), I(2))), 1);
  CHECK_EQ_INT(ev_i(B2(TIR_FLOORDIV, I(7), I(-2))), -4);
  CHECK_EQ_INT(ev_i(B2(TIR_FLOORMOD, I(7), I(-2))), -1);
  CHECK_EQ_INT(ev_i(B2(TIR_FLOORDIV, I(-8), I(2))), -4);
  CHECK_EQ_INT(ev_i(B2(TIR_FLOORMOD, I(-8), I(-3))), -2);
  /* Div / Mod on ints truncate (C) */
  CHECK_EQ_INT(ev_i(B2(TIR_DIV, I(-7), I(2))), -3);
  CHECK_EQ_INT(ev_i(B2(TIR_MOD, I(-7), I(2))), -1);
  CHECK_EQ_INT(ev_i(B2(TIR_MOD, I(7), I(-2))), 1);
  /* overflowing quotients wrap instead of trapping */
  CHECK_EQ_INT(ev_i(B2(TIR_DIV, C(dt_int8, -128), C(dt_int8, -1))), -128);
  CHECK_EQ_INT(ev_i(B2(TIR_FLOORDIV, C(dt_int64, INT64_MIN), C(dt_int64, -1))), INT64_MIN);
  CHECK_EQ_INT(ev_i(B2(TIR_FLOORMOD, C(dt_int64, INT64_MIN), C(dt_int64, -1))), 0);
  CHECK_EQ_INT(ev_i(B2(TIR_DIV, C(dt_uint32, 4000000000), C(dt_uint32, 3))), 1333333333);
  /* division by zero is an error, not UB */
  Scalar s;
  CHECK_EQ_INT(eval_scalar(B2(TIR_FLOORMOD, I(5), I(0)), dt_int32, &s), -1);
  CHECK_EQ_STR(last_error(), "division by zero");
  /* min / max / comparisons signedness */
  CHECK_EQ_INT(ev_i(B2(TIR_MAX, C(dt_uint8, 200), C(dt_uint8, 100))), 200);
  CHECK_EQ_INT(ev_i(B2(TIR_MIN, C(dt_int8, -100), C(dt_int8, 100))), -100);
  CHECK_EQ_INT(ev_i(B2(TIR_LT, C(dt_uint32, 0xffffffff), C(dt_uint32, 1))), 0);
  CHECK_EQ_INT(ev_i(B2(TIR_LT, C(dt_int32, -1), C(dt_int32, 1))), 1);
  /* bitwise, shifts (out-of-range amounts are defined), popcount */
  CHECK_EQ_INT(ev_i(call(dt_int32, "bitwise_and", I(0xf0f), I(0xff), NULL)), 0xf);
  CHECK_EQ_INT(ev_i(call(dt_int32, "bitwise_xor", I(5), I(3), NULL)), 6);
  CHECK_EQ_INT(ev_i(call(dt_int32, "bitwise_not", I(0), NULL, NULL)), -1);
  CHECK_EQ_INT(ev_i(call(dt_int32, "shift_left", I(3), I(4), NULL)), 48);
  CHECK_EQ_INT(ev_i(call(dt_int32, "shift_left", I(1), I(31), NULL)), INT32_MIN);
  CHECK_EQ_INT(ev_i(call(dt_int32, "shift_left", I(1), I(40), NULL)), 0);
  CHECK_EQ_INT(ev_i(call(dt_int32, "shift_right", I(-8), I(1), NULL)), -4);
  CHECK_EQ_INT(ev_i(call(dt_int32, "shift_right", I(-8), I(40), NULL)), -1);
  CHECK_EQ_INT(ev_i(call(dt_uint8, "shift_right", C(dt_uint8, 200), C(dt_uint8, 9), NULL)), 0);
  CHECK_EQ_INT(ev_i(call(dt_int8, "shift_left", C(dt_int8, 100), C(dt_int8, 1), NULL)), -56);
  CHECK_EQ_INT(ev_i(call(dt_int32, "popcount", C(dt_int8, -1), NULL, NULL)), 8);
}

static void test_float_semantics(void) {
  new_module();
  /* float32 ops round after each operation */
  CHECK(ev_f(B2(TIR_ADD, F32(16777216.0), F32(1.0))) == 16777216.0);
  CHECK(ev_f(B2(TIR_DIV, F32(1.0), F32(3.0))) == (double)(1.0f / 3.0f));
  CHECK(ev_f(B2(TIR_ADD, CF(dt_float64, 16777216.0), CF(dt_float64, 1.0))) == 16777217.0);
  CHECK(isinf(ev_f(B2(TIR_MUL, F32(3e38), F32(10.0)))));
  CHECK(ev_f(B2(TIR_FLOORMOD, F32(-7.5), F32(2.0))) == 0.5);
  CHECK(ev_f(B2(TIR_FLOORDIV, F32(-7.5), F32(2.0))) == -4.0);
  /* float16: storage rounding (RNE), arithmetic rounding, subnormals, overflow */
  CHECK_EQ_INT(ev_h(CF(dt_float16, 0.1)), 0x2e66);
  CHECK_EQ_INT(ev_h(CF(dt_float16, 65504.0)), 0x7bff);
  CHECK_EQ_INT(ev_h(CF(dt_float16, 65519.0)), 0x7bff);
  CHECK_EQ_INT(ev_h(CF(dt_float16, 65520.0)), 0x7c00);
  CHECK_EQ_INT(ev_h(CF(dt_float16, -1e9)), 0xfc00);
  CHECK_EQ_INT(ev_h(CF(dt_float16, ldexp(1.0, -24))), 0x0001);
  CHECK_EQ_INT(ev_h(CF(dt_float16, ldexp(1.0, -25))), 0x0000);      /* tie to even: 0 */
  CHECK_EQ_INT(ev_h(CF(dt_float16, ldexp(3.0, -25))), 0x0002);      /* tie to even: 2 */
  CHECK_EQ_INT(ev_h(CF(dt_float16, ldexp(1023.0, -24))), 0x03ff);   /* largest subnormal */
  CHECK_EQ_INT(ev_h(CF(dt_float16, -0.0)), 0x8000);
  CHECK_EQ_INT(ev_h(CF(dt_float16, NAN)) & 0x7e00, 0x7e00);
  CHECK_EQ_INT(ev_h(B2(TIR_ADD, CF(dt_float16, 2048.0), CF(dt_float16, 1.0))), 0x6800); /* 2048 */
  CHECK_EQ_INT(ev_h(B2(TIR_ADD, CF(dt_float16, 2048.0), CF(dt_float16, 3.0))), 0x6802); /* 2052 */
  CHECK_EQ_INT(ev_h(tir_cast(H, dt_float16, F32(1.0009765625f + 0.0004f))), 0x3c01);
  /* bfloat16 */
  CHECK_EQ_INT(ev_h(CF(dt_bfloat16, 1.0)), 0x3f80);
  CHECK_EQ_INT(ev_h(CF(dt_bfloat16, 1.0 + ldexp(1.0, -8))), 0x3f80); /* tie: even */
  CHECK_EQ_INT(ev_h(CF(dt_bfloat16, 1.0 + ldexp(3.0, -8))), 0x3f82); /* tie: even (up) */
  CHECK_EQ_INT(ev_h(B2(TIR_ADD, CF(dt_bfloat16, 256.0), CF(dt_bfloat16, 1.0))), 0x4380);
  CHECK_EQ_INT(ev_h(CF(dt_bfloat16, 3.5e38)), 0x7f80);
  /* math intrinsics, computed in double and rounded to the dtype */
  CHECK(ev_f(call(dt_float32, "sigmoid", F32(0.0), NULL, NULL)) == 0.5);
  CHECK(ev_f(call(dt_float32, "rsqrt", F32(4.0), NULL, NULL)) == 0.5);
  CHECK(ev_f(call(dt_float32, "round", F32(2.5), NULL, NULL)) == 2.0);
  CHECK(ev_f(call(dt_float32, "round", F32(3.5), NULL, NULL)) == 4.0);
  CHECK(ev_f(call(dt_float32, "round", F32(-2.5), NULL, NULL)) == -2.0);
  CHECK(ev_f(call(dt_float32, "exp", F32(1.0), NULL, NULL)) == (double)(float)exp(1.0));
  CHECK(ev_f(call(dt_float32, "pow", F32(2.0), F32(10.0), NULL)) == 1024.0);
  CHECK(ev_f(call(dt_float32, "trunc", F32(-2.7), NULL, NULL)) == -2.0);
  CHECK(ev_f(call(dt_float64, "erf", CF(dt_float64, 0.5), NULL, NULL)) == erf(0.5));
  CHECK_EQ_INT(ev_i(call(dt_bool, "isnan", CF(dt_float32, NAN), NULL, NULL)), 1);
  CHECK_EQ_INT(ev_h(call(dt_float16, "exp", CF(dt_float16, 1.0), NULL, NULL)), 0x4170); /* 2.719 */
  /* likely / call_extern */
  CHECK_EQ_INT(ev_i(call(dt_int32, "likely", I(7), NULL, NULL)), 7);
  Scalar s;
  CHECK_EQ_INT(eval_scalar(call(dt_int32, "call_extern", tir_str(H, "my_fn"), I(1), NULL), dt_int32, &s), -1);
  CHECK_EQ_STR(last_error(), "call_extern 'my_fn' cannot run in the interpreter");
}

static void test_casts(void) {
  new_module();
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int32, F32(-2.7))), -2);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int32, F32(2.99))), 2);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int32, F32(1e10))), INT32_MAX);   /* saturates */
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int32, F32(-1e10))), INT32_MIN);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int32, CF(dt_float32, NAN))), 0);  /* NaN -> 0 */
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_uint8, F32(-3.0))), 0);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_uint8, F32(300.0))), 255);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int64, CF(dt_float64, 1e300))), INT64_MAX);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int8, I(300))), 44);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_uint8, I(-1))), 255);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int64, C(dt_uint32, 0xffffffff))), 0xffffffffLL);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int32, C(dt_int8, -5))), -5);
  CHECK(ev_f(tir_cast(H, dt_float32, I(16777217))) == 16777216.0);
  CHECK(ev_f(tir_cast(H, dt_float32, C(dt_int64, (INT64_C(1) << 60) + 1))) == ldexp(1.0, 60));
  CHECK_EQ_INT(ev_h(tir_cast(H, dt_float16, I(2049))), 0x6800);         /* 2048 (tie, even) */
  CHECK_EQ_INT(ev_h(tir_cast(H, dt_float16, I(2051))), 0x6802);         /* 2052 (tie, even) */
  CHECK_EQ_INT(ev_h(tir_cast(H, dt_bfloat16, C(dt_int64, INT64_C(0x0101000000000001)))), 0x5b81);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_bool, I(5))), 1);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_bool, I(0))), 0);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_bool, F32(0.25))), 1);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_bool, F32(-0.0))), 0);
  CHECK_EQ_INT(ev_i(tir_cast(H, dt_int32, tir_bool(H, true))), 1);
  CHECK(ev_f(tir_cast(H, dt_float32, tir_bool(H, true))) == 1.0);
  /* Select evaluates both arms; logical ops short-circuit */
  CHECK_EQ_INT(ev_i(tir_select(H, B2(TIR_LT, I(1), I(2)), I(10), I(20))), 10);
  CHECK_EQ_INT(ev_i(B2(TIR_AND, tir_bool(H, false), B2(TIR_EQ, B2(TIR_DIV, I(1), I(0)), I(0)))), 0);
  CHECK_EQ_INT(ev_i(B2(TIR_OR, tir_bool(H, true), B2(TIR_EQ, B2(TIR_DIV, I(1), I(0)), I(0)))), 1);
  CHECK_EQ_INT(ev_i(tir_not(H, tir_bool(H, false))), 1);
  /* Let */
  TirVar *x = tir_var(H, "x", dt_int32);
  CHECK_EQ_INT(ev_i(tir_let(H, x, I(6), B2(TIR_MUL, V(x), V(x)))), 36);
}

/* ------------------------------------------------------ blocks and buffers */

static void test_if_then_else_lazy(void) {
  new_module();
  /* O[i] = if_then_else(i < 4, A[i], -1) for i in 0..8 with A of shape (4,) */
  TirBuffer *A = buf1("A", dt_int32, I(4)), *O = buf1("O", dt_int32, I(8));
  TirVar *i = tir_var(H, "i", dt_int32);
  TirExpr *cond = B2(TIR_LT, V(i), I(4));
  TirStmt *body = loop(i, I(8), st1(O, V(i), call(dt_int32, "if_then_else", cond, ld1(A, V(i)), I(-1))));
  TirBuffer *bufs[2] = {A, O};
  add_func("pad", bufs, NULL, 2, body);
  TirVar *i2 = tir_var(H, "i", dt_int32);
  TirStmt *body2 = loop(i2, I(8), st1(O, V(i2), tir_select(H, B2(TIR_LT, V(i2), I(4)), ld1(A, V(i2)), I(-1))));
  add_func("pad_select", bufs, NULL, 2, body2);
  TvsNDArray *a = arr(I32T, 1, 4, 0), *o = arr(I32T, 1, 8, 0);
  for (int k = 0; k < 4; k++) ((int32_t *)a->t.data)[k] = k + 1;
  InterpArg args[2] = {{.tensor = &a->t}, {.tensor = &o->t}};
  CHECK_EQ_INT(interp_run_tir(M, "pad", args, 2, &D), 0);
  int32_t *po = o->t.data;
  CHECK(po[0] == 1 && po[3] == 4 && po[4] == -1 && po[7] == -1);
  CHECK_EQ_INT(interp_run_tir(M, "pad_select", args, 2, &D), -1);
  CHECK_EQ_STR(last_error(), "out-of-bounds load from buffer 'A': index [4] outside shape (4,)");
  tvs_ndarray_free(a);
  tvs_ndarray_free(o);
}

static void test_init_split_reduce(void) {
  new_module();
  /* O[i] = sum_k A[i, k] with k split into (k0, k1) = (4, 4); O preset to garbage */
  TirBuffer *A = buf2("A", dt_int32, I(3), I(16)), *O = buf1("O", dt_int32, I(3));
  TirVar *i = tir_var(H, "i", dt_int32), *k0 = tir_var(H, "k0", dt_int32), *k1 = tir_var(H, "k1", dt_int32);
  TirVar *vi = tir_var(H, "vi", dt_int32), *vk = tir_var(H, "vk", dt_int32);
  IterSpec its[2] = {{vi, 3, TIR_ITER_SPATIAL, V(i)},
                     {vk, 16, TIR_ITER_REDUCE, B2(TIR_ADD, B2(TIR_MUL, V(k0), I(4)), V(k1))}};
  TirStmt *b = block("sum", its, 2, NULL, st1(O, V(vi), I(0)),
                     st1(O, V(vi), B2(TIR_ADD, ld1(O, V(vi)), ld2(A, V(vi), V(vk)))), NULL, 0);
  TirStmt *body = loop(i, I(3), loop(k0, I(4), loop(k1, I(4), b)));
  TirBuffer *bufs[2] = {A, O};
  add_func("rowsum", bufs, NULL, 2, body);
  TvsNDArray *a = arr(I32T, 2, 3, 16), *o = arr(I32T, 1, 3, 0);
  int32_t *pa = a->t.data, *po = o->t.data;
  int32_t want[3] = {0, 0, 0};
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 16; k++) {
      pa[r * 16 + k] = r * 100 + k;
      want[r] += r * 100 + k;
    }
  po[0] = po[1] = po[2] = 12345;
  InterpArg args[2] = {{.tensor = &a->t}, {.tensor = &o->t}};
  CHECK_EQ_INT(interp_run_tir(M, "rowsum", args, 2, &D), 0);
  CHECK(po[0] == want[0] && po[1] == want[1] && po[2] == want[2]);
  tvs_ndarray_free(a);
  tvs_ndarray_free(o);
}

static void test_where_and_oob(void) {
  new_module();
  /* B[vi] = A[vi] * 2 with vi = i0 * 4 + i1 over a 3 x 4 nest, extent 10 */
  TirBuffer *A = buf1("A", dt_float32, I(10)), *Bb = buf1("B", dt_float32, I(10));
  for (int with_pred = 0; with_pred < 2; with_pred++) {
    TirVar *i0 = tir_var(H, "i0", dt_int32), *i1 = tir_var(H, "i1", dt_int32);
    TirVar *vi = tir_var(H, "vi", dt_int32);
    TirExpr *bind = B2(TIR_ADD, B2(TIR_MUL, V(i0), I(4)), V(i1));
    IterSpec its[1] = {{vi, 10, TIR_ITER_SPATIAL, bind}};
    TirExpr *pred = with_pred ? B2(TIR_LT, bind, I(10)) : NULL;
    TirStmt *b = block("B", its, 1, pred, NULL,
                       st1(Bb, V(vi), B2(TIR_MUL, ld1(A, V(vi)), F32(2))), NULL, 0);
    TirBuffer *bufs[2] = {A, Bb};
    add_func(with_pred ? "with_where" : "no_where", bufs, NULL, 2,
             loop(i0, I(3), loop(i1, I(4), b)));
  }
  TvsNDArray *a = arr(F32T, 1, 10, 0), *o = arr(F32T, 1, 10, 0);
  for (int k = 0; k < 10; k++) ((float *)a->t.data)[k] = (float)k;
  InterpArg args[2] = {{.tensor = &a->t}, {.tensor = &o->t}};
  CHECK_EQ_INT(interp_run_tir(M, "with_where", args, 2, &D), 0);
  CHECK(((float *)o->t.data)[9] == 18.0f);
  CHECK_EQ_INT(interp_run_tir(M, "no_where", args, 2, &D), -1);
  CHECK_EQ_STR(last_error(), "out-of-bounds load from buffer 'A': index [10] outside shape (10,)");
  /* an out-of-bounds store, reported at the statement's span */
  SourceFile *src = src_from_string("t.tvs", "C[128, 3] = 1.0\n", 16);
  TirBuffer *Cb = buf2("C", dt_float32, I(128), I(128));
  TirStmt *s = tir_stmt_with_span(H, st2(Cb, I(128), I(3), F32(1)), src_span(src, 0, 15));
  TirBuffer *bufs[1] = {Cb};
  add_func("oob", bufs, NULL, 1, s);
  TvsNDArray *c = arr(F32T, 2, 128, 128);
  InterpArg args1[1] = {{.tensor = &c->t}};
  CHECK_EQ_INT(interp_run_tir(M, "oob", args1, 1, &D), -1);
  CHECK_EQ_STR(last_error(), "out-of-bounds store to buffer 'C': index [128, 3] outside shape (128, 128)");
  CHECK(D.len > 0 && D.items[D.len - 1].span.file == src && D.items[D.len - 1].span.line == 1);
  tvs_ndarray_free(a);
  tvs_ndarray_free(o);
  tvs_ndarray_free(c);
  ir_module_free(M); /* before src: nothing dangles */
  M = NULL;
  diag_clear(&D);
  src_free(src);
}

static void test_symbolic_shapes(void) {
  new_module();
  /* scale(A: (n,), B: (n,), s: int32): B[i] = A[i] * s */
  TirVar *n = tir_var(H, "n", dt_int32);
  n->is_size_var = true;
  TirBuffer *A = buf1("A", dt_int32, V(n)), *Bb = buf1("B", dt_int32, V(n));
  TirVar *sv = tir_var(H, "s", dt_int32), *i = tir_var(H, "i", dt_int32);
  TirStmt *body = loop(i, V(n), st1(Bb, V(i), B2(TIR_MUL, ld1(A, V(i)), V(sv))));
  TirBuffer *bufs[3] = {A, Bb, NULL};
  TirVar *scal[3] = {NULL, NULL, sv};
  add_func("scale", bufs, scal, 3, body);
  TvsNDArray *a = arr(I32T, 1, 5, 0), *b = arr(I32T, 1, 5, 0), *b7 = arr(I32T, 1, 7, 0);
  for (int k = 0; k < 5; k++) ((int32_t *)a->t.data)[k] = k;
  InterpArg args[3] = {{.tensor = &a->t}, {.tensor = &b->t}, {.i = 3}};
  CHECK_EQ_INT(interp_run_tir(M, "scale", args, 3, &D), 0);
  CHECK_EQ_INT(((int32_t *)b->t.data)[4], 12);
  args[1].tensor = &b7->t;
  CHECK_EQ_INT(interp_run_tir(M, "scale", args, 3, &D), -1);
  CHECK_EQ_STR(last_error(),
               "argument 'B': shape[0] is 7 but the function expects n = 5 (bound by argument 'A')");
  /* a shape expression: C has shape (n * 2,) */
  TirBuffer *Cb = buf1("C", dt_int32, B2(TIR_MUL, V(n), I(2)));
  TirBuffer *bufs2[2] = {Cb, A};
  TirVar *j = tir_var(H, "j", dt_int32);
  add_func("twice", bufs2, NULL, 2, loop(j, V(n), st1(Cb, V(j), ld1(A, V(j)))));
  TvsNDArray *c10 = arr(I32T, 1, 10, 0);
  InterpArg args2[2] = {{.tensor = &c10->t}, {.tensor = &a->t}};
  CHECK_EQ_INT(interp_run_tir(M, "twice", args2, 2, &D), 0); /* n bound by A (second) */
  args2[0].tensor = &b7->t;
  CHECK_EQ_INT(interp_run_tir(M, "twice", args2, 2, &D), -1);
  CHECK_EQ_STR(last_error(), "argument 'C': shape[0] is 7 but the function expects 10");
  tvs_ndarray_free(a);
  tvs_ndarray_free(b);
  tvs_ndarray_free(b7);
  tvs_ndarray_free(c10);
}

static void test_vectors(void) {
  new_module();
  /* O[ramp(0, 1, 4)] = A[ramp(1, 2, 4)] + broadcast(100, 4) */
  TirBuffer *A = buf1("A", dt_int32, I(8)), *O = buf1("O", dt_int32, I(4));
  TirExpr *src = ld1(A, tir_ramp(H, I(1), I(2), 4));
  TirExpr *val = B2(TIR_ADD, src, tir_broadcast(H, I(100), 4));
  TirBuffer *bufs[2] = {A, O};
  add_func("vec", bufs, NULL, 2, st1(O, tir_ramp(H, I(0), I(1), 4), val));
  add_func("vec_oob", bufs, NULL, 2, st1(O, tir_ramp(H, I(1), I(1), 4), val));
  TvsNDArray *a = arr(I32T, 1, 8, 0), *o = arr(I32T, 1, 4, 0);
  for (int k = 0; k < 8; k++) ((int32_t *)a->t.data)[k] = k * 10;
  InterpArg args[2] = {{.tensor = &a->t}, {.tensor = &o->t}};
  CHECK_EQ_INT(interp_run_tir(M, "vec", args, 2, &D), 0);
  int32_t *po = o->t.data;
  CHECK(po[0] == 110 && po[1] == 130 && po[2] == 150 && po[3] == 170);
  CHECK_EQ_INT(interp_run_tir(M, "vec_oob", args, 2, &D), -1);
  CHECK_EQ_STR(last_error(), "out-of-bounds store to buffer 'O': index [4] outside shape (4,)");
  tvs_ndarray_free(a);
  tvs_ndarray_free(o);
}

static void test_lowered_forms(void) {
  new_module();
  /* Allocate + DeclBuffer with strides: T (2 x 3, row stride 4) over a flat var,
   * While, LetStmt, AssertStmt */
  TirBuffer *O = buf1("O", dt_int32, I(6));
  TirVar *data = tir_var(H, "tmp", dt_handle);
  TirBuffer *T = buf2("T", dt_int32, I(2), I(3));
  T = tir_buffer_copy(H, T);
  TirExpr *strides[2] = {I(4), I(1)};
  T->strides = strides;
  T->nstrides = 2;
  T->data = data;
  TirVar *i = tir_var(H, "i", dt_int32), *j = tir_var(H, "j", dt_int32);
  TirStmt *fill = loop(i, I(2), loop(j, I(3), st2(T, V(i), V(j), B2(TIR_ADD, B2(TIR_MUL, V(i), I(10)), V(j)))));
  TirVar *k = tir_var(H, "k", dt_int32);
  TirStmt *copy = loop(k, I(6), st1(O, V(k), ld2(T, B2(TIR_FLOORDIV, V(k), I(3)), B2(TIR_FLOORMOD, V(k), I(3)))));
  TirStmt *decl = tir_decl_buffer(H, T, seq2(fill, copy));
  TirExpr *ext[1] = {I(8)};
  TirStmt *alloc = tir_allocate(H, data, dt_int32, ext, 1, "global", decl);
  TirBuffer *bufs[1] = {O};
  add_func("lowered", bufs, NULL, 1, alloc);
  TvsNDArray *o = arr(I32T, 1, 6, 0);
  InterpArg args[1] = {{.tensor = &o->t}};
  CHECK_EQ_INT(interp_run_tir(M, "lowered", args, 1, &D), 0);
  int32_t *po = o->t.data;
  CHECK(po[0] == 0 && po[2] == 2 && po[3] == 10 && po[5] == 12);
  /* While with a LetStmt: O[0] = number of doublings of 1 below 100 */
  TirBuffer *W = buf1("W", dt_int32, I(6));
  TirStmt *wl = tir_while(H, B2(TIR_LT, ld1(W, I(1)), I(100)),
                          seq2(st1(W, I(1), B2(TIR_MUL, ld1(W, I(1)), I(2))),
                               st1(W, I(0), B2(TIR_ADD, ld1(W, I(0)), I(1)))));
  TirVar *x = tir_var(H, "x", dt_int32);
  TirStmt *body = seq2(st1(W, I(1), I(1)), tir_let_stmt(H, x, I(5), seq2(wl, st1(W, I(2), V(x)))));
  TirBuffer *bufs2[1] = {W};
  add_func("whiles", bufs2, NULL, 1, body);
  CHECK_EQ_INT(interp_run_tir(M, "whiles", args, 1, &D), 0);
  CHECK(po[0] == 7 && po[1] == 128 && po[2] == 5);
  /* AssertStmt */
  add_func("asserts", bufs2, NULL, 1,
           tir_assert(H, B2(TIR_LT, ld1(W, I(0)), I(0)), tir_str(H, "W[0] must be negative"),
                      st1(W, I(0), I(1))));
  CHECK_EQ_INT(interp_run_tir(M, "asserts", args, 1, &D), -1);
  CHECK_EQ_STR(last_error(), "assertion failed: W[0] must be negative");
  tvs_ndarray_free(o);
}

static void test_match_buffer(void) {
  new_module();
  /* for each 2x2 tile (ti, tj) of a 4x4 A: S = match_buffer(A[2ti:2ti+2, 2tj:2tj+2]); O[ti,tj] = S[1,0] */
  TirBuffer *A = buf2("A", dt_int32, I(4), I(4)), *O = buf2("O", dt_int32, I(2), I(2));
  TirBuffer *S = buf2("S", dt_int32, I(2), I(2));
  TirVar *ti = tir_var(H, "ti", dt_int32), *tj = tir_var(H, "tj", dt_int32);
  TirVar *vi = tir_var(H, "vi", dt_int32), *vj = tir_var(H, "vj", dt_int32);
  TirRange rg[2] = {{B2(TIR_MUL, V(vi), I(2)), I(2)}, {B2(TIR_MUL, V(vj), I(2)), I(2)}};
  TirMatchBuffer mb = {S, {A, rg, 2}};
  TirBlock blk;
  memset(&blk, 0, sizeof blk);
  blk.name = "tile";
  TirIterVar iv[2] = {{vi, {I(0), I(2)}, TIR_ITER_SPATIAL}, {vj, {I(0), I(2)}, TIR_ITER_SPATIAL}};
  blk.iters = iv;
  blk.niters = 2;
  blk.matches = &mb;
  blk.nmatches = 1;
  blk.body = st2(O, V(vi), V(vj), ld2(S, I(1), I(0)));
  TirExpr *vals[2] = {V(ti), V(tj)};
  TirStmt *r = tir_block_realize(H, vals, 2, NULL, tir_block(H, &blk));
  TirBuffer *bufs[2] = {A, O};
  add_func("tiles", bufs, NULL, 2, loop(ti, I(2), loop(tj, I(2), r)));
  TvsNDArray *a = arr(I32T, 2, 4, 4), *o = arr(I32T, 2, 2, 2);
  for (int k = 0; k < 16; k++) ((int32_t *)a->t.data)[k] = k;
  InterpArg args[2] = {{.tensor = &a->t}, {.tensor = &o->t}};
  CHECK_EQ_INT(interp_run_tir(M, "tiles", args, 2, &D), 0);
  int32_t *po = o->t.data;
  CHECK(po[0] == 4 && po[1] == 6 && po[2] == 12 && po[3] == 14);
  tvs_ndarray_free(a);
  tvs_ndarray_free(o);
}

static void test_bool_params(void) {
  new_module();
  /* O[i] = select(flag, M[i], not M[i]) over a bool buffer; float division by zero is inf */
  TirBuffer *Mb = buf1("M", dt_bool, I(4)), *O = buf1("O", dt_bool, I(4));
  TirVar *flag = tir_var(H, "flag", dt_bool), *i = tir_var(H, "i", dt_int32);
  TirStmt *body = loop(i, I(4), st1(O, V(i), tir_select(H, V(flag), ld1(Mb, V(i)),
                                                         tir_not(H, ld1(Mb, V(i))))));
  TirBuffer *bufs[3] = {Mb, O, NULL};
  TirVar *scal[3] = {NULL, NULL, flag};
  add_func("flip", bufs, scal, 3, body);
  TvsNDArray *m = arr((DLDataType){kDLUInt, 8, 1}, 1, 4, 0), *o = arr((DLDataType){kDLBool, 8, 1}, 1, 4, 0);
  unsigned char *pm = m->t.data, *po = o->t.data;
  pm[0] = 1, pm[1] = 0, pm[2] = 1, pm[3] = 0;
  InterpArg args[3] = {{.tensor = &m->t}, {.tensor = &o->t}, {.i = 2}}; /* 2 is true */
  CHECK_EQ_INT(interp_run_tir(M, "flip", args, 3, &D), 0);
  CHECK(po[0] == 1 && po[1] == 0 && po[2] == 1 && po[3] == 0);
  args[2].i = 0;
  CHECK_EQ_INT(interp_run_tir(M, "flip", args, 3, &D), 0);
  CHECK(po[0] == 0 && po[1] == 1 && po[2] == 0 && po[3] == 1);
  CHECK(isinf(ev_f(B2(TIR_DIV, F32(1.0), F32(0.0)))));
  tvs_ndarray_free(m);
  tvs_ndarray_free(o);
}

/* ----------------------------------------------------------------- relax */

static TirFunc *build_unary(const char *name, TirExprKind k, double c, int n) {
  TirBuffer *X = buf2("X", dt_float32, tir_int(H, dt_int64, n), tir_int(H, dt_int64, n));
  TirBuffer *Y = buf2("Y", dt_float32, tir_int(H, dt_int64, n), tir_int(H, dt_int64, n));
  TirVar *i = tir_var(H, "i", dt_int64), *j = tir_var(H, "j", dt_int64);
  TirStmt *b = tir_for(H, i, tir_int(H, dt_int64, 0), tir_int(H, dt_int64, n), TIR_FOR_SERIAL, NULL, NULL,
                       tir_for(H, j, tir_int(H, dt_int64, 0), tir_int(H, dt_int64, n), TIR_FOR_PARALLEL, NULL, NULL,
                               st2(Y, V(i), V(j), B2(k, ld2(X, V(i), V(j)), F32(c)))));
  TirBuffer *bufs[2] = {X, Y};
  return add_func(name, bufs, NULL, 2, b);
}

static RxSInfo *tensor_si(TirExpr *d0, TirExpr *d1) {
  TirExpr *s[2] = {d0, d1};
  return rx_sinfo_tensor(H, s, 2, dt_float32);
}

static void test_relax(void) {
  new_module();
  build_unary("add_one", TIR_ADD, 1.0, 4);
  build_unary("times_three", TIR_MUL, 3.0, 4);
  build_mm_relu(4);
  /* main(x: (4, 4)):  lv0 = call_tir(add_one, (x,)); lv1 = call_tir(times_three, (lv0,));
   *                   lv2 = call_tir(mm_relu, (lv1, x)); gv = R.add(lv2, R.const 0.5);
   *                   return (gv, lv0) */
  TirExpr *d4 = tir_int(H, dt_int64, 4);
  RxSInfo *si = tensor_si(d4, d4);
  RxExpr *x = rx_var(H, "x", si, false);
  const RxOpInfo *ct = rx_op_lookup("call_tir");
  RxExpr *lv0 = rx_var(H, "lv0", si, true), *lv1 = rx_var(H, "lv1", si, true),
         *lv2 = rx_var(H, "lv2", si, true), *gv = rx_var(H, "gv", si, false);
  RxExpr *a0[2] = {rx_global_var(H, "add_one"), rx_tuple(H, &x, 1)};
  RxExpr *c0 = rx_call(H, ct, a0, 2, NULL, &si, 1, si);
  RxExpr *a1[2] = {rx_global_var(H, "times_three"), rx_tuple(H, &lv0, 1)};
  RxExpr *c1 = rx_call(H, ct, a1, 2, NULL, &si, 1, si);
  RxExpr *mmargs[2] = {lv1, x};
  RxExpr *a2[2] = {rx_global_var(H, "mm_relu"), rx_tuple(H, mmargs, 2)};
  RxExpr *c2 = rx_call(H, ct, a2, 2, NULL, &si, 1, si);
  float half = 0.5f;
  RxExpr *cst = rx_const(H, dt_float32, NULL, 0, &half);
  RxExpr *addargs[2] = {lv2, cst};
  RxExpr *c3 = rx_call(H, rx_op_lookup("add"), addargs, 2, NULL, NULL, 0, si);
  RxBinding bds[4] = {{lv0, c0, NULL, span_none}, {lv1, c1, NULL, span_none},
                      {lv2, c2, NULL, span_none}, {gv, c3, NULL, span_none}};
  RxBlock blk = {true, bds, 4};
  RxExpr *rets[2] = {gv, lv0};
  RxFunc *f = ir_alloc(H, sizeof *f);
  f->params = ir_memdup(H, &x, sizeof x);
  f->nparams = 1;
  f->body = rx_seq(H, &blk, 1, rx_tuple(H, rets, 2));
  f->span = span_none;
  ir_module_add_relax(M, "main", f);

  TvsNDArray *xa = arr(F32T, 2, 4, 4);
  float *px = xa->t.data;
  for (int k = 0; k < 16; k++) px[k] = (float)(k % 5) - 2.0f;
  InterpArg args[1] = {{.tensor = &xa->t}};
  DLTensor **res = NULL;
  int nres = 0;
  CHECK_EQ_INT(interp_run_relax(M, "main", args, 1, &res, &nres, &D), 0);
  CHECK_EQ_INT(nres, 2);
  if (nres == 2) {
    int ok = 1;
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        float y = 0.0f;
        for (int k = 0; k < 4; k++) y = y + ((px[i * 4 + k] + 1.0f) * 3.0f) * px[k * 4 + j];
        float want = (y > 0.0f ? y : 0.0f) + 0.5f;
        ok &= ((float *)res[0]->data)[i * 4 + j] == want;
        ok &= ((float *)res[1]->data)[i * 4 + j] == px[i * 4 + j] + 1.0f;
      }
    CHECK(ok);
  }
  for (int i = 0; i < nres; i++) interp_free_result(res[i]);
  free(res);
  /* argument checks */
  TvsNDArray *bad = arr(F32T, 2, 4, 5);
  args[0].tensor = &bad->t;
  CHECK_EQ_INT(interp_run_relax(M, "main", args, 1, &res, &nres, &D), -1);
  CHECK_EQ_STR(last_error(), "argument 'x': shape[1] is 5 but the function expects 4");
  CHECK_EQ_INT(interp_run_relax(M, "main", args, 0, &res, &nres, &D), -1);
  CHECK_EQ_STR(last_error(), "function 'main' takes 1 argument but 0 were given");
  CHECK_EQ_INT(interp_run_relax(M, "mm_relu", args, 1, &res, &nres, &D), -1);
  CHECK(has_error("is a prim_func"));
  tvs_ndarray_free(xa);
  tvs_ndarray_free(bad);
}

static void test_relax_symbolic(void) {
  new_module();
  /* rowsum over (n, 4) via a prim_func taking n as a buffer dim; Relax binds n
   * from x and allocates the (n,) output; also R.matmul and R.nn.relu built-ins
   * and an unsupported operator */
  TirVar *n = tir_var(H, "n", dt_int64);
  TirBuffer *X = buf2("X", dt_float32, V(n), tir_int(H, dt_int64, 4));
  TirBuffer *Y = buf1("Y", dt_float32, V(n));
  TirVar *i = tir_var(H, "i", dt_int64), *k = tir_var(H, "k", dt_int64);
  TirVar *vi = tir_var(H, "vi", dt_int64), *vk = tir_var(H, "vk", dt_int64);
  TirBlock blk;
  memset(&blk, 0, sizeof blk);
  blk.name = "sum";
  TirIterVar iv[2] = {{vi, {tir_int(H, dt_int64, 0), V(n)}, TIR_ITER_SPATIAL},
                      {vk, {tir_int(H, dt_int64, 0), tir_int(H, dt_int64, 4)}, TIR_ITER_REDUCE}};
  blk.iters = iv;
  blk.niters = 2;
  blk.init = st1(Y, V(vi), F32(0));
  blk.body = st1(Y, V(vi), B2(TIR_ADD, ld1(Y, V(vi)), ld2(X, V(vi), V(vk))));
  TirExpr *vals[2] = {V(i), V(k)};
  TirStmt *r = tir_block_realize(H, vals, 2, NULL, tir_block(H, &blk));
  TirStmt *body = tir_for(H, i, tir_int(H, dt_int64, 0), V(n), TIR_FOR_SERIAL, NULL, NULL,
                          tir_for(H, k, tir_int(H, dt_int64, 0), tir_int(H, dt_int64, 4),
                                  TIR_FOR_SERIAL, NULL, NULL, r));
  TirBuffer *bufs[2] = {X, Y};
  add_func("rowsum", bufs, NULL, 2, body);

  TirVar *m = tir_var(H, "m", dt_int64);
  TirExpr *d4 = tir_int(H, dt_int64, 4);
  RxSInfo *xsi = tensor_si(V(m), d4);
  TirExpr *ms[1] = {V(m)};
  RxSInfo *ysi = rx_sinfo_tensor(H, ms, 1, dt_float32);
  RxSInfo *wsi = tensor_si(d4, d4);
  RxExpr *x = rx_var(H, "x", xsi, false), *w = rx_var(H, "w", wsi, false);
  RxExpr *mm = rx_var(H, "mm", xsi, true), *rl = rx_var(H, "rl", xsi, true), *gv = rx_var(H, "gv", ysi, false);
  RxExpr *mmargs[2] = {x, w};
  RxExpr *c0 = rx_call(H, rx_op_lookup("matmul"), mmargs, 2, NULL, NULL, 0, xsi);
  RxExpr *c1 = rx_call(H, rx_op_lookup("nn.relu"), &mm, 1, NULL, NULL, 0, xsi);
  RxExpr *a2[2] = {rx_global_var(H, "rowsum"), rx_tuple(H, &rl, 1)};
  RxExpr *c2 = rx_call(H, rx_op_lookup("call_tir"), a2, 2, NULL, &ysi, 1, ysi);
  RxBinding bds[3] = {{mm, c0, NULL, span_none}, {rl, c1, NULL, span_none}, {gv, c2, NULL, span_none}};
  RxBlock rb = {true, bds, 3};
  RxFunc *f = ir_alloc(H, sizeof *f);
  RxExpr *ps[2] = {x, w};
  f->params = ir_memdup(H, ps, sizeof ps);
  f->nparams = 2;
  f->body = rx_seq(H, &rb, 1, gv);
  ir_module_add_relax(M, "main", f);
  /* unsupported op */
  RxExpr *y2 = rx_var(H, "y", xsi, false);
  RxExpr *c3 = rx_call(H, rx_op_lookup("call_dps_packed"), &x, 1, NULL, NULL, 0, xsi);
  RxBinding bd2[1] = {{y2, c3, NULL, span_none}};
  RxBlock rb2 = {false, bd2, 1};
  RxFunc *g = ir_alloc(H, sizeof *g);
  g->params = ir_memdup(H, &x, sizeof x);
  g->nparams = 1;
  g->body = rx_seq(H, &rb2, 1, y2);
  ir_module_add_relax(M, "soft", g);

  TvsNDArray *xa = arr(F32T, 2, 3, 4), *wa = arr(F32T, 2, 4, 4);
  float *px = xa->t.data, *pw = wa->t.data;
  for (int q = 0; q < 12; q++) px[q] = (float)q - 5.0f;
  for (int q = 0; q < 16; q++) pw[q] = (q % 5 == 0) ? 1.0f : 0.0f; /* identity */
  InterpArg args[2] = {{.tensor = &xa->t}, {.tensor = &wa->t}};
  DLTensor **res = NULL;
  int nres = 0;
  CHECK_EQ_INT(interp_run_relax(M, "main", args, 2, &res, &nres, &D), 0);
  CHECK(nres == 1 && res[0]->ndim == 1 && res[0]->shape[0] == 3);
  if (nres == 1) {
    float *py = res[0]->data;
    CHECK(py[0] == 0.0f + 0 + 0 + 0 && py[1] == 0.0f + 0 + 1 + 2 && py[2] == 3.0f + 4 + 5 + 6);
  }
  for (int q = 0; q < nres; q++) interp_free_result(res[q]);
  free(res);
  CHECK_EQ_INT(interp_run_relax(M, "soft", args, 1, &res, &nres, &D), -1);
  CHECK_EQ_STR(last_error(), "operator R.call_dps_packed is not supported by the interpreter");
  tvs_ndarray_free(xa);
  tvs_ndarray_free(wa);
}

/* ------------------------------------------------------- from .tvs text */

static const char MM_RELU_TEXT[] =
    "from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def mm_relu(A: T.Buffer((8, 8), \"float32\"), B: T.Buffer((8, 8), \"float32\"),\n"
    "            C: T.Buffer((8, 8), \"float32\")):\n"
    "    Y = T.alloc_buffer((8, 8), dtype=\"float32\")\n"
    "    for i, j, k0, k1 in T.grid(8, 8, 2, 4):\n"
    "        with T.block(\"Y\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            vk = T.axis.reduce(8, k0 * 4 + k1)\n"
    "            with T.init():\n"
    "                Y[vi, vj] = T.float32(0)\n"
    "            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "    for i, j in T.grid(8, 8):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n"
    "\n"
    "@T.prim_func\n"
    "def shifted(A: T.Buffer((16,), \"int32\"), B: T.Buffer((16,), \"int32\")):\n"
    "    for i in range(16):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(16, i)\n"
    "            B[vi + 1] = A[vi]\n";

static void test_text_tir(void) {
  if (M) ir_module_free(M);
  M = NULL;
  diag_clear(&D);
  SourceFile *src = src_from_string("mm.tvs", MM_RELU_TEXT, sizeof MM_RELU_TEXT - 1);
  IrModule *m = tvs_load_module(src, &D);
  CHECK(m != NULL);
  if (!m) {
    fprintf(stderr, "  load failed: %s\n", last_error());
    src_free(src);
    return;
  }
  TvsNDArray *a = arr(F32T, 2, 8, 8), *b = arr(F32T, 2, 8, 8), *c = arr(F32T, 2, 8, 8);
  float *pa = a->t.data, *pb = b->t.data, *pc = c->t.data;
  for (int i = 0; i < 64; i++) {
    pa[i] = (float)((i * 3 % 11) - 5) * 0.25f;
    pb[i] = (float)((i * 7 % 13) - 6) * 0.5f;
    pc[i] = 99.0f;
  }
  InterpArg args[3] = {{.tensor = &a->t}, {.tensor = &b->t}, {.tensor = &c->t}};
  CHECK_EQ_INT(interp_run_tir(m, "mm_relu", args, 3, &D), 0);
  int same = 1;
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      float y = 0.0f;
      for (int k = 0; k < 8; k++) y = y + pa[i * 8 + k] * pb[k * 8 + j];
      same &= pc[i * 8 + j] == (y > 0.0f ? y : 0.0f);
    }
  CHECK(same);
  /* an out-of-bounds store points at its line in the text */
  TvsNDArray *x = arr(I32T, 1, 16, 0), *y = arr(I32T, 1, 16, 0);
  InterpArg args2[2] = {{.tensor = &x->t}, {.tensor = &y->t}};
  CHECK_EQ_INT(interp_run_tir(m, "shifted", args2, 2, &D), -1);
  CHECK_EQ_STR(last_error(), "out-of-bounds store to buffer 'B': index [16] outside shape (16,)");
  const Diag *last = D.len ? &D.items[D.len - 1] : NULL;
  CHECK(last && last->span.file == src && last->span.line == 24);
  tvs_ndarray_free(a);
  tvs_ndarray_free(b);
  tvs_ndarray_free(c);
  tvs_ndarray_free(x);
  tvs_ndarray_free(y);
  ir_module_free(m);
  diag_clear(&D);
  src_free(src);
}

static const char RELAX_TEXT[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def scale_cols(x: T.handle, s: T.handle, y: T.handle):\n"
    "        n = T.int64()\n"
    "        X = T.match_buffer(x, (n, T.int64(4)), \"float32\")\n"
    "        S = T.match_buffer(s, (T.int64(4),), \"float32\")\n"
    "        Y = T.match_buffer(y, (n, T.int64(4)), \"float32\")\n"
    "        for i, j in T.grid(n, T.int64(4)):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                Y[vi, vj] = X[vi, vj] * S[vj]\n"
    "\n"
    "    @T.prim_func\n"
    "    def row_sum(x: T.handle, y: T.handle):\n"
    "        n = T.int64()\n"
    "        X = T.match_buffer(x, (n, T.int64(4)), \"float32\")\n"
    "        Y = T.match_buffer(y, (n,), \"float32\")\n"
    "        for i, k in T.grid(n, T.int64(4)):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    Y[vi] = T.float32(0)\n"
    "                Y[vi] = Y[vi] + X[vi, vk]\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\"), s: R.Tensor((4,), dtype=\"float32\")):\n"
    "        n = T.int64()\n"
    "        cls = Module\n"
    "        with R.dataflow():\n"
    "            lv = R.call_tir(cls.scale_cols, (x, s), out_sinfo=R.Tensor((n, 4), dtype=\"float32\"))\n"
    "            gv = R.call_tir(cls.row_sum, (lv,), out_sinfo=R.Tensor((n,), dtype=\"float32\"))\n"
    "            R.output(gv, lv)\n"
    "        return (gv, lv)\n";

static void test_text_relax(void) {
  diag_clear(&D);
  SourceFile *src = src_from_string("rx.tvs", RELAX_TEXT, sizeof RELAX_TEXT - 1);
  IrModule *m = tvs_load_module(src, &D);
  CHECK(m != NULL);
  if (!m) {
    fprintf(stderr, "  load failed: %s\n", last_error());
    src_free(src);
    return;
  }
  TvsNDArray *x = arr(F32T, 2, 3, 4), *s = arr(F32T, 1, 4, 0);
  float *px = x->t.data, *ps = s->t.data;
  for (int i = 0; i < 12; i++) px[i] = (float)i;
  for (int i = 0; i < 4; i++) ps[i] = (float)(i + 1);
  InterpArg args[2] = {{.tensor = &x->t}, {.tensor = &s->t}};
  DLTensor **res = NULL;
  int nres = 0;
  CHECK_EQ_INT(interp_run_relax(m, "main", args, 2, &res, &nres, &D), 0);
  CHECK_EQ_INT(nres, 2);
  if (nres == 2) {
    CHECK(res[0]->ndim == 1 && res[0]->shape[0] == 3 && res[1]->ndim == 2);
    float *g = res[0]->data;
    /* row r: sum_j (4r + j) * (j + 1) = 10 * 4r + 20 */
    CHECK(g[0] == 20.0f && g[1] == 60.0f && g[2] == 100.0f);
    CHECK(((float *)res[1]->data)[11] == 44.0f);
  }
  for (int i = 0; i < nres; i++) interp_free_result(res[i]);
  free(res);
  /* dtype mismatch on a graph param */
  TvsNDArray *si = arr(I32T, 1, 4, 0);
  args[1].tensor = &si->t;
  CHECK_EQ_INT(interp_run_relax(m, "main", args, 2, &res, &nres, &D), -1);
  CHECK_EQ_STR(last_error(), "argument 's': dtype is int32 but the function expects float32");
  /* calling the prim_func directly with inconsistent n */
  TvsNDArray *y = arr(F32T, 1, 5, 0);
  InterpArg args2[2] = {{.tensor = &x->t}, {.tensor = &y->t}};
  CHECK_EQ_INT(interp_run_tir(m, "row_sum", args2, 2, &D), -1);
  CHECK_EQ_STR(last_error(),
               "argument 'Y': shape[0] is 5 but the function expects n = 3 (bound by argument 'X')");
  tvs_ndarray_free(x);
  tvs_ndarray_free(s);
  tvs_ndarray_free(si);
  tvs_ndarray_free(y);
  ir_module_free(m);
  diag_clear(&D);
  src_free(src);
}

int main(void) {
  diag_init(&D, NULL);
  test_mm_relu();
  test_int_semantics();
  test_float_semantics();
  test_casts();
  test_if_then_else_lazy();
  test_init_split_reduce();
  test_where_and_oob();
  test_symbolic_shapes();
  test_vectors();
  test_lowered_forms();
  test_match_buffer();
  test_bool_params();
  test_relax();
  test_relax_symbolic();
  test_text_tir();
  test_text_relax();
  if (M) ir_module_free(M);
  diag_free(&D);
  TEST_MAIN_END();
}
