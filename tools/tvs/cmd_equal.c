/* cmd_equal.c - `tvs equal A.tvs B.tvs`: structural equality of two modules.
 * When each side holds one function, names and global_symbol do not matter
 * (as when TVM compares two prim_funcs) unless --strict is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "tools/tvs/tvs.h"

enum { EQUAL_STRICT, EQUAL_HELP };

/* The options of `tvs equal`: the parser and the --help list. */
static const ToolOption equal_options[] = {
    {EQUAL_STRICT, "--strict", NULL, NULL, 0, "function names and global_symbol must match too"},
    {EQUAL_HELP, "--help", "-h", NULL, 0, "this help"},
    {0, NULL, NULL, NULL, 0, NULL},
};

int cmd_equal(int argc, char **argv) {
  ToolCommon common = {DIAG_FORMAT_TEXT, -1};
  const char *files[2] = {NULL, NULL};
  int nfiles = 0, strict = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r = tool_common_option(&common, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    const char *val, *spelled;
    bool missing;
    const ToolOption *o = opt_match(equal_options, argc, argv, &i, &val, &spelled, &missing);
    if (o && o->id == EQUAL_HELP) {
      tool_print_help("usage: tvs equal A.tvs B.tvs [--strict]\n"
                      "exit 0 when structurally equal; else print the first difference and exit 1\n",
                      equal_options);
      return 0;
    }
    if (o) {
      strict = 1;
      continue;
    }
    if (a[0] == '-' && a[1]) return tool_usage_error("equal", "unknown option '%s'", a);
    if (nfiles == 2) return tool_usage_error("equal", "expected exactly two files");
    files[nfiles++] = a;
  }
  if (nfiles != 2) return tool_usage_error("equal", "expected exactly two files");
  DiagCtx d;
  tool_diag_init(&d, &common);
  SourceFile *sa = NULL, *sb = NULL;
  IrModule *ma = tool_load(files[0], &d, &sa);
  IrModule *mb = ma ? tool_load(files[1], &d, &sb) : NULL;
  int rc = 2;
  if (ma && mb) {
    char *diff = NULL;
    SEqualOptions opt = {!strict, true};
    bool eq;
    if (!strict && ma->nfuncs == 1 && mb->nfuncs == 1 && ma->funcs[0].kind == mb->funcs[0].kind) {
      if (ma->funcs[0].kind == IR_FUNC_TIR)
        eq = seq_tir_func(ma->funcs[0].tir, mb->funcs[0].tir, &opt, &diff);
      else
        eq = seq_relax_func(ma->funcs[0].rx, mb->funcs[0].rx, &opt, &diff);
    } else {
      eq = seq_module(ma, mb, &opt, &diff);
    }
    if (eq) {
      rc = 0;
    } else {
      printf("not equal: %s\n", diff ? diff : "(no detail)");
      rc = 1;
    }
    free(diff);
  }
  ir_module_free(ma);
  ir_module_free(mb);
  src_free(sa);
  src_free(sb);
  diag_free(&d);
  return rc;
}
