/* sched_harness.h - shared helpers of the schedule unit tests: load a .tvs
 * input from tests/lit/sched/Inputs, run a function on the interpreter, and
 * check one schedule case (apply, compare results with the unscheduled
 * function, replay the trace, round-trip the printed IR). */
#ifndef TVS_TESTS_SCHED_HARNESS_H
#define TVS_TESTS_SCHED_HARNESS_H

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


#endif
