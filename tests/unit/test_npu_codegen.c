/* test_npu_codegen.c - the NPU backend's streams (codegen/npu.h) as a
 * property: for many matmul and conv2d shapes, machines and 1-4 virtual
 * threads, the chosen tiling fits, the stream runs on the simulator without
 * a deadlock or a leftover token, and the GEMM core does exactly the padded
 * problem's work (cycle counts only; values are tests/e2e/test_npu.sh's).
 * Sampled under TVS_TEST_QUICK. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codegen/npu.h"

static char err[1024];

static uint64_t rng = 12345;
static int64_t draw(int64_t lo, int64_t hi) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (int64_t)((rng >> 33) % (uint64_t)(hi - lo + 1));
}

static void machine(NpuConfig *c, int which) {
  npu_config_default(c);
  c->functional = false;
  if (which == 1) c->inp_buff_bytes = 4096, c->wgt_buff_bytes = 16384, c->acc_buff_bytes = 16384;
  if (which == 2) c->dma_latency = 7, c->dma_bytes_per_cycle = 8;
}

static void one_matmul(const NpuConfig *c, int64_t m, int64_t n, int64_t k, int v) {
  NpuMatmul mm = {.m = m, .n = n, .k = k, .vthreads = v};
  NpuTiling t = {.vthreads = v};
  cg_npu_choose_tiling(c, &mm, &t);
  NpuProgram p;
  npu_program_init(&p);
  NpuReport r;
  int rc = cg_npu_matmul_program(c, &mm, &t, &p, err, sizeof err);
  if (rc == 0) rc = npu_sim_run(c, &p, NULL, &r, err, sizeof err);
  if (rc) fprintf(stderr, "matmul %lld x %lld x %lld, %d threads: %s\n", (long long)m, (long long)n, (long long)k, v, err);
  CHECK_EQ_INT(rc, 0);
  if (rc == 0) CHECK_EQ_INT(r.gemm_cycles, m * ((n + 15) / 16) * ((k + 15) / 16));
  npu_program_free(&p);
}

static void one_conv(const NpuConfig *c, NpuConv2d cv, int v) {
  cv.oh = (cv.h + 2 * cv.pad_top - cv.kh) / cv.stride + 1;
  cv.ow = (cv.w + 2 * cv.pad_left - cv.kw) / cv.stride + 1;
  cv.pad_bottom = (cv.oh - 1) * cv.stride + cv.kh - cv.h - cv.pad_top;
  cv.pad_right = (cv.ow - 1) * cv.stride + cv.kw - cv.w - cv.pad_left;
  if (cv.pad_bottom < 0) cv.pad_bottom = 0;
  if (cv.pad_right < 0) cv.pad_right = 0;
  NpuConvTiling t = {.vthreads = v};
  cg_npu_choose_conv_tiling(c, &cv, &t);
  NpuProgram p;
  npu_program_init(&p);
  NpuReport r;
  int rc = cg_npu_conv2d_program(c, &cv, &t, &p, err, sizeof err);
  if (rc == 0) rc = npu_sim_run(c, &p, NULL, &r, err, sizeof err);
  if (rc) fprintf(stderr, "conv %lldx%lldx%lld -> %lld k%lld s%lld, %d threads: %s\n", (long long)cv.c, (long long)cv.h,
                  (long long)cv.w, (long long)cv.o, (long long)cv.kh, (long long)cv.stride, v, err);
  CHECK_EQ_INT(rc, 0);
  int64_t cb = (cv.c + 15) / 16, ob = (cv.o + 15) / 16;
  if (rc == 0) CHECK_EQ_INT(r.gemm_cycles, cv.n * ob * cv.oh * cv.ow * cb * cv.kh * cv.kw);
  npu_program_free(&p);
}

int main(void) {
  int reps = getenv("TVS_TEST_QUICK") ? 50 : 600;
  for (int i = 0; i < reps; i++) {
    NpuConfig c;
    machine(&c, i % 3);
    int v = (int)draw(1, 4);
    one_matmul(&c, draw(1, 300), draw(1, 300), draw(1, 300), v);
    NpuConv2d cv = {.n = draw(1, 2), .c = draw(1, 70), .h = draw(3, 20), .o = draw(1, 50), .stride = draw(1, 2)};
    cv.w = draw(3, 20);
    cv.kh = cv.kw = draw(0, 1) ? 3 : 1;
    cv.pad_top = cv.pad_left = cv.kh == 3 ? draw(0, 1) : 0;
    one_conv(&c, cv, v);
  }
  /* A machine too small for any tiling: a clear refusal, not a crash. */
  NpuConfig tiny;
  machine(&tiny, 0);
  tiny.inp_buff_bytes = 16;
  NpuConv2d cv = {.n = 1, .c = 16, .h = 8, .w = 8, .o = 16, .kh = 3, .kw = 3, .stride = 1, .oh = 6, .ow = 6};
  NpuConvTiling t = {.vthreads = 1};
  cg_npu_choose_conv_tiling(&tiny, &cv, &t);
  NpuProgram p;
  npu_program_init(&p);
  CHECK(cg_npu_conv2d_program(&tiny, &cv, &t, &p, err, sizeof err) != 0);
  CHECK(strstr(err, "no tiling fits the scratchpads") != NULL);
  npu_program_free(&p);
  TEST_MAIN_END();
}
