/* complete.c - TAB completion from what is before the cursor: command
 * names and their arguments (stages, functions, blocks, file paths,
 * settings), schedule methods after `sch.`, their keyword arguments inside
 * the call's parentheses, block names inside a string, and the variables in
 * scope.  The line editor (lineedit.c) and the tests call repl_complete. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "repl/repl_internal.h"

typedef struct Words {
  char **v;
  int n, cap;
  const char *prefix;  /* only words starting with this are kept */
} Words;

static void add(Words *w, const char *s) {
  size_t pl = strlen(w->prefix);
  if (strncmp(s, w->prefix, pl)) return;
  for (int i = 0; i < w->n; i++)
    if (!strcmp(w->v[i], s)) return;
  VEC_PUSH(w->v, w->n, w->cap, xstrdup(s));
}

void repl_free_words(char **words, int n) {
  for (int i = 0; i < n; i++) free(words[i]);
  free(words);
}

/* ------------------------------------------------------------- sources */

static void add_funcs(Repl *r, Words *w) {
  const IrModule *m = repl_cur_mod(r);
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR) add(w, m->funcs[i].name);
}

static void collect_blocks(Words *w, const TirStmt *s) {
  if (!s) return;
  switch (s->kind) {
    case TIR_S_FOR: collect_blocks(w, s->loop.body); return;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) collect_blocks(w, s->seq.stmts[i]);
      return;
    case TIR_S_BLOCK_REALIZE: {
      const TirBlock *b = &s->realize.block->block;
      if (strcmp(b->name, "root")) add(w, b->name);
      collect_blocks(w, b->init);
      collect_blocks(w, b->body);
      return;
    }
    case TIR_S_IF:
      collect_blocks(w, s->ifs.then_s);
      collect_blocks(w, s->ifs.else_s);
      return;
    case TIR_S_LET: collect_blocks(w, s->let.body); return;
    case TIR_S_ALLOCATE: collect_blocks(w, s->alloc.body); return;
    case TIR_S_DECL_BUFFER: collect_blocks(w, s->decl.body); return;
    case TIR_S_ATTR: collect_blocks(w, s->attr.body); return;
    default: return;
  }
}

static void add_blocks(Repl *r, Words *w) {
  const IrModule *m = repl_cur_mod(r);
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR) collect_blocks(w, m->funcs[i].tir->body);
}

static void add_vars(Repl *r, Words *w, int only_kind) {
  for (int i = 0; i < sch_script_nvars(r->script); i++) {
    SchScriptVarKind k;
    const char *n = sch_script_var(r->script, i, &k);
    if (only_kind < 0 || (int)k == only_kind) add(w, n);
  }
}

static void add_paths(Words *w, const char *word) {
  const char *slash = strrchr(word, '/');
  char *dir = slash ? xstrndup(word, (size_t)(slash - word + 1)) : xstrdup("");
  const char *base = slash ? slash + 1 : word;
  DIR *d = opendir(*dir ? dir : ".");
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      if (e->d_name[0] == '.' && base[0] != '.') continue;
      if (strncmp(e->d_name, base, strlen(base))) continue;
      char *full = xasprintf("%s%s", dir, e->d_name);
      DIR *sub = opendir(full);
      if (sub) {
        closedir(sub);
        char *withslash = xasprintf("%s/", full);
        add(w, withslash);
        free(withslash);
      } else {
        add(w, full);
      }
      free(full);
    }
    closedir(d);
  }
  free(dir);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ------------------------------------------------------------ commands */

static void complete_command(Repl *r, const char *text, Words *w, int *start) {
  /* text starts with ':' (after leading blanks, removed by the caller). */
  const char *sp = strpbrk(text, " \t");
  if (!sp) {
    *start = 0;
    for (int i = 0; repl_command_name(i); i++) {
      char *c = xasprintf(":%s", repl_command_name(i));
      add(w, c);
      free(c);
    }
    return;
  }
  char *cmd = xstrndup(text + 1, (size_t)(sp - text - 1));
  /* The word being completed starts after the last blank; argi counts the
   * complete arguments before it (1-based index of the word). */
  const char *word = text + strlen(text);
  while (word > sp && word[-1] != ' ' && word[-1] != '\t') word--;
  int argi = 1;
  for (const char *p = sp; p < word;) {
    while (p < word && (*p == ' ' || *p == '\t')) p++;
    if (p >= word) break;
    argi++;
    while (p < word && *p != ' ' && *p != '\t') p++;
  }
  *start = (int)(word - text);
  w->prefix = word;
  if (!strcmp(cmd, "help")) {
    for (int i = 0; repl_command_name(i); i++) add(w, repl_command_name(i));
  } else if (!strcmp(cmd, "load") || (!strcmp(cmd, "write") && argi == 1) ||
             (!strcmp(cmd, "trace") && argi == 2)) {
    add_paths(w, word);
  } else if (!strcmp(cmd, "trace") && argi == 1) {
    add(w, "save");
  } else if (!strcmp(cmd, "show")) {
    for (int i = 0, n = drv_stage_count(); i < n; i++)
      if (drv_stage_at(i).kind & DRV_STAGES_REPL) add(w, drv_stage_at(i).name);
    add_funcs(r, w);
  } else if (!strcmp(cmd, "blocks") || !strcmp(cmd, "run") || !strcmp(cmd, "time") || !strcmp(cmd, "write") ||
             (!strcmp(cmd, "loops") && argi == 2)) {
    add_funcs(r, w);
  } else if (!strcmp(cmd, "loops")) {
    add_blocks(r, w);
  } else if (!strcmp(cmd, "target")) {
    add(w, "cpu");
    add(w, "interp");
  } else if (!strcmp(cmd, "set") && argi == 1) {
    add(w, "threads");
    add(w, "repeat");
    add(w, "color");
    add(w, "pager");
    add(w, "bounds-check");
  } else if (!strcmp(cmd, "set") && argi == 2 && (strstr(text, "color") || strstr(text, "bounds-check"))) {
    add(w, "on");
    add(w, "off");
    add(w, "auto");
  }
  free(cmd);
}

/* ---------------------------------------------------------- statements */

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The dotted name ending just before position end (e.g. "sch.mod"). */
static char *dotted_before(const char *text, int end) {
  int b = end;
  while (b > 0 && (ident_char(text[b - 1]) || text[b - 1] == '.')) b--;
  return xstrndup(text + b, (size_t)(end - b));
}

static bool is_schedule_var(Repl *r, const char *name) {
  for (int i = 0; i < sch_script_nvars(r->script); i++) {
    SchScriptVarKind k;
    const char *n = sch_script_var(r->script, i, &k);
    if (!strcmp(n, name)) return k == SCH_VAR_SCHEDULE;
  }
  return false;
}

static void add_methods(Words *w) {
  const char *params[8];
  int np;
  for (int i = 0; sch_script_method(i, params, &np); i++) add(w, sch_script_method(i, NULL, NULL));
  add(w, "mod");
  add(w, "trace");
}

/* Completes inside a string literal (block or function names) and does
 * nothing in a comment: true in either case, false elsewhere. */
static bool complete_in_string(Repl *r, const char *text, Words *w, int *start) {
  int len = (int)strlen(text);
  /* Inside a string literal?  Count quotes outside of other strings. */
  char q = 0;
  int qpos = -1;
  for (int i = 0; i < len; i++) {
    if (q) {
      if (text[i] == '\\') i++;
      else if (text[i] == q) q = 0;
    } else if (text[i] == '"' || text[i] == '\'') {
      q = text[i];
      qpos = i;
    } else if (text[i] == '#') {
      return true; /* a comment */
    }
  }
  if (!q) return false;
  *start = qpos + 1;
  w->prefix = text + qpos + 1;
  /* func_name="..." and work_on("...") take functions, the rest blocks. */
  int e = qpos;
  while (e > 0 && text[e - 1] == ' ') e--;
  bool funcs = (e >= 10 && !strncmp(text + e - 10, "func_name=", 10)) ||
               (e >= 8 && !strncmp(text + e - 8, "work_on(", 8));
  if (funcs) add_funcs(r, w);
  else add_blocks(r, w);
  return true;
}

/* Completes inside the parentheses of a call (the word starts at b): a
 * schedule method's keyword arguments, then values.  False when not in one. */
static bool complete_call_args(Repl *r, const char *text, int b, Words *w) {
  /* Inside the parentheses of sch.method( ... ?  Find the innermost open one. */
  int depth = 0, open = -1;
  for (int i = b - 1; i >= 0; i--) {
    if (text[i] == ')' || text[i] == ']') depth++;
    else if (text[i] == '(' || text[i] == '[') {
      if (depth == 0) {
        open = text[i] == '(' ? i : -1;
        if (text[i] == '[') {
          /* inside a list: keep looking for the call around it */
          continue;
        }
        break;
      }
      depth--;
    }
  }
  if (open <= 0) return false;
  bool after_eq = false;
  for (int i = b - 1; i >= 0 && (text[i] == ' ' || text[i] == '='); i--)
    if (text[i] == '=') after_eq = true;
  char *callee = dotted_before(text, open);
  const char *dot = strrchr(callee, '.');
  if (dot && !after_eq) {
    char *obj = xstrndup(callee, (size_t)(dot - callee));
    if (is_schedule_var(r, obj)) {
      const char *params[8];
      int np = 0;
      for (int i = 0; sch_script_method(i, params, &np); i++) {
        if (strcmp(sch_script_method(i, NULL, NULL), dot + 1)) continue;
        for (int k = 0; k < np; k++) {
          char *kw = xasprintf("%s=", params[k]);
          add(w, kw);
          free(kw);
        }
      }
    }
    free(obj);
  }
  free(callee);
  add_vars(r, w, -1);
  add(w, "None");
  add(w, "True");
  add(w, "False");
  return true;
}

static void complete_statement(Repl *r, const char *text, Words *w, int *start) {
  if (complete_in_string(r, text, w, start)) return;
  int b = (int)strlen(text);
  while (b > 0 && ident_char(text[b - 1])) b--;
  *start = b;
  w->prefix = text + b;
  if (b > 0 && text[b - 1] == '.') {
    char *obj = dotted_before(text, b - 1);
    if (is_schedule_var(r, obj)) add_methods(w);
    else if (!strcmp(obj, "tvm")) add(w, "tir");
    else if (!strcmp(obj, "tvm.tir") || !strcmp(obj, "tir")) add(w, "Schedule");
    else if (strlen(obj) > 4 && (!strcmp(obj + strlen(obj) - 4, ".mod") || !strcmp(obj + strlen(obj) - 6, ".trace")))
      add(w, "show");
    free(obj);
    return;
  }
  if (complete_call_args(r, text, b, w)) return;
  add_vars(r, w, -1);
  add(w, repl_cur_mod(r)->name);
  add(w, "Schedule");
  add(w, "print");
  add(w, "tvm");
}

int repl_complete(Repl *r, const char *text, int *start, char ***out) {
  Words w = {NULL, 0, 0, ""};
  int lead = 0;
  while (text[lead] == ' ' || text[lead] == '\t') lead++;
  *start = (int)strlen(text);
  if (text[lead] == ':') {
    w.prefix = text + lead;
    complete_command(r, text + lead, &w, start);
    *start += lead;
  } else {
    complete_statement(r, text, &w, start);
  }
  if (w.n > 1) qsort(w.v, (size_t)w.n, sizeof *w.v, cmp_str);
  *out = w.v;
  return w.n;
}
