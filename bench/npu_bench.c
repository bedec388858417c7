/* npu_bench.c - latency hiding on the simulated NPU (docs/npu.md): GEMM
 * utilisation of an int8 matmul without and with virtual threads.
 *
 * For each shape: the tiling the backend chooses for 1 and for 2 virtual
 * threads (what `tvs run --target npu` does), and the 2-thread tiling run
 * on 1 thread (the same tiles, no overlap).  Cycle counts only (the
 * simulator's timing mode); values are checked by tests/e2e/test_npu.sh.
 * usage: bench_npu [M N K] [--config FILE] */
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
  int rc = bench_shape(&c, 1024, 1024, 1024);
  /* Small-scratchpad machine: loads as long as GEMMs, where latency hiding matters most. */
  NpuConfig small = c;
  small.inp_buff_bytes = 4096, small.wgt_buff_bytes = 16384, small.acc_buff_bytes = 16384;
  printf("with 4 KiB inp, 16 KiB wgt, 16 KiB acc scratchpads:\n");
  return rc || bench_shape(&small, 1024, 1024, 1024);
}
