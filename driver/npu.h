/* npu.h - the npu target in the driver (docs/npu.md): building a prim_func's
 * instruction stream (an int8 matmul or conv2d), and running it on the
 * simulator with the tensors laid out as tiles, checked against the
 * reference interpreter. */
#ifndef TVS_DRIVER_NPU_H
#define TVS_DRIVER_NPU_H

#include <stdbool.h>

#include "base/diag.h"
#include "codegen/npu.h"
#include "ir/interp.h"
#include "ir/module.h"

/* How to build: the machine, and virtual threads (0: the schedule's). */
typedef struct DrvNpuOptions {
  NpuConfig cfg;
  int vthreads;
} DrvNpuOptions;

void drv_npu_options_default(DrvNpuOptions *o);

/* What the backend recognised in a prim_func, and how it tiled it. */
typedef struct DrvNpuKernelInfo {
  bool conv;          /* a conv2d (cv, ct), else a matmul (mm, t) */
  NpuMatmul mm;
  NpuTiling t;
  NpuConv2d cv;
  NpuConvTiling ct;
} DrvNpuKernelInfo;

/* Whether prim_func fname of m is a kernel the NPU backend recognises (an
 * int8 matmul or conv2d); says nothing about whether it fits. */
bool drv_npu_is_kernel(const IrModule *m, const char *fname);

/* Writes the stream of every NPU kernel of m at stage to out (npu_text.c):
 * per kernel a comment line (what was recognised, the tiling), then the
 * stage's text.  In a graph module (legalized and fused: graph) a prim_func
 * the NPU does not take is a comment line, elsewhere an error.  *nkernels
 * counts the streams written.  Returns 0, or -1 with a diagnostic. */
int drv_npu_module_text(const IrModule *m, const DrvNpuOptions *o, NpuStage stage, bool graph, FILE *out,
                        int *nkernels, DiagCtx *d);

/* The stream of prim_func fname of m up to lowering stage upto (npu_lower.h)
 * into l (initialised here; free it with cg_npu_lowered_free); info as below.
 * Returns 0, or -1 with a diagnostic. */
int drv_npu_lower(const IrModule *m, const char *fname, const DrvNpuOptions *o, NpuStage upto, NpuLowered *l,
                  DrvNpuKernelInfo *info, DiagCtx *d);

/* The stream of prim_func fname of m into p (initialised here; free it with
 * npu_program_free); info (may be NULL) receives what was recognised and the
 * tiling.  Returns 0, or -1 with a diagnostic. */
int drv_npu_build(const IrModule *m, const char *fname, const DrvNpuOptions *o, NpuProgram *p,
                  DrvNpuKernelInfo *info, DiagCtx *d);

/* Runs fname on args (one per param) on the simulator: the output tensor
 * receives the NPU's result.  Then runs the interpreter on copies and
 * compares: *mismatches counts the elements that differ.  Returns 0, or -1
 * with a diagnostic or a message in err. */
int drv_npu_run(const IrModule *m, const char *fname, const DrvNpuOptions *o, InterpArg *args, int nargs,
                NpuReport *r, int64_t *mismatches, DiagCtx *d, char *err, size_t errlen);

/* One call_tir step of a graph run on the npu target. */
typedef struct DrvNpuKernel {
  char name[64];      /* the prim_func */
  bool on_npu;        /* ran on the simulator (else the interpreter) */
  NpuReport r;        /* on_npu: its cycle report */
} DrvNpuKernel;

typedef struct DrvNpuGraphReport {
  DrvNpuKernel *k;
  int n, cap;
} DrvNpuGraphReport;

/* Runs graph function fname of m on the npu target: the graph passes
 * (legalization, fusion), then the interpreter through the graph, each
 * call_tir of an NPU kernel (an int8 matmul, with its fused requantization)
 * run on the simulator and checked against the interpreter, the others on
 * the interpreter.  Results as interp_run_relax's; rep lists the steps
 * (free with drv_npu_graph_report_free).  0, or -1 with a diagnostic. */
int drv_npu_run_graph(const IrModule *m, const char *fname, const DrvNpuOptions *o, InterpArg *args, int nargs,
                      DLTensor ***results, int *nresults, DrvNpuGraphReport *rep, DiagCtx *d);
void drv_npu_graph_report_free(DrvNpuGraphReport *rep);

#endif
