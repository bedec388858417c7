/* cmd_show.c - `tvs show FILE --stage NAME`: print one stage of the pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_diff.h"
#include "codegen/codegen.h"
#include "codegen/npu_lower.h"
#include "driver/gpu.h"
#include "driver/stages.h"
#include "ir/printer.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "base/util.h"
#include "parser/parser.h"
#include "sched/schedule.h"
#include "autotune/tune.h"
#include "tools/tvs/tvs.h"

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
  bool diff;         /* --diff: print what the pass changed, not the whole module */
  char *prev;        /* with diff: the module's text before the current pass */
} DumpAfter;

/* Prints the dump of pass `pass` whose result prints as `text` (consumed). */
static void dump_text(DumpAfter *da, const char *pass, StrBuf *text, bool changed) {
  bool wanted = da->name && (!strcmp(da->name, "all") || !strcmp(da->name, pass));
  if (wanted && !da->diff) {
    printf("# after %s%s\n", pass, changed ? "" : " (unchanged)");
    fputs(text->data, stdout);
  } else if (wanted) {
    StrBuf d;
    sb_init(&d);
    char *na = xasprintf("before %s", pass), *nb = xasprintf("after %s", pass);
    if (text_unified_diff(&d, da->prev ? da->prev : "", text->data, na, nb, false) == 0)
      printf("# %s changed nothing\n", pass);
    else
      fputs(d.data, stdout);
    free(na);
    free(nb);
    sb_free(&d);
  }
  fflush(stdout);
  if (da->diff) {
    free(da->prev);
    da->prev = sb_take(text);
  }
  sb_free(text);
}

/* After a lowering pass: the prim_funcs. */
static void dump_after_pass(void *user, const TirPass *p, const IrModule *m, bool changed) {
  DumpAfter *da = user;
  if (strcmp(da->name, "all") && strcmp(da->name, p->name) && !da->diff) return;
  PrintOptions opt = print_options_default();
  StrBuf sb;
  sb_init(&sb);
  print_tir_only(&sb, m, &opt);
  dump_text(da, p->name, &sb, changed);
}

/* After a graph pass: the whole module. */
static void dump_after_graph(void *user, const RxPass *p, const IrModule *m, bool changed) {
  DumpAfter *da = user;
  if (strcmp(da->name, "all") && strcmp(da->name, p->name) && !da->diff) return;
  PrintOptions opt = print_options_default();
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, m, &opt);
  dump_text(da, p->name, &sb, changed);
}

/* With --diff, the text the first pass's changes are shown against: the
 * whole module before the graph passes, the prim_funcs before lowering. */
static void dump_start(DumpAfter *da, const IrModule *m, bool graph) {
  if (!da->diff) return;
  PrintOptions opt = print_options_default();
  StrBuf sb;
  sb_init(&sb);
  if (graph) print_module(&sb, m, &opt);
  else print_tir_only(&sb, m, &opt);
  free(da->prev);
  da->prev = sb_take(&sb);
}

static bool has_graph_funcs(const IrModule *m) {
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_RELAX) return true;
  return false;
}

/* Runs the graph passes up to index `last` (-1 = all), dumping them when
 * --dump-after names one (or all, for a module with graph functions). */
static IrModule *run_graph_passes(const IrModule *m, int last, DumpAfter *da, DiagCtx *d) {
  bool dump = da->name && (rx_graph_pipeline_index(da->name) >= 0 ||
                           (!strcmp(da->name, "all") && has_graph_funcs(m)));
  if (dump) dump_start(da, m, true);
  IrModule *g = rx_run_graph_passes(m, last, d, dump ? dump_after_graph : NULL, da);
  diag_flush(d);
  return g;
}

/* Lowers m up to pass index `last` (-1 = all), dumping the passes asked for. */
static IrModule *run_lowering(const IrModule *m, int last, bool bounds_check, DumpAfter *da, DiagCtx *d) {
  bool dump = da->name && rx_graph_pipeline_index(da->name) < 0;
  if (dump) dump_start(da, m, false);
  TirPassConfig cfg = {bounds_check};
  IrModule *low = tir_lower_with(m, last, &cfg, d, dump ? dump_after_pass : NULL, da);
  diag_flush(d);
  return low;
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

/* The codegen stages: the graph passes, lower everything, build LLVM IR,
 * print one form. */
static int show_codegen(const IrModule *m, const char *stage, const CgOptions *cg, DumpAfter *dump,
                        DiagCtx *d) {
  /* --dump-after prints the passes on the way to the code (before it). */
  IrModule *g = run_graph_passes(m, -1, dump, d);
  IrModule *low = g ? run_lowering(g, -1, cg->bounds_check, dump, d) : NULL;
  CgResult *r = low ? cg_build(low, cg, d) : NULL;
  char *text = NULL;
  if (r && !strcmp(stage, "asm")) text = cg_emit_asm(r, d);
  else if (r) text = cg_emit_llvm(r, !strcmp(stage, "llvm"));
  diag_flush(d);
  if (text) fputs(text, stdout);
  free(text);
  cg_free(r);
  ir_module_free(low);
  ir_module_free(g);
  return text ? 0 : 1;
}

/* The command line of `tvs show`. */
typedef struct ShowArgs {
  ToolCommon common;
  const char *file, *stage;
  const char *sched_path; /* --schedule FILE */
  const char *tuning_db;  /* --tuning-db FILE: the best tuned schedules applied */
  DumpAfter dump;
  CgOptions cg;
  bool list_stages;       /* --list-stages */
  bool dot;               /* --format dot: a graph stage as a Graphviz digraph */
  const char *target;     /* --target cuda|opencl (GPU pipeline), or NULL */
} ShowArgs;

enum { SHOW_STAGE, SHOW_DUMP_AFTER, SHOW_DIFF, SHOW_SCHEDULE, SHOW_MCPU, SHOW_MATTR, SHOW_O0, SHOW_O1, SHOW_O2, SHOW_O3,
       SHOW_FAST_MATH, SHOW_CONVERT_LAYOUT, SHOW_FP_CONTRACT, SHOW_BOUNDS_CHECK, SHOW_LIST_STAGES, SHOW_FORMAT, SHOW_TARGET, SHOW_TUNING_DB, SHOW_HELP };

static const char show_opt_help[] = "LLVM optimization level of llvm and asm (default -O3)";

/* The options of `tvs show`: the parser and the --help list. */
static const ToolOption show_options[] = {
    {SHOW_STAGE, "--stage", NULL, "NAME", 0, "the stage to print (default graph)"},
    {SHOW_TARGET, "--target", NULL, "cuda|opencl|npu", 0,
     "GPU pipeline: --stage is a GPU lowering pass, or the device code\n"
     "(opencl: OpenCL C; cuda: ptx, or nvvm for the LLVM IR);\n"
     "npu: --stage npu-isa, the simulated NPU's instruction stream"},
    {SHOW_DUMP_AFTER, "--dump-after", NULL, "PASS|all", 0, "also print the IR after that graph or lowering pass"},
    {SHOW_DIFF, "--diff", NULL, NULL, 0, "with --dump-after: print what each pass changed (unified diff)"},
    {SHOW_SCHEDULE, "--schedule", NULL, "FILE", 0, "apply a schedule script first"},
    {SHOW_TUNING_DB, "--tuning-db", NULL, "FILE", 0, "apply the best schedule `tvs tune` recorded for each prim_func"},
    {SHOW_MCPU, "--mcpu", NULL, "CPU", 0, "target CPU (default: the host's)"},
    {SHOW_MATTR, "--mattr", NULL, "FEATURES", 0, "target features, e.g. +avx2,-fma"},
    {SHOW_O0, "-O0", NULL, NULL, 0, show_opt_help},
    {SHOW_O1, "-O1", NULL, NULL, 0, show_opt_help},
    {SHOW_O2, "-O2", NULL, NULL, 0, show_opt_help},
    {SHOW_O3, "-O3", NULL, NULL, 0, show_opt_help},
    {SHOW_FAST_MATH, "--fast-math", NULL, NULL, 0, "allow reassociation and contraction; exp inline, so it vectorizes"},
    {SHOW_CONVERT_LAYOUT, "--convert-layout", NULL, NULL, 0, "run the convert-layout stage (conv2d to NCHW16c)"},
    {SHOW_FP_CONTRACT, "--fp-contract", NULL, "fast|on|off", 0,
     "multiply-add contraction into FMA: fast (the default, as TVM),\n"
     "on (the same: within an expression), off (products rounded: as the interpreter)"},
    {SHOW_BOUNDS_CHECK, "--bounds-check", NULL, NULL, 0,
     "lower with instrument-bound-checkers: every access and integer division checked"},
    {SHOW_LIST_STAGES, "--list-stages", NULL, NULL, 0, "list and describe the stages"},
    {SHOW_FORMAT, "--format", NULL, "text|dot", 0, "dot: a graph stage as a Graphviz graph (dot -Tsvg)"},
    {SHOW_HELP, "--help", "-h", NULL, 0, "this help"},
    {0, NULL, NULL, NULL, 0, NULL},
};

/* --dump-after NAME: a graph pass, a lowering pass or all; 0, or 2 (reported). */
static int set_dump_after(ShowArgs *sa, const char *val) {
  sa->dump.name = val;
  if (strcmp(val, "all") && tir_pipeline_index(val) < 0 && rx_graph_pipeline_index(val) < 0) {
    tool_usage_error("show", "unknown pass '%s' for --dump-after", val);
    fputs("available passes: all", stderr);
    for (int j = 0, n = drv_stage_count(); j < n; j++)
      if (drv_stage_at(j).kind == DRV_STAGE_PASS) fprintf(stderr, " %s", drv_stage_at(j).name);
    int ng;
    const RxPass *gp = rx_graph_pipeline(&ng);
    fputs("; graph passes:", stderr);
    for (int j = 0; j < ng; j++) fprintf(stderr, " %s", gp[j].name);
    fputc('\n', stderr);
    return 2;
  }
  return 0;
}

/* Sets option `id` (a SHOW_* with a value) to val, or reports it missing;
 * 0, or 2 on a usage error (printed). */
static int set_show_option(ShowArgs *sa, int id, const char *val, const char *spelled, bool missing) {
  switch (id) {
    case SHOW_MCPU: case SHOW_MATTR:
      if (missing) return tool_usage_error("show", "%s needs a value", spelled);
      if (id == SHOW_MCPU) sa->cg.mcpu = val;
      else sa->cg.mattr = val;
      return 0;
    case SHOW_SCHEDULE:
      if (missing) return tool_usage_error("show", "--schedule needs a file");
      sa->sched_path = val;
      return 0;
    case SHOW_TARGET:
      if (missing || (!tir_is_gpu_target(val) && strcmp(val, "npu")))
        return tool_usage_error("show", "--target takes cuda, opencl or npu");
      sa->target = val;
      return 0;
    case SHOW_TUNING_DB:
      if (missing) return tool_usage_error("show", "--tuning-db needs a file");
      sa->tuning_db = val;
      return 0;
    case SHOW_STAGE:
      if (missing) return tool_usage_error("show", "--stage needs a stage name");
      sa->stage = val;
      return 0;
    case SHOW_FORMAT:
      if (missing || (strcmp(val, "text") && strcmp(val, "dot")))
        return tool_usage_error("show", "--format takes text or dot");
      sa->dot = !strcmp(val, "dot");
      return 0;
    case SHOW_DUMP_AFTER:
      if (missing) return tool_usage_error("show", "--dump-after needs a pass name or 'all'");
      return set_dump_after(sa, val);
  }
  return 0;
}

static void print_show_help(void) {
  tool_print_help("usage: tvs show FILE [--stage NAME] [--dump-after PASS|all] [--schedule FILE]\n"
                  "                [--mcpu CPU] [--mattr FEATURES] [-O0..-O3] [--fast-math]\n"
                  "                [--bounds-check]\n"
                  "       tvs show --list-stages\n"
                  "Prints FILE at a stage (default graph): tokens, ast, graph, a graph pass\n"
                  "(legalize, ...), tir, a lowering pass, llvm-unopt, llvm or asm (--list-stages\n"
                  "describes each). --schedule FILE applies a schedule script first.\n"
                  "--dump-after PASS (or all) also prints the IR after that graph or lowering\n"
                  "pass (graph passes print the module): alone, over the whole pipeline;\n"
                  "with --stage, on the way to a later pass or to the code; with --diff, as\n"
                  "a unified diff of what the pass changed.\n",
                  show_options);
}

/* Parses one argument at argv[*i] that is not a common option: 0 when
 * consumed, 1 for --help (printed), 2 on a usage error (printed). */
static int parse_show_arg(ShowArgs *sa, int argc, char **argv, int *i) {
  const char *a = argv[*i], *val, *spelled;
  bool missing;
  const ToolOption *o = opt_match(show_options, argc, argv, i, &val, &spelled, &missing);
  if (o) {
    switch (o->id) {
      case SHOW_HELP: print_show_help(); return 1;
      case SHOW_FAST_MATH: sa->cg.fast_math = true; return 0;
      case SHOW_CONVERT_LAYOUT: rx_set_convert_layout(true); return 0;
      case SHOW_FP_CONTRACT:
        if (missing || cg_parse_fp_contract(val, &sa->cg.fp_contract))
          return tool_usage_error("show", "--fp-contract expects fast, on or off, got '%s'", missing ? "" : val);
        return 0;
      case SHOW_BOUNDS_CHECK: sa->cg.bounds_check = true; return 0;
      case SHOW_DIFF: sa->dump.diff = true; return 0;
      case SHOW_LIST_STAGES: sa->list_stages = true; return 0;
      case SHOW_O0: case SHOW_O1: case SHOW_O2: case SHOW_O3: sa->cg.opt_level = o->id - SHOW_O0; return 0;
      default: return set_show_option(sa, o->id, val, spelled, missing);
    }
  }
  if (a[0] == '-' && a[1]) return tool_usage_error("show", "unknown option '%s'", a);
  if (sa->file) return tool_usage_error("show", "more than one input file ('%s' and '%s')", sa->file, a);
  sa->file = a;
  return 0;
}

/* The source stages (tokens, ast): of the text, before elaboration. */
static int show_source(const char *file, const char *stage, DiagCtx *d) {
  const char *err = NULL;
  SourceFile *src = src_from_path(file, &err);
  if (!src) {
    fprintf(stderr, "tvs: error: cannot open '%s': %s\n", file, err);
    return 1;
  }
  int rc = !strcmp(stage, "tokens") ? show_tokens(src, d) : show_ast(src, d);
  src_free(src);
  return rc;
}

/* The module stages: graph, the graph passes, tir and the lowering passes
 * (or every pass for a --dump-after without --stage); the later stages see
 * the graph passes' result, as tvsc does.  Appends the text to sb. */
static int show_module(const IrModule *m, ShowArgs *sa, bool dump_only, StrBuf *sb, DiagCtx *d) {
  PrintOptions opt = print_options_default();
  int gi = rx_graph_pipeline_index(sa->stage), ti = tir_pipeline_index(sa->stage);
  bool graph_dump = sa->dump.name && rx_graph_pipeline_index(sa->dump.name) >= 0;
  bool to_tir = ti >= 0 || !strcmp(sa->stage, "tir") || (dump_only && !graph_dump);
  if (gi < 0 && !to_tir && !dump_only) { /* the stage "graph" */
    if (sa->dot) print_module_dot(sb, m);
    else print_module(sb, m, &opt);
    return 0;
  }
  IrModule *g = run_graph_passes(m, dump_only || to_tir ? -1 : gi, &sa->dump, d);
  if (!g) return 1;
  int rc = 0;
  if (!to_tir) {
    if (dump_only) {
    } else if (sa->dot) {
      print_module_dot(sb, g);
    } else {
      print_module(sb, g, &opt);
    }
  } else if (ti < 0 && !dump_only) {
    print_tir_only(sb, g, &opt);
  } else {
    IrModule *low = run_lowering(g, dump_only ? -1 : ti, sa->cg.bounds_check, &sa->dump, d);
    if (!low) rc = 1;
    else if (!dump_only) print_tir_only(sb, low, &opt);
    ir_module_free(low);
  }
  ir_module_free(g);
  return rc;
}

/* Loads and schedules the file, then prints sa->stage. */
static int show_file(ShowArgs *sa, bool dump_only, DiagCtx *d) {
  SourceFile *src = NULL;
  IrModule *m = tool_load_ex(sa->file, false, d, &src);
  if (m) { /* schedule statements in the file itself, then --schedule FILE */
    StrBuf sout;
    sb_init(&sout);
    if (sch_apply_schedules(&m, src, sa->sched_path, d, &sout)) ir_module_free(m), m = NULL;
    if (m && sa->tuning_db && tune_db_apply(&m, sa->tuning_db, d) < 0) ir_module_free(m), m = NULL;
    diag_flush(d);
    fputs(sout.data, stdout);
    sb_free(&sout);
  }
  int rc = 1;
  DrvStage st;
  if (m && drv_find_stage(sa->stage, DRV_STAGE_CODEGEN, &st)) {
    rc = show_codegen(m, sa->stage, &sa->cg, &sa->dump, d);
  } else if (m) {
    StrBuf sb;
    sb_init(&sb);
    rc = show_module(m, sa, dump_only, &sb, d);
    if (!rc) fputs(sb.data, stdout);
    sb_free(&sb);
  }
  ir_module_free(m);
  src_free(src);
  return rc;
}

/* --dump-after with --stage: the pass dumped must run before the stage is
 * printed (graph passes come before tir, the lowering passes and the code). */
static int check_dump_stage(const ShowArgs *sa, const DrvStage *st) {
  const char *name = sa->dump.name;
  bool all = !strcmp(name, "all");
  int dg = rx_graph_pipeline_index(name), sg = rx_graph_pipeline_index(sa->stage);
  if (st->kind == DRV_STAGE_GRAPH && sg < 0)
    return tool_usage_error("show", "--dump-after prints passes, and stage '%s' comes before them",
                            sa->stage);
  if (st->kind == DRV_STAGE_GRAPH && dg < 0 && !all)
    return tool_usage_error("show", "--dump-after %s: that lowering pass runs after stage '%s'", name,
                            sa->stage);
  if (st->kind == DRV_STAGE_GRAPH && dg > sg)
    return tool_usage_error("show", "--dump-after %s: that pass runs after stage '%s'", name, sa->stage);
  if (st->kind == DRV_STAGE_GRAPH || dg >= 0) return 0;
  if (st->kind != DRV_STAGE_PASS && st->kind != DRV_STAGE_CODEGEN)
    return tool_usage_error("show", "--dump-after prints lowering passes, and stage '%s' comes "
                            "before them (give a pass, llvm-unopt, llvm or asm as --stage, or "
                            "leave --stage out)", sa->stage);
  if (st->kind == DRV_STAGE_PASS && !all && tir_pipeline_index(name) > tir_pipeline_index(sa->stage))
    return tool_usage_error("show", "--dump-after %s: that pass runs after stage '%s'", name,
                            sa->stage);
  return 0;
}

/* --target cuda|opencl: a GPU lowering pass (or tir) or the device code. */
static int show_gpu(ShowArgs *sa, DiagCtx *d) {
  bool code = !strcmp(sa->stage, "opencl") || !strcmp(sa->stage, "ptx") || !strcmp(sa->stage, "nvvm");
  if (code && strcmp(sa->stage, "opencl") == !strcmp(sa->target, "opencl"))
    return tool_usage_error("show", "stage '%s' is not target %s's device code (%s)", sa->stage, sa->target,
                            !strcmp(sa->target, "opencl") ? "opencl" : "ptx or nvvm");
  if (!code && strcmp(sa->stage, "tir") && tir_gpu_pipeline_index(sa->stage) < 0) {
    tool_usage_error("show", "unknown stage '%s' for target %s", sa->stage, sa->target);
    int n;
    const TirPass *p = tir_gpu_pipeline(&n);
    fputs("available stages: tir", stderr);
    for (int i = 0; i < n; i++) fprintf(stderr, " %s", p[i].name);
    fprintf(stderr, " %s\n", !strcmp(sa->target, "opencl") ? "opencl" : "ptx nvvm");
    return 2;
  }
  SourceFile *src = NULL;
  IrModule *m = tool_load(sa->file, d, &src);
  StrBuf sout;
  sb_init(&sout);
  if (m && sch_apply_schedules(&m, src, sa->sched_path, d, &sout)) ir_module_free(m), m = NULL;
  diag_flush(d);
  fputs(sout.data, stdout);
  sb_free(&sout);
  int rc = 1;
  IrModule *low = m && strcmp(sa->stage, "tir") ? drv_gpu_lower(m, sa->target, code ? NULL : sa->stage, d) : NULL;
  char *text = low && code ? drv_gpu_device_code(low, sa->target, &sa->cg, !strcmp(sa->stage, "nvvm"), d) : NULL;
  diag_flush(d);
  PrintOptions opt = print_options_default();
  StrBuf sb;
  sb_init(&sb);
  if (m && !strcmp(sa->stage, "tir")) print_tir_only(&sb, m, &opt), rc = 0;
  else if (low && !code) print_tir_only(&sb, low, &opt), rc = 0;
  else if (text) sb_puts(&sb, text), rc = 0;
  fputs(sb.data, stdout);
  sb_free(&sb);
  free(text);
  ir_module_free(low);
  ir_module_free(m);
  src_free(src);
  return rc;
}

int cmd_show(int argc, char **argv) {
  ShowArgs sa = {.common = {DIAG_FORMAT_TEXT, -1}, .cg = cg_options_default()};
  for (int i = 1; i < argc; i++) {
    int r = tool_common_option(&sa.common, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    r = parse_show_arg(&sa, argc, argv, &i);
    if (r) return r == 1 ? 0 : r;
    if (sa.list_stages) {
      drv_print_stages(stdout, DRV_STAGES_SHOW);
      drv_print_gpu_stages(stdout);
      return 0;
    }
  }
  if (!sa.file) return tool_usage_error("show", "no input file");
  bool dump_only = !sa.stage && sa.dump.name;
  if ((sa.stage && cg_npu_stage_lookup(sa.stage) >= 0) || (sa.target && !strcmp(sa.target, "npu"))) {
    if (!sa.stage || cg_npu_stage_lookup(sa.stage) < 0 || sa.dump.name || sa.dot)
      return tool_usage_error("show", "the npu target shows --stage npu-inject-dma, npu-inject-vthread, "
                              "npu-coproc-sync or npu-isa (no --dump-after or --format)");
    DiagCtx nd;
    tool_diag_init(&nd, &sa.common);
    int nrc = tool_show_npu(sa.file, sa.sched_path, NULL, sa.stage, &nd);
    diag_free(&nd);
    return nrc;
  }
  if (sa.target) {
    if (!sa.stage || sa.dump.name || sa.dot)
      return tool_usage_error("show", "--target %s needs --stage (a GPU pass, tir or the device code) and no "
                              "--dump-after or --format", sa.target);
    DiagCtx gd;
    tool_diag_init(&gd, &sa.common);
    int grc = show_gpu(&sa, &gd);
    diag_free(&gd);
    return grc;
  }
  if (!sa.stage) sa.stage = "graph";
  DrvStage st;
  if (!drv_find_stage(sa.stage, DRV_STAGES_SHOW, &st)) {
    tool_usage_error("show", "unknown stage '%s'", sa.stage);
    fputs("available stages:", stderr);
    for (int j = 0, n = drv_stage_count(); j < n; j++)
      if (drv_stage_at(j).kind & DRV_STAGES_SHOW) fprintf(stderr, " %s", drv_stage_at(j).name);
    fputc('\n', stderr);
    return 2;
  }
  if (!dump_only && sa.dump.name && check_dump_stage(&sa, &st)) return 2;
  if (sa.dot && (st.kind != DRV_STAGE_GRAPH || sa.dump.name))
    return tool_usage_error("show", "--format dot draws a graph stage (graph, or a graph pass such as legalize), "
                            "not '%s'", sa.stage);
  if (sa.dump.diff && !sa.dump.name) return tool_usage_error("show", "--diff goes with --dump-after PASS|all");
  DiagCtx d;
  tool_diag_init(&d, &sa.common);
  int rc = st.kind == DRV_STAGE_SOURCE ? show_source(sa.file, sa.stage, &d) : show_file(&sa, dump_only, &d);
  diag_free(&d);
  free(sa.dump.prev);
  return rc;
}
