/* default_schedule_internal.h - what the default-schedule rules share
 * (sched/default_schedule.c for CPUs, sched/gpu_default_schedule.c for
 * GPUs): block queries, a schedule whose errors stay quiet (a rule that
 * fails leaves the function as it was), root-level loop nests, and the
 * inlining of injective producers. */
#ifndef TVS_SCHED_DEFAULT_SCHEDULE_INTERNAL_H
#define TVS_SCHED_DEFAULT_SCHEDULE_INTERNAL_H

#include <stdbool.h>

#include "base/diag.h"
#include "ir/module.h"
#include "sched/schedule.h"

#define SCH_DS_MAX_BLOCKS 64

/* A fresh schedule over *m with its errors kept quiet. */
typedef struct SchDsQuiet {
  DiagCtx d;
  Schedule *s;
} SchDsQuiet;

/* A root-level loop nest: its loops outer to inner down to one block. */
typedef struct SchDsNest {
  const TirStmt *loops[16];
  int nloops;
  const TirBlock *block;
  const TirStmt *realize;
} SchDsNest;

/* The first block called name in f (pre-order), or NULL. */
const TirBlock *sch_ds_find_block(const TirFunc *f, const char *name);
/* Whether any loop under s is other than serial (someone scheduled it). */
bool sch_ds_has_scheduled_loop(const TirStmt *s);
/* "tir.is_scheduled" set, or a loop scheduled already. */
bool sch_ds_is_scheduled(const TirFunc *f);
/* The names of the blocks under s in pre-order (root excluded), appended to
 * names[*n..cap). */
void sch_ds_collect_blocks(const TirStmt *s, const char **names, int *n, int cap);

void sch_ds_quiet_open(SchDsQuiet *q, const IrModule *m);
/* Takes the schedule's result into *m when it made no error. */
void sch_ds_quiet_close(SchDsQuiet *q, IrModule **m);
/* Tries a primitive; on failure forgets its error (the schedule is unchanged). */
bool sch_ds_try_ok(SchDsQuiet *q, int rc);
/* Takes q's schedule back to module version `version` (sch_num_versions
 * before a rule's steps): a rule refused halfway leaves nothing behind. */
void sch_ds_undo_to(SchDsQuiet *q, int version);

/* Whether s is a perfect loop nest down to one block (filled into n). */
bool sch_ds_perfect_nest(const TirStmt *s, SchDsNest *n);
/* Whether loop i of the nest feeds only spatial iters of its block. */
bool sch_ds_loop_is_spatial(const SchDsNest *n, int i);
/* Whether block b writes a buffer of f's parameters. */
bool sch_ds_writes_param(const TirFunc *f, const TirBlock *b);
/* Whether name is one of names[0..n) (names NULL: every name is). */
bool sch_ds_among(const char *name, const char *const *names, int n);
/* Inlines every spatial block (of only[0..nonly), all when only is NULL)
 * that it can into its consumers (TVM's compute_inline), until none does. */
void sch_ds_inline_producers(IrModule **m, const char *const *only, int nonly);

/* GPU rules (sched/gpu_conv2d_rule.c).  Runs the embedded script `name`
 * after `prologue` on a copy of *m, taking the result when it made no error
 * (*m unchanged otherwise). */
bool sch_gpu_try_script(IrModule **m, const char *name, const char *prologue);
/* The direct conv2d rule on the only function of *m: false (and *m as it
 * was) when its conv2d_nchw is not one the rule serves. */
bool sch_gpu_conv2d_rule(IrModule **m);

#endif
