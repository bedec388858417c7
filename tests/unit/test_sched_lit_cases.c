/* test_sched_lit_cases.c - every successful schedule case of the lit suite,
 * checked beyond its FileCheck lines.
 *
 * The lit tests under tests/lit/sched pin the printed IR of each primitive
 * (`tvs show IN --schedule S --stage tir`).  This test walks the same RUN
 * lines and, for each case, requires what the printed text cannot show:
 * every prim_func of the scheduled module computes what the unscheduled one
 * does, on the interpreter and compiled natively; the trace printed as script
 * text replays on the original module into a structurally equal module; and
 * the printed module parses back to an equal one.  A new lit case is covered
 * without touching this file. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/schedule.h"

#include "sched_harness.h"

/* Only functions whose parameters are all static-shape float32 buffers can be
 * fed by run_on; others (index tensors, symbolic shapes) are compared by their
 * own unit tests. */
static bool runnable(const TirFunc *f) {
  if (f->nparams > 8) return false;
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map[i];
    if (!b || b->ndim > 4 || b->dtype.code != DT_FLOAT || b->dtype.bits != 32 || b->dtype.lanes != 1)
      return false;
    for (int d = 0; d < b->ndim; d++)
      if (b->shape[d]->kind != TIR_INT) return false;
  }
  return true;
}

static int ncases, nfuncs, nskipped, nexempt;

/* The text of a file (owned by the returned SourceFile), or NULL. */
static SourceFile *open_text(const char *path) {
  const char *why = NULL;
  return src_from_path(path, &why);
}

/* One case: the module in input (with its own schedule statements applied,
 * as `tvs show` does) scheduled by the script file. */
static void check_lit_case(const char *test, const char *input, const char *script_path,
                           bool compare_results) {
  ncases++;
  const char *why = NULL;
  SourceFile *src = src_from_path(input, &why);
  CHECK(src != NULL);
  if (!src) {
    fprintf(stderr, "%s: cannot open %s: %s\n", test, input, why);
    return;
  }
  DiagCtx d;
  diag_init(&d, stderr);
  IrModule *orig = tvs_load_module(src, &d);
  CHECK(orig != NULL);
  if (orig && sch_apply_schedules(&orig, src, NULL, &d, NULL)) ir_module_free(orig), orig = NULL;
  SourceFile *script_file = open_text(script_path);
  const char *body = script_file ? script_file->text : NULL;
  CHECK(orig && body);
  if (!orig || !body) {
    fprintf(stderr, "%s: cannot load %s or %s\n", test, input, script_path);
    goto done;
  }
  /* Print the trace last, so that the last one in the output covers every step;
   * a script in trace form (def apply_trace) is itself the trace. */
  bool trace_form = strstr(body, "def apply_trace") != NULL;
  char *text = trace_form ? xstrdup(body) : xasprintf("%s\nprint(sch.trace)\n", body);
  SourceFile *ss = src_from_string(script_path, text, strlen(text));
  free(text);
  IrModule *m = ir_module_copy(orig);
  StrBuf out;
  sb_init(&out);
  int rc = sch_eval_text(ss, &m, &d, &out);
  diag_flush(&d);
  CHECK_EQ_INT(rc, 0);
  if (rc == 0) {
    for (int i = 0; i < m->nfuncs; i++) {
      const IrGlobal *g = &m->funcs[i];
      if (g->kind != IR_FUNC_TIR) continue;
      if (!compare_results || !runnable(g->tir)) {
        nskipped++;
        continue;
      }
      nfuncs++;
      bool same = same_results(orig, m, g->name);
      CHECK(same);
      if (!same) fprintf(stderr, "%s: %s computes something else after %s\n", test, g->name, script_path);
    }
    const char *tr = trace_form ? body : NULL;
    for (const char *p = trace_form ? NULL : out.data; p && (p = strstr(p, "# from tvm import tir")); p++) tr = p;
    CHECK(tr != NULL);
    IrModule *re = tr ? sch_trace_replay(orig, tr, &d) : NULL;
    diag_flush(&d);
    CHECK(re != NULL);
    char *diff = NULL;
    if (re && !seq_module(re, m, NULL, &diff)) {
      CHECK(false);
      fprintf(stderr, "%s: the replayed trace gives another module: %s\n", test, diff ? diff : "?");
    }
    free(diff);
    ir_module_free(re);
    StrBuf sb;
    sb_init(&sb);
    PrintOptions opt = print_options_default();
    print_module(&sb, m, &opt);
    SourceFile *ps = src_from_string("<printed>", sb.data, sb.len);
    IrModule *back = tvs_load_module(ps, &d);
    diag_flush(&d);
    bool eq = back && seq_module(back, m, NULL, NULL);
    CHECK(eq);
    if (!eq) fprintf(stderr, "%s: the printed module does not parse back equal\n", test);
    ir_module_free(back);
    src_free(ps);
    sb_free(&sb);
  } else {
    fprintf(stderr, "%s: %s failed on %s\n", test, script_path, input);
  }
  sb_free(&out);
  ir_module_free(m);
  src_free(ss);
done:
  src_free(script_file);
  ir_module_free(orig);
  diag_free(&d);
  src_free(src);
}

/* "%S/Inputs/x.tvs" -> "<dir>/Inputs/x.tvs" (malloc'd); the word ends at a blank. */
static char *subst_word(const char *w, const char *dir) {
  size_t n = strcspn(w, " \t\n|");
  char *word = xasprintf("%.*s", (int)n, w);
  if (strncmp(word, "%S/", 3)) return word;
  char *p = xasprintf("%s/%s", dir, word + 3);
  free(word);
  return p;
}

static void scan_test(const char *dir, const char *name) {
  char *path = xasprintf("%s/%s", dir, name);
  SourceFile *file = open_text(path);
  free(path);
  if (!file) return;
  char *text = file->text; /* split into lines in place below */
  const char *key = "# RUN: %tvs show ";
  /* A case whose primitive changes what the function computes on purpose (a
   * parameter's layout, TVM's documented numerics of a non-linear epilogue)
   * says why on a NO-RESULT-CHECK line; the other checks still apply. */
  bool compare = strstr(text, "# NO-RESULT-CHECK:") == NULL;
  if (!compare) nexempt++;
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    /* Only cases expected to succeed: failures are the error tests' business. */
    const char *sched = strstr(line, " --schedule ");
    if (!strncmp(line, key, strlen(key)) && sched) {
      char *input = subst_word(line + strlen(key), dir);
      char *script = subst_word(sched + strlen(" --schedule "), dir);
      check_lit_case(name, input, script, compare);
      free(input);
      free(script);
    }
    line = nl ? nl + 1 : NULL;
  }
  src_free(file);
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void) {
  const char *root = getenv("TVS_SOURCE_DIR");
  char *dir = xasprintf("%s/tests/lit/sched", root ? root : ".");
  DIR *dp = opendir(dir);
  CHECK(dp != NULL);
  char **names = NULL;
  int n = 0;
  for (struct dirent *e; dp && (e = readdir(dp));) {
    size_t len = strlen(e->d_name);
    if (len > 5 && !strcmp(e->d_name + len - 5, ".test")) {
      names = realloc(names, (size_t)(n + 1) * sizeof *names);
      names[n++] = xstrdup(e->d_name);
    }
  }
  if (dp) closedir(dp);
  qsort(names, (size_t)n, sizeof *names, cmp_names);
  for (int i = 0; i < n; i++) scan_test(dir, names[i]), free(names[i]);
  free(names);
  free(dir);
  printf("%d lit cases, %d functions compared, %d not compared (non-float32 or symbolic "
         "parameters, or %d files marked NO-RESULT-CHECK)\n",
         ncases, nfuncs, nskipped, nexempt);
  /* The lit suite has dozens of schedule cases; finding none means the walk broke. */
  CHECK(ncases >= 50);
  TEST_MAIN_END();
}
