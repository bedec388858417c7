/* interp_call.c - the interpreter's calls between prim_funcs of one module.
 *
 * `Module.f(A.data, n)` (CALL_GLOBAL) runs f in a fresh interpreter frame, as
 * a direct call: a handle argument passes the caller's memory behind that
 * data pointer (to a raw handle parameter, or to a buffer parameter of a
 * static shape that fits in it), a scalar its value; the callee's T.ret gives
 * the call's value (zero when it returns none). */
#include "ir/interp_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The memory behind handle argument a as a tensor for parameter i of f. */
static int handle_arg(Interp *in, const TirExpr *a, const TirFunc *f, int i, DLTensor *t, int64_t *shape) {
  const char *pn = f->params[i]->name;
  int st = a->kind == TIR_VAR ? interp_find_storage(in, a->var) : -1;
  if (st < 0)
    return interp_error(in, a->span, "argument '%s' of the call: the handle has no memory the interpreter "
                        "knows (pass a buffer's data pointer, e.g. A.data)", pn);
  const IStorage *s = &in->stores[st];
  const TirBuffer *b = f->buffer_map[i];
  memset(t, 0, sizeof *t);
  t->data = s->data;
  t->device.device_type = kDLCPU;
  t->shape = shape;
  if (!b) { /* a raw handle: all the bytes behind it */
    t->ndim = 1;
    t->dtype = (DLDataType){kDLUInt, 8, 1};
    shape[0] = (int64_t)s->nbytes;
    return 0;
  }
  if (b->ndim > INTERP_MAX_DIMS) return interp_error(in, a->span, "argument '%s' has too many dimensions", pn);
  uint64_t n = dt_bytes(b->dtype);
  for (int d = 0; d < b->ndim; d++) {
    if (!tir_is_const_int(b->shape[d], &shape[d]) || shape[d] < 0)
      return interp_error(in, a->span, "argument '%s' of the call: a buffer parameter of a symbolic shape "
                          "cannot take a data pointer in the interpreter", pn);
    n *= (uint64_t)shape[d];
  }
  if (n > s->nbytes)
    return interp_error(in, a->span, "argument '%s' of the call: the buffer needs %llu bytes but the "
                        "memory passed holds %llu", pn, (unsigned long long)n, (unsigned long long)s->nbytes);
  t->ndim = b->ndim;
  t->dtype = interp_dl_dtype(b->dtype);
  return 0;
}

static int scalar_arg(Interp *in, const TirExpr *a, InterpArg *out) {
  IVal *v = xmalloc(sizeof *v);
  int rc = interp_eval(in, a, v);
  if (rc == 0 && v->t.lanes != 1) rc = interp_error(in, a->span, "a vector cannot be passed to a prim_func");
  if (rc == 0 && dt_is_float(v->t)) {
    out->f = v->v[0].f;
    out->i = (int64_t)v->v[0].f;
  } else if (rc == 0) {
    out->i = v->v[0].i;
    out->f = (double)v->v[0].i;
  }
  free(v);
  return rc;
}

int interp_call_global(Interp *in, const TirExpr *e, IVal *out) {
  const char *name = e->call.n > 0 && e->call.args[0]->kind == TIR_STR ? e->call.args[0]->str : "?";
  const IrGlobal *g = in->mod ? ir_module_lookup(in->mod, name) : NULL;
  if (!g || g->kind != IR_FUNC_TIR)
    return interp_error(in, e->span, "the module has no prim_func '%s' to call", name);
  if (in->depth + 1 >= INTERP_MAX_DEPTH)
    return interp_error(in, e->span, "calls of prim_funcs nested more than %d deep", INTERP_MAX_DEPTH);
  const TirFunc *f = g->tir;
  int n = e->call.n - 1;
  if (n != f->nparams)
    return interp_error(in, e->span, "'%s' takes %d arguments but the call passes %d", name, f->nparams, n);
  InterpArg *args = xcalloc((size_t)n + 1, sizeof *args);
  DLTensor *ts = xcalloc((size_t)n + 1, sizeof *ts);
  int64_t(*shapes)[INTERP_MAX_DIMS] = xcalloc((size_t)n + 1, sizeof *shapes);
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    const TirExpr *a = e->call.args[i + 1];
    if (dt_is_handle(f->params[i]->dtype)) {
      rc = handle_arg(in, a, f, i, &ts[i], shapes[i]);
      args[i].tensor = &ts[i];
    } else {
      rc = scalar_arg(in, a, &args[i]);
    }
  }
  memset(out, 0, sizeof *out);
  out->t = dt_is_void(e->dtype) ? dt_int32 : e->dtype;
  if (rc == 0) rc = interp_call_tir_ret(in->mod, f, name, args, n, in->diag, in->depth + 1, out);
  free(shapes);
  free(ts);
  free(args);
  return rc;
}
