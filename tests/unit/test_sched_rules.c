/* test_sched_rules.c - legality rules of the schedule primitives that only
 * the C API reaches, and the exact text of refusals made through it.
 *
 * The schedule script always hands the primitives valid handles and lists;
 * a C caller can pass anything.  Each refusal must report exactly one error
 * with the rule's message, and leave the schedule unchanged (same version
 * count, same module). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/schedule.h"

#include "sched_harness.h"

/* The message of the last diagnostic, or "" when there is none. */
static const char *last_msg(const DiagCtx *d) { return d->len ? d->items[d->len - 1].msg : ""; }

/* One refusal: rc is the primitive's result (negative on refusal), msg the
 * exact message expected; the error count grows by one. */
static void expect_refusal(const DiagCtx *d, int *nerr, long long rc, const char *msg) {
  CHECK(rc < 0);
  CHECK_EQ_INT(d->nerr, *nerr + 1);
  CHECK_EQ_STR(last_msg(d), msg);
  *nerr = d->nerr;
}

/* Handles that no script can produce. */
static void test_invalid_handles(void) {
  IrModule *m = load("tensorize_mm.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  int nv = sch_num_versions(s), nerr = d.nerr;
  /* tensorize looks the intrinsic up first, then the handle (a block or a loop). */
  expect_refusal(&d, &nerr, sch_tensorize(s, -1, "axpy_16_f32", true), "tensorize: invalid handle");
  expect_refusal(&d, &nerr, sch_tensorize(s, 1 << 20, "axpy_16_f32", false), "tensorize: invalid handle");
  expect_refusal(&d, &nerr, sch_tensorize(s, -1, "no_such_intrin", true),
                 "tensorize: no tensor intrinsic named 'no_such_intrin' is registered (registered: "
                 "'axpy_16_f32', 'npu_gemm_1x16x16_nn', 'npu_gemm_1x16x16_nt')");
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

/* Empty and degenerate arguments, through the C API. */
static void test_degenerate_arguments(void) {
  IrModule *m = load("matmul.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  int nv = sch_num_versions(s), nerr = d.nerr;
  expect_refusal(&d, &nerr, sch_blockize_blocks(s, NULL, 0, true),
                 "blockize: expects a loop or a non-empty list of blocks");
  SchRV c = sch_get_block(s, "C", NULL);
  SchRV twice[2] = {c, c};
  expect_refusal(&d, &nerr, sch_blockize_blocks(s, twice, 2, true), "blockize: block 'C' is listed twice");
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, c, &loops), 3);
  SchRV out[4];
  expect_refusal(&d, &nerr, sch_sample_perfect_tile(s, loops[0], 0, 16, NULL, out),
                 "sample_perfect_tile: cannot tile loop 'i' into 0 pieces (n must be at least 1)");
  int64_t bad[2] = {4, -2};
  expect_refusal(&d, &nerr, sch_sample_perfect_tile(s, loops[0], 2, 16, bad, out),
                 "sample_perfect_tile: the decision's factors must be positive, got -2");
  expect_refusal(&d, &nerr, sch_loop_partition(s, loops[0], NULL, 0, true, out),
                 "loop_partition: factors must not be empty");
  free(loops);
  int64_t cand[2] = {1, 2};
  double neg[2] = {0.5, -1.0}, zero[2] = {0, 0};
  expect_refusal(&d, &nerr, sch_sample_categorical(s, cand, zero, 0, NULL),
                 "sample_categorical: there must be at least one candidate");
  expect_refusal(&d, &nerr, sch_sample_categorical(s, cand, neg, 2, NULL),
                 "sample_categorical: probabilities must be non-negative, got -1");
  expect_refusal(&d, &nerr, sch_sample_categorical(s, cand, zero, 2, NULL),
                 "sample_categorical: the probabilities sum to 0");
  /* With a decision, zero probabilities are no obstacle (the decision is replayed). */
  int64_t dec = 1;
  CHECK(sch_sample_categorical(s, cand, zero, 2, &dec) >= 0);
  CHECK_EQ_INT(d.nerr, nerr);
  expect_refusal(&d, &nerr, sch_work_on(s, "mian"), "work_on: the module has no prim_func named 'mian'");
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

/* The root block, written out with reads and writes, is refused by the
 * primitives that need a block scope above the block. */
static void test_root_block(void) {
  IrModule *m = load("cache_root.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  int nv = sch_num_versions(s), nerr = d.nerr;
  SchRV root = sch_get_block(s, "root", NULL);
  CHECK(root >= 0);
  SchRV two[2];
  expect_refusal(&d, &nerr, sch_cache_read(s, root, 0, "shared"), "cache_read: block 'root' is the root block");
  expect_refusal(&d, &nerr, sch_cache_write(s, root, 0, "shared"), "cache_write: block 'root' is the root block");
  expect_refusal(&d, &nerr, sch_cache_inplace(s, root, 0, "shared", two),
                 "cache_inplace: block 'root' is the root block");
  expect_refusal(&d, &nerr, sch_rolling_buffer(s, root, 0), "rolling_buffer: block 'root' is the root block");
  expect_refusal(&d, &nerr, sch_compute_inline(s, root), "compute_inline: block 'root' is the root block");
  expect_refusal(&d, &nerr, sch_reverse_compute_inline(s, root),
                 "reverse_compute_inline: block 'root' is the root block");
  expect_refusal(&d, &nerr, sch_reindex(s, root, false, 0), "reindex: block 'root' is the root block");
  expect_refusal(&d, &nerr, sch_pad_einsum(s, root, NULL, 0), "pad_einsum: block 'root' is the root block");
  expect_refusal(&d, &nerr, sch_blockize_blocks(s, &root, 1, true), "blockize: block 'root' is the root block");
  CHECK_EQ_INT(sch_num_versions(s), nv);
  CHECK(seq_module(sch_mod(s), m, NULL, NULL));
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

/* One refusal of the given kind (TVM's typed schedule errors): the error
 * count grows by one, the schedule and the diagnostic report the kind, and
 * a primitive that succeeds next (get_block of reset_block) clears it. */
static void expect_kind(Schedule *s, const DiagCtx *d, int *nerr, long long rc, SchErrorKind kind,
                        const char *reset_block) {
  CHECK(rc < 0);
  CHECK_EQ_INT(d->nerr, *nerr + 1);
  *nerr = d->nerr;
  CHECK_EQ_STR(sch_error_kind_name(sch_last_error_kind(s)), sch_error_kind_name(kind));
  CHECK(d->len > 0 && d->items[d->len - 1].code != NULL);
  if (d->len > 0 && d->items[d->len - 1].code)
    CHECK_EQ_STR(d->items[d->len - 1].code, sch_error_kind_name(kind));
  CHECK(sch_get_block(s, reset_block, NULL) >= 0);
  CHECK_EQ_INT(sch_last_error_kind(s), SCH_ERR_NONE);
  CHECK_EQ_INT(d->nerr, *nerr);
}

/* A representative refusal of each kind the loop, layout, getter and
 * state code report. */
static void test_error_kinds(void) {
  IrModule *m = load("matmul.tvs");
  CHECK(m != NULL);
  if (!m) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  int nerr = d.nerr;
  CHECK_EQ_INT(sch_last_error_kind(s), SCH_ERR_NONE);
  SchRV c = sch_get_block(s, "C", NULL);
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, c, &loops), 3);
  if (!loops) return;
  SchRV i = loops[0], j = loops[1], k = loops[2], out[4];
  free(loops);
  int64_t f4[2] = {0, 4}, one[1] = {4};
  expect_kind(s, &d, &nerr, sch_get_block(s, "nope", NULL), SCH_ERR_NOT_FOUND, "C");
  expect_kind(s, &d, &nerr, sch_work_on(s, "mian"), SCH_ERR_NOT_FOUND, "C");
  expect_kind(s, &d, &nerr, sch_split(s, -1, f4, 2, true, false, out), SCH_ERR_INVALID_HANDLE, "C");
  expect_kind(s, &d, &nerr, sch_split(s, c, f4, 2, true, false, out), SCH_ERR_INVALID_HANDLE, "C");
  expect_kind(s, &d, &nerr, sch_split(s, i, NULL, 0, true, false, out), SCH_ERR_INVALID_ARGUMENT, "C");
  SchRV ii[2] = {i, i}, ik[2] = {i, k};
  expect_kind(s, &d, &nerr, sch_reorder(s, ii, 2), SCH_ERR_LOOP_STRUCTURE, "C");
  expect_kind(s, &d, &nerr, sch_fuse(s, ik, 2, true), SCH_ERR_LOOP_STRUCTURE, "C");
  expect_kind(s, &d, &nerr, sch_merge(s, ii, 2), SCH_ERR_LOOP_STRUCTURE, "C");
  expect_kind(s, &d, &nerr, sch_loop_partition(s, k, one, 1, true, out), SCH_ERR_REDUCTION, "C");
  /* A primitive that changes the module also clears the kind. */
  expect_kind(s, &d, &nerr, sch_split(s, i, NULL, 0, true, false, out), SCH_ERR_INVALID_ARGUMENT, "C");
  CHECK_EQ_INT(sch_bind(s, j, "threadIdx.x"), 0);
  CHECK_EQ_INT(sch_last_error_kind(s), SCH_ERR_NONE);
  expect_kind(s, &d, &nerr, sch_split(s, j, f4, 2, true, false, out), SCH_ERR_LOOP_KIND, "C");
  CHECK_EQ_INT(sch_split(s, i, f4, 2, true, false, out), 0);
  CHECK_EQ_INT(sch_last_error_kind(s), SCH_ERR_NONE);
  /* i is gone (split), and C's first iter is now bound to i_0 * 4 + i_1. */
  expect_kind(s, &d, &nerr, sch_split(s, i, f4, 2, true, false, out), SCH_ERR_INVALID_HANDLE, "C");
  expect_kind(s, &d, &nerr, sch_transform_block_layout(s, c, "lambda a, b, r: (a, b, r)"), SCH_ERR_NOT_AFFINE,
              "C");
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);

  /* A buffer viewed by a match_buffer keeps its layout. */
  m = load("layout_match.tvs");
  CHECK(m != NULL);
  if (!m) return;
  diag_init(&d, NULL);
  s = sch_new(m, &d);
  nerr = d.nerr;
  c = sch_get_block(s, "C", NULL);
  expect_kind(s, &d, &nerr, sch_transform_layout(s, c, false, 0, "lambda a, b: (b, a)", NULL, false),
              SCH_ERR_BUFFER_ACCESS, "copy");
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
}

int main(void) {
  test_invalid_handles();
  test_degenerate_arguments();
  test_root_block();
  test_error_kinds();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
