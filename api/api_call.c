/* api_call.c - tvs/build.h, calling: a function's parameters from its
 * metadata, one call on DLPack tensors and scalars, and TVM-style timing. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api_internal.h"

int tvs_function_num_params(const TvsFunction *f) { return f && f->info ? f->info->num_params : -1; }

int tvs_function_num_outputs(const TvsFunction *f) { return f && f->info ? f->info->num_outputs : 0; }

double tvs_function_flops(const TvsFunction *f) { return f && f->info ? f->info->flops : -1; }

int tvs_function_param(const TvsFunction *f, int i, const char **name, int *type, DLDataType *dtype, int *ndim,
                       const int64_t **shape, const char *const **sym_dims) {
  api_clear_error();
  if (!f || !f->info) return api_fail(TVS_ERR_ARGUMENT, "tvs_function_param: no metadata for this function");
  if (i < 0 || i >= f->info->num_params)
    return api_fail(TVS_ERR_ARGUMENT, "tvs_function_param: index %d out of range (%d params)", i,
                    f->info->num_params);
  const TVSParamInfo *p = &f->info->params[i];
  if (name) *name = p->name;
  if (type) *type = p->type_code == TVS_TENSOR ? TVS_ARG_TENSOR : p->type_code == TVS_FLOAT ? TVS_ARG_FLOAT : TVS_ARG_INT;
  if (dtype) *dtype = p->dtype;
  if (ndim) *ndim = p->ndim;
  if (shape) *shape = p->shape;
  if (sym_dims) *sym_dims = p->sym_dims;
  return TVS_OK;
}

/* Packs args into f's scratch; TVS_OK or TVS_ERR_ARGUMENT. */
static int pack(TvsFunction *f, const TvsArg *args, int nargs) {
  if (nargs < 0 || (nargs && !args)) return api_fail(TVS_ERR_ARGUMENT, "tvs_function_call: bad argument array");
  if (nargs > f->cap) {
    f->cap = nargs;
    f->vals = xrealloc(f->vals, (size_t)nargs * sizeof *f->vals);
    f->codes = xrealloc(f->codes, (size_t)nargs * sizeof *f->codes);
  }
  for (int i = 0; i < nargs; i++) {
    switch (args[i].type) {
      case TVS_ARG_TENSOR:
        if (!args[i].tensor) return api_fail(TVS_ERR_ARGUMENT, "argument %d: NULL tensor", i);
        f->vals[i].v_handle = args[i].tensor;
        f->codes[i] = TVS_TENSOR;
        break;
      case TVS_ARG_INT: f->vals[i].v_int64 = args[i].i; f->codes[i] = TVS_INT; break;
      case TVS_ARG_FLOAT: f->vals[i].v_float64 = args[i].f; f->codes[i] = TVS_FLOAT; break;
      default: return api_fail(TVS_ERR_ARGUMENT, "argument %d: unknown TvsArgType %d", i, (int)args[i].type);
    }
  }
  return TVS_OK;
}

static int call_packed(TvsFunction *f, int nargs) {
  TVSValue ret;
  int rcode;
  if (tvs_func_call(f->fn, f->vals, f->codes, nargs, &ret, &rcode))
    return api_fail(TVS_ERR_RUN, "%s", tvs_get_last_error());
  return TVS_OK;
}

int tvs_function_call(TvsFunction *f, const TvsArg *args, int nargs) {
  if (!f) return api_fail(TVS_ERR_ARGUMENT, "tvs_function_call: NULL function");
  int rc = pack(f, args, nargs);
  return rc ? rc : call_packed(f, nargs);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Milliseconds for n calls; < 0 when a call fails. */
static double time_calls(TvsFunction *f, int nargs, int n) {
  double t0 = now_ms();
  for (int k = 0; k < n; k++)
    if (call_packed(f, nargs)) return -1;
  return now_ms() - t0;
}

int tvs_function_time(TvsFunction *f, const TvsArg *args, int nargs, int number, int repeat, double min_repeat_ms,
                      double *results) {
  api_clear_error();
  if (!f || !results || repeat <= 0) return api_fail(TVS_ERR_ARGUMENT, "tvs_function_time: bad argument");
  int rc = pack(f, args, nargs);
  if (rc || (rc = call_packed(f, nargs))) return rc; /* the warm-up call */
  int n = number > 0 ? number : 1;
  for (int r = 0; r < repeat; r++) {
    double ms = time_calls(f, nargs, n);
    /* As TVM's min_repeat_ms: grow the number of calls until a group lasts long enough. */
    while (ms >= 0 && ms < min_repeat_ms && n < (1 << 24)) {
      double grow = ms > 0 ? min_repeat_ms / ms * 1.2 : 10;
      double next = (double)n * (grow < 2 ? 2 : grow > 1000 ? 1000 : grow);
      n = next > (double)(1 << 24) ? (1 << 24) : (int)next;
      ms = time_calls(f, nargs, n);
    }
    if (ms < 0) return TVS_ERR_RUN;
    results[r] = ms / 1e3 / n;
  }
  return TVS_OK;
}
