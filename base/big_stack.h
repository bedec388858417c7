/* big_stack.h - run a tool's main on a thread with a large stack.
 *
 * Elaboration, the IR passes, the printer and the interpreter recurse over
 * the tree of a program, so a long but legal program (a 100,000-term sum,
 * 100,000 nested lets or elif branches) needs far more than the 8 MiB main
 * stack.  The tools run their main on a thread whose stack is reserved up
 * front (TVS_BIG_STACK_BYTES, touched only as deep as a program needs), and
 * the front end refuses programs nested deeper than TVS_MAX_NESTING
 * (lang/ast.h), a depth measured to fit that stack in every build. */
#ifndef TVS_BASE_BIG_STACK_H
#define TVS_BASE_BIG_STACK_H

#include <stddef.h>

#define TVS_BIG_STACK_BYTES ((size_t)1 << 30) /* 1 GiB of address space */

/* Returns fn(argc, argv), run on a thread with a TVS_BIG_STACK_BYTES stack
 * (or a smaller one, or on the calling thread, where the system refuses). */
int tvs_run_on_big_stack(int (*fn)(int argc, char **argv), int argc, char **argv);

#endif
