/* interp_race.c - the interpreter's GPU race detector (interp_run_tir_races).
 *
 * Threads are emulated one after another: the outermost loop bound to each
 * threadIdx axis enumerates the threads; a loop bound again to an axis
 * inside a loop of that axis runs only the iteration of the current thread
 * (on a GPU it is the same hardware thread: cooperative fetching); every
 * blockIdx iteration starts a fresh thread block.  Each thread counts the
 * barriers it passed (T.call_extern("int32", "tvm_storage_sync", "shared")):
 * its phase.  Every element of a shared buffer remembers the thread and the
 * phase of its last write; a read by another thread in the same phase has no
 * barrier between the two, and is reported with the buffer, both threads and
 * both statements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/interp_internal.h"
#include "ir/visit.h"

typedef struct Writer {
  int tid;     /* linear thread id of the last write */
  int phase;   /* its barrier count then */
  Span span;   /* the store */
} Writer;

struct IRace {
  int ext[3];          /* threadIdx extents of the current block (0 = unbound) */
  int tid[3];          /* the current thread */
  bool bound[3];       /* an outer loop binds the axis */
  int *phase;          /* per linear thread id */
  int nthreads;
  IrPtrMap writers;    /* element address -> Writer* */
  PtrVec owned;        /* the Writers */
  IrPtrMap shared;     /* allocation var -> SharedStorage*: one per thread block */
  PtrVec storages;     /* the SharedStorages */
  bool reported;
};

typedef struct SharedStorage {
  void *data;
  size_t nbytes;
} SharedStorage;

static void reset_block(IRace *r) {
  for (int i = 0; i < r->owned.len; i++) free(r->owned.items[i]);
  r->owned.len = 0;
  ir_ptrmap_clear(&r->writers);
  for (int i = 0; i < r->nthreads; i++) r->phase[i] = 0;
}

static int linear(const IRace *r) {
  int x = r->ext[0] ? r->ext[0] : 1, y = r->ext[1] ? r->ext[1] : 1;
  return r->tid[0] + x * (r->tid[1] + y * r->tid[2]);
}

static int thread_count(const IRace *r) {
  int n = 1;
  for (int d = 0; d < 3; d++) n *= r->ext[d] ? r->ext[d] : 1;
  return n;
}

static void thread_name(const IRace *r, int tid, char *buf, size_t n) {
  int x = r->ext[0] ? r->ext[0] : 1, y = r->ext[1] ? r->ext[1] : 1;
  snprintf(buf, n, "(threadIdx.x=%d, threadIdx.y=%d, threadIdx.z=%d)", tid % x, (tid / x) % y, tid / (x * y));
}

/* Runs a thread-bound loop under emulation; returns 1 when s is not one. */
int interp_race_for(Interp *in, const TirStmt *s) {
  IRace *r = in->race;
  if (!r || s->kind != TIR_S_FOR || s->loop.kind != TIR_FOR_THREAD_BINDING) return 1;
  const char *tag = s->loop.thread_tag;
  int64_t min, ext;
  if (interp_eval_int(in, s->loop.min, &min) || interp_eval_int(in, s->loop.extent, &ext)) return -1;
  bool block = !strncmp(tag, "blockIdx.", 9), thread = !strncmp(tag, "threadIdx.", 10);
  int d = tag[strlen(tag) - 1] - 'x';
  if (!thread || d < 0 || d > 2) { /* blockIdx: each iteration a fresh block */
    IMark m = interp_mark(in);
    interp_bind_int(in, s->loop.var, min);
    int slot = in->nvars - 1, rc = 0;
    for (int64_t i = 0; i < ext && rc == 0; i++) {
      in->vars[slot].s = interp_normalize_int(in->vars[slot].t, (uint64_t)(min + i));
      if (block) reset_block(r);
      rc = interp_exec(in, s->loop.body);
    }
    interp_pop(in, m);
    return rc;
  }
  IMark m = interp_mark(in);
  int rc = 0;
  if (r->bound[d]) { /* the same hardware thread: its own iteration only */
    int64_t i = r->tid[d];
    if (i >= min && i < min + ext) {
      interp_bind_int(in, s->loop.var, i);
      in->vars[in->nvars - 1].s = interp_normalize_int(in->vars[in->nvars - 1].t, (uint64_t)i);
      rc = interp_exec(in, s->loop.body);
    }
    interp_pop(in, m);
    return rc;
  }
  r->bound[d] = true;
  r->ext[d] = (int)ext;
  int n = thread_count(r);
  if (n > r->nthreads) {
    r->phase = realloc(r->phase, (size_t)n * sizeof *r->phase);
    for (int i = r->nthreads; i < n; i++) r->phase[i] = 0;
    r->nthreads = n;
  }
  interp_bind_int(in, s->loop.var, min);
  int slot = in->nvars - 1;
  for (int64_t i = 0; i < ext && rc == 0; i++) {
    r->tid[d] = (int)(min + i);
    in->vars[slot].s = interp_normalize_int(in->vars[slot].t, (uint64_t)(min + i));
    rc = interp_exec(in, s->loop.body);
  }
  interp_pop(in, m);
  r->bound[d] = false;
  r->tid[d] = 0;
  return rc;
}

void interp_race_sync(Interp *in) {
  IRace *r = in->race;
  if (!r || !r->nthreads) return;
  if (r->bound[0] || r->bound[1] || r->bound[2]) r->phase[linear(r)]++;
  else /* outside the thread loops: every thread of the block passes it */
    for (int i = 0; i < r->nthreads; i++) r->phase[i]++;
}

static bool is_shared(const TirBuffer *b) {
  const char *sc = b->scope ? b->scope : "";
  return !strcmp(sc, "shared") || (b->data->ptr_scope && !strcmp(b->data->ptr_scope, "shared"));
}

int interp_race_access(Interp *in, const TirBuffer *b, const void *addr, int64_t elem, bool store, Span sp) {
  IRace *r = in->race;
  if (!r || !is_shared(b) || !(r->bound[0] || r->bound[1] || r->bound[2])) return 0;
  int tid = linear(r), ph = r->phase[tid];
  Writer *w = ir_ptrmap_get(&r->writers, addr);
  if (store) {
    if (!w) {
      w = xmalloc(sizeof *w);
      pv_push(&r->owned, w);
      ir_ptrmap_put(&r->writers, addr, w);
    }
    *w = (Writer){tid, ph, sp};
    return 0;
  }
  if (!w || w->tid == tid || w->phase != ph || r->reported) return 0;
  r->reported = true;
  char a[96], c[96];
  thread_name(r, tid, a, sizeof a);
  thread_name(r, w->tid, c, sizeof c);
  int rc = interp_error(in, sp,
                        "data race: thread %s reads element %lld of shared buffer '%s' that thread %s wrote with no "
                        "tvm_storage_sync between them", a, (long long)elem, b->name, c);
  diag_note(in->diag, w->span, "the write by thread %s", c);
  return rc;
}

/* A shared allocation met while threads are emulated: the threads of a
 * block share it (TVM places it at the LCA of its accesses, which may be
 * inside the thread loops), so every thread gets the same memory.  It lives
 * until the run ends; its contents carry over, like uninitialised memory. */
void *interp_race_shared_storage(Interp *in, const TirVar *var, size_t nbytes) {
  IRace *r = in->race;
  if (!r || !(r->bound[0] || r->bound[1] || r->bound[2])) return NULL;
  SharedStorage *st = ir_ptrmap_get(&r->shared, var);
  if (st && st->nbytes == nbytes) return st->data;
  if (st) return NULL; /* a size that depends on the thread: private memory */
  st = xmalloc(sizeof *st);
  st->data = xcalloc(nbytes ? nbytes : 1, 1);
  st->nbytes = nbytes;
  pv_push(&r->storages, st);
  ir_ptrmap_put(&r->shared, var, st);
  return st->data;
}

void interp_race_free(IRace *r) {
  if (!r) return;
  reset_block(r);
  for (int i = 0; i < r->storages.len; i++) {
    SharedStorage *st = r->storages.items[i];
    free(st->data);
    free(st);
  }
  pv_free(&r->storages);
  ir_ptrmap_free(&r->shared);
  pv_free(&r->owned);
  ir_ptrmap_free(&r->writers);
  free(r->phase);
  free(r);
}

int interp_run_tir_races(const IrModule *m, const char *name, InterpArg *args, int nargs, DiagCtx *diag) {
  const IrGlobal *g = m && name ? ir_module_lookup(m, name) : NULL;
  if (!g || g->kind != IR_FUNC_TIR) {
    diag_error(diag, span_none, "no prim_func named '%s' in the module", name ? name : "(null)");
    return -1;
  }
  IRace *r = xcalloc(1, sizeof *r);
  int rc = interp_call_tir_with(m, g->tir, name, args, nargs, diag, r);
  interp_race_free(r);
  return rc;
}
