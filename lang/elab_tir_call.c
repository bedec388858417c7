/* elab_tir_call.c - calls between the prim_funcs of one module.
 *
 * TVM lets a prim_func call another prim_func of its IRModule through the
 * GlobalVar: `Module.f(A.data, n)` (the class name, or any name bound to the
 * module) or `T.call_tir(Module.f, ...)`.  The call is a Call node whose op
 * is the GlobalVar and whose dtype is the callee's declared return type
 * (`-> T.float32`; void without one); here it is the CALL_GLOBAL op with the
 * callee's name as the first argument.  The callee may be defined later in
 * the class: its declaration (decorator, parameters, return annotation) is
 * read from its definition, as TVM declares every function before parsing
 * bodies. */
#include "lang/elab_internal.h"

#include <string.h>

/* The FUNCDEF of module function `name`, or NULL. */
static const Ast *module_def(ElabCtx *c, const char *name) {
  for (Scope *s = c->scope; s; s = s->parent)
    for (int i = s->n - 1; i >= 0; i--)
      if (s->syms[i].kind == SYM_GLOBAL_FUNC && !strcmp(s->syms[i].name, name)) return s->syms[i].ptr;
  return NULL;
}

/* `Module.f` where Module names the module class: the attribute, else NULL. */
static const Ast *global_ref(ElabCtx *c, const Ast *a) {
  if (!a || a->kind != AST_ATTR || !a->a || a->a->kind != AST_NAME) return NULL;
  Sym *s = elab_lookup(c, a->a->name);
  return s && s->kind == SYM_MODULE ? a : NULL;
}

bool elab_tir_is_subroutine_call(ElabCtx *c, const Ast *call) {
  if (global_ref(c, call->a)) return true;
  const char *cn = elab_canonical_name(c, call->a);
  return cn && !strcmp(cn, "T.call_tir");
}

static bool is_prim_func(ElabCtx *c, const Ast *def) {
  for (int i = 0; i < def->decorators.len; i++) {
    const Ast *d = def->decorators.items[i];
    const char *cn = elab_canonical_name(c, d->kind == AST_CALL ? d->a : d);
    if (cn && !strcmp(cn, "T.prim_func")) return true;
  }
  return false;
}

/* The declared return type: `-> T.<dtype>`, else void (TVM's call_tir). */
static DType declared_ret(const Ast *def) {
  const Ast *ra = def->b;
  DType rt;
  if (ra && ra->kind == AST_ATTR && ra->a && ra->a->kind == AST_NAME && !strcmp(ra->a->name, "T") &&
      dt_parse(ra->name, &rt) && !dt_is_handle(rt))
    return rt;
  return dt_void;
}

TirExpr *elab_tir_subroutine_call(ElabCtx *c, const Ast *call) {
  const Ast *ref = global_ref(c, call->a);
  int first = 0; /* index of the first argument of the callee among the posargs */
  if (!ref) {    /* T.call_tir(Module.f, args...) */
    ref = global_ref(c, elab_posarg(call, 0));
    if (!ref) {
      diag_error(c->diag, call->span, "T.call_tir takes a function of the module first, e.g. "
                 "T.call_tir(Module.f, x)");
      return NULL;
    }
    first = 1;
  }
  if (elab_num_posargs(call) != call->list.len) {
    diag_error(c->diag, call->span, "a call of a prim_func takes positional arguments only");
    return NULL;
  }
  const Ast *def = module_def(c, ref->name);
  if (!def) {
    diag_error(c->diag, ref->span, "module has no function '%s'", ref->name);
    return NULL;
  }
  if (!is_prim_func(c, def)) {
    diag_error(c->diag, ref->span, "'%s' is not a prim_func: a prim_func calls only the prim_funcs of "
               "its module", ref->name);
    return NULL;
  }
  int n = elab_num_posargs(call) - first;
  if (n != def->list.len) {
    diag_error(c->diag, call->span, "'%s' takes %d argument%s but %d %s given", ref->name, def->list.len,
               def->list.len == 1 ? "" : "s", n, n == 1 ? "was" : "were");
    return NULL;
  }
  TirExpr **args = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *args);
  args[0] = tir_str(c->h, ref->name);
  for (int i = 0; i < n; i++) {
    args[i + 1] = elab_tir_expr(c, elab_posarg(call, first + i));
    if (!args[i + 1]) return NULL;
  }
  TirExpr *e = tir_call(c->h, declared_ret(def), &tir_op_table[TIR_OP_CALL_GLOBAL], args, n + 1);
  e->span = call->span;
  return e;
}
