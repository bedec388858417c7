/* elab_tir_alloc.c - the allocation statements of lowered TIR:
 * `p = T.allocate([16], "float32", "global", annotations={...})` and
 * `p = T.allocate_const([1, 2, 3, 4], "int32", [4])`, also in the with-form
 * (`with T.allocate(...) as p:`).
 *
 * As in TVMScript, each binds a data pointer p (a handle to its element type
 * and scope) over the statements that follow (or the with-body);
 * elab_tir_stmt.c builds the body, this file reads the call's head.  The data
 * of allocate_const is a list of numbers (nested lists flattened row-major, as
 * numpy reads them), one per element of the extents. */
#include <string.h>

#include "lang/elab_internal.h"

static TirVar *pointer_var(ElabCtx *c, const Ast *name, DType dt, const char *scope) {
  TirVar *v = tir_var(c->h, name->name, dt_handle);
  v->ptr_elem = dt;
  v->ptr_scope = scope;
  v->span = name->span;
  return v;
}

static IrValue *annotations_arg(ElabCtx *c, const Ast *a) {
  if (!a) return NULL;
  if (a->kind == AST_NONE) return NULL;
  if (a->kind != AST_DICT) {
    diag_error(c->diag, a->span, "annotations must be a dict such as {\"key\": value}");
    return NULL;
  }
  return elab_tir_attr_value(c, a);
}

static const char *const allocate_kw[] = {"extents", "dtype", "scope", "condition", "annotations", NULL};

static TirStmt *allocate_head(ElabCtx *c, const Ast *call, const Ast *name) {
  if (!elab_check_kwargs(c, call, allocate_kw)) return NULL;
  const Ast *slot[4];
  for (int k = 0; k < 4; k++) slot[k] = elab_arg(call, k, allocate_kw[k]);
  if (elab_num_posargs(call) > 4 || !slot[0] || !slot[1]) {
    diag_error(c->diag, call->span,
               "T.allocate takes (extents, dtype, scope), e.g. T.allocate([128], \"float32\", \"global\")");
    return NULL;
  }
  if (slot[3] && slot[3]->kind != AST_TRUE && slot[3]->kind != AST_NONE) {
    diag_error(c->diag, slot[3]->span, "only an unconditional T.allocate (condition=True) is supported");
    return NULL;
  }
  int n;
  TirExpr **ext = elab_shape(c, slot[0], &n, dt_int32);
  if (!ext) return NULL;
  DType dt;
  if (!elab_dtype_arg(c, slot[1], &dt)) return NULL;
  const char *scope = "global";
  if (slot[2]) {
    if (slot[2]->kind != AST_STR) {
      diag_error(c->diag, slot[2]->span, "scope must be a string such as \"global\"");
      return NULL;
    }
    scope = ir_strdup(c->h, slot[2]->str);
  }
  const Ast *ann = elab_kwarg(call, "annotations");
  IrValue *annotations = annotations_arg(c, ann);
  if (ann && ann->kind != AST_NONE && !annotations) return NULL;
  TirVar *v = pointer_var(c, name, dt, scope);
  TirStmt *s = tir_allocate(c->h, v, dt, ext, n, scope, NULL);
  s->alloc.annotations = annotations;
  return s;
}

/* Appends the numbers of a (nested) list to out, as literals of type t. */
static bool const_items(ElabCtx *c, const Ast *e, DType t, TirExpr ***out, int *n, int *cap) {
  if (e->kind == AST_LIST || e->kind == AST_TUPLE) {
    for (int i = 0; i < e->list.len; i++)
      if (!const_items(c, e->list.items[i], t, out, n, cap)) return false;
    return true;
  }
  TirVal v = elab_tir_val(c, e);
  if (!v.e) return false;
  TirExpr *x = v.lit ? elab_tir_adopt(c, v, t) : NULL;
  if (!x || (x->kind != TIR_INT && x->kind != TIR_FLOAT)) {
    char b[DT_STR_MAX];
    diag_error(c->diag, e->span, "T.allocate_const data must be %s literals", dt_str(t, b));
    return false;
  }
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 16;
    TirExpr **grown = arena_alloc(&c->scratch, (size_t)*cap * sizeof *grown);
    if (*n) memcpy(grown, *out, (size_t)*n * sizeof *grown);
    *out = grown;
  }
  (*out)[(*n)++] = x;
  return true;
}

static const char *const const_kw[] = {"data", "dtype", "extents", "annotations", NULL};

static TirStmt *allocate_const_head(ElabCtx *c, const Ast *call, const Ast *name) {
  if (!elab_check_kwargs(c, call, const_kw)) return NULL;
  const Ast *slot[3];
  for (int k = 0; k < 3; k++) slot[k] = elab_arg(call, k, const_kw[k]);
  if (elab_num_posargs(call) > 3 || !slot[0] || !slot[1] || !slot[2]) {
    diag_error(c->diag, call->span,
               "T.allocate_const takes (data, dtype, extents), e.g. T.allocate_const([1, 2], \"int32\", [2])");
    return NULL;
  }
  DType dt;
  if (!elab_dtype_arg(c, slot[1], &dt)) return NULL;
  int n;
  TirExpr **ext = elab_shape(c, slot[2], &n, dt_int32);
  if (!ext) return NULL;
  int64_t total = 1, k;
  for (int i = 0; i < n; i++) {
    if (!tir_is_const_int(ext[i], &k) || k < 0) {
      diag_error(c->diag, slot[2]->span, "T.allocate_const extents must be constant");
      return NULL;
    }
    total *= k;
  }
  TirExpr **data = NULL;
  int nd = 0, cap = 0;
  if (!const_items(c, slot[0], dt, &data, &nd, &cap)) return NULL;
  if (nd != total) {
    diag_error(c->diag, slot[0]->span, "T.allocate_const has %d values for extents of %lld elements",
               nd, (long long)total);
    return NULL;
  }
  const Ast *ann = elab_kwarg(call, "annotations");
  IrValue *annotations = annotations_arg(c, ann);
  if (ann && ann->kind != AST_NONE && !annotations) return NULL;
  TirVar *v = pointer_var(c, name, dt, "global");
  TirStmt *s = tir_allocate_const(c->h, v, dt, ext, n, data, nd, NULL);
  s->alloc.annotations = annotations;
  return s;
}

TirStmt *elab_tir_alloc_head(ElabCtx *c, const Ast *call, const char *cn, const Ast *name) {
  if (!name || name->kind != AST_NAME) {
    diag_error(c->diag, name ? name->span : call->span, "%s binds a single name", cn);
    return NULL;
  }
  TirStmt *s = !strcmp(cn, "T.allocate") ? allocate_head(c, call, name)
                                         : allocate_const_head(c, call, name);
  if (!s) return NULL;
  s->span = call->span;
  elab_define(c, name->name, SYM_TIR_VAR, s->alloc.var, name->span);
  return s;
}
