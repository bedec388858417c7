/* gpu_unify_thread_binding.c - UnifyThreadBinding (GPU pipeline, after
 * compact-buffer-allocation).
 *
 * Every kernel (the nest under an outermost thread-bound loop) starts with
 * its launch threads: one loop per thread axis, in the order the axes first
 * appear, each with a var of its own named after the axis (blockIdx_x,
 * threadIdx_x, ...), and the loops bound to an axis inside the kernel are
 * replaced by their bodies with their vars replaced by the axis' var (TVM
 * emits these loops as its "launch threads").  What the later passes see is
 * so one perfect nest of thread loops per kernel: split-host-device takes
 * the launch extents from it, and the code generators read each thread
 * index once.
 *
 * verify-thread-binding has checked that the loops of one axis have one
 * extent (TVM checks it here).  Loops bound to vthread stay where they are:
 * inject-virtual-thread removes them. */
#include "ir/transform/xform_internal.h"

#include <string.h>

#define MAX_AXES 16

typedef struct Unify {
  IrHeap *h;
  const TirStmt *first[MAX_AXES];  /* the first loop of each axis */
  TirVar *var[MAX_AXES];           /* and the var of its launch thread */
  int naxes;
  IrPtrMap subst;                  /* old loop var -> launch var ref */
} Unify;

static bool launch_loop(const TirStmt *s) {
  return s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING && strncmp(s->loop.thread_tag, "vthread", 7);
}

static bool collect_pre(TirVisitor *v, const TirStmt *s) {
  Unify *u = v->ctx;
  if (!launch_loop(s)) return true;
  int i = 0;
  while (i < u->naxes && strcmp(u->first[i]->loop.thread_tag, s->loop.thread_tag)) i++;
  if (i == u->naxes) {
    if (u->naxes == MAX_AXES) return true;
    u->first[i] = s;
    u->var[i] = xf_thread_var(u->h, s);
    u->naxes++;
  }
  ir_ptrmap_put(&u->subst, s->loop.var, tir_var_ref(u->h, u->var[i]));
  return true;
}

static TirExpr *unify_var(TirMutator *m, TirExpr *e) {
  Unify *u = m->ctx;
  TirExpr *r = ir_ptrmap_get(&u->subst, e->var);
  return r ? r : e;
}

static TirStmt *drop_launch(TirMutator *m, TirStmt *s) {
  Unify *u = m->ctx;
  if (launch_loop(s) && ir_ptrmap_has(&u->subst, s->loop.var)) return tir_mutate_stmt(m, s->loop.body);
  return tir_mutate_stmt_children(m, s);
}

static TirStmt *kernel(IrHeap *h, TirStmt *root) {
  Unify u;
  memset(&u, 0, sizeof u);
  u.h = h;
  ir_ptrmap_init(&u.subst);
  TirVisitor v = {.pre_stmt = collect_pre, .ctx = &u};
  tir_visit_stmt(&v, root);
  TirMutator m;
  tir_mutator_init(&m, h);
  m.expr[TIR_VAR] = unify_var;
  m.stmt[TIR_S_FOR] = drop_launch;
  m.ctx = &u;
  TirStmt *body = tir_mutate_stmt(&m, root);
  tir_mutator_free(&m);
  for (int i = u.naxes - 1; i >= 0; i--) {
    const TirStmt *f = u.first[i];
    body = tir_for(h, u.var[i], f->loop.min, f->loop.extent, TIR_FOR_THREAD_BINDING, f->loop.thread_tag,
                   f->loop.annotations, body);
  }
  ir_ptrmap_free(&u.subst);
  return body;
}

/* requires: opaque blocks, one extent per axis and kernel
 * (verify-thread-binding); ensures: each kernel is a nest of one loop per
 * thread axis around the rest, no other non-vthread thread loop inside. */
TirFunc *tir_unify_thread_binding(TirPassCtx *ctx, TirFunc *f) {
  return xf_map_kernels(ctx, f, launch_loop, kernel);
}
