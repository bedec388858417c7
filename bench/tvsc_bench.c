/* tvsc_bench.c - figures for tvsc: wall time of `tvsc FILE -O3 -o FILE.so`
 * per corpus program (process start, parse, lowering, LLVM, link), and the
 * cost of one call of a compiled kernel through its packed entry (tvs_func_call
 * and the raw __tvs_packed_ symbol) versus its direct entry, in ns/call.
 * usage: bench_tvsc [CORPUS_DIR]   (prints; never a timed test) */
#include <dirent.h>
#include <dlfcn.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/ndarray.h"
#include "runtime/tvs_runtime.h"

extern char **environ;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int run_tvsc(const char *in, const char *out) {
  char *argv[] = {(char *)TVSC_PATH, (char *)in, "-O3", "-o", (char *)out, NULL};
  pid_t pid;
  if (posix_spawn(&pid, TVSC_PATH, NULL, NULL, argv, environ) != 0) return -1;
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static const char kernel[] =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def add1(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
    "    for i in range(4):\n"
    "        B[i] = A[i] + T.float32(1)\n";

int main(int argc, char **argv) {
  const char *corpus = argc > 1 ? argv[1] : TVS_SOURCE_DIR "/tests/corpus";
  char dir[] = "/tmp/tvsc-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[4096], out[4096];

  /* 1. tvsc wall time per corpus file at -O3. */
  DIR *dp = opendir(corpus);
  if (!dp) return fprintf(stderr, "cannot open %s\n", corpus), 1;
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dp)) && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 4 && !strcmp(e->d_name + l - 4, ".tvs")) names[n++] = strdup(e->d_name);
  }
  closedir(dp);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  double total = 0, worst = 0;
  int ok = 0;
  printf("tvsc -O3 -o FILE.so, wall time per corpus program:\n");
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", corpus, names[i]);
    snprintf(out, sizeof out, "%s/k%d.so", dir, i);
    double t0 = now_ns();
    int rc = run_tvsc(path, out);
    double ms = (now_ns() - t0) / 1e6;
    printf("  %-28s %8.1f ms%s\n", names[i], ms, rc ? "  (no prim_func / not compiled)" : "");
    if (!rc) total += ms, ok++, worst = ms > worst ? ms : worst;
    unlink(out);
    free(names[i]);
  }
  printf("  %d programs compiled: mean %.1f ms, max %.1f ms\n\n", ok, ok ? total / ok : 0, worst);

  /* 2. Call overhead: direct vs packed entry of a 4-element kernel. */
  snprintf(path, sizeof path, "%s/add1.tvs", dir);
  snprintf(out, sizeof out, "%s/add1.so", dir);
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  fputs(kernel, f);
  fclose(f);
  if (run_tvsc(path, out)) return fprintf(stderr, "tvsc failed on the call-overhead kernel\n"), 1;
  TVSModule *mod = tvs_module_load(out);
  void *h = dlopen(out, RTLD_NOW | RTLD_LOCAL);
  if (!mod || !h) return fprintf(stderr, "cannot load %s\n", out), 1;
  int32_t (*direct)(void *, void *) = (int32_t(*)(void *, void *))dlsym(h, "add1");
  TVSPackedCFunc raw = (TVSPackedCFunc)dlsym(h, "__tvs_packed_add1");
  TVSFunction *fn = tvs_module_get_function(mod, "add1");
  int64_t shape[1] = {4};
  DLDataType f32 = {kDLFloat, 32, 1};
  TvsNDArray *a = tvs_ndarray_empty(1, shape, f32), *b = tvs_ndarray_empty(1, shape, f32);
  TVSValue args[2] = {{.v_handle = &a->t}, {.v_handle = &b->t}};
  int codes[2] = {TVS_TENSOR, TVS_TENSOR};
  TVSValue ret;
  int rcode;
  const int iters = 2000000;
  double t0 = now_ns();
  for (int i = 0; i < iters; i++) direct(a->t.data, b->t.data);
  double t_direct = (now_ns() - t0) / iters;
  t0 = now_ns();
  for (int i = 0; i < iters; i++) raw(args, codes, 2, &ret, &rcode, mod);
  double t_raw = (now_ns() - t0) / iters;
  t0 = now_ns();
  for (int i = 0; i < iters; i++) tvs_func_call(fn, args, codes, 2, &ret, &rcode);
  double t_call = (now_ns() - t0) / iters;
  printf("call overhead of add1 (4 floats), %d calls each:\n", iters);
  printf("  direct entry                      %7.1f ns/call\n", t_direct);
  printf("  packed entry (__tvs_packed_add1)  %7.1f ns/call  (+%.1f: argument checks)\n", t_raw, t_raw - t_direct);
  printf("  packed via tvs_func_call          %7.1f ns/call  (+%.1f over the direct entry)\n", t_call,
         t_call - t_direct);
  tvs_ndarray_free(a);
  tvs_ndarray_free(b);
  tvs_func_release(fn);
  tvs_module_free(mod);
  dlclose(h);
  unlink(out);
  unlink(path);
  rmdir(dir);
  return 0;
}
