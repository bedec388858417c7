/* lineedit.c - the interactive loop on a terminal, with libedit: emacs
 * keys, history in ~/.tvs_history ($HOME), Ctrl-R incremental search,
 * TAB completion (complete.c) and `...` continuation lines while the input
 * is incomplete or a block (`def f(sch):`) is open. */
#include <histedit.h>
#include <stdlib.h>
#include <string.h>

#include "repl/repl_internal.h"

typedef struct LineEdit {
  Repl *r;
  bool continuation;  /* the prompt is "... " */
} LineEdit;

static char *prompt_fn(EditLine *el) {
  LineEdit *le = NULL;
  el_get(el, EL_CLIENTDATA, &le);
  return le && le->continuation ? "... " : ">>> ";
}

/* Prints candidates in columns under the line. */
static void list_words(FILE *out, char **w, int n) {
  size_t width = 0;
  for (int i = 0; i < n; i++)
    if (strlen(w[i]) > width) width = strlen(w[i]);
  width += 2;
  int cols = (int)(80 / width);
  if (cols < 1) cols = 1;
  fputc('\n', out);
  for (int i = 0; i < n; i++) {
    fprintf(out, "%-*s", (int)width, w[i]);
    if ((i + 1) % cols == 0 || i + 1 == n) fputc('\n', out);
  }
}

static unsigned char complete_fn(EditLine *el, int ch) {
  LineEdit *le = NULL;
  el_get(el, EL_CLIENTDATA, &le);
  const LineInfo *li = el_line(el);
  char *before = xstrndup(li->buffer, (size_t)(li->cursor - li->buffer));
  int start = 0;
  char **w = NULL;
  int n = repl_complete(le->r, before, &start, &w);
  unsigned char res = CC_ERROR;
  if (n > 0) {
    size_t typed = strlen(before + start);
    size_t common = strlen(w[0]);
    for (int i = 1; i < n; i++) {
      size_t k = 0;
      while (k < common && w[i][k] == w[0][k]) k++;
      common = k;
    }
    if (common > typed) {
      char *ins = xstrndup(w[0] + typed, common - typed);
      el_insertstr(el, ins);
      free(ins);
      res = CC_REFRESH;
    }
    if (n == 1) {
      /* A finished word: close the string, or separate a command. */
      size_t wl = strlen(w[0]);
      char last = wl ? w[0][wl - 1] : 0;
      if (start > 0 && (before[start - 1] == '"' || before[start - 1] == '\'')) {
        char q[2] = {before[start - 1], 0};
        el_insertstr(el, q);
      } else if (before[0] == ':' && last != '/' && last != '=') {
        el_insertstr(el, " ");
      }
      res = CC_REFRESH;
    } else if (common <= typed) {
      list_words(stdout, w, n);
      res = CC_REDISPLAY;
    }
  }
  repl_free_words(w, n);
  free(before);
  return res;
}

/* Whether the first line of a buffer opens a block (ends with ':'). */
static bool opens_block(const char *text) {
  const char *nl = strchr(text, '\n');
  size_t n = nl ? (size_t)(nl - text) : strlen(text);
  while (n && (text[n - 1] == ' ' || text[n - 1] == '\t')) n--;
  return n && text[n - 1] == ':' && text[0] != ':';
}

int repl_run_interactive(Repl *r) {
  EditLine *el = el_init("tvs", stdin, stdout, stderr);
  if (!el) return repl_run_script(r, stdin, "<stdin>");
  History *h = history_init();
  HistEvent ev;
  history(h, &ev, H_SETSIZE, 1000);
  history(h, &ev, H_SETUNIQUE, 1);
  const char *home = getenv("HOME");
  char *hist_path = home && *home ? xasprintf("%s/.tvs_history", home) : NULL;
  if (hist_path) history(h, &ev, H_LOAD, hist_path);
  LineEdit le = {r, false};
  el_set(el, EL_CLIENTDATA, &le);
  el_set(el, EL_EDITOR, "emacs");
  el_set(el, EL_HIST, history, h);
  el_set(el, EL_PROMPT, prompt_fn);
  /* The wide form: libedit's narrow EL_ADDFN keeps wcsdup'd copies it never frees. */
  el_wset(el, EL_ADDFN, L"tvs-complete", L"complete commands, methods, blocks, variables", complete_fn);
  el_set(el, EL_BIND, "^I", "tvs-complete", NULL);
  el_set(el, EL_BIND, "^R", "em-inc-search-prev", NULL);
  el_source(el, NULL);
  r->src_name = "<repl>";
  fprintf(r->opt.out, "tvs repl: schedule statements as in TVM's Python API; :help for commands, :quit to leave\n");
  if (r->path) fprintf(r->opt.out, "loaded %s (module %s); `sch` is a Schedule of it\n", r->path, r->base->name);
  StrBuf buf;
  sb_init(&buf);
  int rc = 0;
  for (;;) {
    le.continuation = buf.len > 0;
    int count = 0;
    const char *line = el_gets(el, &count);
    if (!line) {
      if (buf.len) repl_exec(r, buf.data, 0);
      fputc('\n', r->opt.out);
      break;
    }
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
    bool blank = true;
    for (size_t i = 0; i < n; i++) blank &= line[i] == ' ' || line[i] == '\t';
    if (!blank) {
      char *entry = xstrndup(line, n);
      history(h, &ev, H_ENTER, entry);
      if (hist_path) history(h, &ev, H_SAVE, hist_path);
      free(entry);
    }
    if (!buf.len && blank) continue;
    if (buf.len && n && line[0] == ':') {
      /* A command never continues a statement: run (and fail) what is open. */
      repl_exec(r, buf.data, 0);
      buf.len = 0;
      buf.data[0] = '\0';
    }
    if (buf.len) sb_putc(&buf, '\n');
    sb_putn(&buf, line, n);
    if (opens_block(buf.data) && !blank) continue;  /* a block ends at a blank line */
    if (!blank && buf.data[0] != ':' && repl_input_incomplete(buf.data)) continue;
    int x = repl_exec(r, buf.data, 0);
    fflush(r->opt.out);
    buf.len = 0;
    buf.data[0] = '\0';
    if (x == 1) break;
  }
  sb_free(&buf);
  free(hist_path);
  history_end(h);
  el_end(el);
  return rc;
}
