/* tir.h - the loop IR (TensorIR): expressions, statements, buffers, blocks, PrimFuncs.
 *
 * Nodes are tagged structs with a common header {kind, dtype, span} and a union
 * whose members say which kinds use them.  Kinds are declared once in
 * tir_expr.def / tir_stmt.def; intrinsic calls in tir_ops.def.
 *
 * Rules every user of this header relies on:
 *  - Nodes are immutable once built and are shared between module versions.
 *    They live in an IrHeap (heap.h) and are never freed individually.
 *  - Identity: a TirVar and a TirBuffer are identified by pointer (two vars with
 *    the same name are different vars).  Structural equality maps bound vars
 *    and buffers by position (ir/structural_equal.h).
 *  - Constructors take the heap to allocate in and the children; they do not
 *    copy children.  Array arguments ARE copied into the heap, so callers may
 *    pass stack arrays.  Constructors fill the result dtype (e.g. tir_lt gives
 *    bool); they do not check user errors - elaboration does that with spans.
 *  - Integer literal fields hold the value sign-extended to int64 (uint64
 *    values above INT64_MAX are stored as their bit pattern). */
#ifndef TVS_IR_TIR_H
#define TVS_IR_TIR_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/attrs.h"
#include "ir/dtype.h"
#include "ir/heap.h"
#include "base/source.h"

/* Most loops one T.grid(...) holds: the printer folds at most this many
 * perfectly nested loops into one grid, and the front end accepts as many. */
#define TIR_GRID_MAX 64

typedef struct TirExpr TirExpr;
typedef struct TirStmt TirStmt;
typedef struct TirVar TirVar;
typedef struct TirBuffer TirBuffer;

/* ---------------------------------------------------------------- kinds */

typedef enum TirExprKind {
#define X(E, N, M) TIR_##E,
#include "ir/tir_expr.def"
#undef X
  TIR_NUM_EXPR_KINDS
} TirExprKind;

typedef enum TirStmtKind {
#define X(E, N, M) TIR_S_##E,
#include "ir/tir_stmt.def"
#undef X
  TIR_NUM_STMT_KINDS
} TirStmtKind;

typedef enum TirOpKind { TIR_OPK_PURE, TIR_OPK_INT_BIT, TIR_OPK_SPECIAL } TirOpKind;

typedef enum TirOpId {
#define X(E, S, T, N, K, L, M, C, I) TIR_OP_##E,
#include "ir/tir_ops.def"
#undef X
  TIR_NUM_OPS
} TirOpId;

typedef struct TirOpInfo {
  TirOpId id;          /* this entry's enum */
  const char *name;    /* script name without "T.", e.g. "exp" */
  const char *tvm_name;/* TVM's registered op name, e.g. "tir.exp" */
  int nargs;           /* -1 = variadic */
  TirOpKind kind;      /* PURE / INT_BIT / SPECIAL */
  bool int_exact;      /* on an integer operand with an integer result: the operand
                        * itself (fabs: its absolute value), no float trip */
} TirOpInfo;

extern const TirOpInfo tir_op_table[TIR_NUM_OPS];
/* Looks up "exp" (no "T." prefix); NULL when unknown. */
const TirOpInfo *tir_op_lookup(const char *name);
/* The result type of an opaque builtin call (TIR_OP_OPAQUE, named nm) when
 * the program gives no dtype=; args are its arguments after the name. */
DType tir_opaque_default_dtype(const char *nm, TirExpr *const *args, int nargs);

const char *tir_expr_kind_name(TirExprKind k); /* "Add", "BufferLoad", ... */
const char *tir_stmt_kind_name(TirStmtKind k); /* "For", "BlockRealize", ... */

/* ---------------------------------------------------------------- variables */

struct TirVar {
  const char *name;  /* name hint; not part of identity or equality */
  DType dtype;       /* int32/int64 for loop and size vars, handle for data pointers */
  bool is_size_var;  /* declared by `n = T.int32()`: known non-negative */
  DType ptr_elem;    /* for handle vars that are buffer data pointers: element dtype (else void) */
  const char *ptr_scope; /* storage scope of the pointed-to memory ("global", "shared", ...) or NULL */
  const char *thread_tag; /* an environment thread (T.env_thread / T.launch_thread): its tag
                           * ("threadIdx.x", "vthread"), bound by a thread_extent attr; else NULL */
  Span span;         /* where declared */
};

/* --------------------------------------------------------------- expressions */

struct TirExpr {
  TirExprKind kind; /* which union member is used (see tir_expr.def) */
  DType dtype;      /* result type */
  Span span;        /* source location or span_none */
  union {
    int64_t ival;                                 /* INT */
    double fval;                                  /* FLOAT */
    const char *str;                              /* STR */
    TirVar *var;                                  /* VAR: a reference to a variable */
    struct { TirExpr *a, *b; } bin;               /* ADD..OR, MIN, MAX and comparisons */
    struct { TirExpr *a; } un;                    /* NOT, CAST (dtype is the target) */
    struct { TirExpr *cond, *t, *f; } sel;        /* SELECT */
    struct { TirBuffer *buf; TirExpr **idx; int n; } load; /* LOAD: buf[idx...] */
    struct { TirExpr *base, *stride; int lanes; } ramp;    /* RAMP */
    struct { TirExpr *value; int lanes; } bcast;           /* BROADCAST */
    struct { TirVar *var; TirExpr *value, *body; } let;    /* LET */
    struct {
      const TirOpInfo *op;  /* the intrinsic */
      TirExpr **args;       /* arguments (call_extern: args[0] is the StringImm name) */
      int n;                /* number of args */
    } call;                                               /* CALL */
  };
};

/* ---------------------------------------------------------------- buffers */

struct TirBuffer {
  const char *name;     /* name hint; not part of equality */
  TirVar *data;         /* the data pointer var (dtype handle) */
  DType dtype;          /* element type */
  TirExpr **shape;      /* extents, one per dimension (int32 or int64 exprs) */
  int ndim;             /* number of dimensions (0 for a scalar buffer) */
  TirExpr **strides;    /* explicit strides or NULL (then row-major) */
  int nstrides;         /* 0 or ndim */
  TirExpr *elem_offset; /* element offset expression, NULL = 0 */
  const char *scope;    /* storage scope: "global" (default), "shared", "local", ... */
  int data_alignment;   /* bytes; 0 = default (64) */
  int offset_factor;    /* 0 = default (1) */
  bool auto_broadcast;  /* buffer_type="auto_broadcast" */
  int *axis_separators; /* axis separators (flattening groups), may be NULL */
  int naxis_separators; /* number of separators */
  Span span;            /* where declared */
};

/* A rectangular region [min, min+extent) of one dimension. */
typedef struct TirRange {
  TirExpr *min;     /* first index */
  TirExpr *extent;  /* number of indices */
} TirRange;

/* A region of a buffer: one range per dimension. */
typedef struct TirBufferRegion {
  TirBuffer *buffer; /* the buffer accessed */
  TirRange *ranges;  /* one per dimension of buffer */
  int n;             /* == buffer->ndim */
} TirBufferRegion;

/* `A = T.match_buffer(B[0:16, 0:16], (16, 16))` inside a block. */
typedef struct TirMatchBuffer {
  TirBuffer *buffer;        /* the new buffer view */
  TirBufferRegion source;   /* the region it aliases */
} TirMatchBuffer;

/* ------------------------------------------------------------- statements */

typedef enum TirForKind {
  TIR_FOR_SERIAL, TIR_FOR_PARALLEL, TIR_FOR_VECTORIZED, TIR_FOR_UNROLLED, TIR_FOR_THREAD_BINDING
} TirForKind;

typedef enum TirIterType {
  TIR_ITER_SPATIAL = 0,  /* kDataPar: T.axis.spatial / "S" */
  TIR_ITER_REDUCE = 2,   /* kCommReduce: T.axis.reduce / "R" */
  TIR_ITER_SCAN = 3,     /* kOrdered: T.axis.scan */
  TIR_ITER_OPAQUE = 4    /* kOpaque: T.axis.opaque */
} TirIterType;

/* A block iterator: its var, domain and kind. */
typedef struct TirIterVar {
  TirVar *var;        /* the block var (vi, vj, ...) */
  TirRange dom;       /* domain [min, min+extent) */
  TirIterType type;   /* spatial / reduce / scan / opaque */
} TirIterVar;

/* The contents of a `with T.block(name):`.  Iter values live in BlockRealize. */
typedef struct TirBlock {
  const char *name;         /* block name ("root" for the implicit root block) */
  TirIterVar *iters;        /* iter vars, in declaration order */
  int niters;
  TirBufferRegion *reads;   /* read regions, in TVM's order */
  int nreads;
  TirBufferRegion *writes;  /* write regions */
  int nwrites;
  TirBuffer **allocs;       /* buffers allocated by this block (T.alloc_buffer) */
  int nallocs;
  TirMatchBuffer *matches;  /* block-level match_buffer views */
  int nmatches;
  IrValue *annotations;     /* T.block_attr dict, or NULL */
  TirStmt *init;            /* T.init() body, or NULL */
  TirStmt *body;            /* the block body */
} TirBlock;

struct TirStmt {
  TirStmtKind kind; /* which union member is used (see tir_stmt.def) */
  Span span;        /* source location or span_none */
  union {
    struct { TirBuffer *buf; TirExpr *value; TirExpr **idx; int n; } store; /* STORE */
    struct { TirStmt **stmts; int n; } seq;                                 /* SEQ (n >= 2) */
    struct {
      TirVar *var;            /* loop variable */
      TirExpr *min, *extent;  /* iterates var over [min, min+extent) */
      TirExpr *step;          /* NULL = 1 (TVM's absent step); else var += step, a
                               * positive int of var's dtype (CanonicalizeLoop removes it) */
      TirForKind kind;        /* serial / parallel / ... */
      const char *thread_tag; /* "threadIdx.x" etc. for THREAD_BINDING, else NULL */
      IrValue *annotations;   /* annotations dict or NULL */
      TirStmt *body;
    } loop;                                                                 /* FOR */
    struct { TirExpr *cond; TirStmt *then_s, *else_s; } ifs;                /* IF (else may be NULL) */
    struct { TirVar *var; TirExpr *value; TirStmt *body; } let;             /* LET */
    struct { TirExpr *value; } eval;                                        /* EVAL */
    struct { TirExpr *cond; TirExpr *msg; TirStmt *body; } assrt;           /* ASSERT */
    struct { TirExpr *cond; TirStmt *body; } loop_while;                    /* WHILE */
    struct {
      TirExpr **values;  /* iter values, one per block iter (bindings) */
      int n;
      TirExpr *pred;     /* T.where predicate (bool); constant true when absent */
      TirStmt *block;    /* the TIR_S_BLOCK statement realized */
    } realize;                                                              /* BLOCK_REALIZE */
    TirBlock block;                                                         /* BLOCK */
    struct {
      TirVar *var;        /* data pointer bound by the allocation */
      DType dtype;        /* element type */
      TirExpr **extents;  /* extents (flattened: one after FlattenBuffer) */
      int n;
      const char *scope;  /* storage scope */
      IrValue *annotations; /* T.allocate(..., annotations={...}) or NULL */
      TirExpr **data;     /* ALLOCATE_CONST: the contents, one literal per element */
      int ndata;
      TirStmt *body;
    } alloc;                                                                /* ALLOCATE(_CONST) */
    struct { TirBuffer *buf; TirStmt *body; } decl;                         /* DECL_BUFFER */
    struct { const char *key; TirVar *node; TirExpr *value; TirStmt *body; } attr; /* ATTR */
  };
};

/* -------------------------------------------------------------- functions */

typedef struct TirFunc {
  TirVar **params;        /* parameters in order: handles (buffers) and scalars */
  TirBuffer **buffer_map; /* buffer bound to params[i], or NULL for scalar params */
  int nparams;
  DType ret_type;         /* void unless the function returns a value */
  TirStmt *body;          /* the body (a root BlockRealize when it has blocks) */
  IrValue *attrs;         /* T.func_attr dict (incl. "global_symbol"), or NULL */
  bool buffer_param_sugar; /* printer hint: params written as `A: T.Buffer(...)` */
  Span span;              /* the def */
} TirFunc;

/* ------------------------------------------------------------ constructors */

TirVar *tir_var(IrHeap *h, const char *name, DType t);
TirBuffer *tir_buffer(IrHeap *h, const char *name, DType dtype, TirExpr **shape, int ndim,
                      const char *scope);
/* A shallow copy to modify before use (builders only: never mutate shared nodes). */
TirBuffer *tir_buffer_copy(IrHeap *h, const TirBuffer *b);

TirExpr *tir_int(IrHeap *h, DType t, int64_t v);
TirExpr *tir_i32(IrHeap *h, int64_t v);
TirExpr *tir_bool(IrHeap *h, bool v);
TirExpr *tir_float(IrHeap *h, DType t, double v);
TirExpr *tir_str(IrHeap *h, const char *s);
TirExpr *tir_var_ref(IrHeap *h, TirVar *v);
/* Binary node of kind k; dtype = a's dtype, or bool for comparisons/logic. */
TirExpr *tir_binary(IrHeap *h, TirExprKind k, TirExpr *a, TirExpr *b);
TirExpr *tir_not(IrHeap *h, TirExpr *a);
TirExpr *tir_select(IrHeap *h, TirExpr *c, TirExpr *t, TirExpr *f);
TirExpr *tir_cast(IrHeap *h, DType t, TirExpr *a);
TirExpr *tir_load(IrHeap *h, TirBuffer *b, TirExpr **idx, int n);
TirExpr *tir_ramp(IrHeap *h, TirExpr *base, TirExpr *stride, int lanes);
TirExpr *tir_broadcast(IrHeap *h, TirExpr *v, int lanes);
TirExpr *tir_let(IrHeap *h, TirVar *v, TirExpr *value, TirExpr *body);
TirExpr *tir_call(IrHeap *h, DType t, const TirOpInfo *op, TirExpr **args, int n);
/* Copy of e with a different span (for literals re-used at a new place). */
TirExpr *tir_expr_with_span(IrHeap *h, const TirExpr *e, Span s);

TirStmt *tir_store(IrHeap *h, TirBuffer *b, TirExpr *value, TirExpr **idx, int n);
/* Flattens nested SEQs; returns the single stmt when n == 1; NULL when n == 0. */
TirStmt *tir_seq(IrHeap *h, TirStmt **stmts, int n);
/* TVM's CanRelaxStorageUnderThread: whether memory in storage `scope` is
 * shared by the threads of a loop bound to thread_tag, so that an access
 * region in it covers every iteration of that loop (storage rank <= thread
 * rank: global 0, shared 1, warp 2, local 3; blockIdx 0, threadIdx and
 * vthread 1; warp memory only over threadIdx.x). */
bool tir_storage_relaxed_under_thread(const char *scope, const char *thread_tag);
/* Whether scope is global (NULL, "" or "global..."). */
bool tir_scope_is_global(const char *scope);

TirStmt *tir_for(IrHeap *h, TirVar *v, TirExpr *min, TirExpr *extent, TirForKind kind,
                 const char *thread_tag, IrValue *annotations, TirStmt *body);
/* Copy of the For `loop` with step (NULL: none).  TVM's For(..., step). */
TirStmt *tir_for_with_step(IrHeap *h, const TirStmt *loop, TirExpr *step);
/* TVM's HasTrivialStep: no step, or the constant 1. */
bool tir_for_trivial_step(const TirStmt *loop);
TirStmt *tir_if(IrHeap *h, TirExpr *c, TirStmt *then_s, TirStmt *else_s);
TirStmt *tir_let_stmt(IrHeap *h, TirVar *v, TirExpr *value, TirStmt *body);
TirStmt *tir_evaluate(IrHeap *h, TirExpr *e);
TirStmt *tir_assert(IrHeap *h, TirExpr *cond, TirExpr *msg, TirStmt *body);
TirStmt *tir_while(IrHeap *h, TirExpr *cond, TirStmt *body);
/* Copies `blk` (arrays included) into a BLOCK statement. */
TirStmt *tir_block(IrHeap *h, const TirBlock *blk);
TirStmt *tir_block_realize(IrHeap *h, TirExpr **values, int n, TirExpr *pred, TirStmt *block);
TirStmt *tir_allocate(IrHeap *h, TirVar *v, DType t, TirExpr **extents, int n, const char *scope,
                      TirStmt *body);
/* T.allocate_const: an allocation of global memory holding data (ndata literals
 * of type t, row-major over extents). */
TirStmt *tir_allocate_const(IrHeap *h, TirVar *v, DType t, TirExpr **extents, int n,
                            TirExpr **data, int ndata, TirStmt *body);
TirStmt *tir_decl_buffer(IrHeap *h, TirBuffer *b, TirStmt *body);
TirStmt *tir_attr_stmt(IrHeap *h, const char *key, TirVar *node, TirExpr *value, TirStmt *body);
/* Copy of s with a different span. */
TirStmt *tir_stmt_with_span(IrHeap *h, const TirStmt *s, Span sp);

TirFunc *tir_func(IrHeap *h, TirVar **params, TirBuffer **buffer_map, int n, TirStmt *body,
                  IrValue *attrs);

/* ------------------------------------------------------------ small queries */

bool tir_is_const_int(const TirExpr *e, int64_t *v);  /* IntImm (any int dtype, bool) */
bool tir_is_one(const TirExpr *e);
bool tir_is_zero(const TirExpr *e);
/* The block realized by a BLOCK_REALIZE statement. */
static inline const TirBlock *tir_realize_block(const TirStmt *realize) {
  return &realize->realize.block->block;
}

#endif
