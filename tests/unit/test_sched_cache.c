/* test_sched_cache.c - cache_read / cache_write against the interpreter.
 *
 * Each case applies a script to a module of tests/lit/sched/Inputs, requires
 * the interpreter results of the unscheduled function, a replayable trace
 * and a printed module that parses back; then refusals through the C API. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/interp.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"
#include "sched/schedule.h"

#include "sched_harness.h"

static void test_cases(void) {
  char *p;
  p = check_case("two_stage.tvs", "main",
                 "sch.cache_read(\"B\", 0, \"shared\")\nsch.cache_read(\"C\", 0, \"local\")\n"
                 "sch.cache_write(\"C\", 0, \"local\")\n");
  expect_contains(p, "A_shared = T.alloc_buffer((16, 12), scope=\"shared\")");
  expect_contains(p, "with T.block(\"C_local\"):");
  free(p);
  /* A reduction: the cache write-back follows the whole reduction. */
  p = check_case("mm_relu.tvs", "mm_relu",
                 "b = sch.get_block(\"Y\", \"mm_relu\")\nsch.cache_write(b, 0, \"local\")\n"
                 "sch.cache_read(b, 1, \"shared\")\n");
  expect_contains(p, "Y_local[vi, vj] = Y_local[vi, vj] + A[vi, vk] * B_shared[vk, vj]");
  free(p);
  /* Then scheduled further: tile and move the write-back under a loop. */
  p = check_case("matmul.tvs", "main",
                 "b = sch.get_block(\"C\")\nw = sch.cache_write(b, 0, \"local\")\n"
                 "i, j, k = sch.get_loops(b)\nsch.reverse_compute_at(w, i)\n"
                 "sch.decompose_reduction(b, j)\n");
  expect_contains(p, "with T.block(\"C_local\"):");
  free(p);
  p = check_case("three_stage.tvs", "main",
                 "c = sch.cache_read(\"D\", 0, \"global\")\ni, j = sch.get_loops(\"D\")\n"
                 "sch.compute_at(c, i)\n");
  free(p);
  /* consumer_blocks, and buffers given by pair and by name. */
  p = check_case("cache_multi.tvs", "main",
                 "b = sch.get_block(\"B\")\n"
                 "sch.cache_write(b, (\"write\", 0), \"local\", consumer_blocks=[\"C\"])\n"
                 "d = sch.get_block(\"D\")\nsch.cache_read(d, \"A\", \"shared\", [d])\n"
                 "sch.cache_read(\"D\", \"B\", \"global\")\n");
  expect_contains(p, "C[vi] = B_local[vi] * T.float32(2.0)");
  expect_contains(p, "D[vi] = B_global[vi] - A_shared[vi]");
  free(p);
  /* Only the listed reader of the input is redirected. */
  p = check_case("cache_multi.tvs", "main", "sch.cache_read(\"B\", 0, \"local\", consumer_blocks=[\"B\"])\n");
  expect_contains(p, "B[vi] = A_local[vi] + T.float32(1.0)");
  expect_contains(p, "D[vi] = B[vi] - A[vi]");
  free(p);
  /* The writer shares a loop nest with reader B only: serving C alone is
   * placed before C (TVM's test_cache_read_location). */
  p = check_case("cache_multi_nest.tvs", "main", "sch.cache_read(\"B\", 0, \"global\", consumer_blocks=[\"C\"])\n");
  expect_contains(p, "C[vi] = A_global[vi]");
  expect_contains(p, "B[vi] = A[vi] + T.float32(1.0)");
  free(p);
  /* The writer shares loop i with reader B: the stages go inside it (tiles). */
  p = check_case("cache_multi_nest.tvs", "main", "sch.cache_read(\"B\", 0, \"global\")\nsch.cache_write(\"A\", 0, \"local\")\n");
  expect_contains(p, "v0 = T.axis.spatial(128, i * 16 + ax0)");
  expect_contains(p, "C[vi] = A_global[vi]");
  free(p);
  p = check_case("cache_multi_nest.tvs", "main", "sch.cache_write(\"A\", 0, \"shared\", consumer_blocks=[\"B\"])\n");
  expect_contains(p, "B[vi] = A_shared[vi] + T.float32(1.0)");
  free(p);
  /* After compute_at: the cached tile of B under C's loop. */
  p = check_case("two_stage.tvs", "main", "i, j = sch.get_loops(\"C\")\nsch.compute_at(sch.get_block(\"B\"), i)\n"
                 "sch.cache_read(\"C\", 0, \"local\")\n");
  expect_contains(p, "B_local[v0, v1] = B[v0, v1]");
  free(p);
  /* cache_write serving every reader: the write-back goes last. */
  p = check_case("cache_multi.tvs", "main", "sch.cache_write(\"B\", 0, \"local\", consumer_blocks=[\"C\", \"D\"])\n");
  expect_contains(p, "D[vi] = B_local[vi] - A[vi]");
  free(p);
}

/* Refusals report one error and leave the version alone. */
static void test_refusals(void) {
  IrModule *m = load("two_stage.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV b = sch_get_block(s, "B", NULL);
  int nv = sch_num_versions(s);
  CHECK_EQ_INT(sch_cache_read(s, b, 3, "shared"), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "cache_read: buffer index 3 is out of range [0, 1) of the reads of block 'B'") != NULL);
  CHECK_EQ_INT(sch_cache_write(s, b, 0, "bogus"), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "cache_write: the storage scope \"bogus\" is invalid") != NULL);
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  /* Scopes with a tag are valid; the handle returned is the copy block. */
  SchRV c = sch_cache_write(s, b, 0, "shared.dyn");
  CHECK(c >= 0);
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, c, &loops), 2);
  free(loops);
  CHECK_EQ_INT(d.nerr, 2);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

int main(void) {
  test_cases();
  test_refusals();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
