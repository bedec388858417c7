/* stages.h - the one registry of pipeline stages: every stage a user can stop
 * at, in pipeline order, with its one description.  `tvs show --stage` and
 * --list-stages, `tvsc --emit` and --list-stages, and the REPL's :show (and
 * its completion and help) all read it; each picks the kinds it supports. */
#ifndef TVS_DRIVER_STAGES_H
#define TVS_DRIVER_STAGES_H

#include <stdbool.h>
#include <stdio.h>

/* What a stage is, and so which tools offer it (a bit each). */
typedef enum DrvStageKind {
  DRV_STAGE_SOURCE = 1 << 0,   /* tokens, ast: the source text (tvs show only) */
  DRV_STAGE_GRAPH = 1 << 1,    /* graph, legalize: the module before lowering */
  DRV_STAGE_TIR = 1 << 2,      /* tir: the prim_funcs before lowering */
  DRV_STAGE_PASS = 1 << 3,     /* a lowering pass of tir_cpu_pipeline() */
  DRV_STAGE_CODEGEN = 1 << 4,  /* llvm-unopt, llvm, asm */
  DRV_STAGE_NPU = 1 << 5,      /* npu-isa: the simulated NPU's stream (tvs show; docs/npu.md) */
} DrvStageKind;

/* The stages of each tool (masks of DrvStageKind). */
#define DRV_STAGES_SHOW                                                                            \
  (DRV_STAGE_SOURCE | DRV_STAGE_GRAPH | DRV_STAGE_TIR | DRV_STAGE_PASS | DRV_STAGE_CODEGEN | DRV_STAGE_NPU)
#define DRV_STAGES_EMIT (DRV_STAGE_GRAPH | DRV_STAGE_TIR | DRV_STAGE_PASS | DRV_STAGE_CODEGEN)
#define DRV_STAGES_REPL (DRV_STAGE_TIR | DRV_STAGE_PASS | DRV_STAGE_CODEGEN)

typedef struct DrvStage {
  const char *name;   /* e.g. "legalize", "lower-init-block", "llvm" */
  const char *what;   /* one-line description */
  DrvStageKind kind;
} DrvStage;

/* The number of stages, and stage i (0 <= i < drv_stage_count()) in
 * pipeline order. */
int drv_stage_count(void);
DrvStage drv_stage_at(int i);
/* The stage called name among the kinds in mask: true and *out set (out may
 * be NULL), else false. */
bool drv_find_stage(const char *name, unsigned mask, DrvStage *out);
/* One line per stage of mask, "NAME  description", in pipeline order. */
void drv_print_stages(FILE *out, unsigned mask);
/* The GPU pipeline's passes and the device-code stages, indented under a
 * heading (tvs show --list-stages, after the stages above). */
void drv_print_gpu_stages(FILE *out);

#endif
