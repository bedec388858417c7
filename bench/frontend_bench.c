/* frontend_bench.c - front-end throughput: parse + elaborate + print.
 *
 * Generates a module of about LINES lines (many prim_funcs in the style of the
 * MLC course's mm_relu with varied shapes), then times each phase over RUNS
 * repetitions and prints the medians and lines/second.
 * usage: bench_frontend [LINES=10000] [RUNS=9] [--dump FILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/run.h"
#include "ir/printer.h"
#include "lang/elab.h"
#include "base/util.h"
#include "parser/parser.h"

/* The timing helpers of driver/run.h (the harness of tvs run --time). */
#define now_ms drv_now_ms
#define median drv_median

/* One function of 27 lines; returns the number of lines written. */
static int gen_func(StrBuf *sb, int id) {
  int m = 16 * (1 + id % 8), n = 32 + 8 * (id % 5), k = 64;
  sb_printf(sb,
            "    @T.prim_func\n"
            "    def mm_relu_%d(A: T.Buffer((%d, %d), \"float32\"), B: T.Buffer((%d, %d), \"float32\"),\n"
            "                   C: T.Buffer((%d, %d), \"float32\")):\n"
            "        T.func_attr({\"tir.noalias\": True})\n"
            "        Y = T.alloc_buffer((%d, %d), dtype=\"float32\")\n"
            "        for i, j, k in T.grid(%d, %d, %d):\n"
            "            with T.block(\"Y\"):\n"
            "                vi = T.axis.spatial(%d, i)\n"
            "                vj = T.axis.spatial(%d, j)\n"
            "                vk = T.axis.reduce(%d, k)\n"
            "                T.reads(A[vi, vk], B[vk, vj])\n"
            "                T.writes(Y[vi, vj])\n"
            "                with T.init():\n"
            "                    Y[vi, vj] = T.float32(0)\n"
            "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
            "        for i0, j0 in T.grid(%d, %d):\n"
            "            with T.block(\"C\"):\n"
            "                vi, vj = T.axis.remap(\"SS\", [i0, j0])\n"
            "                # clamp below at zero, then scale\n"
            "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0)) * T.float32(0.5) + T.float32(%d)\n"
            "        for i1 in range(%d):\n"
            "            for j1 in range(%d):\n"
            "                with T.block(\"D\"):\n"
            "                    vi = T.axis.spatial(%d, i1)\n"
            "                    vj = T.axis.spatial(%d, j1)\n"
            "                    C[vi, vj] = C[vi, vj] + T.if_then_else(vi > vj, T.float32(1), T.float32(2))\n"
            "\n",
            id, m, k, k, n, m, n, m, n, m, n, k, m, n, k, m, n, id % 7, m, n, m, n);
  return 27;
}

int main(int argc, char **argv) {
  int target = argc > 1 ? atoi(argv[1]) : 10000;
  int runs = argc > 2 ? atoi(argv[2]) : 9;
  const char *dump = argc > 4 && !strcmp(argv[3], "--dump") ? argv[4] : NULL;
  if (target < 100) target = 100;
  if (runs < 1) runs = 1;
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "from tvm.script import tir as T\n\n@I.ir_module\nclass Bench:\n");
  int lines = 4, funcs = 0;
  while (lines < target) lines += gen_func(&sb, funcs++);
  if (dump) {
    FILE *f = fopen(dump, "w");
    if (f) {
      fputs(sb.data, f);
      fclose(f);
    }
  }
  SourceFile *src = src_from_string("bench.tvs", sb.data, sb.len);
  double *t_parse = xcalloc((size_t)runs, sizeof(double));
  double *t_elab = xcalloc((size_t)runs, sizeof(double));
  double *t_print = xcalloc((size_t)runs, sizeof(double));
  double *t_total = xcalloc((size_t)runs, sizeof(double));
  size_t printed = 0;
  for (int r = 0; r < runs; r++) {
    DiagCtx d;
    diag_init(&d, stderr);
    double t0 = now_ms();
    AstFile *ast = parse_file(src, &d);
    double t1 = now_ms();
    IrModule *m = d.nerr ? NULL : elab_module(ast, &d);
    double t2 = now_ms();
    if (!m) {
      diag_flush(&d);
      fprintf(stderr, "bench_frontend: the generated module did not elaborate\n");
      return 1;
    }
    StrBuf out;
    sb_init(&out);
    PrintOptions opt = print_options_default();
    print_module(&out, m, &opt);
    double t3 = now_ms();
    printed = out.len;
    sb_free(&out);
    ir_module_free(m);
    ast_file_free(ast);
    diag_free(&d);
    t_parse[r] = t1 - t0;
    t_elab[r] = t2 - t1;
    t_print[r] = t3 - t2;
    t_total[r] = t3 - t0;
  }
  double total = median(t_total, runs);
  printf("front end: %d lines, %d prim_funcs, %zu bytes in, %zu bytes printed, %d runs\n", lines,
         funcs, sb.len, printed, runs);
  printf("  parse      median %8.2f ms\n", median(t_parse, runs));
  printf("  elaborate  median %8.2f ms\n", median(t_elab, runs));
  printf("  print      median %8.2f ms\n", median(t_print, runs));
  printf("  total      median %8.2f ms  (%.0f lines/s; target < 100 ms for 10,000 lines)\n", total,
         (double)lines / (total / 1e3));
  free(t_parse);
  free(t_elab);
  free(t_print);
  free(t_total);
  src_free(src);
  sb_free(&sb);
  return 0;
}
