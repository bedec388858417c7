/* elab_internal.h - shared state of the elaboration files (not a public API).
 *
 *   elab.c        module level: decorators, classes, implicit modules, dispatch
 *   elab_tir.c    T.prim_func bodies, TIR expressions and statements
 *   elab_relax.c  R.function bodies, struct info, call_tir
 *   elab_te.c     te.compute / te.reduce_axis sugar -> prim_func
 *   builtins.c    the T./R./I./te. namespaces, "did you mean" suggestions */
#ifndef TVS_LANG_ELAB_INTERNAL_H
#define TVS_LANG_ELAB_INTERNAL_H

#include "ir/module.h"
#include "lang/ast.h"
#include "base/diag.h"
#include "lang/elab.h"
#include "base/util.h"

typedef enum SymKind {
  SYM_TIR_VAR,     /* ptr = TirVar* (loop var, block iter var, let var, scalar param, size var) */
  SYM_BUFFER,      /* ptr = TirBuffer* */
  SYM_HANDLE,      /* ptr = TirVar* of dtype handle (a T.handle param before match_buffer) */
  SYM_RX_VAR,      /* ptr = RxExpr* (RX_VAR / RX_DATAFLOW_VAR) */
  SYM_GLOBAL_FUNC, /* ptr = the FUNCDEF Ast of a module function (name = global name) */
  SYM_MODULE,      /* the module class itself (`cls = Module`, `Module.f`); ptr unused */
  SYM_NAMESPACE,   /* T, R, I, te, tvm, tir, relax: ptr = const char* canonical namespace */
  SYM_TE_TENSOR,   /* ptr = elab_te.c's tensor record */
  SYM_TE_AXIS      /* ptr = elab_te.c's reduce-axis record */
} SymKind;

typedef struct Sym {
  const char *name;  /* as written */
  SymKind kind;      /* what it denotes */
  void *ptr;         /* per kind (see above) */
  Span span;         /* definition site */
} Sym;

typedef struct Scope Scope;
struct Scope {
  Scope *parent;     /* enclosing scope, NULL at module level */
  Sym *syms;         /* definitions in order */
  int n, cap;
  int *slots;        /* open-addressing index (1 + position in syms, 0 = empty), NULL while small */
  int nslots;        /* power of two; > 2 * n */
};

typedef struct ElabCtx {
  DiagCtx *diag;            /* where errors go */
  const AstFile *file;      /* the parsed file */
  IrModule *mod;            /* module being built */
  IrHeap *h;                /* == mod->heap */
  Arena scratch;            /* scopes and temporaries; freed at the end */
  Scope *scope;             /* innermost scope */
  const char *module_name;  /* class name of the module, for `cls = Name` / `Name.f` */
  void *tir;                /* elab_tir.c's per-function state (NULL outside prim_funcs) */
  void *rx;                 /* elab_relax.c's per-function state */
  PtrVec poisoned;          /* names whose definition failed (char*, in scratch): uses stay quiet */
} ElabCtx;

/* scopes (elab.c) */
void elab_push_scope(ElabCtx *c);
void elab_pop_scope(ElabCtx *c);
Sym *elab_define(ElabCtx *c, const char *name, SymKind kind, void *ptr, Span span);
Sym *elab_lookup(ElabCtx *c, const char *name);
/* Reports "use of undefined name 'x'" with a did-you-mean over visible names,
 * unless x was poisoned (its definition already failed with an error). */
void elab_undefined(ElabCtx *c, const Ast *name_node);
/* Marks a name whose definition failed, so that its uses do not cascade. */
void elab_poison(ElabCtx *c, const char *name);
/* Grows an array of n elements of sz bytes in the scratch arena (freed with
 * the context, so error paths cannot leak) to hold one more; updates *cap. */
void *elab_grow(ElabCtx *c, void *p, int n, int *cap, size_t sz);

/* The dotted name of a callee/attribute chain with namespace aliases resolved
 * to canonical form ("tvm.tir.max" / "tir.max" / "T.max" -> "T.max";
 * "R.nn.relu"; "I.ir_module"; "te.compute"), or NULL if it is not rooted at a
 * namespace. */
const char *elab_canonical_name(ElabCtx *c, const Ast *callee);

/* Parses a dtype argument: a string literal "float32" or `T.float32`.
 * Reports an error and returns false otherwise. */
bool elab_dtype_arg(ElabCtx *c, const Ast *e, DType *out);
/* Finds keyword argument `name` in a CALL's args (NULL if absent). */
/* A pointer type, `T.handle("float32", "shared")` or `T.Ptr[T.float32]`: its
 * element type and scope (NULL: global).  False (nothing reported) for other
 * annotations; false after reporting a bad dtype or scope. */
bool elab_ptr_type(ElabCtx *c, const Ast *e, DType *elem, const char **scope);
const Ast *elab_kwarg(const Ast *call, const char *name);
/* Positional (non-keyword) argument i of a CALL, or NULL. */
const Ast *elab_posarg(const Ast *call, int i);
/* Argument i of a CALL given by position or by keyword name, or NULL. */
const Ast *elab_arg(const Ast *call, int i, const char *name);
int elab_num_posargs(const Ast *call);
/* Reports unknown keyword arguments of call (allowed: NULL-terminated list). */
bool elab_check_kwargs(ElabCtx *c, const Ast *call, const char *const *allowed);

/* TIR (elab_tir.c) */
TirFunc *elab_prim_func(ElabCtx *c, const Ast *def, bool is_private);
/* A TIR expression in the current scope (also used for Relax shapes and TE
 * formulas).  Returns NULL after reporting an error. */
TirExpr *elab_tir_expr(ElabCtx *c, const Ast *e);
/* Shape tuple/list/int -> array of extents in the scratch arena. */
TirExpr **elab_shape(ElabCtx *c, const Ast *e, int *ndim, DType index_dtype);

/* Relax (elab_relax.c) */
RxFunc *elab_relax_func(ElabCtx *c, const Ast *def, bool is_private, bool is_pure);

/* Tensor-expression sugar (elab_te.c) */
TirFunc *elab_te_func(ElabCtx *c, const Ast *def);

/* builtins.c */
/* Is `name` ("T.max", "R.nn.relu", "te.compute") a known builtin? */
bool builtin_known(const char *canonical);
/* The closest known builtin to an unknown one, or NULL ("T.gird" -> "T.grid"). */
const char *builtin_suggest(const char *canonical);

/* ---------------------------------------------------------------------------
 * Additions (elaboration owner).  Shared helpers of elab.c, and the internals
 * that elab_tir_expr.c and elab_tir_stmt.c share. */

/* The source text of a span, copied into the scratch arena (for messages
 * such as "'i+1' is not a loop variable"). */
const char *elab_span_text(ElabCtx *c, Span s);

/* An elaborated TIR value: a typed expression, or a Python literal (lit) whose
 * node carries the default type (int32, int64 when it does not fit, float32,
 * bool) until an operand or a destination gives it one (TVM's literal rule). */
typedef struct TirVal {
  TirExpr *e;  /* NULL after an error */
  bool lit;    /* an untyped Python literal (or a literal-only expression) */
} TirVal;

TirVal elab_tir_val(ElabCtx *c, const Ast *e);
/* v as a value of type t, as a store or a typed let needs it: literals adopt t
 * (range-checked), typed values must already be t.  Returns NULL without
 * reporting when a typed value has another type (the caller words the error),
 * and after reporting a literal that does not fit. */
TirExpr *elab_tir_adopt(ElabCtx *c, TirVal v, DType t);
/* An integer expression (extent, index, shape dim, binding) whose literals get
 * type lit_dtype; reports non-integer values.  NULL after an error. */
TirExpr *elab_tir_int_expr(ElabCtx *c, const Ast *e, DType lit_dtype, const char *what);
/* Converts an integer expression to type t (literals retyped, else a Cast). */
TirExpr *elab_tir_int_cast(IrHeap *h, TirExpr *e, DType t);

/* elab_tir_call.c: `Module.f(...)` / `T.call_tir(Module.f, ...)`, a call of
 * another prim_func of the module. */
bool elab_tir_is_subroutine_call(ElabCtx *c, const Ast *call);
TirExpr *elab_tir_subroutine_call(ElabCtx *c, const Ast *call); /* NULL after an error */

/* elab_tir_opaque.c: builtins TVS does not model, kept as opaque calls. */
bool elab_tir_opaque_name(const char *nm);  /* nm without "T." */
TirExpr *elab_tir_opaque_call(ElabCtx *c, const Ast *call, const char *nm);
TirExpr *elab_tir_opaque_named(ElabCtx *c, Span sp, const char *nm); /* T.nm() */
TirExpr *elab_tir_target_value(ElabCtx *c, const Ast *call); /* T.target("cuda", host=) */
/* `buf.access_ptr(mask, offset=, extent=)` as T.tvm_access_ptr(...). */
TirExpr *elab_tir_access_ptr(ElabCtx *c, const Ast *call, TirBuffer *buf);
/* a - b with constant folding, b == 0 -> a, and (x + c1) - (x + c2) -> c1 - c2. */
TirExpr *elab_tir_sub_fold(IrHeap *h, TirExpr *a, TirExpr *b);
/* The index items of subscript e (`A[i]` or `A[i, j]`) in *items, and their
 * count; -1 after reporting when the count is not buf's rank. */
int elab_subscript_items(ElabCtx *c, const Ast *e, const TirBuffer *buf, const Ast *const **items);
/* Converts an attribute-dict literal (T.func_attr, annotations=) to an IrValue. */
IrValue *elab_tir_attr_value(ElabCtx *c, const Ast *e);

/* elab_tir_attr.c: T.env_thread, T.launch_thread and T.attr (AttrStmt heads). */
typedef struct ElabAttrHead {
  const char *key;  /* "thread_extent", "virtual_thread", "pragma_...", ... */
  TirVar *node;     /* the thread or the attributed variable; NULL for node 0 */
  TirExpr *value;
} ElabAttrHead;
bool elab_tir_env_thread(ElabCtx *c, const Ast *target, const Ast *call);
bool elab_tir_attr_head(ElabCtx *c, const Ast *call, const char *cn, const Ast *name, ElabAttrHead *h);

/* elab_tir_alloc.c: the head of `name = T.allocate(...)` / `T.allocate_const(...)`
 * (cn names which): the statement with a NULL body for the caller to fill, its
 * pointer defined as name; NULL after reporting. */
TirStmt *elab_tir_alloc_head(ElabCtx *c, const Ast *call, const char *cn, const Ast *name);

#endif
