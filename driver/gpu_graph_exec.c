/* gpu_graph_exec.c - a graph function resident on the device (DrvGpuPlan):
 * when the graph is a sequence of call_tir bindings with static shapes,
 * every tensor gets a device buffer once, the constants are uploaded once,
 * and a run copies the inputs in, queues the kernels back to back and copies
 * the results out.  Other graphs are stepped through on the host
 * (driver/gpu_graph.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/vec.h"
#include "driver/gpu.h"
#include "ir/relax_op.h"
#include "runtime/ndarray.h"

/* One device tensor: its buffer and its shape (t.data is the device buffer). */
typedef struct Slot {
  DLTensor t;
  int64_t shape[TVS_MAX_NDIM];
  size_t bytes;
  const RxExpr *cnst; /* a constant's expression: uploaded once */
} Slot;

/* What a graph variable holds: one slot, or a tuple of slots. */
typedef struct Val {
  const RxExpr *var;
  int *slots;
  int n;
  bool tuple;
} Val;

typedef struct Step {
  const char *func;
  int *args; /* slot ids: inputs then outputs */
  int nargs;
} Step;

struct DrvGpuPlan {
  DrvGpu *g;
  Slot *slots;
  int nslots, capslots;
  Val *vals;
  int nvals, capvals;
  Step *steps;
  int nsteps, capsteps;
  int *params; /* slot of each graph parameter */
  int nparams;
  Val result;
  char *why;
  size_t whylen;
};

static bool refuse(DrvGpuPlan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool refuse(DrvGpuPlan *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->why, p->whylen, fmt, ap);
  va_end(ap);
  return false;
}

/* A new slot for a tensor of static struct info si; -1 when it is not one. */
static int new_slot(DrvGpuPlan *p, const RxSInfo *si) {
  if (!si || si->kind != RX_SI_TENSOR || si->ndim < 0 || si->ndim > TVS_MAX_NDIM || !si->shape) return -1;
  Slot s;
  memset(&s, 0, sizeof s);
  s.t.ndim = si->ndim;
  s.t.dtype = interp_dl_dtype(si->dtype);
  /* s.t.shape points at s.shape once the slot array stops moving (finish) */
  for (int d = 0; d < si->ndim; d++)
    if (!tir_is_const_int(si->shape[d], &s.shape[d]) || s.shape[d] < 0) return -1;
  VEC_PUSH(p->slots, p->nslots, p->capslots, s);
  return p->nslots - 1;
}

static Val *find_val(DrvGpuPlan *p, const RxExpr *var) {
  for (int i = p->nvals - 1; i >= 0; i--)
    if (p->vals[i].var == var) return &p->vals[i];
  return NULL;
}

static void bind_val(DrvGpuPlan *p, const RxExpr *var, const int *slots, int n, bool tuple) {
  Val v = {var, xmalloc((size_t)(n ? n : 1) * sizeof(int)), n, tuple};
  memcpy(v.slots, slots, (size_t)n * sizeof(int));
  VEC_PUSH(p->vals, p->nvals, p->capvals, v);
}

/* The slots an argument expression denotes (a var, a constant, a tuple of
 * those); false when it is something else. */
static bool arg_slots(DrvGpuPlan *p, const RxExpr *e, int **out, int *n, int *cap) {
  if (e->kind == RX_VAR || e->kind == RX_DATAFLOW_VAR) {
    Val *v = find_val(p, e);
    if (!v) return refuse(p, "variable '%s' is not a device tensor", e->var.name);
    for (int i = 0; i < v->n; i++) VEC_PUSH(*out, *n, *cap, v->slots[i]);
    return true;
  }
  if (e->kind == RX_CONST) {
    if (e->cnst.ndim > TVS_MAX_NDIM) return refuse(p, "a constant of too many dimensions");
    Slot c;
    memset(&c, 0, sizeof c);
    c.t.ndim = e->cnst.ndim;
    c.t.dtype = interp_dl_dtype(e->cnst.dtype);
    for (int d = 0; d < e->cnst.ndim; d++) c.shape[d] = e->cnst.shape[d];
    c.cnst = e;
    VEC_PUSH(p->slots, p->nslots, p->capslots, c);
    VEC_PUSH(*out, *n, *cap, p->nslots - 1);
    return true;
  }
  if (e->kind == RX_TUPLE) {
    for (int i = 0; i < e->tuple.n; i++)
      if (!arg_slots(p, e->tuple.fields[i], out, n, cap)) return false;
    return true;
  }
  return refuse(p, "a call_tir argument that is not a tensor variable or constant");
}

/* One call_tir binding: its step and the slots of its outputs. */
static bool plan_call_tir(DrvGpuPlan *p, const RxBinding *bd) {
  const RxExpr *e = bd->value;
  if (e->call.n != 2 || e->call.args[0]->kind != RX_GLOBAL_VAR)
    return refuse(p, "a call_tir with tir_vars (symbolic shapes)");
  Step st = {e->call.args[0]->gvar.name, NULL, 0};
  int cap = 0;
  if (!arg_slots(p, e->call.args[1], &st.args, &st.nargs, &cap)) return free(st.args), false;
  int nout;
  bool tuple;
  const RxSInfo *const *osi = rx_call_outputs(e, &nout, &tuple);
  int outs[16];
  if (nout > 16) return free(st.args), refuse(p, "a call_tir with more than 16 outputs");
  for (int k = 0; k < nout; k++) {
    outs[k] = new_slot(p, osi[k]);
    if (outs[k] < 0) return free(st.args), refuse(p, "an output of '%s' has a symbolic shape", st.func);
    VEC_PUSH(st.args, st.nargs, cap, outs[k]);
  }
  VEC_PUSH(p->steps, p->nsteps, p->capsteps, st);
  bind_val(p, bd->var, outs, nout, tuple);
  return true;
}

static bool plan_binding(DrvGpuPlan *p, const RxBinding *bd) {
  const RxExpr *e = bd->value;
  if (bd->cast_to) return refuse(p, "R.match_cast");
  if (e->kind == RX_CALL && e->call.op && e->call.op->id == RX_OP_CALL_TIR) return plan_call_tir(p, bd);
  if (e->kind == RX_VAR || e->kind == RX_DATAFLOW_VAR) {
    Val *v = find_val(p, e);
    if (!v) return refuse(p, "variable '%s' is not a device tensor", e->var.name);
    bind_val(p, bd->var, v->slots, v->n, v->tuple);
    return true;
  }
  if (e->kind == RX_TUPLE_GET_ITEM) {
    Val *v = find_val(p, e->get.tuple);
    if (!v || !v->tuple || e->get.index < 0 || e->get.index >= v->n) return refuse(p, "a tuple item of no device tuple");
    bind_val(p, bd->var, &v->slots[e->get.index], 1, false);
    return true;
  }
  if (e->kind == RX_TUPLE) {
    int *s = NULL, n = 0, cap = 0;
    bool ok = arg_slots(p, e, &s, &n, &cap);
    if (ok) bind_val(p, bd->var, s, n, true);
    free(s);
    return ok;
  }
  return refuse(p, "a binding that is not a call_tir (%s)",
                e->kind == RX_CALL && e->call.op ? e->call.op->script_name : "an expression");
}

/* Device buffers for every slot; the constants uploaded. */
static int finish(DrvGpuPlan *p, char *err, size_t errlen) {
  for (int i = 0; i < p->nslots; i++) {
    Slot *s = &p->slots[i];
    s->t.shape = s->shape;
    const RxExpr *c = s->cnst;
    s->bytes = tvs_ndarray_nbytes(&s->t);
    s->t.data = drv_gpu_alloc(p->g, s->bytes ? s->bytes : 1, err, errlen);
    if (!s->t.data) return -1;
    if (c && (int64_t)s->bytes != c->cnst.nbytes) return snprintf(err, errlen, "a constant's data has the wrong size"), -1;
    if (c && s->bytes && p->g->api->copy_to(p->g->dev, s->t.data, c->cnst.data, s->bytes, err, errlen)) return -1;
  }
  return 0;
}

static bool plan_function(DrvGpuPlan *p, const RxFunc *f) {
  p->params = xcalloc((size_t)(f->nparams ? f->nparams : 1), sizeof *p->params);
  for (int i = 0; i < f->nparams; i++) {
    int sl = new_slot(p, f->params[i]->sinfo);
    if (sl < 0) return refuse(p, "parameter '%s' is not a tensor of static shape", f->params[i]->var.name);
    p->params[p->nparams++] = sl;
    bind_val(p, f->params[i], &sl, 1, false);
  }
  const RxExpr *body = f->body;
  if (!body || body->kind != RX_SEQ) return refuse(p, "the body is not a sequence of bindings");
  for (int b = 0; b < body->seq.nblocks; b++)
    for (int i = 0; i < body->seq.blocks[b].n; i++)
      if (!plan_binding(p, &body->seq.blocks[b].bindings[i])) return false;
  int *s = NULL, n = 0, cap = 0;
  bool ok = arg_slots(p, body->seq.body, &s, &n, &cap);
  p->result = (Val){NULL, s, n, body->seq.body->kind == RX_TUPLE};
  return ok;
}

DrvGpuPlan *drv_gpu_plan_new(DrvGpu *g, const IrModule *legal, const char *fname, char *why, size_t whylen,
                             char *err, size_t errlen) {
  const IrGlobal *gl = ir_module_lookup(legal, fname);
  if (!gl || gl->kind != IR_FUNC_RELAX) return snprintf(why, whylen, "no graph function '%s'", fname), NULL;
  DrvGpuPlan *p = xcalloc(1, sizeof *p);
  p->g = g;
  p->why = why;
  p->whylen = whylen;
  if (!plan_function(p, gl->rx)) {
    drv_gpu_plan_free(p);
    return NULL;
  }
  if (finish(p, err, errlen)) {
    snprintf(why, whylen, "%s", err);
    drv_gpu_plan_free(p);
    return NULL;
  }
  return p;
}

static int copy_inputs(DrvGpuPlan *p, InterpArg *args, int nargs, char *err, size_t errlen) {
  if (nargs != p->nparams) return snprintf(err, errlen, "%d arguments for %d parameters", nargs, p->nparams), -1;
  for (int i = 0; i < nargs; i++) {
    const Slot *s = &p->slots[p->params[i]];
    const DLTensor *t = args[i].tensor;
    bool same = t && t->ndim == s->t.ndim && t->dtype.code == s->t.dtype.code && t->dtype.bits == s->t.dtype.bits;
    for (int d = 0; same && d < t->ndim; d++) same = t->shape[d] == s->shape[d];
    if (!same) return snprintf(err, errlen, "argument %d is not a tensor of the parameter's shape and dtype", i), -1;
    if (s->bytes && p->g->api->copy_to(p->g->dev, s->t.data, t->data, s->bytes, err, errlen)) return -1;
  }
  return 0;
}

int drv_gpu_plan_run(DrvGpuPlan *p, InterpArg *args, int nargs, DLTensor ***results, int *nresults, char *err,
                     size_t errlen) {
  *results = NULL;
  *nresults = 0;
  if (copy_inputs(p, args, nargs, err, errlen)) return -1;
  void *bufs[64];
  const DLTensor *shapes[64];
  for (int i = 0; i < p->nsteps; i++) {
    const Step *st = &p->steps[i];
    if (st->nargs > 64) return snprintf(err, errlen, "'%s' takes more than 64 tensors", st->func), -1;
    for (int k = 0; k < st->nargs; k++) bufs[k] = p->slots[st->args[k]].t.data, shapes[k] = &p->slots[st->args[k]].t;
    if (drv_gpu_launch(p->g, st->func, bufs, shapes, st->nargs, err, errlen)) return -1;
  }
  if (p->g->api->sync(p->g->dev, err, errlen)) return -1;
  DLTensor **res = xcalloc((size_t)(p->result.n ? p->result.n : 1), sizeof *res);
  for (int k = 0; k < p->result.n; k++) {
    const Slot *s = &p->slots[p->result.slots[k]];
    TvsNDArray *a = tvs_ndarray_empty(s->t.ndim, s->shape, s->t.dtype);
    res[k] = &a->t;
    if (s->bytes && p->g->api->copy_from(p->g->dev, a->t.data, s->t.data, s->bytes, err, errlen)) {
      for (int j = 0; j <= k; j++) tvs_ndarray_free((TvsNDArray *)(void *)res[j]);
      free(res);
      return -1;
    }
  }
  *results = res;
  *nresults = p->result.n;
  return 0;
}

void drv_gpu_plan_free(DrvGpuPlan *p) {
  if (!p) return;
  for (int i = 0; i < p->nslots; i++) drv_gpu_release(p->g, p->slots[i].t.data, p->slots[i].bytes ? p->slots[i].bytes : 1);
  for (int i = 0; i < p->nvals; i++) free(p->vals[i].slots);
  for (int i = 0; i < p->nsteps; i++) free(p->steps[i].args);
  free(p->result.slots);
  free(p->slots);
  free(p->vals);
  free(p->steps);
  free(p->params);
  free(p);
}
