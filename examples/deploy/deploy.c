/* deploy.c - a plain C program deploying a kernel that tvsc compiled.
 *
 *   tvsc examples/mm_relu.tvs -o mm_relu.so -H mm_relu.h
 *   cc deploy.c -I. $(pkg-config --cflags --libs tvs-runtime) $PWD/mm_relu.so -o deploy
 *   ./deploy $PWD/mm_relu.so A.npy B.npy C.npy
 *
 * Calls mm_relu twice on the .npy inputs: through the direct entry declared
 * in the generated header (linked), and through the packed entry found with
 * tvs_module_load + tvs_module_get_function (DLPack tensors, checked).  Both
 * results must agree bit for bit; C.npy receives the result. */
#include <stdio.h>
#include <string.h>

#include "mm_relu.h"
#include "runtime/npy.h"
#include "runtime/tvs_runtime.h"

static int fail(const char *what, const char *why) {
  fprintf(stderr, "deploy: %s: %s\n", what, why);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fputs("usage: deploy K.so A.npy B.npy OUT.npy\n", stderr);
    return 2;
  }
  char err[256];
  TvsNDArray *a = tvs_npy_load(argv[2], err, sizeof err);
  if (!a) return fail(argv[2], err);
  TvsNDArray *b = tvs_npy_load(argv[3], err, sizeof err);
  if (!b) return fail(argv[3], err);
  int64_t shape[2] = {128, 128};
  DLDataType f32 = {kDLFloat, 32, 1};
  TvsNDArray *c_direct = tvs_ndarray_empty(2, shape, f32);
  TvsNDArray *c_packed = tvs_ndarray_empty(2, shape, f32);
  if (a->t.ndim != 2 || a->t.shape[0] != 128 || a->t.shape[1] != 128 || a->t.dtype.code != kDLFloat)
    return fail(argv[2], "expected a float32 128x128 array");

  /* 1. The direct entry: raw pointers, no checks (the caller vouches). */
  if (mm_relu(a->t.data, b->t.data, c_direct->t.data) != 0) return fail("mm_relu", tvs_get_last_error());

  /* 2. The packed entry: load the module, look the function up, call it. */
  TVSModule *mod = tvs_module_load(argv[1]);
  if (!mod) return fail(argv[1], tvs_get_last_error());
  TVSFunction *f = tvs_module_get_function(mod, "mm_relu");
  if (!f) return fail("mm_relu", tvs_get_last_error());
  TVSValue args[3] = {{.v_handle = &a->t}, {.v_handle = &b->t}, {.v_handle = &c_packed->t}};
  int codes[3] = {TVS_TENSOR, TVS_TENSOR, TVS_TENSOR};
  TVSValue ret;
  int ret_code;
  if (tvs_func_call(f, args, codes, 3, &ret, &ret_code) != 0) return fail("packed mm_relu", tvs_get_last_error());
  /* A wrong argument is an error code, not a crash. */
  if (tvs_func_call(f, args, codes, 2, &ret, &ret_code) == 0) return fail("packed mm_relu", "accepted 2 arguments");
  printf("packed entry rejects a bad call: %s\n", tvs_get_last_error());

  if (memcmp(c_direct->t.data, c_packed->t.data, tvs_ndarray_nbytes(&c_direct->t)) != 0)
    return fail("mm_relu", "direct and packed results differ");
  if (tvs_npy_save(argv[4], &c_direct->t, err, sizeof err) != 0) return fail(argv[4], err);
  printf("mm_relu: direct and packed entries agree; wrote %s\n", argv[4]);
  tvs_func_release(f);
  tvs_module_free(mod);
  tvs_ndarray_free(a);
  tvs_ndarray_free(b);
  tvs_ndarray_free(c_direct);
  tvs_ndarray_free(c_packed);
  return 0;
}
