/* elab_tir_expr.c - TIR expressions: names, literals, operators, buffer loads
 * and the T.* intrinsics, with TVM v0.23's typing rules: a Python literal takes
 * the dtype of the typed operand it meets, two typed operands are matched as
 * BinaryOpMatchTypes does, and literal-only arithmetic is folded the way
 * Python itself would evaluate it before TVM ever saw it. */
#include "lang/elab_internal.h"
#include "ir/arith.h"
#include "ir/structural_equal.h"
#include "base/util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static TirVal bad(void) { return (TirVal){NULL, false}; }
static TirVal typed(TirExpr *e) { return (TirVal){e, false}; }

/* Sets the span of a node this file has just built (never a shared one). */
static TirExpr *at(TirExpr *e, Span s) {
  e->span = s;
  return e;
}

static TirVal lit_int(ElabCtx *c, int64_t v, Span s) {
  DType t = v >= INT32_MIN && v <= INT32_MAX ? dt_int32 : dt_int64;
  return (TirVal){at(tir_int(c->h, t, v), s), true};
}
static TirVal lit_float(ElabCtx *c, double f, Span s) {
  return (TirVal){at(tir_float(c->h, dt_float32, f), s), true};
}
static TirVal lit_bool(ElabCtx *c, bool b, Span s) {
  return (TirVal){at(tir_bool(c->h, b), s), true};
}

static const char *dts(DType t, char *buf) { return dt_str(t, buf); }

/* Does v fit in the integer (or bool) type t? */
static bool int_fits(DType t, int64_t v) {
  if (t.code == DT_BOOL) return v == 0 || v == 1;
  if (t.code == DT_INT) {
    if (t.bits >= 64) return true;
    int64_t lo = -((int64_t)1 << (t.bits - 1)), hi = ((int64_t)1 << (t.bits - 1)) - 1;
    return v >= lo && v <= hi;
  }
  if (t.code == DT_UINT) {
    if (v < 0) return false;
    return t.bits >= 64 || v <= (int64_t)(((uint64_t)1 << t.bits) - 1);
  }
  return false;
}

TirExpr *elab_tir_adopt(ElabCtx *c, TirVal v, DType t) {
  if (!v.e) return NULL;
  if (!v.lit) return dt_eq(v.e->dtype, t) ? v.e : NULL;
  if (t.lanes != 1) return NULL;
  if (v.e->kind == TIR_INT) {
    if (dt_is_float(t)) return at(tir_float(c->h, t, (double)v.e->ival), v.e->span);
    if (dt_is_integer(t) || dt_is_bool(t)) {
      if (!int_fits(t, v.e->ival)) {
        char b[DT_STR_MAX];
        diag_error(c->diag, v.e->span, "value %lld does not fit in %s", (long long)v.e->ival,
                   dts(t, b));
        return NULL;
      }
      return at(tir_int(c->h, t, v.e->ival), v.e->span);
    }
    return NULL;
  }
  if (v.e->kind == TIR_FLOAT && dt_is_float(t))
    return at(tir_float(c->h, t, v.e->fval), v.e->span);
  return NULL;
}

/* Casts with constant folding, as tir::cast (and so BinaryOpMatchTypes) does. */
static TirExpr *cast_fold(IrHeap *h, DType t, TirExpr *e) {
  if (dt_eq(e->dtype, t)) return e;
  if (t.lanes == 1 && e->kind == TIR_INT) {
    if (dt_is_float(t)) return at(tir_float(h, t, (double)e->ival), e->span);
    if (dt_is_integer(t) || dt_is_bool(t)) return at(tir_int(h, t, e->ival), e->span);
  }
  if (t.lanes == 1 && e->kind == TIR_FLOAT && dt_is_float(t))
    return at(tir_float(h, t, e->fval), e->span);
  return at(tir_cast(h, t, e), e->span);
}

TirExpr *elab_tir_int_cast(IrHeap *h, TirExpr *e, DType t) { return cast_fold(h, t, e); }

int elab_subscript_items(ElabCtx *c, const Ast *e, const TirBuffer *buf, const Ast *const **items) {
  const Ast *ix = e->b;
  int n = ix->kind == AST_TUPLE ? ix->list.len : 1;
  *items = ix->kind == AST_TUPLE ? (const Ast *const *)ix->list.items : (const Ast *const *)&e->b;
  if (n != buf->ndim) {
    diag_error(c->diag, e->span, "buffer '%s' has %d dimension%s but is indexed with %d ind%s",
               buf->name, buf->ndim, buf->ndim == 1 ? "" : "s", n, n == 1 ? "ex" : "ices");
    return -1;
  }
  return n;
}

/* e as base + constant (base NULL for a constant), peeling constant terms
 * off nested additions and subtractions. */
static const TirExpr *split_const(const TirExpr *e, int64_t *k) {
  int64_t acc = 0;
  for (;;) {
    if (e->kind == TIR_INT) {
      *k = acc + e->ival;
      return NULL;
    }
    if (e->kind == TIR_ADD && e->bin.b->kind == TIR_INT) {
      acc += e->bin.b->ival;
      e = e->bin.a;
    } else if (e->kind == TIR_ADD && e->bin.a->kind == TIR_INT) {
      acc += e->bin.a->ival;
      e = e->bin.b;
    } else if (e->kind == TIR_SUB && e->bin.b->kind == TIR_INT) {
      acc -= e->bin.b->ival;
      e = e->bin.a;
    } else {
      break;
    }
  }
  *k = acc;
  return e;
}

TirExpr *elab_tir_sub_fold(IrHeap *h, TirExpr *a, TirExpr *b) {
  if (!dt_eq(a->dtype, b->dtype) && dt_is_integer(a->dtype) && dt_is_integer(b->dtype)) {
    if (a->dtype.bits < b->dtype.bits) a = cast_fold(h, b->dtype, a);
    else b = cast_fold(h, a->dtype, b);
  }
  Span sp = span_join(b->span, a->span);
  if (tir_is_zero(b)) return a;
  /* (b + e) - b -> e: what the printer's `min:min + extent` parses back to */
  if (a->kind == TIR_ADD && tir_expr_identical(a->bin.a, b)) return a->bin.b;
  int64_t ka, kb;
  const TirExpr *ba = split_const(a, &ka), *bb = split_const(b, &kb);
  if ((!ba && !bb) || (ba && bb && tir_expr_identical(ba, bb))) return at(tir_int(h, a->dtype, ka - kb), sp);
  return at(tir_binary(h, TIR_SUB, a, b), sp);
}

/* ------------------------------------------------------ literal folding */

static bool lit_truthy(const TirExpr *e) { return e->kind == TIR_FLOAT ? e->fval != 0 : e->ival != 0; }

/* Python's evaluation of `a op b` on two literals. */
static TirVal fold_lit(ElabCtx *c, AstOp op, TirVal a, TirVal b, Span sp) {
  bool fl = a.e->kind == TIR_FLOAT || b.e->kind == TIR_FLOAT;
  double x = a.e->kind == TIR_FLOAT ? a.e->fval : (double)a.e->ival;
  double y = b.e->kind == TIR_FLOAT ? b.e->fval : (double)b.e->ival;
  int64_t i = a.e->kind == TIR_FLOAT ? 0 : a.e->ival, j = b.e->kind == TIR_FLOAT ? 0 : b.e->ival;
  switch (op) {
  case OP_LT: return lit_bool(c, fl ? x < y : i < j, sp);
  case OP_LE: return lit_bool(c, fl ? x <= y : i <= j, sp);
  case OP_GT: return lit_bool(c, fl ? x > y : i > j, sp);
  case OP_GE: return lit_bool(c, fl ? x >= y : i >= j, sp);
  case OP_EQ: return lit_bool(c, fl ? x == y : i == j, sp);
  case OP_NE: return lit_bool(c, fl ? x != y : i != j, sp);
  default: break;
  }
  if ((op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD) && (fl ? y == 0 : j == 0)) {
    diag_error(c->diag, sp, "division by zero");
    return bad();
  }
  if (fl) {
    switch (op) {
    case OP_ADD: return lit_float(c, x + y, sp);
    case OP_SUB: return lit_float(c, x - y, sp);
    case OP_MUL: return lit_float(c, x * y, sp);
    case OP_DIV: return lit_float(c, x / y, sp);
    case OP_FLOORDIV: return lit_float(c, floor(x / y), sp);
    case OP_MOD: return lit_float(c, x - y * floor(x / y), sp);
    case OP_POW: return lit_float(c, pow(x, y), sp);
    default: break;
    }
  } else {
    uint64_t ui = (uint64_t)i, uj = (uint64_t)j;
    switch (op) {
    case OP_ADD: return lit_int(c, (int64_t)(ui + uj), sp);
    case OP_SUB: return lit_int(c, (int64_t)(ui - uj), sp);
    case OP_MUL: return lit_int(c, (int64_t)(ui * uj), sp);
    case OP_DIV: return lit_float(c, x / y, sp);
    case OP_FLOORDIV: return lit_int(c, arith_floordiv64(i, j), sp);
    case OP_MOD: return lit_int(c, arith_floormod64(i, j), sp);
    case OP_POW: {
      if (j < 0) return lit_float(c, pow(x, y), sp);
      uint64_t r = 1;
      for (int64_t k = 0; k < j && k < 64; k++) r *= ui;
      return lit_int(c, (int64_t)r, sp);
    }
    case OP_LSHIFT: return lit_int(c, j >= 0 && j < 64 ? (int64_t)(ui << j) : 0, sp);
    case OP_RSHIFT: return lit_int(c, j >= 0 && j < 64 ? i >> j : (i < 0 ? -1 : 0), sp);
    case OP_BITAND: return lit_int(c, i & j, sp);
    case OP_BITOR: return lit_int(c, i | j, sp);
    case OP_BITXOR: return lit_int(c, i ^ j, sp);
    default: break;
    }
  }
  diag_error(c->diag, sp, "operator '%s' is not supported in TIR", ast_op_str(op));
  return bad();
}

/* ------------------------------------------------------- type matching */

/* A literal meeting an operand of type t, as TVM's _auto_broadcast converts it. */
static TirExpr *lit_meets(ElabCtx *c, TirVal v, DType t, bool *err) {
  DType et = dt_element(t);
  if (v.e->kind == TIR_INT) {
    if (dt_is_float(et)) return at(tir_float(c->h, et, (double)v.e->ival), v.e->span);
    if (dt_is_integer(et) || (dt_is_bool(et) && (v.e->ival == 0 || v.e->ival == 1))) {
      if (!int_fits(et, v.e->ival)) {
        char b[DT_STR_MAX];
        diag_error(c->diag, v.e->span, "value %lld does not fit in %s", (long long)v.e->ival,
                   dts(et, b));
        *err = true;
        return NULL;
      }
      return at(tir_int(c->h, et, v.e->ival), v.e->span);
    }
    return v.e;
  }
  if (v.e->kind == TIR_FLOAT && dt_is_float(et)) return at(tir_float(c->h, et, v.e->fval), v.e->span);
  return v.e;
}

/* Gives a and b one dtype (literal adoption, then BinaryOpMatchTypes). */
static bool match_types(ElabCtx *c, TirVal *a, TirVal *b, const char *opname, Span sp) {
  bool err = false;
  if (a->lit && !b->lit) a->e = lit_meets(c, *a, b->e->dtype, &err);
  else if (b->lit && !a->lit) b->e = lit_meets(c, *b, a->e->dtype, &err);
  if (err) return false;
  a->lit = b->lit = false;
  DType ta = a->e->dtype, tb = b->e->dtype;
  if (dt_eq(ta, tb)) return true;
  if (ta.lanes != tb.lanes) {
    if (ta.lanes == 1) a->e = tir_broadcast(c->h, a->e, tb.lanes);
    else if (tb.lanes == 1) b->e = tir_broadcast(c->h, b->e, ta.lanes);
    else goto mismatch;
    ta = a->e->dtype;
    tb = b->e->dtype;
    if (dt_eq(ta, tb)) return true;
  }
  if (dt_is_integer(ta) && dt_is_integer(tb)) {
    if (ta.bits < tb.bits || (ta.bits == tb.bits && ta.code == DT_UINT)) a->e = cast_fold(c->h, tb, a->e);
    else b->e = cast_fold(c->h, ta, b->e);
    return true;
  }
  if (dt_is_float(ta) && dt_is_integer(tb)) {
    b->e = cast_fold(c->h, ta, b->e);
    return true;
  }
  if (dt_is_integer(ta) && dt_is_float(tb)) {
    a->e = cast_fold(c->h, tb, a->e);
    return true;
  }
  if (dt_is_float(ta) && dt_is_float(tb) && ta.bits != tb.bits) {
    if (ta.bits < tb.bits) a->e = cast_fold(c->h, tb, a->e);
    else b->e = cast_fold(c->h, ta, b->e);
    return true;
  }
mismatch: {
  char b1[DT_STR_MAX], b2[DT_STR_MAX];
  diag_error(c->diag, sp, "dtype mismatch in '%s': '%s' vs '%s'", opname, dts(ta, b1), dts(tb, b2));
  return false;
}
}

/* A boolean operand of and/or/not/conditions: True/False literals become bool. */
static TirExpr *as_bool(ElabCtx *c, TirVal v, const char *what) {
  if (!v.e) return NULL;
  if (dt_is_bool(dt_element(v.e->dtype))) return v.e;
  char b[DT_STR_MAX];
  diag_error(c->diag, v.e->span, "%s must be a boolean, got '%s'", what, dts(v.e->dtype, b));
  return NULL;
}

static const TirOpInfo *op_info(TirOpId id) { return &tir_op_table[id]; }

/* Builds `a op b` for a binary TIR node kind or intrinsic; both typed. */
static TirVal arith(ElabCtx *c, TirExprKind kind, TirVal a, TirVal b, const char *opname, Span sp) {
  if (!a.e || !b.e) return bad();
  if (!match_types(c, &a, &b, opname, sp)) return bad();
  return typed(at(tir_binary(c->h, kind, a.e, b.e), sp));
}

static TirVal int_call2(ElabCtx *c, TirOpId id, TirVal a, TirVal b, const char *opname, Span sp) {
  if (!match_types(c, &a, &b, opname, sp)) return bad();
  DType t = dt_element(a.e->dtype);
  if (!dt_is_integer(t) && !dt_is_bool(t)) {
    char b1[DT_STR_MAX];
    diag_error(c->diag, sp, "operator '%s' needs integer operands, got '%s'", opname, dts(t, b1));
    return bad();
  }
  TirExpr *args[2] = {a.e, b.e};
  return typed(at(tir_call(c->h, a.e->dtype, op_info(id), args, 2), sp));
}

static TirVal binop(ElabCtx *c, AstOp op, TirVal a, TirVal b, Span sp) {
  if (!a.e || !b.e) return bad();
  if (a.lit && b.lit) return fold_lit(c, op, a, b, sp);
  const char *os = ast_op_str(op);
  switch (op) {
  case OP_ADD: return arith(c, TIR_ADD, a, b, os, sp);
  case OP_SUB: return arith(c, TIR_SUB, a, b, os, sp);
  case OP_MUL: return arith(c, TIR_MUL, a, b, os, sp);
  case OP_DIV: return arith(c, TIR_DIV, a, b, os, sp);
  case OP_FLOORDIV: return arith(c, TIR_FLOORDIV, a, b, os, sp);
  case OP_MOD: return arith(c, TIR_FLOORMOD, a, b, os, sp);
  case OP_LT: return arith(c, TIR_LT, a, b, os, sp);
  case OP_LE: return arith(c, TIR_LE, a, b, os, sp);
  case OP_GT: return arith(c, TIR_GT, a, b, os, sp);
  case OP_GE: return arith(c, TIR_GE, a, b, os, sp);
  case OP_EQ: return arith(c, TIR_EQ, a, b, os, sp);
  case OP_NE: return arith(c, TIR_NE, a, b, os, sp);
  case OP_LSHIFT: return int_call2(c, TIR_OP_SHIFT_LEFT, a, b, os, sp);
  case OP_RSHIFT: return int_call2(c, TIR_OP_SHIFT_RIGHT, a, b, os, sp);
  case OP_BITAND: return int_call2(c, TIR_OP_BITWISE_AND, a, b, os, sp);
  case OP_BITOR: return int_call2(c, TIR_OP_BITWISE_OR, a, b, os, sp);
  case OP_BITXOR: return int_call2(c, TIR_OP_BITWISE_XOR, a, b, os, sp);
  case OP_POW: {
    if (!match_types(c, &a, &b, os, sp)) return bad();
    if (!dt_is_float(a.e->dtype)) {
      char b1[DT_STR_MAX];
      diag_error(c->diag, sp, "'**' needs float operands, got '%s'", dts(a.e->dtype, b1));
      return bad();
    }
    TirExpr *args[2] = {a.e, b.e};
    return typed(at(tir_call(c->h, a.e->dtype, op_info(TIR_OP_POW), args, 2), sp));
  }
  default:
    diag_error(c->diag, sp, "operator '%s' is not supported in TIR", os);
    return bad();
  }
}

/* `a and b` / `a or b`. */
static TirVal logic(ElabCtx *c, AstOp op, TirVal a, TirVal b, Span sp) {
  if (!a.e || !b.e) return bad();
  if (a.lit && b.lit) {
    bool ta = lit_truthy(a.e);
    return op == OP_AND ? (ta ? b : a) : (ta ? a : b);
  }
  const char *what = op == OP_AND ? "operand of 'and'" : "operand of 'or'";
  TirExpr *x = as_bool(c, a, what), *y = as_bool(c, b, what);
  if (!x || !y) return bad();
  return typed(at(tir_binary(c->h, op == OP_AND ? TIR_AND : TIR_OR, x, y), sp));
}

static TirVal unary(ElabCtx *c, AstOp op, TirVal v, Span sp) {
  if (!v.e) return bad();
  char b[DT_STR_MAX];
  switch (op) {
  case OP_POS: return v;
  case OP_NEG:
    if (v.lit) {
      if (v.e->kind == TIR_FLOAT) return lit_float(c, -v.e->fval, sp);
      return lit_int(c, (int64_t)(0 - (uint64_t)v.e->ival), sp);
    }
    if (dt_is_bool(v.e->dtype) || dt_is_handle(v.e->dtype)) break;
    {
      DType et = dt_with_lanes(v.e->dtype, 1);
      TirExpr *zero = dt_is_float(et) ? tir_float(c->h, et, 0.0) : tir_int(c->h, et, 0);
      zero->span = sp;
      if (v.e->dtype.lanes > 1) zero = at(tir_broadcast(c->h, zero, v.e->dtype.lanes), sp);
      return typed(at(tir_binary(c->h, TIR_SUB, zero, v.e), sp));
    }
  case OP_INVERT:
    if (v.lit && v.e->kind == TIR_INT) return lit_int(c, ~v.e->ival, sp);
    if (!v.lit && dt_is_integer(v.e->dtype)) {
      TirExpr *args[1] = {v.e};
      return typed(at(tir_call(c->h, v.e->dtype, op_info(TIR_OP_BITWISE_NOT), args, 1), sp));
    }
    break;
  case OP_NOT:
    if (v.lit) return lit_bool(c, !lit_truthy(v.e), sp);
    {
      TirExpr *x = as_bool(c, v, "operand of 'not'");
      return x ? typed(at(tir_not(c->h, x), sp)) : bad();
    }
  default: break;
  }
  diag_error(c->diag, sp, "operator '%s' cannot be applied to a value of type '%s'", ast_op_str(op),
             dts(v.e->dtype, b));
  return bad();
}

/* ----------------------------------------------------------- loads */

static TirBuffer *buffer_of(ElabCtx *c, const Ast *n) {
  if (!n || n->kind != AST_NAME) return NULL;
  Sym *s = elab_lookup(c, n->name);
  return s && s->kind == SYM_BUFFER ? s->ptr : NULL;
}

TirExpr *elab_tir_int_expr(ElabCtx *c, const Ast *e, DType lit_dtype, const char *what) {
  TirVal v = elab_tir_val(c, e);
  if (!v.e) return NULL;
  char b[DT_STR_MAX];
  if (v.lit) {
    if (v.e->kind != TIR_INT || dt_is_bool(v.e->dtype)) {
      diag_error(c->diag, e->span, "%s must be an integer, got '%s'", what, dts(v.e->dtype, b));
      return NULL;
    }
    DType t = int_fits(lit_dtype, v.e->ival) ? lit_dtype : dt_int64;
    return at(tir_int(c->h, t, v.e->ival), e->span);
  }
  if (!dt_is_integer(v.e->dtype)) {
    diag_error(c->diag, e->span, "%s must be an integer, got '%s'", what, dts(v.e->dtype, b));
    return NULL;
  }
  return v.e;
}

/* `A[lo:hi:step]` as an index, as TVMScript's Buffer.__getitem__ reads it:
 * T.Ramp(lo, step, lanes) with lanes = (hi - lo + step - 1) // step, which
 * must simplify to a constant; one lane is the scalar index lo. */
static TirExpr *slice_index(ElabCtx *c, const Ast *sl, TirExpr *extent) {
  IrHeap *h = c->h;
  TirExpr *lo = sl->a ? elab_tir_int_expr(c, sl->a, dt_int32, "slice start") : tir_i32(h, 0);
  if (!lo) return NULL;
  TirExpr *hi = sl->b ? elab_tir_int_expr(c, sl->b, lo->dtype, "slice stop") : extent;
  TirExpr *step = sl->c ? elab_tir_int_expr(c, sl->c, lo->dtype, "slice step") : tir_int(h, lo->dtype, 1);
  if (!hi || !step) return NULL;
  DType t = lo->dtype.bits >= hi->dtype.bits ? lo->dtype : hi->dtype;
  lo = elab_tir_int_cast(h, lo, t);
  hi = elab_tir_int_cast(h, hi, t);
  step = elab_tir_int_cast(h, step, t);
  TirExpr *one = tir_int(h, t, 1);
  TirExpr *n = tir_binary(h, TIR_ADD, tir_binary(h, TIR_SUB, hi, lo), tir_binary(h, TIR_SUB, step, one));
  n = tir_binary(h, TIR_FLOORDIV, n, step);
  ArithCtx *ac = arith_new(h);
  TirExpr *lanes = arith_simplify(ac, n);
  arith_free(ac);
  int64_t k;
  if (!tir_is_const_int(lanes, &k) || k < 1 || k > 65536) {
    diag_error(c->diag, sl->span, "a slice used as an index must have a constant positive length");
    return NULL;
  }
  if (k == 1) return lo;
  return at(tir_ramp(h, lo, step, (int)k), sl->span);
}

static TirVal load(ElabCtx *c, const Ast *e) {
  const Ast *base = e->a;
  /* A.shape[i], A.strides[i] */
  bool is_shape = base->kind == AST_ATTR && base->name && !strcmp(base->name, "shape");
  if (is_shape || (base->kind == AST_ATTR && base->name && !strcmp(base->name, "strides"))) {
    TirBuffer *buf = buffer_of(c, base->a);
    if (buf) {
      int n = is_shape ? buf->ndim : buf->nstrides;
      if (e->b->kind != AST_INT || e->b->ival >= n) {
        diag_error(c->diag, e->b->span, "index into %s.%s must be a constant below %d",
                   buf->name, base->name, n);
        return bad();
      }
      return typed(is_shape ? buf->shape[e->b->ival] : buf->strides[e->b->ival]);
    }
  }
  if (base->kind != AST_NAME) {
    diag_error(c->diag, base->span, "only buffers can be indexed in TIR");
    return bad();
  }
  Sym *s = elab_lookup(c, base->name);
  if (!s) {
    elab_undefined(c, base);
    return bad();
  }
  if (s->kind != SYM_BUFFER) {
    if (s->kind == SYM_HANDLE)
      diag_error(c->diag, base->span,
                 "'%s' is a handle; bind it to a buffer with T.match_buffer before indexing it",
                 base->name);
    else
      diag_error(c->diag, base->span, "'%s' is not a buffer and cannot be indexed", base->name);
    return bad();
  }
  TirBuffer *buf = s->ptr;
  const Ast *const *items;
  int n = elab_subscript_items(c, e, buf, &items);
  if (n < 0) return bad();
  TirExpr **idx = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *idx);
  for (int i = 0; i < n; i++) {
    if (items[i]->kind == AST_SLICE) {
      idx[i] = slice_index(c, items[i], buf->shape[i]);
      if (!idx[i]) return bad();
      continue;
    }
    idx[i] = elab_tir_int_expr(c, items[i], dt_int32, "buffer index");
    if (!idx[i]) return bad();
  }
  return typed(at(tir_load(c->h, buf, idx, n), e->span));
}

/* ----------------------------------------------------------- T.* calls */

static int npos(const Ast *call) { return elab_num_posargs(call); }

static bool want_args(ElabCtx *c, const Ast *call, const char *name, int lo, int hi) {
  int n = npos(call);
  if (n >= lo && n <= hi) return true;
  if (lo == hi)
    diag_error(c->diag, call->span, "%s takes %d argument%s, got %d", name, lo, lo == 1 ? "" : "s", n);
  else if (hi >= 1000)
    diag_error(c->diag, call->span, "%s takes at least %d arguments, got %d", name, lo, n);
  else
    diag_error(c->diag, call->span, "%s takes %d to %d arguments, got %d", name, lo, hi, n);
  return false;
}

static TirVal arg_val(ElabCtx *c, const Ast *call, int i) {
  return elab_tir_val(c, elab_posarg(call, i));
}

/* Realizes a literal in its default type (int32/int64, float32, bool). */
static TirExpr *realize(TirVal v) { return v.e; }

/* T.float32("nan"), T.float64("inf"), T.float32("-inf"): a float literal
 * spelled as Python's float() reads it (TVM's printer writes the non-finite
 * values this way). */
static TirVal float_from_string(ElabCtx *c, const Ast *call, const Ast *a, const char *name, DType t) {
  if (!dt_is_float(t)) {
    diag_error(c->diag, a->span, "%s expects a number, got a string; only float types take \"inf\" or \"nan\"",
               name);
    return bad();
  }
  const char *str = a->str;
  while (*str == ' ') str++;
  char *end = NULL;
  double d = strtod(str, &end);
  while (end && *end == ' ') end++;
  if (end == str || !end || *end) {
    diag_error(c->diag, a->span, "%s(\"%s\"): not a number (expected e.g. \"inf\", \"-inf\", \"nan\")", name, a->str);
    return bad();
  }
  return typed(at(tir_float(c->h, t, d), call->span));
}

static TirVal dtype_ctor(ElabCtx *c, const Ast *call, const char *name, DType t) {
  static const char *const kw[] = {"is_size_var", NULL};
  if (!elab_check_kwargs(c, call, kw)) return bad();
  if (npos(call) == 0) {
    diag_error(c->diag, call->span,
               "%s() declares a size variable; write it as a statement, e.g. n = %s()", name, name);
    return bad();
  }
  if (!want_args(c, call, name, 1, 1)) return bad();
  const Ast *a = elab_posarg(call, 0);
  if (a->kind == AST_STR) return float_from_string(c, call, a, name, t);
  TirVal v = elab_tir_val(c, a);
  if (!v.e) return bad();
  char b[DT_STR_MAX];
  if (v.lit) {
    if (v.e->kind == TIR_FLOAT && !dt_is_float(t)) {
      diag_error(c->diag, a->span, "%s expects an integer value, got %g", name, v.e->fval);
      return bad();
    }
    if (v.e->kind == TIR_INT && (dt_is_integer(t) || dt_is_bool(t)) && !int_fits(t, v.e->ival)) {
      diag_error(c->diag, a->span, "value %lld does not fit in %s", (long long)v.e->ival, dts(t, b));
      return bad();
    }
    TirExpr *r = elab_tir_adopt(c, v, t);
    if (!r) {
      diag_error(c->diag, a->span, "%s cannot hold this value", name);
      return bad();
    }
    return typed(at(r, call->span));
  }
  return typed(cast_fold(c->h, t, v.e));
}

/* T.min_value / T.max_value: the extremes of a dtype as typed literals. */
static TirVal dtype_limit(ElabCtx *c, const Ast *call, bool want_max) {
  if (!want_args(c, call, want_max ? "T.max_value" : "T.min_value", 1, 1)) return bad();
  DType t;
  if (!elab_dtype_arg(c, elab_posarg(call, 0), &t)) return bad();
  IrHeap *h = c->h;
  TirExpr *r = NULL;
  if (t.code == DT_FLOAT || t.code == DT_BFLOAT) {
    double m = t.bits == 64 ? DBL_MAX : t.bits == 32 ? (double)FLT_MAX : t.code == DT_BFLOAT ? 3.38953139e38 : 65504.0;
    r = tir_float(h, t, want_max ? m : -m);
  } else if (t.code == DT_INT) {
    int64_t hi = t.bits >= 64 ? INT64_MAX : ((int64_t)1 << (t.bits - 1)) - 1;
    r = tir_int(h, t, want_max ? hi : -hi - 1);
  } else if (t.code == DT_UINT) {
    r = tir_int(h, t, want_max ? (t.bits >= 64 ? -1 : (int64_t)(((uint64_t)1 << t.bits) - 1)) : 0);
  } else if (t.code == DT_BOOL) {
    r = tir_bool(h, want_max);
  } else {
    char b[DT_STR_MAX];
    diag_error(c->diag, call->span, "dtype '%s' has no limits", dts(t, b));
    return bad();
  }
  return typed(at(r, call->span));
}

static TirVal call_extern(ElabCtx *c, const Ast *call, const TirOpInfo *op) {
  static const char *const kw[] = {"dtype", NULL};
  if (!elab_check_kwargs(c, call, kw)) return bad();
  const Ast *dk = elab_kwarg(call, "dtype");
  int first = 0;
  DType t = dt_int32;
  if (dk) {
    if (!elab_dtype_arg(c, dk, &t)) return bad();
  } else {
    if (!want_args(c, call, op == op_info(TIR_OP_CALL_EXTERN) ? "T.call_extern" : "T.call_pure_extern",
                   2, 1000))
      return bad();
    if (!elab_dtype_arg(c, elab_posarg(call, 0), &t)) return bad();
    first = 1;
  }
  const Ast *fn = elab_posarg(call, first);
  if (!fn || fn->kind != AST_STR) {
    diag_error(c->diag, fn ? fn->span : call->span, "T.%s needs the function name as a string",
               op->name);
    return bad();
  }
  int n = npos(call) - first;
  TirExpr **args = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *args);
  args[0] = at(tir_str(c->h, fn->str), fn->span);
  for (int i = 1; i < n; i++) {
    TirVal v = arg_val(c, call, first + i);
    if (!v.e) return bad();
    args[i] = realize(v);
  }
  return typed(at(tir_call(c->h, t, op, args, n), call->span));
}

/* Math and bit intrinsics of tir_ops.def. */
static TirVal intrinsic(ElabCtx *c, const Ast *call, const TirOpInfo *op, const char *cn) {
  static const char *const kw[] = {"dtype", NULL};
  if (!elab_check_kwargs(c, call, kw)) return bad();
  if (!want_args(c, call, cn, op->nargs, op->nargs)) return bad();
  DType forced = dt_void;
  const Ast *dk = elab_kwarg(call, "dtype");
  if (dk && !elab_dtype_arg(c, dk, &forced)) return bad();
  TirVal a = arg_val(c, call, 0);
  if (!a.e) return bad();
  TirVal b = {NULL, false};
  if (op->nargs == 2) {
    b = arg_val(c, call, 1);
    if (!b.e) return bad();
    if (a.lit && b.lit) a.lit = false; /* both literals: keep their default types */
    if (!match_types(c, &a, &b, cn, call->span)) return bad();
  }
  char buf[DT_STR_MAX];
  DType t = a.e->dtype;
  if (op->kind == TIR_OPK_PURE) {
    if (a.lit && a.e->kind == TIR_FLOAT && !dt_is_void(forced))
      a.e = elab_tir_adopt(c, a, forced);
    if (!dt_is_float(dt_element(a.e->dtype))) {
      diag_error(c->diag, elab_posarg(call, 0)->span, "%s expects a float argument, got '%s'", cn,
                 dts(a.e->dtype, buf));
      return bad();
    }
    t = a.e->dtype;
    if (op->id == TIR_OP_ISNAN || op->id == TIR_OP_ISINF || op->id == TIR_OP_ISFINITE)
      t = dt_with_lanes(dt_bool, t.lanes);
  } else if (op->kind == TIR_OPK_INT_BIT) {
    if (!dt_is_integer(dt_element(a.e->dtype)) && !dt_is_bool(dt_element(a.e->dtype))) {
      diag_error(c->diag, elab_posarg(call, 0)->span, "%s expects an integer argument, got '%s'",
                 cn, dts(a.e->dtype, buf));
      return bad();
    }
  }
  if (!dt_is_void(forced)) t = forced;
  TirExpr *args[2] = {a.e, b.e};
  return typed(at(tir_call(c->h, t, op, args, op->nargs), call->span));
}

/* T.floordiv & co. and T.max/T.min: two operands matched like an operator. */
static TirVal binary_builtin(ElabCtx *c, const Ast *call, const char *cn, TirExprKind kind) {
  if (!want_args(c, call, cn, 2, 2)) return bad();
  TirVal a = arg_val(c, call, 0), b = arg_val(c, call, 1);
  if (!a.e || !b.e) return bad();
  if (a.lit && b.lit) a.lit = false;
  if ((kind == TIR_DIV || kind == TIR_MOD || kind == TIR_FLOORDIV || kind == TIR_FLOORMOD) &&
      ((b.e->kind == TIR_INT && b.e->ival == 0) || (b.e->kind == TIR_FLOAT && b.e->fval == 0))) {
    diag_error(c->diag, call->span, "division by zero");
    return bad();
  }
  return arith(c, kind, a, b, cn, call->span);
}

static TirVal ceildiv(ElabCtx *c, const Ast *call) {
  if (!want_args(c, call, "T.ceildiv", 2, 2)) return bad();
  TirVal a = arg_val(c, call, 0), b = arg_val(c, call, 1);
  if (!a.e || !b.e) return bad();
  if (a.lit && b.lit && a.e->kind == TIR_INT && b.e->kind == TIR_INT) {
    if (b.e->ival == 0) {
      diag_error(c->diag, call->span, "division by zero");
      return bad();
    }
    return typed(at(tir_int(c->h, a.e->dtype, -arith_floordiv64(-a.e->ival, b.e->ival)), call->span));
  }
  if (a.lit && b.lit) a.lit = false;
  if (!match_types(c, &a, &b, "T.ceildiv", call->span)) return bad();
  if (!dt_is_integer(a.e->dtype)) {
    char buf[DT_STR_MAX];
    diag_error(c->diag, call->span, "T.ceildiv expects integers, got '%s'", dts(a.e->dtype, buf));
    return bad();
  }
  IrHeap *h = c->h;
  TirExpr *sum = at(tir_binary(h, TIR_ADD, a.e, b.e), call->span);
  TirExpr *num = at(tir_binary(h, TIR_SUB, sum, at(tir_int(h, a.e->dtype, 1), call->span)), call->span);
  return typed(at(tir_binary(h, TIR_FLOORDIV, num, b.e), call->span));
}

static TirVal abs_builtin(ElabCtx *c, const Ast *call) {
  if (!want_args(c, call, "T.abs", 1, 1)) return bad();
  TirVal v = arg_val(c, call, 0);
  if (!v.e) return bad();
  if (v.lit) {
    if (v.e->kind == TIR_FLOAT) return lit_float(c, fabs(v.e->fval), call->span);
    return lit_int(c, v.e->ival < 0 ? -v.e->ival : v.e->ival, call->span);
  }
  IrHeap *h = c->h;
  DType t = v.e->dtype;
  if (dt_is_float(t)) {
    TirExpr *args[1] = {v.e};
    return typed(at(tir_call(h, t, op_info(TIR_OP_FABS), args, 1), call->span));
  }
  if (dt_is_uint(t)) return v;
  if (dt_is_int(t)) {
    TirExpr *zero = at(tir_int(h, t, 0), call->span);
    TirExpr *ge = at(tir_binary(h, TIR_GE, v.e, zero), call->span);
    TirExpr *neg = at(tir_binary(h, TIR_SUB, at(tir_int(h, t, 0), call->span), v.e), call->span);
    return typed(at(tir_select(h, ge, v.e, neg), call->span));
  }
  char b[DT_STR_MAX];
  diag_error(c->diag, call->span, "T.abs cannot be applied to '%s'", dts(t, b));
  return bad();
}

/* `T.Let(body, where={x: value})`: x (a declared variable, `x = T.int32()`)
 * bound to value in body. */
static TirVal let_builtin(ElabCtx *c, const Ast *call) {
  static const char *const kw[] = {"where", NULL};
  if (!elab_check_kwargs(c, call, kw)) return bad();
  const Ast *w = elab_kwarg(call, "where");
  if (!want_args(c, call, "T.Let", 1, 1)) return bad();
  if (!w || w->kind != AST_DICT || w->list.len != 1) {
    diag_error(c->diag, call->span, "T.Let takes (body, where={var: value}) with one binding");
    return bad();
  }
  TirVal k = elab_tir_val(c, w->list.items[0]);
  if (!k.e) return bad();
  if (k.e->kind != TIR_VAR) {
    diag_error(c->diag, w->list.items[0]->span, "T.Let binds a variable, e.g. x = T.int32() before it");
    return bad();
  }
  TirExpr *value = elab_tir_adopt(c, elab_tir_val(c, w->list2.items[0]), k.e->dtype);
  TirExpr *body = realize(arg_val(c, call, 0));
  if (!value || !body) {
    if (body && !value) diag_error(c->diag, w->list2.items[0]->span, "T.Let: the value's type differs from the variable's");
    return bad();
  }
  return typed(at(tir_let(c->h, k.e->var, value, body), call->span));
}

/* T.if_then_else(c, a, b[, dtype=]) and T.Select(c, a, b). */
static TirVal select_builtin(ElabCtx *c, const Ast *call, const char *cn, bool lazy) {
  static const char *const kw[] = {"dtype", NULL};
  if (!elab_check_kwargs(c, call, kw)) return bad();
  if (!want_args(c, call, cn, 3, 3)) return bad();
  TirExpr *cond = as_bool(c, arg_val(c, call, 0), "condition");
  TirVal a = arg_val(c, call, 1), b = arg_val(c, call, 2);
  if (!cond || !a.e || !b.e) return bad();
  const Ast *dk = elab_kwarg(call, "dtype");
  if (dk) {
    DType t;
    if (!elab_dtype_arg(c, dk, &t)) return bad();
    if (a.lit) {
      TirExpr *x = elab_tir_adopt(c, a, t);
      if (x) a = typed(x);
    }
    if (b.lit) {
      TirExpr *x = elab_tir_adopt(c, b, t);
      if (x) b = typed(x);
    }
  }
  if (a.lit && b.lit) a.lit = false;
  if (!match_types(c, &a, &b, cn, call->span)) return bad();
  if (!lazy) return typed(at(tir_select(c->h, cond, a.e, b.e), call->span));
  TirExpr *args[3] = {cond, a.e, b.e};
  return typed(at(tir_call(c->h, a.e->dtype, op_info(TIR_OP_IF_THEN_ELSE), args, 3), call->span));
}

static TirVal bool_call1(ElabCtx *c, const Ast *call, const char *cn, TirOpId id) {
  static const char *const kw[] = {"dtype", NULL};
  if (!elab_check_kwargs(c, call, kw)) return bad();
  if (!want_args(c, call, cn, 1, 1)) return bad();
  TirVal v = arg_val(c, call, 0);
  if (v.lit && v.e && dt_is_bool(v.e->dtype)) v.lit = false;
  TirExpr *x = as_bool(c, v, "argument");
  if (!x) return bad();
  TirExpr *args[1] = {x};
  return typed(at(tir_call(c->h, dt_bool, op_info(id), args, 1), call->span));
}

/* Lane count of T.Ramp / T.Broadcast: an integer literal >= 1. */
static int lanes_arg(ElabCtx *c, const Ast *e, const char *cn) {
  if (e && e->kind == AST_INT && e->ival >= 1 && e->ival <= 65536) return (int)e->ival;
  diag_error(c->diag, e ? e->span : span_none, "%s: lanes must be a positive integer literal", cn);
  return 0;
}

/* `T.Ramp(base, stride, lanes)` / `T.Broadcast(value, lanes)`: the vector
 * expressions VectorizeLoop produces. */
static TirVal vector_builtin(ElabCtx *c, const Ast *call, const char *cn, bool ramp) {
  if (!elab_check_kwargs(c, call, NULL)) return bad();
  if (!want_args(c, call, cn, ramp ? 3 : 2, ramp ? 3 : 2)) return bad();
  int lanes = lanes_arg(c, elab_posarg(call, ramp ? 2 : 1), cn);
  if (!lanes) return bad();
  TirVal a = arg_val(c, call, 0);
  if (!a.e) return bad();
  if (a.e->dtype.lanes != 1) {
    diag_error(c->diag, elab_posarg(call, 0)->span, "%s takes scalar operands", cn);
    return bad();
  }
  if (!ramp) return typed(at(tir_broadcast(c->h, realize(a), lanes), call->span));
  TirVal b = arg_val(c, call, 1);
  if (!b.e) return bad();
  int nerr = c->diag->nerr;
  if (a.lit && !b.lit) a.e = elab_tir_adopt(c, a, b.e->dtype);
  else if (b.lit) b.e = elab_tir_adopt(c, b, a.e->dtype);
  if (!a.e || !b.e || !dt_is_integer(a.e->dtype) || !dt_eq(a.e->dtype, b.e->dtype)) {
    if (c->diag->nerr == nerr)
      diag_error(c->diag, call->span, "%s: base and stride must be integers of one type", cn);
    return bad();
  }
  return typed(at(tir_ramp(c->h, a.e, b.e, lanes), call->span));
}

static TirVal call_expr(ElabCtx *c, const Ast *e) {
  if (elab_tir_is_subroutine_call(c, e)) {
    TirExpr *r = elab_tir_subroutine_call(c, e);
    return r ? typed(r) : bad();
  }
  const char *cn = elab_canonical_name(c, e->a);
  if (!cn) {
    if (e->a->kind == AST_NAME) {
      Sym *s = elab_lookup(c, e->a->name);
      char tn[128];
      snprintf(tn, sizeof tn, "T.%s", e->a->name);
      if (!s && builtin_known(tn)) {
        diag_error(c->diag, e->a->span, "'%s' cannot be called in TIR; did you mean '%s'?",
                   e->a->name, tn);
      } else if (!s) {
        elab_undefined(c, e->a);
      } else if (s->kind == SYM_GLOBAL_FUNC) {
        diag_error(c->diag, e->a->span, "a prim_func calls another function of its module as "
                   "Module.%s(...) inside the @I.ir_module class", e->a->name);
      } else {
        diag_error(c->diag, e->a->span, "'%s' is not callable", e->a->name);
      }
    } else if (e->a->kind == AST_ATTR && e->a->name && !strcmp(e->a->name, "access_ptr") && buffer_of(c, e->a->a)) {
      TirExpr *r = elab_tir_access_ptr(c, e, buffer_of(c, e->a->a));
      return r ? typed(r) : bad();
    } else {
      diag_error(c->diag, e->a->span, "only T.* functions can be called in TIR");
    }
    return bad();
  }
  if (!strncmp(cn, "T.", 2) && elab_tir_opaque_name(cn + 2) && !tir_op_lookup(cn + 2)) {
    TirExpr *r = elab_tir_opaque_call(c, e, cn + 2);
    return r ? typed(r) : bad();
  }
  if (!builtin_known(cn)) {
    const char *sug = builtin_suggest(cn);
    if (sug) diag_error(c->diag, e->a->span, "unknown builtin '%s'; did you mean '%s'?", cn, sug);
    else diag_error(c->diag, e->a->span, "unknown builtin '%s'", cn);
    return bad();
  }
  if (strncmp(cn, "T.", 2) != 0) {
    diag_error(c->diag, e->a->span, "%s cannot be used in a TIR expression", cn);
    return bad();
  }
  if (!strcmp(cn, "T.Let")) return let_builtin(c, e);
  static const char *const any_kw[] = {"dtype", "is_size_var", NULL};
  if (!elab_check_kwargs(c, e, any_kw)) return bad();
  const char *nm = cn + 2;
  DType t;
  if (dt_parse(nm, &t) && !dt_is_handle(t) && !dt_is_void(t) && t.lanes == 1)
    return dtype_ctor(c, e, cn, t);
  if (!strcmp(nm, "Cast") || !strcmp(nm, "cast")) {
    const Ast *dk = nm[0] == 'c' ? elab_kwarg(e, "dtype") : NULL; /* T.cast(x, dtype=...) */
    if (!want_args(c, e, cn, dk ? 1 : 2, dk ? 1 : 2)) return bad();
    bool dtype_first = nm[0] == 'C';
    if (!elab_dtype_arg(c, dk ? dk : elab_posarg(e, dtype_first ? 0 : 1), &t)) return bad();
    TirVal v = arg_val(c, e, dtype_first ? 1 : 0);
    if (!v.e) return bad();
    if (dtype_first) return typed(at(tir_cast(c->h, t, realize(v)), e->span));
    return typed(cast_fold(c->h, t, realize(v)));
  }
  if (!strcmp(nm, "max")) return binary_builtin(c, e, cn, TIR_MAX);
  if (!strcmp(nm, "min")) return binary_builtin(c, e, cn, TIR_MIN);
  if (!strcmp(nm, "floordiv")) return binary_builtin(c, e, cn, TIR_FLOORDIV);
  if (!strcmp(nm, "floormod")) return binary_builtin(c, e, cn, TIR_FLOORMOD);
  if (!strcmp(nm, "truncdiv")) return binary_builtin(c, e, cn, TIR_DIV);
  if (!strcmp(nm, "truncmod")) return binary_builtin(c, e, cn, TIR_MOD);
  if (!strcmp(nm, "ceildiv")) return ceildiv(c, e);
  if (!strcmp(nm, "abs")) return abs_builtin(c, e);
  if (!strcmp(nm, "min_value")) return dtype_limit(c, e, false);
  if (!strcmp(nm, "max_value")) return dtype_limit(c, e, true);
  if (!strcmp(nm, "if_then_else")) return select_builtin(c, e, cn, true);
  if (!strcmp(nm, "Select")) return select_builtin(c, e, cn, false);
  if (!strcmp(nm, "likely")) return bool_call1(c, e, cn, TIR_OP_LIKELY);
  if (!strcmp(nm, "Ramp") || !strcmp(nm, "ramp")) return vector_builtin(c, e, cn, true);
  if (!strcmp(nm, "Broadcast") || !strcmp(nm, "broadcast")) return vector_builtin(c, e, cn, false);
  if (!strcmp(nm, "assume")) return bool_call1(c, e, cn, TIR_OP_ASSUME);
  if (!strcmp(nm, "call_extern")) return call_extern(c, e, op_info(TIR_OP_CALL_EXTERN));
  if (!strcmp(nm, "call_pure_extern")) return call_extern(c, e, op_info(TIR_OP_CALL_PURE_EXTERN));
  if (!strcmp(nm, "reinterpret")) {
    /* T.reinterpret("float32", x) or TVM's T.reinterpret(x, dtype="float32") */
    const Ast *dk = elab_kwarg(e, "dtype");
    int nv = dk ? 0 : 1;
    if (dk ? !want_args(c, e, cn, 1, 1) : !want_args(c, e, cn, 2, 2)) return bad();
    if (!elab_dtype_arg(c, dk ? dk : elab_posarg(e, 0), &t)) return bad();
    TirVal v = arg_val(c, e, nv);
    if (!v.e) return bad();
    TirExpr *args[1] = {realize(v)};
    return typed(at(tir_call(c->h, t, op_info(TIR_OP_REINTERPRET), args, 1), e->span));
  }
  if (!strcmp(nm, "ret")) {
    if (!want_args(c, e, cn, 1, 1)) return bad();
    TirVal v = arg_val(c, e, 0);
    if (!v.e) return bad();
    TirExpr *args[1] = {realize(v)};
    return typed(at(tir_call(c->h, v.e->dtype, op_info(TIR_OP_RET), args, 1), e->span));
  }
  const TirOpInfo *op = tir_op_lookup(nm);
  if (op && op->kind != TIR_OPK_SPECIAL) return intrinsic(c, e, op, cn);
  if (!strcmp(nm, "evaluate") || !strcmp(nm, "reads") || !strcmp(nm, "writes") ||
      !strcmp(nm, "where") || !strcmp(nm, "func_attr") || !strcmp(nm, "block_attr") ||
      !strcmp(nm, "init") || !strncmp(nm, "axis.", 5) || !strcmp(nm, "alloc_buffer") ||
      !strcmp(nm, "match_buffer") || !strcmp(nm, "grid") || !strcmp(nm, "serial"))
    diag_error(c->diag, e->a->span, "%s is a statement, not an expression", cn);
  else
    diag_error(c->diag, e->a->span, "%s is not supported in TIR expressions", cn);
  return bad();
}

/* ----------------------------------------------------------- entry */

static TirVal name_val(ElabCtx *c, const Ast *e) {
  Sym *s = elab_lookup(c, e->name);
  if (!s) {
    elab_undefined(c, e);
    return bad();
  }
  switch (s->kind) {
  case SYM_TIR_VAR:
  case SYM_HANDLE: return typed(at(tir_var_ref(c->h, s->ptr), e->span));
  case SYM_BUFFER: {
    TirBuffer *b = s->ptr;
    if (b->ndim == 0)
      diag_error(c->diag, e->span, "buffer '%s' used as a value; index it, e.g. %s[()]", e->name,
                 e->name);
    else
      diag_error(c->diag, e->span, "buffer '%s' used as a value; index it, e.g. %s[i]", e->name,
                 e->name);
    return bad();
  }
  default:
    diag_error(c->diag, e->span, "'%s' is not a TIR value", e->name);
    return bad();
  }
}

static TirVal attr_val(ElabCtx *c, const Ast *e) {
  TirBuffer *buf = buffer_of(c, e->a);
  if (buf) {
    if (!strcmp(e->name, "data")) return typed(at(tir_var_ref(c->h, buf->data), e->span));
    diag_error(c->diag, e->span,
               "attribute '%s' of buffer '%s' is not supported here; use %s.shape[i] or %s.data",
               e->name, buf->name, buf->name, buf->name);
    return bad();
  }
  const char *cn = elab_canonical_name(c, e);
  if (cn) {
    if (!builtin_known(cn)) {
      const char *sug = builtin_suggest(cn);
      if (sug) diag_error(c->diag, e->span, "unknown builtin '%s'; did you mean '%s'?", cn, sug);
      else diag_error(c->diag, e->span, "unknown builtin '%s'", cn);
    } else {
      diag_error(c->diag, e->span, "%s is not a value; call it, e.g. %s(...)", cn, cn);
    }
    return bad();
  }
  if (e->a->kind == AST_NAME && !elab_lookup(c, e->a->name)) {
    elab_undefined(c, e->a);
    return bad();
  }
  diag_error(c->diag, e->span, "attribute '%s' is not supported in TIR", e->name);
  return bad();
}

static TirVal compare(ElabCtx *c, const Ast *e) {
  TirVal left = elab_tir_val(c, e->a);
  if (!left.e) return bad();
  TirVal acc = {NULL, false};
  for (int i = 0; i < e->list.len; i++) {
    TirVal right = elab_tir_val(c, e->list.items[i]);
    if (!right.e) return bad();
    AstOp op = e->ops[i];
    if (op == OP_IN || op == OP_NOT_IN || op == OP_IS || op == OP_IS_NOT) {
      diag_error(c->diag, e->span, "operator '%s' is not supported in TIR", ast_op_str(op));
      return bad();
    }
    Span sp = span_join(left.e->span, right.e->span);
    TirVal one = binop(c, op, left, right, i == 0 && e->list.len == 1 ? e->span : sp);
    if (!one.e) return bad();
    acc = acc.e ? logic(c, OP_AND, acc, one, e->span) : one;
    if (!acc.e) return bad();
    left = right;
  }
  return acc;
}

TirVal elab_tir_val(ElabCtx *c, const Ast *e) {
  if (!e) return bad();
  switch (e->kind) {
  case AST_INT:
    if (e->big) {
      diag_error(c->diag, e->span, "integer literal is too large");
      return bad();
    }
    return lit_int(c, e->ival, e->span);
  case AST_FLOAT: return lit_float(c, e->fval, e->span);
  case AST_TRUE: return lit_bool(c, true, e->span);
  case AST_FALSE: return lit_bool(c, false, e->span);
  case AST_STR: return typed(at(tir_str(c->h, e->str), e->span));
  case AST_NAME: return name_val(c, e);
  case AST_ATTR: return attr_val(c, e);
  case AST_SUBSCRIPT: return load(c, e);
  case AST_CALL: return call_expr(c, e);
  case AST_BINOP: {
    TirVal a = elab_tir_val(c, e->a);
    TirVal b = elab_tir_val(c, e->b);
    return binop(c, e->op, a, b, e->span);
  }
  case AST_UNARY: return unary(c, e->op, elab_tir_val(c, e->a), e->span);
  case AST_BOOLOP: {
    TirVal acc = elab_tir_val(c, e->list.items[0]);
    for (int i = 1; i < e->list.len && acc.e; i++)
      acc = logic(c, e->op, acc, elab_tir_val(c, e->list.items[i]), e->span);
    return acc;
  }
  case AST_COMPARE: return compare(c, e);
  case AST_IFEXP: { /* `a if c else b` is T.if_then_else(c, a, b), as TVMScript parses it */
    TirExpr *cond = as_bool(c, elab_tir_val(c, e->a), "condition");
    TirVal a = elab_tir_val(c, e->b), b = elab_tir_val(c, e->c);
    if (!cond || !a.e || !b.e) return bad();
    if (a.lit && b.lit) a.lit = false;
    if (!match_types(c, &a, &b, "if-else", e->span)) return bad();
    TirExpr *args[3] = {cond, a.e, b.e};
    return typed(at(tir_call(c->h, a.e->dtype, op_info(TIR_OP_IF_THEN_ELSE), args, 3), e->span));
  }
  case AST_NONE:
    diag_error(c->diag, e->span, "None is not a TIR value");
    return bad();
  case AST_ERROR: return bad();
  default:
    diag_error(c->diag, e->span, "this %s is not a TIR expression", ast_kind_name(e->kind));
    return bad();
  }
}

TirExpr *elab_tir_expr(ElabCtx *c, const Ast *e) { return realize(elab_tir_val(c, e)); }

TirExpr **elab_shape(ElabCtx *c, const Ast *e, int *ndim, DType index_dtype) {
  *ndim = 0;
  int n = 1;
  const Ast *const *items = &e;
  if (e->kind == AST_TUPLE || e->kind == AST_LIST) {
    n = e->list.len;
    items = (const Ast *const *)e->list.items;
  }
  TirExpr **out = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *out);
  for (int i = 0; i < n; i++) {
    const Ast *d = items[i];
    if (d->kind == AST_STR) {
      Sym *s = elab_lookup(c, d->str);
      if (!s || s->kind != SYM_TIR_VAR) {
        diag_error(c->diag, d->span, "undefined size variable '%s'", d->str);
        return NULL;
      }
      out[i] = at(tir_var_ref(c->h, s->ptr), d->span);
      continue;
    }
    out[i] = elab_tir_int_expr(c, d, index_dtype, "shape dimension");
    if (!out[i]) return NULL;
  }
  *ndim = n;
  return out;
}

IrValue *elab_tir_attr_value(ElabCtx *c, const Ast *e) {
  IrHeap *h = c->h;
  switch (e->kind) {
  case AST_TRUE: return irv_bool(h, true);
  case AST_FALSE: return irv_bool(h, false);
  case AST_NONE: return irv_none(h);
  case AST_INT: return irv_int(h, e->ival);
  case AST_FLOAT: return irv_float(h, e->fval);
  case AST_STR: return irv_str(h, e->str);
  case AST_UNARY:
    if (e->op == OP_NEG && e->a->kind == AST_INT) return irv_int(h, -e->a->ival);
    if (e->op == OP_NEG && e->a->kind == AST_FLOAT) return irv_float(h, -e->a->fval);
    break;
  case AST_LIST:
  case AST_TUPLE: {
    IrValue **items = arena_alloc(&c->scratch, (size_t)(e->list.len + 1) * sizeof *items);
    for (int i = 0; i < e->list.len; i++) {
      items[i] = elab_tir_attr_value(c, e->list.items[i]);
      if (!items[i]) return NULL;
    }
    return irv_array(h, items, e->list.len);
  }
  case AST_DICT: {
    int n = e->list.len;
    const char **keys = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *keys);
    IrValue **vals = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *vals);
    for (int i = 0; i < n; i++) {
      const Ast *k = e->list.items[i];
      if (k->kind != AST_STR) {
        diag_error(c->diag, k->span, "attribute keys must be strings");
        return NULL;
      }
      keys[i] = k->str;
      vals[i] = elab_tir_attr_value(c, e->list2.items[i]);
      if (!vals[i]) return NULL;
    }
    return irv_dict(h, keys, vals, n);
  }
  case AST_CALL: {
    /* the printer writes boolean attrs as T.bool(True), as TVM does */
    const char *cn = elab_canonical_name(c, e->a);
    const Ast *a0 = elab_posarg(e, 0);
    if (cn && !strcmp(cn, "T.bool") && e->list.len == 1 && a0 &&
        (a0->kind == AST_TRUE || a0->kind == AST_FALSE))
      return irv_bool(h, a0->kind == AST_TRUE);
    if (cn && (!strcmp(cn, "T.target") || !strcmp(cn, "tvm.target.Target"))) {
      int nerr = c->diag->nerr;
      TirExpr *t = elab_tir_target_value(c, e);
      if (t) return irv_expr(h, t);
      if (c->diag->nerr == nerr)
        diag_error(c->diag, e->span, "a target is written T.target(\"kind\", host=\"kind\") here");
      return NULL;
    }
    break;
  }
  case AST_NAME: { /* a buffer named in an annotation ("layout_free_placeholders": [C]) */
    Sym *s = elab_lookup(c, e->name);
    if (s && s->kind == SYM_BUFFER) return irv_buffer(h, s->ptr);
    break;
  }
  default: break;
  }
  TirExpr *x = elab_tir_expr(c, e);
  return x ? irv_expr(h, x) : NULL;
}
