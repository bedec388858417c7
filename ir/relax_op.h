/* relax_op.h - the Relax operator registry's column types and family functions.
 *
 * Every operator is one row of ir/relax_ops.def (see its header): its names,
 * argument counts, TVM's fusion pattern kind, its attribute schema and three
 * function columns -- struct-info inference (ir/relax_op_infer.c), reference
 * semantics for the graph interpreter (ir/interp_relax.c) and legalization to a
 * prim_func (ir/transform/relax_legalize_ops.c).  A row names a family function
 * shared by similar operators (one broadcast-binary inference for add, subtract,
 * ...); the row's own columns (tir_binop, names) tell the family which operator
 * it is serving.  NULL in the interpreter or legalizer column means "not
 * supported there". */
#ifndef TVS_IR_RELAX_OP_H
#define TVS_IR_RELAX_OP_H

#include "ir/relax.h"
#include "base/arena.h"
#include "base/diag.h"
#include "base/util.h"

/* --- struct-info inference (ir/relax_op_infer.c) */

/* One call to infer: the operands' struct infos and the call's attributes. */
typedef struct RxInferCall {
  IrHeap *h;                /* where the result struct info is made */
  Arena *scratch;           /* temporary arrays and message text */
  DiagCtx *diag;            /* errors go here */
  const RxOpInfo *op;       /* the operator */
  RxSInfo *const *args;     /* operand struct infos; NULL for an attribute operand (astype's dtype) */
  const Span *arg_spans;    /* where each operand was written */
  int n;                    /* number of operands */
  const IrValue *attrs;     /* the call's attribute dict (schema applied), or NULL */
  RxSInfo **sinfo_args;     /* call_tir-style out_sinfo fields */
  int nsinfo_args;
  bool out_tuple;           /* out_sinfo was written as a list: the result is a tuple */
  Span span;                /* the call, for messages */
} RxInferCall;

/* Shared inference rules named by the rows of relax_ops.def.  Each returns the
 * call's struct info or NULL after reporting an error. */
RxSInfo *rx_infer_dps(const RxInferCall *q);            /* call_tir & co: the out_sinfo */
RxSInfo *rx_infer_packed(const RxInferCall *q);         /* call_packed: sinfo_args[0] or R.Object */
RxSInfo *rx_infer_object(const RxInferCall *q);         /* print: R.Object */
RxSInfo *rx_infer_binary_bcast(const RxInferCall *q);   /* add ...: numpy broadcasting */
RxSInfo *rx_infer_compare_bcast(const RxInferCall *q);  /* equal ...: broadcasting, bool result */
RxSInfo *rx_infer_astype(const RxInferCall *q);         /* astype: operand shape, dtype attribute */
RxSInfo *rx_infer_unary_same(const RxInferCall *q);     /* exp ...: the operand's struct info */
RxSInfo *rx_infer_first_dtype(const RxInferCall *q);    /* not yet shaped: a tensor of the first operand's dtype, unknown rank */

/* Struct info and shapes as the elaborator's messages write them. */
void rx_sinfo_str(StrBuf *sb, const RxSInfo *s);
void rx_shape_str(StrBuf *sb, TirExpr **shape, int n);
bool rx_dim_eq(const TirExpr *a, const TirExpr *b);     /* structurally the same size expression */
bool rx_dim_may_eq(const TirExpr *a, const TirExpr *b); /* false only for two distinct constants */

/* --- interpreter (ir/interp_relax.c) */

/* Reference semantics: each evaluates the call's operands itself (call_tir
 * does not evaluate its callee), returns 0 and one reference in *out, or -1
 * after reporting an error. */
int rx_eval_call_tir(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_binary(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out); /* op->tir_binop */
int rx_eval_relu(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);

/* --- legalization (ir/transform/relax_legalize_ops.c) */

/* Each builds the prim_func for a call whose operands and result are tensors of
 * known shape and returns the call_tir arguments in args[0..*nargs); NULL when
 * the call cannot be legalized (it then stays as it is).  The prim_func is
 * named after the TVM op name's last component ("relax.nn.relu" -> "relu"). */
struct TirFunc *rx_legalize_binary(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_relu(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);

/* --- per-family declarations: attribute schemas (RxAttrSchema objects named by
 *     the ATTRS column), inference, interpreter and legalization functions of
 *     each family of relax_ops.def, in the family's section. */

/* element-wise family */

/* attribute schemas (ir/relax_op_elemwise.c, ir/relax_op_norm.c) */
extern const RxAttrSchema rx_attrs_leakyrelu[1], rx_attrs_dropout[1], rx_attrs_softmax[1];
extern const RxAttrSchema rx_attrs_zeros[1], rx_attrs_full[1], rx_attrs_like[1];
extern const RxAttrSchema rx_attrs_layer_norm[1], rx_attrs_group_norm[1], rx_attrs_batch_norm[1];

/* inference (ir/relax_op_elemwise.c, ir/relax_op_norm.c) */
RxSInfo *rx_infer_ew_unary(const RxInferCall *q);      /* exp, gelu ...: float-only ones checked */
RxSInfo *rx_infer_clip(const RxInferCall *q);          /* clip(x, min, max): PrimValue bounds */
RxSInfo *rx_infer_logical_bcast(const RxInferCall *q); /* logical_and/or: bool operands */
RxSInfo *rx_infer_where(const RxInferCall *q);         /* where(cond, a, b): 3-way broadcasting */
RxSInfo *rx_infer_dropout(const RxInferCall *q);       /* (out, mask) */
RxSInfo *rx_infer_softmax(const RxInferCall *q);       /* softmax, log_softmax: axis */
RxSInfo *rx_infer_create(const RxInferCall *q);        /* zeros, ones, full and their _like */
RxSInfo *rx_infer_layer_norm(const RxInferCall *q);
RxSInfo *rx_infer_group_norm(const RxInferCall *q);
RxSInfo *rx_infer_batch_norm(const RxInferCall *q);   /* (out, moving_mean, moving_var) */

/* interpreter (ir/interp_relax_elemwise.c, ir/interp_relax_norm.c) */
int rx_eval_ew_unary(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_ew_binary(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_where(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_dropout(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_create(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_softmax(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_layer_norm(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_group_norm(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_batch_norm(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);

/* legalization (ir/transform/legalize_elemwise.c, ir/transform/legalize_norm.c) */
struct TirFunc *rx_legalize_ew_unary(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_ew_binary(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_where(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_dropout(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_create(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_softmax(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_layer_norm(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_group_norm(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_batch_norm(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);

/* tensor family (ir/relax_op_tensor.c, ir/interp_relax_tensor.c, ir/transform/legalize_tensor.c) */
extern const RxAttrSchema rx_attrs_matmul[1], rx_attrs_linear[1], rx_attrs_reduce[1], rx_attrs_argreduce[1],
    rx_attrs_permute_dims[1], rx_attrs_squeeze[1], rx_attrs_expand_dims[1], rx_attrs_concat[1], rx_attrs_split[1],
    rx_attrs_strided_slice[1], rx_attrs_take[1], rx_attrs_tile[1], rx_attrs_repeat[1], rx_attrs_shape_arg[1];
#define RX_TENSOR_FAMILY(X) X(matmul) X(linear) X(reduce) X(argreduce) X(reshape) X(permute_dims) \
  X(concat) X(split) X(strided_slice) X(take) X(broadcast_to) X(tile) X(repeat)
#define RX_TENSOR_INFER(N) RxSInfo *rx_infer_##N(const RxInferCall *q);
#define RX_TENSOR_EVAL(N) int rx_eval_##N(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
#define RX_TENSOR_LEGAL(N) \
  struct TirFunc *rx_legalize_##N(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
RX_TENSOR_FAMILY(RX_TENSOR_INFER)
RX_TENSOR_FAMILY(RX_TENSOR_EVAL)
RX_TENSOR_FAMILY(RX_TENSOR_LEGAL)
RxSInfo *rx_infer_squeeze(const RxInferCall *q);
RxSInfo *rx_infer_expand_dims(const RxInferCall *q);
RxSInfo *rx_infer_flatten(const RxInferCall *q);
/* split's pieces of an axis of size dim (starts, sizes; count or -1); a numpy slice's start and count */
int rx_split_pieces(const IrValue *attrs, int64_t dim, int64_t *beg, int64_t *len, int cap);
void rx_slice_range(int64_t dim, int64_t b, int64_t e, int64_t s, int64_t *start, int64_t *count);
TirExpr *rx_slice_expr(IrHeap *h, TirExpr *dim, int64_t b, int64_t e, int64_t s, TirExpr **start);

/* spatial family (ir/relax_op_spatial.c, ir/interp_relax_spatial.c,
 * ir/transform/legalize_spatial.c; computations in stdlib/nn, stdlib/image) */
extern const RxAttrSchema rx_attrs_conv2d[1];
extern const RxAttrSchema rx_attrs_conv2d_transpose[1];
extern const RxAttrSchema rx_attrs_pool2d[1];
extern const RxAttrSchema rx_attrs_adaptive_pool2d[1];
extern const RxAttrSchema rx_attrs_resize2d[1];
/* pos[i] = where canon[i] sits in layout ("NHWC", "NCHW" -> 0, 3, 1, 2); false
 * when layout is not a permutation of canon. */
bool rx_layout_axes(const char *layout, const char *canon, int *pos);
/* A layout string (ir/relax_layout.c): axis[i] a letter, factor[i] the
 * sub-axis factor ("16c": 16) or 0 for a primal (upper-case) axis. */
#define RX_LAYOUT_MAX 8
typedef struct RxLayout {
  int ndim;
  char axis[RX_LAYOUT_MAX + 1];
  int64_t factor[RX_LAYOUT_MAX];
} RxLayout;
bool rx_layout_parse(const char *s, RxLayout *l);
/* Where canon's axes sit in a (possibly blocked) layout: pos[i] the primal
 * axis, sub[i] its sub-axis (-1: none) of factor fac[i] (1: none). */
typedef struct RxLayoutMap {
  int ndim;
  bool blocked;
  int pos[4], sub[4];
  int64_t fac[4];
} RxLayoutMap;
bool rx_layout_map(const char *layout, const char *canon, RxLayoutMap *m);
/* The layout's index (m->ndim entries) of canonical index canon_idx[0..n). */
void rx_layout_index(const RxLayoutMap *m, const int64_t *canon_idx, int n, int64_t *idx);
/* R.layout_transform's index_map (ir/relax_index_map.c): output i of the
 * lambda is param v (VAR), v // k (DIV), v % k (MOD) or v * k + u (FUSE). */
typedef enum RxImKind { RX_IM_VAR, RX_IM_DIV, RX_IM_MOD, RX_IM_FUSE } RxImKind;
typedef struct RxIndexMapEntry {
  RxImKind kind;
  int v, u;
  int64_t k;
} RxIndexMapEntry;
typedef struct RxIndexMap {
  int nin, nout;
  char names[RX_LAYOUT_MAX][32];
  RxIndexMapEntry out[RX_LAYOUT_MAX];
} RxIndexMap;
/* Parses the lambda's text; false with a message in err (bijective maps of those forms only). */
bool rx_index_map_parse(const char *text, RxIndexMap *m, StrBuf *err);
/* The canonical text of m ("lambda n, c, h, w: (n, c // 16, h, w, c % 16)"). */
void rx_index_map_print(const RxIndexMap *m, StrBuf *sb);
/* The input index of output index out_idx. */
void rx_index_map_inverse(const RxIndexMap *m, const int64_t *out_idx, int64_t *in_idx);
extern const RxAttrSchema rx_attrs_layout_transform[1];
RxSInfo *rx_infer_layout_transform(const RxInferCall *q);
int rx_eval_layout_transform(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
struct TirFunc *rx_legalize_layout_transform(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
RxSInfo *rx_infer_conv2d(const RxInferCall *q);        /* conv2d and conv2d_transpose */
RxSInfo *rx_infer_pool2d(const RxInferCall *q);        /* max_pool2d, avg_pool2d */
RxSInfo *rx_infer_adaptive_pool2d(const RxInferCall *q);
RxSInfo *rx_infer_resize2d(const RxInferCall *q);
int rx_eval_conv2d(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_conv2d_transpose(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_pool2d(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_adaptive_pool2d(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
int rx_eval_resize2d(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out);
struct TirFunc *rx_legalize_conv2d(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_conv2d_transpose(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_pool2d(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_adaptive_pool2d(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);
struct TirFunc *rx_legalize_resize2d(struct RxLegalizer *g, const RxExpr *call, RxExpr **args, int *nargs);

#endif
