/* relax_op_layout.c - R.layout_transform (TVM's relax.layout_transform):
 * its attribute schema and struct-info inference.  The index map's outputs
 * give the result's dims: v -> dim(v), v // k -> dim(v) / k, v % k -> k,
 * v * k + u -> dim(v) * k.  A factor must divide its axis (no padding). */
#include "ir/relax_op.h"

#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"

static const RxAttrSpec layout_transform_specs[] = {
    {"index_map", RX_ATTR_INDEX_MAP, NULL, 1, 0},
    {"pad_value", RX_ATTR_OPT_NUM, "None", 2, 0},
    {"axis_separators", RX_ATTR_AXES, "None", 3, 0},
    {"input_axis_separators", RX_ATTR_AXES, "None", 4, 0},
};
const RxAttrSchema rx_attrs_layout_transform[1] = {{false, true, layout_transform_specs, 4}};

static char *shape_text(const RxSInfo *s) {
  StrBuf sb;
  sb_init(&sb);
  rx_shape_str(&sb, s->shape, s->ndim);
  return sb.data;
}

/* The result dim of output entry e; NULL after an error. */
static TirExpr *out_dim(const RxInferCall *q, const RxSInfo *x, const RxIndexMapEntry *e) {
  IrHeap *h = q->h;
  TirExpr *d = x->shape[e->v];
  int64_t v;
  switch (e->kind) {
  case RX_IM_VAR: return d;
  case RX_IM_MOD: return tir_int(h, d->dtype, e->k);
  case RX_IM_DIV:
    if (tir_is_const_int(d, &v) && v % e->k) {
      char *st = shape_text(x);
      diag_error(q->diag, q->span, "R.layout_transform: the factor %lld does not divide axis %d (%lld) of data (shape %s)",
                 (long long)e->k, e->v, (long long)v, st);
      free(st);
      return NULL;
    }
    return tir_binary(h, TIR_FLOORDIV, d, tir_int(h, d->dtype, e->k));
  case RX_IM_FUSE:
    if (tir_is_const_int(x->shape[e->u], &v) && v != e->k) {
      char *st = shape_text(x);
      diag_error(q->diag, q->span, "R.layout_transform: axis %d of data (shape %s) must be %lld to fuse it", e->u, st,
                 (long long)e->k);
      free(st);
      return NULL;
    }
    return tir_binary(h, TIR_MUL, d, tir_int(h, d->dtype, e->k));
  }
  return NULL;
}

RxSInfo *rx_infer_layout_transform(const RxInferCall *q) {
  const RxSInfo *x = q->args[0];
  if (!x || x->kind != RX_SI_TENSOR) {
    diag_error(q->diag, q->arg_spans[0], "R.layout_transform expects a tensor");
    return NULL;
  }
  RxIndexMap m;
  StrBuf err;
  sb_init(&err);
  bool ok = rx_index_map_parse(rx_attr_str(q->attrs, "index_map", ""), &m, &err);
  if (!ok) diag_error(q->diag, q->span, "R.layout_transform: %s", err.data);
  sb_free(&err);
  if (!ok) return NULL;
  if (x->ndim >= 0 && x->ndim != m.nin) {
    char *st = shape_text(x);
    diag_error(q->diag, q->span, "R.layout_transform: index_map takes %d axes but data is %d-D (shape %s)", m.nin,
               x->ndim, st);
    free(st);
    return NULL;
  }
  if (!x->shape) return rx_sinfo_tensor(q->h, NULL, m.nout, x->dtype);
  TirExpr *shape[RX_LAYOUT_MAX];
  ArithCtx *a = arith_new(q->h);
  for (int i = 0; i < m.nout && ok; i++) {
    shape[i] = out_dim(q, x, &m.out[i]);
    ok = shape[i] != NULL;
    if (ok) shape[i] = arith_simplify(a, shape[i]);
  }
  arith_free(a);
  return ok ? rx_sinfo_tensor(q->h, shape, m.nout, x->dtype) : NULL;
}
