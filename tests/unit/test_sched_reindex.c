/* test_sched_reindex.c - reindex, reindex_cache_read/write,
 * reorder_block_iter_var, unsafe_set_dtype and annotate_buffer_access
 * against the interpreter and the native build (sched_harness.h), with
 * trace replay and printed round trips; then refusals through the C API,
 * which must leave the schedule unchanged. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched_harness.h"

static void test_reindex(void) {
  char *p;
  /* A transposed read, and a write, each through a buffer in iter order. */
  p = check_case("reindex_transpose.tvs", "main",
                 "sch.reindex(\"B\", (\"read\", 0))\nsch.reindex(\"C\", \"C\")\n");
  expect_contains(p, "A_reindex = T.alloc_buffer((16, 12))");
  expect_contains(p, "with T.block(\"A_reindex_reindex\"):");
  expect_contains(p, "A_reindex[v0, v1] = A[v1, v0]");
  expect_contains(p, "B[vi, vj] = A_reindex[vi, vj] * T.float32(2.0)");
  expect_contains(p, "C[v0, v1] = C_reindex[v0, v1]");
  free(p);
  /* A reduction: the write copy follows the whole nest, the init too is redirected. */
  p = check_case("matmul.tvs", "main",
                 "b = sch.get_block(\"C\")\nsch.reindex(b, (\"write\", 0))\nsch.reindex(b, \"B\")\n");
  expect_contains(p, "C_reindex[vi, vj] = T.float32(0.0)");
  expect_contains(p, "C_reindex[vi, vj] = C_reindex[vi, vj] + A[vi, vk] * B_reindex[vj, vk]");
  expect_contains(p, "with T.block(\"C_reindex\"):");
  free(p);
  /* conv: the padded input gets one dim per iter it uses (not vf). */
  p = check_case("conv_small.tvs", "main", "sch.reindex(\"conv\", \"pad\")\nsch.reindex(\"conv\", (\"read\", 1))\n");
  expect_contains(p, "pad_reindex = T.alloc_buffer((1, 8, 8, 2, 3, 3))");
  expect_contains(p, "pad_reindex[v0, v1, v2, v3, v4, v5] = pad[v0, v3, v1 + v4, v2 + v5]");
  free(p);
  /* After tiling: the copy keeps the block iters' domains. */
  p = check_case("matmul.tvs", "main",
                 "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.split(i, [4, None])\n"
                 "w = sch.reindex(b, (\"write\", 0))\nsch.reorder_block_iter_var(w, [1, 0])\n");
  expect_contains(p, "v1, v0 = T.axis.remap(\"SS\", [ax1, ax0])");
  free(p);
}

static void test_reindex_cache(void) {
  char *p;
  p = check_case("reindex_transpose.tvs", "main",
                 "sch.reindex_cache_read(\"B\", 0, \"shared\", lambda vi, vj: (vj // 4, vi, vj % 4))\n"
                 "sch.reindex_cache_write(\"C\", 0, \"local\", lambda i, j: (j, i))\n");
  expect_contains(p, "A_shared = T.alloc_buffer((3, 16, 4), scope=\"shared\")");
  expect_contains(p, "A_shared[vj // 4, vi, vj % 4] = A[vj, vi]");
  expect_contains(p, "C[vi, vj] = C_local[vj, vi]");
  free(p);
  /* Only the iters a buffer uses get a loop; the write-back follows the reduction. */
  p = check_case("matmul.tvs", "main",
                 "b = sch.get_block(\"C\")\nsch.reindex_cache_read(b, 1, \"shared\", lambda i, j, k: (k, j))\n"
                 "sch.reindex_cache_write(b, 0, \"local\", lambda i, j, k: (i, j))\n");
  expect_contains(p, "for j, k in T.grid(16, 16):");
  expect_contains(p, "B_shared[vk, vj] = B[vj, vk]");
  expect_contains(p, "C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B_shared[vk, vj]");
  free(p);
  /* Producer and consumer under one loop: the stage goes in that loop. */
  p = check_case("reindex_transpose.tvs", "main",
                 "i, j = sch.get_loops(\"C\")\nsch.compute_at(sch.get_block(\"B\"), i)\n"
                 "sch.reindex_cache_read(\"C\", 0, \"local\", lambda vi, vj: (vj, vi))\n");
  expect_contains(p, "B_local[vj, vi] = B[vi, vj]");
  free(p);
}

static void test_block_iters(void) {
  char *p;
  p = check_case("matmul.tvs", "main", "sch.reorder_block_iter_var(\"C\", [2, 0, 1])\n"
                                       "i, j, k = sch.get_loops(sch.get_block(\"C\"))\nsch.reorder(k, i)\n");
  expect_contains(p, "vk, vi, vj = T.axis.remap(\"RSS\", [k, i, j])");
  free(p);
  p = check_case("reindex_transpose.tvs", "main", "sch.unsafe_set_dtype(\"B\", 0, \"float16\")\n");
  expect_contains(p, "B = T.alloc_buffer((16, 12), \"float16\")");
  expect_contains(p, "B[vi, vj] = T.Cast(\"float16\", A[vj, vi] * T.float32(2.0))");
  expect_contains(p, "C[vi, vj] = T.Cast(\"float32\", B[vi, vj]) + T.float32(1.0)");
  free(p);
  /* match_buffer views of the buffer change type with it. */
  p = check_case("unsafe_set_dtype_match.tvs", "main", "sch.unsafe_set_dtype(\"B\", 0, \"float64\")\n");
  expect_contains(p, "B_sub1 = T.match_buffer(B[vi, vj], (), \"float64\", offset_factor=1)");
  expect_contains(p, "C[vi, vj] = T.Cast(\"float32\", B_sub1[()]) + T.float32(1.0)");
  free(p);
  /* The same dtype is a no-op (still traced). */
  p = check_case("reindex_transpose.tvs", "main", "sch.unsafe_set_dtype(\"B\", \"B\", \"float32\")\n");
  expect_contains(p, "B = T.alloc_buffer((16, 12))");
  free(p);
  p = check_case("reindex_transpose.tvs", "main",
                 "sch.annotate_buffer_access(\"C\", 0, \"read\", lambda vi, vj: (vi, (0, 12)))\n"
                 "sch.annotate_buffer_access(\"B\", 0, \"read\", lambda vi, vj: ((vj, vj + 1), (vi // 2 * 2, vi // 2 * 2 + 2)))\n"
                 "sch.annotate_buffer_access(\"C\", 0, \"read\", lambda vi, vj: ((vi), (0, 12)))\n");
  expect_contains(p, "T.reads(B[vi, 0:12])");
  expect_contains(p, "T.reads(A[vj, vi // 2 * 2:vi // 2 * 2 + 2])");
  expect_contains(p, "T.block_attr({\"explicit_read_region\": [0]})");
  free(p);
  /* compute_at sizes the producer by the annotated window. */
  p = check_case("annotate_buffer_access_resize.tvs", "main",
                 "b = sch.get_block(\"resize\")\n"
                 "sch.annotate_buffer_access(b, 0, \"read\", lambda vn, vc, vh, vw: (vn, vc, (vh * 2 - 3, vh * 2 + 3), (vw * 2 - 3, vw * 2 + 3)))\n"
                 "i0, i1, h, w = sch.get_loops(b)\nho, hi = sch.split(h, factors=[4, 5])\n"
                 "wo, wi = sch.split(w, factors=[4, 5])\nsch.reorder(ho, wo, hi, wi)\n"
                 "sch.compute_at(sch.get_block(\"cache\"), wo)\n");
  expect_contains(p, "for ax0, ax1 in T.grid(14, 14):");
  free(p);
}

/* Each refusal reports one error naming the rule and changes nothing. */
static void expect_refusal(Schedule *s, DiagCtx *d, int rc, const char *msg) {
  CHECK_EQ_INT(rc, -1);
  bool ok = d->len > 0 && strstr(d->items[d->len - 1].msg, msg) != NULL;
  CHECK(ok);
  if (!ok) fprintf(stderr, "expected '%s', got '%s'\n", msg, d->len ? d->items[d->len - 1].msg : "");
  (void)s;
}

static void test_refusals(void) {
  IrModule *m = load("reindex_transpose.tvs");
  IrModule *mm = load("matmul.tvs");
  IrModule *mr = load("reindex_multi_read.tvs");
  IrModule *rs = load("reindex_rowsum.tvs");
  CHECK(m && mm && mr && rs);
  if (!m || !mm || !mr || !rs) return;
  DiagCtx d;
  diag_init(&d, NULL);
  Schedule *s = sch_new(m, &d);
  SchRV b = sch_get_block(s, "B", NULL), c = sch_get_block(s, "C", NULL);
  int nv = sch_num_versions(s);
  expect_refusal(s, &d, sch_reindex(s, b, false, 2),
                 "reindex: buffer index 2 is out of range [0, 1) of the reads of block 'B'");
  expect_refusal(s, &d, sch_reindex_cache_read(s, b, 0, "bogus", "lambda i, j: (i, j)"),
                 "reindex_cache_read: the storage scope \"bogus\" is invalid");
  expect_refusal(s, &d, sch_reindex_cache_read(s, b, 0, "shared", "lambda i: (i,)"),
                 "reindex_cache_read: the index map takes 1 indices but block 'B' has 2 block iters");
  expect_refusal(s, &d, sch_reindex_cache_read(s, b, 0, "shared", "lambda i, j: (i,)"),
                 "reindex_cache_read: block iter 'vj' of block 'B' appears in the old indices of 'A' but not in the new ones");
  expect_refusal(s, &d, sch_reindex_cache_write(s, c, 0, "local", "lambda i, j: (i, j // 0 + j, 1 - i)"),
                 "reindex_cache_write: ");
  expect_refusal(s, &d, sch_reindex_cache_write(s, c, 0, "local", "lambda i, j: i + "),
                 "reindex_cache_write: invalid index map");
  int64_t bad[2] = {0, 0}, shortp[1] = {0};
  expect_refusal(s, &d, sch_reorder_block_iter_var(s, b, bad, 2),
                 "reorder_block_iter_var: new_order [0, 0] is not a permutation of [0, 2)");
  expect_refusal(s, &d, sch_reorder_block_iter_var(s, b, shortp, 1),
                 "reorder_block_iter_var: new_order [0] is not a permutation of [0, 2)");
  expect_refusal(s, &d, sch_unsafe_set_dtype(s, c, 0, "float16"),
                 "unsafe_set_dtype: buffer 'C' is a function parameter");
  expect_refusal(s, &d, sch_unsafe_set_dtype(s, b, 0, "floaty"),
                 "unsafe_set_dtype: \"floaty\" is not a valid data type");
  expect_refusal(s, &d, sch_unsafe_set_dtype(s, b, -1, "float16"),
                 "unsafe_set_dtype: buffer index -1 is out of range [0, 1) of the writes of block 'B'");
  expect_refusal(s, &d, sch_annotate_buffer_access(s, b, 0, "both", "lambda i, j: (i, j)"),
                 "annotate_buffer_access: buf_type must be \"read\" or \"write\", got \"both\"");
  expect_refusal(s, &d, sch_annotate_buffer_access(s, b, 0, "read", "lambda i, j: (i,)"),
                 "annotate_buffer_access: gen_new_ranges gives 1 ranges but buffer 'A' has 2 dimensions");
  expect_refusal(s, &d, sch_annotate_buffer_access(s, b, 0, "read", "lambda i, j: ((i, j, 1), j)"),
                 "annotate_buffer_access: invalid gen_new_ranges 'lambda i, j: ((i, j, 1), j)': a range must be a (begin, end) pair");
  expect_refusal(s, &d, sch_annotate_buffer_access(s, b, 0, "read", "lambda i: (i, i)"),
                 "annotate_buffer_access: gen_new_ranges takes 1 arguments but block 'B' has 2 block iters");
  /* After compute_at, C shares its loop with B: reindex needs the block alone. */
  SchRV *loops = NULL;
  CHECK_EQ_INT(sch_get_loops(s, c, &loops), 2);
  CHECK_EQ_INT(sch_compute_at(s, b, loops[0], false, -1), 0);
  free(loops);
  int nv2 = sch_num_versions(s);
  CHECK(nv2 > nv);
  expect_refusal(s, &d, sch_reindex(s, c, false, 0),
                 "reindex: block 'C' is not alone under its loops (its loop nest holds other statements)");
  CHECK_EQ_INT(sch_num_versions(s), nv2);
  sch_free(s);

  s = sch_new(mr, &d);
  b = sch_get_block(s, "B", NULL);
  expect_refusal(s, &d, sch_reindex(s, b, false, 0),
                 "reindex: the buffer region of 'A' accessed in block 'B' is not a single point");
  CHECK_EQ_INT(sch_num_versions(s), 1);
  CHECK(seq_module(sch_mod(s), mr, NULL, NULL));
  sch_free(s);

  s = sch_new(rs, &d);
  b = sch_get_block(s, "S", NULL);
  expect_refusal(s, &d, sch_reindex(s, b, false, 1),
                 "reindex: the indices of 'A' in block 'S' use 'k', which is not a block iter");
  expect_refusal(s, &d, sch_reindex_cache_read(s, b, 1, "local", "lambda i: (i,)"),
                 "reindex_cache_read: the buffer region of 'A' accessed in block 'S' is not a single point");
  expect_refusal(s, &d, sch_reindex_cache_read(s, b, 0, "local", "lambda i: (i,)"),
                 "reindex_cache_read: block 'S' both reads and writes buffer 'S'");
  CHECK_EQ_INT(sch_num_versions(s), 1);
  sch_free(s);

  s = sch_new(mm, &d);
  SchRV root = sch_get_block(s, "root", NULL);
  if (root >= 0) {
    expect_refusal(s, &d, sch_reindex(s, root, true, 0), "reindex: ");
  }
  sch_free(s);
  diag_free(&d);
  ir_module_free(m);
  ir_module_free(mm);
  ir_module_free(mr);
  ir_module_free(rs);
}

int main(void) {
  test_reindex();
  test_reindex_cache();
  test_block_iters();
  test_refusals();
  for (int i = 0; i < nsrcs; i++) src_free(srcs[i]);
  TEST_MAIN_END();
}
