/* test_sched_audit.c - the issue-4 acceptance cases of the first primitives
 * (split, fuse, reorder, add_unit_loop, loop kinds, annotations,
 * compute_at, reverse_compute_at, compute_inline, reverse_compute_inline,
 * decompose_reduction, rfactor, getters), including their non-divisible,
 * unit-loop and multi-consumer forms.
 *
 * Every case runs under debug_mask="all" (the IR is re-verified after each
 * step), must compute what the unscheduled function computes on the
 * interpreter and natively, replay from its printed trace to an equal
 * module, and print IR that parses back equal (check_case). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched_harness.h"

#define DEBUG "sch = tvm.tir.Schedule(Module, debug_mask=\"all\")\n"

static void test_loops(void) {
  char *p;
  /* split: non-divisible, 3-way with an inferred middle factor, unit factors dropped. */
  p = check_case("vec10.tvs", "main", DEBUG "(i,) = sch.get_loops(\"B\")\nsch.split(i, factors=[None, 2, 3])\n");
  expect_contains(p, "for i_0, i_1, i_2 in T.grid(2, 2, 3):");
  expect_contains(p, "T.where((i_0 * 2 + i_1) * 3 + i_2 < 10)"); /* TVM keeps the predicate as built */
  free(p);
  p = check_case("vec10.tvs", "main",
                 DEBUG "(i,) = sch.get_loops(\"B\")\nsch.split(i, factors=[1, 10, 1], preserve_unit_iters=False)\n");
  expect_contains(p, "vi = T.axis.spatial(10, i_1)");
  free(p);
  /* fuse: the loops of a non-divisible split (predicate kept), a unit loop. */
  p = check_case("vec10.tvs", "main",
                 DEBUG "(i,) = sch.get_loops(\"B\")\na, b = sch.split(i, factors=[None, 4])\nsch.fuse(a, b)\n");
  expect_contains(p, "for i_0_i_1_fused in range(12):");
  free(p);
  p = check_case("matmul.tvs", "main",
                 DEBUG "i, j, k = sch.get_loops(\"C\")\nu = sch.add_unit_loop(\"C\")\n"
                 "f = sch.fuse(i, j, preserve_unit_iters=False)\nsch.split(f, factors=[None, 32])\n");
  free(p);
  p = check_case("matmul.tvs", "main",
                 DEBUG "i, j, k = sch.get_loops(\"C\")\nk0, k1 = sch.split(k, factors=[None, 4])\n"
                 "sch.reorder(k0, i, k1, j)\n");
  expect_contains(p, "for k_0, i, k_1, j in T.grid(4, 16, 4, 16):");
  free(p);
  /* reorder across a non-divisible split keeps the predicate. */
  p = check_case("vec10.tvs", "main",
                 DEBUG "(i,) = sch.get_loops(\"B\")\na, b = sch.split(i, factors=[None, 3])\nsch.reorder(b, a)\n");
  free(p);
  /* add_unit_loop on a loop and on a block without loops. */
  p = check_case("two_stage.tvs", "main", DEBUG "i, j = sch.get_loops(\"B\")\nsch.add_unit_loop(j)\n");
  free(p);
  /* loop kinds and annotations, a reduction block's spatial loop parallel. */
  p = check_case("misc_matmul_relu.tvs", "main",
                 DEBUG "i, j, k = sch.get_loops(\"multiply\")\nsch.parallel(i)\n"
                 "sch.unroll(k)\ni2, j2 = sch.get_loops(\"relu\")\nsch.vectorize(j2)\n"
                 "sch.annotate(i2, \"pragma_auto_unroll_max_step\", 16)\nsch.annotate(\"relu\", \"tag\", [1, 2])\n"
                 "sch.unannotate(\"relu\", \"tag\")\n");
  expect_contains(p, "for i in T.parallel(8):");
  free(p);
}

static void test_compute_location(void) {
  char *p;
  /* compute_at: under the consumer's outer loop, with a non-divisible tile of it. */
  p = check_case("three_stage.tvs", "main",
                 DEBUG "i, j = sch.get_loops(\"D\")\na, b = sch.split(j, factors=[None, 5])\n"
                 "sch.compute_at(\"C\", a)\nsch.compute_at(\"B\", a)\n");
  free(p);
  /* multi-consumer: at the loop enclosing both consumers (after fusing their nests). */
  p = check_case("multi_consumer.tvs", "main",
                 DEBUG "sch.compute_inline(\"B\")\nc = sch.get_block(\"C\")\nd = sch.get_block(\"D\")\n"
                 "i, j = sch.get_loops(d)\nsch.reverse_compute_at(d, sch.get_loops(c)[0])\n");
  free(p);
  p = check_case("compute_at_two_consumers.tvs", "main",
                 DEBUG "i, j = sch.get_loops(\"C\")\nsch.compute_at(\"B\", i)\n");
  expect_contains(p, "for i in range(8):\n        for ax0 in range(8):\n            with T.block(\"B\"):");
  free(p);
  /* preserve_unit_loops and an explicit index. */
  p = check_case("two_stage.tvs", "main",
                 DEBUG "i, j = sch.get_loops(\"C\")\nsch.compute_at(\"B\", j, preserve_unit_loops=True, index=0)\n");
  expect_contains(p, "for ax0, ax1 in T.grid(1, 1):");
  free(p);
  /* the stencil reads B[vi] and B[vi + 1]: two elements per iteration. */
  p = check_case("stencil.tvs", "main",
                 DEBUG "(i,) = sch.get_loops(\"C\")\na, b = sch.split(i, factors=[None, 3])\nsch.compute_at(\"B\", a)\n");
  free(p);
  /* reverse_compute_at of an epilogue under a reduction's spatial loop. */
  p = check_case("misc_matmul_relu.tvs", "main",
                 DEBUG "i, j, k = sch.get_loops(\"multiply\")\nsch.reverse_compute_at(\"relu\", i)\n");
  free(p);
  /* compute_inline into two consumers; reverse_compute_inline of an epilogue. */
  p = check_case("multi_consumer.tvs", "main", DEBUG "sch.compute_inline(\"B\")\n");
  free(p);
  p = check_case("three_stage.tvs", "main", DEBUG "sch.reverse_compute_inline(\"C\")\n");
  free(p);
}

static void test_reductions(void) {
  char *p;
  p = check_case("matmul.tvs", "main",
                 DEBUG "i, j, k = sch.get_loops(\"C\")\nk0, k1 = sch.split(k, factors=[None, 4])\n"
                 "sch.decompose_reduction(\"C\", k0)\n");
  expect_contains(p, "with T.block(\"C_init\"):");
  free(p);
  /* decompose at a spatial loop above a unit loop. */
  p = check_case("matmul.tvs", "main",
                 DEBUG "i, j, k = sch.get_loops(\"C\")\nu = sch.add_unit_loop(k)\nsch.decompose_reduction(\"C\", j)\n");
  free(p);
  /* rfactor of the inner part of a split reduce loop. */
  p = check_case("reduce_max.tvs", "main",
                 DEBUG "i, k = sch.get_loops(\"B\")\nk0, k1 = sch.split(k, factors=[None, 8])\nsch.rfactor(k1, 0)\n");
  expect_contains(p, "B_rf = T.alloc_buffer((8, 8))");
  free(p);
  p = check_case("matmul.tvs", "main",
                 DEBUG "i, j, k = sch.get_loops(\"C\")\nk0, k1 = sch.split(k, factors=[4, 4])\n"
                 "rf = sch.rfactor(k0, factor_axis=1)\nsch.decompose_reduction(rf, sch.get_loops(rf)[3])\n");
  free(p);
  /* rfactor of a whole (unsplit) reduce loop, then the rf block moved. */
  p = check_case("reduce_max.tvs", "main", DEBUG "i, k = sch.get_loops(\"B\")\nrf = sch.rfactor(k, 0)\n");
  free(p);
}

static void test_getters(void) {
  char *p;
  p = check_case("three_stage.tvs", "main",
                 DEBUG "c = sch.get_block(\"C\")\nps = sch.get_producers(c)\ncs = sch.get_consumers(c)\n"
                 "root = sch.get_block(\"root\")\nkids = sch.get_child_blocks(root)\n"
                 "outs = sch.get_output_blocks(root)\ni, j = sch.get_loops(kids[0])\n"
                 "sch.compute_at(c, sch.get_loops(cs[0])[0])\nsch.parallel(sch.get_loops(outs[0])[0])\n"
                 "print(kids)\n");
  free(p);
}

int main(void) {
  test_loops();
  test_compute_location();
  test_reductions();
  test_getters();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
