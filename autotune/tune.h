/* tune.h - auto-tuning: design spaces, measurement, a learned cost model,
 * evolutionary search and the tuning database (TVM's MetaSchedule, in C).
 *
 * A candidate is the design space's generator run with a vector of sampling
 * decisions (sched/: sample_perfect_tile, sample_categorical): the same
 * decisions give the same schedule, and the trace it records is a readable,
 * replayable schedule script.  Measuring builds the candidate with the LLVM
 * backend in a child process (a crash or hang never stops tuning), checks its
 * result against a reference on random inputs and times it with the
 * driver's harness.  The search measures batches chosen by an XGBoost model
 * (features of the lowered loop nest, per buffer store) over an evolved
 * population, with epsilon-greedy random picks; every measurement is a line
 * of a JSON-lines database that `tvs run --tuning-db` applies. */
#ifndef TVS_AUTOTUNE_TUNE_H
#define TVS_AUTOTUNE_TUNE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"
#include "codegen/codegen.h"
#include "ir/module.h"

/* ------------------------------------------------------------ decisions */

#define TUNE_MAX_DECISIONS 32
#define TUNE_MAX_TILE 4

/* What a decision of the generated space chooses (the analytic rule reads
 * it; mutation and replay do not). */
typedef enum TuneRole {
  TUNE_ROLE_OTHER,        /* a user's script, or not named */
  TUNE_ROLE_UNROLL,       /* unroll depth (index into the space's steps) */
  TUNE_ROLE_PAD,          /* padding of the row loop: 0 no, 1 yes */
  TUNE_ROLE_LOCATION,     /* compute location of a block outside the main nest */
  TUNE_ROLE_TILE_ROW,     /* tiles S0 S1 S2 S3 of the main block's row loop */
  TUNE_ROLE_TILE_VECTOR,  /* ... of its last spatial loop (vectorized) */
  TUNE_ROLE_TILE_SPATIAL, /* ... of another spatial loop */
  TUNE_ROLE_TILE_REDUCE,  /* tiles R0 R1 of a reduction loop */
  TUNE_ROLE_CACHE_LEVEL,  /* write-cache level: 0 none, 1 under S1, 2 under S2 */
  TUNE_ROLE_PACK,         /* packing of the reused operand: 0 no, 1 copy, 2 panels */
} TuneRole;

/* The sampling decisions of one candidate, in the order the generator
 * samples (a perfect tile: n factors; a categorical: one index). */
typedef struct TuneDecisions {
  int n;                                     /* decisions */
  int len[TUNE_MAX_DECISIONS];               /* values of decision i */
  bool tile[TUNE_MAX_DECISIONS];             /* a perfect tile (else categorical) */
  int ncand[TUNE_MAX_DECISIONS];             /* categorical: number of candidates;
                                                a location: loop indices + 2 marks */
  bool loc[TUNE_MAX_DECISIONS];              /* a compute location (root -1, inline -2,
                                                else a loop index of the consumer) */
  int64_t v[TUNE_MAX_DECISIONS][TUNE_MAX_TILE]; /* the values */
  TuneRole role[TUNE_MAX_DECISIONS];         /* what decision i chooses */
  int64_t extent[TUNE_MAX_DECISIONS];        /* a tile: the extent of the loop it splits */
} TuneDecisions;

/* The index of the first decision with role r, or -1. */
int tune_decisions_role(const TuneDecisions *d, TuneRole r);
/* A hash of the decisions (duplicate detection). */
uint64_t tune_decisions_hash(const TuneDecisions *d);
/* Appends the decisions as JSON ([[4, 8, 2, 16], [1], ...]). */
void tune_decisions_json(const TuneDecisions *d, char *buf, size_t cap);

/* ------------------------------------------------------------ design space */

/* One point of the design space. */
typedef struct TuneCandidate {
  TuneDecisions dec;   /* the decisions actually taken (repaired) */
  IrModule *mod;       /* the scheduled module (owned) */
  char *trace;         /* its trace as schedule-script text (owned) */
} TuneCandidate;

void tune_candidate_free(TuneCandidate *c);

/* Applies the generated design space of prim_func func of m: auto-inline,
 * multi-level tiling SSRSRS of the main (reduction) block with a sampled
 * write-cache level, decompose_reduction, vectorize/parallel/unroll with a
 * sampled unroll depth.  dec NULL: every decision sampled from seed; else
 * dec's decisions are reused (and repaired) and seed only breaks ties.
 * 0, or -1 with errors in diag. */
int tune_space_generate(const IrModule *m, const char *func, const TuneDecisions *dec, int64_t seed,
                        TuneCandidate *out, DiagCtx *diag);
/* The unroll depths the generated space samples from (its unroll decision
 * is an index into them). */
#define TUNE_NUNROLL 4
extern const int64_t tune_unroll_steps[TUNE_NUNROLL];

/* The host's facts the analytic candidate is derived from. */
typedef struct TuneHostModel {
  int lanes;          /* fp32 lanes of a vector register (8 AVX2, 16 AVX-512) */
  int vregs;          /* vector registers (16, 32) */
  int64_t l1, l2;     /* data cache bytes per core */
  int threads;        /* threads the kernel runs on */
} TuneHostModel;

/* This machine's model for threads (sysconf's cache sizes, cpuid's ISA). */
TuneHostModel tune_host_model(int threads);
/* The analytic candidate of prim_func func's generated space (analytic.c):
 * decisions chosen by BLIS's analytical model of the host instead of by
 * chance, and a line saying what it chose.  0, or -1 when the space has no
 * register tile to size (no row and vector loop around a reduction). */
int tune_analytic_candidate(const IrModule *m, const char *func, const TuneHostModel *hm, TuneDecisions *out,
                            char *what, size_t whatlen);
/* The design space generated for a GPU target (gpu_space.c): schedule-script
 * text for prim_func func of m when its one block is a matmul-like reduction
 * (free it), else NULL with the reason in why. */
char *tune_gpu_space(const IrModule *m, const char *func, char *why, size_t whylen);
/* The check a candidate for a GPU target passes before it is measured
 * (gpu_postproc.c, MetaSchedule's VerifyGPUCode max_vthread): 0, or -1 with
 * the reason in why when prim_func func of the scheduled module m runs more
 * than 1024 threads per block or 8 virtual threads per thread. */
int tune_gpu_postproc(const IrModule *m, const char *func, char *why, size_t whylen);

/* A candidate of a user's space: script (schedule-script text whose
 * sampling calls are the knobs) run on a schedule seeded by seed, or, with
 * dec, its trace replayed with dec's decisions.  func (NULL: the module's
 * only function) is the function the script works on, as sch.work_on.
 * 0, or -1 with errors. */
int tune_space_script(const IrModule *m, const char *func, const char *script, const TuneDecisions *dec,
                      int64_t seed, TuneCandidate *out, DiagCtx *diag);
/* A random neighbour of d: one tile decision with a prime factor moved
 * between two positions (innermost kept <= 64), or one categorical decision
 * changed.  rng: the search's xorshift state.  false when nothing can move. */
bool tune_mutate(const TuneDecisions *d, uint64_t *rng, TuneDecisions *out);

/* ------------------------------------------------------------- features */

#define TUNE_NFEATURES 40

/* Features of the loop nest of prim_func func of (scheduled) m, lowered to
 * flat buffers: per buffer store, arithmetic counts by kind, loop-kind
 * extents (parallel, vectorized, unrolled), access strides of the
 * innermost loop, footprints per loop level, an update's accumulator
 * chains in flight; the heaviest store's vector, plus totals.  0, or -1
 * when m does not lower. */
int tune_features(const IrModule *m, const char *func, float *out);
/* The name of feature slot i ("chains", "foot2"), or NULL for an unused slot. */
const char *tune_feature_name(int i);
/* Farthest-point sampling (spread.c): up to want of the n feature rows x,
 * each next the row farthest from the nfixed rows chosen before and those
 * picked so far (each feature scaled by its range over all of them; the
 * first of x when nothing is chosen).  Their indices into x, in pick order,
 * go to picks; returns how many. */
size_t tune_spread(const float *x, size_t n, const float *fixed, size_t nfixed, size_t want, size_t *picks);

/* --------------------------------------------------------------- cost model */

typedef struct TuneModel TuneModel;

/* An XGBoost booster trained from scratch on every measured candidate. */
TuneModel *tune_model_new(uint64_t seed);
void tune_model_free(TuneModel *m);
/* Adds a measured sample (features, throughput; 0 for a failure). */
void tune_model_add(TuneModel *m, const float *feat, double gflops);
/* Retrains on every sample so far (a ranking objective).  0 / -1. */
int tune_model_train(TuneModel *m);
/* Whether trained. */
bool tune_model_ready(const TuneModel *m);
/* Adds n measured samples of another workload, each throughput taken over
 * the group's best (failures 0), to the prior's history: transfer
 * learning. */
void tune_model_add_group(TuneModel *m, const float *feat, const double *perf, int n);
/* Scores n feature rows (higher = predicted faster) into out. */
int tune_model_predict(TuneModel *m, const float *feat, int n, float *out);

/* -------------------------------------------------------------- measurement */

typedef enum TuneStatus {
  TUNE_OK = 0,
  TUNE_ERR_BUILD,     /* the candidate failed to schedule, lower or compile */
  TUNE_ERR_RUN,       /* the call returned an error */
  TUNE_ERR_CRASH,     /* the worker process died on a signal */
  TUNE_ERR_TIMEOUT,   /* the worker ran past the timeout and was killed */
  TUNE_ERR_WRONG,     /* the result differs from the reference's */
} TuneStatus;

const char *tune_status_name(TuneStatus s);

typedef struct TuneResult {
  TuneStatus status;
  double median_ms, min_ms; /* per call (status OK) */
  int reps;                 /* timed calls */
  double gflops;            /* at the median; 0 on failure */
  char msg[200];            /* why it failed */
} TuneResult;

/* What the search maximizes, and what transfer learning ranks by: GFLOP/s,
 * or calls per ms for a function without arithmetic (a copy); 0 when the
 * candidate failed. */
double tune_throughput(bool ok, double gflops, double median_ms);

/* What a measurement needs (the inputs and the reference outputs are built
 * once, by tune_measurer_new). */
typedef struct TuneMeasurer TuneMeasurer;

typedef struct TuneMeasureOptions {
  int threads;        /* thread pool size for the timed calls */
  double budget_ms;   /* timing: calls spanning at least this long (>= 3 calls) */
  double timeout_s;   /* a candidate running longer (after its build) is killed */
  bool fast_math;     /* CgOptions.fast_math */
  uint64_t input_seed;/* random inputs */
  const char *target; /* NULL or "cpu": native; "cuda" / "opencl": candidates run on the device
                         (kernels timed), the reference on the CPU */
  CgFpContract fp_contract; /* CgOptions.fp_contract */
  double build_timeout_s; /* a build taking longer is killed (0: 60 s), as MetaSchedule's builder timeout */
} TuneMeasureOptions;

/* Prepares inputs for prim_func func of m (static shapes) and the reference
 * outputs: func under its CPU default schedule (sched/default_schedule.h;
 * as it is when already scheduled), compiled and run in a child.  NULL with
 * an error in diag. */
TuneMeasurer *tune_measurer_new(const IrModule *m, const char *func, const TuneMeasureOptions *o,
                                DiagCtx *diag);
void tune_measurer_free(TuneMeasurer *t);
/* The best median so far: a candidate whose checked run takes over 4x
 * longer is recorded with that one run instead of being timed. */
void tune_measurer_set_best(TuneMeasurer *t, double best_ms);
/* The static FLOP count of the function. */
double tune_measurer_flops(const TuneMeasurer *t);
/* Builds and times a scheduled module in a child process; never fails the
 * caller: the outcome is in *r.  trial: the trial's number (test hooks). */
void tune_measure(TuneMeasurer *t, const IrModule *cand, int trial, TuneResult *r);
/* Measures cands[0..n) as tune_measure each (results in res): up to one
 * builder per core at once, and the runs one at a time, in order, with
 * only the builders the run's threads leave a core to beside them. */
void tune_measure_batch(TuneMeasurer *t, const TuneCandidate *cands, const int *trials, int n, TuneResult *res);

/* ------------------------------------------------------------------ database */

/* One database record (a JSON line). */
typedef struct TuneRecord {
  char *workload;   /* the prim_func's structural hash, hex */
  char *func;       /* its name */
  char *target;     /* target string */
  char *trace;      /* schedule-script text */
  char *status;     /* "ok" or a TuneStatus name */
  char *error;      /* why it failed ("" when ok; may be NULL when read) */
  double median_ms, gflops;
  int threads;
  TuneDecisions dec;
  char *prim_func;  /* the workload as TVMScript text (NULL in records of older logs) */
} TuneRecord;

typedef struct TuneDb {
  TuneRecord *r;
  int n, cap;
  int skipped;      /* lines that did not parse (a torn last write) */
} TuneDb;

/* The structural hash of a prim_func as a workload key. */
char *tune_workload_key(const TirFunc *f);
/* The host target string ("llvm -mcpu=NAME -num-cores=N"). */
char *tune_target_string(void);
/* Appends one line (one write, then fsync: a crash leaves at most a torn
 * last line, which loading skips).  0, or -1 with errno. */
int tune_db_append(const char *path, const TuneRecord *rec);
/* Loads every record (a missing file is an empty database).  0 / -1. */
int tune_db_load(const char *path, TuneDb *db);
void tune_db_free(TuneDb *db);
/* The fastest "ok" record of workload (on threads, or any when threads<=0),
 * or NULL. */
const TuneRecord *tune_db_best(const TuneDb *db, const char *workload, int threads);
/* The fastest "baseline" record of workload: whole-model tuning measures
 * each task's default schedule (sched/default_schedule.c) once and records
 * its time with status "baseline" and an empty trace.  NULL when none. */
const TuneRecord *tune_db_baseline(const TuneDb *db, const char *workload);
/* Sorted indices of the k fastest ok records; returns the count. */
int tune_db_top(const TuneDb *db, int k, int *idx);
/* Replaces each prim_func of *m that has an ok record with its best
 * schedule; a module with a graph function is first taken through the graph
 * passes up to fuse-tir (tune_graph_tasks_module), whose kernels are what
 * whole-model tuning recorded.  Each gets its best schedule (the trace
 * replayed), unless its workload's baseline (the
 * default schedule) was measured faster: such a function is left for the
 * default-schedule stage, so tuning never slows a kernel down.  Returns the
 * number applied, -1 on error. */
int tune_db_apply(IrModule **m, const char *path, DiagCtx *diag);

/* AutoTVM's transfer learning (transfer.c): every record of the log at path
 * whose workload is not skip_workload and that carries its prim_func text
 * is rebuilt (the text parsed, the trace replayed), featurized and added to
 * the model, one group per workload.  *nrecords: the samples added;
 * *nskipped: the log's lines that did not parse.  0, or -1 with an error in
 * diag when the log cannot be read. */
int tune_transfer_load(TuneModel *model, const char *path, const char *skip_workload, int *nrecords,
                       int *nskipped, DiagCtx *diag);
/* The workload of a log record: its prim_func text parsed (NULL when the
 * record carries none, as older logs, or it does not parse). */
IrModule *tune_record_workload(const TuneRecord *r);
/* The features of record r's candidate: its trace replayed onto workload m
 * (tune_record_workload).  0, or -1 when the trace does not replay. */
int tune_record_features(const IrModule *m, const TuneRecord *r, float *out);

/* -------------------------------------------------------------------- search */

typedef enum TuneSearchKind { TUNE_SEARCH_EVOLUTIONARY, TUNE_SEARCH_RANDOM } TuneSearchKind;

/* Measures a batch of candidates somewhere (locally, or on MPI workers):
 * results[i] for cands[i]; trials[i] is its trial number. */
typedef void (*TuneBatchFn)(void *ctx, TuneCandidate *cands, const int *trials, int n, TuneResult *results);

typedef struct TuneOptions {
  const char *func;         /* the prim_func tuned */
  const char *space_script; /* a user's design space (schedule-script text), or NULL:
                               the generated space */
  int trials;               /* measurements in all */
  int batch;                /* measured per round */
  uint64_t seed;            /* makes the search deterministic apart from times */
  TuneSearchKind kind;
  double epsilon;           /* share of each batch picked at random */
  int population;           /* evolved candidates per round */
  int generations;          /* evolution steps per round */
  const char *db;           /* append every measurement here (NULL: none) */
  bool resume;              /* seed the search with db's records of this workload */
  const char *transfer;     /* a tuning log whose records of other workloads train the
                               cost model before the first batch (NULL: none) */
  bool analytic;            /* the evolutionary search's first batch holds the analytic
                               candidate (tune_analytic_candidate) of a generated space */
  FILE *progress;           /* progress lines (NULL: quiet) */
  bool tty;                 /* rewrite one line (\r) instead of printing lines */
  const char *label;        /* prefix of progress lines ("random") */
  TuneBatchFn measure;      /* NULL: tune_measure in this process */
  void *measure_ctx;
  TuneMeasurer *measurer;   /* used when measure is NULL */
  int threads;              /* recorded in the database */
  const char *target;       /* recorded in the database: NULL = the host ("llvm -mcpu=..."), or "cuda" /
                               "opencl" when the candidates ran on a GPU */
} TuneOptions;

TuneOptions tune_options_default(void);

/* The outcome of a tuning run. */
typedef struct TuneRun {
  int ntrials;              /* measured */
  int nfailed;              /* of which failed (crash, timeout, wrong, build) */
  double *best_curve;       /* best GFLOP/s after trial i (ntrials entries) */
  double *time_curve;       /* seconds since the start after trial i */
  double best_gflops, best_ms;  /* best_gflops: calls per ms for a function without FLOPs */
  char *best_trace;         /* the best candidate's schedule script (owned) */
  IrModule *best_mod;       /* the best scheduled module (owned) */
  TuneDecisions best_dec;
} TuneRun;

void tune_run_free(TuneRun *r);
/* Tunes prim_func o->func of m.  0, or -1 with errors in diag. */
int tune_search(const IrModule *m, const TuneOptions *o, TuneRun *out, DiagCtx *diag);

/* ----------------------------------------------------- whole-model tuning */

/* The module whose prim_funcs are the tasks: m after the graph passes
 * (legalize, fuse-ops, fuse-tir) when it has graph functions, else a copy. */
IrModule *tune_graph_tasks_module(const IrModule *m, DiagCtx *diag);
/* Tunes every kernel of fused (tasks deduplicated by workload, weighted by
 * FLOPs x count), base->trials in all, base->batch per round, each round to
 * the task with the largest share of the end-to-end time (one per task
 * first).  Reports per task on report; *tuned (may be NULL) receives fused
 * with the best schedules applied.  0, or -1 when no task could be tuned. */
int tune_graph(const IrModule *fused, const TuneOptions *base, const TuneMeasureOptions *mo, FILE *report,
               IrModule **tuned, DiagCtx *diag);

/* Writes an SVG of best-so-far GFLOP/s against trials for one or two runs
 * (b may be NULL) through a temporary file.  0 / -1. */
int tune_plot_svg(const char *path, const char *title, const TuneRun *a, const char *alabel,
                  const TuneRun *b, const char *blabel);

/* ---------------------------------------------------------------------- MPI */

/* Whether this build has MPI and the process was started by mpirun with
 * more than one rank. */
bool tune_mpi_active(void);
/* MPI_Init (once); *rank and *size. */
void tune_mpi_init(int *argc, char ***argv, int *rank, int *size);
void tune_mpi_finalize(void);
/* A TuneBatchFn that sends candidates' traces to ranks 1.. and collects
 * their results (ctx: the TuneMpi). */
void tune_mpi_measure_batch(void *ctx, TuneCandidate *cands, const int *trials, int n, TuneResult *results);
/* A worker's loop (ranks > 0): replays the traces it receives onto m and
 * measures them with t until rank 0 says stop. */
void tune_mpi_worker(const IrModule *m, TuneMeasurer *t);
/* Tells the workers to stop (rank 0). */
void tune_mpi_stop_workers(void);

#endif
