/* mpi.c - scale-out over MPI: under `mpirun -n N tvs tune ...` rank 0 runs
 * the search and ranks 1..N-1 are measurement workers.  Rank 0 hands each
 * worker one candidate at a time (its trace text and trial number), and the
 * next one as soon as that worker's result comes back; a worker replays the
 * trace onto the module it loaded itself (every rank loads the same file)
 * and measures it with its own TuneMeasurer.  Results land in rank 0's
 * database.  Without MPI at build time, these are stubs and tuning stays in
 * one process. */
#include <stdlib.h>
#include <string.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "sched/schedule.h"

#ifdef TVS_HAVE_MPI
#include <mpi.h>

enum { TAG_WORK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

typedef struct WorkHead {
  int index;   /* in the batch */
  int trial;
} WorkHead;

typedef struct ResultMsg {
  int index;
  TuneResult r;
} ResultMsg;

bool tune_mpi_active(void) {
  const char *n = getenv("OMPI_COMM_WORLD_SIZE");
  if (!n) n = getenv("PMI_SIZE");
  return n && atoi(n) > 1;
}

void tune_mpi_init(int *argc, char ***argv, int *rank, int *size) {
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

void tune_mpi_finalize(void) {
  int inited = 0, fin = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (inited && !fin) MPI_Finalize();
}

static void send_work(int worker, int index, const TuneCandidate *c, int trial) {
  size_t len = strlen(c->trace) + 1;
  char *buf = xmalloc(sizeof(WorkHead) + len);
  WorkHead h = {index, trial};
  memcpy(buf, &h, sizeof h);
  memcpy(buf + sizeof h, c->trace, len);
  MPI_Send(buf, (int)(sizeof h + len), MPI_BYTE, worker, TAG_WORK, MPI_COMM_WORLD);
  free(buf);
}

void tune_mpi_measure_batch(void *ctx, TuneCandidate *cands, const int *trials, int n, TuneResult *results) {
  (void)ctx;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = 0, pending = 0;
  for (int w = 1; w < size && next < n; w++, next++, pending++) send_work(w, next, &cands[next], trials[next]);
  while (pending > 0) {
    ResultMsg m;
    MPI_Status st;
    MPI_Recv(&m, (int)sizeof m, MPI_BYTE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
    pending--;
    if (m.index >= 0 && m.index < n) results[m.index] = m.r;
    if (next < n) {
      send_work(st.MPI_SOURCE, next, &cands[next], trials[next]);
      next++;
      pending++;
    }
  }
}

void tune_mpi_worker(const IrModule *m, TuneMeasurer *t) {
  for (;;) {
    MPI_Status st;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int len = 0;
    MPI_Get_count(&st, MPI_BYTE, &len);
    char *buf = xmalloc((size_t)len + 1);
    MPI_Recv(buf, len, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (st.MPI_TAG == TAG_STOP || len < (int)sizeof(WorkHead)) {
      free(buf);
      return;
    }
    buf[len] = 0;
    WorkHead h;
    memcpy(&h, buf, sizeof h);
    ResultMsg r;
    memset(&r, 0, sizeof r);
    r.index = h.index;
    DiagCtx d;
    diag_init(&d, NULL);
    IrModule *cand = sch_trace_replay(m, buf + sizeof h, &d);
    if (cand) {
      tune_measure(t, cand, h.trial, &r.r);
      ir_module_free(cand);
    } else {
      r.r.status = TUNE_ERR_BUILD;
      snprintf(r.r.msg, sizeof r.r.msg, "the trace does not replay on the worker");
    }
    diag_free(&d);
    free(buf);
    MPI_Send(&r, (int)sizeof r, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
  }
}

void tune_mpi_stop_workers(void) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int w = 1; w < size; w++) MPI_Send(NULL, 0, MPI_BYTE, w, TAG_STOP, MPI_COMM_WORLD);
}

#else

bool tune_mpi_active(void) { return false; }
void tune_mpi_init(int *argc, char ***argv, int *rank, int *size) {
  (void)argc, (void)argv;
  *rank = 0;
  *size = 1;
}
void tune_mpi_finalize(void) {}
void tune_mpi_measure_batch(void *ctx, TuneCandidate *cands, const int *trials, int n, TuneResult *results) {
  (void)ctx, (void)cands, (void)trials;
  for (int i = 0; i < n; i++) results[i].status = TUNE_ERR_BUILD;
}
void tune_mpi_worker(const IrModule *m, TuneMeasurer *t) { (void)m, (void)t; }
void tune_mpi_stop_workers(void) {}

#endif
