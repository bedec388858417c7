/* main.c - `tvsc`, the batch compiler: .tvs files to a shared object, an
 * object file, LLVM IR, assembly, a C header, or any stage of the pipeline.
 * Parses the command line into DrvOptions and calls drv_compile (driver/);
 * exit 0 on success, 1 on a compile error, 2 on a usage error. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "base/util.h"

static const char usage[] =
    "usage: tvsc FILE.tvs [FILE.tvs ...] -o OUT [options]\n"
    "       tvsc FILE.tvs --emit STAGE [-o FILE]\n"
    "\n"
    "The suffix of OUT picks the product:\n"
    "  .so   shared object (linked with cc; exports F, __tvs_packed_F, __tvs_metadata)\n"
    "  .o    relocatable PIC object      .ll  optimized LLVM IR      .s  assembly\n"
    "\n"
    "options:\n"
    "  -o FILE              output file (written atomically; nothing on error)\n"
    "  -H FILE              also write a C header: direct-entry prototypes, shapes, packed names\n"
    "  --emit STAGE         print a stage instead (graph, legalize, tir, a lowering pass,\n"
    "                       llvm-unopt, llvm, asm) to stdout, or to -o FILE; --list-stages lists them\n"
    "  --func NAME[,NAME]   compile only these functions (repeatable)\n"
    "  --schedule FILE      apply a schedule script to the module before lowering\n"
    "  -O0 -O1 -O2 -O3      LLVM optimization level (default -O3)\n"
    "  --target cpu         the target (cpu is the only one tvsc emits code for)\n"
    "  --mtriple TRIPLE     target triple (default: the host's; e.g. aarch64-linux-gnu)\n"
    "  --mcpu CPU           target CPU (default: the host's, or generic for another triple)\n"
    "  --mattr FEATURES     target features, e.g. +avx2,-fma (unknown features are errors)\n"
    "  --fast-math          allow reassociation and contraction\n"
    "  --cc CMD             compiler driver used to link .so (default $CC, else cc)\n"
    "  --runtime-dir DIR    link .so against DIR/libtvs_runtime.so (default: found next to\n"
    "                       tvsc or in its ../lib; 'none' leaves runtime symbols undefined)\n"
    "  -v                   print stages, timings and the link command on stderr\n"
    "  --list-stages        list the stages --emit accepts\n"
    "  -h, --help           this help\n"
    "  --version            print the version\n";

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

/* "--opt VALUE" or "--opt=VALUE": 1 and *val set if argv[*i] is opt, 0 if
 * not, -1 when the value is missing. */
static int take_value(const char *opt, int argc, char **argv, int *i, const char **val) {
  const char *a = argv[*i];
  size_t n = strlen(opt);
  if (strncmp(a, opt, n)) return 0;
  if (a[n] == '=' && opt[1] == '-') return *val = a + n + 1, 1;
  if (a[n] != '\0') return 0;
  if (*i + 1 >= argc) return -1;
  *val = argv[++*i];
  return 1;
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
} TvscArgs;

static const char *const valued[] = {"-o", "-H", "--emit", "--func", "--schedule", "--target",
                                     "--mtriple", "--mcpu", "--mattr", "--cc", "--runtime-dir"};

/* Sets option valued[which] to v: -1, or 2 on a usage error (printed). */
static int set_valued(TvscArgs *ta, int which, const char *v) {
  DrvOptions *o = &ta->o;
  const char **slot[] = {&o->output, &o->header, &o->emit, NULL, &o->schedule, NULL, &o->cg.triple,
                         &o->cg.mcpu, &o->cg.mattr, &o->cc, &o->runtime_dir};
  if (!v[0]) return usage_error("%s needs a non-empty value", valued[which]);
  if (which == 3) { /* --func a,b */
    char *list = ta->func_lists[ta->nlists++] = xstrdup(v);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
      if (o->nfuncs < ta->maxfuncs) ta->funcs[o->nfuncs++] = tok;
    return -1;
  }
  if (which == 5) {
    if (strcmp(v, "cpu") && strcmp(v, "llvm")) return usage_error("unknown target '%s' (tvsc emits code for: cpu)", v);
    return -1;
  }
  if (*slot[which] && strcmp(*slot[which], v))
    return usage_error("%s given twice ('%s' and '%s')", valued[which], *slot[which], v);
  *slot[which] = v;
  return -1;
}

/* Parses the argument at argv[*i]: -1 when consumed, else the exit code
 * (0 after --help, --version or --list-stages; 2 on a usage error). */
static int parse_arg(TvscArgs *ta, int argc, char **argv, int *i) {
  const char *a = argv[*i], *v = NULL;
  if (!strcmp(a, "-h") || !strcmp(a, "--help")) return fputs(usage, stdout), 0;
  if (!strcmp(a, "--version")) return puts("tvsc 0.1.0 (TVS tensor compiler, LLVM CPU backend)"), 0;
  if (!strcmp(a, "--list-stages")) return drv_print_stages(stdout, DRV_STAGES_EMIT), 0;
  if (!strcmp(a, "-v")) return ta->o.verbose = 1, -1;
  if (!strcmp(a, "--fast-math")) return ta->o.cg.fast_math = true, -1;
  if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) return ta->o.cg.opt_level = a[2] - '0', -1;
  if (a[0] == '-' && a[1] == 'O') return usage_error("unknown optimization level '%s' (-O0..-O3)", a);
  int which = -1;
  for (int k = 0; k < (int)(sizeof valued / sizeof valued[0]) && which < 0; k++) {
    int t = take_value(valued[k], argc, argv, i, &v);
    if (t < 0) return usage_error("%s needs a value", valued[k]);
    if (t > 0) which = k;
  }
  if (which < 0 && a[0] == '-' && a[1] == 'o' && a[2]) which = 0, v = a + 2; /* -oFILE */
  if (which < 0 && a[0] == '-' && a[1] == 'H' && a[2]) which = 1, v = a + 2;
  if (which >= 0) return set_valued(ta, which, v);
  if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
  ta->inputs[ta->o.ninputs++] = a;
  return -1;
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

int main(int argc, char **argv) {
  TvscArgs ta = {drv_options_default(), xcalloc((size_t)argc, sizeof *ta.inputs),
                 xcalloc((size_t)argc * 4 + 1, sizeof *ta.funcs), argc * 4,
                 xcalloc((size_t)argc, sizeof *ta.func_lists), 0};
  ta.o.inputs = ta.inputs;
  ta.o.funcs = ta.funcs;
  int rc = -1;
  for (int i = 1; i < argc && rc < 0; i++) rc = parse_arg(&ta, argc, argv, &i);
  if (rc < 0) rc = ta.o.ninputs == 0 ? usage_error("no input file") : compile(&ta.o);
  for (int i = 0; i < ta.nlists; i++) free(ta.func_lists[i]);
  free(ta.func_lists);
  free(ta.inputs);
  free(ta.funcs);
  return rc;
}
