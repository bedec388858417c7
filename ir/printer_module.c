/* printer_module.c - module-level printing and the printer's shared machinery.
 *
 * Holds print_module / print_options_default, the output helpers (colour,
 * indentation, string and float literals) and the scoped name table that
 * keeps printed names unique among visible vars and buffers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer_internal.h"

PrintOptions print_options_default(void) {
  PrintOptions o = {.color = false, .show_header = true, .indent = 4};
  return o;
}

/* ------------------------------------------------------------ state */

void pr_init(Printer *p, StrBuf *out, const PrintOptions *opt) {
  memset(p, 0, sizeof *p);
  p->out = out;
  p->opt = opt ? *opt : print_options_default();
  if (p->opt.indent < 0) p->opt.indent = 0;
  p->module_name = "Module";
}

void pr_free(Printer *p) {
  pr_pop(p, 0);
  free(p->names);
  free(p->loops);
  p->names = NULL;
  p->loops = NULL;
}

/* ------------------------------------------------------------ output */

void pr_puts(Printer *p, const char *s) { sb_puts(p->out, s); }

void pr_printf(Printer *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(p->out, fmt, ap);
  va_end(ap);
}

void pr_color(Printer *p, PrColor c, const char *s) {
  static const char *codes[] = {"\x1b[35m", "\x1b[34m", "\x1b[36m", "\x1b[32m", "\x1b[90m"};
  if (p->opt.color) sb_puts(p->out, codes[c]);
  sb_puts(p->out, s);
  if (p->opt.color) sb_puts(p->out, "\x1b[0m");
}

void pr_indent(Printer *p) {
  for (int i = 0; i < p->level * p->opt.indent; i++) sb_putc(p->out, ' ');
}

void pr_string_lit(Printer *p, const char *s) {
  StrBuf t;
  sb_init(&t);
  sb_putc(&t, '"');
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    switch (*c) {
      case '"': sb_puts(&t, "\\\""); break;
      case '\\': sb_puts(&t, "\\\\"); break;
      case '\n': sb_puts(&t, "\\n"); break;
      case '\t': sb_puts(&t, "\\t"); break;
      case '\r': sb_puts(&t, "\\r"); break;
      default:
        if (*c < 0x20 || *c == 0x7f) sb_printf(&t, "\\x%02x", *c);
        else sb_putc(&t, (char)*c);
    }
  }
  sb_putc(&t, '"');
  pr_color(p, PRC_STRING, t.data);
  sb_free(&t);
}

/* Python's repr() of a finite double: the shortest digits that read back to
 * the same value, fixed notation for exponents in [-4, 16), else 1e-05 style. */
static void format_pyfloat(char *buf, size_t cap, double v) {
  char tmp[48];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
    if (strtod(tmp, NULL) == v) break;
  }
  /* tmp: [-]d[.ddd]e[+-]xx */
  const char *c = tmp;
  bool neg = *c == '-';
  if (neg) c++;
  char digits[32];
  int nd = 0;
  while (*c && *c != 'e') {
    if (*c != '.') digits[nd++] = *c;
    c++;
  }
  int exp10 = *c == 'e' ? atoi(c + 1) : 0;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = '\0';
  StrBuf s;
  sb_init(&s);
  if (neg) sb_putc(&s, '-');
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 >= 0) {
      for (int i = 0; i <= exp10; i++) sb_putc(&s, i < nd ? digits[i] : '0');
      sb_putc(&s, '.');
      if (nd > exp10 + 1) sb_puts(&s, digits + exp10 + 1);
      else sb_putc(&s, '0');
    } else {
      sb_puts(&s, "0.");
      for (int i = 0; i < -exp10 - 1; i++) sb_putc(&s, '0');
      sb_puts(&s, digits);
    }
  } else {
    sb_putc(&s, digits[0]);
    if (nd > 1) {
      sb_putc(&s, '.');
      sb_puts(&s, digits + 1);
    }
    sb_printf(&s, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  }
  snprintf(buf, cap, "%s", s.data);
  sb_free(&s);
}

void pr_pyfloat(Printer *p, double v) {
  char buf[64];
  if (isnan(v)) snprintf(buf, sizeof buf, "float(\"nan\")");
  else if (isinf(v)) snprintf(buf, sizeof buf, v < 0 ? "float(\"-inf\")" : "float(\"inf\")");
  else format_pyfloat(buf, sizeof buf, v);
  pr_color(p, PRC_NUMBER, buf);
}

/* ------------------------------------------------------------ names */

static const char *const reserved_names[] = {
    "False", "None",   "True",    "and",    "as",     "assert", "async",  "await",
    "break", "class",  "continue", "def",   "del",    "elif",   "else",   "except",
    "finally", "for",  "from",    "global", "if",     "import", "in",     "is",
    "lambda", "nonlocal", "not",  "or",     "pass",   "raise",  "return", "try",
    "while", "with",   "yield",   "T",      "R",      "I",      "range",  "cls",
    "tvm",   "float"};

static bool name_taken(const Printer *p, const char *name) {
  for (size_t i = 0; i < sizeof reserved_names / sizeof reserved_names[0]; i++)
    if (!strcmp(reserved_names[i], name)) return true;
  for (int i = 0; i < p->nnames; i++)
    if (!p->names[i].alias && !strcmp(p->names[i].name, name)) return true;
  return false;
}

/* Makes hint a valid identifier: other characters become '_', a leading
 * digit gets a 'v' in front, and an empty name is "v". */
static char *sanitize(const char *hint) {
  if (!hint || !hint[0]) return xstrdup("v");
  size_t n = strlen(hint);
  char *s = xmalloc(n + 2);
  size_t k = 0;
  if (hint[0] >= '0' && hint[0] <= '9') s[k++] = 'v';
  for (size_t i = 0; i < n; i++) {
    char c = hint[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    s[k++] = ok ? c : '_';
  }
  s[k] = '\0';
  return s;
}

static void push_name(Printer *p, const void *key, char *name, bool alias) {
  VEC_PUSH(p->names, p->nnames, p->capnames, ((PrName){key, name, alias}));
}

int pr_mark(const Printer *p) { return p->nnames; }

void pr_pop(Printer *p, int mark) {
  while (p->nnames > mark) free(p->names[--p->nnames].name);
}

const char *pr_define(Printer *p, const void *key, const char *hint) {
  char *base = sanitize(hint);
  char *name = base;
  if (name_taken(p, name)) {
    for (int k = 1;; k++) {
      name = xasprintf("%s_%d", base, k);
      if (!name_taken(p, name)) break;
      free(name);
    }
    free(base);
  }
  push_name(p, key, name, false);
  return name;
}

void pr_define_alias(Printer *p, const void *key, const char *name) {
  push_name(p, key, xstrdup(name), true);
}

const char *pr_lookup(const Printer *p, const void *key) {
  for (int i = p->nnames - 1; i >= 0; i--)
    if (p->names[i].key == key) return p->names[i].name;
  return NULL;
}

/* ------------------------------------------------------------ modules */

static bool module_has_relax(const IrModule *m) {
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_RELAX) return true;
  return false;
}

static void header_line(Printer *p, const char *text) {
  pr_color(p, PRC_COMMENT, text);
  pr_puts(p, "\n");
}

static void print_func(Printer *p, const IrGlobal *g) {
  if (g->kind == IR_FUNC_TIR) pr_tir_func(p, g->tir, g->name);
  else pr_relax_func(p, g->rx, g->name);
}

void print_module(StrBuf *out, const IrModule *m, const PrintOptions *opt) {
  Printer p;
  pr_init(&p, out, opt);
  /* TVM's printer names every module class "Module", whatever the source
   * called it (names are not part of structural equality). */
  p.module_name = "Module";
  if (m->implicit && m->nfuncs == 1 && m->funcs[0].kind == IR_FUNC_TIR) {
    if (p.opt.show_header) {
      header_line(&p, "# from tvm.script import tir as T");
      pr_puts(&p, "\n");
    }
    print_func(&p, &m->funcs[0]);
    pr_free(&p);
    return;
  }
  if (p.opt.show_header) {
    header_line(&p, "# from tvm.script import ir as I");
    header_line(&p, "# from tvm.script import tir as T");
    if (module_has_relax(m)) header_line(&p, "# from tvm.script import relax as R");
    pr_puts(&p, "\n");
  }
  pr_color(&p, PRC_BUILTIN, "@I.ir_module");
  pr_puts(&p, "\n");
  pr_color(&p, PRC_KEYWORD, "class");
  pr_printf(&p, " %s:\n", p.module_name);
  p.level = 1;
  bool any = false;
  if (m->attrs && m->attrs->kind == IRV_DICT && m->attrs->n > 0) {
    pr_indent(&p);
    pr_color(&p, PRC_BUILTIN, "I.module_attrs");
    pr_puts(&p, "(");
    pr_irvalue(&p, m->attrs, false);
    pr_puts(&p, ")\n");
    any = true;
  }
  for (int i = 0; i < m->nfuncs; i++) {
    if (any) pr_puts(&p, "\n");
    print_func(&p, &m->funcs[i]);
    any = true;
  }
  if (!any) {
    pr_indent(&p);
    pr_color(&p, PRC_KEYWORD, "pass");
    pr_puts(&p, "\n");
  }
  pr_free(&p);
}

void print_tir_func(StrBuf *out, const TirFunc *f, const char *name, const PrintOptions *opt) {
  Printer p;
  pr_init(&p, out, opt);
  if (p.opt.show_header) {
    header_line(&p, "# from tvm.script import tir as T");
    pr_puts(&p, "\n");
  }
  pr_tir_func(&p, f, name);
  pr_free(&p);
}

void print_relax_func(StrBuf *out, const RxFunc *f, const char *name, const PrintOptions *opt) {
  Printer p;
  pr_init(&p, out, opt);
  if (p.opt.show_header) {
    header_line(&p, "# from tvm.script import tir as T");
    header_line(&p, "# from tvm.script import relax as R");
    pr_puts(&p, "\n");
  }
  pr_relax_func(&p, f, name);
  pr_free(&p);
}

void pr_func_attrs(Printer *p, const char *builtin_name, const IrValue *attrs, bool drop_gs, bool relax) {
  if (!attrs || attrs->kind != IRV_DICT) return;
  int n = 0;
  for (int i = 0; i < attrs->n; i++)
    if (!(drop_gs && !strcmp(attrs->keys[i], "global_symbol"))) n++;
  if (!n) return;
  pr_indent(p);
  pr_color(p, PRC_BUILTIN, builtin_name);
  pr_puts(p, "({");
  int k = 0;
  for (int i = 0; i < attrs->n; i++) {
    if (drop_gs && !strcmp(attrs->keys[i], "global_symbol")) continue;
    if (k++) pr_puts(p, ", ");
    pr_string_lit(p, attrs->keys[i]);
    pr_puts(p, ": ");
    pr_irvalue(p, attrs->items[i], relax);
  }
  pr_puts(p, "})\n");
}
