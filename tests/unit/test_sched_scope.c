/* test_sched_scope.c - get_output_blocks, set_scope, storage_align, rfactor.
 *
 * Script cases must keep the interpreter results of the unscheduled
 * function, replay their trace to an equal module and print IR that parses
 * back; then the C API: handles returned, refusals that leave the schedule
 * unchanged with one error naming the rule and the buffer. */
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

static const char *last_msg(const DiagCtx *d) { return d->len ? d->items[d->len - 1].msg : ""; }

static void test_cases(void) {
  char *p;
  p = check_case("three_stage.tvs", "main",
                 "r = sch.get_block(\"root\")\nd, = sch.get_output_blocks(r)\n"
                 "i, j = sch.get_loops(d)\nsch.set_scope(\"B\", 0, \"shared\")\n"
                 "sch.set_scope(\"C\", 0, \"local\")\nsch.set_scope(\"C\", 0, \"local\")\n");
  expect_contains(p, "B = T.alloc_buffer((16, 12), scope=\"shared\")");
  expect_contains(p, "C = T.alloc_buffer((16, 12), scope=\"local\")");
  free(p);
  p = check_case("three_stage.tvs", "main",
                 "sch.storage_align(\"B\", 0, 0, 16, 1)\nsch.storage_align(\"B\", 0, -1, 8, 3)\n"
                 "sch.storage_align(\"B\", 0, 1, 32, 0)\nc = sch.cache_read(\"C\", 0, \"shared\")\n"
                 "sch.storage_align(c, 0, 0, 32, 8)\n");
  expect_contains(p, "T.block_attr({\"buffer_dim_align\": [[0, 0, 16, 1], [0, 1, 32, 0]]})");
  expect_contains(p, "T.block_attr({\"buffer_dim_align\": [[0, 0, 32, 8]]})");
  free(p);
  /* Combined with other primitives: a reduction's intermediate in local
   * memory, aligned, then tiled and moved. */
  p = check_case("mm_relu.tvs", "mm_relu",
                 "b = sch.get_block(\"Y\", \"mm_relu\")\nsch.set_scope(b, 0, \"local\")\n"
                 "sch.storage_align(b, 0, 0, 16, 4)\ni, j, k = sch.get_loops(b)\n"
                 "sch.reverse_compute_at(\"C\", i)\nsch.decompose_reduction(b, j)\n");
  expect_contains(p, "Y = T.alloc_buffer((128, 128), scope=\"local\")");
  free(p);
  p = check_case("two_stage.tvs", "main",
                 "w = sch.cache_write(\"C\", 0, \"local\")\nsch.set_scope(\"C\", 0, \"global\")\n"
                 "sch.set_scope(\"C\", 0, \"shared.dyn\")\n"
                 "o = sch.get_output_blocks(sch.get_block(\"root\"))\n");
  expect_contains(p, "C_local = T.alloc_buffer((16, 12), scope=\"shared.dyn\")");
  free(p);
}

static void test_rfactor_cases(void) {
  char *p;
  p = check_case("reduce_max.tvs", "main",
                 "i, k = sch.get_loops(\"B\")\nk0, k1 = sch.split(k, factors=[4, None])\n"
                 "rf = sch.rfactor(k0, factor_axis=-1)\n");
  expect_contains(p, "B_rf = T.alloc_buffer((8, 4))");
  expect_contains(p, "with T.block(\"B_rf\"):");
  free(p);
  p = check_case("reduce_max.tvs", "main", "i, k = sch.get_loops(\"B\")\nsch.rfactor(k, 1)\n");
  expect_contains(p, "B_rf = T.alloc_buffer((8, 32))");
  free(p);
  /* Sum: split, rfactor the inner part, then schedule both blocks further. */
  p = check_case("matmul.tvs", "main",
                 "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n"
                 "k0, k1 = sch.split(k, [None, 4])\nrf = sch.rfactor(k1, 0)\n"
                 "sch.decompose_reduction(b, j)\nsch.set_scope(rf, 0, \"local\")\n"
                 "sch.storage_align(rf, 0, 1, 16, 1)\n");
  expect_contains(p, "C_rf = T.alloc_buffer((4, 16, 16), scope=\"local\")");
  free(p);
  p = check_case("mm_relu.tvs", "mm_relu",
                 "b = sch.get_block(\"Y\", \"mm_relu\")\ni, j, k = sch.get_loops(b)\n"
                 "sch.rfactor(k, 2)\n");
  expect_contains(p, "Y_rf = T.alloc_buffer((128, 128, 128))");
  free(p);
}

static void test_rfactor_refusals(void) {
  IrModule *m = load("mm_relu.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  CHECK_EQ_INT(sch_work_on(s, "mm_relu"), 0);
  SchRV y = sch_get_block(s, "Y", NULL);
  SchRV *l = NULL;
  CHECK_EQ_INT(sch_get_loops(s, y, &l), 3);
  if (!l) return;
  SchRV i = l[0], j = l[1], k = l[2];
  free(l);
  int nv = sch_num_versions(s), nt = sch_trace_len(s);
  CHECK_EQ_INT(sch_rfactor(s, j, 0), -1);
  CHECK(strstr(last_msg(&d), "rfactor: loop 'j' is bound into a data-parallel iter of block 'Y'") != NULL);
  CHECK_EQ_INT(sch_rfactor(s, k, 3), -1);
  CHECK(strstr(last_msg(&d), "rfactor: factor_axis 3 is out of range [-3, 2] for buffer 'Y'") != NULL);
  CHECK_EQ_INT(sch_rfactor(s, k, -4), -1);
  CHECK_EQ_INT(d.nerr, 3);
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK_EQ_INT(sch_trace_len(s), nt);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  /* Not serial. */
  CHECK_EQ_INT(sch_unroll(s, k), 0);
  CHECK_EQ_INT(sch_rfactor(s, k, 0), -1);
  CHECK(strstr(last_msg(&d), "rfactor: loop 'k' must be serial") != NULL);
  CHECK(sch_undo(s));
  /* Two blocks under the loop. */
  SchRV c = sch_get_block(s, "C", NULL);
  CHECK_EQ_INT(sch_reverse_compute_at(s, c, i, false, -1), 0);
  CHECK_EQ_INT(sch_rfactor(s, i, 0), -1);
  CHECK(strstr(last_msg(&d), "rfactor: loop 'i' must have exactly one block in its subtree (it has 2)") != NULL);
  /* A decomposed reduction is no longer a reduction block. */
  CHECK(sch_decompose_reduction(s, y, k) >= 0);
  CHECK_EQ_INT(sch_rfactor(s, k, 0), -1);
  CHECK(strstr(last_msg(&d), "rfactor: block 'Y_update' under loop 'k' is not a reduction block") != NULL);
  CHECK_EQ_INT(d.nerr, 6);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);

  /* Subtraction is not a commutative reducer. */
  m = load("reduce_sub.tvs");
  CHECK(m != NULL);
  if (!m) return;
  diag_init(&d, NULL);
  s = sch_new(m, &d);
  SchRV b = sch_get_block(s, "B", NULL);
  CHECK_EQ_INT(sch_get_loops(s, b, &l), 2);
  if (l) {
    CHECK_EQ_INT(sch_rfactor(s, l[1], 0), -1);
    CHECK(strstr(last_msg(&d), "rfactor: no matched reducer for the init and the update of block 'B'") != NULL);
  }
  free(l);
  CHECK_EQ_INT(sch_num_versions(s), 1);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

static void test_output_blocks(void) {
  IrModule *m = load("three_stage.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV root = sch_get_block(s, "root", NULL);
  SchRV *outs = NULL;
  CHECK_EQ_INT(sch_get_output_blocks(s, root, &outs), 1);
  SchRV *loops = NULL;
  if (outs) CHECK_EQ_INT(sch_get_loops(s, outs[0], &loops), 2);
  free(loops);
  free(outs);
  /* A leaf block has no blocks under it. */
  SchRV b = sch_get_block(s, "B", NULL);
  CHECK_EQ_INT(sch_get_output_blocks(s, b, &outs), 0);
  free(outs);
  CHECK_EQ_INT(d.nerr, 0);
  CHECK_EQ_INT(sch_num_versions(s), 1);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);

  /* After cache_write only the write-back block writes the output C. */
  m = load("two_stage.tvs");
  CHECK(m != NULL);
  if (!m) return;
  diag_init(&d, NULL);
  s = sch_new(m, &d);
  SchRV c = sch_get_block(s, "C", NULL);
  SchRV w = sch_cache_write(s, c, 0, "local");
  CHECK(w >= 0);
  root = sch_get_block(s, "root", NULL);
  CHECK_EQ_INT(sch_get_output_blocks(s, root, &outs), 1);
  free(outs);
  CHECK_EQ_INT(d.nerr, 0);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

static void test_refusals(void) {
  IrModule *m = load("three_stage.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV b = sch_get_block(s, "B", NULL);
  SchRV dd = sch_get_block(s, "D", NULL);
  int nv = sch_num_versions(s);
  int nt = sch_trace_len(s);
  CHECK_EQ_INT(sch_set_scope(s, dd, 0, "shared"), -1);
  CHECK(strstr(last_msg(&d), "set_scope: buffer 'D' is a function parameter") != NULL);
  CHECK_EQ_INT(sch_set_scope(s, b, 0, "bogus"), -1);
  CHECK(strstr(last_msg(&d), "set_scope: the storage scope \"bogus\" is invalid") != NULL);
  CHECK_EQ_INT(sch_set_scope(s, b, 1, "shared"), -1);
  CHECK(strstr(last_msg(&d), "set_scope: buffer index 1 is out of range [0, 1) of the writes of block 'B'") != NULL);
  CHECK_EQ_INT(sch_storage_align(s, dd, 0, 0, 16, 1), -1);
  CHECK(strstr(last_msg(&d), "storage_align: buffer 'D' is a function parameter") != NULL);
  CHECK_EQ_INT(sch_storage_align(s, b, 0, 2, 16, 1), -1);
  CHECK(strstr(last_msg(&d), "storage_align: axis 2 is out of range [-2, 2) of buffer 'B'") != NULL);
  CHECK_EQ_INT(sch_storage_align(s, b, 0, -3, 16, 1), -1);
  CHECK_EQ_INT(sch_storage_align(s, b, 0, 0, 0, 1), -1);
  CHECK(strstr(last_msg(&d), "storage_align: factor 0 of buffer 'B' must be positive") != NULL);
  CHECK_EQ_INT(sch_storage_align(s, b, 2, 0, 16, 1), -1);
  CHECK(strstr(last_msg(&d), "storage_align: buffer index 2 is out of range [0, 1) of the writes of block 'B'") != NULL);
  CHECK_EQ_INT(d.nerr, 8);
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK_EQ_INT(sch_trace_len(s), nt);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));

  /* A malformed existing annotation is refused too. */
  IrHeap *h = ir_heap_new();
  IrValue *bad = irv_str(h, "oops");
  CHECK_EQ_INT(sch_annotate(s, b, "buffer_dim_align", bad), 0);
  ir_heap_release(h);
  nv = sch_num_versions(s);
  CHECK_EQ_INT(sch_storage_align(s, b, 0, 0, 16, 1), -1);
  CHECK(strstr(last_msg(&d), "storage_align: the \"buffer_dim_align\" annotation of block 'B' is malformed") != NULL);
  CHECK_EQ_INT(sch_num_versions(s), nv);

  /* Handles stay valid across set_scope; the no-op still makes a version
   * that undo removes with its trace entry. */
  CHECK_EQ_INT(sch_set_scope(s, b, 0, "shared"), 0);
  CHECK_EQ_INT(sch_set_scope(s, b, 0, "shared"), 0);
  nv = sch_num_versions(s);
  nt = sch_trace_len(s);
  CHECK(sch_undo(s));
  CHECK_EQ_INT(sch_num_versions(s), nv - 1);
  CHECK_EQ_INT(sch_trace_len(s), nt - 1);
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, b, &loops), 2);
  free(loops);
  CHECK_EQ_INT(d.nerr, 9);
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

int main(void) {
  test_cases();
  test_output_blocks();
  test_refusals();
  test_rfactor_cases();
  test_rfactor_refusals();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
