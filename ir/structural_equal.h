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
  bool map_free_vars;         /* free vars (`a = T.int32()`, bound by no statement) map
                                 to each other at first use, as TVM's map_free_vars */
} SEqualOptions;

/* On inequality, when diff is non-NULL, *diff receives a malloc'd text giving
 * the path to the first difference and both sides, e.g.
 *   "mm_relu: body -> block \"root\" -> seq[1] -> for j -> extent: 128 vs 64"
 *   "mm_relu: params[2] -> buffer C -> shape[0]: 128 vs 64"
 *   "module: function 'f' missing on the right".
 * opt may be NULL (all options off). */
bool seq_module(const IrModule *a, const IrModule *b, const SEqualOptions *opt, char **diff);
bool seq_tir_func(const TirFunc *a, const TirFunc *b, const SEqualOptions *opt, char **diff);
bool seq_relax_func(const RxFunc *a, const RxFunc *b, const SEqualOptions *opt, char **diff);
/* Expressions with free variables compared by identity (let vars up to renaming). */
bool seq_tir_expr(const TirExpr *a, const TirExpr *b);
/* Graph expressions (a binding's value): free variables by identity, variables
 * bound inside (nested bindings) up to renaming, constants by value. */
bool seq_relax_expr(const RxExpr *a, const RxExpr *b);
/* Exact equality, cheaper than seq_tir_expr: every var (let vars too), buffer
 * and operator by identity, floats by ==.  For analyses that merge or cancel
 * subexpressions of one tree (affine terms, `(b + e) - b`, loop/iter ranges). */
bool tir_expr_identical(const TirExpr *a, const TirExpr *b);
/* Statements: free vars by identity, vars and buffers defined inside mapped. */
bool seq_tir_stmt(const TirStmt *a, const TirStmt *b, char **diff);

/* Hashes consistent with equality (equal => same hash). */
uint64_t shash_tir_func(const TirFunc *f, bool ignore_global_symbol);
uint64_t shash_module(const IrModule *m);
uint64_t shash_relax_func(const RxFunc *f, bool ignore_global_symbol);
/* Free vars hash by identity, as seq_tir_expr / seq_tir_stmt compare them. */
uint64_t shash_tir_expr(const TirExpr *e);
uint64_t shash_tir_stmt(const TirStmt *s);

#endif
