/* relax.c - graph IR constructors and the operator table. */
#include "ir/relax.h"
#include "ir/relax_op.h"
#include "base/util.h"

#include <string.h>

/* Attribute schemas named by the ATTRS column of relax_ops.def. */
static const RxAttrSpec astype_attrs[] = {{"dtype", RX_ATTR_DTYPE, NULL, 1, 0}};
static const RxAttrSchema rx_attrs_none[1] = {{false, true, NULL, 0}};
/* astype ignores keywords (as TVS always has); its dtype is the second positional argument */
static const RxAttrSchema rx_attrs_astype[1] = {{false, false, astype_attrs, 1}};

static const RxOpInfo rx_ops[] = {
#define X(ID, S, N, MIN, MAX, PAT, ATTRS, INFER, EVAL, LEGAL, BINOP) \
  {RX_OP_##ID, N, S, MIN, MAX, RX_PAT_##PAT, ATTRS, INFER, EVAL, LEGAL, BINOP},
#include "ir/relax_ops.def"
#undef X
};
#define N_RX_OPS ((int)(sizeof rx_ops / sizeof rx_ops[0]))

const RxOpInfo *rx_op_lookup(const char *script_name) {
  for (int i = 0; i < N_RX_OPS; i++)
    if (!strcmp(rx_ops[i].script_name, script_name)) return &rx_ops[i];
  return NULL;
}

const RxOpInfo *rx_op_by_name(const char *name) {
  for (int i = 0; i < N_RX_OPS; i++)
    if (!strcmp(rx_ops[i].name, name)) return &rx_ops[i];
  return NULL;
}

const RxOpInfo *rx_op_info(RxOpId id) { return (int)id >= 0 && id < RX_OP_COUNT ? &rx_ops[id] : NULL; }

const char *rx_op_pattern_name(RxOpPattern p) {
  switch (p) {
  case RX_PAT_ELEMWISE: return "kElemWise";
  case RX_PAT_BROADCAST: return "kBroadcast";
  case RX_PAT_INJECTIVE: return "kInjective";
  case RX_PAT_COMM_REDUCE: return "kCommReduce";
  case RX_PAT_OUT_EWISE_FUSABLE: return "kOutEWiseFusable";
  case RX_PAT_TUPLE: return "kTuple";
  case RX_PAT_OPAQUE: return "kOpaque";
  }
  return "?";
}

#define COPY_ARRAY(h, p, n) ((n) ? ir_memdup((h), (p), (size_t)(n) * sizeof *(p)) : NULL)

static RxSInfo *mk_si(IrHeap *h, RxSInfoKind k) {
  RxSInfo *s = ir_alloc(h, sizeof *s);
  s->kind = k;
  s->dtype = dt_void;
  s->ndim = -1;
  s->span = span_none;
  return s;
}

RxSInfo *rx_sinfo_object(IrHeap *h) { return mk_si(h, RX_SI_OBJECT); }

RxSInfo *rx_sinfo_tensor(IrHeap *h, TirExpr **shape, int ndim, DType dtype) {
  RxSInfo *s = mk_si(h, RX_SI_TENSOR);
  s->dtype = dtype;
  s->ndim = ndim;
  s->shape = shape ? ir_alloc(h, (size_t)(ndim > 0 ? ndim : 1) * sizeof *shape) : NULL;
  if (shape)
    for (int i = 0; i < ndim; i++) s->shape[i] = shape[i];
  return s;
}

RxSInfo *rx_sinfo_tuple(IrHeap *h, RxSInfo **fields, int n) {
  RxSInfo *s = mk_si(h, RX_SI_TUPLE);
  s->fields = COPY_ARRAY(h, fields, n);
  s->nfields = n;
  return s;
}

RxSInfo *rx_sinfo_shape(IrHeap *h, TirExpr **values, int ndim) {
  RxSInfo *s = mk_si(h, RX_SI_SHAPE);
  s->ndim = ndim;
  s->shape = values ? ir_alloc(h, (size_t)(ndim > 0 ? ndim : 1) * sizeof *values) : NULL;
  if (values)
    for (int i = 0; i < ndim; i++) s->shape[i] = values[i];
  return s;
}

RxSInfo *rx_sinfo_prim(IrHeap *h, DType t) {
  RxSInfo *s = mk_si(h, RX_SI_PRIM);
  s->dtype = t;
  return s;
}

static RxExpr *mk_rx(IrHeap *h, RxExprKind k, RxSInfo *si) {
  RxExpr *e = ir_alloc(h, sizeof *e);
  e->kind = k;
  e->sinfo = si;
  e->span = span_none;
  return e;
}

RxExpr *rx_var(IrHeap *h, const char *name, RxSInfo *sinfo, bool dataflow) {
  RxExpr *e = mk_rx(h, dataflow ? RX_DATAFLOW_VAR : RX_VAR, sinfo);
  e->var.name = ir_strdup(h, name);
  return e;
}

RxExpr *rx_call(IrHeap *h, const RxOpInfo *op, RxExpr **args, int n, IrValue *attrs,
                RxSInfo **sinfo_args, int nsinfo, RxSInfo *result) {
  RxExpr *e = mk_rx(h, RX_CALL, result);
  e->call.op = op;
  e->call.args = COPY_ARRAY(h, args, n);
  e->call.n = n;
  e->call.attrs = attrs;
  e->call.sinfo_args = COPY_ARRAY(h, sinfo_args, nsinfo);
  e->call.nsinfo_args = nsinfo;
  return e;
}

RxExpr *rx_call_func(IrHeap *h, RxExpr *callee, RxExpr **args, int n, RxSInfo *result) {
  RxExpr *e = rx_call(h, NULL, args, n, NULL, NULL, 0, result);
  e->call.callee = callee;
  return e;
}

RxExpr *rx_tuple(IrHeap *h, RxExpr **fields, int n) {
  RxSInfo **fs = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *fs);
  for (int i = 0; i < n; i++) fs[i] = fields[i]->sinfo;
  RxExpr *e = mk_rx(h, RX_TUPLE, rx_sinfo_tuple(h, fs, n));
  e->tuple.fields = COPY_ARRAY(h, fields, n);
  e->tuple.n = n;
  return e;
}

RxExpr *rx_tuple_get(IrHeap *h, RxExpr *t, int index) {
  RxSInfo *si = t->sinfo && t->sinfo->kind == RX_SI_TUPLE && index >= 0 && index < t->sinfo->nfields
                    ? t->sinfo->fields[index]
                    : rx_sinfo_object(h);
  RxExpr *e = mk_rx(h, RX_TUPLE_GET_ITEM, si);
  e->get.tuple = t;
  e->get.index = index;
  return e;
}

RxExpr *rx_global_var(IrHeap *h, const char *name) {
  RxExpr *e = mk_rx(h, RX_GLOBAL_VAR, mk_si(h, RX_SI_FUNC));
  e->gvar.name = ir_strdup(h, name);
  return e;
}

RxExpr *rx_extern_func(IrHeap *h, const char *name) {
  RxExpr *e = mk_rx(h, RX_EXTERN_FUNC, mk_si(h, RX_SI_FUNC));
  e->gvar.name = ir_strdup(h, name);
  return e;
}

RxExpr *rx_shape_expr(IrHeap *h, TirExpr **values, int n) {
  RxExpr *e = mk_rx(h, RX_SHAPE_EXPR, rx_sinfo_shape(h, values, n));
  e->shape.values = COPY_ARRAY(h, values, n);
  e->shape.n = n;
  return e;
}

RxExpr *rx_prim_value(IrHeap *h, TirExpr *v) {
  RxExpr *e = mk_rx(h, RX_PRIM_VALUE, rx_sinfo_prim(h, v->dtype));
  e->prim.value = v;
  return e;
}

RxExpr *rx_const(IrHeap *h, DType t, const int64_t *shape, int ndim, const void *data) {
  TirExpr **dims = ir_alloc(h, (size_t)(ndim ? ndim : 1) * sizeof *dims);
  int64_t count = 1;
  for (int i = 0; i < ndim; i++) {
    dims[i] = tir_int(h, dt_int64, shape[i]);
    count *= shape[i];
  }
  RxExpr *e = mk_rx(h, RX_CONST, rx_sinfo_tensor(h, dims, ndim, t));
  e->cnst.dtype = t;
  e->cnst.shape = COPY_ARRAY(h, shape, ndim);
  e->cnst.ndim = ndim;
  e->cnst.nbytes = count * (int64_t)dt_bytes(t);
  e->cnst.data = ir_memdup(h, data, (size_t)e->cnst.nbytes);
  return e;
}

RxExpr *rx_seq(IrHeap *h, RxBlock *blocks, int nblocks, RxExpr *body) {
  RxExpr *e = mk_rx(h, RX_SEQ, body ? body->sinfo : rx_sinfo_object(h));
  e->seq.blocks = ir_alloc(h, (size_t)(nblocks ? nblocks : 1) * sizeof *blocks);
  for (int i = 0; i < nblocks; i++) {
    e->seq.blocks[i].is_dataflow = blocks[i].is_dataflow;
    e->seq.blocks[i].n = blocks[i].n;
    e->seq.blocks[i].bindings = COPY_ARRAY(h, blocks[i].bindings, blocks[i].n);
  }
  e->seq.nblocks = nblocks;
  e->seq.body = body;
  return e;
}

const RxSInfo *const *rx_call_outputs(const RxExpr *e, int *n, bool *tuple) {
  const RxSInfo *const *osi = (const RxSInfo *const *)e->call.sinfo_args;
  *n = e->call.nsinfo_args;
  bool t = *n > 1;
  if (*n == 1 && osi[0]->kind == RX_SI_TUPLE) {
    t = true;
    *n = osi[0]->nfields;
    osi = (const RxSInfo *const *)osi[0]->fields;
  }
  if (tuple) *tuple = t;
  return osi;
}
