/* test_sched.c - schedule primitives against the interpreter, and traces.
 *
 * For each case: load a module from tests/lit/sched/Inputs, apply a schedule
 * script, run the scheduled and the unscheduled function on the same inputs
 * (results must match), then print the trace, replay it on the original
 * module and require a structurally equal result.  Then handle semantics
 * (valid after rebuilds, stale after removal), undo, and error atomicity. */
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

static void test_primitives(void) {
  char *p;
  p = check_case("mm_relu.tvs", "mm_relu",
                 "sch = tvm.tir.Schedule(MyModule)\n"
                 "block_Y = sch.get_block(\"Y\", func_name=\"mm_relu\")\n"
                 "i, j, k = sch.get_loops(block_Y)\n"
                 "j0, j1 = sch.split(j, factors=[None, 4])\n"
                 "sch.reorder(j0, k, j1)\n"
                 "block_C = sch.get_block(\"C\", \"mm_relu\")\n"
                 "sch.reverse_compute_at(block_C, j0)\n"
                 "sch.decompose_reduction(block_Y, k)\n");
  expect_contains(p, "vj = T.axis.spatial(128, j_0 * 4 + ax0)");
  expect_contains(p, "for j_1_init in range(4):");
  free(p);
  p = check_case("vec10.tvs", "main", "i, = sch.get_loops(sch.get_block(\"B\"))\nsch.split(i, [None, 4])\n");
  expect_contains(p, "T.where(i_0 * 4 + i_1 < 10)");
  free(p);
  p = check_case("two_stage.tvs", "main",
                 "i, j = sch.get_loops(\"C\")\na, b, c = sch.split(i, factors=[2, 4, 2])\n"
                 "f = sch.fuse(b, c)\nsch.reorder(j, f)\n");
  free(p);
  p = check_case("two_stage.tvs", "main",
                 "i, j = sch.get_loops(\"B\")\nf = sch.fuse(i, j)\nsch.parallel(f)\n"
                 "i2, j2 = sch.get_loops(\"C\")\nsch.vectorize(j2)\nsch.unroll(i2)\n"
                 "sch.annotate(i2, ann_key=\"pragma_x\", ann_val=1)\nsch.unannotate(i2, \"pragma_x\")\n"
                 "sch.annotate(\"C\", \"k\", \"v\")\nu = sch.add_unit_loop(\"C\")\n");
  expect_contains(p, "for i_j_fused in T.parallel(192):");
  free(p);
  p = check_case("two_stage.tvs", "main",
                 "i, j = sch.get_loops(\"C\")\nsch.compute_at(sch.get_block(\"B\"), i)\n");
  expect_contains(p, "for ax0 in range(12):");
  free(p);
  p = check_case("stencil.tvs", "main",
                 "i, = sch.get_loops(\"C\")\nsch.compute_at(\"B\", i)\n");
  expect_contains(p, "for ax0 in range(2):");
  free(p);
  p = check_case("multi_consumer.tvs", "main", "sch.compute_inline(\"B\")\n");
  expect_contains(p, "C[vi, vj] = (A[vi, vj] + T.float32(1.0)) * T.float32(2.0)");
  free(p);
  p = check_case("two_stage.tvs", "main", "sch.reverse_compute_inline(\"C\")\n");
  expect_contains(p, "C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)");
  free(p);
  p = check_case("two_stage.tvs", "main",
                 "i, j = sch.get_loops(\"B\")\nsch.reverse_compute_at(\"C\", j)\n");
  free(p);
  p = check_case("matmul.tvs", "main",
                 "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.decompose_reduction(b, i)\n");
  expect_contains(p, "for i_init, j_init in T.grid(16, 16):");
  free(p);
  p = check_case("multi_consumer.tvs", "main",
                 "i, j = sch.get_loops(\"C\")\nsch.split(j, [2, None])\n"
                 "def apply_trace(sch):\n    sch.get_consumers(\"B\")\n    sch.get_producers(\"C\")\n");
  free(p);
}

/* Handle semantics, undo and unchanged-on-error, through the C API. */
static void test_handles(void) {
  IrModule *m = load("mm_relu.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV y = sch_get_block(s, "Y", "mm_relu");
  CHECK(y >= 0);
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, y, &loops), 3);
  SchRV i = loops[0], j = loops[1], k = loops[2];
  free(loops);
  int64_t f[2] = {0, 4};
  SchRV parts[2];
  CHECK_EQ_INT(sch_split(s, j, f, 2, true, false, parts), 0);
  /* i, k and the block stay valid; j is stale. */
  CHECK_EQ_INT(sch_get_loops(s, y, &loops), 4);
  free(loops);
  CHECK_EQ_INT(sch_parallel(s, i), 0);
  CHECK_EQ_INT(d.nerr, 0);
  CHECK_EQ_INT(sch_unroll(s, j), -1);
  CHECK_EQ_INT(d.nerr, 1);
  CHECK(d.len && strstr(d.items[d.len - 1].msg, "stale handle"));
  /* A failing primitive leaves the version alone. */
  int nv = sch_num_versions(s);
  int64_t bad[2] = {1, 3};
  CHECK_EQ_INT(sch_split(s, parts[1], bad, 2, true, false, parts), -1);
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK(strstr(d.items[d.len - 1].msg, "split: factors [1, 3] multiply to 3 but loop 'j_1' has extent 4") != NULL);
  CHECK_EQ_INT(sch_vectorize(s, k), -1);
  CHECK(strstr(d.items[d.len - 1].msg,
               "vectorize: loop 'k' carries a reduction dependency (block 'Y' iter 'vk' is a reduce iter)") != NULL);
  /* Undo back to the input. */
  while (sch_undo(s)) {}
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  CHECK_EQ_INT(sch_trace_len(s), 2); /* get_block and get_loops are not undone */
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

int main(void) {
  test_primitives();
  test_handles();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
