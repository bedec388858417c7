/* eval_int.c - evaluating an integer expression whose variables have known
 * values (shape expressions when allocating outputs, loop extents when counting
 * FLOPs).  The one evaluator behind both; division follows TIR's semantics. */
#include "ir/arith.h"

bool arith_eval_int(const TirExpr *e, ArithVarLookup lookup, void *ctx, int64_t *out) {
  int64_t a, b;
  switch (e->kind) {
    case TIR_INT: *out = e->ival; return true;
    case TIR_VAR: return lookup && lookup(ctx, e->var, out);
    case TIR_CAST: return arith_eval_int(e->un.a, lookup, ctx, out);
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_FLOORDIV: case TIR_FLOORMOD:
    case TIR_DIV: case TIR_MOD: case TIR_MIN: case TIR_MAX:
      if (!arith_eval_int(e->bin.a, lookup, ctx, &a) || !arith_eval_int(e->bin.b, lookup, ctx, &b))
        return false;
      switch (e->kind) {
        case TIR_ADD: return !__builtin_add_overflow(a, b, out);
        case TIR_SUB: return !__builtin_sub_overflow(a, b, out);
        case TIR_MUL: return !__builtin_mul_overflow(a, b, out);
        case TIR_MIN: *out = a < b ? a : b; return true;
        case TIR_MAX: *out = a > b ? a : b; return true;
        default:
          if (b == 0 || (a == INT64_MIN && b == -1)) return false;
          if (e->kind == TIR_DIV) *out = a / b;           /* truncated (T.truncdiv) */
          else if (e->kind == TIR_MOD) *out = a % b;      /* truncated (T.truncmod) */
          else if (e->kind == TIR_FLOORDIV) *out = arith_floordiv64(a, b);
          else *out = arith_floormod64(a, b);
          return true;
      }
    default: return false;
  }
}
