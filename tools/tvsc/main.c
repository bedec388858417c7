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

int main(int argc, char **argv) {
  DrvOptions o = drv_options_default();
  const char **inputs = xcalloc((size_t)argc, sizeof *inputs);
  const char **funcs = xcalloc((size_t)argc * 4 + 1, sizeof *funcs);
  char **func_lists = xcalloc((size_t)argc, sizeof *func_lists);
  int nlists = 0, rc = 2;
  o.inputs = inputs;
  o.funcs = funcs;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    int t;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      rc = 0;
      goto out;
    }
    if (!strcmp(a, "--version")) {
      puts("tvsc 0.1.0 (TVS tensor compiler, LLVM CPU backend)");
      rc = 0;
      goto out;
    }
    if (!strcmp(a, "--list-stages")) {
      drv_print_stages(stdout, DRV_STAGES_EMIT);
      rc = 0;
      goto out;
    }
    if (!strcmp(a, "-v")) { o.verbose = 1; continue; }
    if (!strcmp(a, "--fast-math")) { o.cg.fast_math = true; continue; }
    if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
      o.cg.opt_level = a[2] - '0';
      continue;
    }
    if (a[0] == '-' && a[1] == 'O') { rc = usage_error("unknown optimization level '%s' (-O0..-O3)", a); goto out; }
    static const char *const valued[] = {"-o", "-H", "--emit", "--func", "--schedule", "--target",
                                         "--mtriple", "--mcpu", "--mattr", "--cc", "--runtime-dir"};
    int which = -1;
    for (int k = 0; k < (int)(sizeof valued / sizeof valued[0]) && which < 0; k++) {
      t = take_value(valued[k], argc, argv, &i, &v);
      if (t < 0) { rc = usage_error("%s needs a value", valued[k]); goto out; }
      if (t > 0) which = k;
    }
    if (which < 0 && a[0] == '-' && a[1] == 'o' && a[2]) which = 0, v = a + 2; /* -oFILE */
    if (which < 0 && a[0] == '-' && a[1] == 'H' && a[2]) which = 1, v = a + 2;
    if (which < 0) {
      if (a[0] == '-' && a[1]) { rc = usage_error("unknown option '%s'", a); goto out; }
      inputs[o.ninputs++] = a;
      continue;
    }
    const char **slot[] = {&o.output, &o.header, &o.emit, NULL, &o.schedule, NULL, &o.cg.triple,
                           &o.cg.mcpu, &o.cg.mattr, &o.cc, &o.runtime_dir};
    if (!v[0]) { rc = usage_error("%s needs a non-empty value", valued[which]); goto out; }
    if (which == 3) { /* --func a,b */
      char *list = func_lists[nlists++] = xstrdup(v);
      for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (o.nfuncs < argc * 4) funcs[o.nfuncs++] = tok;
      continue;
    }
    if (which == 5) {
      if (strcmp(v, "cpu") && strcmp(v, "llvm")) {
        rc = usage_error("unknown target '%s' (tvsc emits code for: cpu)", v);
        goto out;
      }
      continue;
    }
    if (*slot[which] && strcmp(*slot[which], v)) {
      rc = usage_error("%s given twice ('%s' and '%s')", valued[which], *slot[which], v);
      goto out;
    }
    *slot[which] = v;
  }
  if (o.ninputs == 0) {
    rc = usage_error("no input file");
    goto out;
  }
  DiagCtx d;
  diag_init(&d, stderr); /* colour when stderr is a terminal */
  d.out = NULL; /* rendered below, with the tvsc prefix */
  if (drv_check_options(&o, &d)) {
    render(&d);
    diag_free(&d);
    rc = 2;
    goto out;
  }
  o.report = render; /* while the sources the diagnostics point into live */
  rc = drv_compile(&o, &d) == 0 ? 0 : 1;
  diag_free(&d);
out:
  for (int i = 0; i < nlists; i++) free(func_lists[i]);
  free(func_lists);
  free(inputs);
  free(funcs);
  return rc;
}
