/* inject_virtual_thread.c - InjectVirtualThread.
 *
 * A loop bound to "vthread" (vthread.x/y/z) of n iterations is a virtual
 * thread: each iteration behaves as a thread of its own, and the real thread
 * runs all n, interleaved at the finest grain so that they share what does
 * not depend on them.  The pass removes the loop:
 *   - a buffer allocated inside it that is written from something that
 *     depends on the virtual thread (its index, its value, another such
 *     buffer) gets n copies: the allocation grows n times and every access
 *     is offset by vthread * size;
 *   - every statement that depends on the virtual thread (through its var,
 *     a let derived from it, or such a buffer) is repeated n times with the
 *     var replaced by 0 .. n-1, as deep down as loops, ifs and lets whose
 *     headers do not depend on it allow; the rest runs once, shared (TVM
 *     shares allocations under "vthread" the same way).
 * Virtual threads must not depend on each other (as threads must not race),
 * so running their statements interleaved keeps the program's meaning. */
#include <stdlib.h>
#include <string.h>

#include "ir/transform/xform_internal.h"
#include "ir/visit.h"

typedef struct Vt {
  IrHeap *h;
  const TirVar *v;   /* the virtual thread's loop var */
  int64_t n;         /* its extent */
  IrPtrMap touched;  /* vars that depend on it: v, lets, data vars of expanded buffers */
  IrPtrMap allocs;   /* data var -> ALLOCATE stmt, allocations inside the loop */
  IrPtrMap expanded; /* data var -> its size (int64 as pointer) before expanding */
  IrPtrMap grown;    /* old TirBuffer -> its expanded copy (one per buffer) */
  bool grew;         /* the fixed point added something */
} Vt;

/* ------------------------------------------------------------- analysis */

typedef struct Uses {
  const Vt *vt;
  bool any;
} Uses;

static bool uses_pre_expr(TirVisitor *v, const TirExpr *e) {
  Uses *u = v->ctx;
  if ((e->kind == TIR_VAR && ir_ptrmap_has(&u->vt->touched, e->var)) ||
      (e->kind == TIR_LOAD && ir_ptrmap_has(&u->vt->touched, e->load.buf->data))) {
    u->any = true;
    v->stop = true;
  }
  return true;
}

static bool uses_pre_stmt(TirVisitor *v, const TirStmt *s) {
  Uses *u = v->ctx;
  if (s->kind == TIR_S_STORE && ir_ptrmap_has(&u->vt->touched, s->store.buf->data)) {
    u->any = true;
    v->stop = true;
  }
  return true;
}

static bool expr_touched(const Vt *vt, const TirExpr *e) {
  Uses u = {vt, false};
  TirVisitor v = {.pre_expr = uses_pre_expr, .ctx = &u};
  if (e) tir_visit_expr(&v, e);
  return u.any;
}

static bool stmt_touched(const Vt *vt, const TirStmt *s) {
  Uses u = {vt, false};
  TirVisitor v = {.pre_expr = uses_pre_expr, .pre_stmt = uses_pre_stmt, .ctx = &u};
  if (s) tir_visit_stmt(&v, s);
  return u.any;
}

/* One round of the fixed point: lets of touched values, and stores into
 * inner allocations from touched indices or values, become touched. */
static bool grow_pre_stmt(TirVisitor *v, const TirStmt *s) {
  Vt *vt = v->ctx;
  if (s->kind == TIR_S_ALLOCATE) ir_ptrmap_put(&vt->allocs, s->alloc.var, (void *)s);
  if (s->kind == TIR_S_LET && !ir_ptrmap_has(&vt->touched, s->let.var) && expr_touched(vt, s->let.value)) {
    ir_ptrmap_put(&vt->touched, s->let.var, NULL);
    vt->grew = true;
  }
  if (s->kind == TIR_S_STORE && ir_ptrmap_has(&vt->allocs, s->store.buf->data) &&
      !ir_ptrmap_has(&vt->touched, s->store.buf->data)) {
    bool t = expr_touched(vt, s->store.value);
    for (int i = 0; i < s->store.n && !t; i++) t = expr_touched(vt, s->store.idx[i]);
    if (t) {
      ir_ptrmap_put(&vt->touched, s->store.buf->data, NULL);
      vt->grew = true;
    }
  }
  return true;
}

static void find_touched(Vt *vt, const TirStmt *body) {
  ir_ptrmap_put(&vt->touched, vt->v, NULL);
  do {
    vt->grew = false;
    TirVisitor v = {.pre_stmt = grow_pre_stmt, .ctx = vt};
    tir_visit_stmt(&v, body);
  } while (vt->grew);
}

/* ------------------------------------------------- expanding allocations */

static int64_t expanded_size(const Vt *vt, const TirVar *data) {
  return (int64_t)(intptr_t)ir_ptrmap_get(&vt->expanded, data);
}

/* buf[i] of an expanded buffer -> buf[v * size + i] (one dimension: the
 * pass runs after flatten-buffer). */
static TirExpr *offset_index(Vt *vt, const TirVar *data, TirExpr *idx) {
  TirExpr *v = xf_cast_to(vt->h, idx->dtype, tir_var_ref(vt->h, (TirVar *)vt->v));
  return xf_add(vt->h, xf_mul(vt->h, v, xf_int(vt->h, idx->dtype, expanded_size(vt, data))), idx);
}

static TirBuffer *grown_buffer(Vt *vt, TirBuffer *b) {
  TirBuffer *nb = ir_ptrmap_get(&vt->grown, b);
  if (nb) return nb;
  nb = tir_buffer_copy(vt->h, b);
  ir_ptrmap_put(&vt->grown, b, nb);
  nb->shape = ir_alloc(vt->h, sizeof *nb->shape);
  nb->shape[0] = xf_int(vt->h, b->shape[0]->dtype, expanded_size(vt, b->data) * vt->n);
  nb->ndim = 1;
  return nb;
}

static TirBuffer *rw_buffer(TirMutator *m, TirBuffer *b) {
  Vt *vt = m->ctx;
  return ir_ptrmap_has(&vt->expanded, b->data) ? grown_buffer(vt, b) : NULL;
}

static TirExpr *rw_load(TirMutator *m, TirExpr *e) {
  Vt *vt = m->ctx;
  TirExpr *r = tir_mutate_expr_children(m, e);
  if (!ir_ptrmap_has(&vt->expanded, e->load.buf->data) || r->load.n != 1) return r;
  TirExpr *idx = offset_index(vt, e->load.buf->data, r->load.idx[0]);
  return tir_load(vt->h, r->load.buf, &idx, 1);
}

static TirStmt *rw_store(TirMutator *m, TirStmt *s) {
  Vt *vt = m->ctx;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (!ir_ptrmap_has(&vt->expanded, s->store.buf->data) || r->store.n != 1) return r;
  TirExpr *idx = offset_index(vt, s->store.buf->data, r->store.idx[0]);
  TirStmt *out = tir_store(vt->h, r->store.buf, r->store.value, &idx, 1);
  out->span = s->span;
  return out;
}

static TirStmt *rw_allocate(TirMutator *m, TirStmt *s) {
  Vt *vt = m->ctx;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (!ir_ptrmap_has(&vt->expanded, s->alloc.var)) return r;
  TirStmt *c = tir_stmt_with_span(vt->h, r, r->span);
  c->alloc.extents = ir_alloc(vt->h, sizeof *c->alloc.extents);
  c->alloc.extents[0] = xf_int(vt->h, r->alloc.extents[0]->dtype, expanded_size(vt, s->alloc.var) * vt->n);
  c->alloc.n = 1;
  return c;
}

/* Decides which touched allocations get n copies (those of one constant
 * dimension) and rewrites their accesses; false + error otherwise. */
static bool expand(Vt *vt, TirPassCtx *pc, TirStmt **body) {
  bool any = false;
  for (int i = 0; i < vt->allocs.cap; i++) {
    const TirStmt *a = vt->allocs.keys[i] ? vt->allocs.vals[i] : NULL;
    if (!a || !ir_ptrmap_has(&vt->touched, a->alloc.var)) continue;
    int64_t size;
    if (a->alloc.n != 1 || !tir_is_const_int(a->alloc.extents[0], &size)) {
      diag_error(pc->diag, a->span, "inject-virtual-thread: allocation '%s' depends on virtual thread '%s' but "
                 "its size is not one constant", a->alloc.var->name, vt->v->name);
      return false;
    }
    ir_ptrmap_put(&vt->expanded, a->alloc.var, (void *)(intptr_t)size);
    any = true;
  }
  if (!any) return true;
  TirMutator m;
  tir_mutator_init(&m, vt->h);
  m.buffer = rw_buffer;
  m.expr[TIR_LOAD] = rw_load;
  m.stmt[TIR_S_STORE] = rw_store;
  m.stmt[TIR_S_ALLOCATE] = rw_allocate;
  m.ctx = vt;
  *body = tir_mutate_stmt(&m, *body);
  tir_mutator_free(&m);
  return true;
}

/* ------------------------------------------------------------ injecting */

/* s once per virtual thread, its var replaced by 0 .. n-1. */
static TirStmt *repeat(Vt *vt, TirStmt *s) { return xf_repeat(vt->h, s, vt->v, xf_int(vt->h, vt->v->dtype, 0), vt->n); }

static TirStmt *inject(Vt *vt, TirStmt *s) {
  if (!s || !stmt_touched(vt, s)) return s;
  TirStmt *c;
  switch (s->kind) {
    case TIR_S_SEQ: {
      TirStmt **kids = ir_alloc(vt->h, (size_t)s->seq.n * sizeof *kids);
      for (int i = 0; i < s->seq.n; i++) kids[i] = inject(vt, s->seq.stmts[i]);
      c = tir_seq(vt->h, kids, s->seq.n);
      c->span = s->span;
      return c;
    }
    case TIR_S_FOR:
      if (expr_touched(vt, s->loop.min) || expr_touched(vt, s->loop.extent)) return repeat(vt, s);
      c = tir_stmt_with_span(vt->h, s, s->span);
      c->loop.body = inject(vt, s->loop.body);
      return c;
    case TIR_S_IF:
      if (expr_touched(vt, s->ifs.cond)) return repeat(vt, s);
      c = tir_stmt_with_span(vt->h, s, s->span);
      c->ifs.then_s = inject(vt, s->ifs.then_s);
      c->ifs.else_s = inject(vt, s->ifs.else_s);
      return c;
    case TIR_S_LET:
      if (ir_ptrmap_has(&vt->touched, s->let.var)) return repeat(vt, s);
      c = tir_stmt_with_span(vt->h, s, s->span);
      c->let.body = inject(vt, s->let.body);
      return c;
    case TIR_S_ALLOCATE:
      c = tir_stmt_with_span(vt->h, s, s->span);
      c->alloc.body = inject(vt, s->alloc.body);
      return c;
    case TIR_S_DECL_BUFFER:
      c = tir_stmt_with_span(vt->h, s, s->span);
      c->decl.body = inject(vt, s->decl.body);
      return c;
    case TIR_S_ATTR:
      if (expr_touched(vt, s->attr.value)) return repeat(vt, s);
      c = tir_stmt_with_span(vt->h, s, s->span);
      c->attr.body = inject(vt, s->attr.body);
      return c;
    default: return repeat(vt, s);
  }
}

static TirStmt *vthread_for(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s); /* inner virtual threads first */
  if (r->loop.kind != TIR_FOR_THREAD_BINDING || strncmp(r->loop.thread_tag, "vthread", 7)) return r;
  TirPassCtx *pc = m->ctx;
  Vt vt = {.h = m->heap, .v = r->loop.var};
  int64_t min;
  if (!tir_is_const_int(r->loop.extent, &vt.n) || vt.n <= 0 || vt.n > 1024 || !tir_is_const_int(r->loop.min, &min) ||
      min != 0) {
    diag_error(pc->diag, r->span, "inject-virtual-thread: loop '%s' bound to %s needs a constant extent (1 to 1024) "
               "starting at 0", r->loop.var->name, r->loop.thread_tag);
    return r;
  }
  find_touched(&vt, r->loop.body);
  TirStmt *body = r->loop.body;
  TirStmt *out = r;
  if (expand(&vt, pc, &body)) {
    /* the data vars of expanded buffers are touched; so is every access to them */
    out = inject(&vt, body);
    out = out ? out : xf_nop(m->heap);
  }
  ir_ptrmap_free(&vt.touched);
  ir_ptrmap_free(&vt.allocs);
  ir_ptrmap_free(&vt.expanded);
  ir_ptrmap_free(&vt.grown);
  return out;
}

/* requires: flatten-buffer ran (one-dimensional allocations); ensures: no
 * loop bound to a vthread remains; preserves: what each virtual thread
 * computes (they must not depend on each other). */
TirFunc *tir_inject_virtual_thread(TirPassCtx *ctx, TirFunc *f) {
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_FOR] = vthread_for;
  m.ctx = ctx;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
