/* tensor_intrin.c - the process-wide registry of tensor intrinsics, the
 * built-in ones (embedded stdlib/intrin/<name>.tvs) and the script hook for
 * `T.TensorIntrin.register(name, desc, impl)`. */
#include <stdlib.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "lang/elab.h"
#include "base/util.h"
#include "parser/parser.h"
#include "sched/tensor_intrin.h"

static TensorIntrin *intrins;
static int nintrins, capintrins;
static bool builtins_loaded;
static bool loading_builtins;
static SourceFile **builtin_srcs; /* spans of built-in nodes point here */
static int nbuiltin_srcs, capbuiltin_srcs;

static TensorIntrin *find(const char *name) {
  for (int i = 0; i < nintrins; i++)
    if (!strcmp(intrins[i].name, name)) return &intrins[i];
  return NULL;
}

static void load_builtins(void);

void tensor_intrin_clear(void) {
  for (int i = 0; i < nintrins; i++) {
    free(intrins[i].name);
    ir_module_free(intrins[i].owner);
  }
  free(intrins);
  intrins = NULL;
  nintrins = capintrins = 0;
  for (int i = 0; i < nbuiltin_srcs; i++) src_free(builtin_srcs[i]);
  free(builtin_srcs);
  builtin_srcs = NULL;
  nbuiltin_srcs = capbuiltin_srcs = 0;
  builtins_loaded = false;
}

/* Frees the registry at exit so leak checkers see a clean process. */
static void clear_at_exit(void) { tensor_intrin_clear(); }

static const TirFunc *prim_func(const IrModule *m, const char *name) {
  const IrGlobal *g = ir_module_lookup(m, name);
  return g && g->kind == IR_FUNC_TIR ? g->tir : NULL;
}

/* The root block realize of a function body, or NULL. */
static const TirStmt *root_realize(const TirFunc *f) {
  return f->body && f->body->kind == TIR_S_BLOCK_REALIZE ? f->body : NULL;
}

int tensor_intrin_register(const char *name, const IrModule *m, const char *desc_name,
                           const char *impl_name, bool override, DiagCtx *diag, Span sp) {
  if (!builtins_loaded && !loading_builtins) load_builtins();
  const TirFunc *desc = prim_func(m, desc_name), *impl = prim_func(m, impl_name);
  const char *missing = !desc ? desc_name : !impl ? impl_name : NULL;
  if (missing) {
    diag_error(diag, sp, "TensorIntrin.register: the module has no prim_func named '%s'", missing);
    return -1;
  }
  if (desc->nparams != impl->nparams) {
    diag_error(diag, sp,
               "TensorIntrin.register: the description '%s' has %d parameters but the implementation "
               "'%s' has %d",
               desc_name, desc->nparams, impl_name, impl->nparams);
    return -1;
  }
  for (int i = 0; i < desc->nparams; i++) {
    const TirBuffer *a = desc->buffer_map[i], *b = impl->buffer_map[i];
    if (!a || !b) {
      diag_error(diag, sp, "TensorIntrin.register: parameter %d of '%s' and '%s' must be a buffer", i,
                 desc_name, impl_name);
      return -1;
    }
    if (!dt_eq(a->dtype, b->dtype) || a->ndim != b->ndim) {
      diag_error(diag, sp,
                 "TensorIntrin.register: buffer '%s' of '%s' and buffer '%s' of '%s' differ in dtype "
                 "or rank",
                 a->name, desc_name, b->name, impl_name);
      return -1;
    }
  }
  const char *noroot = !root_realize(desc) ? desc_name : !root_realize(impl) ? impl_name : NULL;
  if (noroot) {
    diag_error(diag, sp,
               "TensorIntrin.register: the body of '%s' must be a root block (`with T.block(\"root\"):` "
               "with T.reads/T.writes)",
               noroot);
    return -1;
  }
  TensorIntrin *old = find(name);
  if (old) {
    bool same = seq_tir_func(old->desc, desc, NULL, NULL) && seq_tir_func(old->impl, impl, NULL, NULL);
    if (same) return 0;
    if (!override) {
      diag_error(diag, sp,
                 "TensorIntrin.register: a different tensor intrinsic named '%s' is already "
                 "registered (pass override=True to replace it)",
                 name);
      return -1;
    }
    ir_module_free(old->owner);
    old->owner = ir_module_copy(m);
    old->desc = (TirFunc *)desc;
    old->impl = (TirFunc *)impl;
    return 0;
  }
  if (!intrins) atexit(clear_at_exit);
  TensorIntrin in = {xstrdup(name), (TirFunc *)desc, (TirFunc *)impl, ir_module_copy(m)};
  VEC_PUSH(intrins, nintrins, capintrins, in);
  return 0;
}

const TensorIntrin *tensor_intrin_get(const char *name) {
  if (!builtins_loaded) load_builtins();
  return find(name);
}

const TensorIntrin *tensor_intrin_at(int i) {
  if (!builtins_loaded) load_builtins();
  return i >= 0 && i < nintrins ? &intrins[i] : NULL;
}

/* -------------------------------------------------------- the script hook */

bool tensor_intrin_is_register_call(const Ast *callee) {
  Arena a;
  arena_init(&a);
  const char *d = ast_dotted_name(&a, callee);
  bool r = d && (!strcmp(d, "T.TensorIntrin.register") || !strcmp(d, "tir.TensorIntrin.register") ||
                 !strcmp(d, "tvm.tir.TensorIntrin.register") || !strcmp(d, "TensorIntrin.register"));
  arena_free(&a);
  return r;
}

/* A function argument: `name` or `Module["name"]`. */
static const char *func_arg(const Ast *e) {
  if (e->kind == AST_NAME) return e->name;
  if (e->kind == AST_SUBSCRIPT && e->b->kind == AST_STR) return e->b->str;
  return NULL;
}

int tensor_intrin_register_call(const IrModule *m, const Ast *call, DiagCtx *diag) {
  static const char *const pnames[] = {"name", "desc", "impl", "override"};
  const Ast *args[4] = {0};
  int npos = 0;
  for (int i = 0; i < call->list.len; i++) {
    const Ast *a = call->list.items[i];
    if (a->kind == AST_KEYWORD) {
      int k = -1;
      for (int j = 0; j < 4; j++)
        if (a->name && !strcmp(a->name, pnames[j])) k = j;
      if (k < 0 || args[k]) {
        diag_error(diag, a->span, "TensorIntrin.register: unexpected keyword argument '%s'",
                   a->name ? a->name : "**");
        return -1;
      }
      args[k] = a->a;
    } else if (npos < 4) {
      args[npos++] = a;
    } else {
      diag_error(diag, a->span, "TensorIntrin.register takes at most 4 arguments");
      return -1;
    }
  }
  if (!args[0] || !args[1] || !args[2]) {
    diag_error(diag, call->span, "TensorIntrin.register(name, desc, impl) needs three arguments");
    return -1;
  }
  if (args[0]->kind != AST_STR) {
    diag_error(diag, args[0]->span, "TensorIntrin.register: the name must be a string");
    return -1;
  }
  for (int k = 1; k <= 2; k++)
    if (!func_arg(args[k])) {
      diag_error(diag, args[k]->span, "TensorIntrin.register: '%s' must name a prim_func of the module",
                 pnames[k]);
      return -1;
    }
  bool override = false;
  if (args[3]) {
    if (args[3]->kind != AST_TRUE && args[3]->kind != AST_FALSE) {
      diag_error(diag, args[3]->span, "TensorIntrin.register: override must be True or False");
      return -1;
    }
    override = args[3]->kind == AST_TRUE;
  }
  return tensor_intrin_register(args[0]->str, m, func_arg(args[1]), func_arg(args[2]), override, diag,
                                call->span);
}

/* -------------------------------------------------------------- built-ins */

static void load_builtins(void) {
  builtins_loaded = true;
  loading_builtins = true;
  DiagCtx d;
  diag_init(&d, stderr);
  for (int i = 0; i < tvs_builtin_intrin_count; i++) {
    const TensorIntrinSource *bs = &tvs_builtin_intrin_sources[i];
    SourceFile *src = src_from_string(bs->file, bs->text, strlen(bs->text));
    VEC_PUSH(builtin_srcs, nbuiltin_srcs, capbuiltin_srcs, src);
    AstFile *f = parse_file(src, &d);
    IrModule *m = d.nerr ? NULL : elab_module(f, &d);
    for (int k = 0; m && k < f->module->body.len; k++) {
      const Ast *st = f->module->body.items[k];
      if (st->kind == AST_EXPR_STMT && st->a->kind == AST_CALL && tensor_intrin_is_register_call(st->a->a))
        tensor_intrin_register_call(m, st->a, &d);
    }
    ir_module_free(m);
    ast_file_free(f);
  }
  /* A broken built-in is a build defect: say so once, keep the others. */
  diag_flush(&d);
  diag_free(&d);
  loading_builtins = false;
}
