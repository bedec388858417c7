/* gpu_thread_storage_sync.c - ThreadSync("shared") (GPU pipeline).
 *
 * Inside a kernel (under a thread-bound loop), a statement that reads a
 * shared buffer written by an earlier statement of the same sequence since
 * the last barrier gets T.evaluate(T.call_extern("int32", "tvm_storage_sync",
 * "shared")) in front of it (read after write by other threads); a serial
 * loop whose body writes and reads one shared buffer gets one at the top of
 * its body (the next iteration's writes must wait for this one's reads).
 * Every thread must reach a barrier, so none is put inside an `if`.  The
 * rule is conservative: it does not prove that the threads differ. */
#include "ir/transform/xform_internal.h"

#include <string.h>

typedef struct Sync {
  IrHeap *h;
  int kernel_depth;  /* thread-bound loops around the statement */
  int if_depth;      /* ifs around it inside the kernel */
} Sync;

static bool is_shared(const TirBuffer *b) {
  const char *sc = b->scope ? b->scope : b->data->ptr_scope;
  if (b->data->ptr_scope && !strcmp(b->data->ptr_scope, "shared")) return true;
  return sc && !strcmp(sc, "shared");
}

/* The shared data vars s reads and writes. */
typedef struct Access {
  PtrVec reads, writes;
} Access;

static void add_once(PtrVec *v, void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) return;
  pv_push(v, p);
}

static bool acc_expr(TirVisitor *v, const TirExpr *e) {
  if (e->kind == TIR_LOAD && is_shared(e->load.buf)) add_once(&((Access *)v->ctx)->reads, e->load.buf->data);
  return true;
}

static bool acc_stmt(TirVisitor *v, const TirStmt *s) {
  if (s->kind == TIR_S_STORE && is_shared(s->store.buf)) add_once(&((Access *)v->ctx)->writes, s->store.buf->data);
  return true;
}

static Access accesses(const TirStmt *s) {
  Access a = {{0}, {0}};
  TirVisitor v = {.pre_expr = acc_expr, .pre_stmt = acc_stmt, .ctx = &a};
  tir_visit_stmt(&v, s);
  return a;
}

static void access_free(Access *a) {
  pv_free(&a->reads);
  pv_free(&a->writes);
}

static bool intersects(const PtrVec *a, const PtrVec *b) {
  for (int i = 0; i < a->len; i++)
    for (int j = 0; j < b->len; j++)
      if (a->items[i] == b->items[j]) return true;
  return false;
}

static TirStmt *barrier(IrHeap *h) {
  TirExpr *args[2] = {tir_str(h, "tvm_storage_sync"), tir_str(h, "shared")};
  return tir_evaluate(h, tir_call(h, dt_int32, &tir_op_table[TIR_OP_CALL_EXTERN], args, 2));
}

bool tir_is_storage_sync(const TirStmt *s) {
  if (!s || s->kind != TIR_S_EVAL || s->eval.value->kind != TIR_CALL) return false;
  const TirExpr *c = s->eval.value;
  return c->call.op->id == TIR_OP_CALL_EXTERN && c->call.n >= 1 && c->call.args[0]->kind == TIR_STR &&
         !strcmp(c->call.args[0]->str, "tvm_storage_sync");
}

/* Barriers between the items of a sequence (read after another's write). */
static TirStmt *sync_seq(TirMutator *m, TirStmt *s) {
  Sync *sy = m->ctx;
  TirStmt *ns = tir_mutate_stmt_children(m, s);
  if (sy->kernel_depth == 0 || sy->if_depth > 0 || ns->kind != TIR_S_SEQ) return ns;
  PtrVec items = {0}, written = {0};
  bool added = false;
  for (int i = 0; i < ns->seq.n; i++) {
    TirStmt *c = ns->seq.stmts[i];
    Access a = accesses(c);
    if (tir_is_storage_sync(c)) written.len = 0;
    if (intersects(&a.reads, &written)) {
      pv_push(&items, barrier(sy->h));
      written.len = 0;
      added = true;
    }
    for (int k = 0; k < a.writes.len; k++) add_once(&written, a.writes.items[k]);
    pv_push(&items, c);
    access_free(&a);
  }
  TirStmt *r = added ? tir_seq(sy->h, (TirStmt **)items.items, items.len) : ns;
  pv_free(&items);
  pv_free(&written);
  return r;
}

/* A serial loop inside a kernel whose body writes and reads one shared
 * buffer: a barrier at the top of the body. */
static TirStmt *sync_loop(TirMutator *m, TirStmt *s) {
  Sync *sy = m->ctx;
  bool thread = s->loop.kind == TIR_FOR_THREAD_BINDING;
  sy->kernel_depth += thread;
  TirStmt *ns = tir_mutate_stmt_children(m, s);
  sy->kernel_depth -= thread;
  if (thread || sy->kernel_depth == 0 || sy->if_depth > 0) return ns;
  Access a = accesses(ns->loop.body);
  bool carried = intersects(&a.reads, &a.writes);
  access_free(&a);
  TirStmt *first = ns->loop.body->kind == TIR_S_SEQ ? ns->loop.body->seq.stmts[0] : ns->loop.body;
  if (!carried || tir_is_storage_sync(first)) return ns;
  TirStmt *items[2] = {barrier(sy->h), ns->loop.body};
  TirStmt *c = ir_memdup(sy->h, ns, sizeof *ns);
  c->loop.body = tir_seq(sy->h, items, 2);
  return c;
}

static TirStmt *sync_if(TirMutator *m, TirStmt *s) {
  Sync *sy = m->ctx;
  sy->if_depth += sy->kernel_depth > 0;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  sy->if_depth -= sy->kernel_depth > 0;
  return r;
}

/* requires: lowered, flattened (GPU pipeline); ensures: barriers as above;
 * preserves: everything else. */
TirFunc *tir_thread_storage_sync(TirPassCtx *ctx, TirFunc *f) {
  Sync sy = {ctx->heap, 0, 0};
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_SEQ] = sync_seq;
  m.stmt[TIR_S_FOR] = sync_loop;
  m.stmt[TIR_S_IF] = sync_if;
  m.ctx = &sy;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
