/* run.c - building the arguments of a function and calling it: shape
 * evaluation over bound size vars, output detection, packing, and a runner
 * that calls a prim_func JIT-compiled or on the interpreter. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "driver/run.h"
#include "ir/arith.h"

/* ------------------------------------------------------------ arguments */

DLDataType drv_dl_dtype(DType t) {
  DLDataType d = {kDLFloat, (uint8_t)t.bits, 1};
  switch (t.code) {
    case DT_INT: d.code = kDLInt; break;
    case DT_UINT: d.code = kDLUInt; break;
    case DT_BFLOAT: d.code = kDLBfloat; break;
    case DT_BOOL: d.code = kDLBool, d.bits = 8; break;
    default: break;
  }
  if (d.bits < 8) d.bits = 8; /* int4 / int1 live one byte per element, as the interpreter stores them */
  return d;
}

bool drv_lookup(const DrvBindings *b, const TirVar *var, int64_t *out) {
  for (int i = 0; i < b->n; i++)
    if (b->v[i].var == var) return *out = b->v[i].value, true;
  return false;
}

void drv_bind(DrvBindings *b, const TirVar *var, int64_t value) {
  int64_t old;
  if (drv_lookup(b, var, &old)) return;
  VEC_PUSH(b->v, b->n, b->cap, ((FlopBinding){var, value}));
}

void drv_bindings_free(DrvBindings *b) {
  free(b->v);
  b->v = NULL;
  b->n = b->cap = 0;
}

static bool lookup_cb(void *ctx, const TirVar *v, int64_t *out) { return drv_lookup(ctx, v, out); }

bool drv_eval_shape(const TirExpr *e, const DrvBindings *b, int64_t *out) {
  return arith_eval_int(e, lookup_cb, (void *)b, out);
}

DrvAllocStatus drv_alloc_buffer(const TirBuffer *buf, const DrvBindings *b, TvsNDArray **out, int *bad_dim,
                                int64_t *bad_value) {
  int64_t shape[TVS_MAX_NDIM];
  *out = NULL;
  if (buf->ndim > TVS_MAX_NDIM) return DRV_ALLOC_NDIM;
  for (int k = 0; k < buf->ndim; k++) {
    DrvAllocStatus st = DRV_ALLOC_OK;
    if (!drv_eval_shape(buf->shape[k], b, &shape[k])) st = DRV_ALLOC_SYMBOLIC;
    else if (shape[k] < 0) st = DRV_ALLOC_NEGATIVE;
    if (st == DRV_ALLOC_OK) continue;
    if (bad_dim) *bad_dim = k;
    if (bad_value) *bad_value = shape[k];
    return st;
  }
  *out = tvs_ndarray_empty(buf->ndim, shape, drv_dl_dtype(buf->dtype));
  return *out ? DRV_ALLOC_OK : DRV_ALLOC_TOO_LARGE;
}

static bool block_writes(const TirBlock *b, const TirVar *v) {
  for (int i = 0; i < b->nwrites; i++)
    if (b->writes[i].buffer->data == v) return true;
  for (int i = 0; i < b->nmatches; i++)
    if (b->matches[i].source.buffer->data == v && drv_stmt_writes(b->body, b->matches[i].buffer->data))
      return true;
  return drv_stmt_writes(b->init, v) || drv_stmt_writes(b->body, v);
}

bool drv_stmt_writes(const TirStmt *s, const TirVar *v) {
  if (!s) return false;
  switch (s->kind) {
    case TIR_S_STORE: return s->store.buf->data == v;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++)
        if (drv_stmt_writes(s->seq.stmts[i], v)) return true;
      return false;
    case TIR_S_FOR: return drv_stmt_writes(s->loop.body, v);
    case TIR_S_IF: return drv_stmt_writes(s->ifs.then_s, v) || drv_stmt_writes(s->ifs.else_s, v);
    case TIR_S_LET: return drv_stmt_writes(s->let.body, v);
    case TIR_S_ASSERT: return drv_stmt_writes(s->assrt.body, v);
    case TIR_S_WHILE: return drv_stmt_writes(s->loop_while.body, v);
    case TIR_S_BLOCK_REALIZE: return drv_stmt_writes(s->realize.block, v);
    case TIR_S_BLOCK: return block_writes(&s->block, v);
    case TIR_S_ALLOCATE: return drv_stmt_writes(s->alloc.body, v);
    case TIR_S_DECL_BUFFER: return drv_stmt_writes(s->decl.body, v);
    case TIR_S_ATTR: return drv_stmt_writes(s->attr.body, v);
    default: return false;
  }
}

void drv_pack_args(const TirFunc *f, const InterpArg *args, int n, TVSValue *vals, int *codes) {
  for (int i = 0; i < n; i++) {
    if (args[i].tensor) {
      vals[i].v_handle = args[i].tensor;
      codes[i] = TVS_TENSOR;
    } else if (f && dt_is_float(f->params[i]->dtype)) {
      vals[i].v_float64 = args[i].f;
      codes[i] = TVS_FLOAT;
    } else {
      vals[i].v_int64 = args[i].i;
      codes[i] = TVS_INT;
    }
  }
}

/* -------------------------------------------------------------- running */

/* A copy of m holding only the function called func. */
static IrModule *only_function(const IrModule *m, const char *func) {
  IrModule *only = ir_module_copy(m);
  only->nfuncs = 0;
  for (int i = 0; i < m->nfuncs; i++)
    if (!strcmp(m->funcs[i].name, func)) only->funcs[only->nfuncs++] = m->funcs[i];
  return only;
}

DrvRunStatus drv_runner_init(DrvRunner *ru, const IrModule *m, const char *func, const CgOptions *cg,
                             bool only_func, DiagCtx *d) {
  memset(ru, 0, sizeof *ru);
  ru->m = m;
  ru->func = func;
  ru->tf = ir_module_lookup(m, func)->tir;
  if (!cg) return DRV_RUN_OK;
  double t0 = drv_now_ms();
  if (only_func) {
    IrModule *only = only_function(m, func);
    ru->mod = cg_compile_module(only, cg, d);
    ir_module_free(only);
  } else {
    ru->mod = cg_compile_module(m, cg, d);
  }
  ru->compile_ms = drv_now_ms() - t0;
  if (!ru->mod) return DRV_RUN_DIAG;
  ru->fn = tvs_module_get_function(ru->mod, func);
  if (!ru->fn) return DRV_RUN_NO_FUNC;
  int n = ru->tf->nparams;
  ru->vals = xcalloc((size_t)(n ? n : 1), sizeof *ru->vals);
  ru->codes = xcalloc((size_t)(n ? n : 1), sizeof *ru->codes);
  return DRV_RUN_OK;
}

DrvRunStatus drv_runner_call(DrvRunner *ru, InterpArg *args, int nargs, DiagCtx *d) {
  if (!ru->fn) return interp_run_tir(ru->m, ru->func, args, nargs, d) ? DRV_RUN_DIAG : DRV_RUN_OK;
  drv_pack_args(ru->tf, args, nargs, ru->vals, ru->codes);
  TVSValue ret;
  int ret_code = TVS_NULL;
  if (tvs_func_call(ru->fn, ru->vals, ru->codes, nargs, &ret, &ret_code) != 0) return DRV_RUN_CALL;
  return DRV_RUN_OK;
}

void drv_runner_free(DrvRunner *ru) {
  tvs_func_release(ru->fn);
  tvs_module_free(ru->mod);
  free(ru->vals);
  free(ru->codes);
  memset(ru, 0, sizeof *ru);
}

int drv_call_native_tir(void *ctx, const char *name, InterpArg *args, int nargs, DiagCtx *d) {
  TVSFunction *fn = tvs_module_get_function((TVSModule *)ctx, name);
  if (!fn) {
    diag_error(d, span_none, "compiled module has no function '%s'", name);
    return -1;
  }
  TVSValue *v = xcalloc((size_t)(nargs ? nargs : 1), sizeof *v);
  int *codes = xcalloc((size_t)(nargs ? nargs : 1), sizeof *codes);
  drv_pack_args(NULL, args, nargs, v, codes); /* call_tir passes tir_vars as int64 */
  TVSValue ret;
  int ret_code = TVS_NULL;
  int rc = tvs_func_call(fn, v, codes, nargs, &ret, &ret_code);
  if (rc) diag_error(d, span_none, "%s", tvs_get_last_error());
  tvs_func_release(fn);
  free(v);
  free(codes);
  return rc ? -1 : 0;
}
