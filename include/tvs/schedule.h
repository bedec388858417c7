/* tvs/schedule.h - TensorIR schedules through TVM's tir.Schedule methods.
 *
 * A schedule is driven by schedule-script statements, the Python statements
 * of TVM's schedule API and of its printed traces, evaluated one at a time
 * with `sch` bound to the schedule and variables kept between calls:
 *
 *     tvs_sched_exec(s, "b = sch.get_block(\"C\")", NULL);
 *     tvs_sched_exec(s, "i, j, k = sch.get_loops(b)", NULL);
 *     tvs_sched_exec(s, "i0, i1 = sch.split(i, factors=[None, 32])", NULL);
 *
 * Every primitive of sched/ (docs/schedules.md) is available under TVM's name
 * with TVM's parameters, defaults and legality checks; an illegal step fails
 * with TVS_ERR_SCHEDULE, leaves the schedule unchanged and binds no variable.
 * Included by tvs/tvs.h; see there for the conventions. */
#ifndef TVS_SCHEDULE_H
#define TVS_SCHEDULE_H

#include "tvs/tvs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TvsSchedule TvsSchedule;

/* What a script variable holds. */
typedef enum TvsValueKind {
  TVS_VALUE_NONE = -1,     /* no such variable */
  TVS_VALUE_BLOCK = 0,     /* a BlockRV */
  TVS_VALUE_LOOP = 1,      /* a LoopRV */
  TVS_VALUE_SCHEDULE = 2,
  TVS_VALUE_LIST = 3,      /* a list (of handles, from get_loops, split...) */
  TVS_VALUE_OTHER = 4,     /* an ExprRV, number, string... */
} TvsValueKind;

/* A schedule over m (the module is shared, m may be released after). */
TVS_API int tvs_sched_create(const TvsIRModule *m, TvsSchedule **out);
TVS_API void tvs_sched_release(TvsSchedule *s);
/* Evaluates statements (one or more lines of script text).  What print() or
 * a bare expression shows goes to *output when output is not NULL (always
 * set on success, "" when nothing was shown).  TVS_ERR_SCHEDULE with the
 * diagnostic (pointing into the text, named `name` in tvs_sched_exec_named)
 * on failure. */
TVS_API int tvs_sched_exec(TvsSchedule *s, const char *text, char **output);
TVS_API int tvs_sched_exec_named(TvsSchedule *s, const char *text, const char *name, char **output);
/* The kind of variable name (TVS_VALUE_NONE when unbound). */
TVS_API int tvs_sched_var_kind(const TvsSchedule *s, const char *name);
/* The current module version (a new handle). */
TVS_API int tvs_sched_module(const TvsSchedule *s, TvsIRModule **out);
/* The trace as replayable text, `def apply_trace(sch):` form when
 * as_function, else one statement per line. */
TVS_API int tvs_sched_trace(const TvsSchedule *s, int as_function, char **out);
/* The number of primitives applied so far (the trace's length). */
TVS_API int tvs_sched_trace_len(const TvsSchedule *s);
/* Takes back the last primitive; TVS_ERR_ARGUMENT when there is none. */
TVS_API int tvs_sched_undo(TvsSchedule *s);
/* Selects the function later primitives work on (TVM's work_on). */
TVS_API int tvs_sched_work_on(TvsSchedule *s, const char *func);
/* The schedule methods: name of method i (NULL past the last) and its
 * signature as scripts call it ("sch.split(loop, factors, ...) -> list of handles"). */
TVS_API const char *tvs_sched_method_name(int i);
TVS_API int tvs_sched_method_signature(const char *name, char **out);

#ifdef __cplusplus
}
#endif

#endif
