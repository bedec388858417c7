/* llvm_fast_exp.c - exp of float (scalar or vector) as inline arithmetic, for --fast-math.
 *
 * LLVM lowers llvm.exp on a vector to one libm expf call per lane: a
 * vectorized loop that calls exp runs at scalar speed (softmax, sigmoid,
 * GELU).  Under --fast-math (LLVM's approx-func: math functions may be
 * approximated) exp is computed inline instead, the way TVM's FastMath pass
 * substitutes fast_exp, so it vectorizes with the loop.  Not bit-equal to
 * libm: within 1 ulp on the whole float range (tests/unit/test_codegen.c
 * asserts 2).
 *
 * exp(x) = 2^n * exp(r) with n = round(x / ln 2) and r = x - n ln 2 (|r| <=
 * ln 2 / 2), reduced by two fused multiply-adds; exp(r) is its Taylor series
 * to degree 7, whose truncation error (|r|^8 / 8! < 6e-9) is below half an
 * ulp; 2^n is applied as two exponent-field scalings so that results in the
 * subnormal range round once.  Overflow gives +inf, underflow 0, NaN NaN. */
#include "codegen/cg_internal.h"

static LLVMValueRef fma3(CgFn *f, LLVMTypeRef ty, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
  LLVMValueRef args[3] = {a, b, c};
  return cg_call_intrinsic(f, "llvm.fma", ty, args, 3);
}

/* 2^k as a float, for integer k in [-126, 127]: k + 127 in the exponent field. */
static LLVMValueRef pow2(CgFn *f, LLVMTypeRef fty, LLVMTypeRef ity, LLVMValueRef k) {
  LLVMValueRef biased = LLVMBuildAdd(f->b, k, cg_const_int(f, ity, 127), "");
  LLVMValueRef bits = LLVMBuildShl(f->b, biased, cg_const_int(f, ity, 23), "");
  return LLVMBuildBitCast(f->b, bits, fty, "");
}

LLVMValueRef cg_fast_expf(CgFn *f, LLVMValueRef x) {
  LLVMBuilderRef b = f->b;
  LLVMTypeRef ty = LLVMTypeOf(x);
  bool vec = LLVMGetTypeKind(ty) == LLVMVectorTypeKind;
  LLVMTypeRef ity = vec ? LLVMVectorType(f->m->i32, LLVMGetVectorSize(ty)) : f->m->i32;
  /* exp overflows above 88.7228 and is below half the smallest subnormal
   * under -103.973: clamping there keeps n within the two scalings' range */
  LLVMValueRef lim[2] = {x, cg_const_real(f, ty, -104.0)};
  LLVMValueRef xc = cg_call_intrinsic(f, "llvm.maxnum", ty, lim, 2);
  lim[0] = xc, lim[1] = cg_const_real(f, ty, 88.75);
  xc = cg_call_intrinsic(f, "llvm.minnum", ty, lim, 2);
  LLVMValueRef t = LLVMBuildFMul(b, xc, cg_const_real(f, ty, 1.4426950408889634), "");
  LLVMValueRef n = cg_call_intrinsic(f, "llvm.rint", ty, &t, 1);
  /* ln 2 split so that n * ln2_hi is exact for |n| < 512 (its low 9 bits are 0) */
  LLVMValueRef r = fma3(f, ty, n, cg_const_real(f, ty, -0.693145751953125), xc);
  r = fma3(f, ty, n, cg_const_real(f, ty, -1.4286068203094172e-06), r);
  /* 1 + r + r^2/2! + ... + r^7/7!, Horner */
  static const double inv_fact[8] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040};
  LLVMValueRef p = cg_const_real(f, ty, inv_fact[7]);
  for (int k = 6; k >= 0; k--) p = fma3(f, ty, p, r, cg_const_real(f, ty, inv_fact[k]));
  /* n in [-150, 128]: 2^n = 2^h * 2^(n-h), h = n/2, each factor a normal float */
  LLVMValueRef ni = LLVMBuildFPToSI(b, n, ity, "");
  LLVMValueRef h = LLVMBuildAShr(b, ni, cg_const_int(f, ity, 1), "");
  LLVMValueRef rest = LLVMBuildSub(b, ni, h, "");
  LLVMValueRef y = LLVMBuildFMul(b, p, pow2(f, ty, ity, h), "");
  y = LLVMBuildFMul(b, y, pow2(f, ty, ity, rest), "");
  /* maxnum dropped a NaN; give it back */
  LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
  return LLVMBuildSelect(b, nan, x, y, "");
}
