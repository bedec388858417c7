/* index.c - definitions and uses of names, from the AST alone (so it works on
 * a file that does not elaborate): functions, parameters, buffers, variables,
 * loop and block iter vars, blocks (T.block("name")) and the handles of
 * schedule statements.  Scopes follow Python's: a def's names are visible in
 * its body, module-level names everywhere. */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "lsp/lsp_internal.h"

typedef struct Walk {
  LspIndex *ix;
  const SourceFile *src;
  int parent;                 /* enclosing function/block symbol, -1 at top */
  const char *func;           /* enclosing function's name */
  uint32_t scope_off, scope_len;
  Arena *arena;
} Walk;

const char *lsp_sym_kind_name(LspSymKind k) {
  static const char *const names[] = {"module",   "function", "parameter", "buffer", "variable",
                                      "loop var", "iter var", "block",     "schedule handle"};
  return names[k];
}

static int add_sym(Walk *w, const char *name, LspSymKind kind, uint32_t off, uint32_t len, Span full) {
  LspSym s = {name, kind, off, len, full.off, full.len, w->scope_off, w->scope_len, w->parent, w->func, 0};
  LspIndex *ix = w->ix;
  VEC_PUSH(ix->syms, ix->nsyms, ix->capsyms, s);
  return ix->nsyms - 1;
}

static void add_ref(Walk *w, const char *name, uint32_t off, uint32_t len, bool is_block) {
  LspRef r = {name, off, len, is_block};
  LspIndex *ix = w->ix;
  VEC_PUSH(ix->refs, ix->nrefs, ix->caprefs, r);
}

/* The offset of `name` after keyword kw ("def", "class") inside span s. */
static uint32_t name_after(const Walk *w, Span s, const char *kw, const char *name) {
  const char *t = w->src->text + s.off;
  size_t kl = strlen(kw);
  for (const char *p = t; (p = memmem(p, s.len - (size_t)(p - t), kw, kl)) != NULL; p += kl) {
    const char *q = p + kl;
    while (q < t + s.len && (*q == ' ' || *q == '\t')) q++;
    if (q > p + kl && !strncmp(q, name, strlen(name))) return s.off + (uint32_t)(q - t);
  }
  return s.off;
}

/* A string literal's contents span (without quotes), false for other nodes. */
static bool str_inner(const Walk *w, const Ast *n, uint32_t *off, uint32_t *len) {
  if (!n || n->kind != AST_STR || n->span.len < 2) return false;
  char q = w->src->text[n->span.off];
  if (q != '"' && q != '\'') return false;
  *off = n->span.off + 1;
  *len = n->span.len - 2;
  return true;
}

static void walk_expr(Walk *w, const Ast *n);

static void walk_list(Walk *w, const AstList *l) {
  for (int i = 0; i < l->len; i++) walk_expr(w, l->items[i]);
}

static void walk_expr(Walk *w, const Ast *n) {
  if (!n) return;
  switch (n->kind) {
    case AST_NAME: add_ref(w, n->name, n->span.off, n->span.len, false); return;
    case AST_ATTR:
      walk_expr(w, n->a);
      /* cls.func names a function of the module */
      if (n->a && n->a->kind == AST_NAME && !strcmp(n->a->name, "cls") && n->name)
        add_ref(w, n->name, n->span.off + n->span.len - (uint32_t)strlen(n->name),
                (uint32_t)strlen(n->name), false);
      return;
    case AST_CALL: {
      walk_expr(w, n->a);
      walk_list(w, &n->list);
      uint32_t off, len;
      if (n->a && n->a->kind == AST_ATTR && n->a->name && !strcmp(n->a->name, "get_block") &&
          n->list.len > 0 && str_inner(w, n->list.items[0], &off, &len))
        add_ref(w, n->list.items[0]->str, off, len, true);
      return;
    }
    default:
      walk_expr(w, n->a);
      walk_expr(w, n->b);
      walk_expr(w, n->c);
      walk_list(w, &n->list);
      walk_list(w, &n->list2);
      return;
  }
}

/* What an assignment from value defines: a buffer, an iter var, a schedule
 * handle or a plain variable. */
static LspSymKind assigned_kind(Walk *w, const Ast *value) {
  if (!value || value->kind != AST_CALL || !value->a) return LSP_SYM_VAR;
  const char *callee = ast_dotted_name(w->arena, value->a);
  if (!callee) return LSP_SYM_VAR;
  static const char *const buffer_makers[] = {"T.match_buffer", "T.alloc_buffer", "T.decl_buffer",
                                              "T.Buffer", "T.sblock_alloc_buffer"};
  for (size_t i = 0; i < sizeof buffer_makers / sizeof *buffer_makers; i++)
    if (!strcmp(callee, buffer_makers[i])) return LSP_SYM_BUFFER;
  if (!strncmp(callee, "T.axis.", 7)) return LSP_SYM_ITER_VAR;
  if (!strncmp(callee, "sch.", 4) || !strcmp(callee, "tvm.tir.Schedule") || !strcmp(callee, "tir.Schedule"))
    return LSP_SYM_SCHED_VAR;
  return LSP_SYM_VAR;
}

/* Defines the names of target t; iter_kinds (may be NULL) gives the kind
 * letter of the n-th name defined (*n counts them). */
static void define_names(Walk *w, const Ast *t, LspSymKind kind, Span full, const char *iter_kinds, int *n) {
  if (!t) return;
  if (t->kind == AST_NAME) {
    int k = add_sym(w, t->name, kind, t->span.off, t->span.len, full);
    if (iter_kinds) w->ix->syms[k].iter = *n < (int)strlen(iter_kinds) ? iter_kinds[*n] : 0;
    (*n)++;
    add_ref(w, t->name, t->span.off, t->span.len, false);
  } else if (t->kind == AST_TUPLE || t->kind == AST_LIST) {
    for (int i = 0; i < t->list.len; i++) define_names(w, t->list.items[i], kind, full, iter_kinds, n);
  } else if (t->kind == AST_STARRED) {
    define_names(w, t->a, kind, full, iter_kinds, n);
  } else {
    walk_expr(w, t);
  }
}

static void define_targets(Walk *w, const Ast *t, LspSymKind kind, Span full) {
  int n = 0;
  define_names(w, t, kind, full, NULL, &n);
}

/* The iter kind letters an assignment from a T.axis.* call defines. */
static const char *iter_kinds_of(Walk *w, const Ast *value) {
  const char *callee = ast_dotted_name(w->arena, value->a);
  if (!strcmp(callee, "T.axis.remap"))
    return value->list.len > 0 && value->list.items[0]->kind == AST_STR ? value->list.items[0]->str : NULL;
  const char *kind = callee + 7;
  if (!strcmp(kind, "spatial") || !strcmp(kind, "S")) return "S";
  if (!strcmp(kind, "reduce") || !strcmp(kind, "R")) return "R";
  if (!strcmp(kind, "scan")) return "C";
  return "O";
}

static void walk_body(Walk *w, const AstList *body);

static void walk_funcdef(Walk *w, const Ast *st) {
  uint32_t off = name_after(w, st->span, "def", st->name);
  int me = add_sym(w, st->name, LSP_SYM_FUNCTION, off, (uint32_t)strlen(st->name), st->span);
  add_ref(w, st->name, off, (uint32_t)strlen(st->name), false);
  walk_list(w, &st->decorators);
  Walk inner = *w;
  inner.parent = me;
  inner.func = st->name;
  inner.scope_off = st->span.off;
  inner.scope_len = st->span.len;
  for (int i = 0; i < st->list.len; i++) {
    const Ast *p = st->list.items[i];
    walk_expr(&inner, p->a);
    walk_expr(&inner, p->b);
    if (!p->name || p->ival) continue;
    const char *ann = p->a ? ast_dotted_name(w->arena, p->a->kind == AST_CALL ? p->a->a : p->a) : NULL;
    LspSymKind k = ann && !strcmp(ann, "T.Buffer") ? LSP_SYM_BUFFER : LSP_SYM_PARAM;
    add_sym(&inner, p->name, k, p->span.off, (uint32_t)strlen(p->name), p->span);
    add_ref(&inner, p->name, p->span.off, (uint32_t)strlen(p->name), false);
  }
  walk_expr(&inner, st->b);
  walk_body(&inner, &st->body);
}

static void walk_with(Walk *w, const Ast *st) {
  Walk inner = *w;
  for (int i = 0; i < st->list.len; i++) {
    const Ast *item = st->list.items[i];
    const Ast *ctx = item->a;
    walk_expr(w, ctx);
    uint32_t off, len;
    const char *callee = ctx && ctx->kind == AST_CALL ? ast_dotted_name(w->arena, ctx->a) : NULL;
    if (callee && (!strcmp(callee, "T.block") || !strcmp(callee, "T.sblock")) && ctx->list.len > 0 &&
        str_inner(w, ctx->list.items[0], &off, &len)) {
      inner.parent = add_sym(w, ctx->list.items[0]->str, LSP_SYM_BLOCK, off, len, st->span);
      add_ref(w, ctx->list.items[0]->str, off, len, true);
    }
    define_targets(&inner, item->b, LSP_SYM_VAR, st->span);
  }
  walk_body(&inner, &st->body);
}

static void walk_stmt(Walk *w, const Ast *st) {
  switch (st->kind) {
    case AST_FUNCDEF: walk_funcdef(w, st); return;
    case AST_CLASS: {
      uint32_t off = name_after(w, st->span, "class", st->name);
      Walk inner = *w;
      inner.parent = add_sym(w, st->name, LSP_SYM_MODULE, off, (uint32_t)strlen(st->name), st->span);
      walk_list(w, &st->decorators);
      walk_body(&inner, &st->body);
      return;
    }
    case AST_ASSIGN: {
      walk_expr(w, st->a);
      walk_expr(w, st->b);
      LspSymKind k = assigned_kind(w, st->a);
      const char *kinds = k == LSP_SYM_ITER_VAR ? iter_kinds_of(w, st->a) : NULL;
      for (int i = 0; i < st->list.len; i++) {
        int n = 0;
        define_names(w, st->list.items[i], k, st->span, kinds, &n);
      }
      return;
    }
    case AST_FOR:
      walk_expr(w, st->b);
      define_targets(w, st->a, LSP_SYM_LOOP_VAR, st->span);
      walk_body(w, &st->body);
      return;
    case AST_WITH: walk_with(w, st); return;
    case AST_IMPORT: case AST_FROM_IMPORT: return;
    default:
      walk_expr(w, st->a);
      walk_expr(w, st->b);
      walk_body(w, &st->body);
      walk_body(w, &st->orelse);
      return;
  }
}

static void walk_body(Walk *w, const AstList *body) {
  for (int i = 0; i < body->len; i++) walk_stmt(w, body->items[i]);
}

static const LspIndex *sort_ix; /* qsort has no context argument */

static int by_name(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  int c = strcmp(sort_ix->syms[x].name, sort_ix->syms[y].name);
  return c ? c : (x > y) - (x < y);
}

void lsp_index_build(LspIndex *ix, const AstFile *f) {
  memset(ix, 0, sizeof *ix);
  Arena scratch;
  arena_init(&scratch);
  Walk w = {ix, f->src, -1, NULL, 0, (uint32_t)f->src->len + 1, &scratch};
  walk_body(&w, &f->module->body);
  arena_free(&scratch);
  ix->by_name = xmalloc(sizeof *ix->by_name * (size_t)(ix->nsyms + 1));
  for (int i = 0; i < ix->nsyms; i++) ix->by_name[i] = i;
  sort_ix = ix;
  qsort(ix->by_name, (size_t)ix->nsyms, sizeof *ix->by_name, by_name);
}

void lsp_index_free(LspIndex *ix) {
  free(ix->syms);
  free(ix->refs);
  free(ix->by_name);
  memset(ix, 0, sizeof *ix);
}

const LspRef *lsp_index_ref_at(const LspIndex *ix, uint32_t off) {
  for (int i = 0; i < ix->nrefs; i++)
    if (off >= ix->refs[i].off && off <= ix->refs[i].off + ix->refs[i].len) return &ix->refs[i];
  return NULL;
}

int lsp_index_resolve(const LspIndex *ix, const LspRef *r) {
  int lo = 0, hi = ix->nsyms; /* the first symbol called r->name */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (strcmp(ix->syms[ix->by_name[mid]].name, r->name) < 0) lo = mid + 1;
    else hi = mid;
  }
  int best = -1;
  for (int j = lo; j < ix->nsyms && !strcmp(ix->syms[ix->by_name[j]].name, r->name); j++) {
    int i = ix->by_name[j]; /* in definition order */
    const LspSym *s = &ix->syms[i];
    if ((s->kind == LSP_SYM_BLOCK) != r->is_block) continue;
    if (r->is_block) return i;
    if (r->off < s->scope_off || r->off > s->scope_off + s->scope_len) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const LspSym *b = &ix->syms[best];
    if (s->scope_len < b->scope_len) best = i;               /* an inner scope wins */
    else if (s->scope_len == b->scope_len && s->off <= r->off) best = i; /* the latest before the use */
  }
  return best;
}
