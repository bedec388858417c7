/* options.c - the table-driven option parser and help printer (options.h). */
#include <string.h>

#include "tools/common/options.h"

/* Does a (one argument) spell the row as s?  1 with *val set, 0 if not,
 * -1 when it needs the next argument. */
static int match_spelling(const ToolOption *o, const char *s, const char *a, const char **val) {
  size_t n = strlen(s);
  if (strncmp(a, s, n)) return 0;
  if (a[n] == '\0') {
    *val = NULL;
    return o->value && !(o->flags & OPT_EQ_ONLY) ? -1 : 1;
  }
  if (!o->value) return 0;
  if ((o->flags & OPT_ATTACHED) && s[1] != '-') return *val = a + n, 1;
  if (a[n] == '=') return *val = a + n + 1, 1;
  return 0;
}

const ToolOption *opt_match(const ToolOption *tab, int argc, char **argv, int *i, const char **val,
                            const char **spelled, bool *missing) {
  const char *a = argv[*i];
  *val = NULL;
  *missing = false;
  for (const ToolOption *o = tab; o->name; o++) {
    const char *names[2] = {o->name, o->alias};
    for (int k = 0; k < 2; k++) {
      if (!names[k]) continue;
      int m = match_spelling(o, names[k], a, val);
      if (!m) continue;
      *spelled = names[k];
      if (m < 0) {
        if (*i + 1 < argc) *val = argv[++*i];
        else *missing = true;
      }
      return o;
    }
  }
  return NULL;
}

/* The name column of the entry starting at o (rows sharing o->help join). */
static int print_names(FILE *f, const ToolOption *o, const ToolOption **next) {
  int w = 0;
  const ToolOption *r = o;
  for (; r->name && r->help == o->help; r++) {
    if (r != o) w += fprintf(f, ", ");
    bool short_alias = r->alias && r->alias[1] != '-';
    if (short_alias) w += fprintf(f, "%s, %s", r->alias, r->name);
    else if (r->alias) w += fprintf(f, "%s, %s", r->name, r->alias);
    else w += fprintf(f, "%s", r->name);
  }
  if (o->value) w += fprintf(f, (o->flags & OPT_EQ_ONLY) ? "[=%s]" : " %s", o->value);
  *next = r;
  return w;
}

void opt_print(FILE *f, const ToolOption *tab) {
  enum { COL = 24 };
  for (const ToolOption *o = tab, *next; o->name; o = next) {
    fputs("  ", f);
    int w = 2 + print_names(f, o, &next);
    if (w + 2 > COL) fprintf(f, "\n%*s", COL, "");
    else fprintf(f, "%*s", COL - w, "");
    for (const char *h = o->help; *h; h++) { /* a '\n' in the help continues in the column */
      fputc(*h, f);
      if (*h == '\n') fprintf(f, "%*s", COL, "");
    }
    fprintf(f, "%s\n", (o->flags & OPT_REPEAT) ? " (repeatable)" : "");
  }
}
