/* embed.c - TVS embedded in a C program through the public API only
 * (#include "tvs/tvs.h", linked with `pkg-config --cflags --libs tvs`):
 * parse a matmul + ReLU kernel, schedule it with TVM's tir.Schedule methods,
 * print the IR, build it, run it on DLPack tensors and check the result; then
 * show that bad input (an illegal schedule step, a wrong-shaped tensor) comes
 * back as a status code and a message, never an exit.  The same schedule
 * through the typed calls (tvs_sched_split, ...) records the same trace.
 *
 *     cc embed.c $(pkg-config --cflags --libs tvs) -o embed && ./embed */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvs/tvs.h"

#define N 64

static const char *kernel =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\"),\n"
    "                C: T.Buffer((64, 64), \"float32\")):\n"
    "        Y = T.alloc_buffer((64, 64))\n"
    "        for i, j, k in T.grid(64, 64, 64):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(64, 64):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n";

static const char *schedule =
    "b = sch.get_block(\"Y\", func_name=\"mm_relu\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "j0, j1 = sch.split(j, factors=[None, 8])\n"
    "sch.reorder(j0, k, j1)\n"
    "sch.vectorize(j1)\n"
    "sch.parallel(i)\n";

/* Prints the failed call's message and exits (this program's policy; the
 * library itself never exits). */
static void check(int rc, const char *what) {
  if (rc == TVS_OK) return;
  fprintf(stderr, "embed: %s failed (%s):\n%s\n", what, tvs_status_name(rc), tvs_last_error());
  exit(1);
}

/* The schedule above through typed calls instead of statements: the trace
 * comes out the same.  Returns 1 when it does. */
static int typed_schedule(const TvsIRModule *mod, const TvsSchedule *scripted) {
  TvsSchedule *sch = NULL;
  TvsBlockRV b;
  TvsLoopRV *loops = NULL, j[2];
  int n = 0;
  check(tvs_sched_create(mod, &sch), "schedule");
  check(tvs_sched_get_block(sch, "Y", "mm_relu", &b), "get_block");
  check(tvs_sched_get_loops(sch, b, &loops, &n), "get_loops");
  const int64_t factors[2] = {-1, 8}; /* -1: None, inferred */
  check(tvs_sched_split(sch, loops[1], factors, 2, 1, 0, j), "split");
  const TvsLoopRV order[3] = {j[0], loops[2], j[1]};
  check(tvs_sched_reorder(sch, order, 3), "reorder");
  check(tvs_sched_vectorize(sch, j[1]), "vectorize");
  check(tvs_sched_parallel(sch, loops[0]), "parallel");
  tvs_handles_free(loops);
  char *t1 = NULL, *t2 = NULL;
  check(tvs_sched_trace(scripted, 0, &t1), "trace");
  check(tvs_sched_trace(sch, 0, &t2), "trace");
  int same = strcmp(t1, t2) == 0;
  printf("typed calls: %s trace (%d steps)\n", same ? "the same" : "a different", tvs_sched_trace_len(sch));
  tvs_string_free(t1);
  tvs_string_free(t2);
  tvs_sched_release(sch);
  return same;
}

static DLTensor tensor(float *data, int64_t *shape) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = 2;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

int main(void) {
  printf("TVS %s\n", tvs_version());
  TvsIRModule *mod = NULL, *scheduled = NULL;
  TvsSchedule *sch = NULL;
  check(tvs_irmod_parse(kernel, "kernel.tvs", 1, &mod), "parse");
  check(tvs_sched_create(mod, &sch), "schedule");
  check(tvs_sched_exec(sch, schedule, NULL), "schedule statements");
  check(tvs_sched_module(sch, &scheduled), "the scheduled module");
  char *text = NULL;
  check(tvs_irmod_script(scheduled, &text), "print");
  printf("%s", text);
  tvs_string_free(text);

  /* An illegal step: the schedule refuses it and stays as it was. */
  int rc = tvs_sched_exec(sch, "sch.split(k, factors=[3, 5])", NULL);
  printf("illegal split: %s\n%s\n", tvs_status_name(rc), tvs_last_error());
  int typed_ok = typed_schedule(mod, sch);

  TvsExecutable *exe = NULL;
  TvsFunction *fn = NULL;
  check(tvs_build(scheduled, "llvm", NULL, &exe), "build");
  check(tvs_executable_get_function(exe, "mm_relu", &fn), "get_function");

  static float a[N * N], b[N * N], c[N * N];
  for (int i = 0; i < N * N; i++) a[i] = (float)((i * 7) % 13) - 6, b[i] = (float)((i * 5) % 11) - 5;
  int64_t shape[2] = {N, N};
  DLTensor ta = tensor(a, shape), tb = tensor(b, shape), tc = tensor(c, shape);
  TvsArg args[3] = {{TVS_ARG_TENSOR, &ta, 0, 0}, {TVS_ARG_TENSOR, &tb, 0, 0}, {TVS_ARG_TENSOR, &tc, 0, 0}};
  check(tvs_function_call(fn, args, 3), "call");
  double maxerr = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < N; k++) s += a[i * N + k] * b[k * N + j];
      double e = fabs((double)(s > 0 ? s : 0) - (double)c[i * N + j]);
      if (e > maxerr) maxerr = e;
    }
  printf("mm_relu: max error vs C reference %g\n", maxerr);

  /* A tensor of the wrong shape: the compiled entry checks before touching memory. */
  int64_t bad_shape[2] = {N, N / 2};
  DLTensor tbad = tensor(c, bad_shape);
  args[2].tensor = &tbad;
  rc = tvs_function_call(fn, args, 3);
  printf("wrong shape: %s: %s\n", tvs_status_name(rc), tvs_last_error());

  tvs_function_release(fn);
  tvs_executable_release(exe);
  tvs_irmod_release(scheduled);
  tvs_sched_release(sch);
  tvs_irmod_release(mod);
  return maxerr < 1e-3 && rc == TVS_ERR_RUN && typed_ok ? 0 : 1;
}
