/* stdout_check.h - a write error on standard output (a full disk, /dev/full)
 * fails the command, however it exits, instead of passing unnoticed. */
#ifndef TVS_TOOLS_STDOUT_CHECK_H
#define TVS_TOOLS_STDOUT_CHECK_H

/* Registers an exit handler that flushes stdout and, if anything written to
 * it was lost, prints "PROG: error: cannot write to standard output: REASON"
 * and makes the exit status 1.  prog must outlive the process. */
void tool_check_stdout_at_exit(const char *prog);

#endif
