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
