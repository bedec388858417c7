/* driver.h - the batch compile driver behind `tvsc`: .tvs files in, a shared
 * object, object file, LLVM IR, assembly, a C header or any pipeline stage out.
 *
 * One call (drv_compile) runs: load + elaborate each file, apply its schedule
 * statements, merge the modules, keep the --func subset, apply --schedule,
 * bind --params weights (rx_bind_params), legalize the graph functions'
 * operators (rx_legalize_ops), lower
 * (tir_lower), build LLVM IR for prim_funcs and graph functions (cg_build)
 * and write the products.  Every
 * file is written under a temporary name in its own directory and renamed at
 * the very end, so a failure leaves no output behind. */
#ifndef TVS_DRIVER_DRIVER_H
#define TVS_DRIVER_DRIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "codegen/codegen.h"
#include "base/diag.h"
#include "driver/stages.h"

/* What an output path's suffix asks for. */
typedef enum DrvProduct {
  DRV_PRODUCT_NONE,   /* unknown suffix */
  DRV_PRODUCT_SO,     /* .so: object linked into a shared library */
  DRV_PRODUCT_OBJ,    /* .o: relocatable PIC object */
  DRV_PRODUCT_LL,     /* .ll: optimized LLVM IR */
  DRV_PRODUCT_ASM,    /* .s: target assembly */
} DrvProduct;

/* Renders the diagnostics of a run; called before the sources they point
 * into are freed. */
typedef void (*DrvReportFn)(const DiagCtx *d);

/* A rewrite of the merged module after --schedule (tvsc's --tuning-db: the
 * tuner sits above the driver, so the tool passes it in).  Replaces *m or
 * leaves it; 0, or -1 with an error in d (*m still owned by the caller). */
typedef int (*DrvModuleHook)(IrModule **m, void *arg, DiagCtx *d);

/* The whole compile request (tvsc's command line, parsed). */
typedef struct DrvOptions {
  const char *const *inputs;  /* .tvs files (at least one) */
  int ninputs;
  const char *output;         /* -o PATH, or NULL */
  const char *emit;           /* --emit STAGE, or NULL (then output's suffix decides) */
  const char *header;         /* -H PATH, or NULL */
  const char *const *funcs;   /* --func names (the subset to compile); NULL = all */
  int nfuncs;
  const char *schedule;       /* --schedule FILE applied to the merged module, or NULL */
  const char *params;         /* --params w.npz: weights bound to graph-function
                                 parameters of the same names (embedded as
                                 constants), or NULL */
  DrvModuleHook module_hook;  /* run after --schedule (NULL: none) */
  void *module_hook_arg;
  CgOptions cg;               /* -O, --mcpu, --mattr, --mtriple, --fast-math, --fp-contract */
  const char *target;         /* --target: NULL/"cpu", or "cuda"/"opencl" (then --emit a
                                 GPU pass, ptx, nvvm or opencl; driver/gpu.h), or "npu"
                                 (-o FILE.npu or --emit an NPU stage; driver/npu.h) */
  const char *cc;             /* linker driver for .so; NULL = $CC, else "cc" */
  const char *runtime_dir;    /* directory of libtvs_runtime.so to link against;
                                 NULL = find it next to the tvsc executable (build
                                 tree) or in its ../lib (install); "none" = leave
                                 the runtime symbols undefined (resolved at load) */
  const char *source_name;    /* shown in the header's comment; NULL = inputs */
  int verbose;                /* -v: stages, timings and the link command on log */
  DrvReportFn report;         /* renders diagnostics at the end; NULL = diag_flush */
  FILE *log;                  /* where -v output goes (stderr); --emit without -o
                                 prints the stage on stdout */
} DrvOptions;

/* Defaults: -O3, host target, no outputs, log = stderr. */
DrvOptions drv_options_default(void);

/* The product for path's suffix (.so .o .ll .s), DRV_PRODUCT_NONE otherwise. */
DrvProduct drv_product_for(const char *path);

/* The stages --emit accepts are DRV_STAGES_EMIT of the registry in
 * driver/stages.h: graph, legalize, tir, a lowering pass name, llvm-unopt,
 * llvm, asm. */

/* Checks the option combination without compiling (conflicting flags, no
 * output asked for, unknown stage or suffix).  0, or -1 with an error in d. */
int drv_check_options(const DrvOptions *o, DiagCtx *d);

/* Runs the request.  0 on success; -1 with errors reported to d (and no
 * output file created or replaced). */
int drv_compile(const DrvOptions *o, DiagCtx *d);

#endif
