/* main.c - `tvs`: the command-line front door (run, show, equal, check, repl, tune).
 * Dispatches to one file per subcommand; all real work lives in the libraries. */
#include <stdio.h>
#include <string.h>

#include "base/big_stack.h"
#include "sched/default_schedule.h"
#include "tools/common/stdout_check.h"
#include "tools/tvs/tvs.h"

static const char usage[] =
    "usage: tvs <command> [options]\n"
    "\n"
    "commands:\n"
    "  run FILE [--func F] [--input NAME=x.npy|NAME=VALUE ...] [--output DIR]\n"
    "           [--seed N] [--dim NAME=VALUE ...] [--target cpu|interp]\n"
    "           [--time [--repeat N]] [--fast-math] [--[no-]bounds-check] [--schedule FILE]\n"
    "                       run a function on .npy inputs (random inputs when none given;\n"
    "                       then --bounds-check is on: every access checked)\n"
    "  show FILE --stage NAME [--dump-after PASS|all] [--schedule FILE]\n"
    "                       print a stage (tvs show --list-stages lists them)\n"
    "  equal A.tvs B.tvs [--strict]\n"
    "                       exit 0 when the two modules are structurally equal,\n"
    "                       else print the first difference and exit 1\n"
    "  check FILE           parse and elaborate, report diagnostics only\n"
    "  import MODEL.onnx [-o MODEL.tvs] [--params MODEL.npz]\n"
    "                       import an ONNX model as graph text plus weights\n"
    "                       (run, show, tvsc and :load also take the .onnx itself)\n"
    "  repl [FILE.tvs] [--script FILE] [--keep-going]\n"
    "                       interactive scheduling (script mode when stdin is not a terminal)\n"
    "  lsp                  the language server (LSP over stdio) for editors\n"
    "  tune FILE [--func F] [--trials N] [--db log.jsonl] [--threads T] [--plot c.svg]\n"
    "                       search schedules with a learned cost model (docs/tuning.md)\n"
    "`tvs COMMAND --help` lists every option of a command.\n";

/* The top-level options (the parser is main's strcmp chain below). */
static const ToolOption main_options[] = {
    {0, "--help", "-h", NULL, 0, "this help; `tvs COMMAND --help` for a command"},
    {0, "--version", NULL, NULL, 0, "print the version"},
    {0, NULL, NULL, NULL, 0, NULL},
};

static void print_usage(FILE *f) {
  fputs(usage, f);
  fputs("\ncommon options:\n", f);
  opt_print(f, tool_common_options);
  opt_print(f, main_options);
}

static int tvs_main(int argc, char **argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  sch_default_schedule_install(); /* the graph pipeline's default-schedule stage */
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    print_usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    puts(TVS_VERSION_STRING);
    return 0;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "show")) return cmd_show(argc - 1, argv + 1);
  if (!strcmp(cmd, "equal")) return cmd_equal(argc - 1, argv + 1);
  if (!strcmp(cmd, "check")) return cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "repl")) return cmd_repl(argc - 1, argv + 1);
  if (!strcmp(cmd, "lsp")) return cmd_lsp(argc - 1, argv + 1);
  if (!strcmp(cmd, "tune")) return cmd_tune(argc - 1, argv + 1);
  if (!strcmp(cmd, "import")) return cmd_import(argc - 1, argv + 1);
  fprintf(stderr, "tvs: error: unknown command '%s'\n", cmd);
  print_usage(stderr);
  return 2;
}

/* deep programs need a deep stack (base/big_stack.h) */
int main(int argc, char **argv) {
  tool_check_stdout_at_exit("tvs");
  return tvs_run_on_big_stack(tvs_main, argc, argv);
}
