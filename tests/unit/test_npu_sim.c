/* test_npu_sim.c - the NPU simulator (runtime/npu_isa.h, docs/npu.md).
 *
 * Cycle counts of three hand-written micro-programs (a single GEMM, a
 * load-compute-store chain, a two-thread pipeline with and without overlap)
 * against the model of docs/npu.md computed by hand in the comments; values
 * of the GEMM and every ALU op; a padded load; the text form's round trip
 * and its errors;
 * the checks (scratchpad bounds, flags, deadlock, leftover tokens); the JSON
 * configuration. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/npu_isa.h"

static char err[1024];

/* Parses text into p (CHECKs success). */
static void parse(NpuProgram *p, const char *text) {
  npu_program_init(p);
  err[0] = '\0';
  int rc = npu_program_parse(p, "test.npu", text, err, sizeof err);
  if (rc) fprintf(stderr, "parse: %s\n", err);
  CHECK(rc == 0);
}

static int run(const char *text, void *const *data, NpuReport *r) {
  NpuConfig c;
  npu_config_default(&c);
  NpuProgram p;
  parse(&p, text);
  err[0] = '\0';
  int rc = npu_sim_run(&c, &p, data, r, err, sizeof err);
  npu_program_free(&p);
  return rc;
}

/* A single GEMM.  load: inp 100+16/64 -> 101, wgt 100+256/64 -> 205 (push).
 * compute: uop 0..101, reset 101..102, GEMM waits for the token: 205..206
 * (stall 103). store: 206 + 100 + 64/64 = 307. */
static void test_single_gemm(void) {
  const char *text =
      "buffer A inp 1\nbuffer B wgt 1\nbuffer C acc 1\n"
      "uop dst=0 src=0 wgt=0\n"
      "LOAD.uop sram=0 dram=0 x=1\n"
      "LOAD.inp sram=0 dram=A+0 y=1 x=1 stride=1\n"
      "LOAD.wgt sram=0 dram=B+0 y=1 x=1 stride=1 push_next\n"
      "GEMM.reset uop=0:1 iter=1,1 dst=0,0 src=0,0 wgt=0,0\n"
      "GEMM uop=0:1 iter=1,1 dst=0,0 src=0,0 wgt=0,0 pop_prev push_next\n"
      "STORE.acc sram=0 dram=C+0 y=1 x=1 stride=1 pop_prev\n";
  int8_t a[16], b[256];
  int32_t c[16], want[16];
  for (int i = 0; i < 16; i++) a[i] = (int8_t)(i * 7 - 50);
  for (int i = 0; i < 256; i++) b[i] = (int8_t)((i * 13) % 255 - 127);
  for (int o = 0; o < 16; o++) {
    want[o] = 0;
    for (int i = 0; i < 16; i++) want[o] += a[i] * b[o * 16 + i];
  }
  void *data[3] = {a, b, c};
  NpuReport r;
  CHECK_EQ_INT(run(text, data, &r), 0);
  CHECK_EQ_INT(r.total_cycles, 307);
  CHECK_EQ_INT(r.gemm_cycles, 1);
  CHECK_EQ_INT(r.stall[NPU_MOD_COMPUTE], 103);
  CHECK_EQ_INT(r.busy[NPU_MOD_LOAD], 205);
  CHECK_EQ_INT(r.dram_read_bytes, 16 + 256 + 4);
  CHECK_EQ_INT(r.dram_write_bytes, 64);
  CHECK(!memcmp(c, want, sizeof c));
}

/* load -> compute -> store with a requantizing ALU op and an int8 store.
 * load: inp 4 tiles 100+64/64 = 101, wgt 4 tiles 100+1024/64 -> 217 (push).
 * compute: uop 0..101, reset ..102, GEMM over 4 k-blocks 217..221, shr
 * 221..222 (push). store: out tile 16 B: 222 + 101 = 323. */
static void test_chain(void) {
  const char *text =
      "buffer A inp 4\nbuffer B wgt 4\nbuffer C out 1\n"
      "uop dst=0 src=0 wgt=0\n"
      "LOAD.uop sram=0 dram=0 x=1\n"
      "LOAD.inp sram=0 dram=A+0 y=1 x=4 stride=4\n"
      "LOAD.wgt sram=0 dram=B y=1 x=4 stride=4 push_next\n"
      "GEMM.reset uop=0:1 iter=1,1 dst=0,0 src=0,0 wgt=0,0\n"
      "GEMM uop=0:1 iter=1,4 dst=0,0 src=0,1 wgt=0,1 pop_prev\n"
      "ALU.shr imm=3 uop=0:1 iter=1,1 dst=0,0 src=0,0 push_next\n"
      "STORE.out sram=0 dram=C+0 y=1 x=1 stride=1 pop_prev\n";
  int8_t a[64], b[1024], c[16];
  for (int i = 0; i < 64; i++) a[i] = (int8_t)(i % 23 - 11);
  for (int i = 0; i < 1024; i++) b[i] = (int8_t)(i % 19 - 9);
  void *data[3] = {a, b, c};
  NpuReport r;
  CHECK_EQ_INT(run(text, data, &r), 0);
  CHECK_EQ_INT(r.total_cycles, 323);
  CHECK_EQ_INT(r.gemm_cycles, 4);
  CHECK_EQ_INT(r.alu_cycles, 1);
  CHECK_EQ_INT(r.stall[NPU_MOD_COMPUTE], 115);
  CHECK_EQ_INT(r.stall[NPU_MOD_STORE], 222);
  int bad = 0;
  for (int o = 0; o < 16; o++) {
    int32_t s = 0;
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < 16; i++) s += a[k * 16 + i] * b[k * 256 + o * 16 + i];
    bad += c[o] != (int8_t)(s >> 3);
  }
  CHECK_EQ_INT(bad, 0);
}

/* Two threads, each a 200-cycle GEMM on its own inp/wgt tiles.  Overlapped:
 * load t0 0..205 (push), t1 205..410 (push); compute uop 0..101, reset
 * ..103, t0 205..405, t1 410..610 (push); store 2 acc tiles 610+102 = 712.
 * Serialised (load t1 pops a token GEMM t0 pushes at 405): load t1
 * 405..610, GEMM t1 610..810, store 810..912. */
static const char *pipeline_fmt =
    "buffer A inp 2\nbuffer B wgt 2\nbuffer C acc 2\n"
    "uop dst=0 src=0 wgt=0\nuop dst=1 src=1 wgt=1\n"
    "LOAD.uop sram=0 dram=0 x=2\n"
    "GEMM.reset uop=0:2 iter=1,1 dst=0,0 src=0,0 wgt=0,0\n"
    "LOAD.inp sram=0 dram=A+0 y=1 x=1 stride=1\n"
    "LOAD.wgt sram=0 dram=B+0 y=1 x=1 stride=1 push_next\n"
    "GEMM uop=0:1 iter=1,200 dst=0,0 src=0,0 wgt=0,0 pop_prev%s\n"
    "LOAD.inp sram=1 dram=A+1 y=1 x=1 stride=1%s\n"
    "LOAD.wgt sram=1 dram=B+1 y=1 x=1 stride=1 push_next\n"
    "GEMM uop=1:2 iter=1,200 dst=0,0 src=0,0 wgt=0,0 pop_prev push_next\n"
    "STORE.acc sram=0 dram=C+0 y=1 x=2 stride=2 pop_prev\n";

static void test_pipeline(void) {
  char text[2048];
  int8_t a[32] = {1}, b[512] = {1};
  int32_t c[32];
  void *data[3] = {a, b, c};
  NpuReport r;
  snprintf(text, sizeof text, pipeline_fmt, "", "");
  CHECK_EQ_INT(run(text, data, &r), 0);
  CHECK_EQ_INT(r.total_cycles, 712);
  CHECK_EQ_INT(r.gemm_cycles, 400);
  CHECK_EQ_INT(r.busy[NPU_MOD_COMPUTE], 101 + 2 + 400);
  snprintf(text, sizeof text, pipeline_fmt, " push_prev", " pop_next");
  CHECK_EQ_INT(run(text, data, &r), 0);
  CHECK_EQ_INT(r.total_cycles, 912);
  CHECK_EQ_INT(r.stall[NPU_MOD_LOAD], 405 - 205);
  /* GEMM of tile 0 with itself 200 times: 200 * a[0] * b[0] = 200. */
  CHECK_EQ_INT(c[0], 200);
}

static void expect_error(const char *text, const char *needle) {
  NpuReport r;
  int8_t buf[4096] = {0};
  void *data[4] = {buf, buf, buf, buf};
  CHECK(run(text, data, &r) != 0);
  if (!strstr(err, needle)) fprintf(stderr, "expected '%s' in: %s\n", needle, err);
  CHECK(strstr(err, needle) != NULL);
}

static void test_errors(void) {
  /* Each module waits for the other: a clear deadlock naming both. */
  expect_error("LOAD.uop sram=0 dram=0 x=1\nbuffer A inp 1\nuop dst=0\n"
               "LOAD.inp sram=0 dram=A y=1 x=1 stride=1 pop_next push_next\n"
               "GEMM uop=0:1 pop_prev push_prev\n",
               "deadlock: every unfinished module waits");
  expect_error("buffer A inp 1\nLOAD.inp sram=0 dram=A y=1 x=1 stride=1 pop_next\n",
               "load waits at instruction 0 for a compute->load token");
  expect_error("buffer A inp 4\nLOAD.inp sram=2047 dram=A y=1 x=2 stride=2\n",
               "instruction 0 (line 2) `LOAD.inp sram=2047 dram=A+0 y=1 x=2 stride=2`: scratchpad tiles "
               "[2047, 2049) overflow the inp scratchpad (2048 tiles)");
  expect_error("buffer A inp 4\nLOAD.inp sram=0 dram=A+2 y=2 x=2 stride=2\n", "overrun the 4-tile buffer");
  expect_error("buffer A inp 4\nLOAD.inp sram=0 dram=A y=1 x=1 stride=1 pop_prev\n",
               "pop_prev on the load module, which has no previous neighbour");
  expect_error("buffer A inp 4\nLOAD.inp sram=0 dram=A y=1 x=1 stride=1 push_next\n",
               "load->compute token queue holds 1 token(s) at the end");
  expect_error("uop dst=2048\nLOAD.uop sram=0 dram=0 x=1\nGEMM.reset uop=0:1\n",
               "micro-op 0: dst tile 2048 is outside the acc scratchpad (2048 tiles)");
  expect_error("uop dst=0\nLOAD.uop sram=0 dram=0 x=1\nGEMM uop=0:1 iter=1,3000 src=0,1\n",
               "src tile 2999 is outside the inp scratchpad");
  expect_error("buffer B wgt 1\nLOAD.inp sram=0 dram=B y=1 x=1 stride=1\n",
               "DRAM buffer 'B' holds wgt tiles, not inp");
}

static void expect_parse_error(const char *text, const char *msg) {
  NpuProgram p;
  npu_program_init(&p);
  CHECK(npu_program_parse(&p, "t.npu", text, err, sizeof err) != 0);
  if (strcmp(err, msg)) fprintf(stderr, "got:  %s\nwant: %s\n", err, msg);
  CHECK_EQ_STR(err, msg);
  npu_program_free(&p);
}

static void test_text(void) {
  char text[2048], *out1 = NULL, *out2 = NULL;
  size_t n1, n2;
  snprintf(text, sizeof text, pipeline_fmt, " push_prev", " pop_next");
  NpuProgram p, q;
  parse(&p, text);
  CHECK_EQ_INT(p.ninsns, 9);
  FILE *f = open_memstream(&out1, &n1);
  npu_program_print(f, &p);
  fclose(f);
  parse(&q, out1);
  f = open_memstream(&out2, &n2);
  npu_program_print(f, &q);
  fclose(f);
  CHECK_EQ_STR(out1, out2);
  CHECK(strstr(out1, "   4: GEMM uop=0:1 iter=1,200 dst=0,0 src=0,0 wgt=0,0 pop_prev push_prev\n") != NULL);
  free(out1), free(out2);
  npu_program_free(&p), npu_program_free(&q);
  expect_parse_error("\n  GEMM uop=0:1 itr=1,1\n", "t.npu:2:16: error: unknown operand 'itr' here");
  expect_parse_error("LOAD.inp dram=X\n", "t.npu:1:15: error: no buffer 'X' declared");
  expect_parse_error("ALU.pow imm=1\n", "t.npu:1:1: error: unknown instruction 'ALU.pow' (LOAD.M, STORE.M, "
                                        "GEMM, GEMM.reset, ALU.OP, FINISH)");
  expect_parse_error("GEMM iter=1,x\n", "t.npu:1:11: error: bad value '1,x' for iter=");
}

/* Every ALU op, with an immediate and with a tensor operand, on one tile. */
static void test_alu(void) {
  const char *names[5] = {"min", "max", "add", "shr", "mul"};
  for (int k = 0; k < 5; k++)
    for (int use_imm = 0; use_imm < 2; use_imm++) {
      char text[1024];
      snprintf(text, sizeof text,
               "buffer X acc 2\nbuffer Y acc 1\nuop dst=0 src=1\n"
               "LOAD.uop sram=0 dram=0 x=1\nLOAD.acc sram=0 dram=X y=1 x=2 stride=2\n"
               "ALU.%s %s uop=0:1 push_next\nSTORE.acc sram=0 dram=Y y=1 x=1 stride=1 pop_prev\n",
               names[k], use_imm ? "imm=3" : "");
      int32_t x[32], y[16];
      for (int i = 0; i < 32; i++) x[i] = i < 16 ? (i - 8) * 1000 + 7 : (i % 5);
      void *data[2] = {x, y};
      NpuReport r;
      CHECK_EQ_INT(run(text, data, &r), 0);
      int bad = 0;
      for (int e = 0; e < 16; e++) {
        int32_t a = x[e], b = use_imm ? 3 : x[16 + e], w;
        w = k == 0 ? (a < b ? a : b) : k == 1 ? (a > b ? a : b) : k == 2 ? a + b : k == 3 ? a >> b : a * b;
        bad += y[e] != w;
      }
      CHECK_EQ_INT(bad, 0);
    }
}

/* A padded 2-D load (a conv's border): a 2 x 2 grid of input tiles lands in
 * the middle of a 4 x 4 grid of zeros; an identity weight tile copies it to
 * the accumulators.  The load moves 16 tiles (padding included): 100 +
 * 256/64 = 104 cycles, and reads 64 bytes of DRAM. */
static void test_padded_load(void) {
  const char *text =
      "buffer A inp 4\nbuffer W wgt 1\nbuffer C acc 16\n"
      "uop dst=0 src=0 wgt=0\n"
      "LOAD.uop sram=0 dram=0 x=1\n"
      "LOAD.inp sram=0 dram=A y=2 x=2 stride=2 pad=1,1,1,1\n"
      "LOAD.wgt sram=0 dram=W y=1 x=1 stride=1 push_next\n"
      "GEMM.reset uop=0:1 iter=16,1 dst=1,0\n"
      "GEMM uop=0:1 iter=16,1 dst=1,0 src=1,0 pop_prev push_next\n"
      "STORE.acc sram=0 dram=C y=1 x=16 stride=16 pop_prev\n";
  int8_t a[64], w[256] = {0};
  int32_t c[256];
  for (int i = 0; i < 64; i++) a[i] = (int8_t)(i + 1);
  for (int o = 0; o < 16; o++) w[o * 16 + o] = 1;
  void *data[3] = {a, w, c};
  NpuReport r;
  CHECK_EQ_INT(run(text, data, &r), 0);
  CHECK_EQ_INT(r.busy[NPU_MOD_LOAD], 104 + 104);
  CHECK_EQ_INT(r.dram_read_bytes, 64 + 256 + 4);
  int bad = 0;
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++)
      for (int e = 0; e < 16; e++) {
        bool inside = y >= 1 && y <= 2 && x >= 1 && x <= 2;
        int32_t want = inside ? a[((y - 1) * 2 + (x - 1)) * 16 + e] : 0;
        bad += c[(y * 4 + x) * 16 + e] != want;
      }
  CHECK_EQ_INT(bad, 0);
  expect_error("buffer C acc 1\nSTORE.acc sram=0 dram=C y=1 x=1 stride=1 pad=0,0,1,0\n", "only LOAD of inp, wgt or acc pads");
  expect_error("buffer A inp 1\nLOAD.inp sram=0 dram=A y=16777217 x=1 stride=0\n", "a field is out of range");
}

static void test_config(void) {
  NpuConfig c;
  npu_config_default(&c);
  CHECK_EQ_INT(c.block_in, 16);
  CHECK_EQ_INT(c.dma_latency, 100);
  CHECK_EQ_INT(npu_config_parse_json(&c, "{\"block_in\": 8, \"dma_latency\": 10, \"functional\": false}", err,
                                     sizeof err), 0);
  CHECK_EQ_INT(c.block_in, 8);
  CHECK_EQ_INT(c.dma_latency, 10);
  CHECK(!c.functional);
  CHECK(npu_config_parse_json(&c, "{\"blok_in\": 8}", err, sizeof err) != 0);
  CHECK(strstr(err, "unknown key 'blok_in'") != NULL);
  CHECK(npu_config_parse_json(&c, "{\"block_in\": -1}", err, sizeof err) != 0);
  CHECK(npu_config_parse_json(&c, "[1]", err, sizeof err) != 0);
  /* A smaller latency shortens the single GEMM's model: 3 DMAs of 10 + 1 + 4 + 1 ... */
  NpuProgram p;
  parse(&p, "buffer A inp 1\nLOAD.inp sram=0 dram=A y=1 x=1 stride=1\n");
  NpuReport r;
  CHECK_EQ_INT(npu_sim_run(&c, &p, NULL, &r, err, sizeof err), 0);
  CHECK_EQ_INT(r.total_cycles, 10 + 1); /* 8-byte tile at 64 B/cycle */
  npu_program_free(&p);
}

int main(void) {
  test_single_gemm();
  test_chain();
  test_pipeline();
  test_errors();
  test_text();
  test_alu();
  test_padded_load();
  test_config();
  TEST_MAIN_END();
}
