/* execute.c - :run and :time: the current function on the current target
 * (LLVM JIT or the interpreter) on seeded random inputs or .npy files.
 * :run checks the result against the UNSCHEDULED function run on the
 * interpreter (the oracle); :time reports the median and GFLOP/s. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/gpu.h"
#include "driver/npu.h"
#include "driver/run.h"
#include "repl/repl_internal.h"
#include "runtime/ndarray.h"
#include "runtime/npy.h"

/* ------------------------------------------------------------ tensors */

/* The arguments of one call: arrays for buffer params, scalars otherwise. */
typedef struct Args {
  int n;
  TvsNDArray **arrays;  /* per param (NULL for scalars) */
  InterpArg *iargs;     /* interpreter form */
} Args;

static void args_free(Args *a) {
  for (int i = 0; i < a->n; i++) tvs_ndarray_free(a->arrays[i]);
  free(a->arrays);
  free(a->iargs);
  a->n = 0;
  a->arrays = NULL;
  a->iargs = NULL;
}

static Args args_copy(const Args *src) {
  Args a = {src->n, xcalloc((size_t)(src->n ? src->n : 1), sizeof *a.arrays),
            xcalloc((size_t)(src->n ? src->n : 1), sizeof *a.iargs)};
  for (int i = 0; i < src->n; i++) {
    a.iargs[i] = src->iargs[i];
    if (!src->arrays[i]) continue;
    const DLTensor *t = &src->arrays[i]->t;
    a.arrays[i] = tvs_ndarray_empty(t->ndim, t->shape, t->dtype);
    memcpy(a.arrays[i]->t.data, t->data, tvs_ndarray_nbytes(t));
    a.iargs[i].tensor = &a.arrays[i]->t;
  }
  return a;
}

typedef struct NamedInput {
  const char *name, *value;
} NamedInput;

/* Builds the arguments of f: --input files/values, else seeded random data. */
static int make_args(Repl *r, const TirFunc *f, const NamedInput *in, int nin, Args *out) {
  Args a = {f->nparams, xcalloc((size_t)(f->nparams ? f->nparams : 1), sizeof *a.arrays),
            xcalloc((size_t)(f->nparams ? f->nparams : 1), sizeof *a.iargs)};
  uint64_t rng = 0;
  for (int k = 0; k < nin; k++) {
    bool found = false;
    for (int i = 0; i < f->nparams; i++)
      found |= !strcmp(in[k].name, f->buffer_map[i] ? f->buffer_map[i]->name : f->params[i]->name) ||
               !strcmp(in[k].name, f->params[i]->name);
    if (!found) {
      repl_error(r, "--input: the function has no parameter '%s'", in[k].name);
      args_free(&a);
      return -1;
    }
  }
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map[i];
    const char *name = b ? b->name : f->params[i]->name, *val = NULL;
    for (int k = 0; k < nin; k++)
      if (!strcmp(in[k].name, name) || !strcmp(in[k].name, f->params[i]->name)) val = in[k].value;
    if (!b) {
      char *end = NULL;
      double v = val ? strtod(val, &end) : 0;
      if (!val || !*val || *end) {
        repl_error(r, "scalar parameter '%s' needs a value: --input %s=VALUE", name, name);
        args_free(&a);
        return -1;
      }
      a.iargs[i].f = v;
      a.iargs[i].i = (int64_t)v;
      continue;
    }
    if (val) {
      char err[256];
      a.arrays[i] = tvs_npy_load(val, err, sizeof err);
      if (!a.arrays[i]) {
        repl_error(r, "--input %s: %s", name, err);
        args_free(&a);
        return -1;
      }
    } else {
      DrvBindings none = {NULL, 0, 0}; /* the shape must be static */
      DrvAllocStatus st = drv_alloc_buffer(b, &none, &a.arrays[i], NULL, NULL);
      if (st == DRV_ALLOC_NDIM) repl_error(r, "parameter '%s' has too many dimensions", name);
      else if (st == DRV_ALLOC_SYMBOLIC)
        repl_error(r, "parameter '%s' has a symbolic shape; give it with --input %s=x.npy", name, name);
      else if (st != DRV_ALLOC_OK) repl_error(r, "cannot allocate parameter '%s'", name);
      if (st != DRV_ALLOC_OK) {
        args_free(&a);
        return -1;
      }
      tvs_ndarray_fill_random(&a.arrays[i]->t, &rng);
    }
    a.iargs[i].tensor = &a.arrays[i]->t;
  }
  *out = a;
  return 0;
}

/* ------------------------------------------------------------- running */

/* A callable: the JIT-compiled function, or the interpreter on m. */
typedef struct Runner {
  Repl *r;
  DrvRunner dr;
  IrModule *low;   /* :target cuda|opencl: the GPU-lowered module, else NULL */
  DrvGpu gpu;      /* and its device */
  const char *func;
} Runner;

/* :target cuda|opencl: lower on the GPU pipeline and open the device. */
static int gpu_runner_init(Runner *ru, Repl *r, const IrModule *m, const char *func) {
  memset(&ru->dr, 0, sizeof ru->dr);
  diag_clear(&r->diag);
  ru->func = func;
  ru->low = drv_gpu_lower(m, r->gpu_target, NULL, &r->diag);
  char err[512] = "";
  CgOptions opt = cg_options_default();
  int rc = ru->low ? drv_gpu_open(&ru->gpu, ru->low, r->gpu_target, &opt, &r->diag, err, sizeof err) : -1;
  fflush(r->opt.out);
  diag_flush(&r->diag);
  diag_clear(&r->diag);
  if (rc && err[0]) repl_error(r, "%s", err);
  return rc ? -1 : 0;
}

static int runner_init(Runner *ru, Repl *r, const IrModule *m, const char *func, bool cpu, bool timing) {
  ru->r = r;
  ru->low = NULL;
  memset(&ru->gpu, 0, sizeof ru->gpu);
  if (cpu && r->gpu_target) return gpu_runner_init(ru, r, m, func);
  if (!cpu) return drv_runner_init(&ru->dr, m, func, NULL, false, &r->diag);
  CgOptions opt = cg_options_default();
  opt.bounds_check = repl_bounds_check(r, timing);
  diag_clear(&r->diag);
  /* Only the function run is compiled (faster, and no other's warnings). */
  DrvRunStatus st = drv_runner_init(&ru->dr, m, func, &opt, true, &r->diag);
  fflush(r->opt.out);
  diag_flush(&r->diag);
  diag_clear(&r->diag);
  if (st == DRV_RUN_NO_FUNC) repl_error(r, "the compiled module has no function '%s'", func);
  return st == DRV_RUN_OK ? 0 : -1;
}

static void runner_free(Runner *ru) {
  drv_runner_free(&ru->dr);
  drv_gpu_close(&ru->gpu);
  ir_module_free(ru->low);
  ru->low = NULL;
}

static int runner_call(Runner *ru, Args *a) {
  if (ru->low) {
    char err[512] = "";
    int rc = drv_gpu_call(&ru->gpu, ru->func, a->iargs, a->n, err, sizeof err);
    if (rc) repl_error(ru->r, "%s", err);
    return rc;
  }
  if (!ru->dr.fn) diag_clear(&ru->r->diag);
  DrvRunStatus st = drv_runner_call(&ru->dr, a->iargs, a->n, &ru->r->diag);
  if (!ru->dr.fn) {
    fflush(ru->r->opt.out);
    diag_flush(&ru->r->diag);
    diag_clear(&ru->r->diag);
  }
  if (st == DRV_RUN_CALL) repl_error(ru->r, "%s", tvs_get_last_error());
  return st == DRV_RUN_OK ? 0 : -1;
}

/* Parses [FUNC] [--input NAME=VALUE ...]. */
static int parse_run_args(Repl *r, int argc, char **argv, const char **func, NamedInput *in, int *nin,
                          bool allow_inputs) {
  *func = NULL;
  *nin = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (allow_inputs && (!strcmp(a, "--input") || !strncmp(a, "--input=", 8))) {
      const char *v = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : NULL;
      const char *eq = v ? strchr(v, '=') : NULL;
      if (!eq || eq == v || !eq[1] || *nin == 32) return repl_error(r, "--input expects NAME=x.npy"), -1;
      in[*nin].name = xstrndup(v, (size_t)(eq - v));
      in[(*nin)++].value = eq + 1;
    } else if (a[0] == '-') {
      return repl_error(r, "unknown option '%s'", a), -1;
    } else if (*func) {
      return repl_error(r, "more than one function ('%s' and '%s')", *func, a), -1;
    } else {
      *func = a;
    }
  }
  *func = repl_default_func(r, *func);
  return *func ? 0 : -1;
}

static void free_inputs(NamedInput *in, int n) {
  for (int i = 0; i < n; i++) free((char *)in[i].name);
}

void repl_free_refs(Repl *r) {
  for (int i = 0; i < r->nrefs; i++) {
    Args a = {r->refs[i].n, r->refs[i].arrays, NULL};
    args_free(&a);
    free(r->refs[i].func);
  }
  free(r->refs);
  r->refs = NULL;
  r->nrefs = r->caprefs = 0;
}

/* The reference outputs of the unscheduled func on random inputs (cached). */
static TvsNDArray **reference(Repl *r, const char *func, const Args *inputs, bool cache) {
  for (int i = 0; cache && i < r->nrefs; i++)
    if (!strcmp(r->refs[i].func, func)) return r->refs[i].arrays;
  Args ref = args_copy(inputs);
  Runner ru;
  runner_init(&ru, r, r->base, func, false, false);
  if (runner_call(&ru, &ref) != 0) {
    args_free(&ref);
    return NULL;
  }
  free(ref.iargs);
  if (!cache) { /* stashed as the last entry anyway, replaced next time */
    for (int i = 0; i < r->nrefs; i++)
      if (!strcmp(r->refs[i].func, "")) {
        Args old = {r->refs[i].n, r->refs[i].arrays, NULL};
        args_free(&old);
        r->refs[i].arrays = ref.arrays;
        r->refs[i].n = ref.n;
        return ref.arrays;
      }
  }
  VEC_PUSH(r->refs, r->nrefs, r->caprefs, ((ReplRef){xstrdup(cache ? func : ""), ref.arrays, ref.n}));
  return ref.arrays;
}

int repl_cmd_run(Repl *r, int argc, char **argv) {
  if (repl_is_graph_call(r, argc, argv)) return repl_graph_cmd(r, argc, argv, false);
  const char *func;
  NamedInput in[32];
  int nin;
  if (parse_run_args(r, argc, argv, &func, in, &nin, true)) return free_inputs(in, nin), -1;
  const IrModule *m = repl_cur_mod(r);
  const TirFunc *tf = ir_module_lookup(m, func)->tir;
  Args args;
  if (make_args(r, tf, in, nin, &args)) return free_inputs(in, nin), -1;
  Args inputs = args_copy(&args);
  Runner ru;
  int rc = -1;
  if (runner_init(&ru, r, m, func, r->target_cpu, false) == 0 && runner_call(&ru, &args) == 0) {
    const IrGlobal *bg = ir_module_lookup(r->base, func);
    TvsNDArray **ref = bg && bg->kind == IR_FUNC_TIR ? reference(r, func, &inputs, nin == 0) : NULL;
    const char *tgt = r->gpu_target ? r->gpu_target : r->target_cpu ? "cpu" : "interp";
    if (!ref) {
      fprintf(r->opt.out, "%s ran on %s (no unscheduled version to check against)\n", func, tgt);
      rc = bg ? -1 : 0;
    } else {
      rc = 0;
      int noutputs = 0;
      for (int i = 0; i < args.n; i++) {
        if (!args.arrays[i]) continue;
        const DLTensor *got = &args.arrays[i]->t, *want = &ref[i]->t, *init = &inputs.arrays[i]->t;
        int64_t n = tvs_ndarray_numel(got), bad = 0, worst = -1;
        bool written = false;
        double maxd = 0, worstd = -1;
        for (int64_t k = 0; k < n; k++) {
          double g = tvs_ndarray_get_f64(got, k), w = tvs_ndarray_get_f64(want, k);
          if (w != tvs_ndarray_get_f64(init, k) || g != tvs_ndarray_get_f64(init, k)) written = true;
          double d = fabs(g - w);
          bool ok = d <= 1e-5 + 1e-4 * fabs(w) || (isnan(g) && isnan(w)) || g == w;
          if (!ok) bad++;
          if (!isnan(d) && d > maxd) maxd = d;
          if (!ok && (worst < 0 || d > worstd || isnan(d))) worst = k, worstd = d;
        }
        if (!written) continue;
        noutputs++;
        const char *bname = tf->buffer_map[i]->name;
        if (!bad) {
          fprintf(r->opt.out, "%s on %s: %s matches the unscheduled %s (%lld values, max abs diff %.3g)\n", func,
                  tgt, bname, func, (long long)n, maxd);
          continue;
        }
        rc = -1;
        StrBuf at;
        sb_init(&at);
        int64_t rem = worst;
        int64_t idx[TVS_MAX_NDIM];
        for (int d = got->ndim - 1; d >= 0; d--) idx[d] = rem % got->shape[d], rem /= got->shape[d];
        for (int d = 0; d < got->ndim; d++) sb_printf(&at, "%s%lld", d ? ", " : "", (long long)idx[d]);
        fprintf(r->opt.out,
                "%s on %s: %s does NOT match the unscheduled %s: %lld of %lld values differ; worst at %s[%s]: "
                "got %.6g, expected %.6g\n",
                func, tgt, bname, func, (long long)bad, (long long)n, bname, at.data, tvs_ndarray_get_f64(got, worst),
                tvs_ndarray_get_f64(want, worst));
        sb_free(&at);
      }
      if (!noutputs) fprintf(r->opt.out, "%s on %s: no output changed\n", func, tgt);
      if (rc) repl_error(r, ":run: the scheduled %s computes something else than the unscheduled one", func);
    }
  }
  runner_free(&ru);
  args_free(&args);
  args_free(&inputs);
  free_inputs(in, nin);
  return rc;
}

typedef struct TimeCall {
  Runner *ru;
  Args *args;
} TimeCall;

static int time_call(void *ctx) {
  TimeCall *c = ctx;
  return runner_call(c->ru, c->args);
}

/* Prints the ratio to the previous :time of func and records this one. */
static void note_timing(Repl *r, const char *func, double med) {
  ReplTiming *prev = NULL;
  for (int i = 0; i < r->ntimes; i++)
    if (!strcmp(r->times[i].func, func)) prev = &r->times[i];
  if (prev && med > 0) {
    double ratio = prev->ms / med;
    if (ratio >= 1) fprintf(r->opt.out, "; %.2fx faster than the previous :time (%.4f ms)", ratio, prev->ms);
    else fprintf(r->opt.out, "; %.2fx slower than the previous :time (%.4f ms)", 1 / ratio, prev->ms);
  }
  fputc('\n', r->opt.out);
  if (!prev) {
    VEC_PUSH(r->times, r->ntimes, r->captimes, ((ReplTiming){xstrdup(func), 0}));
    prev = &r->times[r->ntimes - 1];
  }
  prev->ms = med;
}

/* :time on :target npu: one run on the simulator, checked against the
 * interpreter; the cycle report instead of a wall-clock time. */
static int npu_time(Repl *r, const IrModule *m, const char *func, Args *args) {
  DrvNpuOptions o;
  drv_npu_options_default(&o);
  NpuReport rep;
  int64_t bad = 0;
  char err[1024] = "";
  diag_clear(&r->diag);
  int rc = drv_npu_run(m, func, &o, args->iargs, args->n, &rep, &bad, &r->diag, err, sizeof err);
  fflush(r->opt.out);
  diag_flush(&r->diag);
  diag_clear(&r->diag);
  if (rc) {
    if (err[0]) repl_error(r, "%s", err);
    return -1;
  }
  if (bad) return repl_error(r, "%s on npu: %lld output elements differ from the interpreter's", func, (long long)bad), -1;
  fprintf(r->opt.out, "%s on npu: %lld cycles, GEMM utilisation %.1f%% (outputs equal the interpreter's)\n", func,
          (long long)rep.total_cycles, npu_report_utilisation(&rep));
  return 0;
}

int repl_cmd_time(Repl *r, int argc, char **argv) {
  if (repl_is_graph_call(r, argc, argv)) return repl_graph_cmd(r, argc, argv, true);
  const char *func;
  NamedInput in[32];
  int nin;
  if (parse_run_args(r, argc, argv, &func, in, &nin, false)) return -1;
  const IrModule *m = repl_cur_mod(r);
  const TirFunc *tf = ir_module_lookup(m, func)->tir;
  Args args;
  if (make_args(r, tf, in, nin, &args)) return -1;
  if (r->npu_target) {
    int nrc = npu_time(r, m, func, &args);
    args_free(&args);
    return nrc;
  }
  Runner ru;
  int rc = -1;
  if (runner_init(&ru, r, m, func, r->target_cpu, true)) goto out;
  /* Warm-up, then repetitions: r->repeat, or at least 5 and about 0.3 s. */
  DrvTimeOptions topt = {r->repeat, 300.0, 1, 0};
  DrvTiming tm;
  TimeCall call = {&ru, &args};
  if (drv_time_calls(time_call, &call, &topt, &tm)) goto out;
  double med = tm.median_ms;
  double flops = tir_count_flops(tf, NULL, 0);
  fprintf(r->opt.out, "%s on %s: median %.4f ms over %d runs", func, r->gpu_target ? r->gpu_target : r->target_cpu ? "cpu" : "interp", med, tm.reps);
  if (flops > 0 && med > 0) fprintf(r->opt.out, ", %.2f GFLOP/s", flops / (med * 1e6));
  note_timing(r, func, med);
  rc = 0;
out:
  runner_free(&ru);
  args_free(&args);
  return rc;
}
