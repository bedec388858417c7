/* gpu_codegen.h - the device backends: OpenCL C source (opencl_source.c) and
 * PTX through LLVM's NVPTX backend (nvptx_codegen.c), for the kernels that
 * split-host-device outlined (prim_funcs with "calling_conv" 2).  The host
 * side of a GPU module is its launch sequence, run by driver/gpu_run.c. */
#ifndef TVS_CODEGEN_GPU_CODEGEN_H
#define TVS_CODEGEN_GPU_CODEGEN_H

#include <stdbool.h>

#include "base/diag.h"
#include "ir/module.h"

/* Whether g is a device kernel (split-host-device's "calling_conv": 2). */
bool cg_gpu_is_kernel(const IrGlobal *g);
/* The element dtype of handle param p of kernel f (from the buffers over it). */
DType cg_gpu_param_elem(const TirFunc *f, const TirVar *p);
/* The OpenCL C / CUDA C spelling of a scalar dtype (bool is uchar in memory);
 * NULL when there is none. */
const char *cg_gpu_c_type(DType t, bool in_memory);

/* Every kernel of low as one OpenCL C program (malloc'd), or NULL with the
 * reason in diag. */
char *cg_opencl_source(const IrModule *low, DiagCtx *diag);

/* Every kernel of low as PTX for sm (e.g. "sm_80"; NULL = sm_80), through
 * LLVM's NVPTX backend at opt_level (0..3); malloc'd, or NULL + diag.  With
 * llvm_ir, the NVVM IR before code generation instead. */
char *cg_nvptx_source(const IrModule *low, const char *sm, int opt_level, bool llvm_ir, DiagCtx *diag);

#endif
