/* gpu_graph.c - a graph function on a GPU target (drv_gpu_graph_*): the
 * graph passes up to default-schedule with the GPU rules
 * (sched/gpu_default_schedule.c), its prim_funcs lowered on the GPU
 * pipeline and loaded on the device; then either the graph kept on the
 * device (a sequence of call_tir with static shapes: driver/
 * gpu_graph_exec.c), or stepped through on the host by the interpreter with
 * every call_tir launched on the device, its tensors copied in and out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "driver/gpu.h"
#include "ir/interp.h"
#include "ir/transform.h"
#include "sched/default_schedule.h"

IrModule *drv_tir_only(const IrModule *m) {
  IrModule *only = ir_module_copy(m);
  only->nfuncs = 0;
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR) only->funcs[only->nfuncs++] = m->funcs[i];
  return only;
}

IrModule *drv_gpu_graph_prepare(const IrModule *m, DiagCtx *d) {
  int nerr0 = d->nerr;
  sch_gpu_default_schedule_install();
  IrModule *legal = rx_run_graph_passes(m, rx_graph_pipeline_index("default-schedule"), d, NULL, NULL);
  sch_default_schedule_install();
  if (legal && d->nerr > nerr0) {
    ir_module_free(legal);
    legal = NULL;
  }
  return legal;
}

int drv_gpu_graph_open(DrvGpuGraph *gg, const IrModule *m, const char *target, const CgOptions *cg, DiagCtx *d,
                       char *err, size_t errlen) {
  memset(gg, 0, sizeof *gg);
  gg->legal = drv_gpu_graph_prepare(m, d);
  if (!gg->legal) return -2;
  IrModule *only = drv_tir_only(gg->legal);
  gg->low = drv_gpu_lower(only, target, NULL, d);
  ir_module_free(only);
  if (!gg->low) return -2;
  int rc = drv_gpu_open(&gg->gpu, gg->low, target, cg, d, err, errlen);
  gg->opened = rc == 0;
  return rc;
}

static int launch_tir(void *ctx, const char *name, InterpArg *args, int nargs, DiagCtx *d) {
  DrvGpuGraph *gg = ctx;
  char err[1024] = "";
  if (drv_gpu_call(&gg->gpu, name, args, nargs, err, sizeof err) == 0) return 0;
  diag_error(d, span_none, "%s: %s", name, err);
  return -1;
}

int drv_gpu_graph_open_for(DrvGpuGraph *gg, const IrModule *m, const char *fname, const char *target,
                           const CgOptions *cg, DiagCtx *d, char *err, size_t errlen) {
  int rc = drv_gpu_graph_open(gg, m, target, cg, d, err, errlen);
  if (!rc) gg->plan = drv_gpu_plan_new(&gg->gpu, gg->legal, fname, gg->why, sizeof gg->why, err, errlen);
  return rc;
}

int drv_gpu_graph_run(DrvGpuGraph *gg, const char *fname, InterpArg *args, int nargs, DLTensor ***results,
                      int *nresults, DiagCtx *d) {
  if (!gg->plan) return interp_run_relax_with(gg->legal, fname, args, nargs, results, nresults, d, launch_tir, gg);
  char err[1024] = "";
  int rc = drv_gpu_plan_run(gg->plan, args, nargs, results, nresults, err, sizeof err);
  if (rc) diag_error(d, span_none, "%s", err);
  return rc;
}

void drv_gpu_graph_close(DrvGpuGraph *gg) {
  drv_gpu_plan_free(gg->plan);
  if (gg->opened) drv_gpu_close(&gg->gpu);
  ir_module_free(gg->low);
  ir_module_free(gg->legal);
  memset(gg, 0, sizeof *gg);
}
