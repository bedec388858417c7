/* graph_run.c - :run and :time on a graph function (a model):
 *
 *   >>> :load examples/models/cnn.tvs
 *   >>> :run main --params cnn.npz          compiled natively, checked against the interpreter
 *   >>> :time main --params cnn.npz         per-kernel table, then the whole graph
 *
 * The whole graph goes through the graph passes (legalize, fusion) and is
 * compiled into one native entry (driver/graph_exec.h); :run compares its
 * outputs with the reference interpreter on the same inputs, :time prints
 * each fused kernel's median and the whole graph's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/graph_exec.h"
#include "ir/interp.h"
#include "ir/transform.h"
#include "repl/repl_internal.h"
#include "runtime/ndarray.h"
#include "runtime/npy.h"
#include "runtime/npz.h"

/* What one :run / :time on a graph function uses. */
typedef struct GraphRun {
  Repl *r;
  const char *func, *params;
  const char *in_name[32], *in_file[32];
  int nin;
  IrModule *bound;       /* the module with --params bound, or NULL */
  const IrModule *m;     /* the module run */
  const RxFunc *f;
  TvsNDArray **arrays;   /* per parameter */
  InterpArg *args;
} GraphRun;

static const RxFunc *graph_func(const IrModule *m, const char *name) {
  const IrGlobal *g = name ? ir_module_lookup(m, name) : NULL;
  return g && g->kind == IR_FUNC_RELAX ? g->rx : NULL;
}

bool repl_is_graph_call(Repl *r, int argc, char **argv) {
  const IrModule *m = repl_cur_mod(r);
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') {
      if (!strchr(argv[i], '=')) i++; /* its value */
      continue;
    }
    return graph_func(m, argv[i]) != NULL;
  }
  for (int i = 0; i < m->nfuncs; i++) /* no function named: a module of graph functions only */
    if (m->funcs[i].kind == IR_FUNC_TIR) return false;
  return m->nfuncs > 0;
}

static int parse(GraphRun *g, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool eq = strchr(a, '=') != NULL && a[0] == '-';
    const char *v = eq ? strchr(a, '=') + 1 : i + 1 < argc ? argv[i + 1] : NULL;
    if (!strncmp(a, "--params", 8) && (!a[8] || a[8] == '=')) {
      if (!v) return repl_error(g->r, "--params needs a .npz file"), -1;
      g->params = v;
      i += !eq;
    } else if (!strncmp(a, "--input", 7) && (!a[7] || a[7] == '=')) {
      const char *e = v ? strchr(v, '=') : NULL;
      if (!e || e == v || !e[1] || g->nin == 32) return repl_error(g->r, "--input expects NAME=x.npy"), -1;
      g->in_name[g->nin] = xstrndup(v, (size_t)(e - v));
      g->in_file[g->nin++] = e + 1;
      i += !eq;
    } else if (a[0] == '-') {
      return repl_error(g->r, "unknown option '%s'", a), -1;
    } else if (g->func) {
      return repl_error(g->r, "more than one function ('%s' and '%s')", g->func, a), -1;
    } else {
      g->func = a;
    }
  }
  const IrModule *m = repl_cur_mod(g->r);
  if (!g->func) g->func = graph_func(m, "main") ? "main" : NULL;
  for (int i = 0; !g->func && i < m->nfuncs; i++) g->func = m->funcs[i].name;
  return 0;
}

/* --params: the weights become constants of the graph (BindParams). */
static int bind_params(GraphRun *g) {
  g->m = repl_cur_mod(g->r);
  if (!g->params) return 0;
  char err[512];
  TvsNpz *z = tvs_npz_load(g->params, err, sizeof err);
  if (!z) return repl_error(g->r, "--params %s", err), -1;
  const char **names = xcalloc((size_t)(z->count + 1), sizeof *names);
  const DLTensor **vals = xcalloc((size_t)(z->count + 1), sizeof *vals);
  for (int i = 0; i < z->count; i++) names[i] = z->entries[i].name, vals[i] = &z->entries[i].array->t;
  g->bound = rx_bind_params(g->m, g->func, z->count, names, vals, err, sizeof err);
  free(names);
  free(vals);
  tvs_npz_free(z);
  if (!g->bound) return repl_error(g->r, "--params %s: %s", g->params, err), -1;
  g->m = g->bound;
  return 0;
}

/* One parameter: its --input file, else seeded random data of its static shape. */
static int make_param(GraphRun *g, int i, uint64_t *rng) {
  const RxExpr *p = g->f->params[i];
  for (int k = 0; k < g->nin; k++) {
    if (strcmp(g->in_name[k], p->var.name)) continue;
    char err[256];
    if (!(g->arrays[i] = tvs_npy_load(g->in_file[k], err, sizeof err)))
      return repl_error(g->r, "--input %s: %s", p->var.name, err), -1;
    return 0;
  }
  const RxSInfo *si = p->sinfo;
  int64_t shape[TVS_MAX_NDIM];
  bool ok = si && si->kind == RX_SI_TENSOR && si->shape && !dt_is_void(si->dtype) && si->ndim <= TVS_MAX_NDIM;
  for (int d = 0; ok && d < si->ndim; d++) ok = tir_is_const_int(si->shape[d], &shape[d]);
  if (!ok) return repl_error(g->r, "parameter '%s' has no static shape: give it with --input %s=x.npy", p->var.name,
                             p->var.name), -1;
  g->arrays[i] = tvs_ndarray_empty(si->ndim, shape, drv_dl_dtype(si->dtype));
  tvs_ndarray_fill_random(&g->arrays[i]->t, rng);
  return 0;
}

static int make_args(GraphRun *g) {
  if (!(g->f = graph_func(g->m, g->func))) return repl_error(g->r, "the module has no graph function '%s'", g->func), -1;
  for (int k = 0; k < g->nin; k++) {
    bool found = false;
    for (int i = 0; i < g->f->nparams; i++) found |= !strcmp(g->in_name[k], g->f->params[i]->var.name);
    if (!found) return repl_error(g->r, "--input: '%s' has no parameter '%s'", g->func, g->in_name[k]), -1;
  }
  int n = g->f->nparams;
  g->arrays = xcalloc((size_t)(n ? n : 1), sizeof *g->arrays);
  g->args = xcalloc((size_t)(n ? n : 1), sizeof *g->args);
  uint64_t rng = 0;
  for (int i = 0; i < n; i++) {
    if (make_param(g, i, &rng)) return -1;
    g->args[i].tensor = &g->arrays[i]->t;
  }
  return 0;
}

static void graph_run_free(GraphRun *g) {
  for (int i = 0; g->f && i < g->f->nparams; i++) tvs_ndarray_free(g->arrays ? g->arrays[i] : NULL);
  free(g->arrays);
  free(g->args);
  for (int k = 0; k < g->nin; k++) free((char *)g->in_name[k]);
  ir_module_free(g->bound);
}

/* Compares the native outputs with the interpreter's; 0 when all match. */
static int check_outputs(GraphRun *g, DLTensor **got, int nouts) {
  DLTensor **want = NULL;
  int nwant = 0;
  diag_clear(&g->r->diag);
  if (interp_run_relax(g->m, g->func, g->args, g->f->nparams, &want, &nwant, &g->r->diag)) {
    diag_flush(&g->r->diag);
    return repl_error(g->r, ":run: the interpreter could not run '%s'", g->func), -1;
  }
  int rc = nwant == nouts ? 0 : -1;
  for (int k = 0; k < nouts && k < nwant; k++) {
    int64_t n = tvs_ndarray_numel(got[k]), bad = 0;
    double maxd = 0;
    for (int64_t i = 0; i < n; i++) {
      double a = tvs_ndarray_get_f64(got[k], i), b = tvs_ndarray_get_f64(want[k], i), d = fabs(a - b);
      if (!(d <= 1e-4 + 1e-3 * fabs(b)) && !(isnan(a) && isnan(b))) bad++;
      if (d > maxd) maxd = d;
    }
    char name[32];
    snprintf(name, sizeof name, nouts == 1 ? "output" : "output_%d", k);
    if (bad) rc = -1;
    if (bad)
      fprintf(g->r->opt.out, "%s on cpu: %s does NOT match the interpreter (%lld of %lld values differ, max abs diff %.3g)\n",
              g->func, name, (long long)bad, (long long)n, maxd);
    else
      fprintf(g->r->opt.out, "%s on cpu: %s matches the interpreter (%lld values, max abs diff %.3g)\n", g->func, name,
              (long long)n, maxd);
  }
  for (int k = 0; k < nwant; k++) interp_free_result(want[k]);
  free(want);
  if (rc) repl_error(g->r, ":run: the compiled graph computes something else than the interpreter");
  return rc;
}

static int run_compiled(GraphRun *g, DrvGraph *dg, bool time) {
  int nouts = dg->info->num_outputs, rc = -1;
  TvsNDArray **outs = xcalloc((size_t)(nouts ? nouts : 1), sizeof *outs);
  DLTensor **ins = xcalloc((size_t)(g->f->nparams + 1), sizeof *ins), **od = xcalloc((size_t)(nouts + 1), sizeof *od);
  DrvBindings b = {NULL, 0, 0};
  char err[256];
  for (int i = 0; i < g->f->nparams; i++) ins[i] = g->args[i].tensor;
  if (drv_graph_alloc_outputs(dg, &b, outs, nouts, err, sizeof err)) {
    repl_error(g->r, "%s", err);
    goto done;
  }
  for (int k = 0; k < nouts; k++) od[k] = &outs[k]->t;
  if (drv_graph_call(dg, ins, g->f->nparams, od, nouts)) {
    repl_error(g->r, "%s", tvs_get_last_error());
    goto done;
  }
  if (!time) {
    rc = check_outputs(g, od, nouts);
    goto done;
  }
  DrvGraphProfile p;
  diag_clear(&g->r->diag);
  if (drv_graph_profile(dg, g->args, g->f->nparams, od, nouts, g->r->repeat > 0 ? g->r->repeat : 20, &p,
                        &g->r->diag) == 0) {
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s on cpu, %d kernels (compiled in %.0f ms):\n", g->func, p.n, dg->compile_ms);
    drv_graph_profile_print(&sb, &p);
    fputs(sb.data, g->r->opt.out);
    sb_free(&sb);
    rc = 0;
  } else {
    diag_flush(&g->r->diag);
    repl_error(g->r, "%s", tvs_get_last_error());
  }
  drv_graph_profile_free(&p);
done:
  for (int k = 0; k < nouts; k++) tvs_ndarray_free(outs[k]);
  free(outs);
  free(ins);
  free(od);
  drv_bindings_free(&b);
  return rc;
}

int repl_graph_cmd(Repl *r, int argc, char **argv, bool time) {
  GraphRun g;
  memset(&g, 0, sizeof g);
  g.r = r;
  int rc = -1;
  if (parse(&g, argc, argv) || bind_params(&g) || make_args(&g)) goto out;
  DrvGraph dg;
  char why[256] = "";
  CgOptions opt = cg_options_default();
  opt.bounds_check = repl_bounds_check(r, time);
  diag_clear(&r->diag);
  DrvGraphStatus st = drv_graph_prepare(&dg, g.m, g.func, &opt, true, &r->diag, why, sizeof why);
  fflush(r->opt.out);
  diag_flush(&r->diag);
  if (st == DRV_GRAPH_FALLBACK) repl_error(r, "'%s' does not compile as a whole graph: %s", g.func, why);
  if (st == DRV_GRAPH_OK) rc = run_compiled(&g, &dg, time);
  drv_graph_free(&dg);
out:
  graph_run_free(&g);
  return rc;
}
