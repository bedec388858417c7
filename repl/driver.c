/* driver.c - `tvs repl`: arguments, then the interactive loop on a
 * terminal or script mode otherwise (stdin not a terminal, or --script FILE):
 * every input is echoed after its prompt with its output, and the first
 * error stops the script with exit code 1 unless --keep-going. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "repl/repl_internal.h"

static bool is_blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\r') return false;
  return true;
}

static bool opens_block(const char *text) {
  size_t n = strcspn(text, "\n");
  while (n && (text[n - 1] == ' ' || text[n - 1] == '\t')) n--;
  return n && text[n - 1] == ':' && text[0] != ':' && text[0] != '#';
}

/* Runs the buffered input; updates the error count; 1 = stop. */
static int flush_input(Repl *r, StrBuf *buf, int line, int *nerr, int *quit) {
  if (!buf->len) return 0;
  int x = repl_exec(r, buf->data, line);
  fflush(r->opt.out);
  buf->len = 0;
  buf->data[0] = '\0';
  if (x == 1) return *quit = 1, 1;
  if (x < 0) {
    (*nerr)++;
    if (!r->opt.keep_going) return 1;
  }
  return 0;
}

int repl_run_script(Repl *r, FILE *in, const char *name) {
  r->src_name = name;
  r->echo = true;
  StrBuf buf;
  sb_init(&buf);
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  int lineno = 0, start = 0, nerr = 0, quit = 0;
  bool stop = false;
  while (!stop && (got = getline(&line, &cap, in)) >= 0) {
    lineno++;
    while (got && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = '\0';
    if (buf.len) {
      bool block = opens_block(buf.data);
      /* A `:command` never continues a statement: the open one ends here. */
      if ((block && (is_blank(line) || (line[0] != ' ' && line[0] != '\t'))) || line[0] == ':') {
        /* The block ended; this line (if not blank) starts a new input. */
        if (flush_input(r, &buf, start, &nerr, &quit)) break;
        if (is_blank(line)) continue;
      } else {
        fprintf(r->opt.out, "... %s\n", line);
        sb_putc(&buf, '\n');
        sb_puts(&buf, line);
        if (!block && !repl_input_incomplete(buf.data) && flush_input(r, &buf, start, &nerr, &quit)) stop = true;
        continue;
      }
    }
    if (is_blank(line)) continue;
    fprintf(r->opt.out, ">>> %s\n", line);
    start = lineno;
    sb_puts(&buf, line);
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == ':' || *p == '#' || (!opens_block(buf.data) && !repl_input_incomplete(buf.data)))
      if (flush_input(r, &buf, start, &nerr, &quit)) stop = true;
  }
  if (!stop && !quit && buf.len) flush_input(r, &buf, start, &nerr, &quit);
  free(line);
  sb_free(&buf);
  return nerr ? 1 : 0;
}

static const char usage[] =
    "usage: tvs repl [FILE.tvs] [SCRIPT ...] [--script FILE] [--keep-going] [--color=auto|always|never]\n"
    "Explore schedules interactively.  FILE.tvs is loaded (`sch` is a Schedule of\n"
    "it); further files are schedule scripts run first, echoed.  When stdin is not a\n"
    "terminal, or with --script FILE, the lines are run as a script: each is echoed\n"
    "after its prompt with its output, and the first error stops with exit code 1\n"
    "(--keep-going runs on).  Inside, :help lists the commands.\n";

int repl_main(int argc, char **argv) {
  ReplOptions opt = repl_options_default();
  const char *script = NULL, *module = NULL;
  const char *pre[32];
  int npre = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(a, "--keep-going") || !strcmp(a, "-k")) {
      opt.keep_going = true;
    } else if (!strcmp(a, "--script") || !strncmp(a, "--script=", 9)) {
      script = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
      if (!script) {
        fprintf(stderr, "tvs repl: error: --script needs a file\n");
        return 2;
      }
    } else if (!strncmp(a, "--color", 7)) {
      const char *v = a[7] == '=' ? a + 8 : "always";
      opt.color = !strcmp(v, "always") ? 1 : !strcmp(v, "never") ? 0 : !strcmp(v, "auto") ? -1 : -2;
      if (opt.color == -2) {
        fprintf(stderr, "tvs repl: error: unknown --color value '%s'\n", v);
        return 2;
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "tvs repl: error: unknown option '%s'\n%s", a, usage);
      return 2;
    } else if (!module) {
      module = a;
    } else if (npre < 32) {
      pre[npre++] = a;
    }
  }
  Repl *r = repl_new(&opt);
  int rc = 0;
  if (module && repl_load(r, module) != 0) {
    repl_free(r);
    return 1;
  }
  for (int i = 0; i < npre && rc == 0; i++) {
    FILE *f = fopen(pre[i], "r");
    if (!f) {
      fprintf(stderr, "tvs repl: error: cannot open '%s'\n", pre[i]);
      rc = 1;
      break;
    }
    rc = repl_run_script(r, f, pre[i]);
    fclose(f);
  }
  if (rc == 0) {
    if (script) {
      FILE *f = !strcmp(script, "-") ? stdin : fopen(script, "r");
      if (!f) {
        fprintf(stderr, "tvs repl: error: cannot open '%s'\n", script);
        rc = 1;
      } else {
        rc = repl_run_script(r, f, f == stdin ? "<stdin>" : script);
        if (f != stdin) fclose(f);
      }
    } else if (isatty(0) && isatty(1)) {
      rc = repl_run_interactive(r);
    } else {
      rc = repl_run_script(r, stdin, "<stdin>");
    }
  }
  repl_free(r);
  return rc;
}
