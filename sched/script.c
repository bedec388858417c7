/* script.c - evaluating schedule scripts: the Python statements of TVM's
 * schedule API and of its printed traces, over the parsed AST.
 *
 * A small interpreter: variables, tuple unpacking, literals, lists, calls of
 * `sch.<method>(...)` bound through the method table (positional and keyword
 * arguments, defaults, block names for BlockRVs), `Schedule(Module)`
 * constructors, `def apply_trace(sch):` functions, and printing of
 * `sch.mod` / `sch.trace`.  Errors point at the offending node. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer.h"
#include "parser/parser.h"
#include "sched/sched_internal.h"
#include "sched/tensor_intrin.h"

/* Script-only value kinds, after the SchValKind ones. */
enum { SV_SCHED = 100, SV_MODULE, SV_FUNC, SV_TRACE, SV_MODREF };

typedef struct Var {
  const char *name;  /* borrowed from a statement's AST, or own */
  char *own;         /* the name's own copy (sch_script_bind), else NULL */
  SchVal val;
} Var;

typedef struct Eval {
  DiagCtx *diag;
  StrBuf *out;
  const IrModule *input;  /* the module the script schedules */
  Schedule **scheds;      /* schedules created (SV_SCHED i = index) */
  int nscheds, capscheds;
  Var *vars;
  int nvars, capvars;
  const AstList *defs[16]; /* user functions (def apply_trace(sch): ...) */
  const Ast *def_nodes[16];
  bool def_called[16];
  int ndefs;
  bool failed;
  bool color;             /* print IR with ANSI colours (REPL on a terminal) */
} Eval;

static SchVal val_kind(int kind, int64_t i) {
  SchVal v = sch_val_none();
  v.kind = (SchValKind)kind;
  v.i = i;
  return v;
}

static void err(Eval *ev, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(Eval *ev, Span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(ev->diag, DIAG_ERROR, sp, fmt, ap);
  va_end(ap);
  ev->failed = true;
}

static Var *lookup(Eval *ev, const char *name) {
  for (int i = ev->nvars - 1; i >= 0; i--)
    if (!strcmp(ev->vars[i].name, name)) return &ev->vars[i];
  return NULL;
}

static void assign(Eval *ev, const char *name, SchVal v) {
  Var *x = lookup(ev, name);
  if (x) {
    sch_val_free(&x->val);
    x->val = v;
    return;
  }
  VEC_RESERVE(ev->vars, ev->capvars, ev->nvars + 1);
  ev->vars[ev->nvars].name = name;
  ev->vars[ev->nvars].own = NULL;
  ev->vars[ev->nvars++].val = v;
}

static int new_sched(Eval *ev) {
  VEC_PUSH(ev->scheds, ev->nscheds, ev->capscheds, sch_new(ev->input, ev->diag));
  return ev->nscheds - 1;
}

/* The schedule methods' names (at most SCH_MAX_METHODS), for suggestions. */
#define SCH_MAX_METHODS 96
static int method_names(const char **out) {
  int n = 0;
  for (int i = 0; sch_method_at(i) && n < SCH_MAX_METHODS; i++) out[n++] = sch_method_at(i)->name;
  return n;
}

/* A near name among cands: the closer the shorter the name is. */
static const char *suggest(const char *name, const char *const *cands, int n) {
  int below = (int)strlen(name) / 2 + 2;
  return closest_name(name, cands, n, below > 4 ? 4 : below);
}

static const char *kind_word(const SchVal *v) {
  switch ((int)v->kind) {
    case SV_NONE: return "None";
    case SV_BOOL: return "a bool";
    case SV_INT: return "an int";
    case SV_FLOAT: return "a float";
    case SV_STR: return "a string";
    case SV_RV: return "a handle";
    case SV_CODE: return "a lambda";
    case SV_LIST: return "a list";
    case SV_SCHED: return "a Schedule";
    case SV_MODULE: case SV_MODREF: return "a module";
    case SV_FUNC: return "a function";
    case SV_TRACE: return "a trace";
    default: return "a value";
  }
}

static SchVal eval(Eval *ev, const Ast *e);
static void script_stmt(Eval *ev, const Ast *st);

/* ------------------------------------------------------------- printing */

static Schedule *sched_of(Eval *ev, const SchVal *v) {
  return v->i >= 0 && v->i < ev->nscheds ? ev->scheds[v->i] : NULL;
}

static void render(Eval *ev, const SchVal *v, StrBuf *sb) {
  PrintOptions opt = print_options_default();
  opt.color = ev->color;
  switch ((int)v->kind) {
    case SV_STR: sb_puts(sb, v->s); break;
    case SV_INT: sb_printf(sb, "%lld", (long long)v->i); break;
    case SV_BOOL: sb_puts(sb, v->i ? "True" : "False"); break;
    case SV_NONE: sb_puts(sb, "None"); break;
    case SV_MODULE: print_module(sb, sched_of(ev, v) ? sch_mod(sched_of(ev, v)) : ev->input, &opt); break;
    case SV_MODREF: print_module(sb, ev->input, &opt); break;
    case SV_FUNC: {
      const IrModule *m = sch_mod(sched_of(ev, v));
      const IrGlobal *g = ir_module_lookup(m, v->s);
      if (g && g->kind == IR_FUNC_TIR) print_tir_func(sb, g->tir, g->name, &opt);
      break;
    }
    case SV_TRACE: sch_trace_print(sched_of(ev, v), sb, true); break;
    case SV_SCHED: sb_puts(sb, "<tir.Schedule>"); break;
    case SV_RV: { /* a handle prints as its trace name (REPL echo, print()) */
      Schedule *s = ev->nscheds ? ev->scheds[ev->nscheds - 1] : NULL;
      for (int i = ev->nvars - 1; i >= 0; i--)
        if (!strcmp(ev->vars[i].name, "sch") && (int)ev->vars[i].val.kind == SV_SCHED) s = sched_of(ev, &ev->vars[i].val);
      if (s && v->i >= 0 && v->i < s->nrvs) sb_puts(sb, sch_rv_name(s, (SchRV)v->i));
      else sb_puts(sb, "<a handle>");
      break;
    }
    case SV_LIST:
      sb_putc(sb, '[');
      for (int i = 0; i < v->n; i++) {
        if (i) sb_puts(sb, ", ");
        render(ev, &v->items[i], sb);
      }
      sb_putc(sb, ']');
      break;
    default: sb_printf(sb, "<%s>", kind_word(v)); break;
  }
}

static void emit(Eval *ev, const SchVal *v) {
  StrBuf sb;
  sb_init(&sb);
  render(ev, v, &sb);
  if (sb.len == 0 || sb.data[sb.len - 1] != '\n') sb_putc(&sb, '\n');
  if (ev->out) sb_puts(ev->out, sb.data);
  sb_free(&sb);
}

/* ------------------------------------------------------- method binding */

/* Converts a script value into the normalized argument of param p. */
/* A block argument (a handle or a block name) as a BlockRV; false on error. */
static bool to_block_rv(Eval *ev, Schedule *s, SchVal *v, Span sp, const char *method, const char *pname) {
  if (v->kind == SV_STR) {
    SchRV rv = sch_get_block(s, v->s, NULL);
    if (rv < 0) return ev->failed = true, false;
    sch_val_free(v);
    *v = sch_val_rv(rv);
    return true;
  }
  if (v->kind == SV_RV && sch_rv_kind(s, (SchRV)v->i) == SCH_RV_BLOCK) return true;
  err(ev, sp, "%s: argument '%s' must be a BlockRV or a block name, got %s", method, pname, kind_word(v));
  return false;
}

static bool is_int_list(const SchVal *v) {
  if (v->kind != SV_LIST) return false;
  for (int i = 0; i < v->n; i++)
    if (v->items[i].kind != SV_INT) return false;
  return true;
}

/* A buffer argument of param p (SP_READ_BUFFER / SP_WRITE_BUFFER / SP_BUFFER)
 * for the block in args[0]: normalized as the param kind says. */
static bool convert_buffer(Eval *ev, Schedule *s, const SchParam *p, const SchVal *block, SchVal *v,
                           Span sp, const char *method, int argi) {
  int which = p->kind == SP_READ_BUFFER ? 0 : p->kind == SP_WRITE_BUFFER ? 1 : -1;
  const char *want = which == 0 ? "an int, (\"read\", i) or a buffer name"
                     : which == 1 ? "an int, (\"write\", i) or a buffer name"
                                  : "(\"read\"|\"write\", i) or a buffer name";
  if (v->kind == SV_INT && which >= 0) return true;
  if (v->kind == SV_LIST && v->n == 2 && v->items[0].kind == SV_STR && v->items[1].kind == SV_INT &&
      (!strcmp(v->items[0].s, "read") || !strcmp(v->items[0].s, "write"))) {
    int w = !strcmp(v->items[0].s, "write");
    if (which >= 0 && w != which) {
      err(ev, sp, "%s: argument '%s' must name a %s buffer of the block, got (\"%s\", %lld)", method,
          p->name, which ? "written" : "read", v->items[0].s, (long long)v->items[1].i);
      return false;
    }
    if (which >= 0) {
      SchVal i = sch_val_int(v->items[1].i);
      sch_val_free(v);
      *v = i;
    }
    return true;
  }
  if (v->kind == SV_STR) {
    if (!block || block->kind != SV_RV) return false;
    bool w = false;
    int ix = sch_buffer_index_by_name(s, (SchRV)block->i, v->s, which, &w, method, argi);
    if (ix < 0) return ev->failed = true, false;
    sch_val_free(v);
    if (which >= 0) {
      *v = sch_val_int(ix);
    } else {
      *v = sch_val_buffer_pair(w, ix);
    }
    return true;
  }
  err(ev, sp, "%s: argument '%s' must be %s, got %s", method, p->name, want, kind_word(v));
  return false;
}

/* Checks a value for a plain (non-handle) parameter: ints, floats, bools,
 * strings, index maps, annotation values. */
static bool convert_plain(Eval *ev, Schedule *s, const SchParam *p, SchVal *v, Span sp,
                          const char *method) {
  switch (p->kind) {
    case SP_INDEX_MAP:
      if (v->kind == SV_CODE) return true;
      err(ev, sp, "%s: argument '%s' must be a lambda (an index map), got %s", method, p->name, kind_word(v));
      return false;
    case SP_OPT_CODE:
      if (v->kind == SV_CODE || v->kind == SV_NONE || v->kind == SV_INT || v->kind == SV_FLOAT) return true;
      err(ev, sp, "%s: argument '%s' must be None, a number or a lambda, got %s", method, p->name, kind_word(v));
      return false;
    case SP_INTS:
      if (is_int_list(v)) return true;
      err(ev, sp, "%s: argument '%s' must be a list of ints, got %s", method, p->name, kind_word(v));
      return false;
    case SP_OPT_INTS:
      if (v->kind == SV_NONE || is_int_list(v)) return true;
      err(ev, sp, "%s: argument '%s' must be a list of ints or None, got %s", method, p->name, kind_word(v));
      return false;
    case SP_FLOATS:
      if (v->kind == SV_LIST) {
        bool ok = true;
        for (int i = 0; i < v->n; i++) {
          if (v->items[i].kind == SV_INT) v->items[i].kind = SV_FLOAT, v->items[i].f = (double)v->items[i].i, v->items[i].i = 0;
          else if (v->items[i].kind != SV_FLOAT) ok = false;
        }
        if (ok) return true;
      }
      err(ev, sp, "%s: argument '%s' must be a list of numbers, got %s", method, p->name, kind_word(v));
      return false;
    case SP_OPT_INT:
      if (v->kind == SV_INT || v->kind == SV_NONE) return true;
      err(ev, sp, "%s: argument '%s' must be an int or None, got %s", method, p->name, kind_word(v));
      return false;
    case SP_INT:
      if (v->kind == SV_INT) return true;
      err(ev, sp, "%s: argument '%s' must be an int, got %s", method, p->name, kind_word(v));
      return false;
    case SP_BOOL:
      if (v->kind == SV_BOOL) return true;
      if (v->kind == SV_INT && (v->i == 0 || v->i == 1)) return v->kind = SV_BOOL, true;
      err(ev, sp, "%s: argument '%s' must be a bool, got %s", method, p->name, kind_word(v));
      return false;
    case SP_STR:
      if (v->kind == SV_STR) return true;
      err(ev, sp, "%s: argument '%s' must be a string, got %s", method, p->name, kind_word(v));
      return false;
    case SP_OPT_STR:
      if (v->kind == SV_STR || v->kind == SV_NONE) return true;
      err(ev, sp, "%s: argument '%s' must be a string or None, got %s", method, p->name, kind_word(v));
      return false;
    case SP_ANY:
      if ((int)v->kind <= SV_LIST && v->kind != SV_RV) return true;
      if (v->kind == SV_RV && sch_rv_kind(s, (SchRV)v->i) == SCH_RV_EXPR) return true; /* a sampled int */
      err(ev, sp, "%s: unsupported annotation value (%s)", method, kind_word(v));
      return false;
    default:
      return false;
  }
}

/* Checks (and resolves block names in) a value for a block or loop handle
 * parameter. */
static bool convert_handle(Eval *ev, Schedule *s, const SchParam *p, SchVal *v, Span sp,
                           const char *method) {
  switch (p->kind) {
    case SP_OPT_BLOCKS:
    case SP_BLOCKS:
      if (v->kind == SV_NONE && p->kind == SP_OPT_BLOCKS) return true;
      if (v->kind != SV_LIST) {
        err(ev, sp, "%s: argument '%s' must be a list of BlockRVs, got %s", method, p->name, kind_word(v));
        return false;
      }
      for (int i = 0; i < v->n; i++)
        if (!to_block_rv(ev, s, &v->items[i], sp, method, p->name)) return false;
      return true;
    case SP_LOOP_OR_BLOCKS:
      if (v->kind == SV_RV && sch_rv_kind(s, (SchRV)v->i) == SCH_RV_LOOP) return true;
      if (v->kind == SV_LIST) { /* an empty list is the primitive's to refuse */
        for (int i = 0; i < v->n; i++)
          if (!to_block_rv(ev, s, &v->items[i], sp, method, p->name)) return false;
        return true;
      }
      err(ev, sp, "%s: argument '%s' must be a LoopRV or a list of BlockRVs, got %s", method, p->name, kind_word(v));
      return false;
    case SP_BLOCK:
    case SP_BLOCK_OR_LOOP:
      if (v->kind == SV_STR) {
        SchRV rv = sch_get_block(s, v->s, NULL);
        if (rv < 0) return ev->failed = true, false;
        sch_val_free(v);
        *v = sch_val_rv(rv);
        return true;
      }
      if (v->kind == SV_RV && (sch_rv_kind(s, (SchRV)v->i) == SCH_RV_BLOCK || p->kind == SP_BLOCK_OR_LOOP))
        return true;
      if (v->kind == SV_RV) {
        err(ev, sp, "%s: argument '%s' must be a BlockRV, got the %s '%s'", method, p->name,
            sch_rv_kind(s, (SchRV)v->i) == SCH_RV_LOOP ? "LoopRV" : "ExprRV", sch_rv_name(s, (SchRV)v->i));
        return false;
      }
      err(ev, sp, "%s: argument '%s' must be a BlockRV or a block name, got %s", method, p->name,
          kind_word(v));
      return false;
    case SP_LOOP:
      if (v->kind == SV_RV && sch_rv_kind(s, (SchRV)v->i) == SCH_RV_LOOP) return true;
      if (v->kind == SV_RV)
        err(ev, sp, "%s: argument '%s' must be a LoopRV, got the %s '%s'", method, p->name,
            sch_rv_kind(s, (SchRV)v->i) == SCH_RV_BLOCK ? "BlockRV" : "ExprRV", sch_rv_name(s, (SchRV)v->i));
      else
        err(ev, sp, "%s: argument '%s' must be a LoopRV, got %s", method, p->name, kind_word(v));
      return false;
    case SP_LOOPS:
      for (int i = 0; i < v->n; i++)
        if (v->items[i].kind != SV_RV || sch_rv_kind(s, (SchRV)v->items[i].i) != SCH_RV_LOOP) {
          err(ev, sp, "%s: every loop argument must be a LoopRV, got %s", method, kind_word(&v->items[i]));
          return false;
        }
      return true;
    default:
      return false;
  }
}

/* Checks a split/partition factor list: ints, None, or sampled ExprRVs. */
static bool convert_factors(Eval *ev, Schedule *s, const SchParam *p, SchVal *v, Span sp,
                            const char *method) {
  if (v->kind != SV_LIST) {
    err(ev, sp, "%s: argument '%s' must be a list of ints and None, got %s", method, p->name,
        kind_word(v));
    return false;
  }
  for (int i = 0; i < v->n; i++) {
    if (v->items[i].kind == SV_NONE) continue;
    if (v->items[i].kind == SV_RV && sch_rv_kind(s, (SchRV)v->items[i].i) == SCH_RV_EXPR) {
      int64_t x = sch_expr_value(s, (SchRV)v->items[i].i); /* a sampled factor */
      if (x == 0 || x < -1) {
        err(ev, sp, "%s: all the constant factors must be positive, got %lld (%s)", method, (long long)x,
            sch_rv_name(s, (SchRV)v->items[i].i));
        return false;
      }
      continue;
    }
    if (v->items[i].kind == SV_RV) {
      err(ev, sp, "%s: factors must be ints, None or ExprRVs (sampled), got the %s handle '%s'", method,
          sch_rv_kind(s, (SchRV)v->items[i].i) == SCH_RV_BLOCK ? "block" : "loop",
          sch_rv_name(s, (SchRV)v->items[i].i));
      return false;
    }
    if (v->items[i].kind != SV_INT) {
      err(ev, sp, "%s: factors must be ints or None, got %s", method, kind_word(&v->items[i]));
      return false;
    }
    if (v->items[i].i == 0 || v->items[i].i < -1) {
      err(ev, sp, "%s: all the constant factors must be positive, got %lld", method,
          (long long)v->items[i].i);
      return false;
    }
  }
  return true;
}

/* Converts a script value into the normalized argument of param p (args:
 * the arguments converted so far, args[0] first). */
static bool convert(Eval *ev, Schedule *s, const SchParam *p, const Ast *node, SchVal *v,
                    const char *method, const SchVal *args, int argi) {
  Span sp = node->span;
  switch (p->kind) {
    case SP_READ_BUFFER:
    case SP_WRITE_BUFFER:
    case SP_BUFFER:
      return convert_buffer(ev, s, p, argi > 0 ? &args[0] : NULL, v, sp, method, argi);
    case SP_OPT_BLOCKS:
    case SP_BLOCKS:
    case SP_LOOP_OR_BLOCKS:
    case SP_BLOCK:
    case SP_BLOCK_OR_LOOP:
    case SP_LOOP:
    case SP_LOOPS:
      return convert_handle(ev, s, p, v, sp, method);
    case SP_FACTORS:
      return convert_factors(ev, s, p, v, sp, method);
    default:
      return convert_plain(ev, s, p, v, sp, method);
  }
}

static SchVal parse_default(const char *d) {
  if (!strcmp(d, "None")) return sch_val_none();
  if (d[0] == '"') { /* a string default: "global" */
    SchVal v = sch_val_str(d + 1);
    if (*v.s) v.s[strlen(v.s) - 1] = 0;
    return v;
  }
  if (strchr(d, '.')) {
    SchVal v = sch_val_none();
    v.kind = SV_FLOAT;
    v.f = strtod(d, NULL);
    return v;
  }
  if (!strcmp(d, "True")) return sch_val_bool(true);
  if (!strcmp(d, "False")) return sch_val_bool(false);
  return sch_val_int(strtoll(d, NULL, 10));
}

/* The arguments of a primitive call as they are parsed: by parameter index,
 * the value, whether it is given, its node and (first 8) its span.  A
 * primitive taking loops or blocks first (fuse, reorder, ...) collects its
 * positional arguments into args[0], a list. */
typedef struct CallArgs {
  SchVal args[SCH_MAX_PARAMS];
  bool set[SCH_MAX_PARAMS];
  const Ast *nodes[SCH_MAX_PARAMS];
  Span spans[8];
  int nspans;
  bool varargs;
  int pos;    /* the next positional parameter */
  int capvar; /* args[0].items's capacity (varargs) */
} CallArgs;

/* name=value: the parameter must exist and not be given yet. */
static bool parse_keyword_arg(Eval *ev, const SchMethod *m, const Ast *a, CallArgs *ca) {
  int k = -1;
  for (int j = 0; j < m->nparams; j++)
    if (a->name && !strcmp(m->params[j].name, a->name)) k = j;
  if (k < 0 || (ca->varargs && k == 0)) {
    const char *cands[SCH_MAX_PARAMS];
    for (int j = 0; j < m->nparams; j++) cands[j] = m->params[j].name;
    const char *sg = a->name ? suggest(a->name, cands, m->nparams) : NULL;
    if (sg) err(ev, a->span, "%s() got an unexpected keyword argument '%s'; did you mean '%s'?", m->name, a->name ? a->name : "**", sg);
    else err(ev, a->span, "%s() got an unexpected keyword argument '%s'", m->name, a->name ? a->name : "**");
    return false;
  }
  if (ca->set[k]) {
    err(ev, a->span, "%s() got multiple values for argument '%s'", m->name, a->name);
    return false;
  }
  ca->args[k] = eval(ev, a->a);
  ca->set[k] = true;
  ca->nodes[k] = a->a;
  if (!ca->varargs && k < 8) ca->spans[k] = a->a->span, ca->nspans = ca->nspans > k + 1 ? ca->nspans : k + 1;
  return true;
}

/* A positional argument of a varargs primitive joins args[0] (*list spreads). */
static void parse_vararg(Eval *ev, const Ast *a, CallArgs *ca) {
  SchVal *args = ca->args;
  SchVal v = eval(ev, a->kind == AST_STARRED ? a->a : a);
  if (a->kind == AST_STARRED && v.kind == SV_LIST) {
    for (int k = 0; k < v.n; k++) VEC_PUSH(args[0].items, args[0].n, ca->capvar, sch_val_copy(&v.items[k]));
    sch_val_free(&v);
  } else {
    if (args[0].n < 8) ca->spans[args[0].n] = a->span, ca->nspans = args[0].n + 1;
    VEC_PUSH(args[0].items, args[0].n, ca->capvar, v);
  }
}

static bool parse_positional_arg(Eval *ev, const SchMethod *m, const Ast *a, CallArgs *ca) {
  int pos = ca->pos;
  if (pos >= m->nparams) {
    err(ev, a->span, "%s() takes %d positional argument%s but more were given", m->name, m->nparams,
        m->nparams == 1 ? "" : "s");
    return false;
  }
  ca->args[pos] = eval(ev, a);
  ca->set[pos] = true;
  ca->nodes[pos] = a;
  if (pos < 8) ca->spans[pos] = a->span, ca->nspans = ca->nspans > pos + 1 ? ca->nspans : pos + 1;
  ca->pos++;
  return true;
}

/* Binds the call's arguments to m's parameters, then the defaults of those
 * not given; false after an error. */
static bool parse_call_args(Eval *ev, const SchMethod *m, const Ast *call, CallArgs *ca) {
  memset(ca, 0, sizeof *ca);
  for (int i = 0; i < 8; i++) ca->spans[i] = span_none;
  ca->varargs = m->nparams > 0 && (m->params[0].kind == SP_LOOPS || m->params[0].kind == SP_BLOCKS);
  if (ca->varargs) {
    ca->args[0] = sch_val_none();
    ca->args[0].kind = SV_LIST;
    ca->set[0] = true;
    ca->nodes[0] = call;
  }
  ca->pos = ca->varargs ? 1 : 0;
  for (int i = 0; i < call->list.len; i++) {
    const Ast *a = call->list.items[i];
    if (a->kind == AST_KEYWORD) {
      if (!parse_keyword_arg(ev, m, a, ca)) return false;
    } else if (ca->varargs) {
      parse_vararg(ev, a, ca);
    } else if (!parse_positional_arg(ev, m, a, ca)) {
      return false;
    }
    if (ev->failed) return false;
  }
  for (int k = 0; k < m->nparams; k++) {
    if (ca->set[k]) continue;
    if (!m->params[k].dflt) {
      err(ev, call->span, "%s() missing required argument '%s'", m->name, m->params[k].name);
      return false;
    }
    ca->args[k] = parse_default(m->params[k].dflt);
    ca->set[k] = true;
    ca->nodes[k] = call;
  }
  return true;
}

/* Whether every handle in v (a list's too) is one of s's: a script with two
 * schedules can pass one's LoopRV to the other. */
static bool handles_of(const Schedule *s, const SchVal *v) {
  if (v->kind == SV_RV) return v->i >= 0 && v->i < s->nrvs;
  if (v->kind == SV_LIST)
    for (int i = 0; i < v->n; i++)
      if (!handles_of(s, &v->items[i])) return false;
  return true;
}

static SchVal call_method(Eval *ev, Schedule *s, const SchMethod *m, const Ast *call) {
  CallArgs ca;
  SchVal result = sch_val_none();
  bool ok = parse_call_args(ev, m, call, &ca);
  /* Spans first: converting a buffer name or a block name can report too. */
  sch_set_call_spans(s, call->span, ca.spans, ca.nspans);
  for (int k = 0; k < m->nparams && ok; k++)
    if (ca.set[k] && !handles_of(s, &ca.args[k])) {
      err(ev, ca.nodes[k]->span, "%s: argument '%s' holds a handle of another schedule", m->name, m->params[k].name);
      ok = false;
    }
  for (int k = 0; k < m->nparams && ok; k++)
    if (!convert(ev, s, &m->params[k], ca.nodes[k], &ca.args[k], m->name, ca.args, k)) ok = false;
  if (ok) {
    int nerr = ev->diag->nerr;
    if (m->apply(s, ca.args, &result) != 0 || ev->diag->nerr > nerr) ev->failed = true;
  }
  sch_set_call_spans(s, span_none, NULL, 0);
  for (int k = 0; k < m->nparams; k++)
    if (ca.set[k]) sch_val_free(&ca.args[k]);
  return result;
}

/* ------------------------------------------------------------ expressions */

static bool is_schedule_ctor(Arena *a, const Ast *callee) {
  const char *d = ast_dotted_name(a, callee);
  if (!d) return false;
  static const char *const names[] = {"tvm.tir.Schedule", "tir.Schedule", "Schedule",
                                      "tvm.s_tir.Schedule", "s_tir.Schedule", "tvm.tir.schedule.Schedule"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(d, names[i])) return true;
  return false;
}

static SchVal construct(Eval *ev, const Ast *call) {
  const Ast *target = NULL, *seed = NULL, *debug = NULL;
  for (int i = 0; i < call->list.len; i++) {
    const Ast *a = call->list.items[i];
    if (a->kind == AST_KEYWORD && a->name && !strcmp(a->name, "seed")) seed = a->a;
    if (a->kind == AST_KEYWORD && a->name && !strcmp(a->name, "debug_mask")) debug = a->a;
    if (a->kind != AST_KEYWORD) {
      if (target) {
        err(ev, a->span, "Schedule() takes one positional argument (the module or function)");
        return sch_val_none();
      }
      target = a;
    } else if (a->name && !strcmp(a->name, "mod")) {
      target = a->a;
    } else if (!a->name || (strcmp(a->name, "debug_mask") && strcmp(a->name, "seed") &&
                            strcmp(a->name, "error_render_level") && strcmp(a->name, "enable_check"))) {
      err(ev, a->span, "Schedule() got an unexpected keyword argument '%s'", a->name ? a->name : "**");
      return sch_val_none();
    }
  }
  if (!target) {
    err(ev, call->span, "Schedule() needs the module or function to schedule");
    return sch_val_none();
  }
  const char *fn = NULL;
  if (target->kind == AST_NAME && !lookup(ev, target->name)) {
    const IrGlobal *g = ir_module_lookup(ev->input, target->name);
    if (g && g->kind == IR_FUNC_TIR) fn = target->name;
    else if (strcmp(target->name, ev->input->name) && strcmp(target->name, "Module")) {
      err(ev, target->span, "Schedule(): '%s' is neither the module '%s' nor one of its prim_funcs",
          target->name, ev->input->name);
      return sch_val_none();
    }
  } else if (target->kind == AST_SUBSCRIPT && target->b->kind == AST_STR && target->a->kind == AST_NAME &&
             !lookup(ev, target->a->name) &&
             (!strcmp(target->a->name, ev->input->name) || !strcmp(target->a->name, "Module"))) {
    /* Schedule(MyModule["mm_relu"]): one prim_func of the input module. */
    const IrGlobal *g = ir_module_lookup(ev->input, target->b->str);
    if (!g || g->kind != IR_FUNC_TIR) {
      err(ev, target->b->span, "Schedule(): the module '%s' has no prim_func '%s'", ev->input->name,
          target->b->str);
      return sch_val_none();
    }
    fn = target->b->str;
  } else {
    SchVal v = eval(ev, target);
    bool good = v.kind == (SchValKind)SV_MODREF;
    sch_val_free(&v);
    if (!good) {
      if (!ev->failed) err(ev, target->span, "Schedule() expects the module or a prim_func");
      return sch_val_none();
    }
  }
  int64_t seed_v = -1;
  int mask = 0;
  if (seed) {
    SchVal v = eval(ev, seed);
    if (v.kind == SV_INT && v.i >= 0) seed_v = v.i;
    else if (v.kind != SV_NONE && !ev->failed) err(ev, seed->span, "Schedule(): seed must be a non-negative int or None, got %s", kind_word(&v));
    sch_val_free(&v);
  }
  if (debug) { /* "all" / "none", or a bit mask as TVM's ScheduleDebugMask */
    SchVal v = eval(ev, debug);
    if (v.kind == SV_STR && (!strcmp(v.s, "all") || !strcmp(v.s, "none"))) mask = !strcmp(v.s, "all") ? -1 : 0;
    else if (v.kind == SV_INT) mask = (int)v.i;
    else if (!ev->failed) err(ev, debug->span, "Schedule(): debug_mask must be \"all\", \"none\" or an int, got %s", kind_word(&v));
    sch_val_free(&v);
  }
  if (ev->failed) return sch_val_none();
  int i = new_sched(ev);
  if (seed_v >= 0) sch_seed(ev->scheds[i], seed_v);
  sch_set_debug_mask(ev->scheds[i], mask);
  if (fn && sch_work_on(ev->scheds[i], fn)) ev->failed = true;
  Schedule *s = ev->scheds[i];
  if (mask && !ev->failed && s->func) { /* TVM verifies the input state under a debug_mask too */
    StrBuf why;
    sb_init(&why);
    if (!sch_verify_func(s, s->func, &why))
      err(ev, call->span, "Schedule(): the function '%s' is ill-formed: %s", s->func, why.data);
    sb_free(&why);
  }
  return val_kind(SV_SCHED, i);
}

/* The source text of a node (a lambda), kept verbatim with line breaks
 * folded, for index maps. */
static SchVal code_val(const Ast *e) {
  SchVal v = sch_val_none();
  v.kind = SV_CODE;
  const SourceFile *f = e->span.file;
  if (!f || e->span.off + e->span.len > f->len) {
    v.s = xstrdup("lambda: ()");
    return v;
  }
  StrBuf sb;
  sb_init(&sb);
  bool space = false;
  for (uint32_t i = 0; i < e->span.len; i++) {
    char c = f->text[e->span.off + i];
    if (c == '\\' && i + 1 < e->span.len && f->text[e->span.off + i + 1] == '\n') continue;
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = true;
      continue;
    }
    if (space && sb.len > 0) sb_putc(&sb, ' ');
    space = false;
    sb_putc(&sb, c);
  }
  v.s = xstrdup(sb.data ? sb.data : "");
  sb_free(&sb);
  return v;
}

/* T.index_map(lambda ...), tvm.tir.IndexMap.from_func(lambda ...): the lambda. */
static bool is_index_map_ctor(Arena *a, const Ast *callee) {
  const char *d = ast_dotted_name(a, callee);
  if (!d) return false;
  size_t n = strlen(d);
  return !strcmp(d, "T.index_map") || (n >= 17 && !strcmp(d + n - 17, "IndexMap.from_func"));
}

/* A call of a user function `def f(sch): ...` by name: binds the argument
 * and runs the body.  False when no such function is defined. */
static bool eval_def_call(Eval *ev, const Ast *e, const Ast *callee) {
  for (int d = 0; d < ev->ndefs; d++) {
    if (strcmp(ev->def_nodes[d]->name, callee->name)) continue;
    const Ast *def = ev->def_nodes[d];
    ev->def_called[d] = true;
    if (e->list.len != 1 || def->list.len != 1) {
      err(ev, e->span, "'%s' takes exactly one argument (the schedule)", def->name);
      return true;
    }
    SchVal v = eval(ev, e->list.items[0]);
    assign(ev, def->list.items[0]->name, v);
    for (int k = 0; k < def->body.len && !ev->failed; k++) {
      const Ast *st = def->body.items[k];
      if (st->kind == AST_RETURN) break;
      script_stmt(ev, st);
    }
    return true;
  }
  return false;
}

/* sch.get(block_or_loop): the statement the handle denotes, printed as
 * TVMScript (a block with its bindings, a loop with its body), after a line
 * naming it and the loops around it. */
static SchVal get_statement(Schedule *s, SchRV rv) {
  bool block = sch_rv_kind(s, rv) == SCH_RV_BLOCK;
  SchPath path = {0};
  TirStmt *st = block ? sch_find_block(s, rv, "get", 0, &path) : sch_find_loop(s, rv, "get", 0, &path);
  if (!st) {
    sch_path_free(&path);
    return sch_val_none();
  }
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "# %s '%s'", block ? "block" : "loop",
            block ? st->realize.block->block.name : sch_loop_name(st));
  int nloops = 0;
  for (int i = 0; i < path.n - 1; i++)
    if (path.s[i]->kind == TIR_S_FOR)
      sb_printf(&sb, "%s%s", nloops++ ? ", " : ", under loops ", sch_loop_name(path.s[i]));
  sb_putc(&sb, '\n');
  print_tir_stmt(&sb, st, 0);
  SchVal v = sch_val_str(sb.data);
  sb_free(&sb);
  sch_path_free(&path);
  return v;
}

/* sch.<name>(...): a primitive, get, show, or an unknown method. */
static SchVal eval_sched_method(Eval *ev, const SchVal *obj, const Ast *e) {
  const Ast *callee = e->a;
  const char *name = callee->name;
  SchVal res = sch_val_none();
  Schedule *s = sched_of(ev, obj);
  const SchMethod *m = sch_method_lookup(name);
  if (m) {
    res = call_method(ev, s, m, e);
  } else if (!strcmp(name, "remove_rv") && e->list.len == 1 && e->list.items[0]->kind != AST_KEYWORD) {
    /* sch.remove_rv(rv): TVM's RemoveRV; the handle may not be used again */
    SchVal v = eval(ev, e->list.items[0]);
    if (v.kind == SV_RV && v.i >= 0 && v.i < s->nrvs)
      s->rvs[v.i].removed = true;
    else if (!ev->failed)
      err(ev, e->list.items[0]->span, "remove_rv: expected a BlockRV, LoopRV or ExprRV, got %s", kind_word(&v));
    sch_val_free(&v);
  } else if (!strcmp(name, "get") && e->list.len == 1 && e->list.items[0]->kind != AST_KEYWORD) {
    /* sch.get(v): the integer a sampled ExprRV holds */
    SchVal v = eval(ev, e->list.items[0]);
    if (v.kind == SV_RV && v.i >= 0 && v.i < s->nrvs && s->rvs[v.i].removed)
      err(ev, e->list.items[0]->span, "get: the handle '%s' was removed by remove_rv", s->rvs[v.i].name);
    else if (v.kind == SV_RV && v.i >= 0 && v.i < s->nrvs && sch_rv_kind(s, (SchRV)v.i) == SCH_RV_EXPR)
      res = sch_val_int(sch_expr_value(s, (SchRV)v.i));
    else if (v.kind == SV_RV && v.i >= 0 && v.i < s->nrvs)
      res = get_statement(s, (SchRV)v.i); /* as TVM's sch.get: the block or loop itself */
    else if (v.kind == SV_INT)
      res = sch_val_int(v.i);
    else if (!ev->failed)
      err(ev, e->list.items[0]->span, "get: expected an ExprRV (a sampled value), got %s", kind_word(&v));
    sch_val_free(&v);
  } else if (!strcmp(name, "show")) {
    SchVal mv = val_kind(SV_MODULE, obj->i);
    emit(ev, &mv);
  } else {
    const char *cands[SCH_MAX_METHODS + 4];
    int n = method_names(cands);
    cands[n++] = "get_sblock";
    cands[n++] = "remove_rv";
    cands[n++] = "mod";
    cands[n++] = "trace";
    const char *sg = suggest(name, cands, n);
    if (sg) err(ev, callee->span, "schedule has no method '%s'; did you mean '%s'?", name, sg);
    else err(ev, callee->span, "schedule has no method '%s'", name);
  }
  return res;
}

/* <value>.<name>(...): a schedule's methods, or show/script/as_python of a
 * module, function or trace. */
static SchVal eval_method_call(Eval *ev, const Ast *e) {
  const Ast *callee = e->a;
  SchVal obj = eval(ev, callee->a);
  if (ev->failed) return sch_val_none();
  const char *name = callee->name;
  SchVal res = sch_val_none();
  int kind = (int)obj.kind;
  if (kind == SV_SCHED) {
    res = eval_sched_method(ev, &obj, e);
  } else if ((kind == SV_MODULE || kind == SV_FUNC || kind == SV_TRACE || kind == SV_MODREF) &&
             (!strcmp(name, "show") || !strcmp(name, "script") || !strcmp(name, "as_python"))) {
    if (!strcmp(name, "show")) {
      emit(ev, &obj);
    } else {
      StrBuf sb;
      sb_init(&sb);
      render(ev, &obj, &sb);
      res = sch_val_str(sb.data);
      sb_free(&sb);
    }
  } else {
    err(ev, callee->span, "%s has no method '%s'", kind_word(&obj), name);
  }
  sch_val_free(&obj);
  return res;
}

static SchVal eval_help(Eval *ev, const Ast *e, const char *which);

static SchVal eval_call(Eval *ev, const Ast *e) {
  const Ast *callee = e->a;
  Arena tmp;
  arena_init(&tmp);
  bool ctor = is_schedule_ctor(&tmp, callee);
  bool imap = !ctor && is_index_map_ctor(&tmp, callee);
  arena_free(&tmp);
  if (ctor) return construct(ev, e);
  if (tensor_intrin_is_register_call(callee)) { /* T.TensorIntrin.register(name, desc, impl) */
    if (tensor_intrin_register_call(ev->input, e, ev->diag)) ev->failed = true;
    return sch_val_none();
  }
  if (imap) {
    if (e->list.len < 1 || e->list.items[0]->kind != AST_LAMBDA) {
      err(ev, e->span, "an index map takes a lambda as its first argument");
      return sch_val_none();
    }
    return code_val(e->list.items[0]);
  }
  if (callee->kind == AST_NAME && (!strcmp(callee->name, "help") || !strcmp(callee->name, "dir")))
    return eval_help(ev, e, callee->name);
  if (callee->kind == AST_NAME && !strcmp(callee->name, "print")) {
    for (int i = 0; i < e->list.len; i++) {
      SchVal v = eval(ev, e->list.items[i]);
      if (!ev->failed) emit(ev, &v);
      sch_val_free(&v);
    }
    return sch_val_none();
  }
  if (callee->kind == AST_NAME && eval_def_call(ev, e, callee)) return sch_val_none();
  if (callee->kind != AST_ATTR) {
    err(ev, callee->span, "schedule scripts can only call methods of a schedule, Schedule() and print()");
    return sch_val_none();
  }
  return eval_method_call(ev, e);
}

/* help(sch.split) / help("split"): a primitive's signature; dir(sch): the
 * primitives a schedule has (Python's own answers to those questions). */
static SchVal eval_help(Eval *ev, const Ast *e, const char *which) {
  StrBuf sb;
  sb_init(&sb);
  const Ast *a = e->list.len == 1 ? e->list.items[0] : NULL;
  const char *name = !a ? NULL : a->kind == AST_ATTR ? a->name : a->kind == AST_STR ? a->str : NULL;
  if (!strcmp(which, "dir") && a && a->kind != AST_ATTR) {
    for (int i = 0; sch_method_at(i); i++) sb_printf(&sb, "%s%s", i ? " " : "", sch_method_at(i)->name);
  } else if (!strcmp(which, "help") && name && sch_method_signature(name, &sb)) {
    sb_puts(&sb, "\n(docs/schedules.md describes every primitive)");
  } else if (!strcmp(which, "help") && name) {
    const char *cands[SCH_MAX_METHODS];
    const char *sg = suggest(name, cands, method_names(cands));
    if (sg) err(ev, a->span, "help(): a schedule has no method '%s'; did you mean '%s'?", name, sg);
    else err(ev, a->span, "help(): a schedule has no method '%s' (dir(sch) lists them)", name);
    sb_free(&sb);
    return sch_val_none();
  } else {
    err(ev, e->span, "%s() takes a schedule method (help(sch.split)) or, for dir(), a schedule (dir(sch))",
        which);
    sb_free(&sb);
    return sch_val_none();
  }
  SchVal v = sch_val_str(sb.data);
  sb_free(&sb);
  emit(ev, &v);
  sch_val_free(&v);
  return sch_val_none();
}

/* A name: a script variable, or the module's class name. */
static SchVal eval_name(Eval *ev, const Ast *e) {
  Var *x = lookup(ev, e->name);
  if (x) return sch_val_copy(&x->val);
  /* The class name, or "Module" as the printer names every module. */
  if (!strcmp(e->name, ev->input->name) || !strcmp(e->name, "Module")) return val_kind(SV_MODREF, -1);
  const char *cands[64];
  int n = 0;
  for (int i = 0; i < ev->nvars && n < 63; i++) cands[n++] = ev->vars[i].name;
  const char *sg = suggest(e->name, cands, n);
  if (sg) err(ev, e->span, "use of undefined name '%s'; did you mean '%s'?", e->name, sg);
  else err(ev, e->span, "use of undefined name '%s'", e->name);
  return sch_val_none();
}

/* A slice bound: NULL (absent), an int or a negated int; false otherwise. */
static bool slice_bound(const Ast *b, bool *given, int64_t *v) {
  *given = b != NULL;
  if (!b) return true;
  if (b->kind == AST_INT) return *v = b->ival, true;
  if (b->kind == AST_UNARY && b->op == OP_NEG && b->a->kind == AST_INT) return *v = -b->a->ival, true;
  return false;
}

/* l[lo:hi:step] with Python's rules (negative bounds from the end, clamped;
 * a negative step walks backwards): sch.get_loops(b)[-2:]. */
static SchVal slice_list(Eval *ev, const SchVal *l, const Ast *sl) {
  bool glo, ghi, gst;
  int64_t lo = 0, hi = 0, st = 1, n = l->n;
  if (!slice_bound(sl->a, &glo, &lo) || !slice_bound(sl->b, &ghi, &hi) || !slice_bound(sl->c, &gst, &st)) {
    err(ev, sl->span, "a slice of a list takes integer constants");
    return sch_val_none();
  }
  if (st == 0) {
    err(ev, sl->span, "slice step cannot be zero");
    return sch_val_none();
  }
  if (glo && lo < 0) lo += n;
  if (ghi && hi < 0) hi += n;
  if (st > 0) {
    lo = !glo ? 0 : lo < 0 ? 0 : lo > n ? n : lo;
    hi = !ghi ? n : hi < 0 ? 0 : hi > n ? n : hi;
  } else {
    lo = !glo ? n - 1 : lo < -1 ? -1 : lo > n - 1 ? n - 1 : lo;
    hi = !ghi ? -1 : hi < -1 ? -1 : hi > n - 1 ? n - 1 : hi;
  }
  SchVal r = sch_val_none();
  r.kind = SV_LIST;
  r.items = xcalloc((size_t)(n ? n : 1), sizeof *r.items);
  for (int64_t i = lo; st > 0 ? i < hi : i > hi; i += st) r.items[r.n++] = sch_val_copy(&l->items[i]);
  return r;
}

/* obj[key]: a function of a module by name, or a list item (l[-1] too),
 * or a slice of a list (l[-2:]). */
static SchVal eval_subscript(Eval *ev, const Ast *e) {
  SchVal obj = eval(ev, e->a);
  if (ev->failed) return sch_val_none();
  if ((int)obj.kind == SV_MODULE && e->b->kind == AST_STR) {
    const IrGlobal *g = ir_module_lookup(sch_mod(sched_of(ev, &obj)), e->b->str);
    if (!g) {
      err(ev, e->b->span, "the module has no function '%s'", e->b->str);
      return sch_val_none();
    }
    SchVal v = val_kind(SV_FUNC, obj.i);
    v.s = xstrdup(e->b->str);
    return v;
  }
  bool neg = e->b->kind == AST_UNARY && e->b->op == OP_NEG && e->b->a->kind == AST_INT; /* l[-1] */
  if (obj.kind == SV_LIST && (e->b->kind == AST_INT || neg)) {
    int64_t ix = neg ? -e->b->a->ival : e->b->ival;
    int64_t i = ix < 0 ? ix + obj.n : ix;
    if (i < 0 || i >= obj.n) {
      err(ev, e->b->span, "index %lld out of range for a list of %d", (long long)ix, obj.n);
      sch_val_free(&obj);
      return sch_val_none();
    }
    SchVal v = sch_val_copy(&obj.items[i]);
    sch_val_free(&obj);
    return v;
  }
  if (obj.kind == SV_LIST && e->b->kind == AST_SLICE) {
    SchVal v = slice_list(ev, &obj, e->b);
    sch_val_free(&obj);
    return v;
  }
  err(ev, e->span, "cannot subscript %s here", kind_word(&obj));
  sch_val_free(&obj);
  return sch_val_none();
}

static SchVal eval(Eval *ev, const Ast *e) {
  if (ev->failed) return sch_val_none();
  switch (e->kind) {
    case AST_INT: return sch_val_int(e->ival);
    case AST_FLOAT: { SchVal v = sch_val_none(); v.kind = SV_FLOAT; v.f = e->fval; return v; }
    case AST_STR: return sch_val_str(e->str);
    case AST_NONE: return sch_val_none();
    case AST_TRUE: return sch_val_bool(true);
    case AST_FALSE: return sch_val_bool(false);
    case AST_UNARY:
      if (e->op == OP_NEG && e->a->kind == AST_INT) return sch_val_int(-e->a->ival);
      if (e->op == OP_NEG && e->a->kind == AST_FLOAT) {
        SchVal v = sch_val_none();
        v.kind = SV_FLOAT;
        v.f = -e->a->fval;
        return v;
      }
      break;
    case AST_LIST:
    case AST_TUPLE: {
      SchVal v = sch_val_none();
      v.kind = SV_LIST;
      v.n = e->list.len;
      v.items = xcalloc((size_t)(v.n ? v.n : 1), sizeof *v.items);
      for (int i = 0; i < v.n; i++) v.items[i] = eval(ev, e->list.items[i]);
      return v;
    }
    case AST_NAME: return eval_name(ev, e);
    case AST_ATTR: {
      SchVal obj = eval(ev, e->a);
      if (ev->failed) return sch_val_none();
      if ((int)obj.kind == SV_SCHED && !strcmp(e->name, "mod")) return val_kind(SV_MODULE, obj.i);
      if ((int)obj.kind == SV_SCHED && !strcmp(e->name, "trace")) return val_kind(SV_TRACE, obj.i);
      err(ev, e->span, "%s has no attribute '%s'", kind_word(&obj), e->name);
      sch_val_free(&obj);
      return sch_val_none();
    }
    case AST_SUBSCRIPT: return eval_subscript(ev, e);
    case AST_CALL: return eval_call(ev, e);
    case AST_LAMBDA: return code_val(e);
    default: break;
  }
  err(ev, e->span, "unsupported expression in a schedule script");
  return sch_val_none();
}

/* ------------------------------------------------------------ statements */

static void bind_target(Eval *ev, const Ast *t, SchVal v) {
  if (t->kind == AST_NAME) {
    assign(ev, t->name, v);
    return;
  }
  if (t->kind == AST_TUPLE || t->kind == AST_LIST) {
    if (v.kind != SV_LIST || v.n != t->list.len) {
      if (v.kind == SV_LIST)
        err(ev, t->span, "cannot unpack %d values into %d names", v.n, t->list.len);
      else
        err(ev, t->span, "cannot unpack %s into %d names", kind_word(&v), t->list.len);
      sch_val_free(&v);
      return;
    }
    for (int i = 0; i < v.n; i++) bind_target(ev, t->list.items[i], v.items[i]);
    free(v.items);
    free(v.s);
    return;
  }
  err(ev, t->span, "schedule scripts can only assign to names");
  sch_val_free(&v);
}

/* The first target that is not a name or a tuple/list of names, or NULL:
 * checked before the value is evaluated, so that a refused assignment has
 * not applied its primitive. */
static const Ast *bad_target(const Ast *t) {
  if (t->kind == AST_NAME) return NULL;
  if (t->kind != AST_TUPLE && t->kind != AST_LIST) return t;
  for (int i = 0; i < t->list.len; i++) {
    const Ast *b = bad_target(t->list.items[i]);
    if (b) return b;
  }
  return NULL;
}

static void script_stmt(Eval *ev, const Ast *st) {
  switch (st->kind) {
    case AST_ASSIGN: {
      if (!st->a) return;
      for (int i = 0; i < st->list.len; i++) {
        const Ast *bad = bad_target(st->list.items[i]);
        if (bad) {
          err(ev, bad->span, "schedule scripts can only assign to names");
          return;
        }
      }
      SchVal v = eval(ev, st->a);
      if (ev->failed) {
        sch_val_free(&v);
        return;
      }
      for (int i = 0; i < st->list.len; i++)
        bind_target(ev, st->list.items[i], i + 1 < st->list.len ? sch_val_copy(&v) : v);
      return;
    }
    case AST_EXPR_STMT: {
      if (st->a->kind == AST_STR) return;
      SchVal v = eval(ev, st->a);
      sch_val_free(&v);
      return;
    }
    case AST_PASS: case AST_IMPORT: case AST_FROM_IMPORT: case AST_ERROR: return;
    default: err(ev, st->span, "unsupported statement in a schedule script"); return;
  }
}

/* Is this top-level statement part of the module rather than the script? */
static bool is_module_stmt(const Ast *st) {
  switch (st->kind) {
    case AST_IMPORT: case AST_FROM_IMPORT: case AST_CLASS: case AST_PASS: case AST_ERROR: return true;
    case AST_FUNCDEF: return st->decorators.len > 0;
    case AST_EXPR_STMT: return st->a->kind == AST_STR;
    default: return false;
  }
}

bool sch_is_script_stmt(const Ast *st) { return !is_module_stmt(st); }

bool sch_file_has_script(const AstFile *file) {
  const AstList *body = &file->module->body;
  for (int i = 0; i < body->len; i++)
    if (!is_module_stmt(body->items[i])) return true;
  return false;
}

int sch_eval_file(const AstFile *file, IrModule **m, DiagCtx *diag, StrBuf *out) {
  if (!sch_file_has_script(file)) return 0;
  Eval ev;
  memset(&ev, 0, sizeof ev);
  ev.diag = diag;
  ev.out = out;
  ev.input = *m;
  const AstList *body = &file->module->body;
  for (int i = 0; i < body->len; i++) {
    const Ast *st = body->items[i];
    if (st->kind == AST_FUNCDEF && !st->decorators.len) {
      if (ev.ndefs == 16) continue;
      if (st->list.len != 1 || !st->list.items[0]->name) {
        err(&ev, st->span, "a schedule function takes one parameter, the schedule: def %s(sch):", st->name);
        continue;
      }
      ev.def_nodes[ev.ndefs++] = st;
    }
  }
  /* `sch` is pre-bound to Schedule(module). */
  if (!ev.failed) assign(&ev, "sch", val_kind(SV_SCHED, new_sched(&ev)));
  for (int i = 0; i < body->len && !ev.failed; i++) {
    const Ast *st = body->items[i];
    if (is_module_stmt(st) || st->kind == AST_FUNCDEF) continue;
    script_stmt(&ev, st);
  }
  for (int d = 0; d < ev.ndefs && !ev.failed; d++) {
    if (ev.def_called[d] || strcmp(ev.def_nodes[d]->name, "apply_trace")) continue;
    ev.def_called[d] = true;
    /* Apply an uncalled apply_trace to the current `sch`. */
    const Ast *def = ev.def_nodes[d];
    Var *x = lookup(&ev, "sch");
    SchVal sv = x ? sch_val_copy(&x->val) : sch_val_none();
    assign(&ev, def->list.items[0]->name, sv);
    for (int k = 0; k < def->body.len && !ev.failed; k++) {
      if (def->body.items[k]->kind == AST_RETURN) break;
      script_stmt(&ev, def->body.items[k]);
    }
  }
  int rc = ev.failed || diag->nerr ? -1 : 0;
  if (!rc) {
    Var *x = lookup(&ev, "sch");
    Schedule *res = x && (int)x->val.kind == SV_SCHED ? sched_of(&ev, &x->val) : ev.scheds[ev.nscheds - 1];
    IrModule *nm = sch_take_mod(res);
    ir_module_free(*m);
    *m = nm;
  }
  for (int i = 0; i < ev.nvars; i++) sch_val_free(&ev.vars[i].val);
  free(ev.vars);
  for (int i = 0; i < ev.nscheds; i++) sch_free(ev.scheds[i]);
  free(ev.scheds);
  return rc;
}

int sch_eval_text(const SourceFile *src, IrModule **m, DiagCtx *diag, StrBuf *out) {
  int nerr = diag->nerr;
  AstFile *f = parse_file(src, diag);
  int rc = diag->nerr > nerr ? -1 : sch_eval_file(f, m, diag, out);
  ast_file_free(f);
  return rc;
}

int sch_apply_schedules(IrModule **m, const SourceFile *src, const char *sched_path, DiagCtx *diag,
                        StrBuf *out) {
  if (src) {
    int nerr = diag->nerr;
    AstFile *f = parse_file(src, diag);
    int rc = diag->nerr > nerr ? -1 : sch_eval_file(f, m, diag, out);
    ast_file_free(f);
    if (rc) return -1;
  }
  if (!sched_path) return 0;
  const char *why = NULL;
  SourceFile *ss = src_from_path(sched_path, &why);
  if (!ss) {
    diag_error(diag, span_none, "cannot open schedule file '%s': %s", sched_path, why);
    return -1;
  }
  int rc = sch_eval_text(ss, m, diag, out);
  diag_flush(diag); /* records point into ss */
  src_free(ss);
  return rc;
}

/* ------------------------------------------- incremental scripts (the REPL) */

struct SchScript {
  Eval ev;  /* the evaluator state kept between statements */
};

SchScript *sch_script_new(const IrModule *m, DiagCtx *diag) {
  SchScript *sc = xcalloc(1, sizeof *sc);
  sc->ev.diag = diag;
  sc->ev.input = m;
  assign(&sc->ev, "sch", val_kind(SV_SCHED, new_sched(&sc->ev)));
  return sc;
}

void sch_script_free(SchScript *sc) {
  if (!sc) return;
  for (int i = 0; i < sc->ev.nvars; i++) sch_val_free(&sc->ev.vars[i].val), free(sc->ev.vars[i].own);
  free(sc->ev.vars);
  for (int i = 0; i < sc->ev.nscheds; i++) sch_free(sc->ev.scheds[i]);
  free(sc->ev.scheds);
  free(sc);
}

void sch_script_set_color(SchScript *sc, bool color) { sc->ev.color = color; }

int sch_script_exec(SchScript *sc, const Ast *st, StrBuf *out) {
  Eval *ev = &sc->ev;
  ev->failed = false;
  ev->out = out;
  int nerr = ev->diag->nerr;
  if (st->kind == AST_FUNCDEF && !st->decorators.len) {
    if (st->list.len != 1 || !st->list.items[0]->name)
      err(ev, st->span, "a schedule function takes one parameter, the schedule: def %s(sch):", st->name);
    else if (ev->ndefs == 16)
      err(ev, st->span, "too many schedule functions (at most 16)");
    else
      ev->def_nodes[ev->ndefs++] = st;
  } else if (is_module_stmt(st) && st->kind != AST_PASS && st->kind != AST_IMPORT &&
             st->kind != AST_FROM_IMPORT && !(st->kind == AST_EXPR_STMT)) {
    err(ev, st->span, "module definitions cannot be evaluated as schedule statements");
  } else if (st->kind == AST_EXPR_STMT && st->a->kind != AST_STR) {
    /* As Python's REPL does: a bare expression's value is printed. */
    SchVal v = eval(ev, st->a);
    if (!ev->failed && v.kind != SV_NONE) emit(ev, &v);
    sch_val_free(&v);
  } else {
    script_stmt(ev, st);
  }
  ev->out = NULL;
  return ev->failed || ev->diag->nerr > nerr ? -1 : 0;
}

Schedule *sch_script_schedule(const SchScript *sc) {
  const Eval *ev = &sc->ev;
  for (int i = ev->nvars - 1; i >= 0; i--)
    if (!strcmp(ev->vars[i].name, "sch") && (int)ev->vars[i].val.kind == SV_SCHED)
      return ev->scheds[ev->vars[i].val.i];
  return ev->scheds[ev->nscheds - 1];
}

int sch_script_nvars(const SchScript *sc) { return sc->ev.nvars; }

const char *sch_script_var(const SchScript *sc, int i, SchScriptVarKind *kind) {
  if (i < 0 || i >= sc->ev.nvars) return NULL;
  const SchVal *v = &sc->ev.vars[i].val;
  SchScriptVarKind k = SCH_VAR_OTHER;
  if ((int)v->kind == SV_SCHED) k = SCH_VAR_SCHEDULE;
  else if (v->kind == SV_LIST) k = SCH_VAR_LIST;
  else if (v->kind == SV_RV) {
    /* The handle belongs to the schedule bound to `sch` in practice. */
    Schedule *s = sch_script_schedule(sc);
    SchRVKind rk = v->i < s->nrvs ? sch_rv_kind(s, (SchRV)v->i) : SCH_RV_EXPR;
    k = rk == SCH_RV_BLOCK ? SCH_VAR_BLOCK : rk == SCH_RV_LOOP ? SCH_VAR_LOOP : SCH_VAR_OTHER;
  }
  if (kind) *kind = k;
  return sc->ev.vars[i].name;
}

void sch_script_bind(SchScript *sc, const char *name, const SchRV *rvs, int n, bool as_list) {
  Eval *ev = &sc->ev;
  SchVal v = as_list ? sch_val_rv_list(rvs, n) : sch_val_rv(rvs[0]);
  if (lookup(ev, name)) {
    assign(ev, name, v);
    return;
  }
  char *own = xstrdup(name); /* the caller's string need not outlive the binding */
  assign(ev, own, v);
  ev->vars[ev->nvars - 1].own = own;
}

int sch_script_lookup(const SchScript *sc, const char *name, SchRV *rvs, int cap) {
  const Eval *ev = &sc->ev;
  for (int i = ev->nvars - 1; i >= 0; i--) {
    if (strcmp(ev->vars[i].name, name)) continue;
    const SchVal *v = &ev->vars[i].val;
    if (v->kind == SV_RV) {
      if (cap > 0) rvs[0] = (SchRV)v->i;
      return 1;
    }
    if (v->kind != SV_LIST) return -1;
    for (int k = 0; k < v->n; k++)
      if (v->items[k].kind != SV_RV) return -1;
    for (int k = 0; k < v->n && k < cap; k++) rvs[k] = (SchRV)v->items[k].i;
    return v->n;
  }
  return -1;
}

const char *sch_script_method(int i, const char **params, int *nparams) {
  const SchMethod *m = i < 0 ? NULL : sch_method_at(i);
  if (!m) return NULL;
  if (params)
    for (int k = 0; k < m->nparams; k++) params[k] = m->params[k].name;
  if (nparams) *nparams = m->nparams;
  return m->name;
}

bool sch_method_signature(const char *name, StrBuf *out) {
  const SchMethod *m = sch_method_lookup(name);
  if (!m) return false;
  sb_printf(out, "sch.%s(", m->name);
  for (int k = 0; k < m->nparams; k++) {
    const SchParam *p = &m->params[k];
    sb_printf(out, "%s%s%s", k ? ", " : "", p->kind == SP_BLOCKS ? "*" : "", p->name);
    if (p->dflt) sb_printf(out, "=%s", p->dflt);
  }
  sb_printf(out, ")%s", m->out == SO_ONE ? " -> handle" : m->out == SO_LIST ? " -> list of handles" : "");
  if (!m->traced) sb_puts(out, "  (not recorded in the trace)");
  return true;
}
