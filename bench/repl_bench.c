/* repl_bench.c - how responsive `tvs repl` feels: one schedule primitive plus
 * reprinting the module (the typical step of a session; target < 10 ms), the
 * :undo that replays the session, and the start-up of `tvs repl FILE` up to
 * its first prompt (a process running `:quit`; target < 100 ms).  Medians.
 * usage: bench_repl [RUNS=51] [FILE.tvs (default examples/mm_relu.tvs)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/run.h"
#include "repl/repl.h"

/* The timing helpers of driver/run.h (the harness of tvs run --time). */
#define now_ms drv_now_ms
#define median drv_median

/* One `tvs repl FILE` process reading ":quit" from a pipe; wall ms. */
static double startup_once(const char *file) {
  int fd[2];
  if (pipe(fd)) return -1;
  double t0 = now_ms();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[0], 0);
    close(fd[0]);
    close(fd[1]);
    if (!freopen("/dev/null", "w", stdout)) _exit(127);
    execl(TVS_PATH, "tvs", "repl", file, (char *)NULL);
    _exit(127);
  }
  close(fd[0]);
  if (write(fd[1], ":quit\n", 6) != 6) return -1;
  close(fd[1]);
  int st;
  waitpid(pid, &st, 0);
  double t = now_ms() - t0;
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 51;
  const char *file = argc > 2 ? argv[2] : TVS_SOURCE_DIR "/examples/mm_relu.tvs";
  if (runs < 1) runs = 1;
  FILE *sink = fopen("/dev/null", "w");
  ReplOptions opt = repl_options_default();
  opt.out = sink;
  opt.err = stderr;
  opt.color = 0;
  Repl *r = repl_new(&opt);
  if (repl_load(r, file)) return 1;
  if (repl_exec(r, "b = sch.get_block(\"Y\")", 0) || repl_exec(r, "i, j, k = sch.get_loops(b)", 0) ||
      repl_exec(r, "j0, j1 = sch.split(j, factors=[None, 4])", 0) || repl_exec(r, "sch.reorder(j0, k, j1)", 0)) {
    fprintf(stderr, "bench_repl: %s has no block Y with three loops (use mm_relu)\n", file);
    return 1;
  }
  double *step = calloc((size_t)runs, sizeof *step), *undo = calloc((size_t)runs, sizeof *undo);
  double *start = calloc((size_t)runs, sizeof *start);
  for (int n = 0; n < runs; n++) {
    double t0 = now_ms();
    int rc = repl_exec(r, "k0, k1 = sch.split(k, factors=[None, 16])", 0);
    rc |= repl_exec(r, "sch.mod.show()", 0);
    double t1 = now_ms();
    rc |= repl_exec(r, ":undo", 0);
    double t2 = now_ms();
    if (rc) {
      fprintf(stderr, "bench_repl: a step failed\n");
      return 1;
    }
    step[n] = t1 - t0;
    undo[n] = t2 - t1;
  }
  repl_free(r);
  fclose(sink);
  for (int n = 0; n < runs; n++) start[n] = startup_once(file);
  printf("repl on %s, %d runs (medians):\n", file, runs);
  printf("  split + reprint the module    %8.3f ms   (target < 10 ms)\n", median(step, runs));
  printf("  :undo (replays 4 statements)  %8.3f ms\n", median(undo, runs));
  printf("  start-up to the first prompt  %8.3f ms   (target < 100 ms)\n", median(start, runs));
  free(step);
  free(undo);
  free(start);
  return 0;
}
