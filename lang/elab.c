/* elab.c - elaboration at module level: imports, the ir_module class or the
 * implicit module of bare definitions, decorators, and dispatch of each
 * function to its dialect (TIR, Relax, TE).  Also the name scopes and the
 * small argument helpers every elaboration file shares. */
#include "lang/elab_internal.h"
#include "lang/stdlib.h"
#include "base/util.h"
#include "parser/parser.h"

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ scopes */

void elab_push_scope(ElabCtx *c) {
  Scope *s = arena_alloc(&c->scratch, sizeof *s);
  s->parent = c->scope;
  c->scope = s;
}

void elab_pop_scope(ElabCtx *c) {
  TVS_ASSERT(c->scope);
  c->scope = c->scope->parent;
}

/* Scopes with many names (a module with hundreds of functions) get a hash
 * index so that every lookup of `T` does not scan them all. */
#define SCOPE_INDEX_MIN 16

static uint32_t name_hash(const char *p) {
  uint32_t h = 2166136261u;
  for (; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
  return h;
}

static void index_insert(Scope *s, int pos) {
  uint32_t mask = (uint32_t)s->nslots - 1, i = name_hash(s->syms[pos].name) & mask;
  for (;; i = (i + 1) & mask) {
    int k = s->slots[i];
    if (k == 0 || !strcmp(s->syms[k - 1].name, s->syms[pos].name)) {
      s->slots[i] = pos + 1; /* the latest definition of a name wins */
      return;
    }
  }
}

static void index_rebuild(ElabCtx *c, Scope *s) {
  int n = 64;
  while (n < 4 * s->n) n *= 2;
  s->slots = arena_alloc(&c->scratch, (size_t)n * sizeof *s->slots);
  s->nslots = n;
  for (int i = 0; i < s->n; i++) index_insert(s, i);
}

static Sym *scope_find(Scope *s, const char *name) {
  if (s->slots) {
    uint32_t mask = (uint32_t)s->nslots - 1, i = name_hash(name) & mask;
    for (;; i = (i + 1) & mask) {
      int k = s->slots[i];
      if (k == 0) return NULL;
      if (!strcmp(s->syms[k - 1].name, name)) return &s->syms[k - 1];
    }
  }
  for (int i = s->n - 1; i >= 0; i--)
    if (!strcmp(s->syms[i].name, name)) return &s->syms[i];
  return NULL;
}

Sym *elab_define(ElabCtx *c, const char *name, SymKind kind, void *ptr, Span span) {
  Scope *s = c->scope;
  TVS_ASSERT(s);
  s->syms = elab_grow(c, s->syms, s->n, &s->cap, sizeof *s->syms);
  Sym *sym = &s->syms[s->n++];
  sym->name = arena_strdup(&c->scratch, name);
  sym->kind = kind;
  sym->ptr = ptr;
  sym->span = span;
  if (s->slots && 2 * s->n < s->nslots) index_insert(s, s->n - 1);
  else if (s->n >= SCOPE_INDEX_MIN) index_rebuild(c, s);
  return sym;
}

Sym *elab_lookup(ElabCtx *c, const char *name) {
  for (Scope *s = c->scope; s; s = s->parent) {
    Sym *sym = scope_find(s, name);
    if (sym) return sym;
  }
  return NULL;
}

void *elab_grow(ElabCtx *c, void *p, int n, int *cap, size_t sz) {
  size_t cp = (size_t)*cap;
  p = arena_grow(&c->scratch, p, sz, (size_t)n, &cp);
  *cap = (int)cp;
  return p;
}

void elab_poison(ElabCtx *c, const char *name) {
  pv_push(&c->poisoned, arena_strdup(&c->scratch, name));
}

void elab_undefined(ElabCtx *c, const Ast *name_node) {
  const char *name = name_node->name ? name_node->name : "?";
  for (int i = 0; i < c->poisoned.len; i++)
    if (!strcmp(c->poisoned.items[i], name)) {
      TVS_ASSERT(c->diag->nerr > 0); /* the failed definition was reported */
      return;
    }
  const char *best = NULL;
  int best_d = 1 << 20;
  for (Scope *s = c->scope; s; s = s->parent)
    for (int i = s->n - 1; i >= 0; i--) {
      if (s->syms[i].kind == SYM_NAMESPACE) continue;
      int d = edit_distance(name, s->syms[i].name);
      if (d < best_d) {
        best_d = d;
        best = s->syms[i].name;
      }
    }
  /* Suggest only a plausible typo: a one- or two-letter name is "close" to
   * every other short name (C vs i), so short names get no suggestion. */
  int len = (int)strlen(name), blen = best ? (int)strlen(best) : 0;
  int longest = len > blen ? len : blen;
  if (best && len >= 3 && blen >= 2 && best_d > 0 && 3 * best_d <= longest)
    diag_error(c->diag, name_node->span, "use of undefined name '%s'; did you mean '%s'?", name,
               best);
  else
    diag_error(c->diag, name_node->span, "use of undefined name '%s'", name);
}

const char *elab_span_text(ElabCtx *c, Span s) {
  if (!s.file || s.off + s.len > s.file->len) return "?";
  return arena_strndup(&c->scratch, s.file->text + s.off, s.len);
}

/* The span of the name of a def/class (its own span starts at the decorators). */
static Span def_name_span(const Ast *d) {
  Span s = d->span;
  const char *kw = d->kind == AST_CLASS ? "class" : "def";
  if (!s.file || !d->name) return s;
  size_t kl = strlen(kw), nl = strlen(d->name);
  const char *t = s.file->text;
  for (size_t i = s.off; i + kl + 1 + nl <= s.off + s.len; i++) {
    if (strncmp(t + i, kw, kl) != 0 || (i > 0 && t[i - 1] != '\n' && t[i - 1] != ' ' && t[i - 1] != '\t'))
      continue;
    size_t j = i + kl;
    if (t[j] != ' ' && t[j] != '\t') continue;
    while (t[j] == ' ' || t[j] == '\t') j++;
    if (!strncmp(t + j, d->name, nl)) return src_span(s.file, (uint32_t)j, (uint32_t)nl);
  }
  return s;
}

/* --------------------------------------------------------- canonical names */

/* Appends the dotted name of a NAME/ATTR chain; false if it is not one. */
static bool dotted(const Ast *n, StrBuf *sb) {
  if (!n) return false;
  if (n->kind == AST_NAME) {
    sb_puts(sb, n->name);
    return true;
  }
  if (n->kind == AST_ATTR) {
    if (!dotted(n->a, sb)) return false;
    sb_putc(sb, '.');
    sb_puts(sb, n->name);
    return true;
  }
  return false;
}

static const Ast *chain_root(const Ast *n) {
  while (n && n->kind == AST_ATTR) n = n->a;
  return n && n->kind == AST_NAME ? n : NULL;
}

/* Sub-namespaces of `tvm` and what they stand for. */
static const struct { const char *prefix, *ns; } tvm_subspaces[] = {
    {"script.tir.", "T"}, {"script.tirx.", "T"}, {"script.relax.", "R"}, {"script.ir.", "I"},
    {"script.", "I"},     {"tir.", "T"},         {"tirx.", "T"},         {"relax.", "R"},
    {"te.", "te"},        {"ir.", "I"},
};

const char *elab_canonical_name(ElabCtx *c, const Ast *callee) {
  const Ast *root = chain_root(callee);
  if (!root) return NULL;
  Sym *sym = elab_lookup(c, root->name);
  if (!sym || sym->kind != SYM_NAMESPACE) return NULL;
  const char *ns = sym->ptr;
  StrBuf sb;
  sb_init(&sb);
  dotted(callee, &sb);
  const char *rest = strchr(sb.data, '.');
  const char *result;
  if (!rest) {
    result = arena_strdup(&c->scratch, ns);
  } else if (!strcmp(ns, "tvm")) {
    rest++;
    result = NULL;
    for (size_t i = 0; i < sizeof tvm_subspaces / sizeof tvm_subspaces[0]; i++) {
      size_t pl = strlen(tvm_subspaces[i].prefix);
      if (!strncmp(rest, tvm_subspaces[i].prefix, pl)) {
        StrBuf o;
        sb_init(&o);
        sb_printf(&o, "%s.%s", tvm_subspaces[i].ns, rest + pl);
        result = arena_strdup(&c->scratch, o.data);
        sb_free(&o);
        break;
      }
    }
    if (!result) {
      StrBuf o;
      sb_init(&o);
      sb_printf(&o, "tvm.%s", rest);
      result = arena_strdup(&c->scratch, o.data);
      sb_free(&o);
    }
  } else {
    StrBuf o;
    sb_init(&o);
    sb_printf(&o, "%s%s", ns, rest);
    result = arena_strdup(&c->scratch, o.data);
    sb_free(&o);
  }
  sb_free(&sb);
  /* TVMScript's second spellings of one builtin */
  static const char *const aliases[][2] = {{"T.buffer", "T.Buffer"}, {"T.boolean", "T.bool"}};
  for (size_t i = 0; result && i < sizeof aliases / sizeof aliases[0]; i++)
    if (!strcmp(result, aliases[i][0])) result = aliases[i][1];
  return result;
}

/* ------------------------------------------------------- argument helpers */

bool elab_dtype_arg(ElabCtx *c, const Ast *e, DType *out) {
  if (!e) return false;
  if (e->kind == AST_STR) {
    if (dt_parse(e->str, out)) return true;
    diag_error(c->diag, e->span, "unknown dtype '%s'", e->str);
    return false;
  }
  if (e->kind == AST_NONE) {
    *out = dt_void;
    return true;
  }
  const char *cn = elab_canonical_name(c, e);
  if (cn && !strncmp(cn, "T.", 2) && dt_parse(cn + 2, out)) return true;
  if (cn && !strcmp(cn, "T.handle")) {
    *out = dt_handle;
    return true;
  }
  diag_error(c->diag, e->span, "expected a dtype such as \"float32\"");
  return false;
}

bool elab_ptr_type(ElabCtx *c, const Ast *e, DType *elem, const char **scope) {
  const Ast *callee = e && (e->kind == AST_CALL || e->kind == AST_SUBSCRIPT) ? e->a : NULL;
  const char *cn = callee ? elab_canonical_name(c, callee) : NULL;
  if (!cn || (strcmp(cn, "T.handle") && strcmp(cn, "T.Ptr"))) return false;
  const Ast *dt = e->kind == AST_SUBSCRIPT ? e->b : elab_posarg(e, 0);
  const Ast *sc = e->kind == AST_SUBSCRIPT ? NULL : elab_posarg(e, 1);
  if (e->kind == AST_CALL && !dt) dt = elab_kwarg(e, "dtype");
  if (e->kind == AST_CALL && !sc) sc = elab_kwarg(e, "storage_scope");
  if (dt && dt->kind == AST_TUPLE && dt->list.len == 2) { /* T.Ptr[T.float32, "shared"] */
    sc = dt->list.items[1];
    dt = dt->list.items[0];
  }
  *elem = dt_void;
  *scope = NULL;
  if (dt && !elab_dtype_arg(c, dt, elem)) return false;
  if (sc) {
    if (sc->kind != AST_STR) {
      diag_error(c->diag, sc->span, "a storage scope must be a string such as \"shared\"");
      return false;
    }
    *scope = ir_strdup(c->h, sc->str);
  }
  return true;
}

const Ast *elab_kwarg(const Ast *call, const char *name) {
  if (!call || call->kind != AST_CALL) return NULL;
  for (int i = 0; i < call->list.len; i++) {
    const Ast *a = call->list.items[i];
    if (a->kind == AST_KEYWORD && a->name && !strcmp(a->name, name)) return a->a;
  }
  return NULL;
}

const Ast *elab_arg(const Ast *call, int i, const char *name) {
  const Ast *a = elab_posarg(call, i);
  return a ? a : elab_kwarg(call, name);
}

const Ast *elab_posarg(const Ast *call, int i) {
  if (!call || call->kind != AST_CALL) return NULL;
  int k = 0;
  for (int j = 0; j < call->list.len; j++) {
    const Ast *a = call->list.items[j];
    if (a->kind == AST_KEYWORD) continue;
    if (k++ == i) return a;
  }
  return NULL;
}

int elab_num_posargs(const Ast *call) {
  if (!call || call->kind != AST_CALL) return 0;
  int k = 0;
  for (int j = 0; j < call->list.len; j++)
    if (call->list.items[j]->kind != AST_KEYWORD) k++;
  return k;
}

bool elab_check_kwargs(ElabCtx *c, const Ast *call, const char *const *allowed) {
  bool ok = true;
  const char *fname = elab_canonical_name(c, call->a);
  if (!fname) fname = elab_span_text(c, call->a->span);
  for (int j = 0; j < call->list.len; j++) {
    const Ast *a = call->list.items[j];
    if (a->kind == AST_STARRED) {
      diag_error(c->diag, a->span, "*arguments are not supported in a call to %s", fname);
      ok = false;
      continue;
    }
    if (a->kind != AST_KEYWORD) continue;
    bool found = false;
    for (int k = 0; allowed && allowed[k]; k++)
      if (!strcmp(allowed[k], a->name)) found = true;
    if (!found) {
      diag_error(c->diag, a->span, "unexpected keyword argument '%s' to %s", a->name, fname);
      ok = false;
    }
  }
  return ok;
}

/* --------------------------------------------------------------- imports */

/* `import tvm`, `import numpy as np`, `import tvm.testing`. */
static void elab_import(ElabCtx *c, const Ast *st) {
  for (int i = 0; i < st->list.len; i++) {
    const Ast *n = st->list.items[i];
    StrBuf sb;
    sb_init(&sb);
    dotted(n, &sb);
    const char *alias = n->name2;
    if (alias) {
      const char *ns = !strcmp(sb.data, "tvm")            ? "tvm"
                       : !strcmp(sb.data, "numpy")        ? "np"
                       : !strcmp(sb.data, "tvm.tir")      ? "T"
                       : !strcmp(sb.data, "tvm.relax")    ? "R"
                       : !strcmp(sb.data, "tvm.te")       ? "te"
                       : !strcmp(sb.data, "tvm.script.tir") ? "T"
                                                          : sb.data;
      elab_define(c, alias, SYM_NAMESPACE, arena_strdup(&c->scratch, ns), n->span);
    } else {
      /* `import a.b` binds `a` */
      const Ast *root = chain_root(n);
      if (root) {
        const char *ns = !strcmp(root->name, "numpy") ? "np" : root->name;
        elab_define(c, root->name, SYM_NAMESPACE, arena_strdup(&c->scratch, ns), root->span);
      }
    }
    sb_free(&sb);
  }
}

/* `from tvm.script import tir as T`, `from tvm import te`. */
static void elab_from_import(ElabCtx *c, const Ast *st) {
  StrBuf mod;
  sb_init(&mod);
  dotted(st->a, &mod);
  for (int i = 0; i < st->list.len; i++) {
    const Ast *n = st->list.items[i];
    const char *what = n->name ? n->name : "";
    const char *bind = n->name2 ? n->name2 : what;
    const char *ns = NULL;
    if (!strncmp(mod.data, "tvm", 3)) {
      if (!strcmp(what, "tir") || !strcmp(what, "tirx")) ns = "T";
      else if (!strcmp(what, "relax")) ns = "R";
      else if (!strcmp(what, "ir")) ns = "I";
      else if (!strcmp(what, "te")) ns = "te";
      else if (!strcmp(what, "ir_module")) ns = "I.ir_module";
    }
    if (!ns) {
      StrBuf full;
      sb_init(&full);
      sb_printf(&full, "%s.%s", mod.data, what);
      elab_define(c, bind, SYM_NAMESPACE, arena_strdup(&c->scratch, full.data), n->span);
      sb_free(&full);
    } else {
      elab_define(c, bind, SYM_NAMESPACE, (void *)ns, n->span);
    }
  }
  sb_free(&mod);
}

/* ------------------------------------------------------------ decorators */

typedef enum DecoKind { DECO_NONE, DECO_PRIM_FUNC, DECO_RELAX, DECO_TE, DECO_MODULE } DecoKind;

typedef struct Deco {
  DecoKind kind;
  bool is_private;
  bool is_pure;
} Deco;

static const char *const decorator_names[] = {"T.prim_func", "R.function", "te.prim_func",
                                              "I.ir_module", NULL};

static bool bool_kwarg(ElabCtx *c, const Ast *kw, bool *out) {
  if (kw->a && (kw->a->kind == AST_TRUE || kw->a->kind == AST_FALSE)) {
    *out = kw->a->kind == AST_TRUE;
    return true;
  }
  diag_error(c->diag, kw->a ? kw->a->span : kw->span, "'%s' expects True or False", kw->name);
  return false;
}

/* Classifies one decorator; reports unknown ones.  DECO_NONE after errors. */
static Deco parse_decorator(ElabCtx *c, const Ast *d) {
  Deco r = {DECO_NONE, false, true};
  const Ast *callee = d->kind == AST_CALL ? d->a : d;
  const char *cn = elab_canonical_name(c, callee);
  /* `from tvm.script import ir_module` binds the decorator itself */
  if (cn && !strcmp(cn, "I.ir_module")) r.kind = DECO_MODULE;
  else if (cn && !strcmp(cn, "T.prim_func")) r.kind = DECO_PRIM_FUNC;
  else if (cn && !strcmp(cn, "R.function")) r.kind = DECO_RELAX;
  else if (cn && !strcmp(cn, "te.prim_func")) r.kind = DECO_TE;
  if (r.kind == DECO_NONE) {
    const char *written = elab_span_text(c, callee->span);
    const char *q = cn ? cn : written;
    int ndeco = 0;
    while (decorator_names[ndeco]) ndeco++;
    const char *best = closest_name(q, decorator_names, ndeco, 4);
    if (best)
      diag_error(c->diag, callee->span, "unknown decorator '%s'; did you mean '%s'?", written,
                 best);
    else
      diag_error(c->diag, callee->span, "unknown decorator '%s'", written);
    return r;
  }
  if (d->kind != AST_CALL) return r;
  static const char *const prim_kw[] = {"private", "check_well_formed", "s_tir", NULL};
  static const char *const relax_kw[] = {"private", "pure", "check_well_formed", NULL};
  static const char *const module_kw[] = {"s_tir", "check_well_formed", NULL};
  static const char *const none_kw[] = {NULL};
  const char *const *allowed = r.kind == DECO_PRIM_FUNC ? prim_kw
                               : r.kind == DECO_RELAX   ? relax_kw
                               : r.kind == DECO_MODULE  ? module_kw
                                                        : none_kw;
  if (!elab_check_kwargs(c, d, allowed)) {
    r.kind = DECO_NONE;
    return r;
  }
  if (elab_num_posargs(d) > 0) {
    diag_error(c->diag, elab_posarg(d, 0)->span, "decorator %s takes only keyword arguments", cn);
    r.kind = DECO_NONE;
    return r;
  }
  for (int i = 0; i < d->list.len; i++) {
    const Ast *kw = d->list.items[i];
    bool v;
    if (!bool_kwarg(c, kw, &v)) {
      r.kind = DECO_NONE;
      return r;
    }
    if (!strcmp(kw->name, "private")) r.is_private = v;
    else if (!strcmp(kw->name, "pure")) r.is_pure = v;
  }
  return r;
}

/* ---------------------------------------------------- module construction */

/* A decorated def: its one known decorator (errors for several or unknown). */
static Deco def_decorator(ElabCtx *c, const Ast *def) {
  Deco r = {DECO_NONE, false, true};
  for (int i = 0; i < def->decorators.len; i++) {
    Deco d = parse_decorator(c, def->decorators.items[i]);
    if (d.kind == DECO_NONE) return (Deco){DECO_NONE, false, true};
    if (d.kind == DECO_MODULE) {
      diag_error(c->diag, def->decorators.items[i]->span,
                 "@I.ir_module decorates a class, not a function");
      return (Deco){DECO_NONE, false, true};
    }
    if (r.kind != DECO_NONE) {
      diag_error(c->diag, def->decorators.items[i]->span,
                 "function '%s' has more than one function decorator", def->name);
      return (Deco){DECO_NONE, false, true};
    }
    r = d;
  }
  return r;
}

static void elab_function(ElabCtx *c, const Ast *def, Deco d) {
  switch (d.kind) {
  case DECO_PRIM_FUNC: {
    TirFunc *f = elab_prim_func(c, def, d.is_private);
    if (f) ir_module_add_tir(c->mod, def->name, f);
    break;
  }
  case DECO_TE: {
    TirFunc *f = elab_te_func(c, def);
    if (f) ir_module_add_tir(c->mod, def->name, f);
    break;
  }
  case DECO_RELAX: {
    RxFunc *f = elab_relax_func(c, def, d.is_private, d.is_pure);
    if (f) ir_module_add_relax(c->mod, def->name, f);
    break;
  }
  default:
    break;
  }
}

/* Elaborates the functions of a module (class body or top-level defs); the
 * names are all defined first so that functions can refer to later ones. */
static void elab_functions(ElabCtx *c, const Ast **defs, const Deco *decos, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++)
      if (!strcmp(defs[i]->name, defs[j]->name)) {
        diag_error(c->diag, def_name_span(defs[i]), "function '%s' is defined twice", defs[i]->name);
        break;
      }
    elab_define(c, defs[i]->name, SYM_GLOBAL_FUNC, (void *)defs[i], defs[i]->span);
  }
  for (int i = 0; i < n; i++) {
    if (decos[i].kind == DECO_NONE) continue;
    elab_push_scope(c);
    elab_function(c, defs[i], decos[i]);
    elab_pop_scope(c);
  }
}

static bool is_module_class(ElabCtx *c, const Ast *cls) {
  for (int i = 0; i < cls->decorators.len; i++) {
    const Ast *d = cls->decorators.items[i];
    const char *cn = elab_canonical_name(c, d->kind == AST_CALL ? d->a : d);
    if (cn && !strcmp(cn, "I.ir_module")) return true;
  }
  return false;
}

static bool module_attrs_name(ElabCtx *c, const Ast *call) {
  const char *cn = elab_canonical_name(c, call->a);
  return cn && !strcmp(cn, "I.module_attrs");
}

/* `I.module_attrs({"key": value})` in the class body: the module's attributes. */
static void module_attrs(ElabCtx *c, const Ast *call) {
  const Ast *d = elab_posarg(call, 0);
  if (!d || d->kind != AST_DICT || call->list.len != 1) {
    diag_error(c->diag, call->span, "I.module_attrs takes one dict, e.g. I.module_attrs({\"key\": 1})");
    return;
  }
  if (c->mod->attrs) {
    diag_error(c->diag, call->span, "I.module_attrs is given twice");
    return;
  }
  c->mod->attrs = elab_tir_attr_value(c, d);
}

static void elab_class(ElabCtx *c, const Ast *cls) {
  for (int i = 0; i < cls->decorators.len; i++) parse_decorator(c, cls->decorators.items[i]);
  elab_define(c, cls->name, SYM_MODULE, NULL, cls->span);
  c->module_name = cls->name;
  int n = 0;
  const Ast **defs = arena_alloc(&c->scratch, (size_t)(cls->body.len + 1) * sizeof *defs);
  Deco *decos = arena_alloc(&c->scratch, (size_t)(cls->body.len + 1) * sizeof *decos);
  for (int i = 0; i < cls->body.len; i++) {
    const Ast *st = cls->body.items[i];
    if (st->kind == AST_FUNCDEF) {
      if (st->decorators.len == 0) {
        diag_error(c->diag, def_name_span(st),
                   "function '%s' in an ir_module class needs a decorator such as @T.prim_func "
                   "or @R.function",
                   st->name);
        decos[n].kind = DECO_NONE;
      } else {
        decos[n] = def_decorator(c, st);
      }
      defs[n++] = st;
    } else if (st->kind == AST_PASS || st->kind == AST_ERROR ||
               (st->kind == AST_EXPR_STMT && st->a && st->a->kind == AST_STR)) {
      continue; /* `pass`, docstrings */
    } else if (st->kind == AST_EXPR_STMT && st->a->kind == AST_CALL && module_attrs_name(c, st->a)) {
      module_attrs(c, st->a);
    } else {
      diag_error(c->diag, st->span,
                 "only decorated function definitions may appear in an ir_module class");
    }
  }
  elab_functions(c, defs, decos, n);
}

static void predefine_namespaces(ElabCtx *c) {
  static const char *const ns[] = {"T", "R", "I", "te", "tvm"};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
    elab_define(c, ns[i], SYM_NAMESPACE, (void *)ns[i], span_none);
  /* TVM's tests write `tir.call_tir(...)` after `from tvm import tir` */
  elab_define(c, "tir", SYM_NAMESPACE, (void *)"T", span_none);
}

IrModule *elab_module(const AstFile *file, DiagCtx *diag) {
  tvs_stdlib_install(); /* legalizing what we elaborate needs the operator library */
  /* every later stage recurses over the program's nesting: bound it once */
  const Ast *deep = ast_too_deep(file->module, TVS_MAX_NESTING, NULL);
  if (deep) {
    diag_error(diag, deep->span, "program too deeply nested: more than %d levels of nested expressions, "
               "statements and bindings (docs/checks.md)", TVS_MAX_NESTING);
    return NULL;
  }
  ElabCtx c;
  memset(&c, 0, sizeof c);
  c.diag = diag;
  c.file = file;
  arena_init(&c.scratch);
  int nerr0 = diag->nerr;
  elab_push_scope(&c);
  predefine_namespaces(&c);

  const Ast *mod = file->module;
  const AstList *body = &mod->body;
  /* First pass: imports (anywhere at top level), then what the file holds. */
  for (int i = 0; i < body->len; i++) {
    const Ast *st = body->items[i];
    if (st->kind == AST_IMPORT) elab_import(&c, st);
    else if (st->kind == AST_FROM_IMPORT) elab_from_import(&c, st);
  }
  const Ast *module_class = NULL;
  int ndefs = 0;
  const Ast **defs = arena_alloc(&c.scratch, (size_t)(body->len + 1) * sizeof *defs);
  Deco *decos = arena_alloc(&c.scratch, (size_t)(body->len + 1) * sizeof *decos);
  for (int i = 0; i < body->len; i++) {
    const Ast *st = body->items[i];
    if (st->kind == AST_CLASS) {
      if (!is_module_class(&c, st)) {
        if (st->decorators.len) {
          for (int k = 0; k < st->decorators.len; k++)
            parse_decorator(&c, st->decorators.items[k]);
        }
        continue; /* a plain class is not part of the module */
      }
      if (module_class) {
        diag_error(diag, def_name_span(st),
                   "a file holds at most one ir_module class; '%s' is the second (the first is "
                   "'%s')",
                   st->name, module_class->name);
        continue;
      }
      module_class = st;
    } else if (st->kind == AST_FUNCDEF && st->decorators.len > 0) {
      Deco d = def_decorator(&c, st);
      decos[ndefs] = d;
      defs[ndefs++] = st;
    }
    /* Anything else (schedule scripts, undecorated helpers) is for later stages. */
  }
  if (module_class && ndefs > 0) {
    diag_error(diag, def_name_span(defs[0]),
               "top-level function '%s' cannot be combined with the ir_module class '%s' in one "
               "file; move it into the class",
               defs[0]->name, module_class->name);
  }
  c.mod = ir_module_new(module_class ? module_class->name : "Module");
  c.h = c.mod->heap;
  c.mod->implicit = module_class == NULL;
  if (module_class) {
    elab_class(&c, module_class);
  } else {
    c.module_name = NULL;
    elab_functions(&c, defs, decos, ndefs);
  }
  arena_free(&c.scratch);
  pv_free(&c.poisoned);
  if (diag->nerr > nerr0) {
    ir_module_free(c.mod);
    return NULL;
  }
  return c.mod;
}

IrModule *tvs_load_module(const SourceFile *src, DiagCtx *diag) {
  int nerr0 = diag->nerr;
  AstFile *f = parse_file(src, diag);
  IrModule *m = NULL;
  if (diag->nerr == nerr0) m = elab_module(f, diag);
  ast_file_free(f);
  return m;
}
