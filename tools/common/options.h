/* options.h - command-line option tables shared by tvs and tvsc.
 * A command describes its options once, as a table; the same table drives
 * the parser (opt_match) and the generated --help list (opt_print), so the
 * two cannot drift. */
#ifndef TVS_TOOLS_COMMON_OPTIONS_H
#define TVS_TOOLS_COMMON_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

enum {
  OPT_REPEAT = 1,   /* may be given more than once ("(repeatable)" in the help) */
  OPT_EQ_ONLY = 2,  /* the value is optional and only given as --opt=VALUE */
  OPT_ATTACHED = 4, /* the short alias also takes its value attached: -oFILE */
};

typedef struct ToolOption {
  int id;             /* what the command switches on */
  const char *name;   /* "--func", or a short name such as "-o"; NULL ends a table */
  const char *alias;  /* a second spelling ("-o" for "--output"), or NULL */
  const char *value;  /* the value's placeholder ("FILE", "NAME=VALUE"); NULL for a flag */
  unsigned flags;     /* OPT_* */
  const char *help;   /* a line ('\n' continues it in the column); rows sharing one help pointer print as one entry */
} ToolOption;

/* Matches argv[*i] against the table.  NULL when no row names it (the
 * caller decides: an input file, another table, or an unknown option).
 * Otherwise the row; *val is its value (NULL for a flag, or when missing),
 * *spelled the spelling used, *missing whether a needed value was absent.
 * A value given as the next argument advances *i. */
const ToolOption *opt_match(const ToolOption *tab, int argc, char **argv, int *i, const char **val,
                            const char **spelled, bool *missing);

/* Prints the table, one entry a line: "  -o, --output DIR    help". */
void opt_print(FILE *f, const ToolOption *tab);

#endif
