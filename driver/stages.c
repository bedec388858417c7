/* stages.c - the stage registry: the front-end and graph stages, then each
 * lowering pass of tir_cpu_pipeline() (ir/transform/pipeline.c, which holds
 * the passes' own descriptions), then the codegen stages. */
#include <string.h>

#include "driver/stages.h"
#include "ir/transform.h"

/* The stages outside the lowering pipeline, before and after it. */
static const DrvStage before[] = {
    {"tokens", "the lexer's token stream (kind, line:col, text)", DRV_STAGE_SOURCE},
    {"ast", "the syntax tree as parsed", DRV_STAGE_SOURCE},
    {"graph", "the elaborated module (graph functions and prim_funcs) after the schedules, as .tvs text",
     DRV_STAGE_GRAPH},
};
/* then the graph passes of rx_graph_pipeline() (DRV_STAGE_GRAPH), then: */
static const DrvStage before_tir[] = {
    {"tir", "the loop-IR prim_funcs after the schedules, as .tvs text", DRV_STAGE_TIR},
};
static const DrvStage after[] = {
    {"llvm-unopt", "LLVM IR as generated, before LLVM's optimizations", DRV_STAGE_CODEGEN},
    {"llvm", "LLVM IR after LLVM's -O0..-O3 pipeline (--mcpu, --mattr, --fast-math; what -o FILE.ll writes)",
     DRV_STAGE_CODEGEN},
    {"asm", "target assembly of the optimized module (what -o FILE.s writes)", DRV_STAGE_CODEGEN},
    {"npu-inject-dma", "NPU lowering: DMA copies into the scratchpads, GEMM/ALU loops, each tagged with its "
     "virtual thread (docs/npu.md)", DRV_STAGE_NPU},
    {"npu-inject-vthread", "NPU lowering: each virtual thread's own scratchpad buffers and micro-ops "
     "(InjectVirtualThread)", DRV_STAGE_NPU},
    {"npu-coproc-sync", "NPU lowering: dependency-token pushes and pops between the load, compute and store "
     "modules (CoProcSync)", DRV_STAGE_NPU},
    {"npu-isa", "the simulated NPU's instruction stream of each int8 matmul/conv2d kernel (docs/npu.md)",
     DRV_STAGE_NPU},
};
#define NSRC ((int)(sizeof before / sizeof before[0]))
#define NBEFORE_TIR ((int)(sizeof before_tir / sizeof before_tir[0]))
#define NBEFORE (NSRC + graph_count() + NBEFORE_TIR)
#define NAFTER ((int)(sizeof after / sizeof after[0]))

static int graph_count(void) {
  int n;
  rx_graph_pipeline(&n);
  return n;
}

int drv_stage_count(void) {
  int np;
  tir_cpu_pipeline(&np);
  return NBEFORE + np + NAFTER;
}

DrvStage drv_stage_at(int i) {
  if (i < NSRC) return before[i];
  if (i < NSRC + graph_count()) {
    int ng;
    const RxPass *g = rx_graph_pipeline(&ng);
    return (DrvStage){g[i - NSRC].name, g[i - NSRC].what, DRV_STAGE_GRAPH};
  }
  if (i < NBEFORE) return before_tir[i - NSRC - graph_count()];
  int np;
  const TirPass *passes = tir_cpu_pipeline(&np);
  if (i < NBEFORE + np) return (DrvStage){passes[i - NBEFORE].name, passes[i - NBEFORE].what, DRV_STAGE_PASS};
  return after[i - NBEFORE - np];
}

bool drv_find_stage(const char *name, unsigned mask, DrvStage *out) {
  for (int i = 0, n = drv_stage_count(); i < n; i++) {
    DrvStage s = drv_stage_at(i);
    if ((s.kind & mask) && !strcmp(s.name, name)) {
      if (out) *out = s;
      return true;
    }
  }
  return false;
}

void drv_print_stages(FILE *out, unsigned mask) {
  for (int i = 0, n = drv_stage_count(); i < n; i++) {
    DrvStage s = drv_stage_at(i);
    if (s.kind & mask) fprintf(out, "%-28s %s\n", s.name, s.what);
  }
}

void drv_print_gpu_stages(FILE *out) {
  int n;
  const TirPass *p = tir_gpu_pipeline(&n);
  fprintf(out, "\nwith --target cuda|opencl (docs/gpu.md), the lowering passes are, in TVM's order:\n");
  for (int i = 0; i < n; i++) fprintf(out, "  %-28s %s\n", p[i].name, p[i].what);
  fprintf(out, "  %-28s %s\n", "opencl", "(GPU) the OpenCL C of the kernels (--target opencl)");
  fprintf(out, "  %-28s %s\n", "ptx", "(GPU) the PTX of the kernels, from LLVM's NVPTX backend (--target cuda)");
  fprintf(out, "  %-28s %s\n", "nvvm", "(GPU) the LLVM IR given to the NVPTX backend (--target cuda)");
}
