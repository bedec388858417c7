/* relax_pass_util.h - what the general graph passes (canonicalize-bindings,
 * fold-constant, dead-code-elimination, eliminate-common-subexpr) share:
 * rebuilding a body with variables replaced, collecting bindings into blocks,
 * purity, and the removal of unused bindings (TVM's RemoveAllUnused).
 *
 * Private to ir/transform/.  Graph IR is immutable: every rewrite returns a
 * new node (a copy with the changed children) or the very same pointer when
 * nothing changed, so "changed" is a pointer test. */
#ifndef TVS_IR_TRANSFORM_RELAX_PASS_UTIL_H
#define TVS_IR_TRANSFORM_RELAX_PASS_UTIL_H

#include <stdbool.h>

#include "ir/module.h"
#include "ir/visit.h"

/* A growing list of bindings (xmalloc'd; free with rxu_bindings_free). */
typedef struct RxuBindings {
  RxBinding *items;
  int len, cap;
} RxuBindings;

void rxu_bindings_push(RxuBindings *v, RxBinding b);
void rxu_bindings_free(RxuBindings *v);

/* A growing list of blocks whose bindings are copied into the heap when a
 * block is closed; empty blocks are dropped (as TVM's normalizer does). */
typedef struct RxuBlocks {
  RxBlock *items;
  int len, cap;
} RxuBlocks;

/* Appends the bindings cur[0..len) as one block (a copy), then empties cur. */
void rxu_blocks_close(RxuBlocks *bs, RxuBindings *cur, bool is_dataflow);
/* Frees bs without building anything (nothing changed). */
void rxu_blocks_free(RxuBlocks *bs);
/* A SEQ of bs's blocks and body with old's struct info and span; frees bs. */
RxExpr *rxu_seq_from(IrHeap *h, const RxExpr *old, RxuBlocks *bs, RxExpr *body);

/* e with every use of a variable that is a key of map replaced by its value
 * (an RxExpr*); recurses into calls, tuples, items, ifs and nested SEQs (their
 * binding values and results).  Returns e itself when nothing was replaced. */
RxExpr *rxu_subst(IrHeap *h, RxExpr *e, const IrPtrMap *map);

/* Calls fn for every variable used in e (nested SEQs included: their binding
 * values and results; a nested binding's own var is a definition, not a use). */
typedef void (*RxuVarFn)(void *ctx, const RxExpr *var);
void rxu_for_each_use(const RxExpr *e, RxuVarFn fn, void *ctx);

/* Whether evaluating e may have a visible effect (TVM's ContainsImpureCall):
 * a call of R.call_packed or R.print anywhere inside it. */
bool rxu_is_impure(const RxExpr *e);

/* Removes the bindings of a function body whose variables are never used,
 * transitively (TVM's RemoveAllUnused): a binding stays when its var is used
 * by the result or by a binding that stays, when it is a match_cast (a
 * run-time check), or when its value is impure outside a dataflow block.
 * Empty blocks go too.  Returns body itself when nothing was removed. */
RxExpr *rxu_remove_unused(IrHeap *h, RxExpr *body);

/* A graph function rewrite: returns f itself when nothing changed. */
typedef RxFunc *(*RxuFuncFn)(void *ctx, IrHeap *h, const IrModule *m, RxFunc *f);
/* A new module (derived from m) with every graph function passed through fn
 * and the prim_funcs kept; *changed (may be NULL) tells whether any differ. */
IrModule *rxu_map_funcs(const IrModule *m, RxuFuncFn fn, void *ctx, bool *changed);
/* A copy of f with another body (f itself when body == f->body). */
RxFunc *rxu_with_body(IrHeap *h, RxFunc *f, RxExpr *body);

#endif
