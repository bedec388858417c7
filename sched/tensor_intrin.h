/* tensor_intrin.h - the registry of tensor intrinsics used by tensorize.
 *
 * A tensor intrinsic (TVM's tir.TensorIntrin) is a pair of prim_funcs with
 * the same buffer parameters: a description, whose body (a root block with
 * T.reads / T.writes) is the computation tensorize looks for, and an
 * implementation, whose root block body replaces it, its parameter buffers
 * bound to the matched regions with T.match_buffer.
 *
 * Intrinsics are registered under a name, process-wide:
 *  - the built-in ones come from stdlib/intrin/<name>.tvs, embedded in the library
 *    at build time (no source tree needed at run time), loaded on first use;
 *  - a .tvs file or a schedule script registers its own with a top-level
 *    `T.TensorIntrin.register("name", desc_fn, impl_fn)` (also spelled
 *    `tir.TensorIntrin.register` / `tvm.tir.TensorIntrin.register`), naming
 *    two prim_funcs of the module (or `Module["f"]`), optionally with
 *    `override=True`.  Registering the same name again with structurally
 *    equal functions is a no-op; different ones need override=True.
 * The registry is not thread-safe. */
#ifndef TVS_SCHED_TENSOR_INTRIN_H
#define TVS_SCHED_TENSOR_INTRIN_H

#include <stdbool.h>

#include "ir/module.h"
#include "lang/ast.h"
#include "base/diag.h"

typedef struct TensorIntrin {
  char *name;       /* registered name (malloc'd) */
  TirFunc *desc;    /* the description */
  TirFunc *impl;    /* the implementation */
  IrModule *owner;  /* a module holding (a reference to) both functions' nodes */
} TensorIntrin;

/* Registers desc / impl, two prim_funcs of m (m's nodes are retained).
 * Checks that both have the same number of buffer parameters (with the same
 * dtypes and ranks) and a root block body.  0, or -1 after reporting at sp. */
int tensor_intrin_register(const char *name, const IrModule *m, const char *desc_name,
                           const char *impl_name, bool override, DiagCtx *diag, Span sp);
/* The intrinsic registered as name (built-ins loaded on first use), or NULL. */
const TensorIntrin *tensor_intrin_get(const char *name);
/* Registered intrinsics in registration order (built-ins first), for
 * listings and suggestions; NULL past the end. */
const TensorIntrin *tensor_intrin_at(int i);
/* Drops every registration (built-ins are reloaded on the next lookup). */
void tensor_intrin_clear(void);

/* The script hook: whether a call's callee is `T.TensorIntrin.register`
 * (or its tir. / tvm.tir. spelling), and evaluating such a call against
 * module m.  0, or -1 with errors reported at the call's arguments. */
bool tensor_intrin_is_register_call(const Ast *callee);
int tensor_intrin_register_call(const IrModule *m, const Ast *call, DiagCtx *diag);

/* The embedded built-in sources (generated at build time from
 * stdlib/intrin/<name>.tvs): file names and texts, count entries. */
typedef struct TensorIntrinSource {
  const char *file;
  const char *text;
} TensorIntrinSource;
extern const TensorIntrinSource tvs_builtin_intrin_sources[];
extern const int tvs_builtin_intrin_count;

#endif
