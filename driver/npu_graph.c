/* npu_graph.c - a graph function on the npu target: legalized and fused by
 * the graph passes, stepped through by the interpreter, with every call_tir
 * whose prim_func is an NPU kernel (an int8 matmul, R.matmul(..., out_dtype=
 * "int32") after legalization, with its fused requantization, or an int8
 * R.nn.conv2d) run on the
 * simulator and checked against the interpreter; the rest of the graph runs
 * on the interpreter. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "driver/npu.h"
#include "ir/transform.h"

typedef struct GraphCtx {
  const IrModule *legal;
  const DrvNpuOptions *o;
  DrvNpuGraphReport *rep;
} GraphCtx;

static DrvNpuKernel *add_kernel(DrvNpuGraphReport *rep, const char *name) {
  if (rep->n == rep->cap) {
    rep->cap = rep->cap ? 2 * rep->cap : 8;
    rep->k = xrealloc(rep->k, (size_t)rep->cap * sizeof *rep->k);
  }
  DrvNpuKernel *k = &rep->k[rep->n++];
  memset(k, 0, sizeof *k);
  snprintf(k->name, sizeof k->name, "%s", name);
  return k;
}

/* The InterpTirRunner: the simulator for NPU kernels, else the interpreter. */
static int run_step(void *ctx, const char *name, InterpArg *args, int nargs, DiagCtx *d) {
  GraphCtx *c = ctx;
  bool npu = drv_npu_is_kernel(c->legal, name); /* else no error: it runs on the interpreter */
  DrvNpuKernel *k = add_kernel(c->rep, name);
  k->on_npu = npu;
  if (!npu) return interp_run_tir(c->legal, name, args, nargs, d);
  char err[1024] = "";
  int64_t bad = 0;
  if (drv_npu_run(c->legal, name, c->o, args, nargs, &k->r, &bad, d, err, sizeof err)) {
    if (err[0]) diag_error(d, span_none, "kernel '%s': %s", name, err);
    return -1;
  }
  if (bad) {
    diag_error(d, span_none, "npu: kernel '%s': %lld output elements differ from the interpreter's", name,
               (long long)bad);
    return -1;
  }
  return 0;
}

int drv_npu_run_graph(const IrModule *m, const char *fname, const DrvNpuOptions *o, InterpArg *args, int nargs,
                      DLTensor ***results, int *nresults, DrvNpuGraphReport *rep, DiagCtx *d) {
  memset(rep, 0, sizeof *rep);
  /* Up to fuse-tir: the CPU's default schedules (which inline conv2d's
   * padding into its reduction) and memory planning are not the NPU's. */
  IrModule *legal = rx_run_graph_passes(m, rx_graph_pipeline_index("fuse-tir"), d, NULL, NULL);
  if (!legal) return -1;
  GraphCtx c = {legal, o, rep};
  int rc = interp_run_relax_with(legal, fname, args, nargs, results, nresults, d, run_step, &c);
  ir_module_free(legal);
  return rc;
}

void drv_npu_graph_report_free(DrvNpuGraphReport *rep) {
  free(rep->k);
  memset(rep, 0, sizeof *rep);
}
