/* printer_undecl.c - where the printer declares buffers and variables the IR never declares.
 *
 * After FlattenBuffer the body accesses flat views of the parameters (a copy
 * of A with shape (16384,) sharing A's data var) that no statement declares,
 * exactly as in TVM.  TVM's printer declares such a buffer,
 * `A_1 = T.Buffer((16384,), data=A.data)`, in the frame of the lowest common
 * ancestor of its uses, just before the first statement of that frame that
 * uses it; TVMScript's parser reads the line back as a view (no statement).
 * Free scalar variables (`a = T.int32()` in the source, used but bound by no
 * statement) are declared the same way, as TVM's printer defines a variable
 * in the lowest frame holding its uses.  This file finds those buffers and
 * variables and their common ancestor path once per function; printer_tir.c
 * asks before every statement which to declare. */
#include <stdlib.h>
#include <string.h>

#include "ir/printer_internal.h"
#include "base/vec.h"
#include "ir/visit.h"

typedef struct UndeclBuf {
  const TirBuffer *buf;   /* the buffer, or NULL for a variable */
  const TirVar *var;      /* the variable (buf NULL) */
  const TirStmt **prefix; /* common ancestor path of all uses (outermost first) */
  int nprefix;
  IrPtrMap holders;       /* every statement that contains a use */
  IrPtrMap headers;       /* statements whose own expressions use it (a let's value) */
  bool done;              /* declared already */
} UndeclBuf;

struct PrUndecl {
  UndeclBuf *v;
  int n, cap;
};

typedef struct Scan {
  IrPtrMap defined;       /* buffers declared and variables bound somewhere */
  IrPtrMap let_vars;      /* variables a T.Let expression binds: declared first, as TVM prints */
  IrPtrMap early;         /* variables used before the statement binding them (free there) */
  IrPtrMap index;         /* buffer -> 1 + index into uses */
  UndeclBuf *uses;        /* every buffer used, declared or not */
  int nuses, capuses;
  const TirStmt **stack;  /* statements enclosing the current node */
  int nstack, capstack;
} Scan;

static void scan_note(Scan *c, const TirBuffer *b, const TirVar *var, bool header);

static bool thread_attr(const TirStmt *s) {
  return s->kind == TIR_S_ATTR && s->attr.node && s->attr.node->thread_tag;
}

/* A thread attr does not define its thread (TVM's IterVar): the printer
 * defines it at the launch when the launch encloses every use, else by a
 * T.env_thread line in the lowest frame holding them, like a free variable. */
static bool scan_pre(TirVisitor *v, const TirStmt *s) {
  Scan *c = v->ctx;
  VEC_PUSH(c->stack, c->nstack, c->capstack, s);
  if (thread_attr(s)) {
    scan_note(c, NULL, s->attr.node, false);
  } else if (s->kind == TIR_S_ATTR && s->attr.node) {
    scan_note(c, NULL, s->attr.node, true); /* T.attr(ptr, "storage_scope", ...) */
  } else if (s->kind == TIR_S_DECL_BUFFER && s->decl.buf->data) {
    scan_note(c, NULL, s->decl.buf->data, true); /* T.decl_buffer(..., data=ptr) */
  }
  return true;
}

static void scan_post(TirVisitor *v, const TirStmt *s) {
  Scan *c = v->ctx;
  (void)s;
  c->nstack--;
}

static void scan_def(TirVisitor *v, const TirBuffer *b) {
  Scan *c = v->ctx;
  ir_ptrmap_put(&c->defined, b, (void *)b);
}

static void scan_def_var(TirVisitor *v, const TirVar *var) {
  Scan *c = v->ctx;
  if (var->thread_tag && c->nstack && thread_attr(c->stack[c->nstack - 1])) return;
  if (ir_ptrmap_has(&c->let_vars, var)) return;
  ir_ptrmap_put(&c->defined, var, (void *)var);
}

/* A use of buffer b or (b NULL) variable var under the current stack. */
static void scan_note(Scan *c, const TirBuffer *b, const TirVar *var, bool header) {
  const void *key = b ? (const void *)b : (const void *)var;
  if (!b && !ir_ptrmap_has(&c->defined, var)) ir_ptrmap_put(&c->early, var, (void *)1);
  intptr_t k = (intptr_t)ir_ptrmap_get(&c->index, key);
  UndeclBuf *u;
  if (!k) {
    UndeclBuf fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.buf = b;
    fresh.var = b ? NULL : var;
    fresh.prefix = xmalloc((size_t)(c->nstack + 1) * sizeof *fresh.prefix);
    if (c->nstack) memcpy(fresh.prefix, c->stack, (size_t)c->nstack * sizeof *c->stack);
    fresh.nprefix = c->nstack;
    VEC_PUSH(c->uses, c->nuses, c->capuses, fresh);
    ir_ptrmap_put(&c->index, key, (void *)(intptr_t)c->nuses);
    u = &c->uses[c->nuses - 1];
  } else {
    u = &c->uses[k - 1];
    int n = 0;
    while (n < u->nprefix && n < c->nstack && u->prefix[n] == c->stack[n]) n++;
    u->nprefix = n;
  }
  for (int i = 0; i < c->nstack; i++) ir_ptrmap_put(&u->holders, c->stack[i], (void *)1);
  if (!header) return;
  if (c->nstack) ir_ptrmap_put(&u->headers, c->stack[c->nstack - 1], (void *)1);
  /* A block's header (match_buffer, alloc_buffer shapes) prints with its
   * realize, a DeclBuffer with the Allocate it declares (one T.decl_buffer
   * line): a variable they use is declared before that statement. */
  if (c->nstack > 1) {
    TirStmtKind top = c->stack[c->nstack - 1]->kind, below = c->stack[c->nstack - 2]->kind;
    if ((top == TIR_S_BLOCK && below == TIR_S_BLOCK_REALIZE) || (top == TIR_S_DECL_BUFFER && below == TIR_S_ALLOCATE))
      ir_ptrmap_put(&u->headers, c->stack[c->nstack - 2], (void *)1);
  }
}

static void scan_use(TirVisitor *v, const TirBuffer *b) { scan_note(v->ctx, b, NULL, true); }

static bool scan_expr(TirVisitor *v, const TirExpr *e) {
  Scan *c = v->ctx;
  if (e->kind == TIR_VAR) scan_note(c, NULL, e->var, true);
  if (e->kind == TIR_LET) { /* `x = T.int32()` ... T.Let(body, where={x: v}) */
    ir_ptrmap_put(&c->let_vars, e->let.var, (void *)1);
    scan_note(c, NULL, e->let.var, true);
  }
  return true;
}

PrUndecl *pr_undecl_scan(const TirFunc *f) {
  Scan c;
  memset(&c, 0, sizeof c);
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_stmt = scan_pre;
  v.post_stmt = scan_post;
  v.def_buffer = scan_def;
  v.use_buffer = scan_use;
  v.def_var = scan_def_var;
  v.pre_expr = scan_expr;
  v.ctx = &c;
  tir_visit_func(&v, f);
  PrUndecl *u = NULL;
  for (int i = 0; i < c.nuses; i++) {
    UndeclBuf *e = &c.uses[i];
    const void *key = e->buf ? (const void *)e->buf : (const void *)e->var;
    if (ir_ptrmap_has(&c.defined, key) && !ir_ptrmap_has(&c.early, key)) {
      free(e->prefix);
      ir_ptrmap_free(&e->holders);
      ir_ptrmap_free(&e->headers);
      continue;
    }
    if (!u) u = xcalloc(1, sizeof *u);
    VEC_PUSH(u->v, u->n, u->cap, *e);
  }
  free(c.uses);
  free(c.stack);
  ir_ptrmap_free(&c.defined);
  ir_ptrmap_free(&c.let_vars);
  ir_ptrmap_free(&c.early);
  ir_ptrmap_free(&c.index);
  return u;
}

void pr_undecl_free(PrUndecl *u) {
  if (!u) return;
  for (int i = 0; i < u->n; i++) {
    free(u->v[i].prefix);
    ir_ptrmap_free(&u->v[i].holders);
    ir_ptrmap_free(&u->v[i].headers);
  }
  free(u->v);
  free(u);
}

static bool in_prefix(const UndeclBuf *e, const TirStmt *s) {
  for (int i = 0; i < e->nprefix; i++)
    if (e->prefix[i] == s) return true;
  return false;
}

/* Whether printing s opens a frame that holds every use of e (then the
 * declaration goes inside it, not before s).  A use in s's own expressions
 * (a let's value, a loop's extent) is printed before s's frame opens. */
static bool frame_holds_all(const UndeclBuf *e, const TirStmt *s) {
  if (!in_prefix(e, s) || ir_ptrmap_has(&e->headers, s)) return false;
  switch (s->kind) {
    case TIR_S_STORE:
    case TIR_S_EVAL:
    case TIR_S_SEQ: return false;
    case TIR_S_IF:
      return in_prefix(e, s->ifs.then_s) || (s->ifs.else_s && in_prefix(e, s->ifs.else_s));
    default: return true;
  }
}

static UndeclBuf *next_of(PrUndecl *u, const TirStmt *s, bool vars) {
  if (!u || !s) return NULL;
  for (int i = 0; i < u->n; i++) {
    UndeclBuf *e = &u->v[i];
    if (e->done || (e->buf == NULL) != vars || !ir_ptrmap_has(&e->holders, s) || frame_holds_all(e, s)) continue;
    e->done = true;
    return e;
  }
  return NULL;
}

const TirBuffer *pr_undecl_next(PrUndecl *u, const TirStmt *s) {
  UndeclBuf *e = next_of(u, s, false);
  return e ? e->buf : NULL;
}

const TirVar *pr_undecl_next_var(PrUndecl *u, const TirStmt *s) {
  UndeclBuf *e = next_of(u, s, true);
  return e ? e->var : NULL;
}
