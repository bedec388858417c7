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

/* npu-coproc-sync on a hand-built stream: the RAW and WAR tokens, one token
 * for a task's two loads, and a refusal for a buffer copy out of range. */
static void coproc_sync(void) {
  NpuLowered l;
  cg_npu_lowered_init(&l, 1);
  l.slot[NPU_MEM_INP] = 4, l.slot[NPU_MEM_WGT] = 4, l.slot[NPU_MEM_ACC] = 4;
  npu_program_add_uop(&l.p, 0, 0, 0);
  for (int task = 0; task < 2; task++) {
    NpuInsn *in = cg_npu_lowered_add(&l, NPU_LOAD, 0, -1);
    in->mem = (NpuMemInsn){.mem = NPU_MEM_INP, .y_size = 1, .x_size = 4};
    in = cg_npu_lowered_add(&l, NPU_LOAD, 0, -1);
    in->mem = (NpuMemInsn){.mem = NPU_MEM_WGT, .y_size = 1, .x_size = 4};
    in = cg_npu_lowered_add(&l, NPU_GEMM, 0, 0);
    in->loop = (NpuLoopInsn){.uop_end = 1, .iter_out = 4, .iter_in = 1, .dst_out = 1, .src_out = 1, .wgt_out = 1};
  }
  NpuInsn *st = cg_npu_lowered_add(&l, NPU_STORE, -1, 0);
  st->mem = (NpuMemInsn){.mem = NPU_MEM_ACC, .y_size = 1, .x_size = 4};
  CHECK_EQ_INT(cg_npu_lower_to(&l, NPU_STAGE_ISA, err, sizeof err), 0);
  const NpuInsn *in = l.p.insns;
  CHECK_EQ_INT(in[0].deps, 0);
  CHECK_EQ_INT(in[1].deps, NPU_PUSH_NEXT);                /* the task's last load */
  CHECK_EQ_INT(in[2].deps, NPU_POP_PREV | NPU_PUSH_PREV); /* RAW in, WAR out */
  CHECK_EQ_INT(in[3].deps, NPU_POP_NEXT);                 /* waits for GEMM 2 */
  CHECK_EQ_INT(in[4].deps, NPU_PUSH_NEXT);
  CHECK_EQ_INT(in[5].deps, NPU_POP_PREV | NPU_PUSH_NEXT);
  CHECK_EQ_INT(in[6].deps, NPU_POP_PREV);
  cg_npu_lowered_free(&l);

  cg_npu_lowered_init(&l, 1);
  l.slot[NPU_MEM_INP] = 1;
  NpuInsn *far = cg_npu_lowered_add(&l, NPU_LOAD, 0, -1);
  far->mem = (NpuMemInsn){.mem = NPU_MEM_INP, .sram_base = 100, .y_size = 1, .x_size = 1};
  CHECK(cg_npu_lower_to(&l, NPU_STAGE_COPROC_SYNC, err, sizeof err) != 0);
  CHECK(strstr(err, "beyond 8 thread copies") != NULL);
  cg_npu_lowered_free(&l);
}

/* The schedule's tile: fixed dimensions kept, the others chosen; tiles not
 * whole GEMM blocks refused. */
static void schedule_tiles(void) {
  NpuConfig c;
  machine(&c, 0);
  NpuMatmul mm = {.m = 64, .n = 64, .k = 256, .vthreads = 2, .tile_rows = 8, .tile_red = 64};
  NpuTiling t = {.vthreads = 2};
  CHECK_EQ_INT(cg_npu_check_schedule_tiles(&c, &mm, err, sizeof err), 0);
  cg_npu_choose_tiling(&c, &mm, &t);
  CHECK_EQ_INT(t.tm, 8);
  CHECK_EQ_INT(t.tk, 4);
  CHECK(t.tn >= 1 && t.tn <= 4);
  mm.tile_cols = 40;
  CHECK(cg_npu_check_schedule_tiles(&c, &mm, err, sizeof err) != 0);
  CHECK(strstr(err, "40 columns") != NULL);
  mm.tile_cols = 64; /* the whole extent is always a tile */
  CHECK_EQ_INT(cg_npu_check_schedule_tiles(&c, &mm, err, sizeof err), 0);
}

int main(void) {
  coproc_sync();
  schedule_tiles();
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
