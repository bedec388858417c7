/* graph_exec.h - running a graph function natively: the whole legalized
 * graph compiled into one entry (codegen/cg_relax_graph.c) and called once,
 * its memory plan, and a per-kernel profile.  Used by `tvs run` on graph
 * functions (the interpreter remains the fallback and `--target interp`).
 *
 * Nothing here prints: reasons and errors come back in buffers or the
 * DiagCtx; the *_print functions format into a StrBuf. */
#ifndef TVS_DRIVER_GRAPH_EXEC_H
#define TVS_DRIVER_GRAPH_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "codegen/codegen.h"
#include "ir/memory_plan.h"
#include "driver/run.h"

typedef enum DrvGraphStatus {
  DRV_GRAPH_OK = 0,
  DRV_GRAPH_FALLBACK = 1,  /* cannot run natively: the reason is in why */
  DRV_GRAPH_ERROR = -1,    /* the graph passes or the compile failed (diag) */
} DrvGraphStatus;

/* A graph function ready to run natively. */
typedef struct DrvGraph {
  IrModule *legal;            /* the module after the graph passes (owned) */
  const char *fname;
  const RxFunc *f;            /* the graph function in legal */
  TVSModule *mod;             /* compiled (JIT), or NULL when not compiled */
  TVSFunction *fn;            /* its packed entry */
  const TVSFuncInfo *info;    /* its metadata: inputs, then outputs */
  double compile_ms;
} DrvGraph;

/* Runs the graph passes on m and checks that graph function fname became
 * something the graph compiler takes (only call_tir, tuples, constants; no
 * match_cast or if); when compile, also JIT-compiles the module with
 * cg (graph entries on).  FALLBACK leaves the reason in why ("R.foo has no
 * legalization"), ERROR reports to d.  g is safe to free in every case. */
DrvGraphStatus drv_graph_prepare(DrvGraph *g, const IrModule *m, const char *fname, const CgOptions *cg,
                                 bool compile, DiagCtx *d, char *why, size_t whylen);
void drv_graph_free(DrvGraph *g);

/* Allocates the outputs (zeroed) from the metadata, symbolic dims bound by
 * name from b.  0, or -1 with a message in err. */
int drv_graph_alloc_outputs(const DrvGraph *g, const DrvBindings *b, TvsNDArray **outs, int nouts, char *err,
                            size_t errlen);
/* One call: inputs then outputs (g->info's order).  0, or -1 with
 * tvs_get_last_error(). */
int drv_graph_call(DrvGraph *g, DLTensor **ins, int nins, DLTensor **outs, int nouts);

/* The FLOPs of one call: the sum over the graph's call_tir bindings of the
 * prim_funcs' static counts (metadata); -1 when one is unknown. */
double drv_graph_flops(const DrvGraph *g);

/* One call_tir of the profile. */
typedef struct DrvKernelTime {
  char name[64];     /* the prim_func */
  char shape[64];    /* its (first) output's shape */
  double ms;         /* median over the runs */
  double flops;      /* per call, -1 when unknown */
} DrvKernelTime;

typedef struct DrvGraphProfile {
  DrvKernelTime *k;  /* in call order */
  int n;
  int reps;          /* runs per kernel and of the whole graph */
  double kernels_ms; /* the sum of the kernels' medians */
  double total_ms;   /* median of the whole compiled graph, one call */
} DrvGraphProfile;

/* Times each call_tir's prim_func (the module's compiled prim_funcs called
 * one by one in binding order, the graph stepped through by the interpreter,
 * only the native calls timed) over reps runs, then the whole compiled graph
 * (inputs ins, outputs outs) over reps calls.  0, or -1 (d or
 * tvs_get_last_error()). */
int drv_graph_profile(DrvGraph *g, InterpArg *args, int nargs, DLTensor **outs, int nouts, int reps,
                      DrvGraphProfile *p, DiagCtx *d);
void drv_graph_profile_free(DrvGraphProfile *p);
/* The table: kernel, shape, ms, %, GFLOP/s; then the totals. */
void drv_graph_profile_print(StrBuf *sb, const DrvGraphProfile *p);

#endif
