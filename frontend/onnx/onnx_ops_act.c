/* onnx_ops_act.c - converters of ONNX's activations that the graph level has no
 * single operator for, written as compositions of element-wise operators
 * (HardSigmoid, HardSwish, Softplus, Softsign, Elu, Selu, Celu,
 * ThresholdedRelu, Mish) and Xor. */
#include <string.h>

#include "frontend/onnx/onnx_ops.h"

/* "R.const(v, "float32")" for x's dtype (a static buffer per call site use). */
static const char *k(OxCtx *c, const OxVal *x, double v) {
  static char buf[8][64];
  static int i;
  i = (i + 1) % 8;
  snprintf(buf[i], sizeof buf[i], "R.const(%.9g, \"%s\")", v, ox_dtype_name(x->dt));
  (void)c;
  return buf[i];
}

int ox_cv_activation(OxCtx *c, OxVal **in, int nin) {
  if (nin < 1 || !in[0]) return ox_fail(c, "input 0 is missing");
  OxVal *x = in[0];
  if (x->dt.code != kDLFloat) return ox_fail(c, "%s on %s tensors is not supported", c->node->op_type, ox_dtype_name(x->dt));
  const char *op = c->node->op_type, *xr = ox_ref(c, x);
  double alpha = ox_attr_float(c, "alpha", 1.0);
  if (!strcmp(op, "HardSigmoid") || !strcmp(op, "HardSwish")) {
    bool swish = !strcmp(op, "HardSwish");
    double a = swish ? 1.0 / 6 : ox_attr_float(c, "alpha", 0.2), b = swish ? 0.5 : ox_attr_float(c, "beta", 0.5);
    const char *lin = ox_tmp(c, "R.add(R.multiply(%s, %s), %s)", xr, k(c, x, a), k(c, x, b));
    const char *hs = swish ? ox_tmp(c, "R.clip(%s, 0.0, 1.0)", lin) : NULL;
    if (swish) ox_emit_like(c, 0, x, x->dt, "R.multiply(%s, %s)", xr, hs);
    else ox_emit_like(c, 0, x, x->dt, "R.clip(%s, 0.0, 1.0)", lin);
  } else if (!strcmp(op, "Softplus") || !strcmp(op, "Mish")) {
    const char *sp = ox_tmp(c, "R.log(R.add(R.exp(%s), %s))", xr, k(c, x, 1));
    if (op[0] == 'M') ox_emit_like(c, 0, x, x->dt, "R.multiply(%s, R.tanh(%s))", xr, sp);
    else ox_emit_like(c, 0, x, x->dt, "R.add(%s, %s)", sp, k(c, x, 0));
  } else if (!strcmp(op, "Softsign")) {
    ox_emit_like(c, 0, x, x->dt, "R.divide(%s, R.add(R.abs(%s), %s))", xr, xr, k(c, x, 1));
  } else if (!strcmp(op, "Elu") || !strcmp(op, "Selu")) {
    bool selu = op[0] == 'S';
    double a = selu ? ox_attr_float(c, "alpha", 1.67326319217681884765625) : alpha;
    double g = selu ? ox_attr_float(c, "gamma", 1.05070102214813232421875) : 1.0;
    const char *neg = ox_tmp(c, "R.multiply(R.subtract(R.exp(%s), %s), %s)", xr, k(c, x, 1), k(c, x, a));
    const char *e = ox_tmp(c, "R.where(R.%s(%s, %s), %s, %s)", selu ? "less_equal" : "less", xr, k(c, x, 0), neg, xr);
    ox_emit_like(c, 0, x, x->dt, "R.multiply(%s, %s)", e, k(c, x, g));
  } else if (!strcmp(op, "Celu")) {
    const char *neg = ox_tmp(c, "R.multiply(R.subtract(R.exp(R.divide(%s, %s)), %s), %s)", xr, k(c, x, alpha),
                             k(c, x, 1), k(c, x, alpha));
    ox_emit_like(c, 0, x, x->dt, "R.add(R.maximum(%s, %s), R.minimum(%s, %s))", xr, k(c, x, 0), neg, k(c, x, 0));
  } else { /* ThresholdedRelu */
    ox_emit_like(c, 0, x, x->dt, "R.where(R.greater(%s, %s), %s, %s)", xr, k(c, x, alpha), xr, k(c, x, 0));
  }
  return 0;
}

int ox_cv_xor(OxCtx *c, OxVal **in, int nin) {
  if (nin < 2 || !in[0] || !in[1]) return ox_fail(c, "two inputs are needed");
  OxVal s = {0};
  if (ox_broadcast(c, in[0], in[1], &s)) return -1;
  ox_emit(c, 0, (DLDataType){kDLBool, 8, 1}, s.ndim, s.dims, s.sym, "R.not_equal(%s, %s)", ox_ref(c, in[0]),
          ox_ref(c, in[1]));
  ox_shape_free(&s);
  return 0;
}
