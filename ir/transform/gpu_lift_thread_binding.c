/* gpu_lift_thread_binding.c - LiftThreadBinding (GPU pipeline, after
 * convert-blocks-to-opaque).
 *
 * Inside one kernel (the nest under an outermost thread-bound loop), every
 * thread axis gets one loop: the loops bound to it are replaced by their
 * bodies, and one loop `for threadIdx_x in T.thread_binding(...)` is put
 * around the body of the lowest loop that contains them all (their lowest
 * common ancestor among the loops, the loop itself when there is one), with
 * their vars replaced by its var.  A cooperative fetch's rebinding loops and
 * the sibling loops of a cross-thread reduction so become one thread loop,
 * which may now sit above the block that allocates a buffer (TVM: "lift
 * threadIdx beyond local"): compact-buffer-allocation then sizes a local
 * buffer per thread and a shared one over the threads.
 *
 * verify-thread-binding has checked that the loops of one axis have one
 * extent.  Loops bound to vthread stay where they are: inject-virtual-thread
 * removes them. */
#include "ir/transform/xform_internal.h"

#include <stdio.h>
#include <string.h>

#define MAX_AXES 16
#define MAX_DEPTH 64

/* One thread axis of the kernel: its first loop, the var of the lifted
 * loop, and the loop path common to all its loops (the LCA is its last). */
typedef struct Axis {
  const TirStmt *first;
  TirVar *var;
  const TirStmt *lca[MAX_DEPTH];
  int nlca;
} Axis;

typedef struct Lift {
  IrHeap *h;
  Axis axes[MAX_AXES];
  int naxes;
  const TirStmt *stack[MAX_DEPTH];  /* the loops around the visited statement */
  int depth;
  IrPtrMap subst;                   /* old loop var -> new var ref */
} Lift;

static bool lifted_tag(const TirStmt *s) {
  return s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING && strncmp(s->loop.thread_tag, "vthread", 7);
}

/* A var named after the axis, as TVM names it (threadIdx.x -> threadIdx_x). */
TirVar *xf_thread_var(IrHeap *h, const TirStmt *loop) {
  char name[64];
  snprintf(name, sizeof name, "%s", loop->loop.thread_tag);
  for (char *p = name; *p; p++)
    if (*p == '.') *p = '_';
  return tir_var(h, name, loop->loop.var->dtype);
}

static void note_loop(Lift *l, const TirStmt *s) {
  Axis *ax = NULL;
  for (int i = 0; i < l->naxes && !ax; i++)
    if (!strcmp(l->axes[i].first->loop.thread_tag, s->loop.thread_tag)) ax = &l->axes[i];
  if (!ax) {
    if (l->naxes == MAX_AXES) return;
    ax = &l->axes[l->naxes++];
    ax->first = s;
    ax->var = xf_thread_var(l->h, s);
    memcpy(ax->lca, l->stack, (size_t)l->depth * sizeof *l->stack);
    ax->nlca = l->depth;
  } else {
    int i = 0;
    while (i < ax->nlca && i < l->depth && ax->lca[i] == l->stack[i]) i++;
    ax->nlca = i;
  }
  ir_ptrmap_put(&l->subst, s->loop.var, tir_var_ref(l->h, ax->var));
}

static void collect(Lift *l, const TirStmt *s);

static bool collect_pre(TirVisitor *v, const TirStmt *s) {
  Lift *l = v->ctx;
  if (s->kind != TIR_S_FOR) return true;
  if (l->depth == MAX_DEPTH) return false;
  l->stack[l->depth++] = s;
  if (lifted_tag(s)) note_loop(l, s); /* first appearance: the outer loop first */
  collect(l, s->loop.body);
  l->depth--;
  return false;
}

static void collect(Lift *l, const TirStmt *s) {
  TirVisitor v = {.pre_stmt = collect_pre, .ctx = l};
  tir_visit_stmt(&v, s);
}

static TirExpr *lift_var(TirMutator *m, TirExpr *e) {
  Lift *l = m->ctx;
  TirExpr *r = ir_ptrmap_get(&l->subst, e->var);
  return r ? r : e;
}

/* The For s rebuilt: its body wrapped in the axes lifted to it (the first
 * axis outermost); s itself dropped when it is a lifted thread loop. */
static TirStmt *lift_for(TirMutator *m, TirStmt *s) {
  Lift *l = m->ctx;
  TirStmt *body = tir_mutate_stmt(m, s->loop.body);
  for (int i = l->naxes - 1; i >= 0; i--) {
    const Axis *ax = &l->axes[i];
    if (!ax->nlca || ax->lca[ax->nlca - 1] != s) continue;
    const TirStmt *f = ax->first;
    body = tir_for(l->h, ax->var, f->loop.min, f->loop.extent, TIR_FOR_THREAD_BINDING, f->loop.thread_tag,
                   f->loop.annotations, body);
  }
  if (lifted_tag(s) && ir_ptrmap_has(&l->subst, s->loop.var)) return body; /* merged into its axis' loop */
  TirExpr *min = tir_mutate_expr(m, s->loop.min), *ext = tir_mutate_expr(m, s->loop.extent);
  if (body == s->loop.body && min == s->loop.min && ext == s->loop.extent) return s;
  TirStmt *c = ir_memdup(l->h, s, sizeof *s);
  c->loop.min = min;
  c->loop.extent = ext;
  c->loop.body = body;
  return c;
}

static TirStmt *kernel(IrHeap *h, TirStmt *root) {
  Lift l;
  memset(&l, 0, sizeof l);
  l.h = h;
  ir_ptrmap_init(&l.subst);
  l.stack[l.depth++] = root;
  note_loop(&l, root);
  collect(&l, root->loop.body);
  TirMutator m;
  tir_mutator_init(&m, h);
  m.expr[TIR_VAR] = lift_var;
  m.stmt[TIR_S_FOR] = lift_for;
  m.ctx = &l;
  TirStmt *r = tir_mutate_stmt(&m, root);
  tir_mutator_free(&m);
  ir_ptrmap_free(&l.subst);
  return r;
}

/* requires: opaque blocks (GPU pipeline), one extent per axis and kernel
 * (verify-thread-binding); ensures: one loop per thread axis and kernel, at
 * the LCA of the axis' loops; vthread loops unchanged. */
TirFunc *tir_lift_thread_binding(TirPassCtx *ctx, TirFunc *f) {
  return xf_map_kernels(ctx, f, lifted_tag, kernel);
}
