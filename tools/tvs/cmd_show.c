/* cmd_show.c - `tvs show FILE --stage NAME`: print one stage of the pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "ir/printer.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "base/util.h"
#include "parser/parser.h"
#include "sched/schedule.h"
#include "tools/tvs/tvs.h"

/* The stages a user can stop at, in pipeline order (DESIGN.md section 1);
 * the lowering passes of ir/transform/pipeline.c follow these. */
static const struct {
  const char *name;
  const char *what;
} stages[] = {
    {"tokens", "the lexer's token stream (kind, line:col, text)"},
    {"ast", "the syntax tree as parsed"},
    {"graph", "the elaborated module: graph functions and prim_funcs, as .tvs text"},
    {"legalize", "after LegalizeOps: high-level graph operators become calls of generated prim_funcs"},
    {"tir", "the loop-IR prim_funcs of the module, as .tvs text"},
};
#define NSTAGES ((int)(sizeof stages / sizeof stages[0]))

/* The codegen stages, after the lowering passes (codegen/codegen.h). */
static const struct {
  const char *name;
  const char *what;
} cg_stages[] = {
    {"llvm-unopt", "LLVM IR of the lowered module, before LLVM's optimizations"},
    {"llvm", "LLVM IR after LLVM's optimizations (-O0..-O3, --mcpu, --mattr, --fast-math)"},
    {"asm", "target assembly of the optimized module"},
};
#define NCGSTAGES ((int)(sizeof cg_stages / sizeof cg_stages[0]))

static bool is_cg_stage(const char *name) {
  for (int i = 0; i < NCGSTAGES; i++)
    if (!strcmp(cg_stages[i].name, name)) return true;
  return false;
}

/* Printing the prim_funcs only, as a module of their own. */
static void print_tir_only(StrBuf *sb, const IrModule *m, const PrintOptions *opt) {
  IrModule *t = ir_module_copy(m);
  int n = 0;
  for (int i = 0; i < t->nfuncs; i++)
    if (t->funcs[i].kind == IR_FUNC_TIR) t->funcs[n++] = t->funcs[i];
  t->nfuncs = n;
  print_module(sb, t, opt);
  ir_module_free(t);
}

/* --dump-after: which pass names to print after ("all" = every pass). */
typedef struct DumpAfter {
  const char *name;  /* pass name or "all"; NULL = none */
} DumpAfter;

static void dump_after_pass(void *user, const TirPass *p, const IrModule *m, bool changed) {
  DumpAfter *da = user;
  if (!da->name || (strcmp(da->name, "all") && strcmp(da->name, p->name))) return;
  PrintOptions opt = print_options_default();
  StrBuf sb;
  sb_init(&sb);
  print_tir_only(&sb, m, &opt);
  printf("# after %s%s\n", p->name, changed ? "" : " (unchanged)");
  fputs(sb.data, stdout);
  fflush(stdout);
  sb_free(&sb);
}

static int show_tokens(const SourceFile *src, DiagCtx *d) {
  LexToken *toks = NULL;
  int n = lex_all(src, d, &toks);
  for (int i = 0; i < n; i++) {
    const Span *s = &toks[i].span;
    printf("%u:%u %s", s->line, s->col, lex_token_name(toks[i].kind));
    if (s->len && toks[i].kind != 0) {
      fputs(" '", stdout);
      for (uint32_t k = 0; k < s->len; k++) {
        char ch = src->text[s->off + k];
        if (ch == '\n') fputs("\\n", stdout);
        else putchar(ch);
      }
      putchar('\'');
    }
    putchar('\n');
  }
  free(toks);
  diag_flush(d);
  return d->nerr ? 1 : 0;
}

static int show_ast(const SourceFile *src, DiagCtx *d) {
  AstFile *f = parse_file(src, d);
  StrBuf sb;
  sb_init(&sb);
  ast_dump(f->module, &sb);
  diag_flush(d);
  if (!d->nerr) fputs(sb.data, stdout);
  sb_free(&sb);
  ast_file_free(f);
  return d->nerr ? 1 : 0;
}

/* The codegen stages: lower everything, build LLVM IR, print one form. */
static int show_codegen(const IrModule *m, const char *stage, const CgOptions *cg, DiagCtx *d) {
  IrModule *low = tir_lower(m, -1, d, NULL, NULL);
  CgResult *r = low ? cg_build(low, cg, d) : NULL;
  char *text = NULL;
  if (r && !strcmp(stage, "asm")) text = cg_emit_asm(r, d);
  else if (r) text = cg_emit_llvm(r, !strcmp(stage, "llvm"));
  diag_flush(d);
  if (text) fputs(text, stdout);
  free(text);
  cg_free(r);
  ir_module_free(low);
  return text ? 0 : 1;
}

int cmd_show(int argc, char **argv) {
  ToolCommon common = {DIAG_FORMAT_TEXT, -1};
  const char *file = NULL, *stage = NULL;
  const char *sched_path = NULL; /* --schedule FILE */
  DumpAfter dump = {NULL};
  CgOptions cg = cg_options_default();
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r = tool_common_option(&common, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      puts("usage: tvs show FILE [--stage NAME] [--dump-after NAME|all]\n"
           "                [--mcpu CPU] [--mattr FEATURES] [-O0..-O3] [--fast-math]\n"
           "       tvs show --list-stages");
      return 0;
    }
    if (!strcmp(a, "--mcpu") || !strcmp(a, "--mattr")) {
      if (i + 1 >= argc) return tool_usage_error("show", "%s needs a value", a);
      if (a[3] == 'c') cg.mcpu = argv[++i];
      else cg.mattr = argv[++i];
      continue;
    }
    if (!strncmp(a, "--mcpu=", 7)) { cg.mcpu = a + 7; continue; }
    if (!strncmp(a, "--mattr=", 8)) { cg.mattr = a + 8; continue; }
    if (!strcmp(a, "--fast-math")) { cg.fast_math = true; continue; }
    if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
      cg.opt_level = a[2] - '0';
      continue;
    }
    if (!strcmp(a, "--list-stages")) {
      for (int k = 0; k < NSTAGES; k++) printf("%-8s %s\n", stages[k].name, stages[k].what);
      int np;
      const TirPass *passes = tir_cpu_pipeline(&np);
      for (int k = 0; k < np; k++) printf("%s  %s\n", passes[k].name, passes[k].what);
      for (int k = 0; k < NCGSTAGES; k++) printf("%s  %s\n", cg_stages[k].name, cg_stages[k].what);
      return 0;
    }
    if (!strcmp(a, "--schedule") || !strncmp(a, "--schedule=", 11)) {
      if (a[10] == '=') sched_path = a + 11;
      else if (i + 1 < argc) sched_path = argv[++i];
      else return tool_usage_error("show", "--schedule needs a file");
      continue;
    }
    if (!strcmp(a, "--stage") || !strncmp(a, "--stage=", 8)) {
      if (a[7] == '=') stage = a + 8;
      else if (i + 1 < argc) stage = argv[++i];
      else return tool_usage_error("show", "--stage needs a stage name");
      continue;
    }
    if (!strcmp(a, "--dump-after") || !strncmp(a, "--dump-after=", 13)) {
      if (a[12] == '=') dump.name = a + 13;
      else if (i + 1 < argc) dump.name = argv[++i];
      else return tool_usage_error("show", "--dump-after needs a pass name or 'all'");
      if (strcmp(dump.name, "all") && tir_pipeline_index(dump.name) < 0)
        return tool_usage_error("show", "unknown pass '%s' for --dump-after", dump.name);
      continue;
    }
    if (a[0] == '-' && a[1]) return tool_usage_error("show", "unknown option '%s'", a);
    if (file) return tool_usage_error("show", "more than one input file ('%s' and '%s')", file, a);
    file = a;
  }
  if (!file) return tool_usage_error("show", "no input file");
  bool dump_only = !stage && dump.name;
  if (!stage) stage = "graph";
  int k = 0;
  while (k < NSTAGES && strcmp(stages[k].name, stage)) k++;
  int pass_idx = k == NSTAGES ? tir_pipeline_index(stage) : -1;
  if (k == NSTAGES && pass_idx < 0 && !is_cg_stage(stage)) {
    tool_usage_error("show", "unknown stage '%s'", stage);
    fputs("available stages:", stderr);
    for (int j = 0; j < NSTAGES; j++) fprintf(stderr, " %s", stages[j].name);
    int np;
    const TirPass *passes = tir_cpu_pipeline(&np);
    for (int j = 0; j < np; j++) fprintf(stderr, " %s", passes[j].name);
    for (int j = 0; j < NCGSTAGES; j++) fprintf(stderr, " %s", cg_stages[j].name);
    fputc('\n', stderr);
    return 2;
  }
  DiagCtx d;
  tool_diag_init(&d, &common);
  int rc;
  if (!strcmp(stage, "tokens") || !strcmp(stage, "ast")) {
    const char *err = NULL;
    SourceFile *src = src_from_path(file, &err);
    if (!src) {
      fprintf(stderr, "tvs: error: cannot open '%s': %s\n", file, err);
      diag_free(&d);
      return 1;
    }
    rc = !strcmp(stage, "tokens") ? show_tokens(src, &d) : show_ast(src, &d);
    src_free(src);
    diag_free(&d);
    return rc;
  }
  SourceFile *src = NULL;
  IrModule *m = tool_load(file, &d, &src);
  if (m) { /* schedule statements in the file itself, then --schedule FILE */
    StrBuf sout;
    sb_init(&sout);
    if (sch_apply_schedules(&m, src, sched_path, &d, &sout)) ir_module_free(m), m = NULL;
    diag_flush(&d);
    fputs(sout.data, stdout);
    sb_free(&sout);
  }
  if (!m) {
    src_free(src);
    diag_free(&d);
    return 1;
  }
  PrintOptions opt = print_options_default();
  StrBuf sb;
  sb_init(&sb);
  if (is_cg_stage(stage)) {
    rc = show_codegen(m, stage, &cg, &d);
    sb_free(&sb);
    ir_module_free(m);
    src_free(src);
    diag_free(&d);
    return rc;
  } else if (pass_idx >= 0 || dump.name) {
    /* A lowering stage: run the pipeline up to it (or all of it for a dump). */
    IrModule *low = tir_lower(m, dump_only ? -1 : pass_idx, &d, dump_after_pass, &dump);
    diag_flush(&d);
    if (!low) {
      sb_free(&sb);
      ir_module_free(m);
      src_free(src);
      diag_free(&d);
      return 1;
    }
    if (!dump_only) print_tir_only(&sb, low, &opt);
    ir_module_free(low);
  } else if (!strcmp(stage, "tir")) {
    print_tir_only(&sb, m, &opt);
  } else if (!strcmp(stage, "legalize")) {
    IrModule *leg = rx_legalize_ops(m, &d, NULL);
    print_module(&sb, leg, &opt);
    ir_module_free(leg);
  } else {
    print_module(&sb, m, &opt);
  }
  fputs(sb.data, stdout);
  sb_free(&sb);
  ir_module_free(m);
  src_free(src);
  diag_free(&d);
  return 0;
}
