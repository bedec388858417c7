/* test_sched_misc.c - merge, loop_partition, pad_einsum, decompose_padding
 * and fuse_reduction_epilogue against the interpreter and native code.
 *
 * Each case applies a script to a module of tests/lit/sched/Inputs, requires
 * the results of the unscheduled function, a replayable trace and a printed
 * module that parses back; then refusals through the C API. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/schedule.h"

#include "sched_harness.h"

static void test_merge(void) {
  char *p = check_case("misc_merge.tvs", "main",
                       "i = sch.get_loops(sch.get_block(\"C\"))[0]\n"
                       "j = sch.get_loops(sch.get_block(\"D\"))[0]\nsch.merge(i, j)\n");
  expect_contains(p, "for i_0_m in range(4):");
  free(p);
  p = check_case("misc_merge.tvs", "main",
                 "i = sch.get_loops(sch.get_block(\"C\"))[1]\n"
                 "j = sch.get_loops(sch.get_block(\"D\"))[1]\nm = sch.merge(i, j)\n"
                 "sch.split(m, factors=[2, 2])\n");
  expect_contains(p, "for i_0_m, j_0_m_0, j_0_m_1 in T.grid(4, 2, 2):");
  free(p);
  /* Sibling loops under a common loop: the common ancestor is that loop's body. */
  p = check_case("misc_merge_seq.tvs", "main",
                 "d = sch.get_loops(sch.get_block(\"D\"))[1]\n"
                 "b = sch.get_loops(sch.get_block(\"B\"))[1]\nsch.merge(d, b)\n");
  expect_contains(p, "for i, j_m in T.grid(8, 8):");
  free(p);
}

static void test_loop_partition(void) {
  char *p = check_case("misc_ewise3.tvs", "main",
                       "i, j, k = sch.get_loops(sch.get_block(\"B\"))\n"
                       "sch.loop_partition(i, factors=[2, 1, 6])\n"
                       "i, j, k = sch.get_loops(sch.get_block(\"B_i0\"))\n"
                       "sch.loop_partition(j, factors=[3, None])\n");
  expect_contains(p, "for i3 in range(9, 16):");
  expect_contains(p, "T.writes(B[i0, 3:8, 0:4])"); /* the piece's opaque block: what its body writes */
  free(p);
  /* The loops returned can be scheduled further. */
  p = check_case("misc_ewise3.tvs", "main",
                 "i, j, k = sch.get_loops(sch.get_block(\"B\"))\n"
                 "a, b = sch.loop_partition(k, factors=[None, 1])\nsch.vectorize(a)\n");
  expect_contains(p, "for k0 in T.vectorized(3):");
  free(p);
  /* An opaque block around the block: both renamed per partition. */
  p = check_case("misc_opaque.tvs", "main",
                 "i, j = sch.get_loops(sch.get_block(\"opaque\"))\n"
                 "sch.loop_partition(i, factors=[None, 2])\n");
  expect_contains(p, "with T.block(\"opaque_i1\"):");
  expect_contains(p, "T.writes(B[6:8, 0:4])");
  free(p);
}

static void test_pad_einsum(void) {
  char *p = check_case("misc_matmul_odd.tvs", "main", "sch.pad_einsum(\"C\", [4, 4, 4])\n");
  expect_contains(p, "B_pad[v0, v1] = T.if_then_else(v0 < 7 and v1 < 10, B[v0, v1], T.float32(0.0))");
  free(p);
  /* Padded then tiled: the padded extents divide by the tile. */
  p = check_case("misc_matmul_odd.tvs", "main",
                 "b = sch.get_block(\"C\")\nsch.pad_einsum(b, [1, 4, 1])\ni, j, k = sch.get_loops(b)\n"
                 "sch.split(j, factors=[None, 4])\n");
  expect_contains(p, "for i0, i1_0, i1_1, i2 in T.grid(6, 3, 4, 7):");
  CHECK(p && !strstr(p, "A_pad"));
  free(p);
}

static void test_decompose_padding(void) {
  char *p = check_case("misc_pad1d.tvs", "main",
                       "b = sch.get_block(\"block\")\nsch.decompose_padding(b, sch.get_loops(b)[0])\n");
  expect_contains(p, "y[vi + 6] = x[vi]");
  free(p);
  p = check_case("misc_pool.tvs", "main",
                 "pad = sch.get_block(\"pad_temp\")\nsch.decompose_padding(pad, sch.get_loops(pad)[0])\n");
  expect_contains(p, "for i0, i1, i2, i3 in T.grid(1, 2, 10, 10):");
  free(p);
  /* Tiled and computed at a tile first: the in-bound block keeps a predicate. */
  const char *tile = "block = sch.get_block(\"tensor\")\npad = sch.get_block(\"pad_temp\")\n"
                     "n, c, h, w, kh, kw = sch.get_loops(block)\nho, hi = sch.split(h, [2, 5])\n"
                     "wo, wi = sch.split(w, [2, 5])\nsch.reorder(n, ho, wo, c, hi, wi, kh, kw)\n"
                     "sch.compute_at(pad, wo)\n";
  char *sc = xasprintf("%ssch.decompose_padding(pad, sch.get_loops(pad)[3])\n", tile);
  p = check_case("misc_pool.tvs", "main", sc);
  expect_contains(p, "T.where(1 <= i2_0 * 5 + ax1");
  free(p);
  free(sc);
  /* The fill lifted to the outermost loop; the handle returned is the fill block. */
  sc = xasprintf("%sc = sch.decompose_padding(pad, sch.get_loops(pad)[0])\nsch.parallel(sch.get_loops(c)[0])\n", tile);
  p = check_case("misc_pool.tvs", "main", sc);
  expect_contains(p, "for i0 in T.parallel(1):");
  free(p);
  free(sc);
}

static void test_fuse_reduction_epilogue(void) {
  char *p = check_case("misc_matmul_bias.tvs", "main", "sch.fuse_reduction_epilogue(\"multiply\", \"add\")\n");
  expect_contains(p, "D[vi, vj] = C[vi, vj]");
  /* temp stays allocated (TVM keeps the scope's allocation) but unused */
  expect_contains(p, "temp = T.alloc_buffer((8, 8))");
  CHECK(p && !strstr(p, "temp["));
  free(p);
  /* Handles stay valid: the fused block can be scheduled further. */
  p = check_case("misc_matmul_bias.tvs", "main",
                 "b = sch.get_block(\"multiply\")\nsch.fuse_reduction_epilogue(b, \"add\")\n"
                 "i, j, k = sch.get_loops(b)\nsch.reorder(k, j)\n");
  expect_contains(p, "for i, k, j in T.grid(8, 8, 8):");
  free(p);
}

/* Refusals report one error and leave the version alone. */
static void test_refusals(void) {
  IrModule *m = load("misc_merge.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV *lc = NULL, *ld = NULL;
  CHECK_EQ_INT(sch_get_loops(s, sch_get_block(s, "C", NULL), &lc), 4);
  CHECK_EQ_INT(sch_get_loops(s, sch_get_block(s, "D", NULL), &ld), 4);
  int nv = sch_num_versions(s);
  SchRV two[2] = {lc[2], ld[2]};
  CHECK_EQ_INT(sch_merge(s, two, 2), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "merge: the extents of the loops to merge must be the same") != NULL);
  SchRV lvl[2] = {lc[0], ld[1]};
  CHECK_EQ_INT(sch_merge(s, lvl, 2), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "merge: the nesting depth of the loops to merge must be the same") != NULL);
  SchRV out[4];
  int64_t big[2] = {30, 2};
  CHECK_EQ_INT(sch_loop_partition(s, lc[0], big, 2, true, out), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "loop_partition: the factors add up to 32") != NULL);
  int64_t two_none[2] = {0, -1};
  CHECK_EQ_INT(sch_loop_partition(s, lc[0], two_none, 2, true, out), -1);
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  CHECK_EQ_INT(d.nerr, 4);
  free(lc);
  free(ld);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

/* Refusals of the padding and epilogue primitives: one error each, the
 * schedule unchanged. */
static void test_more_refusals(void) {
  IrModule *m = load("misc_matmul_bad.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  int nv = sch_num_versions(s);
  SchRV mx = sch_get_block(s, "rowmax", NULL), sh = sch_get_block(s, "shift", NULL);
  CHECK_EQ_INT(sch_fuse_reduction_epilogue(s, mx, sh), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "the init of reduction block 'rowmax' must store zero") != NULL);
  SchRV mul = sch_get_block(s, "multiply", NULL);
  int64_t pad[3] = {4, 4, 4};
  CHECK_EQ_INT(sch_pad_einsum(s, sh, pad, 3), -1);
  CHECK(strstr(d.items[d.len - 1].msg, "must be a list of 1 positive integers") != NULL);
  /* Any Einsum-shaped block pads (zeros, as TVM: a max reduction would need
   * another fill); undo restores the version. */
  CHECK_EQ_INT(sch_pad_einsum(s, mx, pad, 2), 0);
  CHECK_EQ_INT(sch_num_versions(s), nv + 1);
  CHECK(sch_undo(s));
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, mul, &loops), 3);
  CHECK(sch_decompose_padding(s, sh, loops[0]) < 0);
  CHECK(strstr(d.items[d.len - 1].msg, "loop 'i' is not an ancestor of block 'shift'") != NULL);
  free(loops);
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  CHECK_EQ_INT(d.nerr, 3);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
  /* A predicate mixing two iters is not an independent padding bound. */
  m = load("misc_pad_mixed.tvs");
  CHECK(m != NULL);
  if (!m) return;
  diag_init(&d, NULL);
  s = sch_new(m, &d);
  SchRV b = sch_get_block(s, "pad", NULL);
  CHECK_EQ_INT(sch_get_loops(s, b, &loops), 2);
  CHECK(sch_decompose_padding(s, b, loops[0]) < 0);
  CHECK(strstr(d.items[d.len - 1].msg, "not independently bounded") != NULL);
  free(loops);
  CHECK_EQ_INT(d.nerr, 1);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

int main(void) {
  test_merge();
  test_loop_partition();
  test_pad_einsum();
  test_decompose_padding();
  test_fuse_reduction_epilogue();
  test_refusals();
  test_more_refusals();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
