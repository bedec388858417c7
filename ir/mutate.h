/* mutate.h - the generic copy-on-write rewriter of loop IR, and variable substitution.
 *
 * A TirMutator is a table of per-kind callbacks in which NULL means "default
 * recursion".  The default rebuilds a node only when one of its children
 * changed and otherwise returns the SAME pointer, so "nothing changed" is a
 * pointer comparison and unchanged subtrees stay shared (STYLE.md practice 5).
 * New nodes go into m->heap; the caller records ir_heap_depend(new, old). */
#ifndef TVS_IR_MUTATE_H
#define TVS_IR_MUTATE_H

#include "ir/tir.h"
#include "ir/visit.h"

typedef struct TirMutator TirMutator;
struct TirMutator {
  IrHeap *heap; /* where rebuilt nodes are allocated */
  /* Per-kind overrides; NULL = default recursion.  An override may call
   * tir_mutate_expr_children / tir_mutate_stmt_children to recurse first. */
  TirExpr *(*expr[TIR_NUM_EXPR_KINDS])(TirMutator *m, TirExpr *e);
  TirStmt *(*stmt[TIR_NUM_STMT_KINDS])(TirMutator *m, TirStmt *s);
  /* Called at each variable definition (params, loop vars, iter vars, let and
   * allocate vars, AttrStmt nodes, data vars of rebuilt buffers).  Returning a
   * different var renames it: later Var references to the old var are
   * rewritten to the new one by the default VAR case.  NULL = keep. */
  TirVar *(*def_var)(TirMutator *m, TirVar *var);
  /* Called for every buffer reference (definitions and uses) before the
   * default, which rebuilds the buffer when its data var, shape, strides or
   * elem_offset change and maps all its references consistently.  Return
   * NULL to fall through to the default.  May be NULL. */
  TirBuffer *(*buffer)(TirMutator *m, TirBuffer *b);
  void *ctx;          /* the caller's state */
  IrPtrMap var_remap; /* old TirVar* -> new TirVar* (from def_var renames) */
  IrPtrMap buf_remap; /* old TirBuffer* -> new TirBuffer* (memo of the default) */
};

/* Zeroes m and sets its heap.  Pair with tir_mutator_free. */
void tir_mutator_init(TirMutator *m, IrHeap *h);
void tir_mutator_free(TirMutator *m);

/* Dispatch: the per-kind override if any, else the default.  NULL -> NULL. */
TirExpr *tir_mutate_expr(TirMutator *m, TirExpr *e);
TirStmt *tir_mutate_stmt(TirMutator *m, TirStmt *s);
/* The default recursion for one node: mutates the children and rebuilds the
 * node if any changed; returns e / s itself otherwise. */
TirExpr *tir_mutate_expr_children(TirMutator *m, TirExpr *e);
TirStmt *tir_mutate_stmt_children(TirMutator *m, TirStmt *s);
/* Params, buffer_map, attrs and body; returns f itself when nothing changed. */
TirFunc *tir_mutate_func(TirMutator *m, TirFunc *f);
/* The buffer a reference to b becomes (the hook, else the default rebuild). */
TirBuffer *tir_mutate_buffer(TirMutator *m, TirBuffer *b);
/* The var a definition or a reference of var becomes (def_var renames). */
TirVar *tir_mutate_def_var(TirMutator *m, TirVar *var);
/* An attribute value with its expressions mutated; val itself if unchanged. */
IrValue *tir_mutate_value(TirMutator *m, IrValue *val);

/* ------------------------------------------------------------ substitution */

/* Replaces every reference to a var in vmap (TirVar* -> TirExpr*) by its
 * value, also inside the shapes of buffers (which are then rebuilt and
 * re-mapped everywhere).  When the value is itself a Var, definitions of the
 * var (loop var, let var, buffer data var...) are renamed too.  Returns the
 * input pointer when no var occurs; new nodes are allocated in h. */
TirExpr *tir_substitute_expr(IrHeap *h, const TirExpr *e, const IrPtrMap *vmap);
TirStmt *tir_substitute_stmt(IrHeap *h, const TirStmt *s, const IrPtrMap *vmap);
/* One var -> value convenience form. */
TirExpr *tir_substitute_expr1(IrHeap *h, const TirExpr *e, const TirVar *var, TirExpr *value);
TirStmt *tir_substitute_stmt1(IrHeap *h, const TirStmt *s, const TirVar *var, TirExpr *value);

#endif
