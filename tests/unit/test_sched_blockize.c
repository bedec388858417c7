/* test_sched_blockize.c - blockize, tensorize and the tensor-intrinsic registry.
 *
 * Script cases keep the unscheduled results on the interpreter and natively,
 * replay their trace to an equal module and print IR that parses back; then
 * the C API: handles after blockize, refusals that leave the schedule
 * unchanged with one error naming the rule, and registry behaviour. */
#include <stdlib.h>
#include <string.h>

#include "sched/tensor_intrin.h"

#include "sched_harness.h"

static const char *last_msg(const DiagCtx *d) { return d->len ? d->items[d->len - 1].msg : ""; }

static void test_blockize_cases(void) {
  char *p;
  /* An inner blockize over a split nest: outer iters from i0, j0. */
  p = check_case("blockize_elem.tvs", "main",
                 "_, _, i1, _ = sch.get_loops(sch.get_block(\"B\"))\no = sch.blockize(i1)\n");
  expect_contains(p, "with T.block(\"B_o\"):");
  expect_contains(p, "vi_o, vj_o = T.axis.remap(\"SS\", [i0, j0])");
  expect_contains(p, "T.writes(B[0:16, vj_o * 16:vj_o * 16 + 16])");
  expect_contains(p, "vi_i, vj_i = T.axis.remap(\"SS\", [i1, j1])");
  expect_contains(p, "B[vi_i, vj_o * 16 + vj_i] = A[vi_i, vj_o * 16 + vj_i] + T.float32(1.0)");
  free(p);
  /* Unit outer iters bound to 0 without preserve_unit_iters. */
  p = check_case("blockize_elem.tvs", "main",
                 "_, _, i1, _ = sch.get_loops(sch.get_block(\"B\"))\n"
                 "sch.blockize(i1, preserve_unit_iters=False)\n");
  expect_contains(p, "vi_o = T.axis.spatial(1, 0)");
  expect_contains(p, "vj_o = T.axis.spatial(8, j0)");
  free(p);
  /* The block handle keeps denoting the inner block; blockize again above. */
  p = check_case("blockize_elem.tvs", "main",
                 "b = sch.get_block(\"B\")\n_, j0, i1, _ = sch.get_loops(b)\nsch.blockize(i1)\n"
                 "sch.blockize(j0)\nl = sch.get_loops(b)\n");
  expect_contains(p, "with T.block(\"B_o_o\"):");
  free(p);
  /* A reduction whose reduce loop goes into the outer block: B_init. */
  p = check_case("blockize_rowsum.tvs", "main", "k, _ = sch.get_loops(\"B\")\nsch.blockize(k)\n");
  expect_contains(p, "vk_o = T.axis.reduce(1, 0)");
  expect_contains(p, "with T.block(\"B_init\"):");
  expect_contains(p, "vi_i_init = T.axis.spatial(32, i)");
  expect_contains(p, "T.reads(B[vi_i], A[vi_i, vk_i])");
  free(p);
  /* A reduction whose reduce loop stays inner keeps its init inside. */
  p = check_case("blockize_rowsum.tvs", "main",
                 "k, i = sch.get_loops(\"B\")\nsch.reorder(i, k)\nsch.blockize(k)\n");
  expect_contains(p, "vk_o = T.axis.reduce(1, 0)");
  free(p);
  /* Two sibling blocks wrapped together. */
  p = check_case("blockize_two.tvs", "main",
                 "sch.blockize([sch.get_block(\"B\"), sch.get_block(\"C\")], preserve_unit_iters=False)\n");
  expect_contains(p, "with T.block(\"outer_B_C_\"):");
  expect_contains(p, "vi_i = T.axis.spatial(3, i)");
  expect_contains(p, "B[vi_i, vj_i + 64] = A[vi_i, vj_i + 64] * T.float32(3.0)");
  free(p);
}

static void test_tensorize_cases(void) {
  char *p;
  /* The built-in vectorized axpy on a matmul row. */
  p = check_case("tensorize_mm.tvs", "main",
                 "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n"
                 "j0, j1 = sch.split(j, factors=[None, 16])\nsch.reorder(i, j0, k, j1)\n"
                 "sch.tensorize(j1, \"axpy_16_f32\")\n");
  expect_contains(p, "B_1 = T.match_buffer(B[vk_o, vj_o * 16:vj_o * 16 + 16], (16,))");
  expect_contains(p, "for j in T.vectorized(16):");
  expect_contains(p, "C_1[j] = C_1[j] + A_1[0] * B_1[j]");
  free(p);
  /* A blockized block whose init was decomposed first: the update block
   * (no init) is tensorized through its block handle. */
  p = check_case("tensorize_mm.tvs", "main",
                 "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n"
                 "j0, j1 = sch.split(j, factors=[None, 16])\nsch.reorder(i, j0, k, j1)\n"
                 "o = sch.blockize(j1)\nsch.decompose_reduction(o, k)\n"
                 "sch.tensorize(o, \"axpy_16_f32\")\n");
  expect_contains(p, "with T.block(\"C_o_update\"):");
  free(p);
  /* Two sites in one function: each gets its own implementation buffers
   * and loop vars (the lowering and the native comparison rely on it). */
  p = check_case("tensorize_mm2.tvs", "main",
                 "i, j, k = sch.get_loops(\"C\")\nsch.reorder(i, k, j)\nsch.tensorize(j, \"axpy_16_f32\")\n"
                 "i, j, k = sch.get_loops(\"D\")\nsch.reorder(i, k, j)\nsch.tensorize(j, \"axpy_16_f32\")\n");
  expect_contains(p, "C_1 = T.match_buffer(C[vi_o, 0:16], (16,))");
  expect_contains(p, "C_1 = T.match_buffer(D[vi_o, 0:16], (16,))");
  free(p);
  /* A user intrinsic registered by the script, with a reduce iter. */
  p = check_case("tensorize_custom.tvs", "main",
                 "T.TensorIntrin.register(\"dot_4_f32\", dot4_desc, dot4_impl)\n"
                 "i, k = sch.get_loops(\"C\")\nk0, k1 = sch.split(k, factors=[None, 4])\n"
                 "o = sch.blockize(k1)\nsch.tensorize(o, \"dot_4_f32\")\n");
  expect_contains(p, "A_1 = T.match_buffer(A[vi_o, vk_o * 4:vk_o * 4 + 4], (4,))");
  expect_contains(p, "C_1[0] = C_1[0] + A_1[0] * B_1[0] + A_1[1] * B_1[1]");
  free(p);
}

static void test_refusals(void) {
  IrModule *m = load("blockize_two.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV b = sch_get_block(s, "B", NULL), c = sch_get_block(s, "C", NULL);
  SchRV *l = NULL;
  CHECK_EQ_INT(sch_get_loops(s, b, &l), 3);
  int nv = sch_num_versions(s), nt = sch_trace_len(s);
  CHECK_EQ_INT(sch_blockize(s, l[0], true), -1);
  CHECK(strstr(last_msg(&d), "blockize: loop 'm' must have exactly one block in its subtree (it has 2)") != NULL);
  SchRV rev[2] = {c, b};
  CHECK_EQ_INT(sch_blockize_blocks(s, rev, 2, true), -1);
  CHECK(strstr(last_msg(&d), "blockize: the blocks must be consecutive siblings, in program order") != NULL);
  CHECK_EQ_INT(sch_tensorize(s, l[1], "no_such_intrin", true), -1);
  CHECK(strstr(last_msg(&d), "tensorize: no tensor intrinsic named 'no_such_intrin' is registered") != NULL);
  CHECK(strstr(last_msg(&d), "'axpy_16_f32'") != NULL);
  CHECK_EQ_INT(sch_tensorize(s, l[1], "axpy_16_f32", true), -1);
  CHECK(strstr(last_msg(&d), "tensorize: the stmt doesn't match the tensor intrin 'axpy_16_f32': ") != NULL);
  CHECK_EQ_INT(d.nerr, 4);
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK_EQ_INT(sch_trace_len(s), nt);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  /* Blockize of one block wraps just it; its handle stays valid. */
  SchRV o = sch_blockize_blocks(s, &c, 1, true);
  CHECK(o >= 0);
  SchRV *inner = NULL;
  CHECK_EQ_INT(sch_get_loops(s, c, &inner), 0);
  free(inner);
  CHECK_EQ_INT(sch_get_loops(s, o, &inner), 3);
  free(inner);
  free(l);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

static void test_registry(void) {
  CHECK(tensor_intrin_get("axpy_16_f32") != NULL);
  CHECK(tvs_builtin_intrin_count >= 1);
  IrModule *m = load("tensorize_custom.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  CHECK_EQ_INT(tensor_intrin_register("t_dot", m, "dot4_desc", "dot4_impl", false, &d, span_none), 0);
  /* The same functions again: a no-op; different ones need override. */
  CHECK_EQ_INT(tensor_intrin_register("t_dot", m, "dot4_desc", "dot4_impl", false, &d, span_none), 0);
  CHECK_EQ_INT(tensor_intrin_register("t_dot", m, "dot4_desc", "dot4_desc", false, &d, span_none), -1);
  CHECK(strstr(last_msg(&d), "a different tensor intrinsic named 't_dot' is already registered") != NULL);
  CHECK_EQ_INT(tensor_intrin_register("t_dot", m, "dot4_desc", "dot4_desc", true, &d, span_none), 0);
  CHECK_EQ_INT(tensor_intrin_register("t_bad", m, "dot4_desc", "nope", false, &d, span_none), -1);
  CHECK(strstr(last_msg(&d), "the module has no prim_func named 'nope'") != NULL);
  CHECK_EQ_INT(tensor_intrin_register("t_bad", m, "main", "dot4_impl", false, &d, span_none), -1);
  CHECK(strstr(last_msg(&d), "differ in dtype or rank") != NULL);
  CHECK(tensor_intrin_get("t_bad") == NULL);
  CHECK_EQ_INT(d.nerr, 3);
  diag_free(&d);
  ir_module_free(m);
  tensor_intrin_clear();
  CHECK(tensor_intrin_get("t_dot") == NULL);
  CHECK(tensor_intrin_get("axpy_16_f32") != NULL); /* built-ins come back */
}

int main(void) {
  test_blockize_cases();
  test_tensorize_cases();
  test_refusals();
  test_registry();
  tensor_intrin_clear();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
