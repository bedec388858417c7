/* header.c - the C header `tvsc -H` writes: one prototype per compiled
 * prim_func or graph function for its direct entry (codegen.h's calling
 * convention: buffer data pointers - for a graph function its inputs, then its
 * outputs - then the symbolic vars bound from the buffers, then the scalars),
 * the shapes as comments, and the packed entry's symbol.  Self-contained: it
 * includes only <stdint.h>.  Each parameter sits on its own line with a
 * comment of a fixed form ("tensor param I: ...", "symbolic dim N = A.shape[D]",
 * "scalar param I: ...") so that tools can read it back. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_internal.h"
#include "ir/printer.h"
#include "ir/visit.h"
#include "base/util.h"

static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool",
    "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "main",
    "bool", "true", "false", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t"};

static bool is_c_ident(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
  return true;
}

static bool is_reserved(const char *s) {
  for (size_t i = 0; i < sizeof c_keywords / sizeof c_keywords[0]; i++)
    if (!strcmp(c_keywords[i], s)) return true;
  return false;
}

bool drv_needs_alias(const char *name) { return is_c_ident(name) && is_reserved(name); }

const char *drv_direct_c_name(const char *name, char *buf, size_t cap) {
  snprintf(buf, cap, drv_needs_alias(name) ? "tvs_direct_%s" : "%s", name);
  return buf;
}

/* The C element type a buffer's data pointer points to. */
static const char *c_elem_type(DType t) {
  if (t.lanes != 1) return "void";
  switch (t.code) {
    case DT_INT:
      return t.bits == 8 ? "int8_t" : t.bits == 16 ? "int16_t" : t.bits == 32 ? "int32_t" : "int64_t";
    case DT_UINT:
      return t.bits == 8 ? "uint8_t" : t.bits == 16 ? "uint16_t" : t.bits == 32 ? "uint32_t" : "uint64_t";
    case DT_FLOAT:
      return t.bits == 32 ? "float" : t.bits == 64 ? "double" : t.bits == 16 ? "uint16_t" : "void";
    case DT_BFLOAT: return "uint16_t";
    case DT_BOOL: return "uint8_t";
    default: return "void";
  }
}

/* The ABI type of a scalar parameter (codegen.h: ints/bool int64, floats double). */
static const char *c_scalar_type(DType t) {
  if (dt_is_float(t)) return "double";
  if (dt_is_handle(t)) return "void *";
  return "int64_t";
}

/* A dimension as text: its constant, its var's name, or the expression. */
static void put_dim(StrBuf *sb, const TirExpr *e) {
  int64_t v;
  if (tir_is_const_int(e, &v)) sb_printf(sb, "%lld", (long long)v);
  else if (e->kind == TIR_VAR) sb_puts(sb, e->var->name);
  else print_tir_expr(sb, e);
}

/* A symbolic var bound from a buffer, and where it first appears. */
typedef struct Bind {
  const TirVar *var;
  const char *buf;   /* the buffer's name */
  const char *what;  /* "shape", "strides", "elem_offset" */
  int dim;
} Bind;

typedef struct Binds {
  Bind *items;
  int n, cap;
} Binds;

static void add_bind(Binds *b, const TirFunc *f, const TirExpr *e, const char *buf, const char *what, int dim) {
  if (!e || e->kind != TIR_VAR) return;
  for (int i = 0; i < b->n; i++)
    if (b->items[i].var == e->var) return;
  for (int i = 0; i < f->nparams; i++) /* scalar params are passed as scalars */
    if ((!f->buffer_map || !f->buffer_map[i]) && f->params[i] == e->var) return;
  VEC_PUSH(b->items, b->n, b->cap, ((Bind){e->var, buf, what, dim}));
}

/* Which data vars the body stores to (the outputs, for the comments). */
typedef struct Writes {
  const TirVar **vars;
  int n, cap;
} Writes;

static bool note_store(TirVisitor *v, const TirStmt *s) {
  if (s->kind == TIR_S_STORE) {
    Writes *w = v->ctx;
    VEC_PUSH(w->vars, w->n, w->cap, s->store.buf->data);
  }
  return true;
}

static bool is_written(const Writes *w, const TirVar *data) {
  for (int i = 0; i < w->n; i++)
    if (w->vars[i] == data) return true;
  return false;
}

/* A C parameter name: the IR name unless it is not an identifier, a keyword
 * or already used (then a numbered variant). */
static char *param_c_name(const char *name, char **used, int nused, int index) {
  char *s = is_c_ident(name) && !is_reserved(name) ? xstrdup(name) : xasprintf("arg%d", index);
  for (int i = 0; i < nused; i++)
    if (!strcmp(used[i], s)) {
      char *t = xasprintf("%s_%d", s, index);
      free(s);
      return t;
    }
  return s;
}

/* The symbolic dims that become extra C parameters, and the buffers the body
 * stores to. */
static void collect_binds(const TirFunc *f, Binds *b, Writes *w) {
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *buf = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!buf) continue;
    for (int d = 0; d < buf->ndim; d++) add_bind(b, f, buf->shape[d], buf->name, "shape", d);
    for (int d = 0; d < buf->nstrides; d++) add_bind(b, f, buf->strides[d], buf->name, "strides", d);
    add_bind(b, f, buf->elem_offset, buf->name, "elem_offset", -1);
  }
  TirVisitor v;
  memset(&v, 0, sizeof v);
  v.pre_stmt = note_store;
  v.ctx = w;
  tir_visit_stmt(&v, f->body);
}

/* The comment above a function's prototypes: its entries. */
static void put_entry_comment(StrBuf *sb, const char *name, const char *cname, int nout) {
  sb_printf(sb, "/* %s: packed entry __tvs_packed_%s (tvs_module_get_function(mod, \"%s\"))", name,
            name, name);
  if (strcmp(cname, name)) sb_printf(sb, ";\n * direct entry exported as %s (also as %s)", cname, name);
  if (nout > 0)
    sb_printf(sb, ";\n * graph function: the last %d tensor%s %s its output%s, allocated by the caller", nout,
              nout == 1 ? "" : "s", nout == 1 ? "is" : "are", nout == 1 ? "" : "s");
  sb_puts(sb, " */\n");
}

/* nout > 0: a graph function's signature (codegen.h), whose last nout
 * tensors are its outputs. */
static void emit_func(StrBuf *sb, const char *name, const TirFunc *f, int nout) {
  Binds b = {NULL, 0, 0};
  Writes w = {NULL, 0, 0};
  collect_binds(f, &b, &w);
  char cname[256];
  drv_direct_c_name(name, cname, sizeof cname);
  put_entry_comment(sb, name, cname, nout);
  if (!is_c_ident(name)) {
    sb_printf(sb, "/* (no direct prototype: '%s' is not a C identifier) */\n\n", name);
    free(b.items);
    free(w.vars);
    return;
  }
  sb_printf(sb, "int32_t %s(", cname);
  int total = f->nparams + b.n;
  if (total == 0) sb_puts(sb, "void");
  char **used = xcalloc((size_t)(total ? total : 1), sizeof *used);
  int nused = 0, k = 0;
  /* One line per C parameter: "    TYPE NAME, / * comment * /". */
#define PARAM_LINE(ctype, star, cmt_fmt, ...)                                                  \
  do {                                                                                         \
    k++;                                                                                       \
    sb_printf(sb, "\n    %s %s%s%s /* " cmt_fmt " */", ctype, star, used[nused - 1],           \
              k == total ? ");" : ",", __VA_ARGS__);                                           \
  } while (0)
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *buf = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!buf) continue;
    used[nused] = param_c_name(buf->name, used, nused, i);
    nused++;
    StrBuf shape;
    sb_init(&shape);
    char dts[DT_STR_MAX];
    sb_printf(&shape, "%s[", dt_str(buf->dtype, dts));
    for (int d = 0; d < buf->ndim; d++) {
      if (d) sb_puts(&shape, ", ");
      put_dim(&shape, buf->shape[d]);
    }
    sb_puts(&shape, "]");
    const char *elem = c_elem_type(buf->dtype);
    const char *note = buf->dtype.code == DT_FLOAT && buf->dtype.bits == 16 ? ", IEEE half bits"
                       : buf->dtype.code == DT_BFLOAT                       ? ", bfloat16 bits"
                       : buf->dtype.code == DT_BOOL                         ? ", one byte each"
                                                                            : "";
    PARAM_LINE(elem, "*", "tensor param %d: %s%s%s", i, shape.data, note,
               i >= f->nparams - nout ? ", output" : is_written(&w, buf->data) ? ", written" : "");
    sb_free(&shape);
  }
  for (int j = 0; j < b.n; j++) {
    used[nused] = param_c_name(b.items[j].var->name, used, nused, f->nparams + j);
    nused++;
    if (b.items[j].dim >= 0)
      PARAM_LINE("int64_t", "", "symbolic dim %s = %s.%s[%d]", b.items[j].var->name, b.items[j].buf,
                 b.items[j].what, b.items[j].dim);
    else
      PARAM_LINE("int64_t", "", "symbolic dim %s = %s.%s", b.items[j].var->name, b.items[j].buf,
                 b.items[j].what);
  }
  for (int i = 0; i < f->nparams; i++) {
    if (f->buffer_map && f->buffer_map[i]) continue;
    used[nused] = param_c_name(f->params[i]->name, used, nused, i);
    nused++;
    char dts[DT_STR_MAX];
    const char *ct = c_scalar_type(f->params[i]->dtype);
    bool ptr = dt_is_handle(f->params[i]->dtype);
    PARAM_LINE(ptr ? "void" : ct, ptr ? "*" : "", "scalar param %d: %s", i,
               dt_str(f->params[i]->dtype, dts));
  }
#undef PARAM_LINE
  if (total == 0) sb_puts(sb, ");");
  sb_printf(sb,
            "\nint32_t __tvs_packed_%s(void *args, int *type_codes, int num_args, void *ret,\n"
            "    int *ret_type_code, void *resource_handle);\n\n",
            name);
  for (int i = 0; i < nused; i++) free(used[i]);
  free(used);
  free(b.items);
  free(w.vars);
}

/* TVSC_<STEM>_H from the header's file name. */
static char *guard_name(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "TVSC_");
  for (const char *p = base; *p; p++)
    sb_putc(&sb, isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_');
  return sb_take(&sb);
}

char *drv_header_text(const IrModule *low, const char *header_path, const char *sources) {
  StrBuf sb;
  sb_init(&sb);
  const char *base = strrchr(header_path, '/');
  base = base ? base + 1 : header_path;
  char *guard = guard_name(header_path);
  sb_printf(&sb,
            "/* %s - C interface of the functions tvsc compiled from %s.\n"
            " * Generated by tvsc " DRV_VERSION "; do not edit.\n"
            " *\n"
            " * Each function F has two entries in the compiled module:\n"
            " *   F(...)          the direct entry declared below: one data pointer per\n"
            " *                   tensor (compact, row-major), then the symbolic dims,\n"
            " *                   then the scalars; no argument checks.  Scalars are\n"
            " *                   passed widened, as the packed convention carries them\n"
            " *                   (TVSValue, like TVM's): integers as int64_t, floats\n"
            " *                   as double; the entry narrows them to the dtype each\n"
            " *                   parameter's comment names, so one value passes the\n"
            " *                   same way through both entries.\n"
            " *   __tvs_packed_F  the packed entry (TVSPackedCFunc in tvs_runtime.h):\n"
            " *                   DLPack tensors, argument checks; reach it through\n"
            " *                   tvs_module_load + tvs_module_get_function(mod, \"F\").\n"
            " * Both return 0, or -1 with the reason in tvs_get_last_error(). */\n"
            "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n"
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
            base, sources, guard, guard);
  IrHeap *h = ir_heap_new(); /* graph function signatures */
  for (int i = 0; i < low->nfuncs; i++) {
    const IrGlobal *g = &low->funcs[i];
    if (g->kind == IR_FUNC_TIR && g->tir) emit_func(&sb, g->name, g->tir, 0);
    if (g->kind != IR_FUNC_RELAX || !g->rx) continue;
    DiagCtx quiet; /* codegen reports these; a header just leaves them out */
    diag_init(&quiet, NULL);
    int nout = 0;
    TirFunc *sig = cg_graph_signature(h, g->name, g->rx, &nout, &quiet);
    if (sig) emit_func(&sb, g->name, sig, nout);
    diag_free(&quiet);
  }
  ir_heap_release(h);
  sb_printf(&sb, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);
  free(guard);
  return sb_take(&sb);
}
