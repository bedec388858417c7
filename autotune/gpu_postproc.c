/* gpu_postproc.c - the checks a GPU candidate passes before it is measured,
 * the structural half of MetaSchedule's VerifyGPUCode postprocessor: at most
 * 1024 threads per block (the device's limit, checked again when lowered)
 * and at most 8 virtual threads per thread (MetaSchedule's max_vthread).
 * inject-virtual-thread repeats a thread's work once per virtual thread, and
 * perfect tiles sampled at random can ask for thousands: a vthread 16 x 128
 * candidate of the 1024^3 matmul space lowered to 121 000 lines of PTX and
 * its build was killed after 60 s on an H200.  TVM bounds a kernel's
 * "vthread" extent; the spaces here bind vthread.y and vthread.x, which
 * nest, so their product is bounded.  A candidate refused here is dropped
 * when sampled, as MetaSchedule drops one a postprocessor rejects: it spends
 * no trial and no build.  Shared memory is left to verify-gpu-code, which
 * needs the lowered buffer sizes. */
#include <stdio.h>
#include <string.h>

#include "autotune/tune.h"
#include "ir/transform.h"
#include "ir/visit.h"

#define TUNE_GPU_MAX_VTHREAD 8
#define MAX_DEPTH 16

/* The loops bound to one kind of thread axis around the current statement.
 * A loop bound to an axis already on the path (a cooperative fetch computed
 * under the thread loops binds threadIdx again) is the same threads, and is
 * not counted twice. */
typedef struct AxisPath {
  const char *prefix;            /* "vthread" or "threadIdx" */
  int64_t product;               /* their extents multiplied */
  int64_t worst;                 /* the largest product seen */
  char what[96];                 /* its loops, e.g. "vthread.y 16 x vthread.x 128" */
  char path[96];                 /* the loops around the current statement */
  const TirStmt *loop[MAX_DEPTH]; /* the counted loops, outermost first */
  size_t cut[MAX_DEPTH];         /* path's length before each of them */
  int depth;
} AxisPath;

static bool bound_to(const TirStmt *s, const char *prefix, int64_t *extent) {
  return s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING && s->loop.thread_tag &&
         !strncmp(s->loop.thread_tag, prefix, strlen(prefix)) && tir_is_const_int(s->loop.extent, extent) &&
         *extent > 0;
}

static void enter(AxisPath *a, const TirStmt *s) {
  int64_t e;
  if (!bound_to(s, a->prefix, &e) || a->depth == MAX_DEPTH) return;
  for (int i = 0; i < a->depth; i++)
    if (!strcmp(a->loop[i]->loop.thread_tag, s->loop.thread_tag)) return;
  size_t len = strlen(a->path);
  a->loop[a->depth] = s;
  a->cut[a->depth++] = len;
  a->product *= e;
  snprintf(a->path + len, sizeof a->path - len, "%s%s %lld", len ? " x " : "", s->loop.thread_tag, (long long)e);
  if (a->product > a->worst) {
    a->worst = a->product;
    snprintf(a->what, sizeof a->what, "%s", a->path);
  }
}

static void leave(AxisPath *a, const TirStmt *s) {
  int64_t e;
  if (!a->depth || a->loop[a->depth - 1] != s || !bound_to(s, a->prefix, &e)) return;
  a->product /= e;
  a->path[a->cut[--a->depth]] = 0;
}

static bool walk_pre(TirVisitor *v, const TirStmt *s) {
  AxisPath *a = v->ctx;
  enter(&a[0], s);
  enter(&a[1], s);
  return true;
}

static void walk_post(TirVisitor *v, const TirStmt *s) {
  AxisPath *a = v->ctx;
  leave(&a[0], s);
  leave(&a[1], s);
}

int tune_gpu_postproc(const IrModule *m, const char *func, char *why, size_t whylen) {
  const IrGlobal *g = ir_module_lookup(m, func);
  if (!g || g->kind != IR_FUNC_TIR) return 0;
  AxisPath a[2] = {{.prefix = "threadIdx", .product = 1, .worst = 1}, {.prefix = "vthread", .product = 1, .worst = 1}};
  TirVisitor v = {.pre_stmt = walk_pre, .post_stmt = walk_post, .ctx = a};
  tir_visit_stmt(&v, g->tir->body);
  if (a[0].worst > TIR_GPU_MAX_THREADS)
    snprintf(why, whylen, "%lld threads per block (%s): at most %d", (long long)a[0].worst, a[0].what,
             TIR_GPU_MAX_THREADS);
  else if (a[1].worst > TUNE_GPU_MAX_VTHREAD)
    snprintf(why, whylen, "%lld virtual threads per thread (%s): at most %d", (long long)a[1].worst, a[1].what,
             TUNE_GPU_MAX_VTHREAD);
  else
    return 0;
  return -1;
}
