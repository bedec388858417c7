/* run_model_so.c - calls a model that `tvsc MODEL.onnx -o M.so` compiled, from
 * plain C through the runtime: load the module, look `main` up, allocate its
 * output from the module's metadata, call the packed entry with DLPack tensors
 * and write the output as .npy.
 *   usage: run_model_so M.so OUT.npy IN.npy...   (inputs in main's order) */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/npy.h"
#include "runtime/tvs_runtime.h"

static int fail(const char *what, const char *why) {
  fprintf(stderr, "run_model_so: %s: %s\n", what, why);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) return fputs("usage: run_model_so M.so OUT.npy IN.npy...\n", stderr), 2;
  TVSModule *mod = tvs_module_load(argv[1]);
  if (!mod) return fail(argv[1], tvs_get_last_error());
  const TVSFuncInfo *info = tvs_module_func_info(mod, "main");
  TVSFunction *f = tvs_module_get_function(mod, "main");
  if (!info || !f) return fail("main", tvs_get_last_error());
  int nin = argc - 3, n = info->num_params;
  if (info->num_outputs != 1 || nin != n - 1) return fail("main", "expected the inputs and one output");
  TvsNDArray **arrs = calloc((size_t)n, sizeof *arrs);
  TVSValue *args = calloc((size_t)n, sizeof *args);
  int *codes = calloc((size_t)n, sizeof *codes), rc = 0;
  char err[256];
  for (int i = 0; i < nin && !rc; i++)
    if (!(arrs[i] = tvs_npy_load(argv[3 + i], err, sizeof err))) rc = fail(argv[3 + i], err);
  const TVSParamInfo *out = &info->params[n - 1];
  if (!rc && !(arrs[n - 1] = tvs_ndarray_empty(out->ndim, out->shape, out->dtype)))
    rc = fail("main", "the output has a symbolic shape");
  for (int i = 0; i < n && !rc; i++) args[i].v_handle = &arrs[i]->t, codes[i] = TVS_TENSOR;
  TVSValue ret;
  int ret_code;
  if (!rc && tvs_func_call(f, args, codes, n, &ret, &ret_code) != 0) rc = fail("main", tvs_get_last_error());
  if (!rc && tvs_npy_save(argv[2], &arrs[n - 1]->t, err, sizeof err) != 0) rc = fail(argv[2], err);
  for (int i = 0; i < n; i++)
    if (arrs[i]) tvs_ndarray_free(arrs[i]);
  free(arrs), free(args), free(codes);
  tvs_func_release(f);
  tvs_module_free(mod);
  return rc;
}
