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

static SourceFile *srcs[64];
static int nsrcs;

static IrModule *load(const char *name) {
  const char *dir = getenv("TVS_SOURCE_DIR");
  char *path = xasprintf("%s/tests/lit/sched/Inputs/%s", dir ? dir : ".", name);
  const char *why = NULL;
  SourceFile *src = src_from_path(path, &why);
  free(path);
  if (!src) return NULL;
  srcs[nsrcs++] = src;
  DiagCtx d;
  diag_init(&d, stderr);
  IrModule *m = tvs_load_module(src, &d);
  diag_flush(&d);
  diag_free(&d);
  return m;
}

/* Runs every prim_func param set to deterministic data; returns the output
 * tensors concatenated as floats (malloc'd), count in *n. */
static float *run(const IrModule *m, const char *fname, int *n) {
  const IrGlobal *g = ir_module_lookup(m, fname);
  if (!g || g->kind != IR_FUNC_TIR) return NULL;
  const TirFunc *f = g->tir;
  InterpArg args[8];
  TvsNDArray *arr[8] = {0};
  memset(args, 0, sizeof args);
  int total = 0;
  for (int i = 0; i < f->nparams && i < 8; i++) {
    const TirBuffer *b = f->buffer_map[i];
    int64_t shape[4];
    for (int d = 0; d < b->ndim; d++) shape[d] = b->shape[d]->ival;
    DLDataType dt = {kDLFloat, 32, 1};
    arr[i] = tvs_ndarray_empty(b->ndim, shape, dt);
    int64_t cnt = tvs_ndarray_numel(&arr[i]->t);
    float *p = arr[i]->t.data;
    for (int64_t k = 0; k < cnt; k++) p[k] = (float)((k * 7 + i * 3) % 11) / 4.0f - 1.0f;
    args[i].tensor = &arr[i]->t;
    total += (int)cnt;
  }
  DiagCtx d;
  diag_init(&d, stderr);
  float *out = NULL;
  if (interp_run_tir(m, fname, args, f->nparams, &d) == 0) {
    out = xmalloc((size_t)total * sizeof *out);
    int at = 0;
    for (int i = 0; i < f->nparams; i++) {
      int64_t cnt = tvs_ndarray_numel(&arr[i]->t);
      memcpy(out + at, arr[i]->t.data, (size_t)cnt * sizeof(float));
      at += (int)cnt;
    }
    *n = total;
  }
  diag_flush(&d);
  diag_free(&d);
  for (int i = 0; i < f->nparams && i < 8; i++) tvs_ndarray_free(arr[i]);
  return out;
}

static bool same_results(const IrModule *a, const IrModule *b, const char *fname) {
  int na = 0, nb = 0;
  float *ra = run(a, fname, &na), *rb = run(b, fname, &nb);
  bool ok = ra && rb && na == nb;
  for (int i = 0; ok && i < na; i++)
    if (fabsf(ra[i] - rb[i]) > 1e-4f * (1 + fabsf(ra[i]))) ok = false;
  free(ra);
  free(rb);
  return ok;
}

/* Applies script to the module in file; checks results and trace replay.
 * Returns the printed scheduled module (malloc'd) or NULL. */
static char *check_case(const char *file, const char *fname, const char *script) {
  IrModule *orig = load(file);
  CHECK(orig != NULL);
  if (!orig) return NULL;
  IrModule *m = ir_module_copy(orig);
  DiagCtx d;
  diag_init(&d, stderr);
  char *text = xasprintf("%s\nprint(sch.trace)\n", script);
  SourceFile *src = src_from_string("<script>", text, strlen(text));
  free(text);
  StrBuf out;
  sb_init(&out);
  int rc = sch_eval_text(src, &m, &d, &out);
  diag_flush(&d);
  CHECK_EQ_INT(rc, 0);
  char *printed = NULL;
  if (rc == 0) {
    CHECK(same_results(orig, m, fname));
    const char *tr = strstr(out.data, "# from tvm import tir");
    CHECK(tr != NULL);
    if (tr) {
      IrModule *re = sch_trace_replay(orig, tr, &d);
      diag_flush(&d);
      CHECK(re != NULL);
      char *diff = NULL;
      if (re) {
        bool eq = seq_module(re, m, NULL, &diff);
        CHECK(eq);
        if (!eq) fprintf(stderr, "replay differs (%s): %s\n", file, diff ? diff : "?");
      }
      free(diff);
      ir_module_free(re);
    }
    StrBuf sb;
    sb_init(&sb);
    PrintOptions opt = print_options_default();
    print_module(&sb, m, &opt);
    printed = sb_take(&sb);
    /* Printed IR parses back to an equal module. */
    SourceFile *ps = src_from_string("<printed>", printed, strlen(printed));
    IrModule *back = tvs_load_module(ps, &d);
    diag_flush(&d);
    CHECK(back && seq_module(back, m, NULL, NULL));
    ir_module_free(back);
    src_free(ps);
  }
  sb_free(&out);
  src_free(src);
  diag_free(&d);
  ir_module_free(m);
  ir_module_free(orig);
  return printed;
}

static void expect_contains(char *printed, const char *needle) {
  CHECK(printed && strstr(printed, needle));
  if (printed && !strstr(printed, needle)) fprintf(stderr, "missing '%s' in:\n%s\n", needle, printed);
}

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
