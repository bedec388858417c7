/* verify.c - well-formedness of a scheduled function, checked after every
 * primitive when a schedule has a debug_mask (TVM verifies its sref tree and
 * cached flags after each step under debug_mask="all").
 *
 * The checks catch what a buggy primitive leaves behind: a loop or block
 * iter var used outside the statement that defines it (a block body must be
 * isolated: it sees its own and enclosing blocks' iters, not the loops
 * around it), a buffer
 * allocated by one block used outside it, a realize whose binding count
 * differs from its iters, a binding whose range (under loops of constant
 * extent, without a predicate or an enclosing if) leaves its iter's domain,
 * a region whose rank differs from its buffer's, a leaf block accessing a
 * buffer missing from its reads/writes, and a printed form that does not
 * parse back to an equal function. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "lang/elab.h"
#include "sched/sched_internal.h"

typedef struct Verifier {
  IrPtrMap all_vars;    /* every loop var and block iter var of the function */
  IrPtrMap all_allocs;  /* every block-allocated buffer */
  PtrVec vars;          /* loop / iter vars in scope, outermost first */
  int floor;            /* vars[0..floor) are outside the current block */
  PtrVec bufs;          /* allocated buffers in scope */
  ArithCtx *ctx;        /* loop and iter ranges */
  int guarded;          /* under an if: bindings may leave their domains */
  const char *block;    /* the innermost block's name */
  StrBuf *why;
  bool bad;
} Verifier;

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

/* ------------------------------------------------------------ collection */

static bool collect_pre(TirVisitor *tv, const TirStmt *s) {
  Verifier *v = tv->ctx;
  if (s->kind == TIR_S_FOR) ir_ptrmap_put(&v->all_vars, s->loop.var, (void *)s);
  if (s->kind == TIR_S_BLOCK) {
    for (int i = 0; i < s->block.niters; i++) ir_ptrmap_put(&v->all_vars, s->block.iters[i].var, (void *)s);
    for (int i = 0; i < s->block.nallocs; i++) ir_ptrmap_put(&v->all_allocs, s->block.allocs[i], (void *)s);
  }
  return true;
}

/* ----------------------------------------------------------- expressions */

static bool expr_pre(TirVisitor *tv, const TirExpr *e) {
  Verifier *v = tv->ctx;
  if (e->kind == TIR_VAR && ir_ptrmap_has(&v->all_vars, e->var) && !in_scope(&v->vars, v->floor, e->var)) {
    const TirStmt *def = ir_ptrmap_get(&v->all_vars, e->var);
    if (in_scope(&v->vars, 0, e->var) && def->kind == TIR_S_BLOCK) {
      /* an enclosing block's iter: visible (blockize's inner blocks use them) */
    } else if (in_scope(&v->vars, 0, e->var))
      fail(v, "block '%s' uses the loop var '%s' of an enclosing loop (a block sees only its own iters)",
           v->block, e->var->name);
    else
      fail(v, "var '%s' is used outside the loop or block that defines it (in block '%s')", e->var->name,
           v->block);
  }
  if (e->kind == TIR_LOAD && ir_ptrmap_has(&v->all_allocs, e->load.buf) && !in_scope(&v->bufs, 0, e->load.buf))
    fail(v, "buffer '%s' is read outside the block that allocates it (in block '%s')", e->load.buf->name,
         v->block);
  return !v->bad;
}

static void check_expr(Verifier *v, const TirExpr *e) {
  if (!e || v->bad) return;
  TirVisitor tv = {0};
  tv.pre_expr = expr_pre;
  tv.ctx = v;
  tir_visit_expr(&tv, e);
}

/* Buffers a leaf block's body loads (which = 0) and stores (1). */
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

static void check_realize(Verifier *v, const TirStmt *s) {
  const TirBlock *b = tir_realize_block(s);
  if (s->realize.n != b->niters) {
    fail(v, "block '%s' has %d iters but its realize binds %d values", b->name, b->niters, s->realize.n);
    return;
  }
  for (int i = 0; i < s->realize.n; i++) check_expr(v, s->realize.values[i]);
  check_expr(v, s->realize.pred);
  if (!v->guarded && sch_is_trivial_pred(s->realize.pred))
    for (int i = 0; i < s->realize.n && !v->bad; i++) check_binding(v, b, i, s->realize.values[i]);
  int floor = v->floor, nvars = v->vars.len, nbufs = v->bufs.len;
  const char *outer = v->block;
  if (b->niters > 0) v->floor = v->vars.len; /* the body sees only the block's own iters */
  v->block = b->name;
  arith_push(v->ctx);
  for (int i = 0; i < b->niters; i++) {
    check_expr(v, b->iters[i].dom.min);
    check_expr(v, b->iters[i].dom.extent);
    pv_push(&v->vars, b->iters[i].var);
    arith_bind_range(v->ctx, b->iters[i].var, b->iters[i].dom.min, b->iters[i].dom.extent);
  }
  for (int i = 0; i < b->nallocs; i++) pv_push(&v->bufs, b->allocs[i]);
  check_regions(v, b, b->reads, b->nreads);
  check_regions(v, b, b->writes, b->nwrites);
  if (!v->bad) check_leaf_regions(v, b);
  int guarded = v->guarded;
  v->guarded = 0;
  if (b->init) check_stmt(v, b->init);
  check_stmt(v, b->body);
  v->guarded = guarded;
  arith_pop(v->ctx);
  v->vars.len = nvars;
  v->bufs.len = nbufs;
  v->floor = floor;
  v->block = outer;
}

static void check_stmt(Verifier *v, const TirStmt *s) {
  if (!s || v->bad) return;
  switch (s->kind) {
    case TIR_S_FOR:
      check_expr(v, s->loop.min);
      check_expr(v, s->loop.extent);
      pv_push(&v->vars, s->loop.var);
      arith_push(v->ctx);
      arith_bind_range(v->ctx, s->loop.var, s->loop.min, s->loop.extent);
      check_stmt(v, s->loop.body);
      arith_pop(v->ctx);
      v->vars.len--;
      return;
    case TIR_S_BLOCK_REALIZE: check_realize(v, s); return;
    case TIR_S_STORE:
      if (ir_ptrmap_has(&v->all_allocs, s->store.buf) && !in_scope(&v->bufs, 0, s->store.buf))
        fail(v, "buffer '%s' is written outside the block that allocates it (in block '%s')", s->store.buf->name,
             v->block);
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
    case TIR_S_LET: check_expr(v, s->let.value); check_stmt(v, s->let.body); return;
    case TIR_S_EVAL: check_expr(v, s->eval.value); return;
    case TIR_S_ASSERT: check_expr(v, s->assrt.cond); check_stmt(v, s->assrt.body); return;
    case TIR_S_WHILE:
      check_expr(v, s->loop_while.cond);
      v->guarded++;
      check_stmt(v, s->loop_while.body);
      v->guarded--;
      return;
    case TIR_S_ATTR: check_expr(v, s->attr.value); check_stmt(v, s->attr.body); return;
    default: {
      TirStmt *kids[64];
      int n = sch_children(s, kids, 64);
      TirStmt *const *all = kids;
      if (s->kind == TIR_S_SEQ && s->seq.n > 64) all = s->seq.stmts, n = s->seq.n;
      for (int i = 0; i < n; i++) check_stmt(v, all[i]);
      return;
    }
  }
}

/* The function printed and parsed back is structurally equal to it. */
static bool round_trips(const IrModule *m, const char *func, StrBuf *why) {
  StrBuf sb;
  sb_init(&sb);
  PrintOptions opt = print_options_default();
  print_module(&sb, m, &opt);
  SourceFile *src = src_from_string("<verify>", sb.data, sb.len);
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *back = tvs_load_module(src, &d);
  bool ok = false;
  if (!back || d.nerr) {
    sb_printf(why, "the printed module does not parse back%s%s", d.len ? ": " : "", d.len ? d.items[0].msg : "");
  } else {
    const IrGlobal *a = ir_module_lookup(m, func), *b = ir_module_lookup(back, func);
    char *diff = NULL;
    ok = a && b && a->kind == IR_FUNC_TIR && b->kind == IR_FUNC_TIR && seq_tir_func(a->tir, b->tir, NULL, &diff);
    if (!ok) sb_printf(why, "the printed function parses back different: %s", diff ? diff : "?");
    free(diff);
  }
  ir_module_free(back);
  diag_free(&d);
  src_free(src);
  sb_free(&sb);
  return ok;
}

bool sch_verify_func(Schedule *s, const char *func, StrBuf *why) {
  const IrGlobal *g = ir_module_lookup(sch_mod(s), func);
  if (!g || g->kind != IR_FUNC_TIR) return true;
  Verifier v;
  memset(&v, 0, sizeof v);
  v.why = why;
  v.block = "root";
  IrHeap *h = ir_heap_new();
  v.ctx = arith_new(h);
  TirVisitor tv = {0};
  tv.pre_stmt = collect_pre;
  tv.ctx = &v;
  tir_visit_stmt(&tv, g->tir->body);
  check_stmt(&v, g->tir->body);
  arith_free(v.ctx);
  ir_heap_release(h);
  ir_ptrmap_free(&v.all_vars);
  ir_ptrmap_free(&v.all_allocs);
  pv_free(&v.vars);
  pv_free(&v.bufs);
  if (v.bad) return false;
  return round_trips(sch_mod(s), func, why);
}
