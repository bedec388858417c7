/* gpu_verify_thread_binding.c - the thread-binding rules of a GPU schedule,
 * checked on the scheduled IR before anything is lowered (GPU pipeline only).
 *
 *  - all loops bound to one thread axis in one kernel (the nest under an
 *    outermost thread-bound loop) have one extent: cooperative fetching
 *    rebinds threadIdx.x under threadIdx.x, a cross-thread reduction binds
 *    it again beside the loop that computed the partials, and
 *    lift-thread-binding / unify-thread-binding make those loops one launch
 *    thread (TVM checks this in UnifyThreadBinding; here it is checked on the
 *    scheduled IR, where the spans are the user's loops);
 *  - threads per block (the product of the kernel's threadIdx extents) at
 *    most 1024, each threadIdx extent a constant;
 *  - a reduce iter bound through a threadIdx loop must be one that
 *    lower-cross-thread-reduction (run before) has rewritten. */
#include "ir/transform/xform_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/printer.h"
#include "ir/structural_equal.h"

typedef struct Bound {
  const TirStmt *loop[16];  /* the thread-bound loops on the current path */
  int n;
} Bound;

typedef struct Check {
  TirPassCtx *ctx;
  Bound path;
  Bound kernel;   /* the first loop of each thread axis in the current kernel */
  bool failed;
} Check;

static void fail(Check *c, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(Check *c, Span sp, const char *fmt, ...) {
  if (c->failed) return;
  c->failed = true;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(c->ctx->diag, sp, "%s", msg);
}

static const TirStmt *bound_to(const Bound *b, const char *tag) {
  for (int i = 0; i < b->n; i++)
    if (!strcmp(b->loop[i]->loop.thread_tag, tag)) return b->loop[i];
  return NULL;
}

static bool same_extent(const TirExpr *a, const TirExpr *b) {
  int64_t x, y;
  return a == b || tir_expr_identical(a, b) || (tir_is_const_int(a, &x) && tir_is_const_int(b, &y) && x == y);
}

static void check_loop(Check *c, const TirStmt *s) {
  const char *tag = s->loop.thread_tag;
  int64_t ext = 0;
  if (!strncmp(tag, "vthread", 7)) return; /* inject-virtual-thread checks its extent */
  bool is_thread = !strncmp(tag, "threadIdx.", 10);
  if (is_thread && !tir_is_const_int(s->loop.extent, &ext)) {
    fail(c, s->span, "loop '%s' is bound to %s with a symbolic extent: a thread block's size must be a constant",
         s->loop.var->name, tag);
    return;
  }
  if (c->path.n == 0) c->kernel.n = 0; /* a new kernel */
  const TirStmt *first = bound_to(&c->kernel, tag);
  if (first && !same_extent(first->loop.extent, s->loop.extent)) {
    StrBuf a, b;
    sb_init(&a);
    sb_init(&b);
    print_tir_expr(&a, first->loop.extent);
    print_tir_expr(&b, s->loop.extent);
    fail(c, s->span,
         "loop '%s' binds %s with extent %s, but loop '%s' of the same kernel binds it with extent %s: all loops "
         "bound to one thread axis in a kernel must have the same extent",
         s->loop.var->name, tag, b.data, first->loop.var->name, a.data);
    sb_free(&a);
    sb_free(&b);
    return;
  }
  if (first || c->kernel.n >= 16) return;
  c->kernel.loop[c->kernel.n++] = s;
  if (!is_thread) return;
  long long threads = 1; /* the block: every threadIdx axis of the kernel */
  for (int i = 0; i < c->kernel.n; i++) {
    int64_t e;
    if (!strncmp(c->kernel.loop[i]->loop.thread_tag, "threadIdx.", 10) && tir_is_const_int(c->kernel.loop[i]->loop.extent, &e))
      threads *= e;
  }
  if (threads > TIR_GPU_MAX_THREADS)
    fail(c, s->span, "loop '%s' (%s) makes a block of %lld threads: the device allows at most %d per block",
         s->loop.var->name, tag, threads, TIR_GPU_MAX_THREADS);
}

/* A reduce iter whose binding uses a threadIdx loop var on the path. */
static void check_realize(Check *c, const TirStmt *s) {
  const TirBlock *b = tir_realize_block(s);
  for (int k = 0; k < b->niters && k < s->realize.n; k++) {
    if (b->iters[k].type != TIR_ITER_REDUCE) continue;
    for (int i = 0; i < c->path.n; i++) {
      const TirStmt *l = c->path.loop[i];
      if (strncmp(l->loop.thread_tag, "threadIdx.", 10) || !tir_expr_uses_var(s->realize.values[k], l->loop.var))
        continue;
      fail(c, l->span,
           "block '%s' reduces over loop '%s' bound to threadIdx in a form lower-cross-thread-reduction does not "
           "take (it needs `B[i] = B[i] OP x` with OP +, *, max or min, only serial loops between the thread loop "
           "and the block, and no threadIdx loop around it)",
           b->name, l->loop.var->name);
      return;
    }
  }
}

static void walk(Check *c, const TirStmt *s);

static bool pre(TirVisitor *v, const TirStmt *s) {
  Check *c = v->ctx;
  if (c->failed) return false;
  if (s->kind == TIR_S_BLOCK_REALIZE) check_realize(c, s);
  if (s->kind != TIR_S_FOR || s->loop.kind != TIR_FOR_THREAD_BINDING) return true;
  check_loop(c, s);
  if (c->path.n < 16) c->path.loop[c->path.n++] = s;
  walk(c, s->loop.body);
  c->path.n--;
  return false;
}

static void walk(Check *c, const TirStmt *s) {
  TirVisitor v = {.pre_stmt = pre, .ctx = c};
  tir_visit_stmt(&v, s);
}

/* requires: the scheduled IR; ensures: nothing changes (errors only). */
TirFunc *tir_verify_thread_binding(TirPassCtx *ctx, TirFunc *f) {
  Check c = {ctx, {{0}, 0}, {{0}, 0}, false};
  walk(&c, f->body);
  return f;
}
