/* flops.h - counting the floating-point operations of a prim_func.
 *
 * Used by `tvs run --time` and the REPL's :time to turn a time into GFLOP/s.
 * Like TVM's FLOP estimator: every float-typed arithmetic node (+ - * / min
 * max, math intrinsics) in a stored value counts once per execution of the
 * store, i.e. times the trip counts of the loops around it; block inits count
 * too; T.where predicates are ignored (an upper bound). */
#ifndef TVS_IR_FLOPS_H
#define TVS_IR_FLOPS_H

#include <stdint.h>

#include "ir/tir.h"

/* Values of symbolic vars (size vars, scalar params) for trip counts. */
typedef struct FlopBinding {
  const TirVar *var;  /* the variable */
  int64_t value;      /* its value for this run */
} FlopBinding;

/* Returns the FLOP count, or -1 when a loop extent cannot be evaluated. */
double tir_count_flops(const TirFunc *f, const FlopBinding *bind, int nbind);

#endif
