/* main.c - `tvs`: the command-line front door (run, show, equal, check).
 * Dispatches to one file per subcommand; all real work lives in the libraries. */
#include <stdio.h>
#include <string.h>

#include "tools/tvs/tvs.h"

static const char usage[] =
    "usage: tvs <command> [options]\n"
    "\n"
    "commands:\n"
    "  run FILE [--func F] [--input NAME=x.npy|NAME=VALUE ...] [--output DIR]\n"
    "           [--seed N] [--dim NAME=VALUE ...] [--target interp]\n"
    "                       run a function on .npy inputs (random inputs when none given)\n"
    "  show FILE --stage NAME   print a stage (tvs show --list-stages lists them)\n"
    "  equal A.tvs B.tvs [--strict]\n"
    "                       exit 0 when the two modules are structurally equal,\n"
    "                       else print the first difference and exit 1\n"
    "  check FILE           parse and elaborate, report diagnostics only\n"
    "  repl [FILE.tvs] [--script FILE] [--keep-going]\n"
    "                       interactive scheduling (script mode when stdin is not a terminal)\n"
    "\n"
    "common options:\n"
    "  --diagnostics-format=text|json   how errors are printed (default text)\n"
    "  --color=auto|always|never        colour diagnostics (NO_COLOR also disables)\n"
    "  -h, --help                       this help; `tvs COMMAND --help` for a command\n"
    "  --version                        print the version\n";

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    fputs(usage, stdout);
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
  fprintf(stderr, "tvs: error: unknown command '%s'\n", cmd);
  fputs(usage, stderr);
  return 2;
}
