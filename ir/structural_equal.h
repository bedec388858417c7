/* structural_equal.h - structural equality and hashing of IR, as TVM defines it.
 *
 * Bound variables (params, loop vars, block iter vars, let vars, buffers and
 * their data vars) are equal up to renaming: they are mapped by the position
 * where they are defined.  Names of vars/buffers/blocks and spans are ignored;
 * dtypes, loop kinds, annotations, iter types, regions, predicates, attrs are
 * compared (reference/tir_surface.md section 2). */
#ifndef TVS_IR_STRUCTURAL_EQUAL_H
#define TVS_IR_STRUCTURAL_EQUAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/module.h"

typedef struct SEqualOptions {
  bool ignore_global_symbol;  /* drop "global_symbol" attrs before comparing */
} SEqualOptions;

/* On inequality, when diff is non-NULL, *diff receives a malloc'd text giving
 * the path to the first difference and both sides, e.g.
 *   "mm_relu: body.block[root].body.seq[0].loop(i).extent: 128 vs 64". */
bool seq_module(const IrModule *a, const IrModule *b, const SEqualOptions *opt, char **diff);
bool seq_tir_func(const TirFunc *a, const TirFunc *b, const SEqualOptions *opt, char **diff);
bool seq_relax_func(const RxFunc *a, const RxFunc *b, const SEqualOptions *opt, char **diff);
/* Expressions with free variables compared by identity. */
bool seq_tir_expr(const TirExpr *a, const TirExpr *b);

/* Hashes consistent with equality (equal => same hash). */
uint64_t shash_tir_func(const TirFunc *f, bool ignore_global_symbol);
uint64_t shash_module(const IrModule *m);

#endif
