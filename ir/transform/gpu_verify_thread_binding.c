/* gpu_verify_thread_binding.c - the thread-binding rules of a GPU schedule,
 * checked on the scheduled IR before anything is lowered (GPU pipeline only).
 *
 *  - a thread axis bound again inside a loop bound to it must have the same
 *    extent (cooperative fetching rebinds threadIdx.x under threadIdx.x: the
 *    inner loop is the same hardware thread);
 *  - threads per block (the product of the threadIdx extents on a path) at
 *    most 1024, each threadIdx extent a constant;
 *  - a reduce iter bound through a threadIdx loop must be one that
 *    lower-cross-thread-reduction (run before) has rewritten. */
#include "ir/transform/xform_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GPU_MAX_THREADS 1024

typedef struct Bound {
  const TirStmt *loop[16];  /* the thread-bound loops on the current path */
  int n;
} Bound;

typedef struct Check {
  TirPassCtx *ctx;
  Bound path;
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

static const TirStmt *bound_to(const Check *c, const char *tag) {
  for (int i = 0; i < c->path.n; i++)
    if (!strcmp(c->path.loop[i]->loop.thread_tag, tag)) return c->path.loop[i];
  return NULL;
}

static void check_loop(Check *c, const TirStmt *s) {
  const char *tag = s->loop.thread_tag;
  int64_t ext = 0, outer_ext = 0;
  if (!strncmp(tag, "vthread", 7)) return; /* inject-virtual-thread checks its extent */
  bool is_thread = !strncmp(tag, "threadIdx.", 10);
  if (is_thread && !tir_is_const_int(s->loop.extent, &ext)) {
    fail(c, s->span, "loop '%s' is bound to %s with a symbolic extent: a thread block's size must be a constant",
         s->loop.var->name, tag);
    return;
  }
  const TirStmt *outer = bound_to(c, tag);
  if (outer) {
    bool same = outer->loop.extent == s->loop.extent ||
                (tir_is_const_int(outer->loop.extent, &outer_ext) && tir_is_const_int(s->loop.extent, &ext) &&
                 outer_ext == ext);
    if (!same)
      fail(c, s->span,
           "loop '%s' binds %s again inside loop '%s' with another extent: one thread axis has one extent "
           "per kernel",
           s->loop.var->name, tag, outer->loop.var->name);
    if (!same) return;
  }
  if (!is_thread || outer) return;
  long long threads = ext;
  for (int i = 0; i < c->path.n; i++) {
    int64_t e;
    if (!strncmp(c->path.loop[i]->loop.thread_tag, "threadIdx.", 10) && tir_is_const_int(c->path.loop[i]->loop.extent, &e))
      threads *= e;
  }
  if (threads > GPU_MAX_THREADS)
    fail(c, s->span, "loop '%s' (%s) makes a block of %lld threads: the device allows at most 1024 per block",
         s->loop.var->name, tag, threads);
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
  Check c = {ctx, {{0}, 0}, false};
  walk(&c, f->body);
  return f;
}
