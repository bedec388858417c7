/* test_sched_cache_ext.c - cache_inplace, read_at, write_at, rolling_buffer
 * (and cache_index) against the interpreter and the native build.
 *
 * Each case applies a script to a module of tests/lit/sched/Inputs, requires
 * the results of the unscheduled function, a replayable trace and a printed
 * module that parses back; then refusals through the C API leave the
 * schedule unchanged. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/schedule.h"

#include "sched_harness.h"

/* Scripts that start with this verify the IR after every step (TVM's debug_mask). */
#define VERIFY "sch = tvm.tir.Schedule(Module, debug_mask=\"all\")\n"

static void test_cache_inplace(void) {
  char *p = check_case("cache_inplace.tvs", "main",
                       VERIFY "b = sch.get_block(\"update\")\nblocks = sch.cache_inplace(b, 0, \"local\")\n"
                       "sch.cache_inplace(\"scale\", \"B\", \"global\")\n");
  expect_contains(p, "A_local[k] = A_local[k] * T.float32(2.0) + T.float32(1.0)");
  expect_contains(p, "B[v0, v1] = B_global[v0, v1]");
  free(p);
}

static void test_read_write_at(void) {
  char *p = check_case("read_at_matmul.tvs", "main",
                       VERIFY "c = sch.get_block(\"C\")\ni, j, k0, k1 = sch.get_loops(c)\n"
                       "sch.read_at(k0, c, 0, \"shared\")\nsch.read_at(j, c, 1, \"local\")\n");
  expect_contains(p, "A_shared[v0 + ax0, v1 * 4 + ax1] = A[v0 + ax0, v1 * 4 + ax1]");
  expect_contains(p, "T.block_attr({\"auto_copy\": 1})");
  free(p);
  p = check_case("read_at_matmul.tvs", "main",
                 "c = sch.get_block(\"C\")\ni, j, k0, k1 = sch.get_loops(c)\nsch.write_at(j, c, 0, \"local\")\n");
  expect_contains(p, "C[v0 + ax0, v1 + ax1] = C_local[v0 + ax0, v1 + ax1]");
  free(p);
  /* At the outermost loop: the whole row block of A is cached per i. */
  p = check_case("read_at_matmul.tvs", "main",
                 "c = sch.get_block(\"C\")\ni, j, k0, k1 = sch.get_loops(c)\nsch.read_at(i, c, 0, \"local\")\n"
                 "sch.write_at(i, c, 0, \"local\")\n");
  expect_contains(p, "T.reads(A[v0, 0:16])");
  free(p);
}

static void test_rolling_buffer(void) {
  char *p = check_case("rolling_pool.tvs", "main",
                       VERIFY "i, r = sch.get_loops(\"C\")\nio, ii = sch.split(i, [2, 4])\n"
                       "sch.compute_at(sch.get_block(\"B\"), io)\nsch.rolling_buffer(\"B\", 0)\n");
  expect_contains(p, "B = T.alloc_buffer((6,))");
  expect_contains(p, "T.where(i_0 < 1 or 2 <= ax0)");
  free(p);
  /* Three tiles. */
  p = check_case("rolling_pool.tvs", "main",
                 "i, r = sch.get_loops(\"C\")\nio, ii = sch.split(i, [4, 2])\n"
                 "sch.compute_at(sch.get_block(\"B\"), io)\nsch.rolling_buffer(\"B\", \"B\")\n");
  expect_contains(p, "B = T.alloc_buffer((4,))");
  free(p);
}

static void test_cache_index(void) {
  char *p = check_case("cache_index_resize.tvs", "main", VERIFY "sch.cache_index(\"A\", \"global\")\n");
  expect_contains(p, "index_var_0[v0, v1] = v0 // 4 + v1 // 4");
  expect_contains(p, "B[c, vi, vj] = A[c, index_var_0[vi, vj], index_var_1[vj]]");
  free(p);
  p = check_case("cache_index_repeat.tvs", "main", "blocks = sch.cache_index(\"A\", \"shared\", cse_thresh=2)\n"
                 "sch.compute_at(blocks[0], sch.get_loops(\"A\")[0])\n");
  expect_contains(p, "B[vi, vj] = A[vi // 4 + index_var_0[vj], index_var_0[vj]]");
  free(p);
  /* Nothing above the threshold: no stage, the block is unchanged. */
  p = check_case("cache_index_repeat.tvs", "main", "sch.cache_index(\"A\", \"global\", 3)\n");
  expect_contains(p, "B[vi, vj] = A[vi // 4 + vj // 4, vj // 4]");
  free(p);
}

/* Refusals report one error and leave the version alone. */
static void test_refusals(void) {
  IrModule *m = load("read_at_matmul.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV c = sch_get_block(s, "C", NULL);
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, c, &loops), 4);
  int nv = sch_num_versions(s);
  SchRV out[2];
  CHECK_EQ_INT(sch_cache_inplace(s, c, 0, "local", out), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "cache_inplace: block 'C' does not both read and write buffer 'A'") != NULL);
  CHECK_EQ_INT(sch_read_at(s, loops[2], c, 5, "shared"), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "read_at: buffer index 5 is out of range [0, 2) of the reads of block 'C'") != NULL);
  CHECK_EQ_INT(sch_write_at(s, loops[2], c, 0, "bogus"), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "write_at: the storage scope \"bogus\" is invalid") != NULL);
  CHECK_EQ_INT(sch_rolling_buffer(s, c, 0), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "rolling_buffer: block 'C' is an output block") != NULL);
  SchRV *idx = NULL;
  CHECK_EQ_INT(sch_cache_index(s, c, "global", -2, &idx), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "cache_index: cse_thresh -2 must not be negative") != NULL);
  free(idx);
  CHECK_EQ_INT(sch_cache_inplace(s, c, 0, "nowhere", out), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "cache_inplace: the storage scope \"nowhere\" is invalid") != NULL);
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  CHECK_EQ_INT(d.nerr, 6);
  free(loops);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

int main(void) {
  test_cache_inplace();
  test_read_write_at();
  test_rolling_buffer();
  test_cache_index();
  test_refusals();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
