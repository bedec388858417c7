/* graph_exec.c - a graph function compiled whole and called once; its
 * per-kernel profile (see graph_exec.h). */
#include "driver/graph_exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ir/relax_op.h"
#include "ir/transform.h"
#include "ir/visit.h"
#include "sched/default_schedule.h"

/* ------------------------------------------------------------ preparing */

static bool say(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool say(char *why, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, n, fmt, ap);
  va_end(ap);
  return false;
}

/* Whether e is made only of what the graph compiler takes; else the reason. */
static bool compilable(const RxExpr *e, char *why, size_t n) {
  if (!e) return true;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: case RX_CONST: case RX_GLOBAL_VAR: case RX_SHAPE_EXPR: return true;
    case RX_CALL:
      if (!e->call.op || e->call.op->id != RX_OP_CALL_TIR)
        return say(why, n, "R.%s has no legalization for these operands",
                   e->call.op ? e->call.op->script_name : "?");
      for (int i = 0; i < e->call.n; i++)
        if (!compilable(e->call.args[i], why, n)) return false;
      return true;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++)
        if (!compilable(e->tuple.fields[i], why, n)) return false;
      return true;
    case RX_TUPLE_GET_ITEM: return compilable(e->get.tuple, why, n);
    case RX_SEQ:
      for (int b = 0; b < e->seq.nblocks; b++)
        for (int i = 0; i < e->seq.blocks[b].n; i++) {
          const RxBinding *bd = &e->seq.blocks[b].bindings[i];
          if (bd->cast_to) return say(why, n, "R.match_cast is not compiled");
          if (!compilable(bd->value, why, n)) return false;
        }
      return compilable(e->seq.body, why, n);
    case RX_IF: return say(why, n, "if/else is not compiled");
    default: return say(why, n, "an expression the graph compiler does not take");
  }
}

/* The calling convention must exist too (tensor params, tensor results). */
static bool signature_ok(const RxFunc *f, const char *fname, char *why, size_t n) {
  DiagCtx s;
  diag_init(&s, NULL);
  IrHeap *h = ir_heap_new();
  int nout = 0;
  bool ok = cg_graph_signature(h, fname, f, &nout, &s) != NULL;
  if (!ok) say(why, n, "%s", s.len ? s.items[0].msg : "unsupported signature");
  ir_heap_release(h);
  diag_free(&s);
  return ok;
}

DrvGraphStatus drv_graph_prepare(DrvGraph *g, const IrModule *m, const char *fname, const CgOptions *cg,
                                 bool compile, DiagCtx *d, char *why, size_t whylen) {
  sch_default_schedule_install(); /* the pipeline's default-schedule stage */
  memset(g, 0, sizeof *g);
  g->fname = fname;
  int nerr0 = d->nerr;
  g->legal = rx_run_graph_passes(m, -1, d, NULL, NULL);
  if (!g->legal || d->nerr > nerr0) return DRV_GRAPH_ERROR;
  const IrGlobal *gl = ir_module_lookup(g->legal, fname);
  if (!gl || gl->kind != IR_FUNC_RELAX) {
    say(why, whylen, "the graph passes removed '%s'", fname);
    return DRV_GRAPH_FALLBACK;
  }
  g->f = gl->rx;
  if (!compilable(g->f->body, why, whylen) || !signature_ok(g->f, fname, why, whylen)) return DRV_GRAPH_FALLBACK;
  if (!compile) return DRV_GRAPH_OK;
  CgOptions opt = *cg;
  opt.graph_funcs = true;
  opt.flop_source = g->legal;
  double t0 = drv_now_ms();
  IrModule *only = ir_module_copy(g->legal); /* no other graph function: their conventions may not compile */
  only->nfuncs = 0;
  for (int i = 0; i < g->legal->nfuncs; i++)
    if (g->legal->funcs[i].kind == IR_FUNC_TIR || !strcmp(g->legal->funcs[i].name, fname))
      only->funcs[only->nfuncs++] = g->legal->funcs[i];
  g->mod = cg_compile_module(only, &opt, d);
  ir_module_free(only);
  g->compile_ms = drv_now_ms() - t0;
  if (!g->mod) return DRV_GRAPH_ERROR;
  g->info = tvs_module_func_info(g->mod, fname);
  g->fn = g->info ? tvs_module_get_function(g->mod, fname) : NULL;
  if (!g->fn) {
    diag_error(d, span_none, "compiled module has no function '%s'", fname);
    return DRV_GRAPH_ERROR;
  }
  return DRV_GRAPH_OK;
}

void drv_graph_free(DrvGraph *g) {
  tvs_func_release(g->fn);
  tvs_module_free(g->mod);
  ir_module_free(g->legal);
  memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------ calling */

/* The k-th output's struct info of the graph function (its body's, else the
 * declared one), or NULL. */
static const RxSInfo *output_sinfo(const RxFunc *f, int k, int nouts) {
  const RxSInfo *s = f && f->body ? f->body->sinfo : NULL;
  if (!s || (s->kind != RX_SI_TENSOR && s->kind != RX_SI_TUPLE)) s = f ? f->ret_sinfo : NULL;
  if (!s) return NULL;
  if (s->kind == RX_SI_TUPLE) return k < s->nfields && s->nfields == nouts ? s->fields[k] : NULL;
  return nouts == 1 && s->kind == RX_SI_TENSOR && s->shape ? s : NULL;
}

/* An output dim that is an expression of the inputs' size vars (n * 3,
 * n - 2): evaluated with b's values, matched to its vars by name (the
 * metadata only names plain size vars). */
static bool eval_output_dim(const RxSInfo *si, int d, const DrvBindings *b, int64_t *out) {
  if (!si || !si->shape || d >= si->ndim) return false;
  const TirExpr *e = si->shape[d];
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  DrvBindings nb = {NULL, 0, 0};
  for (int i = 0; i < fv.len; i++) {
    const TirVar *v = fv.items[i];
    for (int j = 0; j < b->n; j++)
      if (!strcmp(b->v[j].var->name, v->name)) {
        drv_bind(&nb, v, b->v[j].value);
        break;
      }
  }
  bool ok = drv_eval_shape(e, &nb, out);
  drv_bindings_free(&nb);
  pv_free(&fv);
  return ok;
}

int drv_graph_alloc_outputs(const DrvGraph *g, const DrvBindings *b, TvsNDArray **outs, int nouts, char *err,
                            size_t errlen) {
  const TVSFuncInfo *info = g->info;
  if (nouts != info->num_outputs) return snprintf(err, errlen, "the function has %d outputs", info->num_outputs), -1;
  for (int k = 0; k < nouts; k++) {
    const TVSParamInfo *p = &info->params[info->num_params - nouts + k];
    int64_t shape[TVS_MAX_NDIM];
    if (p->ndim > TVS_MAX_NDIM) return snprintf(err, errlen, "output '%s' has too many dimensions", p->name), -1;
    for (int dd = 0; dd < p->ndim; dd++) {
      shape[dd] = p->shape[dd];
      for (int i = 0; shape[dd] < 0 && p->sym_dims && p->sym_dims[dd] && i < b->n; i++)
        if (!strcmp(b->v[i].var->name, p->sym_dims[dd])) shape[dd] = b->v[i].value;
      if (shape[dd] < 0 && !eval_output_dim(output_sinfo(g->f, k, nouts), dd, b, &shape[dd])) shape[dd] = -1;
      if (shape[dd] < 0)
        return snprintf(err, errlen, "cannot allocate '%s': dimension %d is not bound by the inputs", p->name, dd), -1;
    }
    if (!(outs[k] = tvs_ndarray_empty(p->ndim, shape, p->dtype)))
      return snprintf(err, errlen, "cannot allocate '%s' (too large)", p->name), -1;
  }
  return 0;
}

int drv_graph_call(DrvGraph *g, DLTensor **ins, int nins, DLTensor **outs, int nouts) {
  int n = nins + nouts;
  TVSValue *v = xcalloc((size_t)(n ? n : 1), sizeof *v);
  int *codes = xcalloc((size_t)(n ? n : 1), sizeof *codes);
  for (int i = 0; i < n; i++) {
    v[i].v_handle = i < nins ? ins[i] : outs[i - nins];
    codes[i] = TVS_TENSOR;
  }
  TVSValue ret;
  int ret_code = TVS_NULL;
  int rc = tvs_func_call(g->fn, v, codes, n, &ret, &ret_code);
  free(v);
  free(codes);
  return rc ? -1 : 0;
}

double drv_graph_flops(const DrvGraph *g) {
  const RxExpr *body = g->f ? g->f->body : NULL;
  double sum = 0;
  for (int b = 0; body && body->kind == RX_SEQ && b < body->seq.nblocks; b++)
    for (int i = 0; i < body->seq.blocks[b].n; i++) {
      const RxExpr *v = body->seq.blocks[b].bindings[i].value;
      if (v->kind != RX_CALL || !v->call.op || v->call.op->id != RX_OP_CALL_TIR) continue;
      const TVSFuncInfo *fi = g->mod ? tvs_module_func_info(g->mod, v->call.args[0]->gvar.name) : NULL;
      if (!fi || fi->flops < 0) return -1;
      sum += fi->flops;
    }
  return sum;
}

/* ------------------------------------------------------------ profiling */

/* The state of the timing runner over the runs. */
typedef struct Prof {
  DrvGraph *g;
  DrvGraphProfile *p;
  int cap;
  int run;           /* the current run; -1 = the warm-up, which also records the calls */
  int call;          /* the call within the run */
  double *ms;        /* [run * p->n + call] */
  const char *names[256];  /* the prim_funcs resolved so far */
  TVSFunction *fns[256];
  int nfns;
} Prof;

static TVSFunction *prof_fn(Prof *pr, const char *name) {
  for (int i = 0; i < pr->nfns; i++)
    if (!strcmp(pr->names[i], name)) return pr->fns[i];
  TVSFunction *fn = tvs_module_get_function(pr->g->mod, name);
  if (fn && pr->nfns < 256) pr->names[pr->nfns] = name, pr->fns[pr->nfns++] = fn;
  return fn;
}

/* The FLOPs of prim_func name on args (size vars bound from the shapes). */
static double call_flops(const DrvGraph *g, const char *name, const InterpArg *args, int nargs) {
  const IrGlobal *gl = ir_module_lookup(g->legal, name);
  if (!gl || gl->kind != IR_FUNC_TIR) return -1;
  const TirFunc *f = gl->tir;
  DrvBindings b = {NULL, 0, 0};
  for (int i = 0; i < f->nparams && i < nargs; i++) {
    const TirBuffer *buf = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!buf) drv_bind(&b, f->params[i], args[i].i);
    for (int d = 0; buf && args[i].tensor && d < buf->ndim && d < args[i].tensor->ndim; d++)
      if (buf->shape[d]->kind == TIR_VAR) drv_bind(&b, buf->shape[d]->var, args[i].tensor->shape[d]);
  }
  double fl = tir_count_flops(f, b.v, b.n);
  drv_bindings_free(&b);
  return fl;
}

/* The first output's shape: the argument after the call's inputs. */
static void output_shape(const DrvGraph *g, const char *name, const InterpArg *args, int nargs, char *out,
                         size_t n) {
  const IrGlobal *gl = ir_module_lookup(g->legal, name);
  snprintf(out, n, "?");
  if (!gl || gl->kind != IR_FUNC_TIR) return;
  const TirFunc *f = gl->tir;
  int k = -1; /* the first buffer the prim_func writes */
  for (int i = 0; i < f->nparams && i < nargs && k < 0; i++)
    if (f->buffer_map && f->buffer_map[i] && drv_stmt_writes(f->body, f->buffer_map[i]->data)) k = i;
  if (k < 0 || !args[k].tensor) return;
  const DLTensor *t = args[k].tensor;
  StrBuf sb;
  sb_init(&sb);
  sb_putc(&sb, '(');
  for (int d = 0; d < t->ndim; d++) sb_printf(&sb, d ? ", %lld" : "%lld", (long long)t->shape[d]);
  sb_puts(&sb, t->ndim == 1 ? ",)" : ")");
  snprintf(out, n, "%s", sb.data);
  sb_free(&sb);
}

static int prof_runner(void *ctx, const char *name, InterpArg *args, int nargs, DiagCtx *d) {
  Prof *pr = ctx;
  TVSFunction *fn = prof_fn(pr, name);
  if (!fn) {
    diag_error(d, span_none, "compiled module has no function '%s'", name);
    return -1;
  }
  TVSValue *v = xcalloc((size_t)(nargs ? nargs : 1), sizeof *v);
  int *codes = xcalloc((size_t)(nargs ? nargs : 1), sizeof *codes);
  drv_pack_args(NULL, args, nargs, v, codes);
  TVSValue ret;
  int ret_code = TVS_NULL;
  double t0 = drv_now_ms();
  int rc = tvs_func_call(fn, v, codes, nargs, &ret, &ret_code);
  double ms = drv_now_ms() - t0;
  free(v);
  free(codes);
  if (rc) {
    diag_error(d, span_none, "%s", tvs_get_last_error());
    return -1;
  }
  DrvGraphProfile *p = pr->p;
  if (pr->run < 0) { /* the warm-up: what each call is */
    DrvKernelTime k = {.ms = 0, .flops = call_flops(pr->g, name, args, nargs)};
    snprintf(k.name, sizeof k.name, "%s", name);
    output_shape(pr->g, name, args, nargs, k.shape, sizeof k.shape);
    VEC_PUSH(p->k, p->n, pr->cap, k);
  } else if (pr->call < p->n) {
    pr->ms[pr->run * p->n + pr->call] = ms;
  }
  pr->call++;
  return 0;
}

/* Runs the graph once on the interpreter with the timing runner. */
static int prof_run(Prof *pr, InterpArg *args, int nargs, DiagCtx *d) {
  DLTensor **res = NULL;
  int nres = 0;
  pr->call = 0;
  int rc = interp_run_relax_with(pr->g->legal, pr->g->fname, args, nargs, &res, &nres, d, prof_runner, pr);
  for (int i = 0; i < nres; i++) interp_free_result(res[i]);
  free(res);
  if (!rc && pr->run >= 0 && pr->call != pr->p->n) {
    diag_error(d, span_none, "the graph made %d calls, then %d", pr->p->n, pr->call);
    rc = -1;
  }
  return rc;
}

typedef struct WholeCall {
  DrvGraph *g;
  DLTensor **ins, **outs;
  int nins, nouts;
} WholeCall;

static int whole_call(void *ctx) {
  WholeCall *w = ctx;
  return drv_graph_call(w->g, w->ins, w->nins, w->outs, w->nouts);
}

int drv_graph_profile(DrvGraph *g, InterpArg *args, int nargs, DLTensor **outs, int nouts, int reps,
                      DrvGraphProfile *p, DiagCtx *d) {
  memset(p, 0, sizeof *p);
  Prof pr = {.g = g, .p = p, .run = -1};
  if (prof_run(&pr, args, nargs, d)) return -1;
  p->reps = reps;
  pr.ms = xcalloc((size_t)(reps * (p->n ? p->n : 1)), sizeof *pr.ms);
  int rc = 0;
  for (pr.run = 0; pr.run < reps && !rc; pr.run++) rc = prof_run(&pr, args, nargs, d);
  double *col = xcalloc((size_t)reps, sizeof *col);
  for (int k = 0; k < p->n && !rc; k++) {
    for (int r = 0; r < reps; r++) col[r] = pr.ms[r * p->n + k];
    p->k[k].ms = drv_median(col, reps);
    p->kernels_ms += p->k[k].ms;
  }
  free(col);
  free(pr.ms);
  for (int i = 0; i < pr.nfns; i++) tvs_func_release(pr.fns[i]);
  if (rc) return -1;
  DLTensor **ins = xcalloc((size_t)(nargs ? nargs : 1), sizeof *ins);
  for (int i = 0; i < nargs; i++) ins[i] = args[i].tensor;
  WholeCall w = {g, ins, outs, nargs, nouts};
  DrvTimeOptions topt = {reps, 0, 1, 0};
  DrvTiming tm;
  rc = drv_time_calls(whole_call, &w, &topt, &tm);
  if (!rc) p->total_ms = tm.median_ms;
  free(ins);
  return rc ? -1 : 0;
}

void drv_graph_profile_free(DrvGraphProfile *p) {
  free(p->k);
  memset(p, 0, sizeof *p);
}

void drv_graph_profile_print(StrBuf *sb, const DrvGraphProfile *p) {
  sb_printf(sb, "%-24s %-16s %10s %7s %9s\n", "kernel", "shape", "ms", "%", "GFLOP/s");
  for (int k = 0; k < p->n; k++) {
    const DrvKernelTime *t = &p->k[k];
    double pct = p->kernels_ms > 0 ? 100.0 * t->ms / p->kernels_ms : 0;
    char gf[32] = "-";
    if (t->flops > 0 && t->ms > 0) snprintf(gf, sizeof gf, "%.2f", t->flops / (t->ms * 1e6));
    sb_printf(sb, "%-24s %-16s %10.4f %7.1f %9s\n", t->name, t->shape, t->ms, pct, gf);
  }
  sb_printf(sb, "%-24s %-16s %10.4f %7.1f\n", "sum of kernels", "", p->kernels_ms, p->n ? 100.0 : 0.0);
  sb_printf(sb, "whole graph: median %.4f ms over %d runs (native, one call)\n", p->total_ms, p->reps);
}
