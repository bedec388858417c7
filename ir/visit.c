/* visit.c - the default recursion of TirVisitor, the pointer map, and free-variable queries.
 *
 * Every child of every node kind is reached here once, so a pass that only
 * needs to look at some node kinds writes one callback and nothing else. */
#include "ir/visit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ pointer map */

void ir_ptrmap_init(IrPtrMap *m) { memset(m, 0, sizeof *m); }

void ir_ptrmap_free(IrPtrMap *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

void ir_ptrmap_clear(IrPtrMap *m) {
  if (m->cap) memset(m->keys, 0, (size_t)m->cap * sizeof *m->keys);
  m->len = 0;
}

static unsigned ptr_slot(const void *p, int cap) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (unsigned)(x & (uint64_t)(cap - 1));
}

static int ptr_find(const IrPtrMap *m, const void *key) {
  if (!m->cap) return -1;
  unsigned i = ptr_slot(key, m->cap);
  while (m->keys[i]) {
    if (m->keys[i] == key) return (int)i;
    i = (i + 1) & (unsigned)(m->cap - 1);
  }
  return -1;
}

static void ptr_grow(IrPtrMap *m) {
  int ncap = m->cap ? m->cap * 2 : 16;
  const void **ok = m->keys;
  void **ov = m->vals;
  int ocap = m->cap;
  m->keys = xcalloc((size_t)ncap, sizeof *m->keys);
  m->vals = xcalloc((size_t)ncap, sizeof *m->vals);
  m->cap = ncap;
  for (int i = 0; i < ocap; i++) {
    if (!ok[i]) continue;
    unsigned j = ptr_slot(ok[i], ncap);
    while (m->keys[j]) j = (j + 1) & (unsigned)(ncap - 1);
    m->keys[j] = ok[i];
    m->vals[j] = ov[i];
  }
  free(ok);
  free(ov);
}

void ir_ptrmap_put(IrPtrMap *m, const void *key, void *val) {
  TVS_ASSERT(key != NULL);
  int i = ptr_find(m, key);
  if (i >= 0) {
    m->vals[i] = val;
    return;
  }
  if ((m->len + 1) * 4 > m->cap * 3) ptr_grow(m);
  unsigned j = ptr_slot(key, m->cap);
  while (m->keys[j]) j = (j + 1) & (unsigned)(m->cap - 1);
  m->keys[j] = key;
  m->vals[j] = val;
  m->len++;
}

bool ir_ptrmap_has(const IrPtrMap *m, const void *key) { return ptr_find(m, key) >= 0; }

void *ir_ptrmap_get(const IrPtrMap *m, const void *key) {
  int i = ptr_find(m, key);
  return i < 0 ? NULL : m->vals[i];
}

/* ---------------------------------------------------------------- walker */

static void def_var(TirVisitor *v, const TirVar *var) {
  if (var && v->def_var && !v->stop) v->def_var(v, var);
}

static void use_buffer(TirVisitor *v, const TirBuffer *b) {
  if (b && v->use_buffer && !v->stop) v->use_buffer(v, b);
}

/* A buffer definition: callback, its data var, then its shape expressions. */
static void def_buffer(TirVisitor *v, const TirBuffer *b) {
  if (!b || v->stop) return;
  if (v->def_buffer) v->def_buffer(v, b);
  def_var(v, b->data);
  for (int i = 0; i < b->ndim; i++) tir_visit_expr(v, b->shape[i]);
  for (int i = 0; i < b->nstrides; i++) tir_visit_expr(v, b->strides[i]);
  if (b->elem_offset) tir_visit_expr(v, b->elem_offset);
}

static void visit_exprs(TirVisitor *v, TirExpr *const *es, int n) {
  for (int i = 0; i < n && !v->stop; i++) tir_visit_expr(v, es[i]);
}

static void visit_region(TirVisitor *v, const TirBufferRegion *r) {
  use_buffer(v, r->buffer);
  for (int i = 0; i < r->n && !v->stop; i++) {
    tir_visit_expr(v, r->ranges[i].min);
    tir_visit_expr(v, r->ranges[i].extent);
  }
}

void tir_visit_value(TirVisitor *v, const IrValue *val) {
  if (!val || v->stop) return;
  switch (val->kind) {
  case IRV_EXPR: tir_visit_expr(v, val->expr); break;
  case IRV_ARRAY:
  case IRV_DICT:
    for (int i = 0; i < val->n; i++) tir_visit_value(v, val->items[i]);
    break;
  default: break;
  }
}

/* One helper per union member of tir_expr.def; tir_visit_expr's dispatch is
 * generated from its member column. */
static void visit_e_leaf(TirVisitor *v, const TirExpr *e) {}
#define visit_e_ival visit_e_leaf
#define visit_e_fval visit_e_leaf
#define visit_e_str visit_e_leaf
#define visit_e_var visit_e_leaf

static void visit_e_bin(TirVisitor *v, const TirExpr *e) {
  tir_visit_expr(v, e->bin.a);
  tir_visit_expr(v, e->bin.b);
}

static void visit_e_un(TirVisitor *v, const TirExpr *e) { tir_visit_expr(v, e->un.a); }

static void visit_e_sel(TirVisitor *v, const TirExpr *e) {
  tir_visit_expr(v, e->sel.cond);
  tir_visit_expr(v, e->sel.t);
  tir_visit_expr(v, e->sel.f);
}

static void visit_e_load(TirVisitor *v, const TirExpr *e) {
  use_buffer(v, e->load.buf);
  visit_exprs(v, e->load.idx, e->load.n);
}

static void visit_e_ramp(TirVisitor *v, const TirExpr *e) {
  tir_visit_expr(v, e->ramp.base);
  tir_visit_expr(v, e->ramp.stride);
}

static void visit_e_bcast(TirVisitor *v, const TirExpr *e) { tir_visit_expr(v, e->bcast.value); }

static void visit_e_let(TirVisitor *v, const TirExpr *e) {
  tir_visit_expr(v, e->let.value);
  def_var(v, e->let.var);
  tir_visit_expr(v, e->let.body);
}

static void visit_e_call(TirVisitor *v, const TirExpr *e) {
  visit_exprs(v, e->call.args, e->call.n);
}

void tir_visit_expr(TirVisitor *v, const TirExpr *e) {
  if (!e || v->stop) return;
  if (v->pre_expr && !v->pre_expr(v, e)) goto post;
  if (v->stop) return;
  switch (e->kind) {
#define X(E, N, M) case TIR_##E: visit_e_##M(v, e); break;
#include "ir/tir_expr.def"
#undef X
  case TIR_NUM_EXPR_KINDS: tvs_unreachable();
  }
post:
  if (v->post_expr && !v->stop) v->post_expr(v, e);
}

static void visit_block(TirVisitor *v, const TirBlock *b) {
  for (int i = 0; i < b->niters && !v->stop; i++) {
    tir_visit_expr(v, b->iters[i].dom.min);
    tir_visit_expr(v, b->iters[i].dom.extent);
    def_var(v, b->iters[i].var);
  }
  for (int i = 0; i < b->nallocs; i++) def_buffer(v, b->allocs[i]);
  for (int i = 0; i < b->nmatches; i++) {
    visit_region(v, &b->matches[i].source);
    def_buffer(v, b->matches[i].buffer);
  }
  tir_visit_value(v, b->annotations);
  for (int i = 0; i < b->nreads; i++) visit_region(v, &b->reads[i]);
  for (int i = 0; i < b->nwrites; i++) visit_region(v, &b->writes[i]);
  tir_visit_stmt(v, b->init);
  tir_visit_stmt(v, b->body);
}

/* One helper per union member of tir_stmt.def, dispatched like expressions. */
static void visit_s_store(TirVisitor *v, const TirStmt *s) {
  use_buffer(v, s->store.buf);
  tir_visit_expr(v, s->store.value);
  visit_exprs(v, s->store.idx, s->store.n);
}

static void visit_s_seq(TirVisitor *v, const TirStmt *s) {
  for (int i = 0; i < s->seq.n && !v->stop; i++) tir_visit_stmt(v, s->seq.stmts[i]);
}

static void visit_s_loop(TirVisitor *v, const TirStmt *s) {
  tir_visit_expr(v, s->loop.min);
  tir_visit_expr(v, s->loop.extent);
  if (s->loop.step) tir_visit_expr(v, s->loop.step);
  def_var(v, s->loop.var);
  tir_visit_value(v, s->loop.annotations);
  tir_visit_stmt(v, s->loop.body);
}

static void visit_s_ifs(TirVisitor *v, const TirStmt *s) {
  tir_visit_expr(v, s->ifs.cond);
  tir_visit_stmt(v, s->ifs.then_s);
  tir_visit_stmt(v, s->ifs.else_s);
}

static void visit_s_let(TirVisitor *v, const TirStmt *s) {
  tir_visit_expr(v, s->let.value);
  def_var(v, s->let.var);
  tir_visit_stmt(v, s->let.body);
}

static void visit_s_eval(TirVisitor *v, const TirStmt *s) { tir_visit_expr(v, s->eval.value); }

static void visit_s_assrt(TirVisitor *v, const TirStmt *s) {
  tir_visit_expr(v, s->assrt.cond);
  tir_visit_expr(v, s->assrt.msg);
  tir_visit_stmt(v, s->assrt.body);
}

static void visit_s_loop_while(TirVisitor *v, const TirStmt *s) {
  tir_visit_expr(v, s->loop_while.cond);
  tir_visit_stmt(v, s->loop_while.body);
}

static void visit_s_realize(TirVisitor *v, const TirStmt *s) {
  visit_exprs(v, s->realize.values, s->realize.n);
  tir_visit_expr(v, s->realize.pred);
  tir_visit_stmt(v, s->realize.block);
}

static void visit_s_block(TirVisitor *v, const TirStmt *s) { visit_block(v, &s->block); }

static void visit_s_alloc(TirVisitor *v, const TirStmt *s) {
  def_var(v, s->alloc.var);
  visit_exprs(v, s->alloc.extents, s->alloc.n);
  tir_visit_stmt(v, s->alloc.body);
}

static void visit_s_decl(TirVisitor *v, const TirStmt *s) {
  def_buffer(v, s->decl.buf);
  tir_visit_stmt(v, s->decl.body);
}

static void visit_s_attr(TirVisitor *v, const TirStmt *s) {
  def_var(v, s->attr.node);
  tir_visit_expr(v, s->attr.value);
  tir_visit_stmt(v, s->attr.body);
}

void tir_visit_stmt(TirVisitor *v, const TirStmt *s) {
  if (!s || v->stop) return;
  if (v->pre_stmt && !v->pre_stmt(v, s)) goto post;
  if (v->stop) return;
  switch (s->kind) {
#define X(E, N, M) case TIR_S_##E: visit_s_##M(v, s); break;
#include "ir/tir_stmt.def"
#undef X
  case TIR_NUM_STMT_KINDS: tvs_unreachable();
  }
post:
  if (v->post_stmt && !v->stop) v->post_stmt(v, s);
}

void tir_visit_func(TirVisitor *v, const TirFunc *f) {
  if (!f) return;
  for (int i = 0; i < f->nparams && !v->stop; i++) def_var(v, f->params[i]);
  for (int i = 0; i < f->nparams && !v->stop; i++)
    if (f->buffer_map && f->buffer_map[i]) def_buffer(v, f->buffer_map[i]);
  tir_visit_value(v, f->attrs);
  tir_visit_stmt(v, f->body);
}

/* ------------------------------------------------------- free variables */

typedef struct FreeVarCtx {
  IrPtrMap defined; /* vars bound somewhere in the walked tree */
  IrPtrMap seen;    /* vars already appended to used */
  PtrVec used;      /* vars referenced, in order of first use */
} FreeVarCtx;

static bool fv_pre_expr(TirVisitor *v, const TirExpr *e) {
  FreeVarCtx *c = v->ctx;
  if (e->kind == TIR_VAR && !ir_ptrmap_has(&c->seen, e->var)) {
    ir_ptrmap_put(&c->seen, e->var, NULL);
    pv_push(&c->used, e->var);
  }
  return true;
}

static void fv_def_var(TirVisitor *v, const TirVar *var) {
  FreeVarCtx *c = v->ctx;
  ir_ptrmap_put(&c->defined, var, NULL);
}

static void fv_finish(FreeVarCtx *c, PtrVec *out) {
  for (int i = 0; i < c->used.len; i++)
    if (!ir_ptrmap_has(&c->defined, c->used.items[i])) {
      bool dup = false;
      for (int j = 0; j < out->len && !dup; j++) dup = out->items[j] == c->used.items[i];
      if (!dup) pv_push(out, c->used.items[i]);
    }
  ir_ptrmap_free(&c->defined);
  ir_ptrmap_free(&c->seen);
  pv_free(&c->used);
}

void tir_expr_free_vars(const TirExpr *e, PtrVec *out) {
  FreeVarCtx c = {0};
  TirVisitor v = {.pre_expr = fv_pre_expr, .def_var = fv_def_var, .ctx = &c};
  tir_visit_expr(&v, e);
  fv_finish(&c, out);
}

void tir_stmt_free_vars(const TirStmt *s, PtrVec *out) {
  FreeVarCtx c = {0};
  TirVisitor v = {.pre_expr = fv_pre_expr, .def_var = fv_def_var, .ctx = &c};
  tir_visit_stmt(&v, s);
  fv_finish(&c, out);
}

typedef struct UsesVarCtx {
  const TirVar *var; /* the var looked for */
  bool found;        /* result */
} UsesVarCtx;

static bool uv_pre_expr(TirVisitor *v, const TirExpr *e) {
  UsesVarCtx *c = v->ctx;
  if (e->kind == TIR_VAR && e->var == c->var) {
    c->found = true;
    v->stop = true;
  }
  return true;
}

bool tir_expr_uses_var(const TirExpr *e, const TirVar *var) {
  UsesVarCtx c = {var, false};
  TirVisitor v = {.pre_expr = uv_pre_expr, .ctx = &c};
  tir_visit_expr(&v, e);
  return c.found;
}

bool tir_stmt_uses_var(const TirStmt *s, const TirVar *var) {
  UsesVarCtx c = {var, false};
  TirVisitor v = {.pre_expr = uv_pre_expr, .ctx = &c};
  tir_visit_stmt(&v, s);
  return c.found;
}

static bool step_pre(TirVisitor *v, const TirStmt *s) {
  if (s->kind == TIR_S_FOR && !tir_for_trivial_step(s)) {
    *(const TirStmt **)v->ctx = s;
    v->stop = true;
  }
  return true;
}

const TirStmt *tir_find_stepped_loop(const TirStmt *s) {
  const TirStmt *found = NULL;
  TirVisitor v = {.pre_stmt = step_pre, .ctx = &found};
  tir_visit_stmt(&v, s);
  return found;
}
