/* cmd_check.c - `tvs check FILE`: parse and elaborate, report diagnostics only. */
#include <stdio.h>
#include <string.h>

#include "tools/tvs/tvs.h"

enum { CHECK_HELP };

/* The options of `tvs check`: the parser and the --help list. */
static const ToolOption check_options[] = {
    {CHECK_HELP, "--help", "-h", NULL, 0, "this help"},
    {0, NULL, NULL, NULL, 0, NULL},
};

int cmd_check(int argc, char **argv) {
  ToolCommon common = {DIAG_FORMAT_TEXT, -1};
  const char *file = NULL;
  for (int i = 1; i < argc; i++) {
    int r = tool_common_option(&common, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    const char *val, *spelled;
    bool missing;
    if (opt_match(check_options, argc, argv, &i, &val, &spelled, &missing)) { /* --help */
      tool_print_help("usage: tvs check FILE\n"
                      "Parses and elaborates FILE and reports its diagnostics only.\n",
                      check_options);
      return 0;
    }
    if (argv[i][0] == '-' && argv[i][1]) return tool_usage_error("check", "unknown option '%s'", argv[i]);
    if (file) return tool_usage_error("check", "more than one input file");
    file = argv[i];
  }
  if (!file) return tool_usage_error("check", "no input file");
  DiagCtx d;
  tool_diag_init(&d, &common);
  SourceFile *src = NULL;
  IrModule *m = tool_load(file, &d, &src);
  int rc = m ? 0 : 1;
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
  return rc;
}
