/* cmd_run.c - `tvs run FILE`: run a prim_func or graph function on .npy inputs.
 *
 * Destination-passing style: prim_func buffer params given no --input are
 * allocated zeroed and written back as DIR/NAME.npy after the run; a graph
 * function's return value becomes DIR/output.npy (output_0.npy... for tuples).
 * With no --input at all, read-only inputs are random (fixed --seed) and a
 * summary of each output is printed. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "driver/gpu.h"
#include "driver/graph_exec.h"
#include "driver/run.h"
#include "ir/transform.h"
#include "runtime/npy.h"
#include "runtime/npz.h"
#include "autotune/tune.h"
#include "sched/schedule.h"
#include "tools/tvs/tvs.h"

typedef struct NamedValue {
  const char *name;   /* parameter or size-var name */
  const char *value;  /* path to .npy, or a scalar literal */
} NamedValue;

typedef struct RunArgs {
  const char *file, *func, *outdir, *target;
  NamedValue inputs[64];
  int ninputs;
  NamedValue dims[32];
  int ndims;
  uint64_t seed;
  bool time;           /* --time: report the median time and GFLOP/s */
  int repeat;          /* --repeat N timed runs (0 = adaptive) */
  bool fast_math;      /* --fast-math for the cpu target */
  CgFpContract fp_contract; /* --fp-contract */
  int bounds_check;    /* --bounds-check 1, --no-bounds-check 0, -1: on when inputs are random */
  const char *params;  /* --params w.npz: weights bound to graph-function params */
  bool profile;        /* --profile: per-kernel table of a graph function */
  bool memory_plan;    /* --memory-plan: the graph's static memory plan */
  const char *races;   /* --check-races PASS: GPU pass to run after, or NULL */
  const char *tuning_db; /* --tuning-db log.jsonl: apply the best tuned schedules */
  const char *npu_config; /* --npu-config FILE: the simulated NPU's JSON configuration */
  int npu_vthreads;       /* --npu-vthreads N (0: the schedule's vthread binding) */
} RunArgs;

/* ---------------------------------------------------------------- helpers */

/* The cpu target's options.  --bounds-check is on by default when the
 * inputs are random (no --input), since nothing vouches for them there;
 * --time and --profile measure the unchecked fast path unless asked. */
static CgOptions run_cg_options(const RunArgs *ra) {
  CgOptions opt = cg_options_default();
  opt.fast_math = ra->fast_math;
  opt.fp_contract = ra->fp_contract;
  opt.bounds_check = ra->bounds_check >= 0 ? ra->bounds_check == 1 : !ra->ninputs && !ra->time && !ra->profile;
  return opt;
}

static void print_summary(const char *name, const DLTensor *t) {
  char dts[32];
  printf("%s: %s (", name, tvs_dtype_str(t->dtype, dts));
  for (int i = 0; i < t->ndim; i++) printf(i ? ", %lld" : "%lld", (long long)t->shape[i]);
  printf(t->ndim == 1 ? ",)" : ")");
  int64_t n = tvs_ndarray_numel(t);
  if (n == 0) {
    printf(" empty\n");
    return;
  }
  double mn = INFINITY, mx = -INFINITY, sum = 0;
  for (int64_t i = 0; i < n; i++) {
    double v = tvs_ndarray_get_f64(t, i);
    if (v < mn) mn = v;
    if (v > mx) mx = v;
    sum += v;
  }
  printf(" min=%.6g max=%.6g mean=%.6g sum=%.6g\n", mn, mx, sum / (double)n, sum);
}

static const char *find_named(const NamedValue *v, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(v[i].name, name)) return v[i].value;
  return NULL;
}

/* Is value a scalar literal (rather than a path)? */
static bool parse_scalar(const char *s, int64_t *iv, double *fv, bool *is_float) {
  char *end;
  errno = 0;
  long long l = strtoll(s, &end, 0);
  if (*s && !*end && !errno) {
    *iv = l;
    *fv = (double)l;
    *is_float = false;
    return true;
  }
  double d = strtod(s, &end);
  if (*s && !*end) {
    *fv = d;
    *iv = (int64_t)d;
    *is_float = true;
    return true;
  }
  if (!strcmp(s, "True") || !strcmp(s, "true")) {
    *iv = 1, *fv = 1, *is_float = false;
    return true;
  }
  if (!strcmp(s, "False") || !strcmp(s, "false")) {
    *iv = 0, *fv = 0, *is_float = false;
    return true;
  }
  return false;
}

static int write_output(const char *dir, const char *name, const DLTensor *t) {
  char *path = xasprintf("%s/%s.npy", dir, name);
  char err[256];
  int rc = tvs_npy_save(path, t, err, sizeof err);
  if (rc) fprintf(stderr, "tvs run: error: %s\n", err);
  free(path);
  return rc;
}

static TvsNDArray *load_input(const char *param, const char *path) {
  char err[256];
  TvsNDArray *a = tvs_npy_load(path, err, sizeof err);
  if (!a) fprintf(stderr, "tvs run: error: input '%s': %s\n", param, err);
  return a;
}

/* ---------------------------------------------------------------- prim_func */

/* The arguments of one prim_func run, built in passes. */
typedef struct TirRun {
  const RunArgs *ra;
  const char *fname;
  const TirFunc *f;
  int n;                 /* params */
  InterpArg *args;       /* per param */
  TvsNDArray **arrays;   /* per buffer param */
  bool *is_output;       /* written back / summarized */
  DrvBindings b;         /* size vars known so far */
  uint64_t rng;
} TirRun;

/* Every --input must name a param (or its buffer).  0, or -1 (reported). */
static int check_tir_inputs(const TirRun *t) {
  for (int i = 0; i < t->ra->ninputs; i++) {
    bool found = false;
    for (int k = 0; k < t->n; k++)
      found |= !strcmp(t->f->params[k]->name, t->ra->inputs[i].name) ||
               (t->f->buffer_map[k] && !strcmp(t->f->buffer_map[k]->name, t->ra->inputs[i].name));
    if (!found) {
      fprintf(stderr, "tvs run: error: function '%s' has no parameter '%s'\n", t->fname, t->ra->inputs[i].name);
      return -1;
    }
  }
  return 0;
}

/* Scalar param i: its value from --input or --dim. */
static int bind_tir_scalar(TirRun *t, int i, const char *val) {
  const RunArgs *ra = t->ra;
  const char *pname = t->f->params[i]->name;
  int64_t iv;
  double fv;
  bool isf;
  const char *dim = find_named(ra->dims, ra->ndims, pname);
  if (!val) val = dim;
  if (!val) {
    fprintf(stderr, "tvs run: error: scalar parameter '%s' needs a value (--input %s=VALUE)\n", pname, pname);
    return -1;
  }
  if (!parse_scalar(val, &iv, &fv, &isf)) {
    fprintf(stderr, "tvs run: error: scalar parameter '%s': '%s' is not a number\n", pname, val);
    return -1;
  }
  t->args[i].i = iv;
  t->args[i].f = fv;
  drv_bind(&t->b, t->f->params[i], iv);
  return 0;
}

/* Pass 1: given inputs; bind size vars from their shapes. */
static int bind_tir_given(TirRun *t) {
  const RunArgs *ra = t->ra;
  for (int i = 0; i < t->n; i++) {
    const TirBuffer *buf = t->f->buffer_map[i];
    const char *pname = buf ? buf->name : t->f->params[i]->name;
    const char *val = find_named(ra->inputs, ra->ninputs, pname);
    if (!val) val = find_named(ra->inputs, ra->ninputs, t->f->params[i]->name);
    if (!buf) {
      if (bind_tir_scalar(t, i, val)) return -1;
      continue;
    }
    if (!val) continue;
    if (!(t->arrays[i] = load_input(pname, val))) return -1;
    t->args[i].tensor = &t->arrays[i]->t;
    if (t->arrays[i]->t.ndim == buf->ndim)
      for (int k = 0; k < buf->ndim; k++)
        if (buf->shape[k]->kind == TIR_VAR) drv_bind(&t->b, buf->shape[k]->var, t->arrays[i]->t.shape[k]);
  }
  return 0;
}

/* --dim NAME=VALUE as an integer; 0, or -1 (reported). */
static int parse_dim(const NamedValue *dim, int64_t *out) {
  double fv;
  bool isf;
  if (!parse_scalar(dim->value, out, &fv, &isf) || isf) {
    fprintf(stderr, "tvs run: error: --dim %s: '%s' is not an integer\n", dim->name, dim->value);
    return -1;
  }
  return 0;
}

/* --dim NAME=VALUE binds the size vars of the buffer shapes by name. */
static int bind_tir_dims(TirRun *t) {
  for (int k = 0; k < t->ra->ndims; k++) {
    int64_t iv;
    if (parse_dim(&t->ra->dims[k], &iv)) return -1;
    for (int i = 0; i < t->n; i++) {
      const TirBuffer *buf = t->f->buffer_map[i];
      if (!buf) continue;
      for (int j = 0; j < buf->ndim; j++)
        if (buf->shape[j]->kind == TIR_VAR && !strcmp(buf->shape[j]->var->name, t->ra->dims[k].name))
          drv_bind(&t->b, buf->shape[j]->var, iv);
    }
  }
  return 0;
}

/* Pass 2: allocates buffer param i (random when a read-only input in random
 * mode, else an output). */
static int alloc_tir_buffer(TirRun *t, int i) {
  const TirBuffer *buf = t->f->buffer_map[i];
  int k = 0;
  int64_t v = 0;
  switch (drv_alloc_buffer(buf, &t->b, &t->arrays[i], &k, &v)) {
    case DRV_ALLOC_OK: break;
    case DRV_ALLOC_NDIM:
      fprintf(stderr, "tvs run: error: parameter '%s' has %d dimensions (at most %d supported)\n", buf->name, buf->ndim, TVS_MAX_NDIM);
      return -1;
    case DRV_ALLOC_SYMBOLIC:
      fprintf(stderr,
              "tvs run: error: cannot allocate '%s': dimension %d is symbolic; pass an input that binds it "
              "or --dim NAME=VALUE\n", buf->name, k);
      return -1;
    case DRV_ALLOC_NEGATIVE:
      fprintf(stderr, "tvs run: error: cannot allocate '%s': dimension %d is negative (%lld)\n", buf->name, k, (long long)v);
      return -1;
    case DRV_ALLOC_TOO_LARGE:
      fprintf(stderr, "tvs run: error: cannot allocate '%s' (too large)\n", buf->name);
      return -1;
  }
  t->args[i].tensor = &t->arrays[i]->t;
  bool written = drv_stmt_writes(t->f->body, buf->data);
  if (t->ra->ninputs == 0 && !written) tvs_ndarray_fill_random(&t->arrays[i]->t, &t->rng);
  else t->is_output[i] = true;
  return 0;
}

/* One call of the runner; 0 or -1 (reported). */
typedef struct TirCall {
  DrvRunner *ru;
  TirRun *t;
  DiagCtx *d;
} TirCall;

static int run_once(void *ctx) {
  TirCall *c = ctx;
  DrvRunStatus st = drv_runner_call(c->ru, c->t->args, c->t->n, c->d);
  if (!c->ru->fn) diag_flush(c->d);
  if (st == DRV_RUN_CALL) fprintf(stderr, "tvs run: error: %s\n", tvs_get_last_error());
  return st == DRV_RUN_OK ? 0 : -1;
}

/* --time: the timing line, after a warm-up: at least 5 runs and about 1 s,
 * unless --repeat. */
static int time_tir(TirCall *c) {
  const RunArgs *ra = c->t->ra;
  DrvTimeOptions topt = {ra->repeat, 1000.0, 1, 0};
  DrvTiming tm;
  if (drv_time_calls(run_once, c, &topt, &tm)) return -1;
  double flops = tir_count_flops(c->t->f, c->t->b.v, c->t->b.n);
  printf("%s on %s: median %.4f ms over %d runs (min %.4f, max %.4f)", c->t->fname, ra->target, tm.median_ms,
         tm.reps, tm.min_ms, tm.max_ms);
  if (flops > 0 && tm.median_ms > 0) printf(", %.3g FLOP, %.2f GFLOP/s", flops, flops / (tm.median_ms * 1e6));
  if (c->ru->mod) printf(", compiled in %.1f ms", c->ru->compile_ms);
  printf("\n");
  return 0;
}

/* Runs (and with --time, times) the prim_func on ra->target.  The first
 * run produces the outputs; timed repetitions after a warm-up recompute
 * them from the same inputs (kernels are destination-passing and pure). */
static int execute_tir(const IrModule *m, TirRun *t, DiagCtx *d) {
  bool cpu = !strcmp(t->ra->target, "cpu");
  CgOptions opt = run_cg_options(t->ra);
  DrvRunner ru;
  DrvRunStatus st = drv_runner_init(&ru, m, t->fname, cpu ? &opt : NULL, false, d);
  if (cpu) diag_flush(d);
  if (st == DRV_RUN_NO_FUNC)
    fprintf(stderr, "tvs run: error: compiled module has no function '%s'\n", t->fname);
  TirCall c = {&ru, t, d};
  int rc = st == DRV_RUN_OK && run_once(&c) == 0 && (!t->ra->time || time_tir(&c) == 0) ? 0 : -1;
  drv_runner_free(&ru);
  return rc;
}

/* --check-races PASS: the GPU pipeline up to PASS, then the interpreter with
 * threads emulated. */
static int execute_races(const IrModule *m, TirRun *t, DiagCtx *d) {
  IrModule *low = drv_gpu_lower(m, "opencl", t->ra->races, d);
  int rc = low ? interp_run_tir_races(low, t->fname, t->args, t->n, d) : -1;
  diag_flush(d);
  ir_module_free(low);
  if (!rc) fprintf(stderr, "tvs run: no data race in '%s' (threads emulated after %s)\n", t->fname, t->ra->races);
  return rc;
}

/* --target cuda|opencl: lower on the GPU pipeline, open the device, run. */
static int execute_gpu(const IrModule *m, TirRun *t, DiagCtx *d) {
  IrModule *low = drv_gpu_lower(m, t->ra->target, NULL, d);
  diag_flush(d);
  if (!low) return -1;
  DrvGpu g;
  char err[1024] = "";
  CgOptions opt = cg_options_default();
  int rc = drv_gpu_open(&g, low, t->ra->target, &opt, d, err, sizeof err);
  diag_flush(d);
  int reps = t->ra->time ? (t->ra->repeat > 0 ? t->ra->repeat : 10) : 0;
  double ms = 0;
  if (!rc) rc = drv_gpu_time(&g, t->fname, t->args, t->n, reps, &ms, err, sizeof err);
  if (rc && err[0]) fprintf(stderr, "tvs run: error: %s\n", err);
  if (!rc && reps) { /* kernels only: the copies in and out are outside the timed runs */
    double flops = tir_count_flops(t->f, t->b.v, t->b.n);
    printf("%s on %s (%s): median %.4f ms over %d runs (kernels only)", t->fname, t->ra->target,
           g.api->device_name(g.dev), ms, reps);
    if (flops > 0 && ms > 0) printf(", %.3g FLOP, %.2f GFLOP/s", flops, flops / (ms * 1e6));
    printf("\n");
  }
  drv_gpu_close(&g);
  ir_module_free(low);
  return rc ? -1 : 0;
}

static int run_tir(const IrModule *m, const char *fname, const TirFunc *f, const RunArgs *ra,
                   DiagCtx *d) {
  int n = f->nparams, rc = 1;
  TirRun t = {ra, fname, f, n, xcalloc((size_t)(n ? n : 1), sizeof *t.args),
              xcalloc((size_t)(n ? n : 1), sizeof *t.arrays), xcalloc((size_t)(n ? n : 1), sizeof *t.is_output),
              {NULL, 0, 0}, ra->seed};
  if (check_tir_inputs(&t) || bind_tir_given(&t) || bind_tir_dims(&t)) goto done;
  for (int i = 0; i < n; i++)
    if (f->buffer_map[i] && !t.arrays[i] && alloc_tir_buffer(&t, i)) goto done;
  int erc = ra->races                     ? execute_races(m, &t, d)
            : !strcmp(ra->target, "npu")    ? tool_run_npu(m, fname, t.args, n, ra->npu_config, ra->npu_vthreads, d)
            : tir_is_gpu_target(ra->target) ? execute_gpu(m, &t, d)
                                            : execute_tir(m, &t, d);
  if (erc != 0) goto done;
  if (ra->races) { /* threads ran one by one past their barriers: the values are not the device's */
    rc = 0;
    goto done;
  }
  for (int i = 0; i < n; i++) {
    if (!t.is_output[i]) continue;
    const char *name = f->buffer_map[i]->name;
    if (ra->outdir && write_output(ra->outdir, name, &t.arrays[i]->t)) goto done;
    if (!ra->ninputs || !ra->outdir) print_summary(name, &t.arrays[i]->t);
  }
  rc = 0;
done:
  for (int i = 0; i < n; i++) tvs_ndarray_free(t.arrays[i]);
  free(t.arrays);
  free(t.args);
  free(t.is_output);
  drv_bindings_free(&t.b);
  return rc;
}
/* ------------------------------------------------------------ graph function */

/* The arguments of one graph function run. */
typedef struct RelaxRun {
  const RunArgs *ra;
  const RxFunc *f;
  int n;                 /* params */
  InterpArg *args;
  TvsNDArray **arrays;
  DrvBindings b;         /* the function's symbolic vars known so far */
  uint64_t rng;
} RelaxRun;

/* Given inputs (every --input must name a param); bind symbolic vars from
 * their shapes, then --dim NAME=VALUE by name. */
static int bind_relax_given(RelaxRun *x, const char *fname) {
  const RunArgs *ra = x->ra;
  for (int i = 0; i < ra->ninputs; i++) {
    bool found = false;
    for (int k = 0; k < x->n; k++) found |= !strcmp(x->f->params[k]->var.name, ra->inputs[i].name);
    if (!found) {
      fprintf(stderr, "tvs run: error: function '%s' has no parameter '%s'\n", fname, ra->inputs[i].name);
      return -1;
    }
  }
  for (int i = 0; i < x->n; i++) {
    const RxExpr *p = x->f->params[i];
    const char *val = find_named(ra->inputs, ra->ninputs, p->var.name);
    const RxSInfo *si = p->sinfo;
    if (!val) continue;
    if (!(x->arrays[i] = load_input(p->var.name, val))) return -1;
    x->args[i].tensor = &x->arrays[i]->t;
    if (si && si->kind == RX_SI_TENSOR && si->shape && si->ndim == x->arrays[i]->t.ndim)
      for (int k = 0; k < si->ndim; k++)
        if (si->shape[k]->kind == TIR_VAR) drv_bind(&x->b, si->shape[k]->var, x->arrays[i]->t.shape[k]);
  }
  for (int k = 0; k < ra->ndims; k++) {
    int64_t iv;
    if (parse_dim(&ra->dims[k], &iv)) return -1;
    for (int j = 0; j < x->f->nsym_vars; j++)
      if (!strcmp(x->f->sym_vars[j]->name, ra->dims[k].name)) drv_bind(&x->b, x->f->sym_vars[j], iv);
  }
  return 0;
}

/* A param without --input: random data of its static shape and dtype. */
static int alloc_relax_param(RelaxRun *x, int i) {
  const RxExpr *p = x->f->params[i];
  const RxSInfo *si = p->sinfo;
  if (!si || si->kind != RX_SI_TENSOR || !si->shape || dt_is_void(si->dtype)) {
    fprintf(stderr, "tvs run: error: parameter '%s' needs --input (its shape or dtype is not static)\n", p->var.name);
    return -1;
  }
  if (x->ra->ninputs) {
    if (x->ra->params)
      fprintf(stderr, "tvs run: error: missing --input for parameter '%s' (--params %s has no '%s')\n",
              p->var.name, x->ra->params, p->var.name);
    else fprintf(stderr, "tvs run: error: missing --input for parameter '%s'\n", p->var.name);
    return -1;
  }
  int64_t shape[TVS_MAX_NDIM];
  if (si->ndim > TVS_MAX_NDIM) return -1;
  for (int k = 0; k < si->ndim; k++)
    if (!drv_eval_shape(si->shape[k], &x->b, &shape[k]) || shape[k] < 0) {
      fprintf(stderr, "tvs run: error: parameter '%s': dimension %d is symbolic; use --dim NAME=VALUE or --input\n", p->var.name, k);
      return -1;
    }
  x->arrays[i] = tvs_ndarray_empty(si->ndim, shape, drv_dl_dtype(si->dtype));
  if (!x->arrays[i]) return -1;
  tvs_ndarray_fill_random(&x->arrays[i]->t, &x->rng);
  x->args[i].tensor = &x->arrays[i]->t;
  return 0;
}

/* Steps through the graph function on the interpreter, its call_tir
 * prim_funcs JIT-compiled on the cpu target. */
static int execute_relax(const IrModule *m, const char *fname, RelaxRun *x, DLTensor ***results, int *nresults,
                         DiagCtx *d) {
  TVSModule *native = NULL;
  if (!strcmp(x->ra->target, "cpu")) {
    CgOptions opt = run_cg_options(x->ra);
    native = cg_compile_module(m, &opt, d);
    diag_flush(d);
    if (!native) return -1;
  }
  int rc = interp_run_relax_with(m, fname, x->args, x->n, results, nresults, d,
                                 native ? drv_call_native_tir : NULL, native);
  tvs_module_free(native);
  diag_flush(d);
  return rc;
}

/* Writes (--output) and summarizes a graph function's results. */
static int emit_relax_results(const RunArgs *ra, DLTensor **res, int n) {
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char name[32];
    if (n == 1) snprintf(name, sizeof name, "output");
    else snprintf(name, sizeof name, "output_%d", i);
    if (ra->outdir && write_output(ra->outdir, name, res[i])) rc = 1;
    if (!ra->ninputs || !ra->outdir) print_summary(name, res[i]);
  }
  return rc;
}

/* --memory-plan: the static memory plan of the legalized graph, on stdout. */
static void print_memory_plan(const DrvGraph *g) {
  RxMemPlan plan;
  if (rx_memory_plan(g->f, &plan)) {
    printf("memory plan of '%s': none (the graph is not a sequence of call_tir bindings)\n", g->fname);
    return;
  }
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "memory plan of '%s' (live ranges in binding indices; outputs are the caller's):\n", g->fname);
  rx_memory_plan_print(&sb, &plan);
  fputs(sb.data, stdout);
  sb_free(&sb);
  rx_memory_plan_free(&plan);
}

/* --profile: per-kernel medians, then the whole compiled graph. */
static int profile_graph(DrvGraph *g, RelaxRun *x, DLTensor **outs, int nouts, DiagCtx *d) {
  DrvGraphProfile p;
  int reps = x->ra->repeat > 0 ? x->ra->repeat : 20;
  int rc = drv_graph_profile(g, x->args, x->n, outs, nouts, reps, &p, d);
  diag_flush(d);
  if (rc) {
    if (!d->nerr) fprintf(stderr, "tvs run: error: %s\n", tvs_get_last_error());
  } else {
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "profile of '%s' (%d runs; kernels timed one by one, the graph stepped through):\n", g->fname,
              reps);
    drv_graph_profile_print(&sb, &p);
    fputs(sb.data, stdout);
    sb_free(&sb);
  }
  drv_graph_profile_free(&p);
  return rc;
}

typedef struct GraphCall {
  DrvGraph *g;
  DLTensor **ins, **outs;
  int nins, nouts;
} GraphCall;

static int graph_call_once(void *ctx) {
  GraphCall *c = ctx;
  if (drv_graph_call(c->g, c->ins, c->nins, c->outs, c->nouts) == 0) return 0;
  fprintf(stderr, "tvs run: error: %s\n", tvs_get_last_error());
  return -1;
}

/* --time on the compiled graph: the same line as for a prim_func. */
static int time_graph(GraphCall *c, const RunArgs *ra) {
  DrvTimeOptions topt = {ra->repeat, 1000.0, 1, 0};
  DrvTiming tm;
  if (drv_time_calls(graph_call_once, c, &topt, &tm)) return -1;
  double flops = drv_graph_flops(c->g);
  printf("%s on %s (whole graph, native): median %.4f ms over %d runs (min %.4f, max %.4f)", c->g->fname, ra->target,
         tm.median_ms, tm.reps, tm.min_ms, tm.max_ms);
  if (flops > 0 && tm.median_ms > 0) printf(", %.3g FLOP, %.2f GFLOP/s", flops, flops / (tm.median_ms * 1e6));
  printf(", compiled in %.1f ms\n", c->g->compile_ms);
  return 0;
}

/* The compiled graph called once on the inputs (then --time, --profile). */
static int run_relax_native(DrvGraph *g, RelaxRun *x, DiagCtx *d) {
  const RunArgs *ra = x->ra;
  int nouts = g->info->num_outputs, rc = -1;
  TvsNDArray **outs = xcalloc((size_t)(nouts ? nouts : 1), sizeof *outs);
  DLTensor **ins = xcalloc((size_t)(x->n ? x->n : 1), sizeof *ins);
  DLTensor **od = xcalloc((size_t)(nouts ? nouts : 1), sizeof *od);
  char err[256];
  GraphCall c = {g, ins, od, x->n, nouts};
  if (g->info->num_params != x->n + nouts) {
    fprintf(stderr, "tvs run: error: the compiled '%s' takes %d tensors, not %d\n", g->fname, g->info->num_params,
            x->n + nouts);
    goto done;
  }
  if (drv_graph_alloc_outputs(g, &x->b, outs, nouts, err, sizeof err)) {
    fprintf(stderr, "tvs run: error: %s\n", err);
    goto done;
  }
  for (int i = 0; i < x->n; i++) ins[i] = x->args[i].tensor;
  for (int k = 0; k < nouts; k++) od[k] = &outs[k]->t;
  if (graph_call_once(&c) || (ra->time && time_graph(&c, ra)) || (ra->profile && profile_graph(g, x, od, nouts, d)))
    goto done;
  rc = emit_relax_results(ra, od, nouts);
done:
  for (int k = 0; k < nouts; k++) tvs_ndarray_free(outs[k]);
  free(outs);
  free(ins);
  free(od);
  return rc ? -1 : 0;
}

/* On the interpreter (--target interp, or a graph the compiler does not take). */
static int run_relax_interp(const IrModule *m, const char *fname, RelaxRun *x, DiagCtx *d) {
  DLTensor **results = NULL;
  int nresults = 0, rc = -1;
  if (execute_relax(m, fname, x, &results, &nresults, d) == 0) rc = emit_relax_results(x->ra, results, nresults);
  for (int i = 0; i < nresults; i++) interp_free_result(results[i]);
  free(results);
  return rc ? -1 : 0;
}

static bool gpu_target(const char *t) { return !strcmp(t, "cuda") || !strcmp(t, "opencl"); }

/* --target cuda|opencl: the graph stepped through on the host, its kernels
 * on the device (driver/gpu_graph.c); --time times whole runs. */
static int run_relax_gpu(const IrModule *m, const char *fname, RelaxRun *x, DiagCtx *d) {
  DrvGpuGraph gg;
  char err[1024] = "";
  CgOptions opt = cg_options_default();
  int rc = drv_gpu_graph_open_for(&gg, m, fname, x->ra->target, &opt, d, err, sizeof err);
  diag_flush(d);
  if (!rc && !gg.plan)
    fprintf(stderr, "tvs run: note: '%s' is stepped through on the host, each kernel's tensors copied in and out: %s\n",
            fname, gg.why);
  DLTensor **results = NULL;
  int nresults = 0;
  if (!rc) rc = drv_gpu_graph_run(&gg, fname, x->args, x->n, &results, &nresults, d);
  diag_flush(d);
  if (rc == -1 && err[0]) fprintf(stderr, "tvs run: error: %s\n", err);
  if (!rc && x->ra->time) {
    int reps = x->ra->repeat > 0 ? x->ra->repeat : 5;
    double *t = xcalloc((size_t)reps, sizeof *t);
    for (int i = 0; i < reps && !rc; i++) {
      DLTensor **r2 = NULL;
      int n2 = 0;
      double t0 = drv_now_ms();
      rc = drv_gpu_graph_run(&gg, fname, x->args, x->n, &r2, &n2, d);
      t[i] = drv_now_ms() - t0;
      for (int k = 0; k < n2; k++) interp_free_result(r2[k]);
      free(r2);
    }
    diag_flush(d);
    if (!rc)
      printf("%s on %s (%s): median %.4f ms over %d runs (%s)\n", fname, x->ra->target,
             gg.gpu.api->device_name(gg.gpu.dev), drv_median(t, reps), reps,
             gg.plan ? "whole graph on the device, inputs and results copied" : "stepped on the host, every copy");
    free(t);
  }
  if (!rc) rc = emit_relax_results(x->ra, results, nresults);
  for (int i = 0; i < nresults; i++) interp_free_result(results[i]);
  free(results);
  drv_gpu_graph_close(&gg);
  return rc ? -1 : 0;
}

/* Native when the target is cpu and the graph compiles whole; else the
 * interpreter, with a note saying why.  0 or -1 (reported). */
static int execute_relax_any(const IrModule *m, const char *fname, RelaxRun *x, DiagCtx *d) {
  const RunArgs *ra = x->ra;
  if (gpu_target(ra->target) && !ra->memory_plan && !ra->profile) return run_relax_gpu(m, fname, x, d);
  if (!strcmp(ra->target, "npu")) { /* its NPU kernels on the simulator, the rest interpreted */
    DLTensor **res = NULL;
    int nres = 0;
    int nrc = tool_run_npu_graph(m, fname, x->args, x->n, ra->npu_config, ra->npu_vthreads, &res, &nres, d);
    if (nrc == 0) nrc = emit_relax_results(ra, res, nres);
    for (int i = 0; i < nres; i++) interp_free_result(res[i]);
    free(res);
    return nrc ? -1 : 0;
  }
  bool cpu = !strcmp(ra->target, "cpu");
  DrvGraph g;
  char why[256] = "";
  DrvGraphStatus st = DRV_GRAPH_FALLBACK;
  int rc = -1;
  if (cpu || ra->memory_plan) {
    CgOptions opt = run_cg_options(ra);
    st = drv_graph_prepare(&g, m, fname, &opt, cpu, d, why, sizeof why);
    diag_flush(d);
    if (st == DRV_GRAPH_ERROR) goto done;
    if (ra->memory_plan && st == DRV_GRAPH_OK) print_memory_plan(&g);
    else if (ra->memory_plan) printf("memory plan of '%s': none (%s)\n", fname, why);
  }
  if (cpu && st == DRV_GRAPH_OK) {
    rc = run_relax_native(&g, x, d);
    goto done;
  }
  if (ra->profile) {
    fprintf(stderr, "tvs run: error: --profile times the compiled graph, but '%s' %s%s\n", fname,
            cpu ? "does not compile: " : "runs on the interpreter (--target interp)", cpu ? why : "");
    goto done;
  }
  if (cpu) fprintf(stderr, "tvs run: note: '%s' runs on the interpreter, its prim_funcs natively: %s\n", fname, why);
  if (ra->time) fprintf(stderr, "tvs run: note: --time is not measured for an interpreted graph\n");
  rc = run_relax_interp(m, fname, x, d);
done:
  if (cpu || ra->memory_plan) drv_graph_free(&g);
  return rc;
}

static int run_relax(const IrModule *m, const char *fname, const RxFunc *f, const RunArgs *ra,
                     DiagCtx *d) {
  int n = f->nparams, rc = 1;
  RelaxRun x = {ra, f, n, xcalloc((size_t)(n ? n : 1), sizeof *x.args),
                xcalloc((size_t)(n ? n : 1), sizeof *x.arrays), {NULL, 0, 0}, ra->seed};
  if (bind_relax_given(&x, fname)) goto done;
  for (int i = 0; i < n; i++)
    if (!x.arrays[i] && alloc_relax_param(&x, i)) goto done;
  if (execute_relax_any(m, fname, &x, d) == 0) rc = 0;
done:
  for (int i = 0; i < n; i++) tvs_ndarray_free(x.arrays[i]);
  free(x.arrays);
  free(x.args);
  drv_bindings_free(&x.b);
  return rc;
}

/* ------------------------------------------------------ compiled module */

/* The arguments of one call of a compiled module's function. */
typedef struct SoRun {
  const RunArgs *ra;
  const TVSFuncInfo *info;
  int n, nouts;
  TVSValue *vals;
  int *codes;
  TvsNDArray **arrays;
  const char *syms[64];  /* symbolic dims bound so far (--dim, then inputs) */
  int64_t symv[64];
  int nsyms;
  uint64_t rng;
  TvsNpz *npz;           /* --params: arrays given by name, or NULL */
} SoRun;

/* Loads the .so and finds the function to call; NULL (reported) if none. */
static TVSFunction *so_load_function(const RunArgs *ra, TVSModule **mod_out, const char **fname_out) {
  char *path = strchr(ra->file, '/') ? xstrdup(ra->file) : xasprintf("./%s", ra->file); /* not a search */
  TVSModule *mod = tvs_module_load(path);
  free(path);
  *mod_out = mod;
  if (!mod) {
    fprintf(stderr, "tvs run: error: %s\n", tvs_get_last_error());
    return NULL;
  }
  const TVSModuleMetadata *md = tvs_module_metadata(mod);
  const char *fname = ra->func;
  if (!fname && md && md->num_funcs == 1) fname = md->funcs[0].name;
  if (!fname) fname = "main";
  *fname_out = fname;
  const TVSFuncInfo *info = tvs_module_func_info(mod, fname);
  TVSFunction *fn = info ? tvs_module_get_function(mod, fname) : NULL;
  if (!fn)
    fprintf(stderr, "tvs run: error: module '%s' has no function '%s'%s\n", ra->file, fname,
            ra->func ? "" : "; choose one with --func");
  return fn;
}

/* Scalar param i: a number from --input. */
static int so_bind_scalar(SoRun *s, int i, const char *val) {
  const TVSParamInfo *p = &s->info->params[i];
  int64_t iv;
  double fv;
  bool isf;
  if (!val || !parse_scalar(val, &iv, &fv, &isf)) {
    fprintf(stderr, "tvs run: error: scalar parameter '%s' needs a number (--input %s=VALUE)\n", p->name, p->name);
    return -1;
  }
  s->codes[i] = p->type_code;
  if (p->type_code == TVS_FLOAT) s->vals[i].v_float64 = fv;
  else s->vals[i].v_int64 = iv;
  return 0;
}

/* Tensor param i without --input: allocated with the metadata's shape (its
 * symbolic dims bound); random when a read-only input in random mode. */
static int so_alloc_tensor(SoRun *s, int i) {
  const TVSParamInfo *p = &s->info->params[i];
  int64_t shape[TVS_MAX_NDIM];
  for (int d = 0; d < p->ndim && d < TVS_MAX_NDIM; d++) {
    shape[d] = p->shape[d];
    for (int k = 0; shape[d] < 0 && p->sym_dims && p->sym_dims[d] && k < s->nsyms; k++)
      if (!strcmp(s->syms[k], p->sym_dims[d])) shape[d] = s->symv[k];
    if (shape[d] < 0) {
      fprintf(stderr, "tvs run: error: cannot allocate '%s': dimension %d is symbolic; pass an input "
                      "that binds it or --dim NAME=VALUE\n", p->name, d);
      return -1;
    }
  }
  if (p->ndim > TVS_MAX_NDIM || !(s->arrays[i] = tvs_ndarray_empty(p->ndim, shape, p->dtype))) {
    fprintf(stderr, "tvs run: error: cannot allocate '%s'\n", p->name);
    return -1;
  }
  if (s->ra->ninputs == 0 && i < s->n - s->nouts) tvs_ndarray_fill_random(&s->arrays[i]->t, &s->rng);
  return 0;
}

/* Moves the array called name out of z (the run frees it). */
static TvsNDArray *so_take_weight(TvsNpz *z, const char *name) {
  for (int i = 0; i < z->count; i++)
    if (!strcmp(z->entries[i].name, name)) {
      TvsNDArray *a = z->entries[i].array;
      z->entries[i].array = NULL;
      return a;
    }
  return NULL;
}

/* --params on a .so: the arrays are arguments by name (each must name a
 * tensor parameter; the packed entry checks dtypes and shapes).  0 or -1. */
static int so_load_params(SoRun *s, const char *fname) {
  const RunArgs *ra = s->ra;
  if (!ra->params) return 0;
  char err[512];
  if (!(s->npz = tvs_npz_load(ra->params, err, sizeof err))) {
    size_t pl = strlen(ra->params);
    fprintf(stderr, "tvs run: error: --params %s: %s\n", ra->params,
            !strncmp(err, ra->params, pl) && err[pl] == ':' ? err + pl + 2 : err);
    return -1;
  }
  for (int j = 0; j < s->npz->count; j++) {
    const char *nm = s->npz->entries[j].name;
    bool found = false;
    for (int k = 0; k < s->n - s->nouts && !found; k++)
      found = s->info->params[k].type_code == TVS_TENSOR && !strcmp(s->info->params[k].name, nm);
    if (!found || find_named(ra->inputs, ra->ninputs, nm)) {
      if (found) fprintf(stderr, "tvs run: error: parameter '%s' is given both by --input and by --params %s\n", nm,
                         ra->params);
      else fprintf(stderr, "tvs run: error: --params %s: '%s' is not an input parameter of '%s'\n", ra->params, nm,
                   fname);
      return -1;
    }
  }
  return 0;
}

/* Builds every argument: scalars and given inputs first (they bind the
 * symbolic dims), then the other tensors. */
static int so_bind_params(SoRun *s, const char *fname) {
  const RunArgs *ra = s->ra;
  for (int i = 0; i < ra->ninputs; i++) {
    bool found = false;
    for (int k = 0; k < s->n; k++) found |= !strcmp(s->info->params[k].name, ra->inputs[i].name);
    if (!found) {
      fprintf(stderr, "tvs run: error: function '%s' has no parameter '%s'\n", fname, ra->inputs[i].name);
      return -1;
    }
  }
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < s->n; i++) {
      const TVSParamInfo *p = &s->info->params[i];
      const char *val = find_named(ra->inputs, ra->ninputs, p->name);
      if (p->type_code != TVS_TENSOR) {
        if (!pass && so_bind_scalar(s, i, val)) return -1;
        continue;
      }
      if (s->arrays[i]) continue; /* a weight taken in pass 0 */
      TvsNDArray *w = !val && s->npz ? tvs_npz_find(s->npz, p->name) : NULL;
      if ((pass == 0) != (val || w)) continue;
      if (val || w) {
        if (w) s->arrays[i] = so_take_weight(s->npz, p->name);
        else if (!(s->arrays[i] = load_input(p->name, val))) return -1;
        for (int d = 0; d < p->ndim && d < s->arrays[i]->t.ndim; d++)
          if (p->shape[d] < 0 && p->sym_dims && p->sym_dims[d] && s->nsyms < 64) {
            s->syms[s->nsyms] = p->sym_dims[d];
            s->symv[s->nsyms++] = s->arrays[i]->t.shape[d];
          }
      } else if (so_alloc_tensor(s, i)) {
        return -1;
      }
      s->codes[i] = TVS_TENSOR;
      s->vals[i].v_handle = &s->arrays[i]->t;
    }
  return 0;
}

typedef struct SoCall {
  TVSFunction *fn;
  SoRun *s;
} SoCall;

static int so_call(void *ctx) {
  SoCall *c = ctx;
  TVSValue ret;
  int ret_code = TVS_NULL;
  if (tvs_func_call(c->fn, c->s->vals, c->s->codes, c->s->n, &ret, &ret_code) != 0) {
    fprintf(stderr, "tvs run: error: %s\n", tvs_get_last_error());
    return -1;
  }
  return 0;
}

/* Writes and summarizes the outputs: a graph function's last num_outputs
 * params; for prim_funcs the tensors given no --input (the last one
 * without any). */
static int so_write_outputs(const SoRun *s) {
  const RunArgs *ra = s->ra;
  int rc = 0;
  for (int i = 0; i < s->n; i++) {
    const TVSParamInfo *p = &s->info->params[i];
    bool out = p->type_code == TVS_TENSOR &&
               (s->info->num_outputs > 0 ? i >= s->n - s->nouts
                : ra->ninputs            ? !find_named(ra->inputs, ra->ninputs, p->name)
                                         : i == s->n - 1);
    if (!out) continue;
    if (ra->outdir && write_output(ra->outdir, p->name, &s->arrays[i]->t)) rc = 1;
    if (!ra->ninputs || !ra->outdir) print_summary(p->name, &s->arrays[i]->t);
  }
  return rc;
}

/* `tvs run k.so`: a module compiled by tvsc, called through its packed entry
 * with tensors built from the module's metadata (dtypes, shapes; symbolic
 * dims bound from the given inputs or --dim).  Tensors without --input are
 * outputs (allocated zeroed, written to DIR/NAME.npy); with no --input at all,
 * every tensor but the last gets random values and the last is the output.
 * A graph function's outputs are its last num_outputs params (metadata). */
static int run_so(const RunArgs *ra) {
  TVSModule *mod;
  const char *fname = NULL;
  TVSFunction *fn = so_load_function(ra, &mod, &fname);
  if (!fn) {
    tvs_module_free(mod);
    return 1;
  }
  const TVSFuncInfo *info = tvs_module_func_info(mod, fname);
  int n = info->num_params, rc = 1;
  SoRun s = {.ra = ra, .info = info, .n = n, .rng = ra->seed};
  /* graph functions say how many trailing params are outputs */
  s.nouts = info->num_outputs > 0 && info->num_outputs <= n ? info->num_outputs : 1;
  s.vals = xcalloc((size_t)(n ? n : 1), sizeof *s.vals);
  s.codes = xcalloc((size_t)(n ? n : 1), sizeof *s.codes);
  s.arrays = xcalloc((size_t)(n ? n : 1), sizeof *s.arrays);
  for (int k = 0; k < ra->ndims && s.nsyms < 64; k++) {
    s.syms[s.nsyms] = ra->dims[k].name;
    s.symv[s.nsyms++] = strtoll(ra->dims[k].value, NULL, 0);
  }
  SoCall call = {fn, &s};
  DrvTimeOptions topt = {ra->repeat > 0 ? ra->repeat : 100, 0, 0, 0};
  DrvTiming tm;
  if (so_load_params(&s, fname) || so_bind_params(&s, fname)) goto done;
  if (!ra->time && so_call(&call)) goto done;
  if (ra->time && drv_time_calls(so_call, &call, &topt, &tm)) goto done;
  if (ra->time) { /* the same line as for a .tvs file; the FLOPs come from the metadata */
    printf("%s in %s: median %.4f ms over %d runs (min %.4f, max %.4f)", fname, ra->file, tm.median_ms,
           tm.reps, tm.min_ms, tm.max_ms);
    if (info->flops > 0 && tm.median_ms > 0)
      printf(", %.3g FLOP, %.2f GFLOP/s", info->flops, info->flops / (tm.median_ms * 1e6));
    printf("\n");
  }
  rc = so_write_outputs(&s);
done:
  for (int i = 0; i < n; i++) tvs_ndarray_free(s.arrays[i]);
  free(s.arrays);
  free(s.vals);
  free(s.codes);
  tvs_npz_free(s.npz);
  tvs_func_release(fn);
  tvs_module_free(mod);
  return rc;
}
/* ---------------------------------------------------------------- command */

static int split_named(const char *opt, const char *arg, NamedValue *out) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || !eq[1])
    return tool_usage_error("run", "%s expects NAME=VALUE, got '%s'", opt, arg);
  out->name = xstrndup(arg, (size_t)(eq - arg));
  out->value = eq + 1;
  return 0;
}

enum { RUN_FUNC, RUN_INPUT, RUN_PARAMS, RUN_OUTPUT, RUN_SEED, RUN_DIM, RUN_TARGET, RUN_REPEAT, RUN_TIME,
       RUN_PROFILE, RUN_MEMORY_PLAN, RUN_FAST_MATH, RUN_CONVERT_LAYOUT, RUN_FP_CONTRACT, RUN_BOUNDS_CHECK, RUN_NO_BOUNDS_CHECK, RUN_SCHEDULE, RUN_CHECK_RACES, RUN_TUNING_DB, RUN_NPU_CONFIG, RUN_NPU_VTHREADS, RUN_HELP };

/* The options of `tvs run`: the parser and the --help list. */
static const ToolOption run_options[] = {
    {RUN_FUNC, "--func", NULL, "F", 0, "the function to run (default: the only one, or main)"},
    {RUN_INPUT, "--input", NULL, "NAME=x.npy|NAME=VALUE", OPT_REPEAT,
     "a parameter's value: a .npy file or a scalar"},
    {RUN_PARAMS, "--params", NULL, "w.npz", 0,
     "weights: graph-function parameters named like the arrays of a .npz\n"
     "are bound to them (dtype and shape checked); also --input w.npz"},
    {RUN_OUTPUT, "--output", "-o", "DIR", 0, "write the outputs to DIR/NAME.npy (created if missing)"},
    {RUN_SEED, "--seed", NULL, "N", 0, "seed of the random inputs (default 0)"},
    {RUN_DIM, "--dim", NULL, "NAME=VALUE", OPT_REPEAT, "bind a symbolic size variable"},
    {RUN_TARGET, "--target", NULL, "cpu|interp|cuda|opencl|npu", 0,
     "run natively (cpu, the default), interpreted, on a GPU or on the\n"
     "simulated NPU (prim_funcs)"},
    {RUN_NPU_CONFIG, "--npu-config", NULL, "FILE", 0, "npu: the machine's JSON configuration (docs/npu.md)"},
    {RUN_NPU_VTHREADS, "--npu-vthreads", NULL, "N", 0, "npu: virtual threads (default: the schedule's vthread loop, or 1)"},
    {RUN_TIME, "--time", NULL, NULL, 0, "print the median time and GFLOP/s"},
    {RUN_PROFILE, "--profile", NULL, NULL, 0,
     "graph function: per-kernel table (prim_func, output shape, median ms,\n"
     "% of the kernels' sum, GFLOP/s), then the whole compiled graph's time"},
    {RUN_MEMORY_PLAN, "--memory-plan", NULL, NULL, 0,
     "graph function: print its static memory plan (tensor, shape, bytes,\n"
     "workspace offset, live range; planned peak and unplanned total)"},
    {RUN_REPEAT, "--repeat", NULL, "N", 0, "timed runs for --time (default: adaptive) and --profile (default 20)"},
    {RUN_FAST_MATH, "--fast-math", NULL, NULL, 0, "allow reassociation and contraction, exp inline (cpu target)"},
    {RUN_CONVERT_LAYOUT, "--convert-layout", NULL, NULL, 0, "run the convert-layout stage (conv2d to NCHW16c)"},
    {RUN_FP_CONTRACT, "--fp-contract", NULL, "fast|on|off", 0,
     "multiply-add contraction into FMA: fast (the default, as TVM),\n"
     "on (the same: within an expression), off (products rounded: as the interpreter)"},
    {RUN_BOUNDS_CHECK, "--bounds-check", NULL, NULL, 0,
     "cpu target: check every buffer access and integer division in the\n"
     "generated code (the interpreter's errors instead of a crash); the\n"
     "default without --input, --time and --profile"},
    {RUN_NO_BOUNDS_CHECK, "--no-bounds-check", NULL, NULL, 0, "cpu target: the unchecked fast path"},
    {RUN_SCHEDULE, "--schedule", NULL, "FILE", 0, "apply a schedule script first"},
    {RUN_CHECK_RACES, "--check-races", NULL, "PASS", 0,
     "GPU-scheduled prim_func on the interpreter with threads emulated,\n"
     "lowered through the GPU pipeline up to PASS (thread-storage-sync:\n"
     "what runs on a device): reads of shared memory another thread wrote\n"
     "without a barrier between are errors (no outputs: emulated threads\n"
     "run one by one, so the values are not the device's)"},
    {RUN_TUNING_DB, "--tuning-db", NULL, "FILE", 0, "apply the best schedule `tvs tune` recorded for each prim_func"},
    {RUN_HELP, "--help", "-h", NULL, 0, "this help"},
    {0, NULL, NULL, NULL, 0, NULL},
};

static void print_run_help(void) {
  tool_print_help(
      "usage: tvs run FILE [--func F] [--input NAME=x.npy|NAME=VALUE ...] [--params w.npz]\n"
      "                [--output DIR] [--seed N] [--dim NAME=VALUE ...]\n"
      "                [--target cpu|interp|cuda|opencl|npu]\n"
      "                [--time [--repeat N]] [--profile] [--memory-plan] [--fast-math]\n"
      "                [--[no-]bounds-check] [--schedule FILE]\n"
      "Runs a prim_func (destination-passing: params without --input are allocated\n"
      "zeroed and written to DIR/NAME.npy) or a graph function (its return value is\n"
      "written to DIR/output.npy). With no --input, read-only inputs are random\n"
      "(seeded by --seed, default 0); a summary of each output is printed unless\n"
      "--output writes it (missing directories are created).\n"
      "--target cpu (the default) compiles with LLVM and runs natively: a graph\n"
      "function is legalized and compiled whole (one call, intermediates in a\n"
      "statically planned workspace); a graph the compiler does not take (an\n"
      "operator without legalization, if/else, match_cast) is stepped through\n"
      "by the interpreter with its prim_funcs native (a note says why).\n"
      "--target interp uses the reference interpreter. --target cuda|opencl\n"
      "lowers a GPU-scheduled prim_func (loops bound to blockIdx/threadIdx) and\n"
      "runs it on the first device (docs/gpu.md). --target npu runs int8 matmul\n"
      "prim_funcs (or a graph's legalized ones) on the simulated NPU, checks them\n"
      "against the interpreter and prints the cycle report (docs/npu.md); FILE.npu\n"
      "is a hand-written instruction stream. --time prints the median\n"
      "time over repeated runs after a warm-up, and GFLOP/s counted from the IR.\n"
      "--params w.npz binds weights: graph-function parameters named like its\n"
      "arrays become constants (give the rest with --input).\n"
      "--schedule FILE applies a schedule script first.\n"
      "FILE may be a .so built by tvsc: its packed entry is called with tensors\n"
      "shaped by the module's metadata (native only: no --target interp or --schedule).\n",
      run_options);
}

/* Sets option `id` (a RUN_* with a value) to val; 0, or 2 on a usage error
 * (printed). */
static int set_run_option(RunArgs *ra, int id, const char *val) {
  switch (id) {
    case RUN_FUNC: ra->func = val; break;
    case RUN_PARAMS: ra->params = val; break;
    case RUN_INPUT:
      if (!strchr(val, '=') && strlen(val) > 4 && !strcmp(val + strlen(val) - 4, ".npz")) { /* --input w.npz */
        ra->params = val;
        break;
      }
      if (ra->ninputs == 64) return tool_usage_error("run", "too many --input options");
      if (split_named("--input", val, &ra->inputs[ra->ninputs])) return 2;
      ra->ninputs++;
      break;
    case RUN_OUTPUT: ra->outdir = val; break;
    case RUN_SEED: {
      char *end;
      errno = 0;
      unsigned long long s = strtoull(val, &end, 0);
      if (!*val || *end || errno) return tool_usage_error("run", "--seed expects an integer, got '%s'", val);
      ra->seed = s;
      break;
    }
    case RUN_DIM:
      if (ra->ndims == 32) return tool_usage_error("run", "too many --dim options");
      if (split_named("--dim", val, &ra->dims[ra->ndims])) return 2;
      ra->ndims++;
      break;
    case RUN_TARGET: ra->target = val; break;
    case RUN_NPU_CONFIG: ra->npu_config = val; break;
    case RUN_NPU_VTHREADS: {
      char *end;
      long v = strtol(val, &end, 10);
      if (!*val || *end || v < 1 || v > 4) return tool_usage_error("run", "--npu-vthreads takes 1 to 4, not '%s'", val);
      ra->npu_vthreads = (int)v;
      break;
    }
    case RUN_CHECK_RACES:
      if (tir_gpu_pipeline_index(val) < 0)
        return tool_usage_error("run", "--check-races needs a GPU lowering pass (e.g. thread-storage-sync), not '%s'", val);
      ra->races = val;
      break;
    case RUN_REPEAT: {
      char *end;
      long v = strtol(val, &end, 10);
      if (!*val || *end || v < 1 || v > 1000000)
        return tool_usage_error("run", "--repeat expects a positive integer, got '%s'", val);
      ra->repeat = (int)v;
      break;
    }
  }
  return 0;
}

/* Parses one argument at argv[*i] that is not a common option: 0 when
 * consumed, 1 for --help (printed), 2 on a usage error (printed). */
static int parse_run_arg(RunArgs *ra, const char **sched_path, int argc, char **argv, int *i) {
  const char *a = argv[*i], *val, *spelled;
  bool missing;
  const ToolOption *o = opt_match(run_options, argc, argv, i, &val, &spelled, &missing);
  if (o) {
    switch (o->id) {
      case RUN_HELP: print_run_help(); return 1;
      case RUN_TIME: ra->time = true; return 0;
      case RUN_FAST_MATH: ra->fast_math = true; return 0;
      case RUN_CONVERT_LAYOUT: rx_set_convert_layout(true); return 0;
      case RUN_FP_CONTRACT:
        if (missing || cg_parse_fp_contract(val, &ra->fp_contract))
          return tool_usage_error("run", "--fp-contract expects fast, on or off, got '%s'", missing ? "" : val);
        return 0;
      case RUN_BOUNDS_CHECK: ra->bounds_check = 1; return 0;
      case RUN_NO_BOUNDS_CHECK: ra->bounds_check = 0; return 0;
      case RUN_PROFILE: ra->profile = true; return 0;
      case RUN_MEMORY_PLAN: ra->memory_plan = true; return 0;
      case RUN_SCHEDULE:
        if (missing) return tool_usage_error("run", "--schedule needs a file");
        *sched_path = val;
        return 0;
      case RUN_TUNING_DB:
        if (missing) return tool_usage_error("run", "--tuning-db needs a file");
        ra->tuning_db = val;
        return 0;
      default:
        if (missing) return tool_usage_error("run", "%s needs a value", spelled);
        return set_run_option(ra, o->id, val);
    }
  }
  if (a[0] == '-' && a[1]) return tool_usage_error("run", "unknown option '%s'", a);
  if (ra->file) return tool_usage_error("run", "more than one input file ('%s' and '%s')", ra->file, a);
  ra->file = a;
  return 0;
}

/* Creates dir and the directories above it that are missing (mkdir -p). */
static int make_dirs(const char *dir) {
  char *p = xstrdup(dir);
  int rc = 0;
  for (char *q = p + 1; ; q++) {
    if (*q != '/' && *q != '\0') continue;
    char c = *q;
    *q = '\0';
    struct stat st;
    if (stat(p, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        rc = -1;
        break;
      }
    } else if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      rc = -1;
      break;
    }
    *q = c;
    if (!c) break;
  }
  free(p);
  return rc;
}

static bool is_so_path(const char *file) {
  size_t n = strlen(file);
  return n > 3 && !strcmp(file + n - 3, ".so");
}

/* Checks the parsed command line and creates the output directory. */
static int check_run_args(const RunArgs *ra, const char *sched_path) {
  if (!ra->file) return tool_usage_error("run", "no input file");
  bool npu = !strcmp(ra->target, "npu");
  if (strcmp(ra->target, "interp") != 0 && strcmp(ra->target, "cpu") != 0 && !tir_is_gpu_target(ra->target) && !npu)
    return tool_usage_error("run", "unknown target '%s' (available: cpu, interp, cuda, opencl, npu)", ra->target);
  if (npu && (is_so_path(ra->file) || ra->profile || ra->memory_plan || ra->time))
    return tool_usage_error("run", "--target npu runs the prim_funcs of a .tvs file and prints cycles (no .so, "
                            "--time, --profile or --memory-plan)");
  if (!npu && (ra->npu_config || ra->npu_vthreads))
    return tool_usage_error("run", "--npu-config and --npu-vthreads go with --target npu");
  if (ra->races && (strcmp(ra->target, "interp") || ra->time))
    return tool_usage_error("run", "--check-races runs on the interpreter: add --target interp (and no --time)");
  if (tir_is_gpu_target(ra->target) && (is_so_path(ra->file) || ra->profile || ra->memory_plan))
    return tool_usage_error("run", "--target %s runs the prim_funcs of a .tvs file (no .so, --profile or "
                            "--memory-plan)", ra->target);
  /* A .so holds native code only: say so rather than ignore what cannot apply. */
  if (is_so_path(ra->file) && !strcmp(ra->target, "interp"))
    return tool_usage_error("run", "--target interp cannot run '%s': a .so holds native code "
                            "(run the .tvs source on the interpreter)", ra->file);
  if (is_so_path(ra->file) && (ra->profile || ra->memory_plan))
    return tool_usage_error("run", "%s needs the graph itself: run the .tvs source", ra->profile ? "--profile" : "--memory-plan");
  if (is_so_path(ra->file) && sched_path)
    return tool_usage_error("run", "--schedule cannot apply to '%s': it is compiled already "
                            "(pass the schedule to tvsc)", ra->file);
  if (ra->outdir) {
    if (make_dirs(ra->outdir) != 0)
      return tool_usage_error("run", "cannot create output directory '%s': %s", ra->outdir, strerror(errno));
  }
  return 0;
}

/* The function to run: --func, the only one, or main; NULL (reported). */
static const IrGlobal *pick_function(const IrModule *m, const RunArgs *ra) {
  const IrGlobal *g = NULL;
  if (ra->func) {
    g = ir_module_lookup(m, ra->func);
    if (!g) fprintf(stderr, "tvs run: error: module has no function '%s'\n", ra->func);
  } else if (m->nfuncs == 0) {
    fprintf(stderr, "tvs run: error: '%s' defines no function to run\n", ra->file);
  } else if (m->nfuncs == 1) {
    g = &m->funcs[0];
  } else if ((g = ir_module_lookup(m, "main")) == NULL) {
    fprintf(stderr, "tvs run: error: the module has %d functions; choose one with --func (", m->nfuncs);
    for (int i = 0; i < m->nfuncs; i++) fprintf(stderr, i ? ", %s" : "%s", m->funcs[i].name);
    fprintf(stderr, ")\n");
  }
  return g;
}

/* --params w.npz: the weights bound into graph function *g (BindParams; *m
 * and *g replaced).  0, or -1 (reported). */
static int bind_weights(IrModule **m, const IrGlobal **g, const RunArgs *ra) {
  if (!ra->params) return 0;
  if ((*g)->kind != IR_FUNC_RELAX) {
    fprintf(stderr, "tvs run: error: --params %s: '%s' is a prim_func; weights bind to the parameters of a "
                    "graph function\n", ra->params, (*g)->name);
    return -1;
  }
  char err[512];
  TvsNpz *z = tvs_npz_load(ra->params, err, sizeof err);
  if (!z) { /* err reads "path: problem" or names the path itself */
    size_t pl = strlen(ra->params);
    const char *why = !strncmp(err, ra->params, pl) && err[pl] == ':' ? err + pl + 2 : err;
    fprintf(stderr, "tvs run: error: --params %s: %s\n", ra->params, why);
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < z->count && !rc; i++)
    if (find_named(ra->inputs, ra->ninputs, z->entries[i].name)) {
      fprintf(stderr, "tvs run: error: parameter '%s' is given both by --input and by --params %s\n",
              z->entries[i].name, ra->params);
      rc = -1;
    }
  const char **names = xcalloc((size_t)(z->count ? z->count : 1), sizeof *names);
  const DLTensor **vals = xcalloc((size_t)(z->count ? z->count : 1), sizeof *vals);
  for (int i = 0; i < z->count; i++) names[i] = z->entries[i].name, vals[i] = &z->entries[i].array->t;
  IrModule *b = rc ? NULL : rx_bind_params(*m, (*g)->name, z->count, names, vals, err, sizeof err);
  if (!rc && !b) fprintf(stderr, "tvs run: error: --params %s: %s\n", ra->params, err);
  if (b) {
    *g = ir_module_lookup(b, (*g)->name);
    ir_module_free(*m);
    *m = b;
  }
  free(names);
  free(vals);
  tvs_npz_free(z);
  return b ? 0 : -1;
}

/* --profile and --memory-plan describe graph functions. */
static int check_graph_only(const IrGlobal *g, const RunArgs *ra) {
  if (g->kind == IR_FUNC_RELAX || (!ra->profile && !ra->memory_plan)) return 0;
  fprintf(stderr, "tvs run: error: %s applies to graph functions; '%s' is a prim_func (--time times it)\n",
          ra->profile ? "--profile" : "--memory-plan", g->name);
  return -1;
}

/* `tvs run FILE.tvs`: load, schedule, pick the function, run it. */
static int run_source(const RunArgs *ra, const ToolCommon *common, const char *sched_path) {
  DiagCtx d;
  tool_diag_init(&d, common);
  SourceFile *src = NULL;
  IrModule *m = tool_load(ra->file, &d, &src);
  int rc = 1;
  if (m) { /* schedule statements in the file itself, then --schedule FILE */
    StrBuf sout;
    sb_init(&sout);
    if (sch_apply_schedules(&m, src, sched_path, &d, &sout)) ir_module_free(m), m = NULL;
    if (m && ra->tuning_db && tune_db_apply(&m, ra->tuning_db, &d) < 0) ir_module_free(m), m = NULL;
    diag_flush(&d);
    fputs(sout.data, stdout);
    sb_free(&sout);
  }
  const IrGlobal *g = m ? pick_function(m, ra) : NULL;
  if (g && (check_graph_only(g, ra) || bind_weights(&m, &g, ra))) g = NULL;
  if (g) rc = g->kind == IR_FUNC_TIR ? run_tir(m, g->name, g->tir, ra, &d) : run_relax(m, g->name, g->rx, ra, &d);
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
  return rc;
}

int cmd_run(int argc, char **argv) {
  ToolCommon common = {DIAG_FORMAT_TEXT, -1};
  RunArgs ra;
  const char *sched_path = NULL; /* --schedule FILE */
  memset(&ra, 0, sizeof ra);
  ra.target = "cpu";
  ra.bounds_check = -1;
  int rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    int r = tool_common_option(&common, argc, argv, &i);
    if (r < 0) rc = 2;
    else if (r == 0) rc = parse_run_arg(&ra, &sched_path, argc, argv, &i);
  }
  if (rc == 1) rc = 0; /* --help */
  else if (!rc && !(rc = check_run_args(&ra, sched_path))) {
    size_t fl = strlen(ra.file);
    if (is_so_path(ra.file)) rc = run_so(&ra); /* compiled by tvsc */
    else if (fl > 4 && !strcmp(ra.file + fl - 4, ".npu")) rc = tool_run_npu_stream(ra.file, ra.npu_config) ? 1 : 0;
    else rc = run_source(&ra, &common, sched_path);
  }
  for (int i = 0; i < ra.ninputs; i++) free((char *)ra.inputs[i].name);
  for (int i = 0; i < ra.ndims; i++) free((char *)ra.dims[i].name);
  return rc;
}
