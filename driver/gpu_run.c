/* gpu_run.c - GPU targets (cuda, opencl) in the driver: lowering on the GPU
 * pipeline, the device code (OpenCL C or PTX) and running a lowered prim_func
 * on a device.  The host side of a GPU prim_func is what split-host-device
 * left: launches (T.call_extern of a kernel with its launch extents), host
 * allocations and serial loops around them; this file steps through it,
 * copying the tensors in before and out after. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "codegen/gpu_codegen.h"
#include "driver/gpu.h"
#include "driver/run.h"
#include "ir/arith.h"
#include "ir/transform.h"

IrModule *drv_gpu_lower(const IrModule *m, const char *target, const char *stage, DiagCtx *d) {
  bool graph = false;
  for (int i = 0; i < m->nfuncs; i++) graph |= m->funcs[i].kind == IR_FUNC_RELAX;
  IrModule *legal = graph ? drv_gpu_graph_prepare(m, d) : NULL;
  if (graph && !legal) return NULL;
  IrModule *only = graph ? drv_tir_only(legal) : NULL;
  int last = stage ? tir_gpu_pipeline_index(stage) : -1;
  IrModule *low = tir_lower_gpu(graph ? only : m, target, last, d, NULL, NULL);
  ir_module_free(only);
  ir_module_free(legal);
  return low;
}

char *drv_gpu_device_code(const IrModule *low, const char *target, const CgOptions *cg, bool llvm_ir, DiagCtx *d) {
  if (!strcmp(target, "opencl")) return cg_opencl_source(low, d);
  const char *sm = cg && cg->mcpu && cg->mcpu[0] && strcmp(cg->mcpu, "native") ? cg->mcpu : "sm_80";
  return cg_nvptx_source(low, sm, cg ? cg->opt_level : 3, llvm_ir, d);
}

/* ---------------------------------------------------------------- running */

typedef struct IntVal { const TirVar *var; int64_t val; } IntVal;
typedef struct FloatVal { const TirVar *var; double val; } FloatVal;
typedef struct DevBuf { const TirVar *data; void *buf; size_t bytes; } DevBuf;

/* What the host walk knows: var values and device buffers. */
typedef struct Host {
  DrvGpu *g;             /* the device's buffer pool */
  const TvsDeviceAPI *api;
  TvsDevice *dev;
  const IrModule *low;
  IntVal *vars;          /* int vars (params, loop vars, lets), innermost last */
  int nvars, capvars;
  FloatVal *fvars;       /* float scalar params */
  int nf, capf;
  DevBuf *bufs;          /* data vars -> device buffers */
  int nbufs, capbufs;
  char *err;
  size_t errlen;
} Host;

static bool lookup(void *ctx, const TirVar *v, int64_t *out) {
  Host *h = ctx;
  for (int i = h->nvars - 1; i >= 0; i--)
    if (h->vars[i].var == v) {
      *out = h->vars[i].val;
      return true;
    }
  return false;
}

static void bind_int(Host *h, const TirVar *v, int64_t val) {
  VEC_PUSH(h->vars, h->nvars, h->capvars, ((IntVal){v, val}));
}

static void *device_buffer(Host *h, const TirVar *data) {
  for (int i = h->nbufs - 1; i >= 0; i--)
    if (h->bufs[i].data == data) return h->bufs[i].buf;
  return NULL;
}

static void add_buffer(Host *h, const TirVar *data, void *buf, size_t bytes) {
  VEC_PUSH(h->bufs, h->nbufs, h->capbufs, ((DevBuf){data, buf, bytes}));
}

/* Device buffers are pooled by size: a graph's kernels allocate the same
 * sizes run after run, and freeing device memory synchronizes the device
 * (cuMemFree), so a released buffer waits in the pool for the next alloc. */
void *drv_gpu_alloc(DrvGpu *g, size_t bytes, char *err, size_t errlen) {
  for (int i = g->npool - 1; i >= 0; i--)
    if (g->pool[i].bytes == bytes) {
      void *buf = g->pool[i].buf;
      g->pool[i] = g->pool[--g->npool];
      return buf;
    }
  return g->api->alloc(g->dev, bytes, err, errlen);
}

void drv_gpu_release(DrvGpu *g, void *buf, size_t bytes) {
  if (buf) VEC_PUSH(g->pool, g->npool, g->cappool, ((DrvGpuBuf){buf, bytes}));
}

static int fail(Host *h, const char *fmt, const char *a) {
  snprintf(h->err, h->errlen, fmt, a);
  return -1;
}

/* One kernel argument from the launch's expression. */
static int kernel_arg(Host *h, const TirExpr *e, TvsKernelArg *out) {
  if (dt_is_handle(e->dtype)) {
    out->kind = TVS_KARG_PTR;
    out->ptr = e->kind == TIR_VAR ? device_buffer(h, e->var) : NULL;
    return out->ptr ? 0 : fail(h, "a kernel argument is not a device buffer (%s)", e->kind == TIR_VAR ? e->var->name : "?");
  }
  if (dt_is_float(e->dtype)) {
    for (int i = 0; e->kind == TIR_VAR && i < h->nf; i++)
      if (h->fvars[i].var == e->var) {
        out->kind = e->dtype.bits == 64 ? TVS_KARG_F64 : TVS_KARG_F32;
        if (out->kind == TVS_KARG_F64) out->f64 = h->fvars[i].val;
        else out->f32 = (float)h->fvars[i].val;
        return 0;
      }
    return fail(h, "a float kernel argument is not a scalar parameter%s", "");
  }
  int64_t v;
  if (!arith_eval_int(e, lookup, h, &v)) return fail(h, "a kernel argument cannot be evaluated on the host%s", "");
  if (e->dtype.bits == 64) out->kind = TVS_KARG_I64, out->i64 = v;
  else out->kind = TVS_KARG_I32, out->i32 = (int32_t)v;
  return 0;
}

static int launch(Host *h, const TirExpr *call) {
  const char *name = call->call.args[0]->str;
  const IrGlobal *g = ir_module_lookup(h->low, name);
  if (!g || g->kind != IR_FUNC_TIR) return fail(h, "no kernel '%s'", name);
  int np = g->tir->nparams;
  const IrValue *tags = irv_dict_get(g->tir->attrs, "tir.kernel_launch_params");
  int nt = tags && tags->kind == IRV_ARRAY ? tags->n : 0;
  if (call->call.n != 1 + np + nt) return fail(h, "launch of '%s' has the wrong number of arguments", name);
  TvsKernelArg *args = xcalloc((size_t)(np ? np : 1), sizeof *args);
  int rc = 0;
  for (int i = 0; i < np && !rc; i++) rc = kernel_arg(h, call->call.args[1 + i], &args[i]);
  int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  for (int i = 0; i < nt && !rc; i++) {
    const char *tag = tags->items[i]->s;
    int64_t ext;
    if (!arith_eval_int(call->call.args[1 + np + i], lookup, h, &ext) || ext <= 0) {
      rc = fail(h, "launch extent of %s cannot be evaluated (or is not positive)", tag);
      break;
    }
    int dim = tag[strlen(tag) - 1] - 'x';
    if (dim < 0 || dim > 2) continue;
    if (!strncmp(tag, "blockIdx.", 9)) grid[dim] = ext;
    else block[dim] = ext;
  }
  if (!rc) rc = h->api->launch(h->dev, name, args, np, grid, block, h->err, h->errlen);
  free(args);
  return rc;
}

static int walk(Host *h, const TirStmt *s);

static int host_alloc(Host *h, const TirStmt *s) {
  int64_t n = 1;
  for (int i = 0; i < s->alloc.n; i++) {
    int64_t e;
    if (!arith_eval_int(s->alloc.extents[i], lookup, h, &e) || e < 0)
      return fail(h, "the size of allocation '%s' cannot be evaluated", s->alloc.var->name);
    n *= e;
  }
  size_t bytes = (size_t)n * dt_bytes(s->alloc.dtype);
  void *buf = drv_gpu_alloc(h->g, bytes, h->err, h->errlen);
  if (!buf) return -1;
  int saved = h->nbufs;
  add_buffer(h, s->alloc.var, buf, bytes);
  int rc = walk(h, s->alloc.body);
  h->nbufs = saved;
  drv_gpu_release(h->g, buf, bytes);
  return rc;
}

static int host_loop(Host *h, const TirStmt *s) {
  int64_t mn, ext;
  if (!arith_eval_int(s->loop.min, lookup, h, &mn) || !arith_eval_int(s->loop.extent, lookup, h, &ext))
    return fail(h, "the range of host loop '%s' cannot be evaluated", s->loop.var->name);
  int saved = h->nvars, rc = 0;
  bind_int(h, s->loop.var, mn);
  for (int64_t i = mn; i < mn + ext && !rc; i++) {
    h->vars[saved].val = i;
    rc = walk(h, s->loop.body);
  }
  h->nvars = saved;
  return rc;
}

static int walk(Host *h, const TirStmt *s) {
  if (!s) return 0;
  switch (s->kind) {
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++)
        if (walk(h, s->seq.stmts[i])) return -1;
      return 0;
    case TIR_S_EVAL: {
      const TirExpr *c = s->eval.value;
      if (c->kind == TIR_CALL && c->call.op->id == TIR_OP_CALL_EXTERN && c->call.n >= 1 &&
          c->call.args[0]->kind == TIR_STR)
        return launch(h, c);
      return 0;
    }
    case TIR_S_ALLOCATE: return host_alloc(h, s);
    case TIR_S_FOR: return host_loop(h, s);
    case TIR_S_DECL_BUFFER: return walk(h, s->decl.body);
    case TIR_S_ATTR: return walk(h, s->attr.body);
    case TIR_S_ASSERT: return walk(h, s->assrt.body);
    case TIR_S_LET: {
      int64_t v;
      if (!arith_eval_int(s->let.value, lookup, h, &v)) return fail(h, "host let '%s' is not an integer", s->let.var->name);
      int saved = h->nvars;
      bind_int(h, s->let.var, v);
      int rc = walk(h, s->let.body);
      h->nvars = saved;
      return rc;
    }
    default: return fail(h, "host statement %s cannot run on the host of a GPU target", tir_stmt_kind_name(s->kind));
  }
}

/* Params: tensors to device buffers (copied in), scalars and shape vars bound. */
static int bind_params(Host *h, const TirFunc *f, InterpArg *args, int nargs) {
  if (nargs != f->nparams) return fail(h, "wrong number of arguments%s", "");
  for (int i = 0; i < nargs; i++) {
    const TirBuffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) {
      if (dt_is_float(f->params[i]->dtype)) {
        VEC_PUSH(h->fvars, h->nf, h->capf, ((FloatVal){f->params[i], args[i].f}));
      } else {
        bind_int(h, f->params[i], args[i].i);
      }
      continue;
    }
    DLTensor *t = args[i].tensor;
    if (!t || t->ndim != b->ndim) return fail(h, "argument '%s' is not a tensor of the buffer's rank", b->name);
    for (int k = 0; k < b->ndim; k++)
      if (b->shape[k]->kind == TIR_VAR) bind_int(h, b->shape[k]->var, t->shape[k]);
    size_t bytes = tvs_ndarray_nbytes(t);
    void *buf = drv_gpu_alloc(h->g, bytes, h->err, h->errlen);
    if (!buf) return -1;
    add_buffer(h, b->data, buf, bytes);
    if (h->api->copy_to(h->dev, buf, t->data, bytes, h->err, h->errlen)) return -1;
  }
  return 0;
}

static int copy_out(Host *h, const TirFunc *f, InterpArg *args) {
  if (h->api->sync(h->dev, h->err, h->errlen)) return -1;
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b || !args[i].tensor) continue; /* the kernels write: copy every tensor back */
    void *buf = device_buffer(h, b->data);
    if (h->api->copy_from(h->dev, args[i].tensor->data, buf, tvs_ndarray_nbytes(args[i].tensor), h->err, h->errlen))
      return -1;
  }
  return 0;
}

int drv_gpu_open(DrvGpu *g, const IrModule *low, const char *target, const CgOptions *cg, DiagCtx *d, char *err,
                 size_t errlen) {
  memset(g, 0, sizeof *g);
  g->low = low;
  g->api = tvs_device_api(target);
  if (!g->api) return snprintf(err, errlen, "unknown GPU target '%s'", target), -1;
  /* the device first: without one, say so before compiling */
  g->dev = g->api->open(err, errlen);
  if (!g->dev) return -1;
  char *code = drv_gpu_device_code(low, target, cg, false, d);
  if (!code) return -2;
  int rc = g->api->load(g->dev, code, err, errlen);
  free(code);
  return rc;
}

/* Runs the launches `reps` more times after the first, each timed to the
 * device's completion: kernels only, the copies and allocations outside. */
static int time_launches(Host *h, const TirFunc *f, int reps, double *median_ms) {
  double *t = xcalloc((size_t)reps, sizeof *t);
  int rc = 0;
  for (int i = 0; i < reps && !rc; i++) {
    double t0 = drv_now_ms();
    rc = walk(h, f->body);
    if (!rc) rc = h->api->sync(h->dev, h->err, h->errlen);
    t[i] = drv_now_ms() - t0;
  }
  if (!rc) *median_ms = drv_median(t, reps);
  free(t);
  return rc;
}

int drv_gpu_call(DrvGpu *g, const char *func, InterpArg *args, int nargs, char *err, size_t errlen) {
  return drv_gpu_time(g, func, args, nargs, 0, NULL, err, errlen);
}

int drv_gpu_time(DrvGpu *g, const char *func, InterpArg *args, int nargs, int reps, double *median_ms, char *err,
                 size_t errlen) {
  const IrGlobal *fg = ir_module_lookup(g->low, func);
  if (!fg || fg->kind != IR_FUNC_TIR) return snprintf(err, errlen, "no function '%s'", func), -1;
  Host h = {.g = g, .api = g->api, .dev = g->dev, .low = g->low, .err = err, .errlen = errlen};
  int rc = bind_params(&h, fg->tir, args, nargs);
  if (!rc) rc = walk(&h, fg->tir->body);
  if (!rc && reps > 0) rc = h.api->sync(h.dev, err, errlen); /* the first run warms up (module JIT, caches) */
  if (!rc && reps > 0) rc = time_launches(&h, fg->tir, reps, median_ms);
  if (!rc) rc = copy_out(&h, fg->tir, args);
  for (int i = 0; i < h.nbufs; i++) drv_gpu_release(g, h.bufs[i].buf, h.bufs[i].bytes);
  free(h.vars);
  free(h.fvars);
  free(h.bufs);
  return rc;
}

/* The tensor params are the device buffers bufs[i] shaped like shapes[i]
 * (size vars bound from them); scalars are not taken. */
int drv_gpu_launch(DrvGpu *g, const char *func, void *const *bufs, const DLTensor *const *shapes, int nargs,
                   char *err, size_t errlen) {
  const IrGlobal *fg = ir_module_lookup(g->low, func);
  if (!fg || fg->kind != IR_FUNC_TIR) return snprintf(err, errlen, "no function '%s'", func), -1;
  const TirFunc *f = fg->tir;
  Host h = {.g = g, .api = g->api, .dev = g->dev, .low = g->low, .err = err, .errlen = errlen};
  int rc = nargs == f->nparams ? 0 : fail(&h, "wrong number of arguments to '%s'", func);
  for (int i = 0; i < nargs && !rc; i++) {
    const TirBuffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b || shapes[i]->ndim != b->ndim) {
      rc = fail(&h, "argument of '%s' is not a tensor of the buffer's rank", func);
      break;
    }
    for (int k = 0; k < b->ndim; k++)
      if (b->shape[k]->kind == TIR_VAR) bind_int(&h, b->shape[k]->var, shapes[i]->shape[k]);
    add_buffer(&h, b->data, bufs[i], 0);
  }
  if (!rc) rc = walk(&h, f->body);
  free(h.vars);
  free(h.fvars);
  free(h.bufs);
  return rc;
}

void drv_gpu_close(DrvGpu *g) {
  if (g->api && g->dev)
    for (int i = 0; i < g->npool; i++) g->api->release(g->dev, g->pool[i].buf);
  free(g->pool);
  if (g->api && g->dev) g->api->close(g->dev);
  memset(g, 0, sizeof *g);
}
