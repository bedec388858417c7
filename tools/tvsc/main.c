/* main.c - `tvsc`, the batch compiler: .tvs files to a shared object, an
 * object file, LLVM IR, assembly, a C header, or any stage of the pipeline.
 * Parses the command line into DrvOptions and calls drv_compile (driver/);
 * exit 0 on success, 1 on a compile error, 2 on a usage error. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/tune.h"
#include "base/big_stack.h"
#include "driver/driver.h"
#include "ir/transform.h"
#include "base/util.h"
#include "tools/common/options.h"
#include "runtime/temp_files.h"
#include "tools/common/stdout_check.h"

static const char usage_header[] =
    "usage: tvsc FILE.tvs [FILE.tvs ...] -o OUT [options]\n"
    "       tvsc FILE.tvs --emit STAGE [-o FILE]\n"
    "\n"
    "The suffix of OUT picks the product:\n"
    "  .so   shared object (linked with cc; exports F, __tvs_packed_F, __tvs_metadata)\n"
    "  .o    relocatable PIC object      .ll  optimized LLVM IR      .s  assembly\n";

/* The ids of the options with a value index valued[] and set_valued's slots. */
enum { OPT_OUTPUT, OPT_HEADER, OPT_EMIT, OPT_FUNC, OPT_SCHEDULE, OPT_TARGET, OPT_MTRIPLE, OPT_MCPU, OPT_MATTR,
       OPT_CC, OPT_RUNTIME_DIR, OPT_PARAMS, OPT_TUNING_DB, NVALUED, OPT_O0 = NVALUED, OPT_O1, OPT_O2, OPT_O3, OPT_FAST_MATH, OPT_CONVERT_LAYOUT, OPT_FP_CONTRACT, OPT_BOUNDS_CHECK, OPT_VERBOSE,
       OPT_LIST_STAGES, OPT_HELP, OPT_VERSION };

static const char opt_level_help[] = "LLVM optimization level (default -O3)";

/* The options of tvsc: the parser and the --help list. */
static const ToolOption tvsc_options[] = {
    {OPT_OUTPUT, "-o", NULL, "FILE", OPT_ATTACHED, "output file (written atomically; nothing on error)"},
    {OPT_HEADER, "-H", NULL, "FILE", OPT_ATTACHED,
     "also write a C header: direct-entry prototypes, shapes, packed names"},
    {OPT_EMIT, "--emit", NULL, "STAGE", 0,
     "print a stage instead (graph, legalize, tir, a lowering pass,\n"
     "llvm-unopt, llvm, asm) to stdout, or to -o FILE; --list-stages lists them"},
    {OPT_FUNC, "--func", NULL, "NAME[,NAME]", OPT_REPEAT, "compile only these functions"},
    {OPT_SCHEDULE, "--schedule", NULL, "FILE", 0, "apply a schedule script to the module before lowering"},
    {OPT_PARAMS, "--params", NULL, "w.npz", 0,
     "embed weights: graph-function parameters named like the arrays of\n"
     "a .npz become constants in the module (64-byte aligned); the graph\n"
     "entry, its metadata and the header keep only the other parameters"},
    {OPT_TUNING_DB, "--tuning-db", NULL, "FILE", 0,
     "apply the best schedule `tvs tune` recorded in FILE for each prim_func"},
    {OPT_O0, "-O0", NULL, NULL, 0, opt_level_help},
    {OPT_O1, "-O1", NULL, NULL, 0, opt_level_help},
    {OPT_O2, "-O2", NULL, NULL, 0, opt_level_help},
    {OPT_O3, "-O3", NULL, NULL, 0, opt_level_help},
    {OPT_TARGET, "--target", NULL, "cpu|cuda|opencl|npu", 0,
     "the target: cpu (the default: .so/.o/.ll/.s), or cuda/opencl whose\n"
     "device code --emit prints (ptx, nvvm, opencl, or a GPU lowering pass),\n"
     "or npu: -o FILE.npu writes the simulated NPU's instruction stream,\n"
     "--emit npu-isa (or an earlier NPU stage) prints every kernel's"},
    {OPT_MTRIPLE, "--mtriple", NULL, "TRIPLE", 0, "target triple (default: the host's; e.g. aarch64-linux-gnu)"},
    {OPT_MCPU, "--mcpu", NULL, "CPU", 0, "target CPU (default: the host's, or generic for another triple)"},
    {OPT_MATTR, "--mattr", NULL, "FEATURES", 0, "target features, e.g. +avx2,-fma (unknown features are errors)"},
    {OPT_FAST_MATH, "--fast-math", NULL, NULL, 0, "allow reassociation and contraction; exp inline, so it vectorizes"},
    {OPT_CONVERT_LAYOUT, "--convert-layout", NULL, NULL, 0, "run the convert-layout stage (conv2d to NCHW16c)"},
    {OPT_FP_CONTRACT, "--fp-contract", NULL, "fast|on|off", 0,
     "multiply-add contraction into FMA: fast (the default, as TVM),\n"
     "on (the same: within an expression), off (products rounded: as the interpreter)"},
    {OPT_BOUNDS_CHECK, "--bounds-check", NULL, NULL, 0,
     "check every buffer access and integer division (instrument-bound-checkers):\n"
     "a fault returns -1 with the interpreter's message; off by default (fast path)"},
    {OPT_CC, "--cc", NULL, "CMD", 0, "compiler driver used to link .so (default $CC, else cc)"},
    {OPT_RUNTIME_DIR, "--runtime-dir", NULL, "DIR", 0,
     "link .so against DIR/libtvs_runtime.so (default: found next to\n"
     "tvsc or in its ../lib; 'none' leaves runtime symbols undefined)"},
    {OPT_VERBOSE, "-v", NULL, NULL, 0, "print stages, timings and the link command on stderr"},
    {OPT_LIST_STAGES, "--list-stages", NULL, NULL, 0, "list the stages --emit accepts"},
    {OPT_HELP, "--help", "-h", NULL, 0, "this help"},
    {OPT_VERSION, "--version", NULL, NULL, 0, "print the version"},
    {0, NULL, NULL, NULL, 0, NULL},
};

static void print_usage(void) {
  fputs(usage_header, stdout);
  puts("\noptions:");
  opt_print(stdout, tvsc_options);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  fputs("tvsc: error: ", stderr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\n(tvsc --help lists the options)\n", stderr);
  return 2;
}

/* Renders diagnostics: with a source position like the rest of TVS, else
 * as "tvsc: error: message". */
static void render(const DiagCtx *d) {
  for (int i = 0; i < d->len; i++) {
    const Diag *g = &d->items[i];
    if (g->span.file) diag_render(g, stderr, d->format, d->color);
    else
      fprintf(stderr, "tvsc: %s: %s\n",
              g->sev == DIAG_ERROR ? "error" : g->sev == DIAG_WARNING ? "warning" : "note", g->msg);
  }
}

/* The command line being parsed. */
typedef struct TvscArgs {
  DrvOptions o;
  const char **inputs;  /* o.inputs */
  const char **funcs;   /* o.funcs */
  int maxfuncs;
  char **func_lists;    /* the --func values, split in place */
  int nlists;
  const char *tuning_db; /* --tuning-db FILE */
} TvscArgs;

/* Sets option tvsc_options[which] (an OPT_* below NVALUED) to v: -1, or 2 on a usage error (printed). */
static int set_valued(TvscArgs *ta, int which, const char *v) {
  DrvOptions *o = &ta->o;
  const char **slot[] = {&o->output, &o->header, &o->emit, NULL, &o->schedule, NULL, &o->cg.triple,
                         &o->cg.mcpu, &o->cg.mattr, &o->cc, &o->runtime_dir, &o->params, &ta->tuning_db};
  if (!v[0]) return usage_error("%s needs a non-empty value", tvsc_options[which].name);
  if (which == OPT_FUNC) { /* --func a,b */
    char *list = ta->func_lists[ta->nlists++] = xstrdup(v);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
      if (o->nfuncs < ta->maxfuncs) ta->funcs[o->nfuncs++] = tok;
    return -1;
  }
  if (which == OPT_TARGET) {
    if (strcmp(v, "cpu") && strcmp(v, "llvm") && strcmp(v, "cuda") && strcmp(v, "opencl") && strcmp(v, "npu"))
      return usage_error("unknown target '%s' (tvsc emits code for: cpu; device code for: cuda, opencl; "
                         "instruction streams for: npu)", v);
    if (strcmp(v, "cpu") && strcmp(v, "llvm")) ta->o.target = v;
    return -1;
  }
  if (*slot[which] && strcmp(*slot[which], v))
    return usage_error("%s given twice ('%s' and '%s')", tvsc_options[which].name, *slot[which], v);
  *slot[which] = v;
  return -1;
}

/* Parses the argument at argv[*i]: -1 when consumed, else the exit code
 * (0 after --help, --version or --list-stages; 2 on a usage error). */
static int parse_arg(TvscArgs *ta, int argc, char **argv, int *i) {
  const char *a = argv[*i], *v, *spelled;
  bool missing;
  const ToolOption *o = opt_match(tvsc_options, argc, argv, i, &v, &spelled, &missing);
  if (o) {
    switch (o->id) {
      case OPT_HELP: return print_usage(), 0;
      case OPT_VERSION: return puts("tvsc 0.1.0 (TVS tensor compiler, LLVM CPU backend)"), 0;
      case OPT_LIST_STAGES: /* --emit's stages, and the NPU's (--target npu) */
        return drv_print_stages(stdout, DRV_STAGES_EMIT | DRV_STAGE_NPU), drv_print_gpu_stages(stdout), 0;
      case OPT_VERBOSE: return ta->o.verbose = 1, -1;
      case OPT_FAST_MATH: return ta->o.cg.fast_math = true, -1;
      case OPT_CONVERT_LAYOUT: return rx_set_convert_layout(true), -1;
      case OPT_FP_CONTRACT:
        if (missing || cg_parse_fp_contract(v, &ta->o.cg.fp_contract))
          return usage_error("--fp-contract expects fast, on or off, got '%s'", missing ? "" : v);
        return -1;
      case OPT_BOUNDS_CHECK: return ta->o.cg.bounds_check = true, -1;
      case OPT_O0: case OPT_O1: case OPT_O2: case OPT_O3: return ta->o.cg.opt_level = o->id - OPT_O0, -1;
      default:
        if (missing) return usage_error("%s needs a value", o->name);
        return set_valued(ta, o->id, v);
    }
  }
  if (a[0] == '-' && a[1] == 'O') return usage_error("unknown optimization level '%s' (-O0..-O3)", a);
  if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
  ta->inputs[ta->o.ninputs++] = a;
  return -1;
}

/* --tuning-db: the driver's module hook (the tuner sits above the driver). */
static int apply_tuning_db(IrModule **m, void *path, DiagCtx *d) {
  return tune_db_apply(m, path, d) < 0 ? -1 : 0;
}

/* Checks the options and compiles: 0, 1 on a compile error, 2 on a usage error. */
static int compile(DrvOptions *o) {
  DiagCtx d;
  diag_init(&d, stderr); /* colour when stderr is a terminal */
  d.out = NULL; /* rendered below, with the tvsc prefix */
  int rc;
  if (drv_check_options(o, &d)) {
    render(&d);
    rc = 2;
  } else {
    o->report = render; /* while the sources the diagnostics point into live */
    rc = drv_compile(o, &d) == 0 ? 0 : 1;
  }
  diag_free(&d);
  return rc;
}

static int tvsc_main(int argc, char **argv) {
  TvscArgs ta = {drv_options_default(), xcalloc((size_t)argc, sizeof *ta.inputs),
                 xcalloc((size_t)argc * 4 + 1, sizeof *ta.funcs), argc * 4,
                 xcalloc((size_t)argc, sizeof *ta.func_lists), 0, NULL};
  ta.o.inputs = ta.inputs;
  ta.o.funcs = ta.funcs;
  tool_check_stdout_at_exit("tvsc");
  tvs_temp_install_signal_handlers(); /* an interrupted build leaves no temporary file */
  int rc = -1;
  for (int i = 1; i < argc && rc < 0; i++) rc = parse_arg(&ta, argc, argv, &i);
  if (ta.tuning_db) ta.o.module_hook = apply_tuning_db, ta.o.module_hook_arg = (void *)ta.tuning_db;
  if (rc < 0) rc = ta.o.ninputs == 0 ? usage_error("no input file") : compile(&ta.o);
  for (int i = 0; i < ta.nlists; i++) free(ta.func_lists[i]);
  free(ta.func_lists);
  free(ta.inputs);
  free(ta.funcs);
  return rc;
}

/* deep programs need a deep stack (base/big_stack.h) */
int main(int argc, char **argv) { return tvs_run_on_big_stack(tvsc_main, argc, argv); }
