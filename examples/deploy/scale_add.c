/* scale_add.c - calling a tvsc product with a symbolic size and scalars.
 *
 *   tvsc examples/deploy/scale_add.tvs -o scale_add.so -H scale_add.h
 *   cc scale_add.c -I. $(pkg-config --cflags --libs tvs-runtime) $PWD/scale_add.so -o scale_add
 *   ./scale_add $PWD/scale_add.so 1000 0.5
 *
 * The kernel is C = alpha * A + B for vectors of length n.  The header declares
 * the direct entry as
 *     int32_t scale_add(float *A, float *B, float *C, double alpha, int64_t n);
 * Scalars travel widened, as in the packed calling convention (TVSValue, like
 * TVM's): the float32 alpha as a double, the int32 n as an int64_t; the entry
 * narrows them to the declared dtypes.  So one value passes the same way
 * through both entries.  The program calls both and checks them against a
 * loop in C. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/tvs_runtime.h"
#include "scale_add.h"

static int fail(const char *what, const char *why) {
  fprintf(stderr, "scale_add: %s: %s\n", what, why);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fputs("usage: scale_add K.so N ALPHA\n", stderr);
    return 2;
  }
  int64_t n = strtoll(argv[2], NULL, 10);
  double alpha = strtod(argv[3], NULL);
  if (n <= 0 || n > (1 << 24)) return fail(argv[2], "N must be in 1..16777216");
  float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  float *c1 = malloc((size_t)n * sizeof *c1), *c2 = malloc((size_t)n * sizeof *c2);
  for (int64_t i = 0; i < n; i++) a[i] = (float)i * 0.25f, b[i] = 1.0f - (float)(i % 7);

  /* 1. The direct entry: pointers, then the scalars (widened, see above). */
  if (scale_add(a, b, c1, alpha, n) != 0) return fail("scale_add", tvs_get_last_error());

  /* 2. The packed entry: DLPack tensors of length n, scalars as TVSValues. */
  TVSModule *mod = tvs_module_load(argv[1]);
  if (!mod) return fail(argv[1], tvs_get_last_error());
  TVSFunction *f = tvs_module_get_function(mod, "scale_add");
  if (!f) return fail("scale_add", tvs_get_last_error());
  DLDataType f32 = {kDLFloat, 32, 1};
  DLDevice cpu = {kDLCPU, 0};
  int64_t shape[1] = {n};
  DLTensor ta = {a, cpu, 1, f32, shape, NULL, 0}, tb = {b, cpu, 1, f32, shape, NULL, 0},
           tc = {c2, cpu, 1, f32, shape, NULL, 0};
  TVSValue args[5] = {{.v_handle = &ta}, {.v_handle = &tb}, {.v_handle = &tc}, {.v_float64 = alpha},
                      {.v_int64 = n}};
  int codes[5] = {TVS_TENSOR, TVS_TENSOR, TVS_TENSOR, TVS_FLOAT, TVS_INT};
  TVSValue ret;
  int ret_code;
  if (tvs_func_call(f, args, codes, 5, &ret, &ret_code) != 0) return fail("packed scale_add", tvs_get_last_error());
  /* n disagreeing with the tensors' length is refused, not a read out of bounds */
  args[4].v_int64 = n + 1;
  if (tvs_func_call(f, args, codes, 5, &ret, &ret_code) == 0) return fail("packed scale_add", "accepted a wrong n");
  printf("packed entry rejects n = %lld: %s\n", (long long)(n + 1), tvs_get_last_error());

  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) {
    float want = (float)alpha * a[i] + b[i];
    if (fabsf(c1[i] - want) > 1e-5f * (1 + fabsf(want)) || c1[i] != c2[i]) bad++;
  }
  if (bad) return fail("scale_add", "results differ from the C loop");
  printf("scale_add: n = %lld, alpha = %g: direct and packed entries agree with the C loop\n", (long long)n, alpha);
  tvs_func_release(f);
  tvs_module_free(mod);
  free(a), free(b), free(c1), free(c2);
  return 0;
}
