/* npu_bench.c - latency hiding on the simulated NPU (docs/npu.md): GEMM
 * utilisation of an int8 matmul and of ResNet-18's int8 conv layers
 * without and with virtual threads.
 *
 * For the matmul: the tiling the backend chooses for 1 and for 2 virtual
 * threads (what `tvs run --target npu` does), and the 2-thread tiling run
 * on 1 thread (the same tiles, no overlap).  For each conv layer (VTA's
 * ResNet-18 workloads C2-C11; C1, 3 input channels, stays on the CPU in
 * VTA too): the chosen tiling on 1 and on 2 virtual threads.  Cycle counts
 * only (the simulator's timing mode); values are checked by
 * tests/e2e/test_npu.sh.  usage: bench_npu [M N K] [--config FILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/npu.h"

static int run(const NpuConfig *c, const NpuMatmul *mm, const NpuTiling *t, NpuReport *r) {
  NpuProgram p;
  npu_program_init(&p);
  char err[512];
  int rc = cg_npu_matmul_program(c, mm, t, &p, err, sizeof err);
  if (rc == 0) rc = npu_sim_run(c, &p, NULL, r, err, sizeof err);
  if (rc) fprintf(stderr, "bench_npu: %s\n", err);
  npu_program_free(&p);
  return rc;
}

static void line(const char *what, const NpuTiling *t, const NpuReport *r) {
  printf("  %-28s tiles %4lld x %3lld x %3lld  %12lld cycles  GEMM utilisation %5.1f%%\n", what, (long long)t->tm,
         (long long)t->tn, (long long)t->tk, (long long)r->total_cycles, npu_report_utilisation(r));
}

static int bench_shape(const NpuConfig *c, int64_t m, int64_t n, int64_t k) {
  NpuMatmul mm = {.m = m, .n = n, .k = k, .vthreads = 1};
  NpuTiling t1 = {.vthreads = 1}, t2 = {.vthreads = 2}, t21;
  cg_npu_choose_tiling(c, &mm, &t1);
  cg_npu_choose_tiling(c, &mm, &t2);
  t21 = t2;
  t21.vthreads = 1;
  NpuReport r1, r2, r21;
  if (run(c, &mm, &t1, &r1) || run(c, &mm, &t2, &r2) || run(c, &mm, &t21, &r21)) return 1;
  printf("int8 matmul %lld x %lld x %lld (%lld GEMM cycles at 100%%):\n", (long long)m, (long long)n, (long long)k,
         (long long)r1.gemm_cycles);
  line("1 thread, its best tiles", &t1, &r1);
  line("1 thread, 2-thread tiles", &t21, &r21);
  line("2 virtual threads", &t2, &r2);
  return 0;
}

/* ResNet-18's conv layers after the first: H/W, in/out channels, kernel, pad, stride. */
static const struct { const char *name; int hw, ci, co, k, pad, stride; } resnet18[] = {
    {"C2", 56, 64, 64, 3, 1, 1},    {"C3", 56, 64, 128, 3, 1, 2},   {"C4", 56, 64, 128, 1, 0, 2},
    {"C5", 28, 128, 128, 3, 1, 1},  {"C6", 28, 128, 256, 3, 1, 2},  {"C7", 28, 128, 256, 1, 0, 2},
    {"C8", 14, 256, 256, 3, 1, 1},  {"C9", 14, 256, 512, 3, 1, 2},  {"C10", 14, 256, 512, 1, 0, 2},
    {"C11", 7, 512, 512, 3, 1, 1},
};

static int run_conv(const NpuConfig *c, const NpuConv2d *cv, int vthreads, NpuConvTiling *t, NpuReport *r) {
  t->vthreads = vthreads;
  cg_npu_choose_conv_tiling(c, cv, t);
  NpuProgram p;
  npu_program_init(&p);
  char err[512];
  int rc = cg_npu_conv2d_program(c, cv, t, &p, err, sizeof err);
  if (rc == 0) rc = npu_sim_run(c, &p, NULL, r, err, sizeof err);
  if (rc) fprintf(stderr, "bench_npu: %s\n", err);
  npu_program_free(&p);
  return rc;
}

static int bench_resnet(const NpuConfig *c) {
  printf("ResNet-18 int8 conv layers (batch 1), GEMM utilisation:\n");
  printf("  layer  shape                         1 thread              2 virtual threads\n");
  int64_t tot[2] = {0, 0}, gemm = 0;
  for (size_t i = 0; i < sizeof resnet18 / sizeof resnet18[0]; i++) {
    NpuConv2d cv = {.n = 1, .c = resnet18[i].ci, .h = resnet18[i].hw, .w = resnet18[i].hw, .o = resnet18[i].co,
                    .kh = resnet18[i].k, .kw = resnet18[i].k, .stride = resnet18[i].stride,
                    .pad_top = resnet18[i].pad, .pad_left = resnet18[i].pad, .vthreads = 1};
    cv.oh = cv.ow = (cv.h + 2 * resnet18[i].pad - cv.kh) / cv.stride + 1;
    cv.pad_bottom = (cv.oh - 1) * cv.stride + cv.kh - cv.h - cv.pad_top;
    if (cv.pad_bottom < 0) cv.pad_bottom = 0;
    cv.pad_right = cv.pad_bottom;
    NpuConvTiling t1, t2;
    NpuReport r1, r2;
    if (run_conv(c, &cv, 1, &t1, &r1) || run_conv(c, &cv, 2, &t2, &r2)) return 1;
    printf("  %-5s  %3dx%-3d %3d->%-3d k%d s%d     %5.1f%% %10lld cyc     %5.1f%% %10lld cyc\n", resnet18[i].name,
           resnet18[i].hw, resnet18[i].hw, resnet18[i].ci, resnet18[i].co, resnet18[i].k, resnet18[i].stride,
           npu_report_utilisation(&r1), (long long)r1.total_cycles, npu_report_utilisation(&r2),
           (long long)r2.total_cycles);
    tot[0] += r1.total_cycles, tot[1] += r2.total_cycles, gemm += r1.gemm_cycles;
  }
  printf("  all layers                            %5.1f%% %10lld cyc     %5.1f%% %10lld cyc\n",
         100.0 * (double)gemm / (double)tot[0], (long long)tot[0], 100.0 * (double)gemm / (double)tot[1],
         (long long)tot[1]);
  return 0;
}

int main(int argc, char **argv) {
  NpuConfig c;
  npu_config_default(&c);
  c.functional = false;
  int64_t dims[3] = {1024, 1024, 1024};
  int nd = 0;
  for (int i = 1; i < argc; i++) {
    char err[512];
    if (!strcmp(argv[i], "--config") && i + 1 < argc) {
      if (npu_config_load(&c, argv[++i], err, sizeof err)) {
        fprintf(stderr, "bench_npu: %s\n", err);
        return 2;
      }
      c.functional = false;
    } else if (nd < 3 && atoll(argv[i]) > 0) {
      dims[nd++] = atoll(argv[i]);
    } else {
      fprintf(stderr, "usage: bench_npu [M N K] [--config FILE]\n");
      return 2;
    }
  }
  if (nd != 0 && nd != 3) {
    fprintf(stderr, "usage: bench_npu [M N K] [--config FILE]\n");
    return 2;
  }
  printf("NPU: %dx%dx%d GEMM core, DMA %lld B/cycle, %lld-cycle latency\n", c.batch, c.block_in, c.block_out,
         (long long)c.dma_bytes_per_cycle, (long long)c.dma_latency);
  if (nd == 3) return bench_shape(&c, dims[0], dims[1], dims[2]);
  int rc = bench_shape(&c, 1024, 1024, 1024) || bench_resnet(&c);
  /* Small-scratchpad machine: loads as long as GEMMs, where latency hiding matters most. */
  NpuConfig small = c;
  small.inp_buff_bytes = 4096, small.wgt_buff_bytes = 16384, small.acc_buff_bytes = 16384;
  printf("with 4 KiB inp, 16 KiB wgt, 16 KiB acc scratchpads:\n");
  return rc || bench_shape(&small, 1024, 1024, 1024);
}
