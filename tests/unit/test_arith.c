/* test_arith.c - unit tests of the arithmetic analyzer (ir/arith.h).
 *
 * Expressions are built with the ir/tir.h constructors through the short
 * helpers below and compared by their printed TVMScript form: folding (every
 * op and int width), canonical sums, div/mod rules, min/max, comparisons,
 * booleans, bounds, proofs, affine views and iterator maps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "ir/printer.h"
#include "base/util.h"
#include "tests/unit/check.h"

static IrHeap *H;
static ArithCtx *A;

/* ------------------------------------------------------------ builders */

static TirVar *var(const char *name) { return tir_var(H, name, dt_int32); }
static TirVar *var64(const char *name) { return tir_var(H, name, dt_int64); }
static TirExpr *v(TirVar *x) { return tir_var_ref(H, x); }
static TirExpr *c(int64_t x) { return tir_i32(H, x); }
static TirExpr *ct(DType t, int64_t x) { return tir_int(H, t, x); }
static TirExpr *cf(double x) { return tir_float(H, dt_float32, x); }
static TirExpr *bin(TirExprKind k, TirExpr *a, TirExpr *b) { return tir_binary(H, k, a, b); }
static TirExpr *add(TirExpr *a, TirExpr *b) { return bin(TIR_ADD, a, b); }
static TirExpr *sub(TirExpr *a, TirExpr *b) { return bin(TIR_SUB, a, b); }
static TirExpr *mul(TirExpr *a, TirExpr *b) { return bin(TIR_MUL, a, b); }
static TirExpr *fdiv(TirExpr *a, TirExpr *b) { return bin(TIR_FLOORDIV, a, b); }
static TirExpr *fmod_(TirExpr *a, TirExpr *b) { return bin(TIR_FLOORMOD, a, b); }
static TirExpr *tdiv(TirExpr *a, TirExpr *b) { return bin(TIR_DIV, a, b); }
static TirExpr *tmod(TirExpr *a, TirExpr *b) { return bin(TIR_MOD, a, b); }
static TirExpr *mn(TirExpr *a, TirExpr *b) { return bin(TIR_MIN, a, b); }
static TirExpr *mx(TirExpr *a, TirExpr *b) { return bin(TIR_MAX, a, b); }
static TirExpr *lt(TirExpr *a, TirExpr *b) { return bin(TIR_LT, a, b); }
static TirExpr *le(TirExpr *a, TirExpr *b) { return bin(TIR_LE, a, b); }
static TirExpr *gt(TirExpr *a, TirExpr *b) { return bin(TIR_GT, a, b); }
static TirExpr *ge(TirExpr *a, TirExpr *b) { return bin(TIR_GE, a, b); }
static TirExpr *eq(TirExpr *a, TirExpr *b) { return bin(TIR_EQ, a, b); }
static TirExpr *ne(TirExpr *a, TirExpr *b) { return bin(TIR_NE, a, b); }
static TirExpr *and_(TirExpr *a, TirExpr *b) { return bin(TIR_AND, a, b); }
static TirExpr *or_(TirExpr *a, TirExpr *b) { return bin(TIR_OR, a, b); }
static TirExpr *not_(TirExpr *a) { return tir_not(H, a); }
static TirExpr *sel(TirExpr *c_, TirExpr *a, TirExpr *b) { return tir_select(H, c_, a, b); }
static TirExpr *T(void) { return tir_bool(H, true); }
static TirExpr *F(void) { return tir_bool(H, false); }

/* ------------------------------------------------------------ printing */

#define NSTR 64
static char *strs[NSTR];
static int nstr;

/* The printed form of e (valid until NSTR more calls). */
static const char *str(const TirExpr *e) {
  if (!e) return "(null)";
  StrBuf sb;
  sb_init(&sb);
  print_tir_expr(&sb, e);
  int i = nstr++ % NSTR;
  free(strs[i]);
  strs[i] = sb_take(&sb);
  return strs[i];
}

static const char *simp(TirExpr *e) { return str(arith_simplify(A, e)); }
#define SIMP(e, expect) CHECK_EQ_STR(simp(e), expect)
static const char *fold(TirExprKind k, TirExpr *a, TirExpr *b) {
  return str(arith_const_fold(H, k, a, b));
}
#define FOLD(k, a, b, expect) CHECK_EQ_STR(fold(k, a, b), expect)

static void fresh(void) {
  if (A) arith_free(A);
  A = arith_new(H);
}

static void bind(TirVar *x, int64_t lo, int64_t extent) {
  arith_bind_range(A, x, ct(x->dtype, lo), ct(x->dtype, extent));
}

/* ------------------------------------------------------------ folding */

static void test_fold_int(void) {
  FOLD(TIR_ADD, c(2), c(3), "5");
  FOLD(TIR_SUB, c(2), c(3), "-1");
  FOLD(TIR_MUL, c(-4), c(3), "-12");
  FOLD(TIR_FLOORDIV, c(7), c(2), "3");
  FOLD(TIR_FLOORDIV, c(-7), c(2), "-4");
  FOLD(TIR_FLOORDIV, c(7), c(-2), "-4");
  FOLD(TIR_FLOORDIV, c(-7), c(-2), "3");
  FOLD(TIR_FLOORMOD, c(7), c(2), "1");
  FOLD(TIR_FLOORMOD, c(-7), c(2), "1");
  FOLD(TIR_FLOORMOD, c(7), c(-2), "-1");
  FOLD(TIR_FLOORMOD, c(-7), c(-2), "-1");
  FOLD(TIR_DIV, c(-7), c(2), "-3");
  FOLD(TIR_DIV, c(7), c(-2), "-3");
  FOLD(TIR_MOD, c(-7), c(2), "-1");
  FOLD(TIR_MOD, c(7), c(-2), "1");
  FOLD(TIR_MIN, c(3), c(-3), "-3");
  FOLD(TIR_MAX, c(3), c(-3), "3");
  FOLD(TIR_EQ, c(3), c(3), "T.bool(True)");
  FOLD(TIR_NE, c(3), c(3), "T.bool(False)");
  FOLD(TIR_LT, c(-1), c(0), "T.bool(True)");
  FOLD(TIR_LE, c(1), c(0), "T.bool(False)");
  FOLD(TIR_GT, c(1), c(0), "T.bool(True)");
  FOLD(TIR_GE, c(0), c(0), "T.bool(True)");
  FOLD(TIR_AND, T(), F(), "T.bool(False)");
  FOLD(TIR_OR, T(), F(), "T.bool(True)");
  /* division by zero is never folded */
  CHECK(arith_const_fold(H, TIR_FLOORDIV, c(1), c(0)) == NULL);
  CHECK(arith_const_fold(H, TIR_FLOORMOD, c(1), c(0)) == NULL);
  CHECK(arith_const_fold(H, TIR_DIV, c(1), c(0)) == NULL);
  CHECK(arith_const_fold(H, TIR_MOD, c(1), c(0)) == NULL);
  CHECK(arith_const_fold(H, TIR_DIV, cf(1), cf(0)) == NULL);
  /* non-constants, mismatched dtypes */
  TirVar *x = var("x");
  CHECK(arith_const_fold(H, TIR_ADD, v(x), c(1)) == NULL);
  CHECK(arith_const_fold(H, TIR_ADD, c(1), ct(dt_int64, 1)) == NULL);
}

static void test_fold_widths(void) {
  /* wrap-around at every width */
  FOLD(TIR_ADD, c(INT32_MAX), c(1), "T.int32(-2147483648)");
  FOLD(TIR_MUL, c(65536), c(65536), "0");
  FOLD(TIR_SUB, c(INT32_MIN), c(1), "2147483647");
  FOLD(TIR_ADD, ct(dt_int8, 127), ct(dt_int8, 1), "T.int8(-128)");
  FOLD(TIR_MUL, ct(dt_int8, 16), ct(dt_int8, 16), "T.int8(0)");
  FOLD(TIR_SUB, ct(dt_int8, -128), ct(dt_int8, 1), "T.int8(127)");
  FOLD(TIR_ADD, ct(dt_int16, 32767), ct(dt_int16, 2), "T.int16(-32767)");
  FOLD(TIR_MUL, ct(dt_int16, 300), ct(dt_int16, 300), "T.int16(24464)");
  FOLD(TIR_ADD, ct(dt_int64, INT64_MAX), ct(dt_int64, 1), "T.int64(-9223372036854775808)");
  FOLD(TIR_MUL, ct(dt_int64, INT64_MIN), ct(dt_int64, -1), "T.int64(-9223372036854775808)");
  FOLD(TIR_FLOORDIV, ct(dt_int64, INT64_MIN), ct(dt_int64, -1), "T.int64(-9223372036854775808)");
  FOLD(TIR_FLOORMOD, ct(dt_int64, INT64_MIN), ct(dt_int64, -1), "T.int64(0)");
  FOLD(TIR_DIV, ct(dt_int64, INT64_MIN), ct(dt_int64, -1), "T.int64(-9223372036854775808)");
  FOLD(TIR_FLOORDIV, ct(dt_int8, -128), ct(dt_int8, -1), "T.int8(-128)");
  FOLD(TIR_FLOORDIV, ct(dt_int64, -9), ct(dt_int64, 4), "T.int64(-3)");
  FOLD(TIR_FLOORMOD, ct(dt_int64, -9), ct(dt_int64, 4), "T.int64(3)");
  FOLD(TIR_FLOORMOD, ct(dt_int16, -1), ct(dt_int16, 7), "T.int16(6)");
  /* unsigned */
  FOLD(TIR_SUB, ct(dt_uint8, 0), ct(dt_uint8, 1), "T.uint8(255)");
  FOLD(TIR_ADD, ct(dt_uint8, 255), ct(dt_uint8, 1), "T.uint8(0)");
  FOLD(TIR_ADD, ct(dt_uint16, 65535), ct(dt_uint16, 3), "T.uint16(2)");
  FOLD(TIR_SUB, ct(dt_uint32, 0), ct(dt_uint32, 1), "T.uint32(4294967295)");
  FOLD(TIR_SUB, ct(dt_uint64, 0), ct(dt_uint64, 1), "T.uint64(18446744073709551615)");
  FOLD(TIR_FLOORDIV, ct(dt_uint32, 4294967295), ct(dt_uint32, 2), "T.uint32(2147483647)");
  FOLD(TIR_FLOORDIV, ct(dt_uint64, -1), ct(dt_uint64, 2), "T.uint64(9223372036854775807)");
  FOLD(TIR_FLOORMOD, ct(dt_uint64, -1), ct(dt_uint64, 10), "T.uint64(5)");
  FOLD(TIR_LT, ct(dt_uint32, 1), ct(dt_uint32, 4294967295), "T.bool(True)");
  FOLD(TIR_LT, ct(dt_uint64, -1), ct(dt_uint64, 1), "T.bool(False)");
  FOLD(TIR_MAX, ct(dt_uint8, 200), ct(dt_uint8, 100), "T.uint8(200)");
  FOLD(TIR_MIN, ct(dt_uint64, -1), ct(dt_uint64, 1), "T.uint64(1)");
  FOLD(TIR_MUL, ct(dt_uint16, 256), ct(dt_uint16, 256), "T.uint16(0)");
  CHECK_EQ_INT(arith_wrap_int(dt_int8, 200), -56);
  CHECK_EQ_INT(arith_wrap_int(dt_uint8, (uint64_t)-1), 255);
  CHECK_EQ_INT(arith_wrap_int(dt_bool, 3), 1);
  CHECK_EQ_INT(arith_wrap_int(dt_int32, UINT64_C(0x80000000)), INT32_MIN);
}

static void test_fold_float(void) {
  FOLD(TIR_ADD, cf(1.5), cf(2.25), "T.float32(3.75)");
  FOLD(TIR_MUL, cf(0.5), cf(3), "T.float32(1.5)");
  FOLD(TIR_DIV, cf(1), cf(4), "T.float32(0.25)");
  FOLD(TIR_SUB, cf(1), cf(4), "T.float32(-3.0)");
  FOLD(TIR_FLOORDIV, cf(-7), cf(2), "T.float32(-4.0)");
  FOLD(TIR_FLOORMOD, cf(-7), cf(2), "T.float32(1.0)");
  FOLD(TIR_MIN, cf(1), cf(2), "T.float32(1.0)");
  FOLD(TIR_MAX, cf(1), cf(2), "T.float32(2.0)");
  FOLD(TIR_LT, cf(1), cf(2), "T.bool(True)");
  FOLD(TIR_EQ, cf(1), cf(2), "T.bool(False)");
  /* float32 rounding: 0.1 + 0.2 rounded to float32 */
  TirExpr *r = arith_const_fold(H, TIR_ADD, tir_float(H, dt_float32, (float)0.1),
                                tir_float(H, dt_float32, (float)0.2));
  CHECK(r && r->fval == (double)((float)0.1 + (float)0.2));
  r = arith_const_fold(H, TIR_DIV, cf(1), cf(3));
  CHECK(r && r->fval == (double)(1.0f / 3.0f));
  r = arith_const_fold(H, TIR_DIV, tir_float(H, dt_float64, 1), tir_float(H, dt_float64, 3));
  CHECK(r && r->fval == 1.0 / 3.0);
  /* float16: 2049 is not representable, rounds to even (2048) */
  r = arith_const_fold(H, TIR_ADD, tir_float(H, dt_float16, 2048), tir_float(H, dt_float16, 1));
  CHECK(r && r->fval == 2048.0);
  r = arith_const_fold(H, TIR_MUL, tir_float(H, dt_float16, 300), tir_float(H, dt_float16, 300));
  CHECK(r && isinf(r->fval));
  r = arith_const_fold(H, TIR_ADD, tir_float(H, dt_bfloat16, 256), tir_float(H, dt_bfloat16, 1));
  CHECK(r && r->fval == 256.0);
  /* float32 overflow */
  r = arith_const_fold(H, TIR_MUL, cf(1e30), cf(1e30));
  CHECK(r && isinf(r->fval));
}

static void test_fold_cast(void) {
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int8, c(300))), "T.int8(44)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int64, c(-5))), "T.int64(-5)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_uint8, c(-1))), "T.uint8(255)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int32, ct(dt_uint32, 4294967295))), "-1");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int64, ct(dt_uint32, 4294967295))),
               "T.int64(4294967295)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int32, cf(3.9))), "3");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int32, cf(-3.9))), "-3");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int8, cf(1000))), "T.int8(127)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_uint8, cf(-5))), "T.uint8(0)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int32, cf(NAN))), "0");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_float32, c(3))), "T.float32(3.0)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_bool, c(3))), "T.bool(True)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_bool, cf(0))), "T.bool(False)");
  CHECK_EQ_STR(str(arith_const_fold_cast(H, dt_int32, T())), "1");
  TirExpr *r = arith_const_fold_cast(H, dt_float32, c(16777217));
  CHECK(r && r->fval == 16777216.0);
  r = arith_const_fold_cast(H, dt_float32, tir_float(H, dt_float64, 0.1));
  CHECK(r && r->fval == (double)(float)0.1);
  CHECK(arith_const_fold_cast(H, dt_int32, v(var("x"))) == NULL);
}

/* ------------------------------------------------------------ linear */

static void test_linear(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j"), *k = var("k"), *x = var("x"), *y = var("y");
  bind(i, 0, 8);
  bind(j, 0, 16);
  SIMP(sub(add(mul(v(i), c(4)), v(j)), mul(v(i), c(4))), "j");
  SIMP(sub(add(v(x), c(16)), v(x)), "16");
  SIMP(add(mul(v(x), c(2)), v(x)), "x * 3");
  SIMP(add(v(j), mul(v(i), c(4))), "i * 4 + j");
  SIMP(add(mul(c(4), v(i)), v(j)), "i * 4 + j");
  SIMP(add(add(v(j), c(3)), mul(v(i), c(4))), "i * 4 + j + 3");
  SIMP(sub(v(j), mul(v(i), c(4))), "j - i * 4");
  SIMP(sub(c(16), v(x)), "16 - x");
  SIMP(sub(c(0), v(x)), "x * -1");
  SIMP(sub(sub(c(0), v(x)), c(3)), "x * -1 - 3");
  SIMP(add(v(x), c(0)), "x");
  SIMP(mul(v(x), c(1)), "x");
  SIMP(mul(v(x), c(0)), "0");
  SIMP(sub(v(x), v(x)), "0");
  SIMP(add(add(v(y), v(x)), v(y)), "x + y * 2");
  SIMP(mul(add(v(x), c(1)), c(4)), "x * 4 + 4");
  SIMP(mul(add(v(x), v(y)), add(v(x), v(y))), "x * x + x * y * 2 + y * y");
  SIMP(sub(mul(add(v(x), c(1)), add(v(x), c(-1))), mul(v(x), v(x))), "-1");
  SIMP(add(mul(v(k), c(2)), sub(v(j), v(k))), "j + k");
  SIMP(add(add(c(1), c(2)), v(x)), "x + 3");
  SIMP(sub(v(x), c(5)), "x - 5");
  SIMP(add(v(x), c(-5)), "x - 5");
  SIMP(sub(add(v(i), v(j)), add(v(j), v(i))), "0");
  SIMP(mul(mul(v(x), c(2)), mul(v(y), c(3))), "x * y * 6");
  SIMP(sub(mul(v(i), c(16)), mul(v(j), c(2))), "i * 16 - j * 2");
  SIMP(add(sub(c(5), v(j)), v(i)), "i - j + 5");
  /* binding order, not names: k bound before a */
  TirVar *a = var("a");
  arith_push(A);
  bind(k, 0, 4);
  bind(a, 0, 4);
  SIMP(add(v(a), v(k)), "k + a");
  SIMP(add(mul(v(a), c(3)), mul(v(k), c(12))), "k * 12 + a * 3");
  arith_pop(A);
  /* unbound vars by name */
  SIMP(add(v(a), v(k)), "a + k");
  /* bound vars before unbound ones */
  TirVar *n = var("n");
  n->is_size_var = true;
  SIMP(add(v(n), v(i)), "i + n");
  SIMP(add(mul(v(n), v(i)), v(j)), "i * n + j");
  SIMP(mul(add(v(i), c(1)), v(n)), "i * n + n");
  /* int64 keeps its dtype */
  TirVar *p = var64("p");
  SIMP(add(add(v(p), ct(dt_int64, 2)), ct(dt_int64, 3)), "p + T.int64(5)");
  SIMP(mul(v(p), ct(dt_int64, 1)), "p");
  SIMP(sub(v(p), v(p)), "T.int64(0)");
  /* int32 wrap in coefficients */
  SIMP(mul(mul(v(x), c(65536)), c(65536)), "0");
  SIMP(add(mul(v(x), c(INT32_MAX)), v(x)), "x * T.int32(-2147483648)");
  /* uint: exact combination only */
  TirVar *u = tir_var(H, "u", dt_uint32);
  SIMP(sub(add(v(u), ct(dt_uint32, 3)), v(u)), "T.uint32(3)");
  SIMP(sub(v(u), ct(dt_uint32, 1)), "u - T.uint32(1)");
  SIMP(add(v(u), v(u)), "u * T.uint32(2)");
  /* nothing to do: same pointer */
  TirExpr *e = add(mul(v(i), c(4)), v(j));
  CHECK(arith_simplify(A, e) == e);
  TirExpr *e2 = fdiv(v(x), c(7));
  CHECK(arith_simplify(A, e2) == e2);
}

/* ------------------------------------------------------------ div / mod */

static void test_divmod(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j"), *x = var("x"), *y = var("y"), *f = var("f");
  bind(i, 0, 8);
  bind(j, 0, 16);
  SIMP(fdiv(add(mul(v(i), c(16)), v(j)), c(16)), "i");
  SIMP(fmod_(add(mul(v(i), c(16)), v(j)), c(16)), "j");
  SIMP(fdiv(v(x), c(1)), "x");
  SIMP(fmod_(v(x), c(1)), "0");
  SIMP(fdiv(mul(v(x), c(8)), c(4)), "x * 2");
  SIMP(fmod_(mul(v(x), c(8)), c(4)), "0");
  SIMP(fdiv(v(j), c(16)), "0");
  SIMP(fmod_(v(j), c(16)), "j");
  /* (8x + 7) // 16 == x // 2: the constant stays below the terms' gcd */
  SIMP(fdiv(add(mul(v(x), c(8)), c(7)), c(16)), "x // 2");
  SIMP(fdiv(add(mul(v(x), c(8)), c(9)), c(16)), "(x * 8 + 9) // 16");
  SIMP(fdiv(v(j), c(32)), "0");
  SIMP(fdiv(v(j), c(8)), "j // 8");
  SIMP(fmod_(v(j), c(8)), "j % 8");
  SIMP(fdiv(v(x), c(16)), "x // 16");
  SIMP(fmod_(v(x), c(16)), "x % 16");
  SIMP(fdiv(add(mul(v(x), c(16)), v(j)), c(16)), "x");
  SIMP(fmod_(add(mul(v(x), c(16)), v(j)), c(16)), "j");
  SIMP(fdiv(add(mul(v(x), c(16)), v(y)), c(16)), "x + y // 16");
  SIMP(fmod_(add(mul(v(x), c(16)), v(y)), c(16)), "y % 16");
  SIMP(fdiv(add(add(mul(v(i), c(16)), v(j)), c(16)), c(16)), "i + 1");
  SIMP(fmod_(add(v(j), c(16)), c(16)), "j");
  SIMP(fmod_(add(v(j), c(17)), c(16)), "(j + 1) % 16");
  SIMP(fdiv(add(v(x), c(17)), c(16)), "(x + 1) // 16 + 1");
  SIMP(fdiv(add(v(x), c(-1)), c(16)), "(x + 15) // 16 - 1");
  SIMP(fdiv(mul(v(x), c(4)), c(16)), "x // 4");
  SIMP(fmod_(mul(v(x), c(4)), c(16)), "x % 4 * 4");
  SIMP(fdiv(add(mul(v(x), c(8)), mul(v(y), c(4))), c(16)), "(x * 2 + y) // 4");
  SIMP(fdiv(add(mul(v(x), c(6)), c(4)), c(2)), "x * 3 + 2");
  SIMP(fdiv(fdiv(v(x), c(4)), c(8)), "x // 32");
  SIMP(fdiv(add(fdiv(v(x), c(4)), c(1)), c(8)), "(x + 4) // 32");
  SIMP(fmod_(fmod_(v(x), c(32)), c(8)), "x % 8");
  SIMP(fmod_(fmod_(v(x), c(8)), c(32)), "x % 8");
  SIMP(fdiv(fmod_(v(x), c(32)), c(8)), "x % 32 // 8");
  SIMP(fdiv(fmod_(v(x), c(8)), c(8)), "0");
  SIMP(fdiv(fmod_(v(j), c(32)), c(8)), "j // 8");
  SIMP(fmod_(fdiv(v(j), c(4)), c(4)), "j // 4");
  SIMP(fdiv(c(17), c(5)), "3");
  SIMP(fmod_(c(-17), c(5)), "3");
  SIMP(fdiv(v(x), c(0)), "x // 0");
  SIMP(fdiv(c(1), c(0)), "1 // 0");
  SIMP(fmod_(v(j), c(0)), "j % 0");
  /* j - 1 with j in [1, 17) */
  TirVar *k = var("k");
  bind(k, 1, 16);
  SIMP(fmod_(sub(v(k), c(1)), c(16)), "k - 1");
  SIMP(fdiv(sub(v(k), c(1)), c(16)), "0");
  /* fused loop: f in [0, 128) */
  bind(f, 0, 128);
  SIMP(add(mul(fdiv(v(f), c(16)), c(16)), fmod_(v(f), c(16))), "f // 16 * 16 + f % 16");
  SIMP(fdiv(v(f), c(128)), "0");
  SIMP(fdiv(fmod_(v(f), c(16)), c(4)), "f % 16 // 4");
  /* truncdiv/truncmod equal floor ones on non-negative numerators */
  SIMP(tdiv(add(mul(v(i), c(16)), v(j)), c(16)), "i");
  SIMP(tmod(add(mul(v(i), c(16)), v(j)), c(16)), "j");
  SIMP(tdiv(v(x), c(4)), "T.truncdiv(x, 4)");
  SIMP(tmod(v(x), c(4)), "T.truncmod(x, 4)");
  SIMP(tdiv(v(x), c(1)), "x");
  SIMP(tmod(v(x), c(1)), "0");
  SIMP(tdiv(c(-7), c(2)), "-3");
  SIMP(tmod(c(-7), c(2)), "-1");
  /* symbolic divisor */
  TirVar *n = var("n"), *r = var("r"), *q = var("q");
  n->is_size_var = true;
  bind(r, 0, 0); /* replaced below */
  arith_push(A);
  arith_bind_range(A, r, c(0), v(n));
  arith_bind_range(A, q, c(0), c(4));
  SIMP(fdiv(add(mul(v(q), v(n)), v(r)), v(n)), "q");
  SIMP(fmod_(add(mul(v(q), v(n)), v(r)), v(n)), "r");
  SIMP(fdiv(mul(v(x), v(n)), v(n)), "x");
  SIMP(fmod_(mul(v(x), v(n)), v(n)), "0");
  SIMP(fdiv(v(r), v(n)), "0");
  SIMP(fdiv(v(x), v(n)), "x // n");
  arith_pop(A);
  /* int64 */
  TirVar *p = var64("p");
  SIMP(fdiv(mul(v(p), ct(dt_int64, 8)), ct(dt_int64, 4)), "p * T.int64(2)");
  SIMP(fmod_(v(p), ct(dt_int64, 1)), "T.int64(0)");
  SIMP(fdiv(v(p), ct(dt_int64, 3)), "p // T.int64(3)");
}

/* ------------------------------------------------------------ min / max */

static void test_minmax(void) {
  fresh();
  TirVar *i = var("i"), *x = var("x"), *y = var("y"), *n = var("n");
  n->is_size_var = true;
  bind(i, 0, 8);
  SIMP(mn(v(x), v(x)), "x");
  SIMP(mx(v(x), v(x)), "x");
  SIMP(mn(c(3), c(5)), "3");
  SIMP(mx(c(3), c(5)), "5");
  SIMP(mn(add(v(x), c(1)), v(x)), "x");
  SIMP(mx(add(v(x), c(1)), v(x)), "x + 1");
  SIMP(mn(v(x), sub(v(x), c(2))), "x - 2");
  SIMP(mn(v(i), c(8)), "i");
  SIMP(mn(v(i), c(7)), "i");
  SIMP(mn(v(i), c(6)), "T.min(i, 6)");
  SIMP(mx(v(i), c(0)), "i");
  SIMP(mx(v(i), c(1)), "T.max(i, 1)");
  SIMP(mx(c(1), v(i)), "T.max(1, i)");
  SIMP(mn(c(100), v(x)), "T.min(100, x)");
  SIMP(mn(v(x), v(y)), "T.min(x, y)");
  SIMP(mn(mn(v(x), c(3)), c(5)), "T.min(x, 3)");
  SIMP(mn(mn(v(x), c(5)), c(3)), "T.min(x, 3)");
  SIMP(mx(mx(v(x), c(5)), c(3)), "T.max(x, 5)");
  SIMP(mx(mx(v(x), c(3)), c(5)), "T.max(x, 5)");
  SIMP(mn(mul(v(i), c(4)), c(100)), "i * 4");
  SIMP(mx(mul(v(i), c(4)), c(-1)), "i * 4");
  SIMP(mn(add(v(x), v(y)), add(v(y), v(x))), "x + y");
  SIMP(mn(v(x), add(v(x), v(n))), "x");
  SIMP(mx(v(x), add(v(x), v(n))), "n + x");
  SIMP(mn(v(i), v(n)), "T.min(i, n)");
  arith_push(A);
  TirVar *j = var("j");
  arith_bind_range(A, j, c(0), v(n));
  SIMP(mn(v(j), v(n)), "j");
  SIMP(mx(v(j), v(n)), "n");
  SIMP(mn(v(j), sub(v(n), c(1))), "j");
  arith_pop(A);
  SIMP(mn(cf(1), cf(2)), "T.float32(1.0)");
  TirVar *fx = tir_var(H, "fx", dt_float32);
  SIMP(mn(v(fx), v(fx)), "fx");
  SIMP(mx(v(fx), cf(0)), "T.max(fx, T.float32(0.0))");
}

/* ------------------------------------------------------------ comparisons */

static void test_compare(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j"), *x = var("x"), *y = var("y"), *n = var("n");
  n->is_size_var = true;
  bind(i, 0, 128);
  bind(j, 0, 16);
  SIMP(lt(v(i), c(128)), "T.bool(True)");
  SIMP(lt(v(i), c(127)), "i < 127");
  SIMP(ge(v(i), c(0)), "T.bool(True)");
  SIMP(lt(v(i), c(0)), "T.bool(False)");
  SIMP(ge(v(i), c(128)), "T.bool(False)");
  SIMP(le(v(i), c(127)), "T.bool(True)");
  SIMP(gt(v(i), c(-1)), "T.bool(True)");
  SIMP(eq(v(i), c(200)), "T.bool(False)");
  SIMP(ne(v(i), c(200)), "T.bool(True)");
  SIMP(eq(v(i), c(5)), "i == 5");
  SIMP(gt(add(v(x), c(1)), v(x)), "T.bool(True)");
  SIMP(lt(add(v(x), c(1)), v(x)), "T.bool(False)");
  SIMP(le(v(x), v(x)), "T.bool(True)");
  SIMP(lt(v(x), v(x)), "T.bool(False)");
  SIMP(eq(v(x), v(x)), "T.bool(True)");
  SIMP(ne(v(x), v(x)), "T.bool(False)");
  SIMP(lt(v(x), v(y)), "x < y");
  SIMP(lt(sub(v(x), v(y)), c(0)), "x < y");
  SIMP(gt(v(y), v(x)), "x < y");
  SIMP(lt(add(v(x), c(1)), v(y)), "x + 1 < y");
  SIMP(lt(v(x), add(v(y), c(3))), "x < y + 3");
  SIMP(lt(sub(v(x), c(3)), v(y)), "x < y + 3");
  SIMP(lt(mul(v(x), c(4)), c(16)), "x < 4");
  SIMP(lt(mul(v(x), c(4)), c(15)), "x < 4");
  SIMP(le(mul(v(x), c(4)), c(15)), "x <= 3");
  SIMP(gt(mul(v(x), c(4)), c(15)), "3 < x");
  SIMP(ge(mul(v(x), c(4)), c(15)), "4 <= x");
  SIMP(eq(mul(v(x), c(4)), c(15)), "T.bool(False)");
  SIMP(ne(mul(v(x), c(4)), c(15)), "T.bool(True)");
  SIMP(eq(mul(v(x), c(4)), c(16)), "x == 4");
  SIMP(lt(c(5), v(x)), "5 < x");
  SIMP(lt(sub(c(0), v(x)), c(-5)), "5 < x");
  SIMP(lt(add(mul(v(i), c(16)), v(j)), c(2048)), "T.bool(True)");
  SIMP(lt(add(mul(v(i), c(16)), v(j)), c(2047)), "i * 16 + j < 2047");
  SIMP(lt(add(mul(v(x), c(16)), v(y)), c(128)), "x * 16 + y < 128");
  SIMP(lt(mul(v(x), c(2)), add(mul(v(y), c(4)), c(2))), "x < y * 2 + 1");
  SIMP(lt(v(i), v(n)), "i < n");
  /* x // c against a constant compares x (TVM's floordiv rules) */
  SIMP(lt(fdiv(v(x), c(128)), c(127)), "x < 16256");
  SIMP(lt(c(3), fdiv(v(x), c(8))), "31 < x");
  SIMP(le(fdiv(v(x), c(8)), c(3)), "x <= 31");
  SIMP(ge(fdiv(v(x), c(8)), c(3)), "24 <= x");
  SIMP(lt(fdiv(v(x), c(8)), v(y)), "x // 8 < y");
  SIMP(ge(v(n), c(0)), "T.bool(True)");
  SIMP(lt(v(n), c(0)), "T.bool(False)");
  arith_push(A);
  TirVar *k = var("k");
  arith_bind_range(A, k, c(0), v(n));
  SIMP(lt(v(k), v(n)), "T.bool(True)");
  SIMP(ge(v(k), v(n)), "T.bool(False)");
  SIMP(lt(add(mul(v(k), c(4)), c(3)), mul(v(n), c(4))), "T.bool(True)");
  SIMP(le(add(v(k), c(1)), v(n)), "T.bool(True)");
  arith_pop(A);
  /* floats only fold */
  TirVar *fx = tir_var(H, "fx", dt_float32);
  SIMP(lt(v(fx), v(fx)), "fx < fx");
  SIMP(lt(cf(1), cf(2)), "T.bool(True)");
  SIMP(lt(v(fx), cf(2)), "fx < T.float32(2.0)");
  /* int64 */
  TirVar *p = var64("p");
  SIMP(lt(add(v(p), ct(dt_int64, 1)), v(p)), "T.bool(False)");
  SIMP(lt(v(p), ct(dt_int64, 10)), "p < T.int64(10)");
  /* uint: fold and identical operands only */
  TirVar *u = tir_var(H, "u", dt_uint32);
  SIMP(lt(v(u), v(u)), "T.bool(False)");
  SIMP(lt(v(u), ct(dt_uint32, 10)), "u < T.uint32(10)");
}

/* ------------------------------------------------------------ booleans */

static void test_bool(void) {
  fresh();
  TirVar *i = var("i"), *x = var("x"), *y = var("y");
  bind(i, 0, 8);
  TirExpr *bx = lt(v(x), v(y));
  SIMP(and_(T(), bx), "x < y");
  SIMP(and_(bx, T()), "x < y");
  SIMP(and_(F(), bx), "T.bool(False)");
  SIMP(and_(bx, F()), "T.bool(False)");
  SIMP(or_(T(), bx), "T.bool(True)");
  SIMP(or_(bx, T()), "T.bool(True)");
  SIMP(or_(F(), bx), "x < y");
  SIMP(or_(bx, F()), "x < y");
  SIMP(and_(bx, lt(v(x), v(y))), "x < y");
  SIMP(or_(bx, bx), "x < y");
  SIMP(and_(bx, not_(bx)), "T.bool(False)");
  SIMP(or_(eq(v(x), c(1)), not_(eq(v(x), c(1)))), "T.bool(True)");
  SIMP(not_(T()), "T.bool(False)");
  SIMP(not_(F()), "T.bool(True)");
  SIMP(not_(lt(v(x), v(y))), "y <= x");
  SIMP(not_(le(v(x), v(y))), "y < x");
  SIMP(not_(gt(v(x), c(3))), "x <= 3");
  SIMP(not_(ge(v(x), c(3))), "x < 3");
  SIMP(not_(eq(v(x), c(3))), "x != 3");
  SIMP(not_(ne(v(x), c(3))), "x == 3");
  SIMP(not_(not_(bx)), "x < y");
  SIMP(not_(lt(v(i), c(8))), "T.bool(False)");
  SIMP(and_(lt(v(i), c(8)), ge(v(i), c(0))), "T.bool(True)");
  SIMP(and_(lt(v(i), c(4)), ge(v(i), c(0))), "i < 4");
  SIMP(or_(lt(v(i), c(4)), ge(v(i), c(100))), "i < 4");
  TirVar *fx = tir_var(H, "fx", dt_float32);
  SIMP(not_(lt(v(fx), cf(1))), "not fx < T.float32(1.0)");
  TirVar *b = tir_var(H, "b", dt_bool);
  SIMP(and_(v(b), v(b)), "b");
  SIMP(or_(v(b), not_(v(b))), "T.bool(True)");
  SIMP(and_(not_(v(b)), v(b)), "T.bool(False)");
}

/* ------------------------------------------------------------ misc nodes */

static void test_misc(void) {
  fresh();
  TirVar *i = var("i"), *x = var("x"), *y = var("y");
  bind(i, 0, 8);
  SIMP(sel(T(), v(x), v(y)), "x");
  SIMP(sel(F(), v(x), v(y)), "y");
  SIMP(sel(lt(v(i), c(8)), add(v(x), c(0)), v(y)), "x");
  SIMP(sel(lt(v(x), v(y)), v(x), v(x)), "x");
  SIMP(sel(lt(v(x), v(y)), add(v(x), c(1)), v(y)), "T.Select(x < y, x + 1, y)");
  TirExpr *args[3] = {lt(v(i), c(100)), v(x), v(y)};
  const TirOpInfo *ite = tir_op_lookup("if_then_else");
  SIMP(tir_call(H, dt_int32, ite, args, 3), "x");
  TirExpr *args2[3] = {lt(v(x), c(100)), add(v(x), v(x)), v(y)};
  SIMP(tir_call(H, dt_int32, ite, args2, 3), "T.if_then_else(x < 100, x * 2, y)");
  SIMP(tir_cast(H, dt_int64, c(5)), "T.int64(5)");
  SIMP(tir_cast(H, dt_float32, add(c(1), c(2))), "T.float32(3.0)");
  SIMP(tir_cast(H, dt_int32, v(x)), "x");
  SIMP(tir_cast(H, dt_int64, add(v(x), v(x))), "T.Cast(\"int64\", x * 2)");
  SIMP(tir_cast(H, dt_int8, c(255)), "T.int8(-1)");
  /* loads: indices simplified */
  TirExpr *shape[1] = {c(64)};
  TirBuffer *buf = tir_buffer(H, "A", dt_float32, shape, 1, NULL);
  TirExpr *idx[1] = {add(mul(v(i), c(4)), sub(v(x), mul(v(i), c(4))))};
  SIMP(tir_load(H, buf, idx, 1), "A[x]");
  /* loads as atoms */
  TirExpr *shi[1] = {c(64)};
  TirBuffer *ib = tir_buffer(H, "B", dt_int32, shi, 1, NULL);
  TirExpr *bi[1] = {v(i)};
  TirExpr *ld = tir_load(H, ib, bi, 1);
  SIMP(sub(add(ld, v(x)), ld), "x");
  SIMP(add(ld, ld), "B[i] * 2");
  /* floats: exact identities only */
  TirVar *fx = tir_var(H, "fx", dt_float32);
  SIMP(mul(v(fx), cf(1)), "fx");
  SIMP(mul(cf(1), v(fx)), "fx");
  SIMP(tdiv(v(fx), cf(1)), "fx");
  SIMP(add(v(fx), cf(0)), "fx + T.float32(0.0)");
  SIMP(sub(v(fx), cf(0)), "fx");
  SIMP(add(v(fx), cf(-0.0)), "fx");
  SIMP(sub(v(fx), v(fx)), "fx - fx");
  SIMP(mul(v(fx), cf(0)), "fx * T.float32(0.0)");
  SIMP(add(cf(1), cf(2)), "T.float32(3.0)");
  SIMP(add(mul(cf(2), cf(3)), v(fx)), "T.float32(6.0) + fx");
  /* let: simple values are substituted */
  TirVar *t = var("t");
  SIMP(tir_let(H, t, c(4), add(v(t), v(x))), "x + 4");
  /* bind_value substitutes */
  arith_push(A);
  TirVar *w = var("w");
  arith_bind_value(A, w, add(v(i), c(1)));
  SIMP(sub(v(w), v(i)), "1");
  SIMP(lt(v(w), c(9)), "T.bool(True)");
  arith_pop(A);
  SIMP(sub(v(w), v(i)), "w - i");
}

/* ------------------------------------------------------------ bounds */

static void test_bounds(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j"), *x = var("x"), *n = var("n");
  n->is_size_var = true;
  bind(i, 0, 8);
  bind(j, 0, 16);
  int64_t lo = 0, hi = 0;
#define BOUNDS(e, l, h)                                   \
  do {                                                    \
    lo = hi = 12345;                                      \
    CHECK(arith_const_bounds(A, e, &lo, &hi));            \
    CHECK_EQ_INT(lo, l);                                  \
    CHECK_EQ_INT(hi, h);                                  \
  } while (0)
  BOUNDS(v(i), 0, 7);
  BOUNDS(add(mul(v(i), c(16)), v(j)), 0, 127);
  BOUNDS(sub(v(i), v(j)), -15, 7);
  BOUNDS(sub(v(i), v(i)), 0, 0);
  BOUNDS(mul(v(i), c(-3)), -21, 0);
  BOUNDS(mul(v(i), v(j)), 0, 105);
  BOUNDS(fdiv(v(j), c(4)), 0, 3);
  BOUNDS(fmod_(v(j), c(4)), 0, 3);
  BOUNDS(fmod_(v(x), c(4)), 0, 3);
  BOUNDS(fdiv(sub(v(i), c(8)), c(4)), -2, -1);
  BOUNDS(tdiv(sub(v(i), c(7)), c(4)), -1, 0);
  BOUNDS(tmod(sub(v(i), c(7)), c(4)), -3, 0);
  BOUNDS(mn(v(i), v(j)), 0, 7);
  BOUNDS(mx(v(i), v(j)), 0, 15);
  BOUNDS(mn(v(x), c(3)), INT32_MIN, 3);
  BOUNDS(sel(lt(v(x), c(0)), v(i), add(v(j), c(100))), 0, 115);
  BOUNDS(tir_cast(H, dt_int64, v(i)), 0, 7);
  BOUNDS(tir_cast(H, dt_int8, v(x)), -128, 127);
  BOUNDS(c(42), 42, 42);
  BOUNDS(lt(v(x), c(3)), 0, 1);
  BOUNDS(fdiv(c(100), add(v(i), c(1))), 12, 100);
  BOUNDS(mul(v(x), c(0)), 0, 0);
  BOUNDS(fdiv(add(mul(v(i), c(16)), v(j)), c(16)), 0, 7);
  BOUNDS(add(fmod_(v(x), c(16)), mul(v(i), c(16))), 0, 127);
  BOUNDS(mul(v(i), v(i)), 0, 49);
  BOUNDS(v(n), 0, INT32_MAX);
  /* the int8 var wraps beyond its range: the whole range */
  TirVar *s8 = tir_var(H, "s", dt_int8);
  bind(s8, 0, 100);
  BOUNDS(mul(v(s8), ct(dt_int8, 2)), -128, 127);
  BOUNDS(v(s8), 0, 99);
  /* unbounded */
  CHECK(!arith_const_bounds(A, v(var64("q")), &lo, &hi));
  CHECK(!arith_const_bounds(A, add(v(var64("q")), ct(dt_int64, 1)), &lo, &hi));
  CHECK(!arith_const_bounds(A, cf(1), &lo, &hi));
  /* mn(x, 3) with x int32 unbounded: lo is the dtype min */
  /* symbolic */
  arith_push(A);
  TirVar *k = var("k");
  arith_bind_range(A, k, c(0), v(n));
  TirExpr *slo = NULL, *shi = NULL;
  CHECK(arith_symbolic_bounds(A, add(mul(v(k), c(4)), c(3)), &slo, &shi));
  CHECK_EQ_STR(str(slo), "3");
  CHECK_EQ_STR(str(shi), "n * 4 - 1");
  CHECK(arith_symbolic_bounds(A, sub(v(n), v(k)), &slo, &shi));
  CHECK_EQ_STR(str(slo), "1");
  CHECK_EQ_STR(str(shi), "n");
  CHECK(arith_symbolic_bounds(A, add(mul(v(k), c(16)), v(j)), &slo, &shi));
  CHECK_EQ_STR(str(slo), "0");
  CHECK_EQ_STR(str(shi), "n * 16 - 1");
  CHECK(arith_symbolic_bounds(A, fdiv(v(k), c(4)), &slo, &shi));
  CHECK_EQ_STR(str(slo), "0");
  CHECK_EQ_STR(str(shi), "(n + 3) // 4 - 1");
  TirVar *m = var("m");
  arith_bind_range(A, m, c(0), add(v(k), c(1)));
  CHECK(arith_symbolic_bounds(A, v(m), &slo, &shi));
  CHECK_EQ_STR(str(slo), "0");
  CHECK_EQ_STR(str(shi), "n - 1");
  CHECK(arith_symbolic_bounds(A, mul(v(k), v(i)), NULL, &shi));
  CHECK_EQ_STR(str(shi), "n * 7 - 7");
  CHECK(arith_symbolic_bounds(A, mn(v(k), c(10)), NULL, &shi));
  CHECK_EQ_STR(str(shi), "T.min(n - 1, 10)");
  CHECK(arith_symbolic_bounds(A, v(x), &slo, &shi));
  CHECK_EQ_STR(str(slo), "x");
  CHECK_EQ_STR(str(shi), "x");
  CHECK(arith_symbolic_bounds(A, add(v(i), c(1)), &slo, &shi));
  CHECK_EQ_STR(str(slo), "1");
  CHECK_EQ_STR(str(shi), "8");
  arith_pop(A);
}

/* ------------------------------------------------------------ prove */

static void test_prove(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j"), *x = var("x"), *n = var("n"), *y = var("y");
  n->is_size_var = true;
  bind(i, 0, 8);
  bind(j, 0, 16);
  CHECK(arith_prove(A, lt(add(mul(v(i), c(16)), v(j)), c(128))));
  CHECK(!arith_prove(A, lt(add(mul(v(i), c(16)), v(j)), c(127))));
  CHECK(arith_prove(A, ge(add(mul(v(i), c(16)), v(j)), c(0))));
  CHECK(arith_prove(A, and_(lt(v(i), c(8)), lt(v(j), c(16)))));
  CHECK(!arith_prove(A, and_(lt(v(i), c(8)), lt(v(j), c(15)))));
  CHECK(arith_prove(A, or_(lt(v(i), c(3)), lt(v(j), c(16)))));
  CHECK(!arith_prove(A, lt(v(x), c(10))));
  CHECK(!arith_prove(A, v(tir_var(H, "b", dt_bool))));
  CHECK(arith_prove(A, T()));
  CHECK(!arith_prove(A, F()));
  CHECK(arith_prove(A, ge(v(n), c(0))));
  CHECK(!arith_prove(A, ge(v(n), c(1))));
  /* assumptions */
  arith_push(A);
  arith_assume(A, ge(v(n), c(1)));
  CHECK(arith_prove(A, ge(v(n), c(1))));
  CHECK(arith_prove(A, gt(v(n), c(0))));
  CHECK(arith_prove(A, ne(v(n), c(0))));
  CHECK(!arith_prove(A, ge(v(n), c(2))));
  arith_assume(A, and_(ge(v(x), c(0)), lt(v(x), c(16))));
  CHECK(arith_prove(A, lt(v(x), c(16))));
  CHECK(arith_prove(A, lt(add(mul(v(i), c(16)), v(x)), c(128))));
  CHECK_EQ_STR(simp(fdiv(add(mul(v(i), c(16)), v(x)), c(16))), "i");
  CHECK_EQ_STR(simp(fmod_(v(x), c(16))), "x");
  arith_assume(A, lt(sub(v(y), v(x)), c(4)));
  CHECK(arith_prove(A, lt(v(y), add(v(x), c(4)))));
  CHECK(arith_prove(A, le(v(y), add(v(x), c(3)))));
  CHECK(!arith_prove(A, le(v(y), add(v(x), c(2)))));
  CHECK(arith_prove(A, gt(add(v(x), c(10)), v(y))));
  arith_assume(A, eq(mul(v(y), c(2)), c(8)));
  CHECK_EQ_STR(simp(add(v(y), c(1))), "y + 1");
  CHECK(arith_prove(A, eq(v(y), c(4))));
  arith_assume(A, not_(lt(v(j), c(4))));
  CHECK(arith_prove(A, ge(v(j), c(4))));
  arith_pop(A);
  CHECK(!arith_prove(A, ge(v(n), c(1))));
  CHECK(!arith_prove(A, lt(v(x), c(16))));
  CHECK(!arith_prove(A, ge(v(j), c(4))));
  /* symbolic */
  arith_push(A);
  TirVar *k = var("k");
  arith_bind_range(A, k, c(0), v(n));
  CHECK(arith_prove(A, lt(v(k), v(n))));
  CHECK(arith_prove(A, lt(add(mul(v(k), c(16)), v(j)), mul(v(n), c(16)))));
  CHECK(!arith_prove(A, lt(add(mul(v(k), c(16)), v(j)), mul(v(n), c(15)))));
  CHECK(arith_prove(A, le(v(k), sub(v(n), c(1)))));
  arith_pop(A);
  /* equality */
  CHECK(arith_can_prove_equal(A, add(v(x), v(x)), mul(v(x), c(2))));
  CHECK(arith_can_prove_equal(A, fdiv(add(mul(v(i), c(16)), v(j)), c(16)), v(i)));
  CHECK(!arith_can_prove_equal(A, v(x), v(y)));
  CHECK(arith_can_prove_equal(A, fdiv(add(v(x), c(17)), c(16)),
                              add(fdiv(add(v(x), c(1)), c(16)), c(1))));
  CHECK(arith_can_prove_equal(A, mn(v(x), v(y)), mn(v(x), v(y))));
  TirVar *fx = tir_var(H, "fx", dt_float32);
  CHECK(arith_can_prove_equal(A, mul(v(fx), cf(1)), v(fx)));
  CHECK(!arith_can_prove_equal(A, add(v(fx), cf(0)), v(fx)));
}

/* ------------------------------------------------------------ scopes */

static void test_scopes(void) {
  fresh();
  TirVar *i = var("i");
  arith_push(A);
  bind(i, 0, 4);
  SIMP(lt(v(i), c(4)), "T.bool(True)");
  arith_push(A);
  bind(i, 0, 100);
  SIMP(lt(v(i), c(4)), "i < 4");
  arith_pop(A);
  SIMP(lt(v(i), c(4)), "T.bool(True)");
  arith_pop(A);
  SIMP(lt(v(i), c(4)), "i < 4");
  /* size vars are non-negative by default */
  TirVar *n = var("n");
  n->is_size_var = true;
  SIMP(ge(v(n), c(0)), "T.bool(True)");
  SIMP(fdiv(v(n), c(1)), "n");
  CHECK(arith_heap(A) == H);
}

/* ------------------------------------------------------------ affine */

static void test_affine(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j"), *x = var("x"), *n = var("n");
  bind(i, 0, 8);
  bind(j, 0, 16);
  const TirVar *vs[2] = {i, j};
  int64_t co[2] = {0, 0};
  TirExpr *rest = NULL;
  CHECK(arith_affine(A, add(add(mul(v(i), c(16)), v(j)), v(x)), vs, 2, co, &rest));
  CHECK_EQ_INT(co[0], 16);
  CHECK_EQ_INT(co[1], 1);
  CHECK_EQ_STR(str(rest), "x");
  CHECK(arith_affine(A, add(mul(v(n), c(3)), c(7)), vs, 2, co, &rest));
  CHECK_EQ_INT(co[0], 0);
  CHECK_EQ_INT(co[1], 0);
  CHECK_EQ_STR(str(rest), "n * 3 + 7");
  CHECK(arith_affine(A, sub(mul(add(v(i), c(1)), c(4)), v(j)), vs, 2, co, &rest));
  CHECK_EQ_INT(co[0], 4);
  CHECK_EQ_INT(co[1], -1);
  CHECK_EQ_STR(str(rest), "4");
  CHECK(!arith_affine(A, mul(v(i), v(j)), vs, 2, co, &rest));
  CHECK(!arith_affine(A, fdiv(v(j), c(4)), vs, 2, co, &rest));
  CHECK(!arith_affine(A, mul(v(i), v(x)), vs, 2, co, &rest));
  CHECK(!arith_affine(A, mn(v(i), v(x)), vs, 2, co, &rest));
  /* simplified first: (i*16 + j) // 16 is i */
  CHECK(arith_affine(A, fdiv(add(mul(v(i), c(16)), v(j)), c(16)), vs, 2, co, &rest));
  CHECK_EQ_INT(co[0], 1);
  CHECK_EQ_INT(co[1], 0);
  CHECK_EQ_STR(str(rest), "0");
  CHECK(arith_affine(A, add(v(i), mul(v(i), c(2))), vs, 1, co, NULL));
  CHECK_EQ_INT(co[0], 3);
}

/* ------------------------------------------------------------ iter maps */

static TirRange rng(TirExpr *mn_, TirExpr *ext) { return (TirRange){mn_, ext}; }

static bool itermap(TirExpr **b, TirRange *d, int n, const TirVar **it, int nit, ArithIterCheck chk,
                    const char **why) {
  ArithIterMap m = arith_detect_iter_map(A, b, d, n, it, nit, chk);
  bool ok = m.ok;
  if (why) *why = m.error;
  arith_iter_map_free(&m);
  return ok;
}

static void test_itermap(void) {
  fresh();
  TirVar *i0 = var("i0"), *i1 = var("i1"), *f = var("f"), *n = var("n"), *a = var("a"),
         *b = var("b");
  n->is_size_var = true;
  bind(i0, 0, 4);
  bind(i1, 0, 32);
  const char *why = NULL;
  /* split: [i0 * 32 + i1] onto [0, 128) */
  {
    TirExpr *bs[1] = {add(mul(v(i0), c(32)), v(i1))};
    TirRange ds[1] = {rng(c(0), c(128))};
    const TirVar *its[2] = {i0, i1};
    CHECK(itermap(bs, ds, 1, its, 2, ARITH_ITER_BIJECTIVE, &why));
    ArithIterMap m = arith_detect_iter_map(A, bs, ds, 1, its, 2, ARITH_ITER_BIJECTIVE);
    CHECK(m.ok);
    CHECK_EQ_INT(m.nsplits[0], 2);
    if (m.ok && m.nsplits[0] == 2) {
      CHECK(m.splits[0][0].var == i0);
      CHECK_EQ_STR(str(m.splits[0][0].scale), "32");
      CHECK(m.splits[0][1].var == i1);
      CHECK_EQ_STR(str(m.splits[0][1].scale), "1");
      CHECK_EQ_STR(str(m.splits[0][1].extent), "32");
    }
    arith_iter_map_free(&m);
    /* wrong domain extent */
    ds[0] = rng(c(0), c(100));
    CHECK(!itermap(bs, ds, 1, its, 2, ARITH_ITER_BIJECTIVE, &why));
    CHECK_EQ_STR(why, "a binding's extent differs from its domain's");
  }
  /* [i * 2] is not surjective */
  {
    TirExpr *bs[1] = {mul(v(i0), c(2))};
    TirRange ds[1] = {rng(c(0), c(8))};
    const TirVar *its[1] = {i0};
    CHECK(!itermap(bs, ds, 1, its, 1, ARITH_ITER_BIJECTIVE, &why));
    CHECK_EQ_STR(why, "a binding is not surjective onto its domain");
  }
  /* [i0, i1] identity; reordered [i1, i0] */
  {
    TirExpr *bs[2] = {v(i0), v(i1)};
    TirRange ds[2] = {rng(c(0), c(4)), rng(c(0), c(32))};
    const TirVar *its[2] = {i0, i1};
    CHECK(itermap(bs, ds, 2, its, 2, ARITH_ITER_BIJECTIVE, NULL));
    TirExpr *rs[2] = {v(i1), v(i0)};
    TirRange rd[2] = {rng(c(0), c(32)), rng(c(0), c(4))};
    CHECK(itermap(rs, rd, 2, its, 2, ARITH_ITER_BIJECTIVE, NULL));
    /* a loop var used twice */
    TirExpr *dup[2] = {v(i0), v(i0)};
    TirRange dd[2] = {rng(c(0), c(4)), rng(c(0), c(4))};
    CHECK(!itermap(dup, dd, 2, its, 2, ARITH_ITER_INJECTIVE, &why));
    CHECK_EQ_STR(why, "two bindings overlap on a loop var");
    /* a loop var not used: injective but not bijective */
    TirExpr *one[1] = {v(i0)};
    TirRange od[1] = {rng(c(0), c(4))};
    CHECK(itermap(one, od, 1, its, 2, ARITH_ITER_INJECTIVE, NULL));
    CHECK(!itermap(one, od, 1, its, 2, ARITH_ITER_BIJECTIVE, &why));
    CHECK_EQ_STR(why, "a loop var is not used by the bindings");
  }
  /* fuse then split: [f // 16, f % 16] over f in [0, 16 * n) */
  {
    arith_push(A);
    arith_bind_range(A, f, c(0), mul(v(n), c(16)));
    TirExpr *bs[2] = {fdiv(v(f), c(16)), fmod_(v(f), c(16))};
    TirRange ds[2] = {rng(c(0), v(n)), rng(c(0), c(16))};
    const TirVar *its[1] = {f};
    CHECK(itermap(bs, ds, 2, its, 1, ARITH_ITER_BIJECTIVE, &why));
    /* only f // 16: not bijective */
    CHECK(!itermap(bs, ds, 1, its, 1, ARITH_ITER_BIJECTIVE, NULL));
    CHECK(itermap(bs, ds, 1, its, 1, ARITH_ITER_INJECTIVE, NULL));
    /* f % 12 does not divide 16 * n */
    TirExpr *bad[2] = {fdiv(v(f), c(12)), fmod_(v(f), c(12))};
    CHECK(!itermap(bad, ds, 2, its, 1, ARITH_ITER_BIJECTIVE, &why));
    CHECK_EQ_STR(why, "an iterator's extent is not divisible by the split factor");
    /* three-way split: [f // 64, f % 64 // 16, f % 16] needs n divisible by 4 */
    arith_pop(A);
    arith_push(A);
    arith_bind_range(A, f, c(0), c(256));
    TirExpr *b3[3] = {fdiv(v(f), c(64)), fdiv(fmod_(v(f), c(64)), c(16)), fmod_(v(f), c(16))};
    TirRange d3[3] = {rng(c(0), c(4)), rng(c(0), c(4)), rng(c(0), c(16))};
    CHECK(itermap(b3, d3, 3, its, 1, ARITH_ITER_BIJECTIVE, &why));
    /* [f // 16 % 4] also covers that middle piece */
    TirExpr *b3b[3] = {fdiv(v(f), c(64)), fmod_(fdiv(v(f), c(16)), c(4)), fmod_(v(f), c(16))};
    CHECK(itermap(b3b, d3, 3, its, 1, ARITH_ITER_BIJECTIVE, &why));
    /* overlapping pieces */
    TirExpr *ov[2] = {fdiv(v(f), c(16)), fmod_(v(f), c(32))};
    TirRange od[2] = {rng(c(0), c(16)), rng(c(0), c(32))};
    CHECK(!itermap(ov, od, 2, its, 1, ARITH_ITER_BIJECTIVE, NULL));
    arith_pop(A);
  }
  /* fused binding: [(a * 8 + b) // 4, (a * 8 + b) % 4] with b in [0, 8) */
  {
    arith_push(A);
    bind(a, 0, 3);
    bind(b, 0, 8);
    TirExpr *fu = add(mul(v(a), c(8)), v(b));
    TirExpr *bs[2] = {fdiv(fu, c(4)), fmod_(fu, c(4))};
    TirRange ds[2] = {rng(c(0), c(6)), rng(c(0), c(4))};
    const TirVar *its[2] = {a, b};
    CHECK(itermap(bs, ds, 2, its, 2, ARITH_ITER_BIJECTIVE, &why));
    /* a plain fuse: [a * 8 + b] onto [0, 24) */
    TirExpr *one[1] = {fu};
    TirRange od[1] = {rng(c(0), c(24))};
    CHECK(itermap(one, od, 1, its, 2, ARITH_ITER_BIJECTIVE, NULL));
    /* a * 8 + b * 2 leaves gaps */
    TirExpr *gap[1] = {add(mul(v(a), c(8)), mul(v(b), c(2)))};
    TirRange gd[1] = {rng(c(0), c(24))};
    CHECK(!itermap(gap, gd, 1, its, 2, ARITH_ITER_BIJECTIVE, NULL));
    /* a * b is not quasi-affine */
    TirExpr *prod[1] = {mul(v(a), v(b))};
    CHECK(!itermap(prod, gd, 1, its, 2, ARITH_ITER_BIJECTIVE, &why));
    CHECK_EQ_STR(why, "a binding multiplies two iterators");
    /* min is not quasi-affine */
    TirExpr *m1[1] = {mn(v(a), v(b))};
    CHECK(!itermap(m1, gd, 1, its, 2, ARITH_ITER_BIJECTIVE, &why));
    CHECK_EQ_STR(why, "a binding is not quasi-affine");
    arith_pop(A);
  }
  /* symbolic: [i * n + j] with j in [0, n), i in [0, 4) onto [0, 4n) */
  {
    arith_push(A);
    TirVar *si = var("si"), *sj = var("sj");
    arith_bind_range(A, si, c(0), c(4));
    arith_bind_range(A, sj, c(0), v(n));
    TirExpr *bs[1] = {add(mul(v(si), v(n)), v(sj))};
    TirRange ds[1] = {rng(c(0), mul(v(n), c(4)))};
    const TirVar *its[2] = {si, sj};
    CHECK(itermap(bs, ds, 1, its, 2, ARITH_ITER_BIJECTIVE, &why));
    /* unit loop not used is fine */
    TirVar *u = var("u");
    arith_bind_range(A, u, c(0), c(1));
    const TirVar *its3[3] = {si, sj, u};
    CHECK(itermap(bs, ds, 1, its3, 3, ARITH_ITER_BIJECTIVE, NULL));
    /* constant binding over a unit domain */
    TirExpr *k0[2] = {bs[0], c(0)};
    TirRange kd[2] = {ds[0], rng(c(0), c(1))};
    CHECK(itermap(k0, kd, 2, its3, 3, ARITH_ITER_BIJECTIVE, NULL));
    /* offset binding onto a shifted domain */
    TirExpr *off[1] = {add(v(si), c(2))};
    TirRange offd[1] = {rng(c(2), c(4))};
    const TirVar *its1[1] = {si};
    CHECK(itermap(off, offd, 1, its1, 1, ARITH_ITER_BIJECTIVE, NULL));
    arith_pop(A);
  }
  /* a var without a range */
  {
    TirVar *z = var("z");
    TirExpr *bs[1] = {v(z)};
    TirRange ds[1] = {rng(c(0), c(4))};
    const TirVar *its[1] = {z};
    CHECK(!itermap(bs, ds, 1, its, 1, ARITH_ITER_BIJECTIVE, &why));
    CHECK_EQ_STR(why, "a loop var has no known range");
  }
}

/* A larger table of canonical forms, mixing every rule. */
static void test_table(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j"), *k = var("k"), *x = var("x"), *y = var("y");
  bind(i, 0, 4);
  bind(j, 0, 8);
  bind(k, 0, 16);
  struct {
    TirExpr *e;
    const char *want;
  } cases[] = {
      {add(add(mul(v(i), c(128)), mul(v(j), c(16))), v(k)), "i * 128 + j * 16 + k"},
      {add(add(v(k), mul(v(j), c(16))), mul(v(i), c(128))), "i * 128 + j * 16 + k"},
      {fdiv(add(add(mul(v(i), c(128)), mul(v(j), c(16))), v(k)), c(16)), "i * 8 + j"},
      {fmod_(add(add(mul(v(i), c(128)), mul(v(j), c(16))), v(k)), c(16)), "k"},
      {fdiv(add(add(mul(v(i), c(128)), mul(v(j), c(16))), v(k)), c(128)), "i"},
      {fmod_(add(add(mul(v(i), c(128)), mul(v(j), c(16))), v(k)), c(128)), "j * 16 + k"},
      {fdiv(fmod_(add(add(mul(v(i), c(128)), mul(v(j), c(16))), v(k)), c(128)), c(16)), "j"},
      {fdiv(add(mul(v(j), c(16)), v(k)), c(32)), "(j * 16 + k) // 32"},
      {fmod_(add(mul(v(j), c(16)), v(k)), c(32)), "(j * 16 + k) % 32"},
      {fdiv(mul(v(j), c(2)), c(16)), "0"},
      {fdiv(mul(v(j), c(4)), c(16)), "j // 4"},
      {fmod_(mul(v(j), c(4)), c(16)), "j % 4 * 4"},
      {mn(add(v(j), c(8)), mul(v(i), c(2))), "i * 2"},
      {mx(add(v(j), c(8)), mul(v(i), c(2))), "j + 8"},
      {mn(v(j), v(k)), "T.min(j, k)"},
      {lt(add(mul(v(j), c(16)), v(k)), c(128)), "T.bool(True)"},
      {lt(add(mul(v(j), c(16)), v(k)), c(64)), "j * 16 + k < 64"},
      {lt(mul(v(j), c(16)), sub(c(64), v(k))), "j * 16 + k < 64"},
      {eq(fmod_(v(k), c(16)), v(k)), "T.bool(True)"},
      {sub(add(v(x), v(y)), v(x)), "y"},
      {sub(mul(v(x), c(3)), add(v(x), v(x))), "x"},
      {add(mul(v(x), v(y)), mul(v(y), v(x))), "x * y * 2"},
      {mul(sub(v(x), v(y)), c(-1)), "y - x"},
      {add(fdiv(v(x), c(4)), fdiv(v(x), c(4))), "x // 4 * 2"},
      {sub(fmod_(v(x), c(4)), fmod_(v(x), c(4))), "0"},
      {add(mul(fdiv(v(x), c(4)), c(4)), fmod_(v(x), c(4))), "x // 4 * 4 + x % 4"},
      {add(v(k), mn(v(x), c(3))), "k + T.min(x, 3)"},
      {add(mn(v(x), c(3)), v(k)), "k + T.min(x, 3)"},
      {add(v(x), fdiv(v(x), c(2))), "x + x // 2"},
      {add(fdiv(v(x), c(2)), v(x)), "x + x // 2"},
      {sub(c(0), sub(c(0), v(x))), "x"},
      {lt(add(v(i), v(j)), c(11)), "T.bool(True)"},
      {lt(add(v(i), v(j)), c(10)), "i + j < 10"},
      {ge(sub(v(i), v(j)), c(-7)), "T.bool(True)"},
      {fdiv(sub(v(i), c(4)), c(4)), "-1"},
      {fmod_(sub(v(i), c(4)), c(4)), "i"},
      {fdiv(sub(c(3), v(i)), c(4)), "0"},
      {fmod_(sub(c(3), v(i)), c(4)), "3 - i"},
  };
  for (size_t n = 0; n < sizeof cases / sizeof *cases; n++) SIMP(cases[n].e, cases[n].want);
}

/* The simplified form evaluates like the original on a grid of points. */
static int64_t eval(const TirExpr *e, const TirVar **vs, const int64_t *vals, int n, bool *ok) {
  switch (e->kind) {
    case TIR_INT: return e->ival;
    case TIR_VAR:
      for (int k = 0; k < n; k++)
        if (vs[k] == e->var) return vals[k];
      *ok = false;
      return 0;
    default: break;
  }
  if (e->kind == TIR_SELECT) {
    int64_t cc = eval(e->sel.cond, vs, vals, n, ok);
    int64_t a = eval(e->sel.t, vs, vals, n, ok), b = eval(e->sel.f, vs, vals, n, ok);
    return cc ? a : b;
  }
  if (e->kind == TIR_NOT) return !eval(e->un.a, vs, vals, n, ok);
  if (e->kind >= TIR_ADD && e->kind <= TIR_OR) {
    int64_t a = eval(e->bin.a, vs, vals, n, ok), b = eval(e->bin.b, vs, vals, n, ok);
    TirExpr *r = arith_const_fold(H, e->kind, tir_int(H, e->bin.a->dtype, a),
                                  tir_int(H, e->bin.b->dtype, b));
    if (!r) {
      *ok = false;
      return 0;
    }
    return r->ival;
  }
  *ok = false;
  return 0;
}

static void test_random_equiv(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j");
  bind(i, 0, 6);
  bind(j, 0, 12);
  const TirVar *vs[2] = {i, j};
  TirExpr *es[] = {
      fdiv(add(mul(v(i), c(12)), v(j)), c(4)),
      fmod_(add(mul(v(i), c(12)), v(j)), c(4)),
      fdiv(add(add(mul(v(i), c(6)), v(j)), c(-5)), c(3)),
      fmod_(sub(mul(v(j), c(-3)), c(7)), c(5)),
      fdiv(fdiv(add(v(j), c(9)), c(2)), c(3)),
      mn(sub(v(j), v(i)), c(4)),
      mx(add(v(j), c(-6)), mul(v(i), c(2))),
      fdiv(mul(v(i), c(6)), c(4)),
      fmod_(add(mul(v(i), c(8)), c(6)), c(4)),
      lt(add(mul(v(i), c(4)), v(j)), c(20)),
      tdiv(sub(v(j), c(6)), c(4)),
      tmod(add(v(j), c(1)), c(5)),
      fmod_(fmod_(v(j), c(8)), c(4)),
      fdiv(fmod_(add(v(i), v(j)), c(8)), c(2)),
  };
  int bad = 0, total = 0;
  for (size_t n = 0; n < sizeof es / sizeof *es; n++) {
    TirExpr *s = arith_simplify(A, es[n]);
    for (int64_t a = 0; a < 6; a++)
      for (int64_t b = 0; b < 12; b++) {
        int64_t vals[2] = {a, b};
        bool ok1 = true, ok2 = true;
        int64_t r1 = eval(es[n], vs, vals, 2, &ok1), r2 = eval(s, vs, vals, 2, &ok2);
        total++;
        if (!ok1 || !ok2 || r1 != r2) {
          if (!bad) fprintf(stderr, "mismatch: %s vs %s at (%lld, %lld)\n", str(es[n]), str(s),
                            (long long)a, (long long)b);
          bad++;
        }
      }
    CHECK(bad == 0);
  }
  CHECK(total == (int)(sizeof es / sizeof *es) * 72);
}

/* Random expressions over ranged and free vars: the simplified form must
 * evaluate to the same value wherever the original is defined. */
static uint64_t rng_state = 88172645463325252ull;
static int rnd(int n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (int)(rng_state % (uint64_t)n);
}

static TirExpr *gen(TirVar **vars, int nv, int depth) {
  if (depth == 0 || rnd(5) == 0) {
    if (rnd(3) == 0) return c(rnd(19) - 9);
    return v(vars[rnd(nv)]);
  }
  switch (rnd(12)) {
    case 0: case 1: return add(gen(vars, nv, depth - 1), gen(vars, nv, depth - 1));
    case 2: return sub(gen(vars, nv, depth - 1), gen(vars, nv, depth - 1));
    case 3: return mul(gen(vars, nv, depth - 1), c(rnd(9) - 4));
    case 4: return mul(gen(vars, nv, depth - 1), gen(vars, nv, depth - 2 < 0 ? 0 : depth - 2));
    case 5: return fdiv(gen(vars, nv, depth - 1), c(rnd(8) + 1));
    case 6: return fmod_(gen(vars, nv, depth - 1), c(rnd(8) + 1));
    case 7: return tdiv(gen(vars, nv, depth - 1), c(rnd(8) + 1));
    case 8: return tmod(gen(vars, nv, depth - 1), c(rnd(8) + 1));
    case 9: return mn(gen(vars, nv, depth - 1), gen(vars, nv, depth - 1));
    case 10: return mx(gen(vars, nv, depth - 1), gen(vars, nv, depth - 1));
    default:
      return sel(lt(gen(vars, nv, depth - 1), gen(vars, nv, depth - 1)), gen(vars, nv, depth - 1),
                 gen(vars, nv, depth - 1));
  }
}

static void test_fuzz(void) {
  fresh();
  TirVar *i = var("i"), *j = var("j"), *k = var("k"), *x = var("x");
  bind(i, 0, 6);
  bind(j, 0, 12);
  bind(k, -3, 8);
  TirVar *vars[4] = {i, j, k, x};
  const TirVar *cvars[4] = {i, j, k, x};
  int bad = 0;
  for (int t = 0; t < 600; t++) {
    TirExpr *e = gen(vars, 4, 5);
    bool cmp = rnd(3) == 0;
    if (cmp) e = (rnd(2) ? lt : ge)(e, gen(vars, 4, 2));
    TirExpr *s = arith_simplify(A, e);
    for (int p = 0; p < 60; p++) {
      int64_t vals[4] = {rnd(6), rnd(12), rnd(8) - 3, rnd(41) - 20};
      bool ok1 = true, ok2 = true;
      int64_t r1 = eval(e, cvars, vals, 4, &ok1);
      if (!ok1) continue;
      int64_t r2 = eval(s, cvars, vals, 4, &ok2);
      if (!ok2 || r1 != r2) {
        if (bad < 5)
          fprintf(stderr, "fuzz mismatch: %s\n  -> %s\n  at i=%lld j=%lld k=%lld x=%lld: %lld vs %lld\n",
                  str(e), str(s), (long long)vals[0], (long long)vals[1], (long long)vals[2],
                  (long long)vals[3], (long long)r1, (long long)r2);
        bad++;
        break;
      }
    }
  }
  CHECK_EQ_INT(bad, 0);
}

int main(void) {
  H = ir_heap_new();
  test_fold_int();
  test_fold_widths();
  test_fold_float();
  test_fold_cast();
  test_linear();
  test_divmod();
  test_minmax();
  test_compare();
  test_bool();
  test_misc();
  test_bounds();
  test_prove();
  test_scopes();
  test_affine();
  test_itermap();
  test_table();
  test_random_equiv();
  test_fuzz();
  arith_free(A);
  for (int k = 0; k < NSTR; k++) free(strs[k]);
  ir_heap_release(H);
  TEST_MAIN_END();
}
