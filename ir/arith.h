/* arith.h - the arithmetic analyzer: constant folding, canonical simplification,
 * interval bounds (constant and symbolic), proofs, affine decomposition and
 * iterator-map (quasi-affine bijection) detection over loop-IR expressions.
 *
 * Every lowering pass and schedule legality check asks these questions.  An
 * ArithCtx holds what is known about variables (loop ranges, let values,
 * assumed facts) in nested scopes; new expressions are allocated in the heap
 * given to arith_new.
 *
 * Semantics and assumptions:
 *  - Constant folding is exact: integers wrap to their dtype's width (two's
 *    complement), `//` and `%` follow Python (floor), T.truncdiv/T.truncmod
 *    follow C, float results are rounded to the dtype's format, and division
 *    by zero is never folded.
 *  - Like TVM's analyzer, the rewrite rules for `//`, `%`, min/max and
 *    comparisons reason about the mathematical value of integer index
 *    expressions and assume they do not overflow their dtype.  Add/Sub/Mul
 *    combination is exact modular arithmetic.  Unsigned expressions get only
 *    the exact rules (combination and folding).
 *  - Floats only get constant folding and the identities that are exact in
 *    IEEE arithmetic (x * 1.0, x / 1.0, x - 0.0); never x + 0.0.
 *
 * Canonical form of an integer expression (what arith_simplify prints):
 *  a sum of terms coef * monomial plus a constant.  A monomial is a product of
 *  atoms (variables, or expressions the sum cannot look into: `x // 16`,
 *  `T.min(a, b)`, loads...).  Atoms are ordered by their leading variable:
 *  variables bound in the context (arith_bind_range) in binding order -
 *  outer loops first -, then unbound variables by name (ties: first seen).
 *  A plain variable precedes an atom over the same variable (`i` before
 *  `i // 4`); a higher power precedes a lower one (`x * x + x`).  Terms with
 *  a positive coefficient are printed first, then negative ones subtracted,
 *  then the constant: `i * 4 + j - k * 2 + 3`, `16 - x`.  A comparison is
 *  printed `positive terms OP negated negative terms`, the constant on the
 *  side where it is positive, coefficients divided by their gcd:
 *  `i * 4 < 16` -> `i < 4`, `x + 1 <= y` stays, `a - b < 0` -> `a < b`. */
#ifndef TVS_IR_ARITH_H
#define TVS_IR_ARITH_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/tir.h"

typedef struct ArithCtx ArithCtx;

/* ------------------------------------------------------------- context */

/* A new analyzer allocating its results in h (the caller keeps h alive). */
ArithCtx *arith_new(IrHeap *h);
void arith_free(ArithCtx *ctx);
/* The heap results are allocated in. */
IrHeap *arith_heap(const ArithCtx *ctx);

/* var ranges over [min, min + extent) (a loop var or block iter; constant or
 * symbolic).  A later binding of the same var hides an earlier one. */
void arith_bind_range(ArithCtx *ctx, const TirVar *var, TirExpr *min, TirExpr *extent);
/* var == value (a let): the simplifier substitutes value for var. */
void arith_bind_value(ArithCtx *ctx, const TirVar *var, TirExpr *value);
/* Records a fact (`n >= 1`, `i * 4 + j < n`, conjunctions of those).  Facts
 * on one variable (`x >= 0`, `x < 16`, `x == 3`) narrow its range; other
 * linear facts are used when a query has the same linear part. */
void arith_assume(ArithCtx *ctx, const TirExpr *cond);
/* Scopes: bindings and facts made after a push are dropped by the matching
 * pop (passes walking into loops push, bind, ..., pop). */
void arith_push(ArithCtx *ctx);
void arith_pop(ArithCtx *ctx);

/* ------------------------------------------------------ constant folding */

/* Folds `a OP b` when both are IntImm (same dtype) or FloatImm; kind is any
 * binary kind (Add..Or, Min, Max, comparisons).  NULL when not foldable
 * (non-constant operands, division by zero, mismatched dtypes). */
TirExpr *arith_const_fold(IrHeap *h, TirExprKind kind, const TirExpr *a, const TirExpr *b);
/* Folds T.Cast(t, a) for a constant a (saturating float->int, like the
 * interpreter); NULL when a is not a constant. */
TirExpr *arith_const_fold_cast(IrHeap *h, DType t, const TirExpr *a);
/* v wrapped to the width of integer dtype t (sign-extended for int,
 * zero-extended for uint, 0/1 for bool): how IntImm values are stored. */
int64_t arith_wrap_int(DType t, uint64_t v);

/* ------------------------------------------------------------ simplify */

/* The canonical simplified form of e (see the header comment).  Returns e
 * itself when nothing changed. */
TirExpr *arith_simplify(ArithCtx *ctx, const TirExpr *e);

/* --------------------------------------------------------------- bounds */

/* Inclusive constant bounds of integer expression e under the context.
 * Without other knowledge a value spans its dtype (an int32 var gives
 * [-2^31, 2^31 - 1]); false when a side is unbounded (int64 / uint64 values
 * with no known range) or e is not an integer scalar. */
bool arith_const_bounds(ArithCtx *ctx, const TirExpr *e, int64_t *lo, int64_t *hi);
/* Inclusive bounds of e free of range-bound variables (symbolic shapes stay):
 * i in [0, n) gives i * 4 + 3 in [3, n * 4 - 1].  Either out pointer may be
 * NULL; false when a requested side cannot be bounded. */
bool arith_symbolic_bounds(ArithCtx *ctx, const TirExpr *e, TirExpr **lo, TirExpr **hi);
/* True only when cond (a bool expression) provably holds. */
bool arith_prove(ArithCtx *ctx, const TirExpr *cond);
/* True only when a == b provably (same dtype kind). */
bool arith_can_prove_equal(ArithCtx *ctx, const TirExpr *a, const TirExpr *b);

/* --------------------------------------------------------------- affine */

/* Decomposes integer expression e (after simplification) as
 * sum(coeffs[k] * vars[k]) + *rest, where *rest does not use any of vars.
 * False when e uses one of vars non-linearly (`i * j`, `i // 4`...). */
bool arith_affine(ArithCtx *ctx, const TirExpr *e, const TirVar *const *vars, int nvars,
                  int64_t *coeffs, TirExpr **rest);

/* How strictly arith_detect_iter_map checks the bindings. */
typedef enum ArithIterCheck {
  ARITH_ITER_INJECTIVE, /* no two bindings use overlapping parts of a loop var */
  ARITH_ITER_BIJECTIVE  /* and every loop var is covered exactly (a bijection) */
} ArithIterCheck;

/* One piece of an iterator: scale * ((source // lower_factor) % extent). */
typedef struct ArithIterSplit {
  const TirVar *var;      /* the loop var it comes from; NULL for a fused source */
  TirExpr *lower_factor;  /* divisor applied to the source */
  TirExpr *extent;        /* number of values this piece takes */
  TirExpr *scale;         /* its weight in the binding */
} ArithIterSplit;

/* The result of arith_detect_iter_map: the bindings' pieces (innermost -
 * smallest scale - last), and the reason when the check failed. */
typedef struct ArithIterMap {
  bool ok;                 /* the bindings passed the check */
  const char *error;       /* a one-line reason when !ok (static string) */
  ArithIterSplit **splits; /* splits[b]: binding b's pieces (NULL when !ok) */
  int *nsplits;            /* number of pieces of binding b */
  int n;                   /* number of bindings */
} ArithIterMap;

/* Decides whether bindings[b] (expressions over the loop vars `iters`, whose
 * ranges must be bound in ctx) are quasi-affine maps (sums of scaled
 * `(x // a) % b` pieces, fused loops allowed) and each one maps densely onto
 * its domain doms[b] = [min, min + extent): [i0 * 32 + i1] with i1 in [0, 32)
 * onto [0, E0 * 32), [f // 16, f % 16] with f in [0, n * 16) onto
 * [0, n) x [0, 16).  `check` adds the cross-binding condition.  Vars not in
 * iters are symbolic constants.  Free the result with arith_iter_map_free. */
ArithIterMap arith_detect_iter_map(ArithCtx *ctx, TirExpr *const *bindings, const TirRange *doms,
                                   int n, const TirVar *const *iters, int niters,
                                   ArithIterCheck check);
void arith_iter_map_free(ArithIterMap *m);

/* ------------------------------------------------------------ int math
 * TIR's integer division semantics on constants, the one copy every layer
 * uses (shape evaluation, FLOP counts, elaboration, the interpreter). */

int64_t arith_floordiv64(int64_t a, int64_t b); /* b != 0, not (MIN, -1) */
int64_t arith_floormod64(int64_t a, int64_t b);
int64_t arith_ceildiv64(int64_t a, int64_t b);  /* b > 0 */

/* Looks up a variable's value: true and *out set when known. */
typedef bool (*ArithVarLookup)(void *ctx, const TirVar *v, int64_t *out);
/* Evaluates an integer expression (constants, variables known to lookup, + - *
 * min max, truncated and floor division/modulo, casts).  False when a
 * variable is unknown, a node is of another kind, a division is by zero or a
 * result overflows int64. */
bool arith_eval_int(const TirExpr *e, ArithVarLookup lookup, void *ctx, int64_t *out);

#endif
