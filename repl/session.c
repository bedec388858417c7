/* session.c - the REPL session: the loaded module, the schedule-script
 * evaluator, the list of steps that succeeded, and undo/redo/reset by replay.
 * A failed input never changes the state: when it got half-way (a statement
 * applied a primitive and a later one failed), the session is rebuilt from
 * its steps. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "driver/load.h"
#include "lang/elab.h"
#include "parser/parser.h"
#include "repl/repl_internal.h"

ReplOptions repl_options_default(void) {
  ReplOptions o;
  o.out = stdout;
  o.err = stderr;
  o.color = -1;
  o.keep_going = false;
  return o;
}

static bool want_color(int setting, FILE *f) {
  if (setting >= 0) return setting == 1;
  const char *nc = getenv("NO_COLOR");
  if (nc && *nc) return false;
  return isatty(fileno(f)) != 0;
}

Repl *repl_new(const ReplOptions *opt) {
  Repl *r = xcalloc(1, sizeof *r);
  r->opt = *opt;
  r->color = want_color(opt->color, opt->out);
  diag_init(&r->diag, opt->err);
  r->diag.color = want_color(opt->color, opt->err);
  r->target_cpu = true;
  r->bounds_check = -1; /* auto */
  r->src_name = "<repl>";
  r->base = ir_module_new("Module");
  r->base->implicit = true;
  r->script = sch_script_new(r->base, &r->diag);
  sch_script_set_color(r->script, r->color);
  return r;
}

static void step_free(ReplStep *s) {
  free(s->text);
  ast_file_free(s->ast);
  src_free(s->src);
}

static void clear_redo(Repl *r) {
  for (int g = 0; g < r->nredo; g++) {
    for (int i = 0; i < r->redo[g].n; i++) step_free(&r->redo[g].steps[i]);
    free(r->redo[g].steps);
  }
  free(r->redo);
  r->redo = NULL;
  r->nredo = r->capredo = 0;
}

static void clear_steps(Repl *r) {
  for (int i = 0; i < r->nsteps; i++) step_free(&r->steps[i]);
  r->nsteps = 0;
}

static void clear_times(Repl *r) {
  for (int i = 0; i < r->ntimes; i++) free(r->times[i].func);
  free(r->times);
  r->times = NULL;
  r->ntimes = r->captimes = 0;
}

void repl_free(Repl *r) {
  if (!r) return;
  sch_script_free(r->script);
  clear_steps(r);
  free(r->steps);
  clear_redo(r);
  clear_times(r);
  repl_free_refs(r);
  ir_module_free(r->prev);
  free(r->prev_what);
  ir_module_free(r->base);
  src_free(r->src);
  free(r->path);
  diag_free(&r->diag);
  free(r);
}

void repl_error(Repl *r, const char *fmt, ...) {
  fflush(r->opt.out);
  va_list ap;
  va_start(ap, fmt);
  if (r->diag.color) fputs("\033[1;31merror:\033[0m ", r->opt.err);
  else fputs("error: ", r->opt.err);
  vfprintf(r->opt.err, fmt, ap);
  va_end(ap);
  fputc('\n', r->opt.err);
  fflush(r->opt.err);
}

/* Long outputs (more lines than the terminal shows) go through $PAGER
 * (default "less -R") only when asked with :set pager on and only when the
 * output is a terminal; otherwise, and if the pager cannot start, they are
 * printed directly. */
static bool page(Repl *r, const char *s) {
  if (!r->pager || !isatty(fileno(r->opt.out))) return false;
  struct winsize ws;
  int rows = ioctl(fileno(r->opt.out), TIOCGWINSZ, &ws) == 0 && ws.ws_row ? ws.ws_row : 24;
  int lines = 0;
  for (const char *p = s; *p; p++) lines += *p == '\n';
  if (lines < rows - 1) return false;
  const char *pager = getenv("PAGER");
  FILE *pp = popen(pager && *pager ? pager : "less -R", "w");
  if (!pp) return false;
  fflush(r->opt.out);
  fputs(s, pp);
  return pclose(pp) != -1;
}

void repl_puts(Repl *r, const char *s) {
  if (page(r, s)) return;
  fputs(s, r->opt.out);
  size_t n = strlen(s);
  if (n && s[n - 1] != '\n') fputc('\n', r->opt.out);
}

const IrModule *repl_cur_mod(Repl *r) { return sch_mod(sch_script_schedule(r->script)); }

void repl_note_prev(Repl *r, const IrModule *m, const char *what) {
  ir_module_free(r->prev);
  free(r->prev_what);
  r->prev = ir_module_copy(m);
  r->prev_what = xstrdup(what);
}

const char *repl_default_func(Repl *r, const char *given) {
  const IrModule *m = repl_cur_mod(r);
  if (given) {
    const IrGlobal *g = ir_module_lookup(m, given);
    if (g && g->kind == IR_FUNC_TIR) return g->name;
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < m->nfuncs; i++)
      if (m->funcs[i].kind == IR_FUNC_TIR) sb_printf(&sb, "%s%s", sb.len ? ", " : "", m->funcs[i].name);
    repl_error(r, "the module has no prim_func '%s' (prim_funcs: %s)", given, sb.len ? sb.data : "none");
    sb_free(&sb);
    return NULL;
  }
  const IrGlobal *first = NULL;
  int n = 0;
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR) n++, first = first ? first : &m->funcs[i];
  if (n == 1) return first->name;
  const IrGlobal *g = ir_module_lookup(m, "main");
  if (g && g->kind == IR_FUNC_TIR) return g->name;
  if (first) return first->name;
  repl_error(r, "the module has no prim_func%s", r->path ? "" : " (load one with :load FILE)");
  return NULL;
}

/* ------------------------------------------------------------ replay */

/* Rebuilds the evaluator from the base module and the steps (silently). */
static void rebuild(Repl *r) {
  sch_script_free(r->script);
  r->script = sch_script_new(r->base, &r->diag);
  sch_script_set_color(r->script, r->color);
  for (int i = 0; i < r->nsteps; i++) {
    const AstList *body = &r->steps[i].ast->module->body;
    for (int k = 0; k < body->len; k++)
      if (sch_script_exec(r->script, body->items[k], NULL) != 0) {
        diag_flush(&r->diag);
        repl_error(r, "internal: replaying step %d failed", i + 1);
      }
  }
  diag_clear(&r->diag);
}

static int exec_statements(Repl *r, const char *text, int line);

/* A loaded file's own schedule statements (those `tvs run` applies) become
 * the session's first steps, said so, so the REPL starts where the tools
 * do; :undo takes them back one by one. */
static int apply_file_schedule(Repl *r) {
  DiagCtx d;
  diag_init(&d, NULL);
  AstFile *f = parse_file(r->src, &d);
  diag_free(&d);
  if (!f) return 0;
  const AstList *body = &f->module->body;
  int n = 0, rc = 0;
  for (int i = 0; i < body->len; i++) n += sch_is_script_stmt(body->items[i]);
  if (n) fprintf(r->opt.out, "applying the %d schedule statement%s of %s (:undo takes them back)\n", n,
                 n == 1 ? "" : "s", r->path);
  const char *saved = r->src_name;
  r->src_name = r->path; /* their diagnostics point into the file */
  for (int i = 0; i < body->len && rc == 0; i++) {
    const Ast *st = body->items[i];
    if (!sch_is_script_stmt(st)) continue;
    /* the statement's text runs up to where the next top-level one starts */
    uint32_t end = i + 1 < body->len ? body->items[i + 1]->span.off : (uint32_t)r->src->len;
    while (end > st->span.off && strchr(" \t\r\n", r->src->text[end - 1])) end--;
    char *text = xstrndup(r->src->text + st->span.off, end - st->span.off);
    rc = exec_statements(r, text, (int)st->span.line);
    free(text);
  }
  r->src_name = saved;
  ast_file_free(f);
  return rc;
}

int repl_load(Repl *r, const char *path) {
  SourceFile *src = NULL;
  IrModule *m = NULL;
  diag_clear(&r->diag);
  if (drv_is_model_path(path)) { /* an ONNX model: imported, its weights bound */
    m = drv_load_source(path, true, &r->diag, &src);
  } else {
    const char *why = NULL;
    if (!(src = src_from_path(path, &why))) {
      repl_error(r, "cannot open '%s': %s", path, why);
      return -1;
    }
    m = tvs_load_module(src, &r->diag);
  }
  diag_flush(&r->diag);
  if (r->diag.nerr || !m) {
    ir_module_free(m);
    src_free(src);
    diag_clear(&r->diag);
    return -1;
  }
  diag_clear(&r->diag);
  /* Everything of the old module goes; steps refer to its handles. */
  clear_steps(r);
  clear_redo(r);
  clear_times(r);
  repl_free_refs(r);
  ir_module_free(r->prev);
  r->prev = NULL;
  free(r->prev_what);
  r->prev_what = NULL;
  sch_script_free(r->script);
  ir_module_free(r->base);
  src_free(r->src);
  free(r->path);
  r->base = m;
  r->src = src;
  r->path = xstrdup(path);
  r->script = sch_script_new(r->base, &r->diag);
  sch_script_set_color(r->script, r->color);
  return apply_file_schedule(r);
}

/* ---------------------------------------------------------- statements */

bool repl_input_incomplete(const char *text) {
  SourceFile *src = src_from_string("<repl>", text, strlen(text));
  bool inc = parse_is_incomplete(src);
  src_free(src);
  return inc;
}

static void push_step(Repl *r, ReplStep st) {
  VEC_PUSH(r->steps, r->nsteps, r->capsteps, st);
}

/* The first line of a step's text, for messages. */
static char *first_line(const char *text) {
  const char *nl = strchr(text, '\n');
  if (!nl) return xstrdup(text);
  return xasprintf("%.*s ...", (int)(nl - text), text);
}

static int exec_statements(Repl *r, const char *text, int line) {
  /* Leading newlines put the statement on its script line for diagnostics. */
  StrBuf sb;
  sb_init(&sb);
  for (int i = 1; i < line; i++) sb_putc(&sb, '\n');
  sb_puts(&sb, text);
  sb_putc(&sb, '\n');
  ReplStep st = {xstrdup(text), src_from_string(r->src_name, sb.data, sb.len), NULL, false};
  sb_free(&sb);
  diag_clear(&r->diag);
  st.ast = parse_file(st.src, &r->diag);
  if (r->diag.nerr) {
    fflush(r->opt.out);
    diag_flush(&r->diag);
    diag_clear(&r->diag);
    step_free(&st);
    return -1;
  }
  Schedule *s0 = sch_script_schedule(r->script);
  const IrModule *m0 = sch_mod(s0);
  int nver0 = sch_num_versions(s0), ntrace0 = sch_trace_len(s0);
  IrModule *before = ir_module_copy(m0);
  const AstList *body = &st.ast->module->body;
  int rc = 0, k;
  StrBuf out;
  sb_init(&out);
  for (k = 0; k < body->len && rc == 0; k++) {
    rc = sch_script_exec(r->script, body->items[k], &out);
    fputs(out.data, r->opt.out);
    out.len = 0;
    out.data[0] = '\0';
  }
  sb_free(&out);
  if (r->diag.len) {
    fflush(r->opt.out);
    diag_flush(&r->diag);
  }
  diag_clear(&r->diag);
  Schedule *s1 = sch_script_schedule(r->script);
  if (rc != 0) {
    /* Half-done work is taken back by replaying the steps that succeeded. */
    if (s1 != s0 || sch_num_versions(s1) != nver0 || sch_trace_len(s1) != ntrace0 || k > 1) rebuild(r);
    ir_module_free(before);
    step_free(&st);
    return -1;
  }
  st.changed = s1 != s0 || sch_mod(s1) != m0;
  if (st.changed) {
    char *what = first_line(text);
    repl_note_prev(r, before, what);
    free(what);
    clear_redo(r);
  }
  ir_module_free(before);
  push_step(r, st);
  return 0;
}

int repl_exec(Repl *r, const char *text, int line) {
  const char *p = text;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  if (!*p || *p == '#') return 0;
  if (*p == ':') return repl_command(r, p);
  return exec_statements(r, text, line);
}

/* ------------------------------------------------------- undo / redo */

int repl_undo(Repl *r) {
  int u = r->nsteps - 1;
  while (u >= 0 && !r->steps[u].changed) u--;
  if (u < 0) {
    repl_error(r, ":undo: nothing to undo");
    return -1;
  }
  IrModule *before = ir_module_copy(repl_cur_mod(r));
  ReplGroup g;
  g.n = r->nsteps - u;
  g.steps = xmalloc((size_t)g.n * sizeof *g.steps);
  memcpy(g.steps, r->steps + u, (size_t)g.n * sizeof *g.steps);
  r->nsteps = u;
  VEC_PUSH(r->redo, r->nredo, r->capredo, g);
  rebuild(r);
  char *what = first_line(g.steps[0].text);
  char *msg = xasprintf(":undo of %s", what);
  repl_note_prev(r, before, msg);
  free(msg);
  ir_module_free(before);
  fprintf(r->opt.out, "undid: %s", what);
  if (g.n > 1) fprintf(r->opt.out, " (and %d later statement%s)", g.n - 1, g.n > 2 ? "s" : "");
  fputc('\n', r->opt.out);
  free(what);
  return 0;
}

int repl_redo(Repl *r) {
  if (!r->nredo) {
    repl_error(r, ":redo: nothing to redo");
    return -1;
  }
  ReplGroup g = r->redo[--r->nredo];
  IrModule *before = ir_module_copy(repl_cur_mod(r));
  char *what = first_line(g.steps[0].text);
  int ok = 1;
  for (int i = 0; i < g.n; i++) {
    const AstList *body = &g.steps[i].ast->module->body;
    for (int k = 0; k < body->len && ok; k++)
      if (sch_script_exec(r->script, body->items[k], NULL) != 0) ok = 0;
    if (ok) push_step(r, g.steps[i]);
    else step_free(&g.steps[i]);
  }
  if (!ok) {
    fflush(r->opt.out);
    diag_flush(&r->diag);
    rebuild(r);
  }
  diag_clear(&r->diag);
  if (ok) {
    char *msg = xasprintf(":redo of %s", what);
    repl_note_prev(r, before, msg);
    free(msg);
    fprintf(r->opt.out, "redid: %s", what);
    if (g.n > 1) fprintf(r->opt.out, " (and %d later statement%s)", g.n - 1, g.n > 2 ? "s" : "");
    fputc('\n', r->opt.out);
  } else {
    repl_error(r, ":redo: the step no longer applies");
  }
  free(what);
  free(g.steps);
  ir_module_free(before);
  return ok ? 0 : -1;
}

void repl_reset(Repl *r) {
  IrModule *before = ir_module_copy(repl_cur_mod(r));
  clear_steps(r);
  clear_redo(r);
  rebuild(r);
  repl_note_prev(r, before, ":reset");
  ir_module_free(before);
  fprintf(r->opt.out, "reset: back to the module as loaded%s%s\n", r->path ? " from " : "",
          r->path ? r->path : "");
}
