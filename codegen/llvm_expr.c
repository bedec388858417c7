/* llvm_expr.c - loop-IR expressions to LLVM IR, with the interpreter's semantics.
 *
 * Integers wrap (plain add/sub/mul; nsw only inside buffer indices, where an
 * overflow would be out of bounds anyway), // and % follow Python, float->int
 * saturates (fptosi.sat), float16 is LLVM `half`, bfloat16 values live in
 * `float` registers rounded to bf16 after every op and are i16 in memory. */
#include "codegen/cg_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ------------------------------------------------------------ helpers */

LLVMValueRef cg_fail(CgFn *f, Span sp, LLVMTypeRef ty, const char *fmt, ...) {
  if (!f->failed) {
    va_list ap;
    va_start(ap, fmt);
    diag_report(f->m->diag, DIAG_ERROR, sp, fmt, ap);
    va_end(ap);
  }
  f->failed = true;
  if (!ty || LLVMGetTypeKind(ty) == LLVMVoidTypeKind) ty = f->m->i32;
  return LLVMGetUndef(ty);
}

static LLVMTypeRef scalar_type(CgModule *m, DType t, bool mem) {
  switch (t.code) {
    case DT_BOOL: return mem ? m->i8 : m->i1;
    case DT_INT: case DT_UINT: return LLVMIntTypeInContext(m->ctx, t.bits ? t.bits : 32);
    case DT_FLOAT: return t.bits == 16 ? m->f16 : t.bits == 64 ? m->f64 : m->f32;
    case DT_BFLOAT: return mem ? m->i16 : m->f32;
    case DT_HANDLE: return m->i8p;
    default: return m->voidt;
  }
}

LLVMTypeRef cg_reg_type(CgModule *m, DType t) {
  LLVMTypeRef s = scalar_type(m, t, false);
  return t.lanes > 1 ? LLVMVectorType(s, t.lanes) : s;
}

LLVMTypeRef cg_mem_type(CgModule *m, DType t) {
  LLVMTypeRef s = scalar_type(m, t, true);
  return t.lanes > 1 ? LLVMVectorType(s, t.lanes) : s;
}

LLVMValueRef cg_lookup(CgFn *f, const TirVar *v) {
  for (int i = f->nvars - 1; i >= 0; i--)
    if (f->vars[i].var == v) return f->vars[i].val;
  return NULL;
}

void cg_bind(CgFn *f, const TirVar *v, LLVMValueRef val) {
  VEC_PUSH(f->vars, f->nvars, f->capvars, ((CgVar){v, val}));
}

LLVMValueRef cg_runtime_fn(CgModule *m, const char *name, LLVMTypeRef ty) {
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, name);
  if (!fn) {
    fn = LLVMAddFunction(m->mod, name, ty);
    cg_add_enum_attr(m, fn, (int)LLVMAttributeFunctionIndex, "nounwind", 0);
  }
  return fn;
}

LLVMValueRef cg_intrinsic(CgModule *m, const char *name, LLVMTypeRef *overloads, int n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  TVS_ASSERT(id != 0);
  return LLVMGetIntrinsicDeclaration(m->mod, id, overloads, (size_t)n);
}

LLVMValueRef cg_const_string(CgModule *m, const char *s) {
  char name[32];
  snprintf(name, sizeof name, ".str.%d", m->nstrings++);
  LLVMValueRef init = LLVMConstStringInContext(m->ctx, s, (unsigned)strlen(s), 0);
  LLVMValueRef g = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  LLVMValueRef zero = LLVMConstInt(m->i64, 0, 0);
  LLVMValueRef idx[2] = {zero, zero};
  return LLVMConstInBoundsGEP2(LLVMTypeOf(init), g, idx, 2);
}

static LLVMValueRef call_fn(CgFn *f, LLVMValueRef fn, LLVMValueRef *args, int n) {
  return LLVMBuildCall2(f->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

LLVMValueRef cg_call_intrinsic(CgFn *f, const char *name, LLVMTypeRef ov, LLVMValueRef *args, int n) {
  LLVMValueRef fn = cg_intrinsic(f->m, name, &ov, 1);
  return call_fn(f, fn, args, n);
}

LLVMValueRef cg_splat(CgFn *f, LLVMValueRef v, int lanes) {
  if (lanes <= 1) return v;
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), (unsigned)lanes);
  if (LLVMIsConstant(v)) {
    LLVMValueRef *els = xmalloc((size_t)lanes * sizeof *els);
    for (int i = 0; i < lanes; i++) els[i] = v;
    LLVMValueRef c = LLVMConstVector(els, (unsigned)lanes);
    free(els);
    return c;
  }
  LLVMValueRef ins = LLVMBuildInsertElement(f->b, LLVMGetUndef(vt), v, LLVMConstInt(f->m->i32, 0, 0), "");
  LLVMValueRef mask = LLVMConstNull(LLVMVectorType(f->m->i32, (unsigned)lanes));
  return LLVMBuildShuffleVector(f->b, ins, LLVMGetUndef(vt), mask, "");
}

/* Lanes of an LLVM value (1 for scalars). */
static int lanes_of(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? (int)LLVMGetVectorSize(t) : 1;
}

static LLVMValueRef widen_to(CgFn *f, LLVMValueRef v, int lanes) {
  return lanes_of(v) == lanes ? v : cg_splat(f, v, lanes);
}

/* An integer constant of LLVM type ty (scalar or vector). */
LLVMValueRef cg_const_int(CgFn *f, LLVMTypeRef ty, uint64_t v) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    return cg_splat(f, LLVMConstInt(LLVMGetElementType(ty), v, 0), (int)LLVMGetVectorSize(ty));
  return LLVMConstInt(ty, v, 0);
}

LLVMValueRef cg_const_real(CgFn *f, LLVMTypeRef ty, double v) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    return cg_splat(f, LLVMConstReal(LLVMGetElementType(ty), v), (int)LLVMGetVectorSize(ty));
  return LLVMConstReal(ty, v);
}

/* Same type with integer elements of `bits` bits (scalar or vector). */
static LLVMTypeRef int_like(CgFn *f, LLVMTypeRef ty, unsigned bits) {
  LLVMTypeRef it = LLVMIntTypeInContext(f->m->ctx, bits);
  return LLVMGetTypeKind(ty) == LLVMVectorTypeKind ? LLVMVectorType(it, LLVMGetVectorSize(ty)) : it;
}

static LLVMTypeRef float_like(CgFn *f, LLVMTypeRef ty, LLVMTypeRef ft) {
  return LLVMGetTypeKind(ty) == LLVMVectorTypeKind ? LLVMVectorType(ft, LLVMGetVectorSize(ty)) : ft;
}

/* --------------------------------------------------- float formats */

/* Rounds float value(s) v to bfloat16 precision (nearest even; NaN becomes
 * the canonical quiet NaN with v's sign), keeping the float type. */
static LLVMValueRef round_bf16(CgFn *f, LLVMValueRef v) {
  LLVMBuilderRef b = f->b;
  LLVMTypeRef ft = LLVMTypeOf(v), it = int_like(f, ft, 32);
  LLVMValueRef bits = LLVMBuildBitCast(b, v, it, "");
  LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, cg_const_int(f, it, 16), ""), cg_const_int(f, it, 1), "");
  LLVMValueRef r = LLVMBuildAdd(b, bits, LLVMBuildAdd(b, lsb, cg_const_int(f, it, 0x7fff), ""), "");
  r = LLVMBuildAnd(b, r, cg_const_int(f, it, 0xffff0000u), "");
  LLVMValueRef qnan = LLVMBuildOr(b, LLVMBuildAnd(b, bits, cg_const_int(f, it, 0x80000000u), ""),
                                  cg_const_int(f, it, 0x7fc00000u), "");
  LLVMValueRef isnan = LLVMBuildFCmp(b, LLVMRealUNO, v, v, "");
  return LLVMBuildBitCast(b, LLVMBuildSelect(b, isnan, qnan, r, ""), ft, "bf16");
}

/* double -> float rounding to odd, so that a later rounding to a format of
 * at most 22 significant bits (half, bfloat16) rounds only once. */
static LLVMValueRef f64_to_f32_odd(CgFn *f, LLVMValueRef d) {
  LLVMBuilderRef b = f->b;
  LLVMTypeRef ft = float_like(f, LLVMTypeOf(d), f->m->f32);
  LLVMTypeRef it = int_like(f, ft, 32);
  LLVMValueRef x = LLVMBuildFPTrunc(b, d, ft, "");
  LLVMValueRef back = LLVMBuildFPExt(b, x, LLVMTypeOf(d), "");
  LLVMValueRef inexact = LLVMBuildFCmp(b, LLVMRealONE, back, d, "");
  LLVMValueRef fabs_back = cg_call_intrinsic(f, "llvm.fabs", LLVMTypeOf(d), &back, 1);
  LLVMValueRef fabs_d = cg_call_intrinsic(f, "llvm.fabs", LLVMTypeOf(d), &d, 1);
  LLVMValueRef away = LLVMBuildFCmp(b, LLVMRealOGT, fabs_back, fabs_d, "");
  LLVMValueRef bits = LLVMBuildBitCast(b, x, it, "");
  LLVMValueRef toward0 = LLVMBuildSelect(b, away, LLVMBuildSub(b, bits, cg_const_int(f, it, 1), ""), bits, "");
  LLVMValueRef odd = LLVMBuildOr(b, toward0, cg_const_int(f, it, 1), "");
  return LLVMBuildBitCast(b, LLVMBuildSelect(b, inexact, odd, bits, ""), ft, "");
}

/* A float64 value (scalar/vector) rounded once to float dtype t. */
static LLVMValueRef from_f64(CgFn *f, LLVMValueRef d, DType t) {
  if (t.code == DT_FLOAT && t.bits == 64) return d;
  if (t.code == DT_FLOAT && t.bits == 32)
    return LLVMBuildFPTrunc(f->b, d, float_like(f, LLVMTypeOf(d), f->m->f32), "");
  LLVMValueRef x = f64_to_f32_odd(f, d);
  if (t.code == DT_BFLOAT) return round_bf16(f, x);
  return LLVMBuildFPTrunc(f->b, x, float_like(f, LLVMTypeOf(d), f->m->f16), "");
}

/* A float value as float64 (exact). */
static LLVMValueRef to_f64(CgFn *f, LLVMValueRef v, DType t) {
  if (t.code == DT_FLOAT && t.bits == 64) return v;
  return LLVMBuildFPExt(f->b, v, float_like(f, LLVMTypeOf(v), f->m->f64), "");
}

/* Register value of float dtype t as `float` (exact for f16/bf16/f32). */
static LLVMValueRef to_f32(CgFn *f, LLVMValueRef v, DType t) {
  if (t.code == DT_FLOAT && t.bits == 16)
    return LLVMBuildFPExt(f->b, v, float_like(f, LLVMTypeOf(v), f->m->f32), "");
  return v; /* f32, bf16 (already float) */
}

/* A float value of `float` type rounded to dtype t (f16, bf16, f32). */
static LLVMValueRef from_f32(CgFn *f, LLVMValueRef v, DType t) {
  if (t.code == DT_BFLOAT) return round_bf16(f, v);
  if (t.code == DT_FLOAT && t.bits == 16)
    return LLVMBuildFPTrunc(f->b, v, float_like(f, LLVMTypeOf(v), f->m->f16), "");
  if (t.code == DT_FLOAT && t.bits == 64)
    return LLVMBuildFPExt(f->b, v, float_like(f, LLVMTypeOf(v), f->m->f64), "");
  return v;
}

/* ------------------------------------------------------------ casts */

LLVMValueRef cg_truth(CgFn *f, LLVMValueRef v, DType t) {
  if (t.code == DT_BOOL) return v;
  if (dt_is_float(t)) return LLVMBuildFCmp(f->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  if (t.code == DT_HANDLE) return LLVMBuildIsNotNull(f->b, v, "");
  return LLVMBuildICmp(f->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

LLVMValueRef cg_convert(CgFn *f, LLVMValueRef v, DType from, DType to) {
  CgModule *m = f->m;
  LLVMBuilderRef b = f->b;
  int lanes = to.lanes > 1 ? to.lanes : lanes_of(v);
  v = widen_to(f, v, lanes);
  from = dt_element(from);
  to = dt_element(to);
  DType tl = dt_with_lanes(to, lanes);
  LLVMTypeRef rt = cg_reg_type(m, tl);
  if (dt_eq(from, to)) return v;
  if (to.code == DT_BOOL) return cg_truth(f, v, from);
  if (from.code == DT_HANDLE || to.code == DT_HANDLE) {
    if (from.code == DT_HANDLE && dt_is_integer(to)) return LLVMBuildPtrToInt(b, v, rt, "");
    if (to.code == DT_HANDLE && dt_is_integer(from)) return LLVMBuildIntToPtr(b, v, rt, "");
    return LLVMBuildBitCast(b, v, rt, "");
  }
  bool from_int = dt_is_integer(from) || from.code == DT_BOOL;
  bool from_signed = from.code == DT_INT;
  if (from_int && dt_is_integer(to)) {
    unsigned fb = from.code == DT_BOOL ? 1 : from.bits, tb = to.bits;
    if (fb == tb) return v;
    if (fb > tb) return LLVMBuildTrunc(b, v, rt, "");
    return from_signed ? LLVMBuildSExt(b, v, rt, "") : LLVMBuildZExt(b, v, rt, "");
  }
  if (from_int) { /* -> float */
    unsigned fb = from.code == DT_BOOL ? 1 : from.bits;
    if (to.code == DT_FLOAT && to.bits >= 32)
      return from_signed ? LLVMBuildSIToFP(b, v, rt, "") : LLVMBuildUIToFP(b, v, rt, "");
    if (fb <= 16) { /* exact in float, then one rounding */
      LLVMTypeRef ft = float_like(f, rt, m->f32);
      LLVMValueRef x = from_signed ? LLVMBuildSIToFP(b, v, ft, "") : LLVMBuildUIToFP(b, v, ft, "");
      return from_f32(f, x, to);
    }
    LLVMTypeRef dt = float_like(f, rt, m->f64);
    LLVMValueRef d = from_signed ? LLVMBuildSIToFP(b, v, dt, "") : LLVMBuildUIToFP(b, v, dt, "");
    return from_f64(f, d, to);
  }
  /* from float */
  if (dt_is_integer(to)) {
    LLVMValueRef x = from.code == DT_FLOAT && from.bits == 16 ? to_f32(f, v, from) : v;
    LLVMTypeRef ov[2] = {rt, LLVMTypeOf(x)};
    const char *nm = to.code == DT_INT ? "llvm.fptosi.sat" : "llvm.fptoui.sat";
    LLVMValueRef fn = cg_intrinsic(m, nm, ov, 2);
    return call_fn(f, fn, &x, 1);
  }
  /* float -> float */
  if (from.code == DT_FLOAT && from.bits == 64) return from_f64(f, v, to);
  if (to.code == DT_FLOAT && to.bits == 64) return to_f64(f, v, from);
  /* among f16, bf16, f32: through float (exact for all three) */
  return from_f32(f, to_f32(f, v, from), to);
}

/* ------------------------------------------------------- constants */

static double round_bf16_double(double x) {
  if (isnan(x)) return x;
  float fv = (float)x; /* constants: double rounding here is harmless for literals */
  uint32_t bits;
  memcpy(&bits, &fv, 4);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  memcpy(&fv, &bits, 4);
  return fv;
}

static LLVMValueRef const_scalar(CgFn *f, DType t, int64_t iv, double fv, bool is_float) {
  CgModule *m = f->m;
  LLVMTypeRef ty = cg_reg_type(m, dt_element(t));
  if (dt_is_float(t)) {
    double x = is_float ? fv : (double)iv;
    if (t.code == DT_BFLOAT) x = round_bf16_double(x);
    return LLVMConstReal(ty, x);
  }
  if (t.code == DT_HANDLE) return LLVMConstNull(ty);
  if (is_float) return cg_convert(f, LLVMConstReal(m->f64, fv), dt_float64, dt_element(t));
  if (t.code == DT_BOOL) return LLVMConstInt(ty, iv != 0, 0);
  return LLVMConstInt(ty, (unsigned long long)iv, t.code == DT_INT);
}

/* ------------------------------------------------------------ binary ops */

static bool nonneg(CgFn *f, const TirExpr *e) {
  int64_t lo, hi;
  if (e->dtype.lanes != 1 || !dt_is_integer(e->dtype)) return false;
  return arith_const_bounds(f->arith, e, &lo, &hi) && lo >= 0;
}

static bool positive(CgFn *f, const TirExpr *e) {
  int64_t lo, hi;
  if (e->dtype.lanes != 1 || !dt_is_integer(e->dtype)) return false;
  return arith_const_bounds(f->arith, e, &lo, &hi) && lo > 0;
}

/* Python floor division / modulo on signed integers. */
static LLVMValueRef floor_divmod(CgFn *f, const TirExpr *e, LLVMValueRef a, LLVMValueRef bv) {
  LLVMBuilderRef b = f->b;
  bool div = e->kind == TIR_FLOORDIV;
  if (nonneg(f, e->bin.a) && positive(f, e->bin.b))
    return div ? LLVMBuildUDiv(b, a, bv, "") : LLVMBuildURem(b, a, bv, "");
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef zero = LLVMConstNull(ty);
  LLVMValueRef q = LLVMBuildSDiv(b, a, bv, ""), r = LLVMBuildSRem(b, a, bv, "");
  LLVMValueRef adjust;
  if (positive(f, e->bin.b)) {
    adjust = LLVMBuildICmp(b, LLVMIntSLT, r, zero, "");
  } else {
    LLVMValueRef rneg = LLVMBuildICmp(b, LLVMIntSLT, r, zero, "");
    LLVMValueRef bneg = LLVMBuildICmp(b, LLVMIntSLT, bv, zero, "");
    LLVMValueRef rnz = LLVMBuildICmp(b, LLVMIntNE, r, zero, "");
    adjust = LLVMBuildAnd(b, rnz, LLVMBuildXor(b, rneg, bneg, ""), "");
  }
  if (div) return LLVMBuildSub(b, q, LLVMBuildZExt(b, adjust, ty, ""), "");
  return LLVMBuildAdd(b, r, LLVMBuildSelect(b, adjust, bv, zero, ""), "");
}

static LLVMValueRef float_binop(CgFn *f, TirExprKind k, DType t, LLVMValueRef a, LLVMValueRef bv) {
  LLVMBuilderRef b = f->b;
  bool bf = t.code == DT_BFLOAT;
  LLVMValueRef r;
  switch (k) {
    case TIR_ADD: r = LLVMBuildFAdd(b, a, bv, ""); break;
    case TIR_SUB: r = LLVMBuildFSub(b, a, bv, ""); break;
    case TIR_MUL: r = LLVMBuildFMul(b, a, bv, ""); break;
    case TIR_DIV: r = LLVMBuildFDiv(b, a, bv, ""); break;
    case TIR_MOD: r = LLVMBuildFRem(b, a, bv, ""); break;
    case TIR_FLOORDIV: case TIR_FLOORMOD: {
      /* in double, rounded once (as the interpreter does) */
      LLVMValueRef x = to_f64(f, a, t), y = to_f64(f, bv, t);
      LLVMValueRef q = LLVMBuildFDiv(b, x, y, "");
      q = cg_call_intrinsic(f, "llvm.floor", LLVMTypeOf(q), &q, 1);
      if (k == TIR_FLOORMOD) q = LLVMBuildFSub(b, x, LLVMBuildFMul(b, q, y, ""), "");
      return from_f64(f, q, t);
    }
    case TIR_MIN: return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, a, bv, ""), a, bv, "");
    case TIR_MAX: return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, a, bv, ""), a, bv, "");
    case TIR_EQ: return LLVMBuildFCmp(b, LLVMRealOEQ, a, bv, "");
    case TIR_NE: return LLVMBuildFCmp(b, LLVMRealUNE, a, bv, "");
    case TIR_LT: return LLVMBuildFCmp(b, LLVMRealOLT, a, bv, "");
    case TIR_LE: return LLVMBuildFCmp(b, LLVMRealOLE, a, bv, "");
    case TIR_GT: return LLVMBuildFCmp(b, LLVMRealOGT, a, bv, "");
    case TIR_GE: return LLVMBuildFCmp(b, LLVMRealOGE, a, bv, "");
    default: return NULL;
  }
  return bf ? round_bf16(f, r) : r;
}

static LLVMValueRef int_binop(CgFn *f, const TirExpr *e, DType t, LLVMValueRef a, LLVMValueRef bv,
                              bool in_index) {
  LLVMBuilderRef b = f->b;
  bool sgn = t.code == DT_INT;
  bool nsw = in_index && sgn;
  switch (e->kind) {
    case TIR_ADD: return nsw ? LLVMBuildNSWAdd(b, a, bv, "") : LLVMBuildAdd(b, a, bv, "");
    case TIR_SUB: return nsw ? LLVMBuildNSWSub(b, a, bv, "") : LLVMBuildSub(b, a, bv, "");
    case TIR_MUL: return nsw ? LLVMBuildNSWMul(b, a, bv, "") : LLVMBuildMul(b, a, bv, "");
    case TIR_DIV:
      if (!sgn || (nonneg(f, e->bin.a) && positive(f, e->bin.b))) return LLVMBuildUDiv(b, a, bv, "");
      return LLVMBuildSDiv(b, a, bv, "");
    case TIR_MOD:
      if (!sgn || (nonneg(f, e->bin.a) && positive(f, e->bin.b))) return LLVMBuildURem(b, a, bv, "");
      return LLVMBuildSRem(b, a, bv, "");
    case TIR_FLOORDIV:
      if (!sgn) return LLVMBuildUDiv(b, a, bv, "");
      return floor_divmod(f, e, a, bv);
    case TIR_FLOORMOD:
      if (!sgn) return LLVMBuildURem(b, a, bv, "");
      return floor_divmod(f, e, a, bv);
    case TIR_MIN:
      return LLVMBuildSelect(b, LLVMBuildICmp(b, sgn ? LLVMIntSLT : LLVMIntULT, a, bv, ""), a, bv, "");
    case TIR_MAX:
      return LLVMBuildSelect(b, LLVMBuildICmp(b, sgn ? LLVMIntSGT : LLVMIntUGT, a, bv, ""), a, bv, "");
    case TIR_EQ: return LLVMBuildICmp(b, LLVMIntEQ, a, bv, "");
    case TIR_NE: return LLVMBuildICmp(b, LLVMIntNE, a, bv, "");
    case TIR_LT: return LLVMBuildICmp(b, sgn ? LLVMIntSLT : LLVMIntULT, a, bv, "");
    case TIR_LE: return LLVMBuildICmp(b, sgn ? LLVMIntSLE : LLVMIntULE, a, bv, "");
    case TIR_GT: return LLVMBuildICmp(b, sgn ? LLVMIntSGT : LLVMIntUGT, a, bv, "");
    case TIR_GE: return LLVMBuildICmp(b, sgn ? LLVMIntSGE : LLVMIntUGE, a, bv, "");
    default: return NULL;
  }
}

static LLVMValueRef expr_in(CgFn *f, const TirExpr *e, bool in_index);

/* Whether evaluating e may touch memory or call out (then And/Or short-circuit). */
static bool has_load_or_call(const TirExpr *e) {
  if (!e) return false;
  switch (e->kind) {
    case TIR_LOAD: case TIR_CALL: return true;
    case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return false;
    case TIR_NOT: case TIR_CAST: return has_load_or_call(e->un.a);
    case TIR_SELECT:
      return has_load_or_call(e->sel.cond) || has_load_or_call(e->sel.t) || has_load_or_call(e->sel.f);
    case TIR_RAMP: return has_load_or_call(e->ramp.base) || has_load_or_call(e->ramp.stride);
    case TIR_BROADCAST: return has_load_or_call(e->bcast.value);
    case TIR_LET: return true;
    default: return has_load_or_call(e->bin.a) || has_load_or_call(e->bin.b);
  }
}

static LLVMValueRef logic_op(CgFn *f, const TirExpr *e) {
  LLVMBuilderRef b = f->b;
  bool is_and = e->kind == TIR_AND;
  LLVMValueRef a = cg_truth(f, expr_in(f, e->bin.a, false), e->bin.a->dtype);
  if (e->dtype.lanes == 1 && lanes_of(a) == 1 && has_load_or_call(e->bin.b)) {
    /* short circuit: the right side may read memory only valid when needed */
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef rhs = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, is_and ? "and.rhs" : "or.rhs");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, is_and ? "and.end" : "or.end");
    if (is_and) LLVMBuildCondBr(b, a, rhs, done);
    else LLVMBuildCondBr(b, a, done, rhs);
    LLVMPositionBuilderAtEnd(b, rhs);
    LLVMValueRef bv = cg_truth(f, expr_in(f, e->bin.b, false), e->bin.b->dtype);
    LLVMBasicBlockRef rhs_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef phi = LLVMBuildPhi(b, f->m->i1, "");
    LLVMValueRef vals[2] = {LLVMConstInt(f->m->i1, is_and ? 0 : 1, 0), bv};
    LLVMBasicBlockRef bbs[2] = {from, rhs_end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
  }
  LLVMValueRef bv = cg_truth(f, expr_in(f, e->bin.b, false), e->bin.b->dtype);
  int lanes = lanes_of(a) > lanes_of(bv) ? lanes_of(a) : lanes_of(bv);
  a = widen_to(f, a, lanes);
  bv = widen_to(f, bv, lanes);
  return is_and ? LLVMBuildAnd(b, a, bv, "") : LLVMBuildOr(b, a, bv, "");
}

/* The float32/float64 product among a + b's operands that may be contracted
 * with it into one multiply-add (-ffp-contract), or NULL. */
static const TirExpr *contractible_mul(CgFn *f, const TirExpr *e, const TirExpr *operand) {
  DType t = dt_element(e->dtype);
  if (f->m->opt->fp_contract == CG_FP_CONTRACT_OFF) return NULL;
  if (t.code != DT_FLOAT || (t.bits != 32 && t.bits != 64)) return NULL;
  if (operand->kind != TIR_MUL || operand->dtype.lanes != e->dtype.lanes) return NULL;
  return operand;
}

/* a * b + c (and a * b - c, c - a * b) as llvm.fmuladd: one rounding where the
 * CPU has FMA, as TVM's LLVM backend contracts by default; NULL if e is no
 * such expression. */
static LLVMValueRef fused_mul_add(CgFn *f, const TirExpr *e, bool in_index) {
  if (e->kind != TIR_ADD && e->kind != TIR_SUB) return NULL;
  const TirExpr *mul = contractible_mul(f, e, e->bin.a), *addend = e->bin.b;
  bool mul_first = mul != NULL;
  if (!mul) {
    mul = contractible_mul(f, e, e->bin.b);
    addend = e->bin.a;
  }
  if (!mul) return NULL;
  int lanes = e->dtype.lanes;
  LLVMValueRef x = widen_to(f, expr_in(f, mul->bin.a, in_index), lanes);
  LLVMValueRef y = widen_to(f, expr_in(f, mul->bin.b, in_index), lanes);
  LLVMValueRef c = widen_to(f, expr_in(f, addend, in_index), lanes);
  if (e->kind == TIR_SUB) {
    if (mul_first) c = LLVMBuildFNeg(f->b, c, ""); /* a*b - c */
    else x = LLVMBuildFNeg(f->b, x, "");           /* c - a*b = (-a)*b + c */
  }
  LLVMValueRef args[3] = {x, y, c};
  return cg_call_intrinsic(f, "llvm.fmuladd", LLVMTypeOf(x), args, 3);
}

static LLVMValueRef binary(CgFn *f, const TirExpr *e, bool in_index) {
  LLVMValueRef fused = fused_mul_add(f, e, in_index);
  if (fused) return fused;
  LLVMValueRef a = expr_in(f, e->bin.a, in_index), bv = expr_in(f, e->bin.b, in_index);
  int lanes = lanes_of(a) > lanes_of(bv) ? lanes_of(a) : lanes_of(bv);
  a = widen_to(f, a, lanes);
  bv = widen_to(f, bv, lanes);
  DType t = dt_element(e->bin.a->dtype);
  LLVMValueRef r = NULL;
  if (dt_is_float(t)) r = float_binop(f, e->kind, t, a, bv);
  else if (dt_is_integer(t) || dt_is_bool(t)) r = int_binop(f, e, t, a, bv, in_index);
  if (!r)
    return cg_fail(f, e->span, cg_reg_type(f->m, e->dtype), "codegen: operator %s is not supported on this dtype",
                   tir_expr_kind_name(e->kind));
  return r;
}

/* --------------------------------------------------------- buffer access */

LLVMValueRef cg_buffer_base(CgFn *f, const TirBuffer *buf) {
  LLVMValueRef data = cg_lookup(f, buf->data);
  LLVMTypeRef et = cg_mem_type(f->m, dt_element(buf->dtype));
  if (!data) return cg_fail(f, buf->span, LLVMPointerType(et, 0), "codegen: buffer '%s' has no storage here", buf->name);
  return LLVMBuildBitCast(f->b, data, LLVMPointerType(et, 0), "");
}

/* A scalar index as i64 for a GEP. */
static LLVMValueRef index64(CgFn *f, LLVMValueRef idx, DType t) {
  if (t.code == DT_INT && t.bits < 64) return LLVMBuildSExt(f->b, idx, f->m->i64, "");
  if (t.bits < 64) return LLVMBuildZExt(f->b, idx, f->m->i64, "");
  return idx;
}

static LLVMValueRef elem_ptr(CgFn *f, LLVMValueRef base, LLVMTypeRef et, LLVMValueRef i64idx) {
  return LLVMBuildInBoundsGEP2(f->b, et, base, &i64idx, 1, "");
}

/* Register value <- memory value. */
static LLVMValueRef from_mem(CgFn *f, LLVMValueRef v, DType t) {
  LLVMBuilderRef b = f->b;
  if (t.code == DT_BOOL) return LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  if (t.code == DT_BFLOAT) {
    LLVMTypeRef it = int_like(f, LLVMTypeOf(v), 32);
    LLVMValueRef w = LLVMBuildShl(b, LLVMBuildZExt(b, v, it, ""), cg_const_int(f, it, 16), "");
    return LLVMBuildBitCast(b, w, float_like(f, it, f->m->f32), "");
  }
  return v;
}

/* Memory value <- register value. */
static LLVMValueRef to_mem(CgFn *f, LLVMValueRef v, DType t) {
  LLVMBuilderRef b = f->b;
  if (t.code == DT_BOOL) return LLVMBuildZExt(b, v, int_like(f, LLVMTypeOf(v), 8), "");
  if (t.code == DT_BFLOAT) {
    LLVMTypeRef it = int_like(f, LLVMTypeOf(v), 32);
    LLVMValueRef w = LLVMBuildLShr(b, LLVMBuildBitCast(b, v, it, ""), cg_const_int(f, it, 16), "");
    return LLVMBuildTrunc(b, w, int_like(f, it, 16), "");
  }
  return v;
}

static unsigned elem_align(DType t) {
  size_t n = dt_bytes(dt_element(t));
  return n ? (unsigned)n : 1;
}

/* The alignment of a contiguous vector access buf[base : base + lanes] on a
 * device backend: the vector's size (ld.global.v4 / ld.shared.v4 on NVPTX)
 * when the base is provably a multiple of lanes and the buffer is global
 * (device allocations are 256-byte aligned) or shared (16-byte aligned);
 * else the element's.  On the CPU the element's: NumPy arrays need not be
 * aligned to a vector. */
static unsigned vector_align(CgFn *f, const TirBuffer *buf, const TirExpr *base, int lanes, unsigned elem) {
  unsigned bytes = elem * (unsigned)lanes;
  const char *sc = buf->data && buf->data->ptr_scope ? buf->data->ptr_scope : buf->scope;
  bool global_or_shared = tir_scope_is_global(sc) || !strcmp(sc, "shared");
  if (!f->m->device_stmt || !global_or_shared || bytes > 16 || (bytes & (bytes - 1)) || buf->elem_offset)
    return elem;
  IrHeap *h = arith_heap(f->arith);
  TirExpr *rem = tir_binary(h, TIR_FLOORMOD, (TirExpr *)base, tir_int(h, base->dtype, lanes));
  return arith_prove(f->arith, tir_binary(h, TIR_EQ, rem, tir_int(h, base->dtype, 0))) ? bytes : elem;
}

/* Whether idx is Ramp(base, 1, lanes): a contiguous vector access. */
static bool contiguous(const TirExpr *idx) {
  int64_t s;
  return idx->kind == TIR_RAMP && tir_is_const_int(idx->ramp.stride, &s) && s == 1;
}

static void note_vec(CgFn *f, DType t) {
  if (t.lanes <= 1) return;
  int bits = (int)(dt_bytes(dt_element(t)) * 8) * t.lanes;
  if (bits > f->vec_bits) f->vec_bits = bits;
}

static LLVMValueRef load(CgFn *f, const TirExpr *e) {
  CgModule *m = f->m;
  LLVMBuilderRef b = f->b;
  const TirBuffer *buf = e->load.buf;
  DType et = dt_element(buf->dtype);
  LLVMTypeRef rt = cg_reg_type(m, e->dtype);
  if (e->load.n != 1 || buf->dtype.lanes != 1)
    return cg_fail(f, e->span, rt, "codegen: load from buffer '%s' is not flattened to one index", buf->name);
  LLVMTypeRef mt = cg_mem_type(m, et);
  LLVMValueRef base = cg_buffer_base(f, buf);
  const TirExpr *idx = e->load.idx[0];
  int lanes = e->dtype.lanes;
  unsigned al = elem_align(et);
  note_vec(f, e->dtype);
  if (lanes == 1 || idx->dtype.lanes == 1) {
    LLVMValueRef i = index64(f, expr_in(f, idx, true), idx->dtype);
    LLVMValueRef v = LLVMBuildLoad2(b, mt, elem_ptr(f, base, mt, i), "");
    LLVMSetAlignment(v, al);
    return widen_to(f, from_mem(f, v, et), lanes);
  }
  if (contiguous(idx)) {
    LLVMValueRef i = index64(f, expr_in(f, idx->ramp.base, true), idx->ramp.base->dtype);
    LLVMTypeRef vt = LLVMVectorType(mt, (unsigned)lanes);
    LLVMValueRef p = LLVMBuildBitCast(b, elem_ptr(f, base, mt, i), LLVMPointerType(vt, 0), "");
    LLVMValueRef v = LLVMBuildLoad2(b, vt, p, "");
    LLVMSetAlignment(v, vector_align(f, buf, idx->ramp.base, lanes, al));
    return from_mem(f, v, et);
  }
  if (idx->kind == TIR_BROADCAST) {
    LLVMValueRef i = index64(f, expr_in(f, idx->bcast.value, true), idx->bcast.value->dtype);
    LLVMValueRef v = LLVMBuildLoad2(b, mt, elem_ptr(f, base, mt, i), "");
    LLVMSetAlignment(v, al);
    return cg_splat(f, from_mem(f, v, et), lanes);
  }
  /* gather, scalarized */
  LLVMValueRef vi = expr_in(f, idx, true);
  LLVMTypeRef vt = LLVMVectorType(mt, (unsigned)lanes);
  LLVMValueRef out = LLVMGetUndef(vt);
  for (int l = 0; l < lanes; l++) {
    LLVMValueRef lane = LLVMConstInt(m->i32, (unsigned long long)l, 0);
    LLVMValueRef i = index64(f, LLVMBuildExtractElement(b, vi, lane, ""), dt_element(idx->dtype));
    LLVMValueRef v = LLVMBuildLoad2(b, mt, elem_ptr(f, base, mt, i), "");
    LLVMSetAlignment(v, al);
    out = LLVMBuildInsertElement(b, out, v, lane, "");
  }
  return from_mem(f, out, et);
}

void cg_store(CgFn *f, const TirStmt *s) {
  CgModule *m = f->m;
  LLVMBuilderRef b = f->b;
  const TirBuffer *buf = s->store.buf;
  DType et = dt_element(buf->dtype);
  if (s->store.n != 1 || buf->dtype.lanes != 1) {
    cg_fail(f, s->span, NULL, "codegen: store to buffer '%s' is not flattened to one index", buf->name);
    return;
  }
  const TirExpr *idx = s->store.idx[0];
  int lanes = s->store.value->dtype.lanes > idx->dtype.lanes ? s->store.value->dtype.lanes : idx->dtype.lanes;
  LLVMValueRef val = expr_in(f, s->store.value, false);
  if (!dt_eq(dt_element(s->store.value->dtype), et))
    val = cg_convert(f, val, s->store.value->dtype, dt_with_lanes(et, lanes_of(val)));
  LLVMTypeRef mt = cg_mem_type(m, et);
  LLVMValueRef base = cg_buffer_base(f, buf);
  unsigned al = elem_align(et);
  note_vec(f, dt_with_lanes(et, lanes));
  if (lanes == 1) {
    LLVMValueRef i = index64(f, expr_in(f, idx, true), idx->dtype);
    LLVMValueRef st = LLVMBuildStore(b, to_mem(f, val, et), elem_ptr(f, base, mt, i));
    LLVMSetAlignment(st, al);
    return;
  }
  val = widen_to(f, val, lanes);
  LLVMValueRef mv = to_mem(f, val, et);
  if (contiguous(idx)) {
    LLVMValueRef i = index64(f, expr_in(f, idx->ramp.base, true), idx->ramp.base->dtype);
    LLVMTypeRef vt = LLVMVectorType(mt, (unsigned)lanes);
    LLVMValueRef p = LLVMBuildBitCast(b, elem_ptr(f, base, mt, i), LLVMPointerType(vt, 0), "");
    LLVMValueRef st = LLVMBuildStore(b, mv, p);
    LLVMSetAlignment(st, vector_align(f, buf, idx->ramp.base, lanes, al));
    return;
  }
  LLVMValueRef vi = widen_to(f, expr_in(f, idx, true), lanes);
  for (int l = 0; l < lanes; l++) { /* scatter, scalarized, in lane order */
    LLVMValueRef lane = LLVMConstInt(m->i32, (unsigned long long)l, 0);
    LLVMValueRef i = index64(f, LLVMBuildExtractElement(b, vi, lane, ""), dt_element(idx->dtype));
    LLVMValueRef st = LLVMBuildStore(b, LLVMBuildExtractElement(b, mv, lane, ""), elem_ptr(f, base, mt, i));
    LLVMSetAlignment(st, al);
  }
}

/* -------------------------------------------------------------- calls */

/* The LLVM intrinsic and the libm function (double-precision name; "f"
 * appended for float) of each float math op: columns of tir_ops.def. */
static const char *const op_llvm_intrinsic[TIR_NUM_OPS] = {
#define X(E, S, T, N, K, L, M, C, I) [TIR_OP_##E] = L,
#include "ir/tir_ops.def"
#undef X
};

static const char *const op_libm[TIR_NUM_OPS] = {
#define X(E, S, T, N, K, L, M, C, I) [TIR_OP_##E] = M,
#include "ir/tir_ops.def"
#undef X
};

/* Calls the scalar libm function name(+f) lane by lane on x (float/double). */
static LLVMValueRef libm_call(CgFn *f, const char *base, LLVMValueRef *xs, int nargs) {
  CgModule *m = f->m;
  LLVMTypeRef ty = LLVMTypeOf(xs[0]);
  int lanes = lanes_of(xs[0]);
  LLVMTypeRef st = lanes > 1 ? LLVMGetElementType(ty) : ty;
  bool is_f32 = st == m->f32;
  char name[32];
  snprintf(name, sizeof name, "%s%s", base, is_f32 ? "f" : "");
  LLVMTypeRef params[2] = {st, st};
  LLVMValueRef fn = cg_runtime_fn(m, name, LLVMFunctionType(st, params, (unsigned)nargs, 0));
  if (lanes == 1) return call_fn(f, fn, xs, nargs);
  LLVMValueRef out = LLVMGetUndef(ty);
  for (int l = 0; l < lanes; l++) {
    LLVMValueRef lane = LLVMConstInt(m->i32, (unsigned long long)l, 0);
    LLVMValueRef a[2];
    for (int k = 0; k < nargs; k++) a[k] = LLVMBuildExtractElement(f->b, xs[k], lane, "");
    out = LLVMBuildInsertElement(f->b, out, call_fn(f, fn, a, nargs), lane, "");
  }
  return out;
}

/* A float math op on operands already in the compute type (float or double). */
static LLVMValueRef math_op(CgFn *f, const TirExpr *e, TirOpId op, LLVMValueRef *x, int n) {
  LLVMBuilderRef b = f->b;
  LLVMTypeRef ty = LLVMTypeOf(x[0]);
  LLVMTypeRef st = lanes_of(x[0]) > 1 ? LLVMGetElementType(ty) : ty;
  /* exp inline on the CPU (llvm_fast_exp.c); devices have their own (libdevice) */
  bool fast_f32 = f->m->opt->fast_math && st == f->m->f32 && !f->m->device_stmt;
  if (op == TIR_OP_EXP && fast_f32 && n == 1) return cg_fast_expf(f, x[0]);
  if (n == e->call.op->nargs && op_llvm_intrinsic[op]) return cg_call_intrinsic(f, op_llvm_intrinsic[op], ty, x, n);
  if (n == e->call.op->nargs && op_libm[op]) return libm_call(f, op_libm[op], x, n);
  switch (op) { /* the ops without a column spelled out */
    case TIR_OP_RSQRT: {
      LLVMValueRef s = cg_call_intrinsic(f, "llvm.sqrt", ty, x, 1);
      return LLVMBuildFDiv(b, cg_const_real(f, ty, 1.0), s, "");
    }
    case TIR_OP_SIGMOID: {
      LLVMValueRef neg = LLVMBuildFNeg(b, x[0], "");
      LLVMValueRef ex = fast_f32 ? cg_fast_expf(f, neg) : cg_call_intrinsic(f, "llvm.exp", ty, &neg, 1);
      LLVMValueRef den = LLVMBuildFAdd(b, cg_const_real(f, ty, 1.0), ex, "");
      return LLVMBuildFDiv(b, cg_const_real(f, ty, 1.0), den, "");
    }
    case TIR_OP_FMOD: return LLVMBuildFRem(b, x[0], x[1], "");
    default:
      return cg_fail(f, e->span, ty, "codegen: T.%s is not supported", e->call.op->name);
  }
}

static LLVMValueRef shift(CgFn *f, TirOpId op, DType at, DType st, LLVMValueRef a, LLVMValueRef s) {
  LLVMBuilderRef b = f->b;
  LLVMTypeRef ty = LLVMTypeOf(a);
  unsigned bits = at.code == DT_BOOL ? 1 : at.bits;
  /* range test in the amount's own type (unsigned compare: negatives are huge) */
  DType sw = st;
  if (sw.code == DT_BOOL || sw.bits < 16) { /* room for the constant `bits` */
    s = cg_convert(f, s, st, dt_with_lanes(st.code == DT_INT ? dt_int32 : dt_uint32, lanes_of(s)));
    sw = st.code == DT_INT ? dt_int32 : dt_uint32;
  }
  LLVMValueRef oor = LLVMBuildICmp(b, LLVMIntUGE, s, cg_const_int(f, LLVMTypeOf(s), bits), "");
  LLVMValueRef amt;
  if (sw.bits > bits) amt = LLVMBuildTrunc(b, s, ty, "");
  else if (sw.bits < bits) amt = LLVMBuildZExt(b, s, ty, "");
  else amt = s;
  LLVMValueRef r, fill;
  if (op == TIR_OP_SHIFT_LEFT) {
    r = LLVMBuildShl(b, a, amt, "");
    fill = LLVMConstNull(ty);
  } else if (at.code == DT_INT) {
    r = LLVMBuildAShr(b, a, amt, "");
    fill = LLVMBuildAShr(b, a, cg_const_int(f, ty, bits - 1), "");
  } else {
    r = LLVMBuildLShr(b, a, amt, "");
    fill = LLVMConstNull(ty);
  }
  return LLVMBuildSelect(b, oor, fill, r, "");
}

static LLVMValueRef if_then_else(CgFn *f, const TirExpr *e) {
  LLVMBuilderRef b = f->b;
  LLVMValueRef c = cg_truth(f, expr_in(f, e->call.args[0], false), e->call.args[0]->dtype);
  LLVMTypeRef rt = cg_reg_type(f->m, e->dtype);
  if (lanes_of(c) > 1) { /* per lane: both arms, then select */
    LLVMValueRef t = widen_to(f, expr_in(f, e->call.args[1], false), e->dtype.lanes);
    LLVMValueRef fv = widen_to(f, expr_in(f, e->call.args[2], false), e->dtype.lanes);
    return LLVMBuildSelect(b, c, t, fv, "");
  }
  LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "ite.then");
  LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "ite.else");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, "ite.end");
  LLVMBuildCondBr(b, c, bt, bf);
  LLVMPositionBuilderAtEnd(b, bt);
  LLVMValueRef tv = widen_to(f, expr_in(f, e->call.args[1], false), e->dtype.lanes);
  LLVMBasicBlockRef bt_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, bf);
  LLVMValueRef fv = widen_to(f, expr_in(f, e->call.args[2], false), e->dtype.lanes);
  LLVMBasicBlockRef bf_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  if (LLVMTypeOf(tv) != rt || LLVMTypeOf(fv) != rt)
    return cg_fail(f, e->span, rt, "codegen: T.if_then_else arms have mismatched types");
  LLVMValueRef phi = LLVMBuildPhi(b, rt, "");
  LLVMValueRef vals[2] = {tv, fv};
  LLVMBasicBlockRef bbs[2] = {bt_end, bf_end};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}

static LLVMValueRef call_extern(CgFn *f, const TirExpr *e) {
  CgModule *m = f->m;
  if (e->call.n < 1 || e->call.args[0]->kind != TIR_STR)
    return cg_fail(f, e->span, cg_reg_type(m, e->dtype), "codegen: %s needs a function name", e->call.op->name);
  int n = e->call.n - 1;
  LLVMValueRef *args = xmalloc((size_t)(n ? n : 1) * sizeof *args);
  LLVMTypeRef *tys = xmalloc((size_t)(n ? n : 1) * sizeof *tys);
  for (int i = 0; i < n; i++) {
    args[i] = expr_in(f, e->call.args[i + 1], false);
    tys[i] = LLVMTypeOf(args[i]);
  }
  LLVMTypeRef rt = dt_is_void(e->dtype) ? m->voidt : cg_reg_type(m, e->dtype);
  const char *name = e->call.args[0]->str;
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, name);
  if (!fn) fn = LLVMAddFunction(m->mod, name, LLVMFunctionType(rt, tys, (unsigned)n, 0));
  LLVMValueRef r = LLVMBuildCall2(f->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
  free(args);
  free(tys);
  return dt_is_void(e->dtype) ? LLVMConstInt(m->i32, 0, 0) : r;
}

/* The SPECIAL ops with their own lowering: sets *out and returns true. */
static bool call_special(CgFn *f, const TirExpr *e, LLVMValueRef *out) {
  CgModule *m = f->m;
  DType rt = e->dtype;
  switch (e->call.op->id) {
    case TIR_OP_LIKELY: *out = expr_in(f, e->call.args[0], false); return true;
    case TIR_OP_ASSUME: *out = LLVMConstInt(m->i1, 1, 0); return true;
    case TIR_OP_IF_THEN_ELSE: *out = if_then_else(f, e); return true;
    case TIR_OP_CALL_EXTERN: case TIR_OP_CALL_PURE_EXTERN: *out = call_extern(f, e); return true;
    case TIR_OP_REINTERPRET: {
      DType at = e->call.args[0]->dtype;
      LLVMValueRef v = to_mem(f, expr_in(f, e->call.args[0], false), dt_element(at));
      if (dt_bytes(dt_element(at)) != dt_bytes(dt_element(rt))) {
        *out = cg_fail(f, e->span, cg_reg_type(m, rt), "codegen: T.reinterpret between types of different sizes");
        return true;
      }
      v = LLVMBuildBitCast(f->b, v, cg_mem_type(m, dt_with_lanes(rt, lanes_of(v))), "");
      *out = from_mem(f, v, dt_element(rt));
      return true;
    }
    case TIR_OP_RET: *out = cg_ret_value(f, e); return true;
    case TIR_OP_CALL_GLOBAL: *out = cg_call_prim_func(f, e); return true;
    case TIR_OP_OPAQUE:
      *out = cg_fail(f, e->span, dt_is_handle(rt) || dt_is_void(rt) ? m->i8p : cg_reg_type(m, rt),
                     "codegen: T.%s is not supported on the CPU target",
                     e->call.n > 0 && e->call.args[0]->kind == TIR_STR ? e->call.args[0]->str : "?");
      return true;
    default: return false;
  }
}

/* An INT_BIT op on the evaluated operands x (widened to `lanes`). */
static LLVMValueRef call_int_bit(CgFn *f, const TirExpr *e, LLVMValueRef *x, int n, int lanes) {
  LLVMBuilderRef b = f->b;
  const TirOpInfo *op = e->call.op;
  LLVMTypeRef rty = cg_reg_type(f->m, e->dtype);
  DType ae = dt_element(e->call.args[0]->dtype), et = dt_element(e->dtype);
  DType bt = n == 2 ? e->call.args[1]->dtype : e->call.args[0]->dtype;
  if (!dt_is_integer(ae) && !dt_is_bool(ae))
    return cg_fail(f, e->span, rty, "codegen: T.%s needs integer operands", op->name);
  LLVMValueRef r;
  switch (op->id) {
    case TIR_OP_BITWISE_AND: case TIR_OP_BITWISE_OR: case TIR_OP_BITWISE_XOR:
      if (n != 2) return cg_fail(f, e->span, rty, "codegen: T.%s takes two operands", op->name);
      if (LLVMTypeOf(x[1]) != LLVMTypeOf(x[0])) x[1] = cg_convert(f, x[1], bt, dt_with_lanes(ae, lanes));
      r = op->id == TIR_OP_BITWISE_AND ? LLVMBuildAnd(b, x[0], x[1], "")
          : op->id == TIR_OP_BITWISE_OR ? LLVMBuildOr(b, x[0], x[1], "")
                                        : LLVMBuildXor(b, x[0], x[1], "");
      break;
    case TIR_OP_BITWISE_NOT: r = LLVMBuildNot(b, x[0], ""); break;
    case TIR_OP_SHIFT_LEFT: case TIR_OP_SHIFT_RIGHT:
      if (n != 2) return cg_fail(f, e->span, rty, "codegen: T.%s takes two operands", op->name);
      r = shift(f, op->id, ae, dt_element(bt), x[0], x[1]);
      break;
    case TIR_OP_POPCOUNT: r = cg_call_intrinsic(f, "llvm.ctpop", LLVMTypeOf(x[0]), x, 1); break;
    default: return cg_fail(f, e->span, rty, "codegen: T.%s is not supported", op->name);
  }
  /* the result as dtype rt: the low bits (bool: bit 0), a count for popcount */
  if (dt_is_bool(et)) {
    LLVMTypeRef t1 = int_like(f, LLVMTypeOf(r), 1);
    return LLVMTypeOf(r) == t1 ? r : LLVMBuildTrunc(b, r, t1, "");
  }
  DType from = ae;
  if (op->id == TIR_OP_POPCOUNT && ae.code != DT_BOOL) from = DTYPE(DT_UINT, ae.bits);
  return cg_convert(f, r, from, dt_with_lanes(et, lanes));
}

/* isnan / isinf / isfinite on x[0] (integer operands are finite). */
static LLVMValueRef call_classify(CgFn *f, const TirExpr *e, LLVMValueRef *x, int lanes) {
  LLVMBuilderRef b = f->b;
  TirOpId id = e->call.op->id;
  LLVMValueRef r;
  if (!dt_is_float(dt_element(e->call.args[0]->dtype))) {
    r = LLVMConstInt(f->m->i1, id == TIR_OP_ISFINITE, 0);
    r = widen_to(f, r, lanes);
  } else if (id == TIR_OP_ISNAN) {
    r = LLVMBuildFCmp(b, LLVMRealUNO, x[0], x[0], "");
  } else {
    LLVMValueRef a = cg_call_intrinsic(f, "llvm.fabs", LLVMTypeOf(x[0]), x, 1);
    LLVMValueRef inf = cg_const_real(f, LLVMTypeOf(x[0]), INFINITY);
    r = LLVMBuildFCmp(b, id == TIR_OP_ISINF ? LLVMRealOEQ : LLVMRealOLT, a, inf, "");
  }
  return cg_convert(f, r, dt_bool, dt_with_lanes(dt_element(e->dtype), lanes));
}

static LLVMValueRef call(CgFn *f, const TirExpr *e) {
  LLVMBuilderRef b = f->b;
  const TirOpInfo *op = e->call.op;
  DType rt = e->dtype;
  LLVMTypeRef rty = cg_reg_type(f->m, rt);
  LLVMValueRef special;
  if (call_special(f, e, &special)) return special;
  int n = e->call.n;
  if (n < 1 || n > 2) return cg_fail(f, e->span, rty, "codegen: T.%s: bad argument count", op->name);
  DType at = e->call.args[0]->dtype, bt = n == 2 ? e->call.args[1]->dtype : at;
  LLVMValueRef x[2];
  x[0] = expr_in(f, e->call.args[0], false);
  if (n == 2) x[1] = expr_in(f, e->call.args[1], false);
  int lanes = lanes_of(x[0]);
  if (n == 2 && lanes_of(x[1]) > lanes) lanes = lanes_of(x[1]);
  for (int i = 0; i < n; i++) x[i] = widen_to(f, x[i], lanes);
  DType ae = dt_element(at), et = dt_element(rt);
  if (op->kind == TIR_OPK_INT_BIT) return call_int_bit(f, e, x, n, lanes);
  if (op->id == TIR_OP_ISNAN || op->id == TIR_OP_ISINF || op->id == TIR_OP_ISFINITE)
    return call_classify(f, e, x, lanes);
  if (!dt_is_float(ae) && dt_is_integer(et) && op->int_exact) {
    LLVMValueRef r = x[0];
    if (op->id == TIR_OP_FABS && ae.code == DT_INT) {
      LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, r, LLVMConstNull(LLVMTypeOf(r)), "");
      r = LLVMBuildSelect(b, neg, LLVMBuildNeg(b, r, ""), r, "");
    }
    return cg_convert(f, r, ae, dt_with_lanes(et, lanes));
  }
  /* float math: in the operand's precision (f16/bf16 computed in float),
   * or in double for integer operands */
  DType ct; /* compute type */
  if (!dt_is_float(ae)) ct = dt_float64;
  else if (ae.code == DT_FLOAT && ae.bits == 64) ct = dt_float64;
  else ct = dt_float32;
  for (int i = 0; i < n; i++) {
    DType ti = i == 0 ? ae : dt_element(bt);
    x[i] = cg_convert(f, x[i], ti, dt_with_lanes(ct, lanes));
  }
  LLVMValueRef r = math_op(f, e, op->id, x, n);
  if (!dt_is_float(et) && !dt_is_integer(et) && !dt_is_bool(et))
    return cg_fail(f, e->span, rty, "codegen: T.%s with result dtype void", op->name);
  return cg_convert(f, r, ct, dt_with_lanes(et, lanes));
}

/* ------------------------------------------------------------ dispatch */

static LLVMValueRef expr_in(CgFn *f, const TirExpr *e, bool in_index) {
  CgModule *m = f->m;
  LLVMBuilderRef b = f->b;
  switch (e->kind) {
    case TIR_INT: return cg_splat(f, const_scalar(f, e->dtype, e->ival, 0, false), e->dtype.lanes);
    case TIR_FLOAT: return cg_splat(f, const_scalar(f, e->dtype, 0, e->fval, true), e->dtype.lanes);
    case TIR_STR: return cg_const_string(m, e->str);
    case TIR_VAR: {
      LLVMValueRef v = cg_lookup(f, e->var);
      if (!v) return cg_fail(f, e->span, cg_reg_type(m, e->dtype), "codegen: variable '%s' has no value here", e->var->name);
      return v;
    }
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_DIV: case TIR_MOD: case TIR_FLOORDIV:
    case TIR_FLOORMOD: case TIR_MIN: case TIR_MAX: case TIR_EQ: case TIR_NE: case TIR_LT:
    case TIR_LE: case TIR_GT: case TIR_GE:
      return binary(f, e, in_index);
    case TIR_AND: case TIR_OR: return logic_op(f, e);
    case TIR_NOT: {
      LLVMValueRef v = cg_truth(f, expr_in(f, e->un.a, false), e->un.a->dtype);
      return LLVMBuildNot(b, v, "");
    }
    case TIR_SELECT: {
      LLVMValueRef c = cg_truth(f, expr_in(f, e->sel.cond, false), e->sel.cond->dtype);
      LLVMValueRef t = expr_in(f, e->sel.t, in_index), fv = expr_in(f, e->sel.f, in_index);
      int lanes = e->dtype.lanes;
      if (lanes_of(c) > lanes) lanes = lanes_of(c);
      t = widen_to(f, t, lanes);
      fv = widen_to(f, fv, lanes);
      if (lanes_of(c) != 1) c = widen_to(f, c, lanes);
      return LLVMBuildSelect(b, c, t, fv, "");
    }
    case TIR_CAST: {
      LLVMValueRef v = expr_in(f, e->un.a, in_index);
      return cg_convert(f, v, e->un.a->dtype, e->dtype);
    }
    case TIR_LOAD: return load(f, e);
    case TIR_RAMP: {
      int lanes = e->ramp.lanes;
      note_vec(f, e->dtype);
      LLVMValueRef base = expr_in(f, e->ramp.base, in_index), st = expr_in(f, e->ramp.stride, in_index);
      DType t = dt_element(e->ramp.base->dtype);
      LLVMTypeRef et = cg_reg_type(m, t);
      LLVMValueRef *els = xmalloc((size_t)lanes * sizeof *els);
      for (int l = 0; l < lanes; l++)
        els[l] = dt_is_float(t) ? LLVMConstReal(et, l) : LLVMConstInt(et, (unsigned long long)l, 0);
      LLVMValueRef iota = LLVMConstVector(els, (unsigned)lanes);
      free(els);
      LLVMValueRef vb = cg_splat(f, base, lanes), vs = cg_splat(f, st, lanes);
      if (dt_is_float(t))
        return LLVMBuildFAdd(b, vb, LLVMBuildFMul(b, vs, iota, ""), "");
      bool nsw = in_index && t.code == DT_INT;
      LLVMValueRef off = nsw ? LLVMBuildNSWMul(b, vs, iota, "") : LLVMBuildMul(b, vs, iota, "");
      return nsw ? LLVMBuildNSWAdd(b, vb, off, "") : LLVMBuildAdd(b, vb, off, "");
    }
    case TIR_BROADCAST:
      note_vec(f, e->dtype);
      return cg_splat(f, expr_in(f, e->bcast.value, in_index), e->bcast.lanes);
    case TIR_LET: {
      LLVMValueRef v = expr_in(f, e->let.value, in_index);
      int mark = f->nvars;
      cg_bind(f, e->let.var, v);
      LLVMValueRef r = expr_in(f, e->let.body, in_index);
      f->nvars = mark;
      return r;
    }
    case TIR_CALL: return call(f, e);
    default:
      return cg_fail(f, e->span, m->i32, "codegen: cannot compile a %s expression", tir_expr_kind_name(e->kind));
  }
}

LLVMValueRef cg_expr(CgFn *f, const TirExpr *e) { return expr_in(f, e, false); }
