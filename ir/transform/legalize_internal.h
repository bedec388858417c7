/* legalize_internal.h - what the legalization files share: the pass state
 * and the prim_func builders (TOPI's compute/placeholder, in C).  The pass
 * itself (the graph walk, naming, dedup) is relax_legalize_ops.c; each
 * operator family's builders are in legalize_<family>.c and are named by the
 * LEGALIZE column of ir/relax_ops.def.
 *
 * A builder gets the call (operands with known struct info; a tuple operand
 * such as concat's is an RX_TUPLE or a var of tuple sinfo), returns the
 * prim_func and the call_tir arguments in args[0..*nargs) (*nargs <=
 * LG_MAX_ARGS; tuple operands are passed as their fields), or NULL to leave
 * the call as it is. */
#ifndef TVS_IR_TRANSFORM_LEGALIZE_INTERNAL_H
#define TVS_IR_TRANSFORM_LEGALIZE_INTERNAL_H

#include "ir/transform/xform_internal.h"
#include "ir/relax_op.h"

/* The pass's state over one module. */
typedef struct RxLegalizer {
  IrHeap *h;            /* the new module's heap */
  const IrModule *in;   /* the module being legalized (names taken) */
  IrModule *out;        /* the result */
  PtrVec gen_names;     /* generated function names (char*, heap) */
  PtrVec gen_funcs;     /* and their TirFuncs, for reuse */
  PtrVec pending_names; /* generated for the graph function being rewritten */
  PtrVec pending_funcs;
  const char *name_hint; /* set by a builder: the prim_func's name when not the op's
                            last name component (TVM's primfunc_name_hint: tir_exp) */
} Lg;

/* Graph size vars -> the prim_func's own vars (same names, int64). */
typedef struct VarMap {
  IrPtrMap map;
} VarMap;

typedef struct Nest {
  int n;                 /* number of block iters */
  TirExpr **extents;     /* their extents */
  TirIterType *types;    /* spatial / reduce */
  const char **names;    /* loop names */
  TirVar **iters;        /* filled: the block iter vars */
} Nest;

/* The most tensors a legalized call passes to its prim_func. */
#define LG_MAX_ARGS 64

/* A graph size var (or expression of them) as the prim_func's own size vars
 * (same names, marked size vars), recorded in vm. */
TirExpr *lg_map_dim(Lg *g, VarMap *vm, TirExpr *e);
bool lg_static_shape(const TirBuffer *b);
/* A parameter buffer called name with sinfo si's shape (vars mapped). */
TirBuffer *lg_param_buffer(Lg *g, VarMap *vm, const char *name, const RxSInfo *si);
/* A tensor of known rank, shape and scalar dtype. */
bool lg_known_tensor(const RxSInfo *si);
/* A 0-d constant (a literal in the prim_func, as TVM's legalization does). */
bool lg_scalar_const(const RxExpr *e);
TirExpr *lg_const_literal(IrHeap *h, const RxExpr *e, DType to);
/* The prim_func around one block: loops over nest->extents named
 * nest->names, block iters nest->iters bound to them, optional init. */
TirStmt *lg_build_block(Lg *g, const char *block_name, Nest *nest, TirStmt *init, TirStmt *body_of_iters);
/* The prim_func of buffer params bufs (inputs then outputs) around `nest`
 * (several nests: wrap them in a seq first); root block, tir.noalias. */
TirFunc *lg_wrap_func(Lg *g, TirBuffer **bufs, int nbufs, TirStmt *nest);
TirExpr *lg_load(IrHeap *h, TirBuffer *b, TirExpr **idx);
/* A nest over ext[0..nd) with loops <prefix>0.. and iters v_<prefix>0.. (all spatial). */
void lg_iter_nest(Lg *g, Nest *n, TirExpr **ext, int nd, const char *prefix);
void lg_nest_free(Nest *n);
/* The index of operand buffer b inside an output nest of rank nd (numpy broadcasting). */
TirExpr **lg_bcast_index(IrHeap *h, const TirBuffer *b, TirExpr **oshape, TirVar **iters, int nd);

#endif
