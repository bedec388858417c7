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
 * (NULL = all); NULL after an error in d.  A module with graph functions is
 * prepared first (drv_gpu_graph_prepare) and its prim_funcs lowered. */
IrModule *drv_gpu_lower(const IrModule *m, const char *target, const char *stage, DiagCtx *d);

/* The device code of a fully lowered module: OpenCL C for opencl; PTX for
 * cuda (cg->mcpu names the sm, default sm_80), or with llvm_ir its NVVM IR.
 * malloc'd, or NULL + d. */
char *drv_gpu_device_code(const IrModule *low, const char *target, const CgOptions *cg, bool llvm_ir, DiagCtx *d);

typedef struct DrvGpuBuf {
  void *buf;
  size_t bytes;
} DrvGpuBuf;

/* A device with the module's kernels loaded. */
typedef struct DrvGpu {
  const IrModule *low;       /* the lowered module (host functions + kernels) */
  const TvsDeviceAPI *api;
  TvsDevice *dev;
  DrvGpuBuf *pool;           /* released device buffers, reused by size */
  int npool, cappool;
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
/* Runs host function func with its tensor params the device buffers
 * bufs[i] of shapes[i] (no copies; the launches are queued, not waited
 * for): 0, or -1 with the reason in err. */
int drv_gpu_launch(DrvGpu *g, const char *func, void *const *bufs, const DLTensor *const *shapes, int nargs,
                   char *err, size_t errlen);
/* A device buffer of bytes (from the pool when one of that size waits
 * there), or NULL with the reason in err; drv_gpu_release pools it. */
void *drv_gpu_alloc(DrvGpu *g, size_t bytes, char *err, size_t errlen);
void drv_gpu_release(DrvGpu *g, void *buf, size_t bytes);
void drv_gpu_close(DrvGpu *g);

/* The graph passes up to default-schedule with the GPU rules (sched/
 * gpu_default_schedule.c): a new module, or NULL after errors in d. */
IrModule *drv_gpu_graph_prepare(const IrModule *m, DiagCtx *d);
/* A copy of m with its prim_funcs only. */
IrModule *drv_tir_only(const IrModule *m);

/* A graph function kept on the device (driver/gpu_graph_exec.c): a
 * sequence of call_tir bindings with static shapes, each tensor a device
 * buffer allocated once, the constants uploaded once. */
typedef struct DrvGpuPlan DrvGpuPlan;
/* The plan of graph function fname of legal on g, or NULL with the reason
 * in why (the graph is not such a sequence, or the device failed). */
DrvGpuPlan *drv_gpu_plan_new(DrvGpu *g, const IrModule *legal, const char *fname, char *why, size_t whylen,
                             char *err, size_t errlen);
/* Inputs copied in, the kernels run, the results copied out into new
 * arrays (free them with interp_free_result): 0, or -1 with err. */
int drv_gpu_plan_run(DrvGpuPlan *p, InterpArg *args, int nargs, DLTensor ***results, int *nresults, char *err,
                     size_t errlen);
void drv_gpu_plan_free(DrvGpuPlan *p);

/* A graph function on a GPU target (driver/gpu_graph.c). */
typedef struct DrvGpuGraph {
  IrModule *legal;  /* the graph after default-schedule (GPU rules) */
  IrModule *low;    /* its prim_funcs lowered on the GPU pipeline */
  DrvGpu gpu;
  bool opened;
  DrvGpuPlan *plan; /* the graph kept on the device, or NULL: stepped on the host */
  char why[256];    /* why there is no plan */
} DrvGpuGraph;

/* Prepares m's graph functions for target: 0; -1 with a reason in err (no
 * driver or device); -2 with the errors in d (a prim_func that does not
 * lower). Close it in every case. */
int drv_gpu_graph_open(DrvGpuGraph *gg, const IrModule *m, const char *target, const CgOptions *cg, DiagCtx *d,
                       char *err, size_t errlen);
/* drv_gpu_graph_open, then the plan of graph function fname (gg->plan, or
 * NULL with gg->why). */
int drv_gpu_graph_open_for(DrvGpuGraph *gg, const IrModule *m, const char *fname, const char *target,
                           const CgOptions *cg, DiagCtx *d, char *err, size_t errlen);
/* Steps graph function fname through on the host, each call_tir launched
 * on the device: 0, or -1 with the errors in d. Results as interp_run_relax. */
int drv_gpu_graph_run(DrvGpuGraph *gg, const char *fname, InterpArg *args, int nargs, DLTensor ***results,
                      int *nresults, DiagCtx *d);
void drv_gpu_graph_close(DrvGpuGraph *gg);

#endif
