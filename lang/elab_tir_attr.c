/* elab_tir_attr.c - the attribute statements of lowered TIR (TVM's AttrStmt):
 * `tx = T.env_thread("threadIdx.x")`, `T.launch_thread(tx, 32)`,
 * `bx = T.launch_thread("blockIdx.x", 4)` and `T.attr(node, key, value)`.
 *
 * As in TVMScript, an env thread is a variable tagged with its thread
 * ("threadIdx.x"); each T.launch_thread makes a "thread_extent" attr
 * ("virtual_thread" for the tag "vthread") binding it over the statements
 * that follow (or the with-body).  elab_tir_stmt.c builds the body; this file
 * reads the call's head. */
#include <string.h>

#include "lang/elab_internal.h"

static bool tag_arg(ElabCtx *c, const Ast *e, const char *fn, const char **out) {
  if (!e || e->kind != AST_STR) {
    diag_error(c->diag, e ? e->span : span_none, "%s needs a thread tag string such as \"threadIdx.x\"", fn);
    return false;
  }
  *out = ir_strdup(c->h, e->str);
  return true;
}

static TirVar *thread_var(ElabCtx *c, const char *name, const char *tag, DType t, Span sp) {
  char buf[64];
  if (!name) { /* `with T.launch_thread("threadIdx.x", 8):` names it after the tag */
    size_t n = strlen(tag) < sizeof buf - 1 ? strlen(tag) : sizeof buf - 1;
    memcpy(buf, tag, n);
    buf[n] = 0;
    for (char *q = buf; *q; q++)
      if (*q == '.') *q = '_';
    name = buf;
  }
  TirVar *v = tir_var(c->h, ir_strdup(c->h, name), t);
  v->thread_tag = tag;
  v->span = sp;
  return v;
}

static const char *const env_kw[] = {"thread_tag", "dtype", NULL};

/* `tx = T.env_thread("threadIdx.x")`: a thread variable, bound later by T.launch_thread. */
bool elab_tir_env_thread(ElabCtx *c, const Ast *target, const Ast *call) {
  if (!elab_check_kwargs(c, call, env_kw)) return false;
  const Ast *tg = elab_arg(call, 0, "thread_tag");
  const Ast *dt = elab_arg(call, 1, "dtype");
  const char *tag;
  if (!tag_arg(c, tg, "T.env_thread", &tag)) return false;
  DType t = dt_int32;
  if (dt && !elab_dtype_arg(c, dt, &t)) return false;
  TirVar *v = thread_var(c, target->name, tag, t, target->span);
  elab_define(c, target->name, SYM_TIR_VAR, v, target->span);
  return true;
}

static bool launch_head(ElabCtx *c, const Ast *call, const Ast *name, ElabAttrHead *h) {
  static const char *const kw[] = {"thread", "extent", NULL};
  if (!elab_check_kwargs(c, call, kw)) return false;
  const Ast *th = elab_arg(call, 0, "thread");
  const Ast *ext = elab_arg(call, 1, "extent");
  if (!th || !ext || elab_num_posargs(call) > 2) {
    diag_error(c->diag, call->span, "T.launch_thread takes (thread, extent), e.g. T.launch_thread(\"threadIdx.x\", 32)");
    return false;
  }
  TirExpr *e = elab_tir_int_expr(c, ext, dt_int32, "thread extent");
  if (!e) return false;
  if (th->kind == AST_STR) {
    const char *tag;
    if (!tag_arg(c, th, "T.launch_thread", &tag)) return false;
    h->node = thread_var(c, name ? name->name : NULL, tag, e->dtype, name ? name->span : th->span);
    if (name) elab_define(c, name->name, SYM_TIR_VAR, h->node, name->span);
  } else {
    TirExpr *v = elab_tir_expr(c, th);
    if (!v) return false;
    if (v->kind != TIR_VAR || !v->var->thread_tag) {
      diag_error(c->diag, th->span, "T.launch_thread: '%s' is not an env thread made by T.env_thread",
                 elab_span_text(c, th->span));
      return false;
    }
    h->node = v->var;
  }
  h->key = strcmp(h->node->thread_tag, "vthread") ? "thread_extent" : "virtual_thread";
  h->value = e;
  return true;
}

static const char *const attr_kw[] = {"node", "attr_key", "value", NULL};

static bool is_name(const Ast *e, const Ast *param) {
  return e->kind == AST_NAME && param->name && !strcmp(e->name, param->name);
}

/* Which of TVS's reducers (add, mul, max, min) a lambda x, y: ... computes. */
static const char *reducer_kind(ElabCtx *c, const Ast *lam) {
  if (lam->kind != AST_LAMBDA || lam->list.len != 2) return NULL;
  const Ast *x = lam->list.items[0], *y = lam->list.items[1], *b = lam->a;
  const Ast *l = NULL, *r = NULL;
  const char *kind = NULL;
  if (b->kind == AST_BINOP && (b->op == OP_ADD || b->op == OP_MUL)) {
    kind = b->op == OP_ADD ? "add" : "mul";
    l = b->a;
    r = b->b;
  } else if (b->kind == AST_CALL && elab_num_posargs(b) == 2 && b->list.len == 2) {
    const char *cn = elab_canonical_name(c, b->a);
    kind = cn && !strcmp(cn, "T.max") ? "max" : cn && !strcmp(cn, "T.min") ? "min" : NULL;
    l = elab_posarg(b, 0);
    r = elab_posarg(b, 1);
  }
  if (!kind || !((is_name(l, x) && is_name(r, y)) || (is_name(l, y) && is_name(r, x)))) return NULL;
  return kind;
}

/* `T.comm_reducer(lambda x, y: x + y, [T.float32(0)])`, the node of a
 * "reduce_scope" attr: the opaque comm_reducer(kind, identity) call that
 * lower-cross-thread-reduction builds.  TVS models one-value reducers of
 * +, *, T.max and T.min. */
static TirExpr *comm_reducer(ElabCtx *c, const Ast *call) {
  const Ast *lam = elab_posarg(call, 0), *ids = elab_posarg(call, 1);
  if (!lam || !ids || elab_num_posargs(call) != 2 || call->list.len != 2) {
    diag_error(c->diag, call->span, "T.comm_reducer takes (lambda x, y: ..., [identity])");
    return NULL;
  }
  const char *kind = reducer_kind(c, lam);
  if (!kind) {
    diag_error(c->diag, lam->span,
               "only the reducers lambda x, y: x + y, x * y, T.max(x, y) and T.min(x, y) are supported");
    return NULL;
  }
  if ((ids->kind != AST_LIST && ids->kind != AST_TUPLE) || ids->list.len != 1) {
    diag_error(c->diag, ids->span, "T.comm_reducer of one value takes one identity, e.g. [T.float32(0)]");
    return NULL;
  }
  TirExpr *id = elab_tir_expr(c, ids->list.items[0]);
  if (!id) return NULL;
  TirExpr *args[3] = {tir_str(c->h, "comm_reducer"), tir_str(c->h, kind), id};
  TirExpr *e = tir_call(c->h, dt_handle, tir_op_lookup(" opaque"), args, 3);
  e->span = call->span;
  return e;
}

static bool attr_head(ElabCtx *c, const Ast *call, ElabAttrHead *h) {
  if (!elab_check_kwargs(c, call, attr_kw)) return false;
  const Ast *a[3];
  for (int k = 0; k < 3; k++) a[k] = elab_posarg(call, k) ? elab_posarg(call, k) : elab_kwarg(call, attr_kw[k]);
  if (!a[0] || !a[1] || !a[2] || elab_num_posargs(call) > 3) {
    diag_error(c->diag, call->span, "T.attr takes (node, attr_key, value)");
    return false;
  }
  if (a[1]->kind != AST_STR) {
    diag_error(c->diag, a[1]->span, "T.attr: the key must be a string such as \"pragma_unroll\"");
    return false;
  }
  h->key = ir_strdup(c->h, a[1]->str);
  h->node = NULL;
  const char *cn0 = a[0]->kind == AST_CALL ? elab_canonical_name(c, a[0]->a) : NULL;
  if (cn0 && !strcmp(cn0, "T.comm_reducer")) {
    /* TVS keeps the reducer as the attr's value; the value TVM gives it
     * (a null handle) is implied */
    if (strcmp(h->key, "reduce_scope")) {
      diag_error(c->diag, a[1]->span, "a T.comm_reducer node goes with the key \"reduce_scope\"");
      return false;
    }
    if (!elab_tir_expr(c, a[2])) return false;
    h->value = comm_reducer(c, a[0]);
    return h->value != NULL;
  }
  bool zero = (a[0]->kind == AST_INT && a[0]->ival == 0) || a[0]->kind == AST_NONE;
  if (!zero) {
    TirExpr *n = elab_tir_expr(c, a[0]);
    if (!n) return false;
    if (n->kind != TIR_VAR) {
      diag_error(c->diag, a[0]->span, "T.attr: the node must be a variable (or 0)");
      return false;
    }
    h->node = n->var;
  }
  h->value = elab_tir_expr(c, a[2]);
  return h->value != NULL;
}

/* Reads the head of `T.launch_thread(...)` / `T.attr(...)` (cn is the canonical
 * callee); name is the assigned or with-as name, or NULL. */
bool elab_tir_attr_head(ElabCtx *c, const Ast *call, const char *cn, const Ast *name, ElabAttrHead *h) {
  if (!strcmp(cn, "T.launch_thread")) return launch_head(c, call, name, h);
  if (name) {
    diag_error(c->diag, name->span, "T.attr does not bind a name");
    return false;
  }
  return attr_head(c, call, h);
}
