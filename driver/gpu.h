/* gpu.h - the GPU targets (cuda, opencl) in the driver: lowering on the GPU
 * pipeline (ir/transform/pipeline.c's tir_gpu_pipeline), the device code
 * (OpenCL C, PTX) and running lowered prim_funcs on a device through the
 * runtime's device APIs (runtime/device_api.h). */
#ifndef TVS_DRIVER_GPU_H
#define TVS_DRIVER_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "codegen/codegen.h"
#include "ir/interp.h"
#include "ir/module.h"
#include "runtime/device_api.h"

/* Lowers the prim_funcs of m for target up to the GPU pass called stage
 * (NULL = all); NULL after an error in d (graph functions are refused). */
IrModule *drv_gpu_lower(const IrModule *m, const char *target, const char *stage, DiagCtx *d);

/* The device code of a fully lowered module: OpenCL C for opencl; PTX for
 * cuda (cg->mcpu names the sm, default sm_80), or with llvm_ir its NVVM IR.
 * malloc'd, or NULL + d. */
char *drv_gpu_device_code(const IrModule *low, const char *target, const CgOptions *cg, bool llvm_ir, DiagCtx *d);

/* A device with the module's kernels loaded. */
typedef struct DrvGpu {
  const IrModule *low;       /* the lowered module (host functions + kernels) */
  const TvsDeviceAPI *api;
  TvsDevice *dev;
} DrvGpu;

/* Opens the target's device and loads low's kernels: 0; -1 with a one-line
 * reason in err (no driver, no device, a kernel that does not build); -2
 * with the code generation errors in d. */
int drv_gpu_open(DrvGpu *g, const IrModule *low, const char *target, const CgOptions *cg, DiagCtx *d, char *err,
                 size_t errlen);
/* Runs host function func on args (tensors copied in, run, copied back):
 * 0, or -1 with the reason in err. */
int drv_gpu_call(DrvGpu *g, const char *func, InterpArg *args, int nargs, char *err, size_t errlen);
/* drv_gpu_call that, after the first run, runs the kernels reps more times
 * on the same device buffers and sets *median_ms to the median time of one
 * run's launches to completion (no copies, no allocations). */
int drv_gpu_time(DrvGpu *g, const char *func, InterpArg *args, int nargs, int reps, double *median_ms, char *err,
                 size_t errlen);
void drv_gpu_close(DrvGpu *g);

#endif
