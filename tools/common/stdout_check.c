/* stdout_check.c - the exit handler of stdout_check.h. */
#include "tools/common/stdout_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/write_file.h"

static const char *check_prog;

static void check_stdout(void) {
  if (tvs_flush_stdout() == 0) return;
  fprintf(stderr, "%s: error: cannot write to standard output: %s\n", check_prog, strerror(errno));
  _exit(1);
}

void tool_check_stdout_at_exit(const char *prog) {
  check_prog = prog;
  atexit(check_stdout);
}
