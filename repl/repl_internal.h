/* repl_internal.h - what the files of repl/ share: the session struct, its
 * steps (statements kept for replay), and the entry points of the command,
 * execution, diff and completion files.  Not for use outside repl/. */
#ifndef TVS_REPL_REPL_INTERNAL_H
#define TVS_REPL_REPL_INTERNAL_H

#include "ir/module.h"
#include "lang/ast.h"
#include "base/diag.h"
#include "base/util.h"
#include "driver/stages.h"
#include "repl/repl.h"
#include "sched/schedule.h"

/* One successful input of schedule statements, kept for replay. */
typedef struct ReplStep {
  char *text;        /* the input as typed (may span lines) */
  SourceFile *src;   /* its source: spans and borrowed names point here */
  AstFile *ast;      /* the parsed statements (the script borrows them) */
  bool changed;      /* whether it made a new module version */
} ReplStep;

/* A group of steps taken back by one :undo, for :redo. */
typedef struct ReplGroup {
  ReplStep *steps;   /* in execution order */
  int n;
} ReplGroup;

/* The last :time of a function, for the ratio. */
typedef struct ReplTiming {
  char *func;        /* function name (malloc'd) */
  double ms;         /* its median */
} ReplTiming;

/* Reference outputs of the unscheduled function (cached for :run). */
typedef struct ReplRef {
  char *func;        /* function name (malloc'd) */
  void *arrays;      /* TvsNDArray ** of every param after the run */
  int n;             /* number of params */
} ReplRef;

struct Repl {
  ReplOptions opt;
  bool color;             /* IR colour on out */
  char *path;             /* the loaded file, or NULL */
  SourceFile *src;        /* its text (the module's spans point here) */
  IrModule *base;         /* the module as loaded (unscheduled) */
  DiagCtx diag;           /* one context, cleared per input */
  SchScript *script;      /* the evaluator (sch pre-bound) */
  ReplStep *steps;        /* applied inputs */
  int nsteps, capsteps;
  ReplGroup *redo;        /* undone groups (the last is redone first) */
  int nredo, capredo;
  IrModule *prev;         /* the module before the last change (:diff) */
  char *prev_what;        /* what that change was */
  bool target_cpu;        /* :target cpu (default) or interp */
  const char *gpu_target; /* :target cuda|opencl (then target_cpu is true), or NULL */
  bool npu_target;        /* :target npu: :time runs the simulated NPU (docs/npu.md) */
  int repeat;             /* :set repeat (0 = adaptive) */
  bool pager;             /* :set pager on: long outputs go through $PAGER on a terminal */
  int threads;            /* :set threads (0 = default) */
  int bounds_check;       /* :set bounds-check on (1), off (0), auto (-1: :run checked, :time not) */
  ReplTiming *times;      /* last :time per function */
  int ntimes, captimes;
  ReplRef *refs;          /* cached reference outputs */
  int nrefs, caprefs;
  const char *src_name;   /* name for diagnostics of inputs ("<stdin>", script path) */
  bool echo;              /* script mode: inputs are echoed */
};

/* Whether native code is compiled with --bounds-check (instrument-bound-
 * checkers) for a run (timing = false: :run, :show) or for :time. */
bool repl_bounds_check(const Repl *r, bool timing);

/* ------------------------------------------------------------- session.c */

/* The current module version (owned by the schedule). */
const IrModule *repl_cur_mod(Repl *r);
/* The function a command means when none is named: the only prim_func,
 * else "main", else the first prim_func; NULL (message printed) if none. */
const char *repl_default_func(Repl *r, const char *given);
/* Undo / redo / reset; print what they did.  0 or -1. */
int repl_undo(Repl *r);
int repl_redo(Repl *r);
void repl_reset(Repl *r);
/* Records m (a copy) as the "before" of :diff. */
void repl_note_prev(Repl *r, const IrModule *m, const char *what);
/* Prints to err "error: ..." (the REPL's own messages). */
/* graph_run.c: whether :run/:time's arguments name a graph function (or the
 * module has only graph functions), and those commands on one. */
bool repl_is_graph_call(Repl *r, int argc, char **argv);
int repl_graph_cmd(Repl *r, int argc, char **argv, bool time);
void repl_error(Repl *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints IR text to out (already coloured by the printer when asked). */
void repl_puts(Repl *r, const char *s);

/* ------------------------------------------------------------ commands.c */

/* Runs a `:command line`; 0, -1 on error, 1 to quit. */
int repl_command(Repl *r, const char *line);
/* The name of command i of the command table (completion), NULL past the
 * last.  :show's stages are DRV_STAGES_REPL of driver/stages.h. */
const char *repl_command_name(int i);

/* ------------------------------------------------------------- execute.c */

/* :run [F] [--input NAME=x.npy ...] and :time [F]. */
int repl_cmd_run(Repl *r, int argc, char **argv);
int repl_cmd_time(Repl *r, int argc, char **argv);
void repl_free_refs(Repl *r);

/* ---------------------------------------------------------------- tune.c */

/* :tune [F] [--trials N] [--seed S] [--db FILE]: the best schedule becomes a step. */
int repl_cmd_tune(Repl *r, int argc, char **argv);


#endif
