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
#include <time.h>

#include "codegen/codegen.h"
#include "ir/flops.h"
#include "ir/interp.h"
#include "base/util.h"
#include "runtime/npy.h"
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
} RunArgs;

/* ---------------------------------------------------------------- helpers */

static DLDataType to_dl(DType t) {
  DLDataType d;
  d.lanes = 1;
  d.bits = t.bits;
  switch (t.code) {
    case DT_INT: d.code = kDLInt; break;
    case DT_UINT: d.code = kDLUInt; break;
    case DT_BFLOAT: d.code = kDLBfloat; break;
    case DT_BOOL: d.code = kDLBool; d.bits = 8; break;
    default: d.code = kDLFloat; break;
  }
  return d;
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

/* Known values of size vars while allocating outputs. */
typedef struct Bindings {
  const TirVar *vars[64];
  int64_t vals[64];
  int n;
} Bindings;

static bool lookup_binding(const Bindings *b, const TirVar *v, int64_t *out) {
  for (int i = 0; i < b->n; i++)
    if (b->vars[i] == v) return *out = b->vals[i], true;
  return false;
}

static void add_binding(Bindings *b, const TirVar *v, int64_t val) {
  int64_t old;
  if (lookup_binding(b, v, &old) || b->n == 64) return;
  b->vars[b->n] = v;
  b->vals[b->n++] = val;
}

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Evaluates a shape expression over bound size vars; false when unknown. */
static bool eval_shape(const TirExpr *e, const Bindings *b, int64_t *out) {
  int64_t x, y;
  switch (e->kind) {
    case TIR_INT: *out = e->ival; return true;
    case TIR_VAR: return lookup_binding(b, e->var, out);
    case TIR_CAST: return eval_shape(e->un.a, b, out);
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_FLOORDIV: case TIR_FLOORMOD:
    case TIR_MIN: case TIR_MAX: case TIR_DIV: case TIR_MOD:
      if (!eval_shape(e->bin.a, b, &x) || !eval_shape(e->bin.b, b, &y)) return false;
      switch (e->kind) {
        case TIR_ADD: *out = x + y; return true;
        case TIR_SUB: *out = x - y; return true;
        case TIR_MUL: *out = x * y; return true;
        case TIR_MIN: *out = x < y ? x : y; return true;
        case TIR_MAX: *out = x > y ? x : y; return true;
        default:
          if (y == 0) return false;
          if (e->kind == TIR_DIV) *out = x / y;
          else if (e->kind == TIR_MOD) *out = x % y;
          else if (e->kind == TIR_FLOORDIV) *out = floordiv64(x, y);
          else *out = x - floordiv64(x, y) * y;
          return true;
      }
    default: return false;
  }
}

/* Does any statement in s store to (or declare a write of) buffer data var v? */
static bool stmt_writes(const TirStmt *s, const TirVar *v) {
  if (!s) return false;
  switch (s->kind) {
    case TIR_S_STORE: return s->store.buf->data == v;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++)
        if (stmt_writes(s->seq.stmts[i], v)) return true;
      return false;
    case TIR_S_FOR: return stmt_writes(s->loop.body, v);
    case TIR_S_IF: return stmt_writes(s->ifs.then_s, v) || stmt_writes(s->ifs.else_s, v);
    case TIR_S_LET: return stmt_writes(s->let.body, v);
    case TIR_S_ASSERT: return stmt_writes(s->assrt.body, v);
    case TIR_S_WHILE: return stmt_writes(s->loop_while.body, v);
    case TIR_S_BLOCK_REALIZE: return stmt_writes(s->realize.block, v);
    case TIR_S_BLOCK:
      for (int i = 0; i < s->block.nwrites; i++)
        if (s->block.writes[i].buffer->data == v) return true;
      for (int i = 0; i < s->block.nmatches; i++)
        if (s->block.matches[i].source.buffer->data == v && stmt_writes(s->block.body, s->block.matches[i].buffer->data))
          return true;
      return stmt_writes(s->block.init, v) || stmt_writes(s->block.body, v);
    case TIR_S_ALLOCATE: return stmt_writes(s->alloc.body, v);
    case TIR_S_DECL_BUFFER: return stmt_writes(s->decl.body, v);
    case TIR_S_ATTR: return stmt_writes(s->attr.body, v);
    default: return false;
  }
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

/* ---------------------------------------------------------------- execution */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* One call of the function on the chosen target; 0 or -1 (reported). */
typedef struct Runner {
  const IrModule *m;
  const char *fname;
  InterpArg *args;
  int nargs;
  TVSFunction *fn;     /* cpu: the packed entry; NULL for the interpreter */
  TVSValue *values;
  int *codes;
  DiagCtx *d;
} Runner;

static int run_once(Runner *r) {
  if (!r->fn) {
    int rc = interp_run_tir(r->m, r->fname, r->args, r->nargs, r->d);
    diag_flush(r->d);
    return rc;
  }
  TVSValue ret;
  int ret_code = TVS_NULL;
  if (tvs_func_call(r->fn, r->values, r->codes, r->nargs, &ret, &ret_code) != 0) {
    fprintf(stderr, "tvs run: error: %s\n", tvs_get_last_error());
    return -1;
  }
  return 0;
}

/* Runs (and with --time, times) prim_func fname on ra->target.  The first
 * run produces the outputs; timed repetitions after a warm-up recompute
 * them from the same inputs (kernels are destination-passing and pure). */
static int execute_tir(const IrModule *m, const char *fname, const TirFunc *f, InterpArg *args,
                       int n, const Bindings *b, const RunArgs *ra, DiagCtx *d) {
  Runner r = {m, fname, args, n, NULL, NULL, NULL, d};
  TVSModule *mod = NULL;
  int rc = -1;
  double compile_ms = 0;
  if (!strcmp(ra->target, "cpu")) {
    CgOptions opt = cg_options_default();
    opt.fast_math = ra->fast_math;
    double t0 = now_ms();
    mod = cg_compile_module(m, &opt, d);
    compile_ms = now_ms() - t0;
    diag_flush(d);
    if (!mod) return -1;
    r.fn = tvs_module_get_function(mod, fname);
    if (!r.fn) {
      fprintf(stderr, "tvs run: error: compiled module has no function '%s'\n", fname);
      tvs_module_free(mod);
      return -1;
    }
    r.values = xcalloc((size_t)(n ? n : 1), sizeof *r.values);
    r.codes = xcalloc((size_t)(n ? n : 1), sizeof *r.codes);
    for (int i = 0; i < n; i++) {
      if (args[i].tensor) {
        r.values[i].v_handle = args[i].tensor;
        r.codes[i] = TVS_TENSOR;
      } else if (dt_is_float(f->params[i]->dtype)) {
        r.values[i].v_float64 = args[i].f;
        r.codes[i] = TVS_FLOAT;
      } else {
        r.values[i].v_int64 = args[i].i;
        r.codes[i] = TVS_INT;
      }
    }
  }
  if (run_once(&r) != 0) goto out;
  if (ra->time) {
    /* Warm-up, then repetitions: at least 5 and about 1 s, unless --repeat. */
    double t0 = now_ms();
    if (run_once(&r) != 0) goto out;
    double once = now_ms() - t0;
    int reps = ra->repeat > 0 ? ra->repeat : once > 0 ? (int)(1000.0 / once) : 1000;
    if (ra->repeat <= 0) reps = reps < 5 ? 5 : reps > 1000 ? 1000 : reps;
    double *t = xcalloc((size_t)reps, sizeof *t);
    for (int k = 0; k < reps; k++) {
      double s0 = now_ms();
      if (run_once(&r) != 0) {
        free(t);
        goto out;
      }
      t[k] = now_ms() - s0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    FlopBinding fb[64];
    int nb = 0;
    for (int k = 0; k < b->n && nb < 64; k++) fb[nb++] = (FlopBinding){b->vars[k], b->vals[k]};
    double flops = tir_count_flops(f, fb, nb);
    printf("%s on %s: median %.4f ms over %d runs (min %.4f, max %.4f)", fname, ra->target, med,
           reps, t[0], t[reps - 1]);
    if (flops > 0 && med > 0) printf(", %.3g FLOP, %.2f GFLOP/s", flops, flops / (med * 1e6));
    if (mod) printf(", compiled in %.1f ms", compile_ms);
    printf("\n");
    free(t);
  }
  rc = 0;
out:
  tvs_func_release(r.fn);
  tvs_module_free(mod);
  free(r.values);
  free(r.codes);
  return rc;
}

/* ---------------------------------------------------------------- prim_func */

static int run_tir(const IrModule *m, const char *fname, const TirFunc *f, const RunArgs *ra,
                   DiagCtx *d) {
  int n = f->nparams, rc = 1;
  InterpArg *args = xcalloc((size_t)(n ? n : 1), sizeof *args);
  TvsNDArray **arrays = xcalloc((size_t)(n ? n : 1), sizeof *arrays);
  bool *is_output = xcalloc((size_t)(n ? n : 1), sizeof *is_output);
  Bindings b = {.n = 0};
  uint64_t rng = ra->seed;
  bool random_mode = ra->ninputs == 0;

  for (int i = 0; i < ra->ninputs; i++) {
    bool found = false;
    for (int k = 0; k < n; k++) found |= !strcmp(f->params[k]->name, ra->inputs[i].name) ||
                                         (f->buffer_map[k] && !strcmp(f->buffer_map[k]->name, ra->inputs[i].name));
    if (!found) {
      fprintf(stderr, "tvs run: error: function '%s' has no parameter '%s'\n", fname, ra->inputs[i].name);
      goto done;
    }
  }
  /* Pass 1: given inputs; bind size vars from their shapes. */
  for (int i = 0; i < n; i++) {
    const TirBuffer *buf = f->buffer_map[i];
    const char *pname = buf ? buf->name : f->params[i]->name;
    const char *val = find_named(ra->inputs, ra->ninputs, pname);
    if (!val) val = find_named(ra->inputs, ra->ninputs, f->params[i]->name);
    if (!buf) {
      int64_t iv;
      double fv;
      bool isf;
      const char *dim = find_named(ra->dims, ra->ndims, f->params[i]->name);
      if (!val) val = dim;
      if (!val) {
        fprintf(stderr, "tvs run: error: scalar parameter '%s' needs a value (--input %s=VALUE)\n", pname, pname);
        goto done;
      }
      if (!parse_scalar(val, &iv, &fv, &isf)) {
        fprintf(stderr, "tvs run: error: scalar parameter '%s': '%s' is not a number\n", pname, val);
        goto done;
      }
      args[i].i = iv;
      args[i].f = fv;
      add_binding(&b, f->params[i], iv);
      continue;
    }
    if (!val) continue;
    arrays[i] = load_input(pname, val);
    if (!arrays[i]) goto done;
    args[i].tensor = &arrays[i]->t;
    if (arrays[i]->t.ndim == buf->ndim)
      for (int k = 0; k < buf->ndim; k++)
        if (buf->shape[k]->kind == TIR_VAR) add_binding(&b, buf->shape[k]->var, arrays[i]->t.shape[k]);
  }
  /* --dim NAME=VALUE binds size vars by name. */
  for (int k = 0; k < ra->ndims; k++) {
    int64_t iv;
    double fv;
    bool isf;
    if (!parse_scalar(ra->dims[k].value, &iv, &fv, &isf) || isf) {
      fprintf(stderr, "tvs run: error: --dim %s: '%s' is not an integer\n", ra->dims[k].name, ra->dims[k].value);
      goto done;
    }
    for (int i = 0; i < n; i++) {
      const TirBuffer *buf = f->buffer_map[i];
      if (!buf) continue;
      for (int j = 0; j < buf->ndim; j++)
        if (buf->shape[j]->kind == TIR_VAR && !strcmp(buf->shape[j]->var->name, ra->dims[k].name))
          add_binding(&b, buf->shape[j]->var, iv);
    }
  }
  /* Pass 2: allocate the rest (random read-only inputs in random mode). */
  for (int i = 0; i < n; i++) {
    const TirBuffer *buf = f->buffer_map[i];
    if (!buf || arrays[i]) continue;
    int64_t shape[TVS_MAX_NDIM];
    if (buf->ndim > TVS_MAX_NDIM) {
      fprintf(stderr, "tvs run: error: parameter '%s' has %d dimensions (at most %d supported)\n", buf->name, buf->ndim, TVS_MAX_NDIM);
      goto done;
    }
    for (int k = 0; k < buf->ndim; k++) {
      if (!eval_shape(buf->shape[k], &b, &shape[k])) {
        fprintf(stderr,
                "tvs run: error: cannot allocate '%s': dimension %d is symbolic; pass an input that binds it "
                "or --dim NAME=VALUE\n", buf->name, k);
        goto done;
      }
      if (shape[k] < 0) {
        fprintf(stderr, "tvs run: error: cannot allocate '%s': dimension %d is negative (%lld)\n", buf->name, k, (long long)shape[k]);
        goto done;
      }
    }
    arrays[i] = tvs_ndarray_empty(buf->ndim, shape, to_dl(buf->dtype));
    if (!arrays[i]) {
      fprintf(stderr, "tvs run: error: cannot allocate '%s' (too large)\n", buf->name);
      goto done;
    }
    args[i].tensor = &arrays[i]->t;
    bool written = stmt_writes(f->body, buf->data);
    if (random_mode && !written) tvs_ndarray_fill_random(&arrays[i]->t, &rng);
    else is_output[i] = true;
  }
  if (execute_tir(m, fname, f, args, n, &b, ra, d) != 0) goto done;
  for (int i = 0; i < n; i++) {
    if (!is_output[i]) continue;
    const char *name = f->buffer_map[i]->name;
    if (ra->outdir && write_output(ra->outdir, name, &arrays[i]->t)) goto done;
    if (random_mode) print_summary(name, &arrays[i]->t);
  }
  rc = 0;
done:
  for (int i = 0; i < n; i++) tvs_ndarray_free(arrays[i]);
  free(arrays);
  free(args);
  free(is_output);
  return rc;
}

/* ------------------------------------------------------------ graph function */

/* call_tir steps of a graph function run the JIT-compiled prim_func. */
static int run_native_tir(void *ctx, const char *name, InterpArg *args, int nargs, DiagCtx *d) {
  TVSFunction *fn = tvs_module_get_function((TVSModule *)ctx, name);
  if (!fn) {
    diag_error(d, span_none, "compiled module has no function '%s'", name);
    return -1;
  }
  TVSValue *v = xcalloc((size_t)(nargs ? nargs : 1), sizeof *v);
  int *codes = xcalloc((size_t)(nargs ? nargs : 1), sizeof *codes);
  for (int i = 0; i < nargs; i++) {
    if (args[i].tensor) {
      v[i].v_handle = args[i].tensor;
      codes[i] = TVS_TENSOR;
    } else {
      v[i].v_int64 = args[i].i; /* call_tir passes tir_vars as int64 */
      codes[i] = TVS_INT;
    }
  }
  TVSValue ret;
  int ret_code = TVS_NULL;
  int rc = tvs_func_call(fn, v, codes, nargs, &ret, &ret_code);
  if (rc) diag_error(d, span_none, "%s", tvs_get_last_error());
  tvs_func_release(fn);
  free(v);
  free(codes);
  return rc ? -1 : 0;
}


static int run_relax(const IrModule *m, const char *fname, const RxFunc *f, const RunArgs *ra,
                     DiagCtx *d) {
  int n = f->nparams, rc = 1;
  InterpArg *args = xcalloc((size_t)(n ? n : 1), sizeof *args);
  TvsNDArray **arrays = xcalloc((size_t)(n ? n : 1), sizeof *arrays);
  DLTensor **results = NULL;
  int nresults = 0;
  uint64_t rng = ra->seed;
  Bindings b = {.n = 0};
  for (int i = 0; i < ra->ninputs; i++) {
    bool found = false;
    for (int k = 0; k < n; k++) found |= !strcmp(f->params[k]->var.name, ra->inputs[i].name);
    if (!found) {
      fprintf(stderr, "tvs run: error: function '%s' has no parameter '%s'\n", fname, ra->inputs[i].name);
      goto done;
    }
  }
  for (int i = 0; i < n; i++) {
    const RxExpr *p = f->params[i];
    const char *val = find_named(ra->inputs, ra->ninputs, p->var.name);
    const RxSInfo *si = p->sinfo;
    if (val) {
      arrays[i] = load_input(p->var.name, val);
      if (!arrays[i]) goto done;
      args[i].tensor = &arrays[i]->t;
      if (si && si->kind == RX_SI_TENSOR && si->shape && si->ndim == arrays[i]->t.ndim)
        for (int k = 0; k < si->ndim; k++)
          if (si->shape[k]->kind == TIR_VAR) add_binding(&b, si->shape[k]->var, arrays[i]->t.shape[k]);
    }
  }
  for (int k = 0; k < ra->ndims; k++) {
    int64_t iv;
    double fv;
    bool isf;
    if (!parse_scalar(ra->dims[k].value, &iv, &fv, &isf) || isf) {
      fprintf(stderr, "tvs run: error: --dim %s: '%s' is not an integer\n", ra->dims[k].name, ra->dims[k].value);
      goto done;
    }
    for (int j = 0; j < f->nsym_vars; j++)
      if (!strcmp(f->sym_vars[j]->name, ra->dims[k].name)) add_binding(&b, f->sym_vars[j], iv);
  }
  for (int i = 0; i < n; i++) {
    if (arrays[i]) continue;
    const RxExpr *p = f->params[i];
    const RxSInfo *si = p->sinfo;
    if (!si || si->kind != RX_SI_TENSOR || !si->shape || dt_is_void(si->dtype)) {
      fprintf(stderr, "tvs run: error: parameter '%s' needs --input (its shape or dtype is not static)\n", p->var.name);
      goto done;
    }
    if (ra->ninputs) {
      fprintf(stderr, "tvs run: error: missing --input for parameter '%s'\n", p->var.name);
      goto done;
    }
    int64_t shape[TVS_MAX_NDIM];
    if (si->ndim > TVS_MAX_NDIM) goto done;
    for (int k = 0; k < si->ndim; k++)
      if (!eval_shape(si->shape[k], &b, &shape[k]) || shape[k] < 0) {
        fprintf(stderr, "tvs run: error: parameter '%s': dimension %d is symbolic; use --dim NAME=VALUE or --input\n", p->var.name, k);
        goto done;
      }
    arrays[i] = tvs_ndarray_empty(si->ndim, shape, to_dl(si->dtype));
    if (!arrays[i]) goto done;
    tvs_ndarray_fill_random(&arrays[i]->t, &rng);
    args[i].tensor = &arrays[i]->t;
  }
  TVSModule *native = NULL;
  if (!strcmp(ra->target, "cpu")) {
    CgOptions opt = cg_options_default();
    opt.fast_math = ra->fast_math;
    native = cg_compile_module(m, &opt, d);
    diag_flush(d);
    if (!native) goto done;
  }
  int relax_rc = interp_run_relax_with(m, fname, args, n, &results, &nresults, d,
                                       native ? run_native_tir : NULL, native);
  tvs_module_free(native);
  if (relax_rc != 0) {
    diag_flush(d);
    goto done;
  }
  diag_flush(d);
  rc = 0;
  for (int i = 0; i < nresults; i++) {
    char name[32];
    if (nresults == 1) snprintf(name, sizeof name, "output");
    else snprintf(name, sizeof name, "output_%d", i);
    if (ra->outdir && write_output(ra->outdir, name, results[i])) rc = 1;
    if (ra->ninputs == 0) print_summary(name, results[i]);
  }
done:
  for (int i = 0; i < nresults; i++) interp_free_result(results[i]);
  free(results);
  for (int i = 0; i < n; i++) tvs_ndarray_free(arrays[i]);
  free(arrays);
  free(args);
  return rc;
}

/* ------------------------------------------------------ compiled module */

/* `tvs run k.so`: a module compiled by tvsc, called through its packed entry
 * with tensors built from the module's metadata (dtypes, shapes; symbolic
 * dims bound from the given inputs or --dim).  Tensors without --input are
 * outputs (allocated zeroed, written to DIR/NAME.npy); with no --input at all,
 * every tensor but the last gets random values and the last is the output.
 * A graph function's outputs are its last num_outputs params (metadata). */
static int run_so(const RunArgs *ra) {
  char *path = strchr(ra->file, '/') ? xstrdup(ra->file) : xasprintf("./%s", ra->file); /* not a search */
  TVSModule *mod = tvs_module_load(path);
  free(path);
  if (!mod) {
    fprintf(stderr, "tvs run: error: %s\n", tvs_get_last_error());
    return 1;
  }
  const TVSModuleMetadata *md = tvs_module_metadata(mod);
  const char *fname = ra->func;
  if (!fname && md && md->num_funcs == 1) fname = md->funcs[0].name;
  if (!fname) fname = "main";
  const TVSFuncInfo *info = tvs_module_func_info(mod, fname);
  TVSFunction *fn = info ? tvs_module_get_function(mod, fname) : NULL;
  if (!fn) {
    fprintf(stderr, "tvs run: error: module '%s' has no function '%s'%s\n", ra->file, fname,
            ra->func ? "" : "; choose one with --func");
    tvs_module_free(mod);
    return 1;
  }
  int n = info->num_params, rc = 1;
  /* graph functions say how many trailing params are outputs; for prim_funcs
   * the outputs are the tensors given no --input (the last one without any) */
  int nouts = info->num_outputs > 0 && info->num_outputs <= n ? info->num_outputs : 1;
  TVSValue *vals = xcalloc((size_t)(n ? n : 1), sizeof *vals);
  int *codes = xcalloc((size_t)(n ? n : 1), sizeof *codes);
  TvsNDArray **arrays = xcalloc((size_t)(n ? n : 1), sizeof *arrays);
  const char *syms[64];
  int64_t symv[64];
  int nsyms = 0;
  uint64_t rng = ra->seed;
  for (int k = 0; k < ra->ndims && nsyms < 64; k++) {
    syms[nsyms] = ra->dims[k].name;
    symv[nsyms++] = strtoll(ra->dims[k].value, NULL, 0);
  }
  for (int i = 0; i < ra->ninputs; i++) {
    bool found = false;
    for (int k = 0; k < n; k++) found |= !strcmp(info->params[k].name, ra->inputs[i].name);
    if (!found) {
      fprintf(stderr, "tvs run: error: function '%s' has no parameter '%s'\n", fname, ra->inputs[i].name);
      goto done;
    }
  }
  for (int pass = 0; pass < 2; pass++) /* given inputs first: they bind the symbolic dims */
    for (int i = 0; i < n; i++) {
      const TVSParamInfo *p = &info->params[i];
      const char *val = find_named(ra->inputs, ra->ninputs, p->name);
      if (p->type_code != TVS_TENSOR) {
        int64_t iv;
        double fv;
        bool isf;
        if (pass) continue;
        if (!val || !parse_scalar(val, &iv, &fv, &isf)) {
          fprintf(stderr, "tvs run: error: scalar parameter '%s' needs a number (--input %s=VALUE)\n", p->name, p->name);
          goto done;
        }
        codes[i] = p->type_code;
        if (p->type_code == TVS_FLOAT) vals[i].v_float64 = fv;
        else vals[i].v_int64 = iv;
        continue;
      }
      if ((pass == 0) != (val != NULL)) continue;
      if (val) {
        if (!(arrays[i] = load_input(p->name, val))) goto done;
        for (int d = 0; d < p->ndim && d < arrays[i]->t.ndim; d++)
          if (p->shape[d] < 0 && p->sym_dims && p->sym_dims[d] && nsyms < 64) {
            syms[nsyms] = p->sym_dims[d];
            symv[nsyms++] = arrays[i]->t.shape[d];
          }
      } else {
        int64_t shape[TVS_MAX_NDIM];
        for (int d = 0; d < p->ndim && d < TVS_MAX_NDIM; d++) {
          shape[d] = p->shape[d];
          for (int k = 0; shape[d] < 0 && p->sym_dims && p->sym_dims[d] && k < nsyms; k++)
            if (!strcmp(syms[k], p->sym_dims[d])) shape[d] = symv[k];
          if (shape[d] < 0) {
            fprintf(stderr, "tvs run: error: cannot allocate '%s': dimension %d is symbolic; pass an input "
                            "that binds it or --dim NAME=VALUE\n", p->name, d);
            goto done;
          }
        }
        if (p->ndim > TVS_MAX_NDIM || !(arrays[i] = tvs_ndarray_empty(p->ndim, shape, p->dtype))) {
          fprintf(stderr, "tvs run: error: cannot allocate '%s'\n", p->name);
          goto done;
        }
        if (ra->ninputs == 0 && i < n - nouts) tvs_ndarray_fill_random(&arrays[i]->t, &rng);
      }
      codes[i] = TVS_TENSOR;
      vals[i].v_handle = &arrays[i]->t;
    }
  int reps = ra->time ? (ra->repeat > 0 ? ra->repeat : 100) : 1;
  double t0 = now_ms();
  for (int k = 0; k < reps; k++) {
    TVSValue ret;
    int ret_code = TVS_NULL;
    if (tvs_func_call(fn, vals, codes, n, &ret, &ret_code) != 0) {
      fprintf(stderr, "tvs run: error: %s\n", tvs_get_last_error());
      goto done;
    }
  }
  if (ra->time) printf("%s in %s: mean %.4f ms over %d runs\n", fname, ra->file, (now_ms() - t0) / reps, reps);
  rc = 0;
  for (int i = 0; i < n; i++) {
    const TVSParamInfo *p = &info->params[i];
    bool out = p->type_code == TVS_TENSOR &&
               (info->num_outputs > 0 ? i >= n - nouts
                : ra->ninputs        ? !find_named(ra->inputs, ra->ninputs, p->name)
                                     : i == n - 1);
    if (!out) continue;
    if (ra->outdir && write_output(ra->outdir, p->name, &arrays[i]->t)) rc = 1;
    if (!ra->ninputs) print_summary(p->name, &arrays[i]->t);
  }
done:
  for (int i = 0; i < n; i++) tvs_ndarray_free(arrays[i]);
  free(arrays);
  free(vals);
  free(codes);
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

int cmd_run(int argc, char **argv) {
  ToolCommon common = {DIAG_FORMAT_TEXT, -1};
  RunArgs ra;
  const char *sched_path = NULL; /* --schedule FILE */
  memset(&ra, 0, sizeof ra);
  ra.target = "cpu";
  int rc = 2;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r = tool_common_option(&common, argc, argv, &i);
    if (r < 0) goto out;
    if (r > 0) continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      puts("usage: tvs run FILE [--func F] [--input NAME=x.npy|NAME=VALUE ...] [--output DIR]\n"
           "                [--seed N] [--dim NAME=VALUE ...] [--target cpu|interp]\n"
           "                [--time [--repeat N]] [--fast-math]\n"
           "Runs a prim_func (destination-passing: params without --input are allocated\n"
           "zeroed and written to DIR/NAME.npy) or a graph function (its return value is\n"
           "written to DIR/output.npy). With no --input, read-only inputs are random\n"
           "(seeded by --seed, default 0) and a summary of each output is printed.\n"
           "--target cpu (the default) compiles prim_funcs with LLVM and runs them\n"
           "natively; --target interp uses the reference interpreter. A graph\n"
           "function's bindings are stepped through by the interpreter while its\n"
           "call_tir prim_funcs run on the target. --time prints the median time over\n"
           "repeated runs after a warm-up, and GFLOP/s counted from the IR.\n"
           "FILE may be a .so built by tvsc: its packed entry is called with tensors\n"
           "shaped by the module's metadata.");
      rc = 0;
      goto out;
    }
    const char *val = NULL;
    if (!strcmp(a, "--schedule") || !strncmp(a, "--schedule=", 11)) {
      if (a[10] == '=') sched_path = a + 11;
      else if (i + 1 < argc) sched_path = argv[++i];
      else { tool_usage_error("run", "--schedule needs a file"); goto out; }
      continue;
    }
    if (!strcmp(a, "--time")) {
      ra.time = true;
      continue;
    }
    if (!strcmp(a, "--fast-math")) {
      ra.fast_math = true;
      continue;
    }
    const char *opts[] = {"--func", "--input", "--output", "--seed", "--dim", "--target", "-o", "--repeat"};
    int which = -1;
    for (int k = 0; k < (int)(sizeof opts / sizeof opts[0]); k++) {
      size_t l = strlen(opts[k]);
      if (!strncmp(a, opts[k], l) && (a[l] == '\0' || a[l] == '=')) {
        which = k;
        if (a[l] == '=') val = a + l + 1;
        else if (i + 1 < argc) val = argv[++i];
        else {
          tool_usage_error("run", "%s needs a value", opts[k]);
          goto out;
        }
        break;
      }
    }
    if (which < 0) {
      if (a[0] == '-' && a[1]) {
        tool_usage_error("run", "unknown option '%s'", a);
        goto out;
      }
      if (ra.file) {
        tool_usage_error("run", "more than one input file ('%s' and '%s')", ra.file, a);
        goto out;
      }
      ra.file = a;
      continue;
    }
    switch (which) {
      case 0: ra.func = val; break;
      case 1:
        if (ra.ninputs == 64) { tool_usage_error("run", "too many --input options"); goto out; }
        if (split_named("--input", val, &ra.inputs[ra.ninputs])) goto out;
        ra.ninputs++;
        break;
      case 2: case 6: ra.outdir = val; break;
      case 3: {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(val, &end, 0);
        if (!*val || *end || errno) { tool_usage_error("run", "--seed expects an integer, got '%s'", val); goto out; }
        ra.seed = s;
        break;
      }
      case 4:
        if (ra.ndims == 32) { tool_usage_error("run", "too many --dim options"); goto out; }
        if (split_named("--dim", val, &ra.dims[ra.ndims])) goto out;
        ra.ndims++;
        break;
      case 5: ra.target = val; break;
      case 7: {
        char *end;
        long v = strtol(val, &end, 10);
        if (!*val || *end || v < 1 || v > 1000000) { tool_usage_error("run", "--repeat expects a positive integer, got '%s'", val); goto out; }
        ra.repeat = (int)v;
        break;
      }
    }
  }
  if (!ra.file) {
    tool_usage_error("run", "no input file");
    goto out;
  }
  if (strcmp(ra.target, "interp") != 0 && strcmp(ra.target, "cpu") != 0) {
    tool_usage_error("run", "unknown target '%s' (available: cpu, interp)", ra.target);
    goto out;
  }
  if (ra.outdir) {
    struct stat st;
    if (stat(ra.outdir, &st) != 0 && mkdir(ra.outdir, 0777) != 0) {
      tool_usage_error("run", "cannot create output directory '%s': %s", ra.outdir, strerror(errno));
      goto out;
    }
  }
  size_t flen = strlen(ra.file);
  if (flen > 3 && !strcmp(ra.file + flen - 3, ".so")) { /* compiled by tvsc */
    rc = run_so(&ra);
    goto out;
  }
  DiagCtx d;
  tool_diag_init(&d, &common);
  SourceFile *src = NULL;
  IrModule *m = tool_load(ra.file, &d, &src);
  rc = 1;
  if (m) { /* schedule statements in the file itself, then --schedule FILE */
    StrBuf sout;
    sb_init(&sout);
    if (sch_apply_schedules(&m, src, sched_path, &d, &sout)) ir_module_free(m), m = NULL;
    diag_flush(&d);
    fputs(sout.data, stdout);
    sb_free(&sout);
  }
  if (m) {
    const IrGlobal *g = NULL;
    if (ra.func) {
      g = ir_module_lookup(m, ra.func);
      if (!g) fprintf(stderr, "tvs run: error: module has no function '%s'\n", ra.func);
    } else if (m->nfuncs == 0) {
      fprintf(stderr, "tvs run: error: '%s' defines no function to run\n", ra.file);
    } else if (m->nfuncs == 1) {
      g = &m->funcs[0];
    } else if ((g = ir_module_lookup(m, "main")) == NULL) {
      fprintf(stderr, "tvs run: error: the module has %d functions; choose one with --func (", m->nfuncs);
      for (int i = 0; i < m->nfuncs; i++) fprintf(stderr, i ? ", %s" : "%s", m->funcs[i].name);
      fprintf(stderr, ")\n");
    }
    if (g) rc = g->kind == IR_FUNC_TIR ? run_tir(m, g->name, g->tir, &ra, &d) : run_relax(m, g->name, g->rx, &ra, &d);
  }
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
out:
  for (int i = 0; i < ra.ninputs; i++) free((char *)ra.inputs[i].name);
  for (int i = 0; i < ra.ndims; i++) free((char *)ra.dims[i].name);
  return rc;
}
