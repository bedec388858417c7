/* repl.h - `tvs repl`: the interactive REPL for exploratory scheduling.
 *
 * A session holds one loaded module and a schedule-script evaluator over it
 * (sched/schedule.h SchScript); each input is a schedule statement or a `:`
 * command.  Steps are replayable, so undo/redo and error recovery rebuild the
 * state from the list of statements that succeeded. */
#ifndef TVS_REPL_REPL_H
#define TVS_REPL_REPL_H

#include <stdbool.h>
#include <stdio.h>

typedef struct Repl Repl;

/* How a session talks to the world. */
typedef struct ReplOptions {
  FILE *out;        /* results, IR, echo of script lines (stdout) */
  FILE *err;        /* diagnostics (stderr) */
  int color;        /* -1 auto (terminal and no NO_COLOR), 0 never, 1 always */
  bool keep_going;  /* script mode: continue after an error */
} ReplOptions;

ReplOptions repl_options_default(void);
Repl *repl_new(const ReplOptions *opt);
void repl_free(Repl *r);

/* Loads a .tvs file as the session's module (resets the schedule); 0 / -1. */
int repl_load(Repl *r, const char *path);
/* Whether text (one or more lines) needs more lines to be a complete input. */
bool repl_input_incomplete(const char *text);
/* Executes one complete input: a `:command` or schedule-script statement(s).
 * line is the 1-based line of text in its script (diagnostics), or 0.
 * Returns 0, -1 on an error (state unchanged), or 1 when the input asked to
 * quit. */
int repl_exec(Repl *r, const char *text, int line);

/* Runs the lines of in (a script: echoed with prompts, stops at the first
 * error unless keep_going).  Returns the process exit code. */
int repl_run_script(Repl *r, FILE *in, const char *name);
/* The interactive loop with line editing (libedit); exit code. */
int repl_run_interactive(Repl *r);

/* Completion of the text before the cursor: *start receives the offset where
 * the completed word begins; returns the number of candidates (each a
 * malloc'd full word in *out, a malloc'd array; free with repl_free_words). */
int repl_complete(Repl *r, const char *text, int *start, char ***out);
void repl_free_words(char **words, int n);

/* `tvs repl [FILE.tvs ...] [--script FILE] [--keep-going] [--color=...]`. */
int repl_main(int argc, char **argv);

#endif
