/* specialize.h - PrimFunc specialization (TVM's PrimFunc.specialize): bind a
 * template prim_func's size and attribute vars to values and simplify.
 *
 * The operator library (stdlib/) writes each fixed-rank computation once,
 * over symbolic size vars (N, C, H, W...) and attribute vars (stride_h,
 * pad_top...); legalization binds them to a call's constants or its graph's
 * symbolic dims and gets the prim_func TVM's TOPI would have produced. */
#ifndef TVS_IR_SPECIALIZE_H
#define TVS_IR_SPECIALIZE_H

#include "ir/tir.h"

/* f with vars[i] replaced by values[i] everywhere (buffer shapes, loops, block
 * iters, bodies), then simplified with the loop and block-iter ranges known:
 * integer expressions take the analyzer's canonical form, conditions that
 * always hold fold away (T.if_then_else(True, a, b) -> a, also inside `and`
 * chains), and each block's T.reads/T.writes are inferred again.  New nodes
 * go into h; f is not changed.  Vars not listed stay symbolic. */
TirFunc *tir_specialize(IrHeap *h, const TirFunc *f, TirVar *const *vars, TirExpr *const *values, int n);

/* Removes block `name` when it is a plain copy of a parameter buffer
 * (X[v0, v1, ...] = A[v0, v1, ...] over X's whole shape): its uses read A and
 * its allocation goes (TOPI skips a pad stage that pads nothing).  Returns f
 * itself when there is no such block. */
TirFunc *tir_inline_copy_block(IrHeap *h, const TirFunc *f, const char *name);

/* f with every float32 buffer, value and literal made dtype `to` (float16,
 * bfloat16, float64, or an integer type): the templates are written once in
 * float32.  A literal at float32's limits (a max pool's padding value) becomes
 * the limit of `to`.  Returns f itself when `to` is float32. */
TirFunc *tir_retype(IrHeap *h, const TirFunc *f, DType to);

/* f with its output (last param) buffer made dtype `to` and every value
 * stored into it computed in `to`, its operands cast (TOPI's out_dtype:
 * T.Cast("int32", a) * T.Cast("int32", w)).  f itself when already `to`. */
TirFunc *tir_retype_output(IrHeap *h, const TirFunc *f, DType to);

#endif
