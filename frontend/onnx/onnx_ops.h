/* onnx_ops.h - the converters of the table in onnx_ops.c, one family per file
 * (onnx_ops_elemwise.c, onnx_ops_nn.c, onnx_ops_tensor.c, onnx_ops_reduce.c).
 * Internal to frontend/onnx. */
#ifndef TVS_FRONTEND_ONNX_OPS_H
#define TVS_FRONTEND_ONNX_OPS_H

#include "frontend/onnx/onnx_internal.h"

#define OX_CONVERTERS(X)                                                                                 \
  X(unary) X(reciprocal) X(leaky_relu) X(gelu) X(prelu) X(binary) X(variadic) X(where) X(clip) X(cast)  \
  X(identity) X(dropout) X(conv) X(pool) X(global_pool) X(matmul) X(gemm) X(batch_norm) X(layer_norm)   \
  X(instance_norm) X(softmax) X(constant) X(shape) X(size) X(constant_of_shape) X(range) X(reshape)      \
  X(flatten) X(squeeze) X(unsqueeze) X(transpose) X(concat) X(split) X(gather) X(slice) X(expand)       \
  X(tile) X(reduce) X(argreduce) X(activation) X(xor) X(pad) X(depth_space) X(trilu) X(einsum) X(resize) \
  X(cast_like) X(hardmax) X(isnan_isinf) X(sign) X(eye_like) X(fmod) X(cumsum)

#define OX_DECLARE(N) int ox_cv_##N(OxCtx *c, OxVal **in, int nin);
OX_CONVERTERS(OX_DECLARE)
#undef OX_DECLARE

#endif
