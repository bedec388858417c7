/* verify.c - well-formedness of a prim_func at any stage (verify.h).
 *
 * One walk over the body keeps the variables and buffers in scope on stacks
 * and checks each use against them; a first walk collects every definition
 * so that a use outside its scope is told apart from a use of a variable
 * nothing defines.  With TIR_VERIFY_SCHEDULE the walk also enforces the
 * block-level rules of scheduled IR (block isolation, binding domains, leaf
 * regions), which lowered IR no longer has to obey. */
#include "ir/verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/arith.h"
#include "ir/visit.h"

typedef struct Verifier {
  unsigned flags;
  IrPtrMap all_vars;    /* every loop var and block iter var of the function -> its statement */
  IrPtrMap all_allocs;  /* every block-allocated buffer */
  IrPtrMap scoped_defs; /* every other var a statement defines (let, allocate, attr, buffer vars) */
  IrPtrMap global;      /* params and the vars of buffer_map buffers: defined throughout */
  PtrVec vars;          /* vars in scope, outermost first */
  int floor;            /* vars[0..floor) are outside the current block */
  PtrVec bufs;          /* block-allocated buffers in scope */
  ArithCtx *ctx;        /* loop and iter ranges (schedule rules only) */
  int guarded;          /* under an if: bindings may leave their domains */
  const char *block;    /* the innermost block's name */
  StrBuf *why;
  bool bad;
} Verifier;

static bool sched_rules(const Verifier *v) { return (v->flags & TIR_VERIFY_SCHEDULE) != 0; }

static void fail(Verifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(Verifier *v, const char *fmt, ...) {
  if (v->bad) return; /* the first violation is the useful one */
  v->bad = true;
  va_list ap;
  va_start(ap, fmt);
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  sb_puts(v->why, buf);
}

static bool in_scope(const PtrVec *pv, int from, const void *x) {
  for (int i = pv->len - 1; i >= from; i--)
    if (pv->items[i] == x) return true;
  return false;
}

static bool is_trivial_pred(const TirExpr *pred) {
  int64_t c;
  return !pred || (tir_is_const_int(pred, &c) && c != 0);
}

/* The vars a buffer definition introduces besides its data var: those that
 * stand alone as a shape, stride or elem_offset (match_buffer's symbolic
 * strides, a DeclBuffer's own extents). */
static void buffer_vars(const TirBuffer *b, void (*each)(Verifier *, const TirVar *), Verifier *v) {
  if (b->data) each(v, b->data);
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d] && b->shape[d]->kind == TIR_VAR) each(v, b->shape[d]->var);
  for (int d = 0; d < b->nstrides; d++)
    if (b->strides[d] && b->strides[d]->kind == TIR_VAR) each(v, b->strides[d]->var);
  if (b->elem_offset && b->elem_offset->kind == TIR_VAR) each(v, b->elem_offset->var);
}

static void push_var(Verifier *v, const TirVar *var) { pv_push(&v->vars, (void *)var); }

/* ------------------------------------------------------------ collection */

static void note_scoped(Verifier *v, const TirVar *var) { ir_ptrmap_put(&v->scoped_defs, var, NULL); }

static bool collect_stmt(TirVisitor *tv, const TirStmt *s) {
  Verifier *v = tv->ctx;
  switch (s->kind) {
    case TIR_S_FOR: ir_ptrmap_put(&v->all_vars, s->loop.var, (void *)s); break;
    case TIR_S_BLOCK:
      for (int i = 0; i < s->block.niters; i++) ir_ptrmap_put(&v->all_vars, s->block.iters[i].var, (void *)s);
      for (int i = 0; i < s->block.nallocs; i++) {
        ir_ptrmap_put(&v->all_allocs, s->block.allocs[i], (void *)s);
        buffer_vars(s->block.allocs[i], note_scoped, v);
      }
      for (int i = 0; i < s->block.nmatches; i++) buffer_vars(s->block.matches[i].buffer, note_scoped, v);
      break;
    case TIR_S_LET: note_scoped(v, s->let.var); break;
    case TIR_S_ALLOCATE: note_scoped(v, s->alloc.var); break;
    case TIR_S_ATTR: if (s->attr.node) note_scoped(v, s->attr.node); break;
    case TIR_S_DECL_BUFFER: buffer_vars(s->decl.buf, note_scoped, v); break;
    default: break;
  }
  return true;
}

static bool collect_expr(TirVisitor *tv, const TirExpr *e) {
  if (e->kind == TIR_LET) note_scoped(tv->ctx, e->let.var);
  return true;
}

static void collect_global(Verifier *v, const TirFunc *f) {
  PtrVec fv = {0};
  for (int i = 0; i < f->nparams; i++) {
    ir_ptrmap_put(&v->global, f->params[i], NULL);
    const TirBuffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    if (b->data) ir_ptrmap_put(&v->global, b->data, NULL);
    for (int d = 0; d < b->ndim; d++) tir_expr_free_vars(b->shape[d], &fv);
    for (int d = 0; d < b->nstrides; d++) tir_expr_free_vars(b->strides[d], &fv);
    if (b->elem_offset) tir_expr_free_vars(b->elem_offset, &fv);
  }
  for (int i = 0; i < fv.len; i++) ir_ptrmap_put(&v->global, fv.items[i], NULL);
  pv_free(&fv);
}

/* ----------------------------------------------------------- expressions */

static void check_var(Verifier *v, const TirVar *var) {
  if (in_scope(&v->vars, 0, var)) {
    /* an enclosing block's iter is visible (blockize's inner blocks use
     * them); an enclosing loop's var is not */
    if (sched_rules(v) && !in_scope(&v->vars, v->floor, var) && ir_ptrmap_has(&v->all_vars, var)) {
      const TirStmt *def = ir_ptrmap_get(&v->all_vars, var);
      if (def->kind != TIR_S_BLOCK)
        fail(v, "block '%s' uses the loop var '%s' of an enclosing loop (a block sees only its own iters)",
             v->block, var->name);
    }
    return;
  }
  if (ir_ptrmap_has(&v->all_vars, var))
    fail(v, "var '%s' is used outside the loop or block that defines it (in block '%s')", var->name, v->block);
  else if (ir_ptrmap_has(&v->global, var))
    return;
  else if (ir_ptrmap_has(&v->scoped_defs, var))
    fail(v, "var '%s' is used outside the statement that defines it (in block '%s')", var->name, v->block);
  else
    fail(v, "var '%s' is used but never defined (in block '%s')", var->name, v->block);
}

/* A load or store of buf with n indices. */
static void check_access(Verifier *v, const TirBuffer *buf, int n, bool store) {
  if (ir_ptrmap_has(&v->all_allocs, buf) && !in_scope(&v->bufs, 0, buf))
    fail(v, "buffer '%s' is %s outside the block that allocates it (in block '%s')", buf->name,
         store ? "written" : "read", v->block);
  if (n != buf->ndim)
    fail(v, "%s of buffer '%s' has %d indices for %d dimensions", store ? "a store" : "a load", buf->name, n,
         buf->ndim);
  if (buf->data && !v->bad) check_var(v, buf->data);
}

static void check_expr(Verifier *v, const TirExpr *e);

static bool expr_pre(TirVisitor *tv, const TirExpr *e) {
  Verifier *v = tv->ctx;
  if (e->kind == TIR_VAR) check_var(v, e->var);
  else if (e->kind == TIR_LOAD) check_access(v, e->load.buf, e->load.n, false);
  else if (e->kind >= TIR_ADD && e->kind <= TIR_OR && !dt_eq(e->bin.a->dtype, e->bin.b->dtype)) {
    char ta[DT_STR_MAX], tb[DT_STR_MAX];
    fail(v, "the operands of %s have different dtypes: %s and %s (in block '%s')", tir_expr_kind_name(e->kind),
         dt_str(e->bin.a->dtype, ta), dt_str(e->bin.b->dtype, tb), v->block);
  } else if (e->kind == TIR_LET) {
    check_expr(v, e->let.value);
    push_var(v, e->let.var);
    check_expr(v, e->let.body);
    v->vars.len--;
    return false;
  }
  return !v->bad;
}

static void check_expr(Verifier *v, const TirExpr *e) {
  if (!e || v->bad) return;
  TirVisitor tv = {0};
  tv.pre_expr = expr_pre;
  tv.ctx = v;
  tir_visit_expr(&tv, e);
}

/* Buffers a leaf block's body loads and stores. */
typedef struct Access {
  PtrVec loads, stores;
  int nested; /* realizes inside */
} Access;

static bool access_expr(TirVisitor *tv, const TirExpr *e) {
  Access *a = tv->ctx;
  if (e->kind == TIR_LOAD) pv_push(&a->loads, e->load.buf);
  return true;
}

static bool access_stmt(TirVisitor *tv, const TirStmt *s) {
  Access *a = tv->ctx;
  if (s->kind == TIR_S_STORE) pv_push(&a->stores, s->store.buf);
  if (s->kind == TIR_S_BLOCK_REALIZE) a->nested++;
  return true;
}

static bool region_has(const TirBufferRegion *r, int n, const TirBuffer *b) {
  for (int i = 0; i < n; i++)
    if (r[i].buffer == b) return true;
  return false;
}

static bool allocated_in(const TirBlock *b, const TirBuffer *buf) {
  for (int i = 0; i < b->nallocs; i++)
    if (b->allocs[i] == buf) return true;
  for (int i = 0; i < b->nmatches; i++)
    if (b->matches[i].buffer == buf) return true;
  return false;
}

static void check_leaf_regions(Verifier *v, const TirBlock *b) {
  Access a = {{0}, {0}, 0};
  TirVisitor tv = {0};
  tv.pre_expr = access_expr;
  tv.pre_stmt = access_stmt;
  tv.ctx = &a;
  if (b->init) tir_visit_stmt(&tv, b->init);
  tir_visit_stmt(&tv, b->body);
  if (!a.nested) {
    for (int i = 0; i < a.loads.len; i++) {
      const TirBuffer *buf = a.loads.items[i];
      if (!region_has(b->reads, b->nreads, buf) && !region_has(b->writes, b->nwrites, buf) && !allocated_in(b, buf))
        fail(v, "block '%s' reads buffer '%s' but its reads do not list it", b->name, buf->name);
    }
    for (int i = 0; i < a.stores.len; i++) {
      const TirBuffer *buf = a.stores.items[i];
      if (!region_has(b->writes, b->nwrites, buf) && !allocated_in(b, buf))
        fail(v, "block '%s' writes buffer '%s' but its writes do not list it", b->name, buf->name);
    }
  }
  pv_free(&a.loads);
  pv_free(&a.stores);
}

/* ------------------------------------------------------------ statements */

static void check_stmt(Verifier *v, const TirStmt *s);

static void check_regions(Verifier *v, const TirBlock *b, const TirBufferRegion *r, int n) {
  for (int i = 0; i < n && !v->bad; i++) {
    if (r[i].n != r[i].buffer->ndim)
      fail(v, "block '%s' has a region of buffer '%s' with %d ranges for %d dimensions", b->name,
           r[i].buffer->name, r[i].n, r[i].buffer->ndim);
    for (int k = 0; k < r[i].n; k++) {
      check_expr(v, r[i].ranges[k].min);
      check_expr(v, r[i].ranges[k].extent);
    }
  }
}

static void check_binding(Verifier *v, const TirBlock *b, int i, const TirExpr *value) {
  int64_t lo, hi, dmin, dext;
  if (!tir_is_const_int(b->iters[i].dom.min, &dmin) || !tir_is_const_int(b->iters[i].dom.extent, &dext))
    return;
  if (!arith_const_bounds(v->ctx, value, &lo, &hi)) return;
  /* A binding may overhang its domain's end (split with disable_predication
   * does so on purpose); starting below it or missing it entirely is wrong. */
  if (lo < dmin || lo > dmin + dext - 1)
    fail(v, "block '%s': the binding of iter '%s' ranges over [%lld, %lld], outside its domain [%lld, %lld)",
         b->name, b->iters[i].var->name, (long long)lo, (long long)hi, (long long)dmin,
         (long long)(dmin + dext));
}

/* The block's own definitions: iters (with their ranges), allocated and
 * matched buffers; match sources may use the block's iters. */
static void enter_block(Verifier *v, const TirBlock *b) {
  if (sched_rules(v) && b->niters > 0) v->floor = v->vars.len; /* the body sees only the block's own iters */
  v->block = b->name;
  if (v->ctx) arith_push(v->ctx);
  for (int i = 0; i < b->niters; i++) {
    check_expr(v, b->iters[i].dom.min);
    check_expr(v, b->iters[i].dom.extent);
    push_var(v, b->iters[i].var);
    if (v->ctx) arith_bind_range(v->ctx, b->iters[i].var, b->iters[i].dom.min, b->iters[i].dom.extent);
  }
  for (int i = 0; i < b->nallocs; i++) {
    pv_push(&v->bufs, b->allocs[i]);
    buffer_vars(b->allocs[i], push_var, v);
  }
  for (int i = 0; i < b->nmatches; i++) check_regions(v, b, &b->matches[i].source, 1);
  for (int i = 0; i < b->nmatches; i++) buffer_vars(b->matches[i].buffer, push_var, v);
}

static void check_realize(Verifier *v, const TirStmt *s) {
  const TirBlock *b = tir_realize_block(s);
  if (s->realize.n != b->niters) {
    fail(v, "block '%s' has %d iters but its realize binds %d values", b->name, b->niters, s->realize.n);
    return;
  }
  for (int i = 0; i < s->realize.n; i++) check_expr(v, s->realize.values[i]);
  check_expr(v, s->realize.pred);
  if (sched_rules(v) && !v->guarded && is_trivial_pred(s->realize.pred))
    for (int i = 0; i < s->realize.n && !v->bad; i++) check_binding(v, b, i, s->realize.values[i]);
  int floor = v->floor, nvars = v->vars.len, nbufs = v->bufs.len;
  const char *outer = v->block;
  enter_block(v, b);
  check_regions(v, b, b->reads, b->nreads);
  check_regions(v, b, b->writes, b->nwrites);
  if (sched_rules(v) && !v->bad) check_leaf_regions(v, b);
  int guarded = v->guarded;
  v->guarded = 0;
  if (b->init) check_stmt(v, b->init);
  check_stmt(v, b->body);
  v->guarded = guarded;
  if (v->ctx) arith_pop(v->ctx);
  v->vars.len = nvars;
  v->bufs.len = nbufs;
  v->floor = floor;
  v->block = outer;
}

static void check_for(Verifier *v, const TirStmt *s) {
  check_expr(v, s->loop.min);
  check_expr(v, s->loop.extent);
  if (s->loop.step) { /* TVM's For: a step of the loop var's dtype */
    check_expr(v, s->loop.step);
    char ta[DT_STR_MAX], tb[DT_STR_MAX];
    if (!dt_eq(s->loop.step->dtype, s->loop.var->dtype))
      fail(v, "the step of loop '%s' is %s, not the loop variable's %s", s->loop.var->name,
           dt_str(s->loop.step->dtype, ta), dt_str(s->loop.var->dtype, tb));
  }
  push_var(v, s->loop.var);
  if (v->ctx) {
    arith_push(v->ctx);
    arith_bind_range(v->ctx, s->loop.var, s->loop.min, s->loop.extent);
  }
  check_stmt(v, s->loop.body);
  if (v->ctx) arith_pop(v->ctx);
  v->vars.len--;
}

/* A statement defining var (may be NULL) over body. */
static void check_scoped(Verifier *v, const TirVar *var, const TirStmt *body) {
  int nvars = v->vars.len;
  if (var) push_var(v, var);
  check_stmt(v, body);
  v->vars.len = nvars;
}

static void check_stmt(Verifier *v, const TirStmt *s) {
  if (!s || v->bad) return;
  switch (s->kind) {
    case TIR_S_FOR: check_for(v, s); return;
    case TIR_S_BLOCK_REALIZE: check_realize(v, s); return;
    case TIR_S_STORE:
      check_access(v, s->store.buf, s->store.n, true);
      for (int i = 0; i < s->store.n; i++) check_expr(v, s->store.idx[i]);
      check_expr(v, s->store.value);
      return;
    case TIR_S_IF:
      check_expr(v, s->ifs.cond);
      v->guarded++;
      check_stmt(v, s->ifs.then_s);
      check_stmt(v, s->ifs.else_s);
      v->guarded--;
      return;
    case TIR_S_LET: check_expr(v, s->let.value); check_scoped(v, s->let.var, s->let.body); return;
    case TIR_S_EVAL: check_expr(v, s->eval.value); return;
    case TIR_S_ASSERT:
      check_expr(v, s->assrt.cond);
      check_expr(v, s->assrt.msg);
      check_stmt(v, s->assrt.body);
      return;
    case TIR_S_WHILE:
      check_expr(v, s->loop_while.cond);
      v->guarded++;
      check_stmt(v, s->loop_while.body);
      v->guarded--;
      return;
    case TIR_S_ATTR: check_expr(v, s->attr.value); check_scoped(v, s->attr.node, s->attr.body); return;
    case TIR_S_ALLOCATE:
      for (int i = 0; i < s->alloc.n; i++) check_expr(v, s->alloc.extents[i]);
      check_scoped(v, s->alloc.var, s->alloc.body);
      return;
    case TIR_S_DECL_BUFFER: {
      int nvars = v->vars.len;
      buffer_vars(s->decl.buf, push_var, v);
      check_stmt(v, s->decl.body);
      v->vars.len = nvars;
      return;
    }
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) check_stmt(v, s->seq.stmts[i]);
      return;
    case TIR_S_BLOCK: check_stmt(v, s->block.init); check_stmt(v, s->block.body); return;
    default: return;
  }
}

bool tir_verify_func_flags(const TirFunc *f, unsigned flags, StrBuf *why) {
  Verifier v;
  memset(&v, 0, sizeof v);
  v.flags = flags;
  v.why = why;
  v.block = "root";
  IrHeap *h = NULL;
  if (flags & TIR_VERIFY_SCHEDULE) {
    h = ir_heap_new();
    v.ctx = arith_new(h);
  }
  collect_global(&v, f);
  TirVisitor tv = {0};
  tv.pre_stmt = collect_stmt;
  tv.pre_expr = collect_expr;
  tv.ctx = &v;
  tir_visit_stmt(&tv, f->body);
  check_stmt(&v, f->body);
  if (v.ctx) arith_free(v.ctx);
  if (h) ir_heap_release(h);
  ir_ptrmap_free(&v.all_vars);
  ir_ptrmap_free(&v.all_allocs);
  ir_ptrmap_free(&v.scoped_defs);
  ir_ptrmap_free(&v.global);
  pv_free(&v.vars);
  pv_free(&v.bufs);
  return !v.bad;
}

bool tir_verify_func(const TirFunc *f, StrBuf *why) { return tir_verify_func_flags(f, 0, why); }
