/* cmd_lsp.c - `tvs lsp`: the language server over stdio (lsp/). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lsp/lsp.h"
#include "tools/tvs/tvs.h"

enum { LSP_HELP, LSP_STDIO };

static const ToolOption lsp_options[] = {
    {LSP_HELP, "--help", "-h", NULL, 0, "this help"},
    {LSP_STDIO, "--stdio", NULL, NULL, 0, "talk over stdin/stdout (the default and only transport)"},
    {0, NULL, NULL, NULL, 0, NULL},
};

int cmd_lsp(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *val, *spelled;
    bool missing;
    const ToolOption *o = opt_match(lsp_options, argc, argv, &i, &val, &spelled, &missing);
    if (o && o->id == LSP_HELP) {
      fputs("usage: tvs lsp [--stdio]\n"
            "Runs the language server for .tvs files and schedule scripts, speaking the\n"
            "Language Server Protocol over stdin and stdout (see docs/lsp.md).\n\noptions:\n",
            stdout);
      opt_print(stdout, lsp_options); /* the common options do not apply: replies are JSON */
      return 0;
    }
    if (!o) return tool_usage_error("lsp", "unknown option '%s'", argv[i]);
  }
  return lsp_serve(STDIN_FILENO, stdout, stderr);
}
