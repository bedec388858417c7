/* onnx_ops_reduce.c - converters of ONNX's reductions: ReduceSum/Mean/Max/
 * Min/Prod (and the L1, L2, SumSquare, LogSum, LogSumExp forms built from
 * them), ArgMax and ArgMin. */
#include <string.h>

#include "frontend/onnx/onnx_ops.h"

/* The reduced axes: an attribute, or (ReduceSum from 13, all from 18) an input.
 * Returns the count (0 = all axes, or none with noop_with_empty_axes), -1 on error. */
static int reduce_axes(OxCtx *c, OxVal **in, int nin, int64_t *axes, bool *noop) {
  int n;
  bool from_input = c->opset >= 18 || (c->opset >= 13 && !strcmp(c->node->op_type, "ReduceSum"));
  if (from_input) n = nin > 1 && in[1] ? ox_const_ints(c, in[1], "the axes input", axes, OX_MAX_NDIM) : 0;
  else n = ox_attr_ints(c, "axes", axes, OX_MAX_NDIM);
  if (n < 0 && from_input) return -1;
  if (n < 0) n = 0;
  *noop = n == 0 && ox_attr_int(c, "noop_with_empty_axes", 0) != 0;
  for (int i = 0; i < n; i++) {
    int a = ox_axis(c, axes[i], in[0]->ndim);
    if (a < 0) return -1;
    axes[i] = a;
  }
  if (n == 0 && !*noop) {
    for (int k = 0; k < in[0]->ndim; k++) axes[k] = k;
    n = in[0]->ndim;
  }
  return n;
}

int ox_cv_reduce(OxCtx *c, OxVal **in, int nin) {
  if (nin < 1 || !in[0]) return ox_fail(c, "input 0 is missing");
  OxVal *x = in[0];
  const char *op = c->node->op_type + 6; /* after "Reduce" */
  int64_t axes[OX_MAX_NDIM], dims[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM] = {0};
  bool noop = false, keep = ox_attr_int(c, "keepdims", 1) != 0, red[OX_MAX_NDIM] = {0};
  int na = reduce_axes(c, in, nin, axes, &noop);
  if (na < 0) return -1;
  if (noop) return ox_alias(c, 0, x), 0;
  for (int i = 0; i < na; i++) red[axes[i]] = true;
  int nd = 0;
  for (int k = 0; k < x->ndim; k++) {
    if (!red[k]) dims[nd] = x->dims[k], sym[nd++] = x->sym[k];
    else if (keep) dims[nd] = 1, sym[nd++] = NULL;
  }
  /* the element transform before the reduction and the one after */
  const char *rop = "sum", *pre = NULL, *post = NULL;
  if (!strcmp(op, "Mean")) rop = "mean";
  else if (!strcmp(op, "Max")) rop = "max";
  else if (!strcmp(op, "Min")) rop = "min";
  else if (!strcmp(op, "Prod")) rop = "prod";
  else if (!strcmp(op, "L1")) pre = "abs";
  else if (!strcmp(op, "L2")) pre = "square", post = "sqrt";
  else if (!strcmp(op, "SumSquare")) pre = "square";
  else if (!strcmp(op, "LogSum")) post = "log";
  else if (!strcmp(op, "LogSumExp")) pre = "exp", post = "log";
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, axes, na);
  const char *xr = ox_ref(c, x);
  if (pre) xr = ox_tmp(c, "R.%s(%s)", pre, xr);
  if (post) {
    const char *r = ox_tmp(c, "R.%s(%s, axis=%s, keepdims=%s)", rop, xr, sb.data, keep ? "True" : "False");
    ox_emit(c, 0, x->dt, nd, dims, sym, "R.%s(%s)", post, r);
  } else {
    ox_emit(c, 0, x->dt, nd, dims, sym, "R.%s(%s, axis=%s, keepdims=%s)", rop, xr, sb.data, keep ? "True" : "False");
  }
  sb_free(&sb);
  return 0;
}

int ox_cv_argreduce(OxCtx *c, OxVal **in, int nin) {
  if (nin < 1 || !in[0]) return ox_fail(c, "input 0 is missing");
  OxVal *x = in[0];
  int axis = ox_axis(c, ox_attr_int(c, "axis", 0), x->ndim);
  if (axis < 0) return -1;
  const char *xr = ox_ref(c, x);
  int64_t n = x->dims[axis];
  bool last = ox_attr_int(c, "select_last_index", 0) != 0;
  if (last && n < 0) return ox_unsupported_attr(c, "select_last_index", "= 1 on a symbolic axis");
  if (last) /* the first extremum of the reversed axis is the last one */
    xr = ox_tmp(c, "R.strided_slice(%s, axes=[%d], begin=[%lld], end=[%lld], strides=[-1])", xr, axis,
                (long long)(n - 1), (long long)(-n - 1));
  bool keep = ox_attr_int(c, "keepdims", 1) != 0;
  int64_t dims[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM] = {0};
  int nd = 0;
  for (int k = 0; k < x->ndim; k++) {
    if (k != axis) dims[nd] = x->dims[k], sym[nd++] = x->sym[k];
    else if (keep) dims[nd] = 1, sym[nd++] = NULL;
  }
  const char *op = !strcmp(c->node->op_type, "ArgMax") ? "argmax" : "argmin";
  if (last) {
    const char *r = ox_tmp(c, "R.%s(%s, axis=%d, keepdims=%s)", op, xr, axis, keep ? "True" : "False");
    ox_emit(c, 0, (DLDataType){kDLInt, 64, 1}, nd, dims, sym, "R.subtract(R.const(%lld, \"int64\"), %s)",
            (long long)(n - 1), r);
  } else {
    ox_emit(c, 0, (DLDataType){kDLInt, 64, 1}, nd, dims, sym, "R.%s(%s, axis=%d, keepdims=%s)", op, xr, axis,
            keep ? "True" : "False");
  }
  return 0;
}
