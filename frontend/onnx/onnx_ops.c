/* onnx_ops.c - the converter table: one row per ONNX op type and opset range,
 * with the attributes the converter reads (any other attribute on a node is an
 * error naming it).  docs/onnx.md lists these rows. */
#include "frontend/onnx/onnx_ops.h"

#define UNARY(OP) {OP, 6, 22, "", ox_cv_unary}
#define BINARY(OP) {OP, 7, 22, "", ox_cv_binary}
#define REDUCE(OP) {OP, 1, 22, "axes,keepdims,noop_with_empty_axes", ox_cv_reduce}

const OxOpRow ox_ops[] = {
    /* element-wise */
    UNARY("Relu"), UNARY("Sigmoid"), UNARY("Tanh"), UNARY("Exp"), UNARY("Log"), UNARY("Sqrt"), UNARY("Neg"),
    UNARY("Abs"), UNARY("Erf"), UNARY("Floor"), UNARY("Ceil"), UNARY("Round"), UNARY("Sin"), UNARY("Cos"),
    UNARY("Not"),
    {"Reciprocal", 6, 22, "", ox_cv_reciprocal},
    {"LeakyRelu", 6, 22, "alpha", ox_cv_leaky_relu},
    {"Gelu", 20, 22, "approximate", ox_cv_gelu},
    {"PRelu", 7, 22, "", ox_cv_prelu},
    BINARY("Add"), BINARY("Sub"), BINARY("Mul"), BINARY("Div"), BINARY("Pow"), BINARY("Equal"), BINARY("Less"),
    BINARY("Greater"), BINARY("LessOrEqual"), BINARY("GreaterOrEqual"), BINARY("And"), BINARY("Or"),
    {"Mod", 10, 22, "fmod", ox_cv_binary},
    {"Sum", 6, 22, "", ox_cv_variadic},
    {"Mean", 6, 22, "", ox_cv_variadic},
    {"Max", 6, 22, "", ox_cv_variadic},
    {"Min", 6, 22, "", ox_cv_variadic},
    {"Where", 9, 22, "", ox_cv_where},
    {"Clip", 6, 22, "min,max", ox_cv_clip},
    {"Cast", 6, 22, "to,saturate", ox_cv_cast},
    {"Identity", 1, 22, "", ox_cv_identity},
    {"Dropout", 7, 22, "ratio,seed", ox_cv_dropout},
    /* networks */
    {"Conv", 1, 22, "auto_pad,dilations,group,kernel_shape,pads,strides", ox_cv_conv},
    {"ConvTranspose", 1, 22, "auto_pad,dilations,group,kernel_shape,output_padding,output_shape,pads,strides",
     ox_cv_conv},
    {"MaxPool", 8, 22, "auto_pad,ceil_mode,dilations,kernel_shape,pads,storage_order,strides", ox_cv_pool},
    {"AveragePool", 7, 22, "auto_pad,ceil_mode,count_include_pad,kernel_shape,pads,strides", ox_cv_pool},
    {"GlobalAveragePool", 1, 22, "", ox_cv_global_pool},
    {"GlobalMaxPool", 1, 22, "", ox_cv_global_pool},
    {"MatMul", 1, 22, "", ox_cv_matmul},
    {"Gemm", 7, 22, "alpha,beta,transA,transB", ox_cv_gemm},
    {"BatchNormalization", 7, 22, "epsilon,momentum,spatial,training_mode", ox_cv_batch_norm},
    {"LayerNormalization", 17, 22, "axis,epsilon,stash_type", ox_cv_layer_norm},
    {"InstanceNormalization", 6, 22, "epsilon", ox_cv_instance_norm},
    {"Softmax", 1, 22, "axis", ox_cv_softmax},
    {"LogSoftmax", 1, 22, "axis", ox_cv_softmax},
    /* shapes and indexing */
    {"Constant", 1, 22, "value,value_float,value_floats,value_int,value_ints", ox_cv_constant},
    {"Shape", 1, 22, "start,end", ox_cv_shape},
    {"Size", 1, 22, "", ox_cv_size},
    {"ConstantOfShape", 9, 22, "value", ox_cv_constant_of_shape},
    {"Range", 11, 22, "", ox_cv_range},
    {"Reshape", 5, 22, "allowzero", ox_cv_reshape},
    {"Flatten", 1, 22, "axis", ox_cv_flatten},
    {"Squeeze", 1, 22, "axes", ox_cv_squeeze},
    {"Unsqueeze", 1, 22, "axes", ox_cv_unsqueeze},
    {"Transpose", 1, 22, "perm", ox_cv_transpose},
    {"Concat", 4, 22, "axis", ox_cv_concat},
    {"Split", 2, 22, "axis,split,num_outputs", ox_cv_split},
    {"Gather", 1, 22, "axis", ox_cv_gather},
    {"Slice", 1, 22, "starts,ends,axes", ox_cv_slice},
    {"Expand", 8, 22, "", ox_cv_expand},
    {"Tile", 6, 22, "", ox_cv_tile},
    /* reductions */
    REDUCE("ReduceSum"), REDUCE("ReduceMean"), REDUCE("ReduceMax"), REDUCE("ReduceMin"), REDUCE("ReduceProd"),
    REDUCE("ReduceL1"), REDUCE("ReduceL2"), REDUCE("ReduceSumSquare"), REDUCE("ReduceLogSum"),
    REDUCE("ReduceLogSumExp"),
    {"ArgMax", 1, 22, "axis,keepdims,select_last_index", ox_cv_argreduce},
    {"ArgMin", 1, 22, "axis,keepdims,select_last_index", ox_cv_argreduce},
};

const int ox_nops = (int)(sizeof ox_ops / sizeof ox_ops[0]);
