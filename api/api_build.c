/* api_build.c - tvs/build.h, compiling: target strings, JIT builds of a
 * module (graph passes, lowering, LLVM), shared libraries through tvsc's
 * driver, loading them, and the executable's functions. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "codegen/codegen.h"
#include "driver/driver.h"
#include "ir/printer.h"
#include "ir/transform.h"

/* Target options parsed from "llvm -mcpu=X -mattr=Y" (pointers into buf). */
typedef struct ApiTarget {
  char buf[512];
  const char *mcpu, *mattr, *triple;
} ApiTarget;

/* Reads target into t; TVS_OK or TVS_ERR_ARGUMENT naming what TVS lacks. */
static int parse_target(const char *target, ApiTarget *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->buf, sizeof t->buf, "%s", target && target[0] ? target : "llvm");
  char *save = NULL;
  char *kind = strtok_r(t->buf, " ", &save);
  if (!kind || (strcmp(kind, "llvm") && strcmp(kind, "cpu") && strcmp(kind, "c")))
    return api_fail(TVS_ERR_ARGUMENT,
                    "target '%s' is not implemented by TVS's build (NotImplementedError): use \"llvm\"",
                    target);
  for (char *w; (w = strtok_r(NULL, " ", &save));) {
    if (!strncmp(w, "-mcpu=", 6)) t->mcpu = w + 6;
    else if (!strncmp(w, "-mattr=", 7)) t->mattr = w + 7;
    else if (!strncmp(w, "-mtriple=", 9)) t->triple = w + 9;
    else if (!strncmp(w, "-num-cores=", 11) || !strncmp(w, "-keys=", 6) || !strncmp(w, "-opt-level=", 11)) continue;
    else return api_fail(TVS_ERR_ARGUMENT, "target '%s': unknown option '%s' (TVS takes -mcpu, -mattr, -mtriple)", target, w);
  }
  return TVS_OK;
}

static CgOptions cg_for(const ApiTarget *t, const TvsBuildOptions *opt) {
  CgOptions cg = cg_options_default();
  cg.mcpu = t->mcpu;
  cg.mattr = t->mattr;
  cg.triple = t->triple;
  if (opt) {
    if (opt->set_opt_level) cg.opt_level = opt->opt_level < 0 ? 0 : opt->opt_level > 3 ? 3 : opt->opt_level;
    if (opt->mcpu) cg.mcpu = opt->mcpu;
    if (opt->mattr) cg.mattr = opt->mattr;
  }
  return cg;
}

static TvsExecutable *wrap_executable(TVSModule *mod) {
  TvsExecutable *e = xcalloc(1, sizeof *e);
  e->mod = mod;
  e->names = tvs_module_list_functions(mod, &e->nnames);
  return e;
}

int tvs_build(const TvsIRModule *m, const char *target, const TvsBuildOptions *opt, TvsExecutable **out) {
  api_clear_error();
  if (!m || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_build: NULL argument");
  ApiTarget t;
  if (parse_target(target, &t)) return TVS_ERR_ARGUMENT;
  if (t.triple) return api_fail(TVS_ERR_ARGUMENT, "tvs_build runs code on this machine: -mtriple is for export_library");
  if (m->m->nfuncs == 0) return api_fail(TVS_ERR_BUILD, "nothing to build: the module has no function");
  DiagCtx d;
  diag_init(&d, NULL);
  CgOptions cg = cg_for(&t, opt);
  IrModule *g = rx_run_graph_passes(m->m, -1, &d, NULL, NULL);
  TVSModule *mod = NULL;
  if (g && !d.nerr) {
    for (int i = 0; i < g->nfuncs; i++) cg.graph_funcs |= g->funcs[i].kind == IR_FUNC_RELAX;
    cg.flop_source = g;
    mod = cg_compile_module(g, &cg, &d);
  }
  ir_module_free(g);
  int rc = TVS_OK;
  if (!mod || d.nerr) {
    tvs_module_free(mod);
    rc = api_fail_diag(TVS_ERR_BUILD, &d, "the module could not be compiled");
  } else {
    *out = wrap_executable(mod);
  }
  diag_free(&d);
  return rc;
}

/* The directory of the libtvs_runtime.so this process uses (malloc'd), for
 * linking shared libraries against it; NULL when unknown. */
static char *runtime_dir(void) {
  Dl_info info;
  if (!dladdr((void *)tvs_func_call, &info) || !info.dli_fname) return NULL;
  char *p = xstrdup(info.dli_fname);
  char *dir = xstrdup(dirname(p));
  free(p);
  return dir;
}

/* Writes m's text to a fresh temporary .tvs file; its path (malloc'd) or NULL. */
static char *write_temp_source(const IrModule *m) {
  StrBuf sb;
  sb_init(&sb);
  PrintOptions popt = print_options_default();
  print_module(&sb, m, &popt);
  const char *tmpdir = getenv("TMPDIR");
  char *path = xasprintf("%s/tvs-export-XXXXXX.tvs", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
  int fd = mkstemps(path, 4);
  bool ok = fd >= 0 && write(fd, sb.data, sb.len) == (ssize_t)sb.len;
  if (fd >= 0) close(fd);
  sb_free(&sb);
  if (!ok) {
    if (fd >= 0) unlink(path);
    free(path);
    return NULL;
  }
  return path;
}

int tvs_export_library(const TvsIRModule *m, const char *target, const char *path) {
  api_clear_error();
  if (!m || !path) return api_fail(TVS_ERR_ARGUMENT, "tvs_export_library: NULL argument");
  ApiTarget t;
  if (parse_target(target, &t)) return TVS_ERR_ARGUMENT;
  if (drv_product_for(path) != DRV_PRODUCT_SO && drv_product_for(path) != DRV_PRODUCT_OBJ)
    return api_fail(TVS_ERR_ARGUMENT, "export_library: '%s' should end in .so (or .o)", path);
  char *src = write_temp_source(m->m);
  if (!src) return api_fail(TVS_ERR_IO, "export_library: cannot write a temporary file");
  char *rtdir = runtime_dir();
  DrvOptions o = drv_options_default();
  const char *inputs[1] = {src};
  o.inputs = inputs;
  o.ninputs = 1;
  o.output = path;
  o.cg = cg_for(&t, NULL);
  o.runtime_dir = rtdir;
  o.source_name = m->m->name;
  DiagCtx d;
  diag_init(&d, NULL);
  int rc = drv_compile(&o, &d) ? api_fail_diag(TVS_ERR_BUILD, &d, "export_library failed") : TVS_OK;
  diag_free(&d);
  unlink(src);
  free(src);
  free(rtdir);
  return rc;
}

int tvs_executable_load(const char *path, TvsExecutable **out) {
  api_clear_error();
  if (!path || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_executable_load: NULL argument");
  TVSModule *mod = tvs_module_load(path);
  if (!mod) return api_fail(TVS_ERR_IO, "%s", tvs_get_last_error());
  *out = wrap_executable(mod);
  return TVS_OK;
}

void tvs_executable_release(TvsExecutable *e) {
  if (!e) return;
  free((void *)e->names);
  tvs_module_free(e->mod);
  free(e);
}

int tvs_executable_num_funcs(const TvsExecutable *e) { return e ? e->nnames : 0; }

const char *tvs_executable_func_name(const TvsExecutable *e, int i) {
  return e && i >= 0 && i < e->nnames ? e->names[i] : NULL;
}

int tvs_executable_get_function(TvsExecutable *e, const char *name, TvsFunction **out) {
  api_clear_error();
  if (!e || !name || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_executable_get_function: NULL argument");
  TVSFunction *fn = tvs_module_get_function(e->mod, name);
  if (!fn) return api_fail(TVS_ERR_ARGUMENT, "the module has no function '%s'", name);
  TvsFunction *f = xcalloc(1, sizeof *f);
  f->mod = tvs_module_retain(e->mod);
  f->fn = fn;
  f->info = tvs_module_func_info(e->mod, name);
  *out = f;
  return TVS_OK;
}

void tvs_function_release(TvsFunction *f) {
  if (!f) return;
  tvs_func_release(f->fn);
  tvs_module_free(f->mod);
  free(f->vals);
  free(f->codes);
  free(f);
}

int tvs_set_num_threads(int n) {
  api_clear_error();
  if (tvs_thread_pool_set_num_threads(n)) return api_fail(TVS_ERR_ARGUMENT, "%s", tvs_get_last_error());
  return TVS_OK;
}
