/* visit.h - the generic read-only walker over loop IR, and a pointer map.
 *
 * A TirVisitor is a struct of callbacks plus a context pointer; the recursion
 * over every child (block regions, iter domains, allocated buffers' shapes,
 * realize values and predicates, init, annotations) is written once in
 * visit.c.  IrPtrMap is the small pointer-keyed hash map every IR pass needs
 * (var -> index, buffer -> buffer, var -> expr). */
#ifndef TVS_IR_VISIT_H
#define TVS_IR_VISIT_H

#include <stdbool.h>

#include "ir/tir.h"
#include "base/util.h"

/* ------------------------------------------------------------ pointer map */

/* Open-addressing hash map from pointers to pointers.  Zero-initialise (or
 * ir_ptrmap_init) before use; keys must be non-NULL; values may be NULL. */
typedef struct IrPtrMap {
  const void **keys; /* slots; NULL = empty */
  void **vals;       /* value of each slot */
  int cap;           /* slots allocated (power of two or 0) */
  int len;           /* entries in use */
} IrPtrMap;

void ir_ptrmap_init(IrPtrMap *m);
void ir_ptrmap_free(IrPtrMap *m);
void ir_ptrmap_clear(IrPtrMap *m);
/* Inserts or replaces. */
void ir_ptrmap_put(IrPtrMap *m, const void *key, void *val);
bool ir_ptrmap_has(const IrPtrMap *m, const void *key);
/* The value for key, or NULL when absent. */
void *ir_ptrmap_get(const IrPtrMap *m, const void *key);

/* ---------------------------------------------------------------- walker */

typedef struct TirVisitor TirVisitor;
struct TirVisitor {
  /* Called before a node's children; return false to skip them (prune).
   * NULL means "always descend". */
  bool (*pre_expr)(TirVisitor *v, const TirExpr *e);
  bool (*pre_stmt)(TirVisitor *v, const TirStmt *s);
  /* Called after a node's children (also when pre pruned them); may be NULL. */
  void (*post_expr)(TirVisitor *v, const TirExpr *e);
  void (*post_stmt)(TirVisitor *v, const TirStmt *s);
  /* A variable defined here: params, loop vars, block iter vars, Let/LetStmt
   * vars, Allocate vars, AttrStmt nodes, data vars of defined buffers. */
  void (*def_var)(TirVisitor *v, const TirVar *var);
  /* A buffer defined here: buffer_map entries, alloc_buffers, match_buffers,
   * DeclBuffer.  Its shape/strides/elem_offset are walked right after. */
  void (*def_buffer)(TirVisitor *v, const TirBuffer *b);
  /* A buffer accessed here: loads, stores, read/write regions, match sources. */
  void (*use_buffer)(TirVisitor *v, const TirBuffer *b);
  void *ctx;  /* the caller's state */
  bool stop;  /* a callback sets this to abort the whole walk */
};

/* Children are visited in field order; for a block: iter domains (and iter
 * var definitions), alloc_buffers, match_buffers, annotations, reads, writes,
 * init, body.  For a BlockRealize: iter values, predicate, then the block. */
void tir_visit_expr(TirVisitor *v, const TirExpr *e);
void tir_visit_stmt(TirVisitor *v, const TirStmt *s);
/* Params (def_var), buffer_map buffers (def_buffer + shapes), attrs, body. */
void tir_visit_func(TirVisitor *v, const TirFunc *f);
/* The expressions inside an attribute value (annotations, func attrs). */
void tir_visit_value(TirVisitor *v, const IrValue *val);

/* ------------------------------------------------------- free variables */

/* Appends to out (a PtrVec of TirVar*) every variable referenced in e that
 * is not bound inside e (by a Let), each once, in order of first use. */
void tir_expr_free_vars(const TirExpr *e, PtrVec *out);
/* Same for a statement: variables used but not defined within s (loop vars,
 * iter vars, let vars, allocate vars and data vars of buffers defined in s
 * are bound).  Buffer shape vars of buffers only accessed are not counted. */
void tir_stmt_free_vars(const TirStmt *s, PtrVec *out);
/* Whether expression e references var (anywhere, bound or not). */
bool tir_expr_uses_var(const TirExpr *e, const TirVar *var);
bool tir_stmt_uses_var(const TirStmt *s, const TirVar *var);
/* The first loop in s with a non-trivial step (TVM's !HasTrivialStep), or NULL:
 * what consumers that assume unit steps (schedules, backends) refuse. */
const TirStmt *tir_find_stepped_loop(const TirStmt *s);

#endif
