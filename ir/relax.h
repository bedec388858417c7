/* relax.h - the graph IR (Relax subset): struct info, expressions, bindings, functions.
 *
 * Same memory rules as tir.h: immutable nodes in an IrHeap; RxVar identified by
 * pointer.  Shapes are TIR expressions (int64), so symbolic sizes are TirVars
 * shared with the prim_funcs' world.
 *
 * `R.call_tir(cls.f, (x, w), out_sinfo=S, tir_vars=R.shape([n]))` is a CALL of
 * op "relax.call_tir" with args [GLOBAL_VAR f, TUPLE (x, w), (SHAPE_EXPR [n])]
 * and sinfo_args [S] (or the fields of a tuple S for several outputs), as in TVM. */
#ifndef TVS_IR_RELAX_H
#define TVS_IR_RELAX_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/tir.h"
#include "base/util.h"

typedef struct RxExpr RxExpr;
typedef struct RxSInfo RxSInfo;

typedef enum RxSInfoKind {
  RX_SI_OBJECT,  /* R.Object: anything */
  RX_SI_TENSOR,  /* R.Tensor(shape, dtype) */
  RX_SI_TUPLE,   /* R.Tuple(...) */
  RX_SI_SHAPE,   /* R.Shape([...]) */
  RX_SI_PRIM,    /* R.Prim("int64") */
  RX_SI_FUNC     /* a function value (GlobalVar of a function) */
} RxSInfoKind;

struct RxSInfo {
  RxSInfoKind kind;  /* which fields below are used */
  DType dtype;       /* TENSOR element type (void = unknown); PRIM type */
  int ndim;          /* TENSOR/SHAPE rank, -1 = unknown */
  TirExpr **shape;   /* TENSOR/SHAPE dims (int64 exprs), NULL when unknown */
  RxSInfo **fields;  /* TUPLE fields */
  int nfields;
  Span span;         /* where written */
};

typedef enum RxExprKind {
  RX_VAR,            /* a variable (params, bindings outside dataflow) */
  RX_DATAFLOW_VAR,   /* a variable bound inside `with R.dataflow()` and not output */
  RX_CONST,          /* R.const(...): a tensor constant */
  RX_CALL,           /* op(args...) with attrs and sinfo_args */
  RX_TUPLE,          /* (a, b, ...) */
  RX_TUPLE_GET_ITEM, /* t[i] */
  RX_GLOBAL_VAR,     /* cls.f: a reference to a module function by name */
  RX_EXTERN_FUNC,    /* "name": a packed function named by string (call_dps_packed) */
  RX_SHAPE_EXPR,     /* R.shape([m, n]) */
  RX_PRIM_VALUE,     /* a scalar TIR expression as a value */
  RX_STRING,         /* a string literal argument */
  RX_IF,             /* if cond: ... else: ... (outside dataflow) */
  RX_SEQ             /* blocks of bindings followed by a result expression */
} RxExprKind;

/* --- the operator registry (rows: ir/relax_ops.def; columns: ir/relax_op.h) */

typedef enum RxOpId {
#define X(ID, S, N, MIN, MAX, PAT, ATTRS, INFER, EVAL, LEGAL, BINOP) RX_OP_##ID,
#include "ir/relax_ops.def"
#undef X
  RX_OP_COUNT
} RxOpId;

/* TVM's OpPatternKind, with TVM's values (fusion reads it). */
typedef enum RxOpPattern {
  RX_PAT_ELEMWISE = 0,          /* kElemWise: out[i] = f(in[i]) */
  RX_PAT_BROADCAST = 1,         /* kBroadcast: numpy broadcasting of the inputs */
  RX_PAT_INJECTIVE = 2,         /* kInjective: each output element reads one input element */
  RX_PAT_COMM_REDUCE = 3,       /* kCommReduce: a commutative reduction */
  RX_PAT_OUT_EWISE_FUSABLE = 4, /* kOutEWiseFusable: matmul, conv: element-wise ops fuse after */
  RX_PAT_TUPLE = 7,             /* kTuple */
  RX_PAT_OPAQUE = 8             /* kOpaque: never fused */
} RxOpPattern;

/* How an attribute is written and stored (the IrValue kind in the call's attrs). */
typedef enum RxAttrKind {
  RX_ATTR_DTYPE, /* "float32" or a dtype name; stored as its text ("void" = unset) */
  RX_ATTR_INT,   /* an integer (IRV_INT) */
  RX_ATTR_FLOAT, /* a number (IRV_FLOAT) */
  RX_ATTR_BOOL,  /* True / False (IRV_BOOL) */
  RX_ATTR_STR,   /* a string (IRV_STR) */
  RX_ATTR_INTS,  /* a list of integers (IRV_ARRAY); an int or a shorter list is expanded to `len` */
  RX_ATTR_AXES,  /* None (IRV_NONE), an int or a list of ints (stored as a list) */
  RX_ATTR_FLOATS, /* a list of numbers (IRV_ARRAY of IRV_FLOAT), expanded to `len` like INTS */
  RX_ATTR_OPT_INT,     /* None or an integer (argmax's axis, concat's axis) */
  RX_ATTR_INT_OR_INTS, /* an integer or a list of integers, kept as written (split's indices_or_sections) */
  RX_ATTR_INDEX_MAP,   /* a lambda (or T.index_map(lambda ...)), stored as its canonical text (IRV_STR) */
  RX_ATTR_OPT_NUM,     /* None or a number (layout_transform's pad_value) */
} RxAttrKind;

/* One attribute: stored in the call's attrs dict under `name`, normalized by
 * kind (rx_attr_normalize), in schema order, defaults filled in. */
typedef struct RxAttrSpec {
  const char *name;         /* "out_dtype" */
  RxAttrKind kind;          /* how the value is read and stored */
  const char *default_text; /* value when not written, as source text ("void", "[1, 1]",
                               "None", "NCHW", "1e-05"); NULL = required; "=other" = the
                               value of the earlier attribute `other` (TVM's out_layout) */
  int pos;                  /* may also be written as positional argument `pos`, -1 = keyword only */
  int len;                  /* RX_ATTR_INTS: the stored length (0 = as written); an int is
                               repeated; for len 4, [a, b] becomes [a, b, a, b] (TVM's padding) */
} RxAttrSpec;

/* An operator's attribute schema. */
typedef struct RxAttrSchema {
  bool open;                /* attributes not modelled: every keyword is kept as written */
  bool check_keywords;      /* keywords other than the specs' are errors */
  const RxAttrSpec *specs;  /* the attributes, n of them */
  int n;
} RxAttrSchema;

struct RxInferCall;
struct RxInterpCtx;
struct RxInterpVal;
struct RxLegalizer;
typedef RxSInfo *(*RxInferFn)(const struct RxInferCall *q);
typedef int (*RxEvalFn)(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
typedef struct TirFunc *(*RxLegalizeFn)(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);

/* A Relax operator ("relax.call_tir", "relax.add", "relax.nn.relu", ...): one registry row. */
typedef struct RxOpInfo {
  RxOpId id;               /* RX_OP_ADD, ...; rx_op_info(id) is this row */
  const char *name;        /* TVM's op name, "relax.add" */
  const char *script_name; /* as written after "R.", "add", "nn.relu" */
  int min_args, max_args;  /* positional argument counts accepted */
  RxOpPattern pattern;     /* fusion pattern kind */
  const RxAttrSchema *attrs; /* attribute schema */
  RxInferFn infer;         /* struct-info inference (never NULL) */
  RxEvalFn eval;           /* interpreter semantics, NULL = not supported there */
  RxLegalizeFn legalize;   /* prim_func builder, NULL = not legalized */
  int tir_binop;           /* element operation (TirExprKind) of the binary families, else -1 */
} RxOpInfo;

/* --- attributes (ir/relax_attrs.c) */

/* Checks and normalizes a written attribute value v for spec (or parses the
 * spec's default when v is NULL).  Returns the stored value, or NULL with a
 * message (no trailing period) in err. */
IrValue *rx_attr_normalize(IrHeap *h, const RxAttrSpec *spec, const IrValue *v, StrBuf *err);
/* Typed reads of a call's attrs (what inference, the interpreter and the
 * legalizer use); def when the attribute is absent. */
int64_t rx_attr_int(const IrValue *attrs, const char *name, int64_t def);
double rx_attr_float(const IrValue *attrs, const char *name, double def);
bool rx_attr_bool(const IrValue *attrs, const char *name, bool def);
const char *rx_attr_str(const IrValue *attrs, const char *name, const char *def);
/* A list attribute into out[0..cap): its length, or -1 when it is None or absent. */
int rx_attr_ints(const IrValue *attrs, const char *name, int64_t *out, int cap);
/* A dtype attribute; dt_void when absent or "void". */
DType rx_attr_dtype(const IrValue *attrs, const char *name);

const RxOpInfo *rx_op_lookup(const char *script_name); /* "nn.relu" -> info, NULL if unknown */
const RxOpInfo *rx_op_by_name(const char *name);        /* "relax.nn.relu" -> info */
const RxOpInfo *rx_op_info(RxOpId id);                  /* the row of id (id < RX_OP_COUNT) */
const char *rx_op_pattern_name(RxOpPattern p);          /* "kBroadcast", ... */

typedef struct RxBinding {
  RxExpr *var;        /* RX_VAR or RX_DATAFLOW_VAR being bound */
  RxExpr *value;      /* bound value */
  RxSInfo *cast_to;   /* non-NULL for R.match_cast(value, cast_to) */
  Span span;
} RxBinding;

typedef struct RxBlock {
  bool is_dataflow;     /* `with R.dataflow():` */
  RxBinding *bindings;  /* in order */
  int n;
} RxBlock;

struct RxExpr {
  RxExprKind kind;   /* which union member is used */
  RxSInfo *sinfo;    /* inferred struct info (never NULL after elaboration) */
  Span span;
  union {
    struct { const char *name; } var;                         /* VAR, DATAFLOW_VAR (identity = pointer) */
    struct { DType dtype; int64_t *shape; int ndim; void *data; int64_t nbytes; } cnst; /* CONST: row-major data */
    struct {
      const RxOpInfo *op;   /* the operator; NULL for a call of a graph function */
      RxExpr *callee;       /* op == NULL: the GLOBAL_VAR called (`cls.fused_add(x)`), else NULL */
      RxExpr **args; int n; /* arguments */
      IrValue *attrs;       /* op attributes (e.g. out_dtype), NULL if none */
      RxSInfo **sinfo_args; int nsinfo_args; /* call_tir out_sinfo etc. */
    } call;                                                   /* CALL */
    struct { RxExpr **fields; int n; } tuple;                 /* TUPLE */
    struct { RxExpr *tuple; int index; } get;                 /* TUPLE_GET_ITEM */
    struct { const char *name; } gvar;                        /* GLOBAL_VAR, EXTERN_FUNC */
    struct { TirExpr **values; int n; } shape;                /* SHAPE_EXPR */
    struct { TirExpr *value; } prim;                          /* PRIM_VALUE */
    struct { const char *value; } str;                        /* STRING */
    struct { RxExpr *cond, *then_e, *else_e; } ifs;           /* IF (branches are SEQs) */
    struct { RxBlock *blocks; int nblocks; RxExpr *body; } seq; /* SEQ */
  };
};

typedef struct RxFunc {
  RxExpr **params;     /* RX_VAR parameters with their sinfo */
  int nparams;
  RxSInfo *ret_sinfo;  /* declared return struct info (NULL = inferred) */
  RxExpr *body;        /* an RX_SEQ */
  IrValue *attrs;      /* R.func_attr dict plus "global_symbol", or NULL */
  bool is_pure;        /* false for @R.function(pure=False) */
  TirVar **sym_vars;   /* symbolic size vars declared by string dims / T.int64() */
  int nsym_vars;
  Span span;
} RxFunc;

/* constructors (arrays are copied into the heap) */
RxSInfo *rx_sinfo_object(IrHeap *h);
RxSInfo *rx_sinfo_tensor(IrHeap *h, TirExpr **shape, int ndim, DType dtype);
RxSInfo *rx_sinfo_tuple(IrHeap *h, RxSInfo **fields, int n);
RxSInfo *rx_sinfo_shape(IrHeap *h, TirExpr **values, int ndim);
RxSInfo *rx_sinfo_prim(IrHeap *h, DType t);

/* The outputs of a call_tir-style call (its out_sinfo) as a flat list of
 * *n entries: the fields of one tuple sinfo, or the sinfo_args themselves;
 * *tuple (may be NULL) tells whether the call returns a tuple. */
const RxSInfo *const *rx_call_outputs(const RxExpr *e, int *n, bool *tuple);

RxExpr *rx_var(IrHeap *h, const char *name, RxSInfo *sinfo, bool dataflow);
RxExpr *rx_call(IrHeap *h, const RxOpInfo *op, RxExpr **args, int n, IrValue *attrs,
                RxSInfo **sinfo_args, int nsinfo, RxSInfo *result);
/* A call of the module's graph function `callee` (a GLOBAL_VAR): `cls.f(args)`. */
RxExpr *rx_call_func(IrHeap *h, RxExpr *callee, RxExpr **args, int n, RxSInfo *result);
RxExpr *rx_tuple(IrHeap *h, RxExpr **fields, int n);
RxExpr *rx_tuple_get(IrHeap *h, RxExpr *t, int index);
RxExpr *rx_global_var(IrHeap *h, const char *name);
RxExpr *rx_extern_func(IrHeap *h, const char *name);
RxExpr *rx_shape_expr(IrHeap *h, TirExpr **values, int n);
RxExpr *rx_prim_value(IrHeap *h, TirExpr *v);
RxExpr *rx_const(IrHeap *h, DType t, const int64_t *shape, int ndim, const void *data);
RxExpr *rx_seq(IrHeap *h, RxBlock *blocks, int nblocks, RxExpr *body);

#endif
