/* sched_harness.h - shared helpers of the schedule unit tests: load a .tvs
 * input from tests/lit/sched/Inputs, run a function on the interpreter or
 * natively (LLVM JIT), and check one schedule case (apply, compare results
 * with the unscheduled function on both targets, replay the trace,
 * round-trip the printed IR). */
#ifndef TVS_TESTS_SCHED_HARNESS_H
#define TVS_TESTS_SCHED_HARNESS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codegen/codegen.h"
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

/* Calls fname of a JIT-compiled m with the prepared tensors; 0 on success. */
static int run_native(const IrModule *m, const char *fname, TvsNDArray **arr, int nargs, DiagCtx *d) {
  CgOptions opt = cg_options_default();
  TVSModule *mod = cg_compile_module(m, &opt, d);
  if (!mod) return -1;
  TVSFunction *fn = tvs_module_get_function(mod, fname);
  int rc = -1;
  if (fn) {
    TVSValue vals[8], ret;
    int codes[8], rtc;
    for (int i = 0; i < nargs; i++) vals[i].v_handle = &arr[i]->t, codes[i] = TVS_TENSOR;
    rc = tvs_func_call(fn, vals, codes, nargs, &ret, &rtc);
    if (rc) fprintf(stderr, "native call of %s failed: %s\n", fname, tvs_get_last_error());
    tvs_func_release(fn);
  }
  tvs_module_free(mod);
  return rc;
}

/* Runs every prim_func param set to deterministic data, on the interpreter
 * or (native) compiled; returns the output tensors concatenated as floats
 * (malloc'd), count in *n. */
static float *run_on(const IrModule *m, const char *fname, int *n, bool native) {
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
  int rc = native ? run_native(m, fname, arr, f->nparams, &d) : interp_run_tir(m, fname, args, f->nparams, &d);
  if (rc == 0) {
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

static float *run(const IrModule *m, const char *fname, int *n) { return run_on(m, fname, n, false); }

static bool close_results(const float *ra, int na, const float *rb, int nb) {
  bool ok = ra && rb && na == nb;
  for (int i = 0; ok && i < na; i++)
    if (fabsf(ra[i] - rb[i]) > 1e-4f * (1 + fabsf(ra[i]))) ok = false;
  return ok;
}

/* The scheduled module b computes what a does: on the interpreter, and
 * compiled natively (the lowering passes and the LLVM backend must handle
 * what the primitives produce). */
static bool same_results(const IrModule *a, const IrModule *b, const char *fname) {
  int na = 0, nb = 0, nc = 0;
  float *ra = run(a, fname, &na), *rb = run(b, fname, &nb);
  bool ok = close_results(ra, na, rb, nb);
  if (!ok) fprintf(stderr, "interpreter results differ after scheduling (%s)\n", fname);
  float *rc = run_on(b, fname, &nc, true);
  bool okc = close_results(ra, na, rc, nc);
  if (!okc) fprintf(stderr, "native results of the scheduled %s differ from the interpreter's\n", fname);
  free(ra);
  free(rb);
  free(rc);
  return ok && okc;
}

/* Applies script to the module in file; checks results and trace replay.
 * Returns the printed scheduled module (malloc'd) or NULL. */
static inline char *check_case(const char *file, const char *fname, const char *script) {
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

static inline void expect_contains(char *printed, const char *needle) {
  CHECK(printed && strstr(printed, needle));
  if (printed && !strstr(printed, needle)) fprintf(stderr, "missing '%s' in:\n%s\n", needle, printed);
}


#endif
