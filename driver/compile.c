/* compile.c - drv_compile, the flow of one tvsc run as a visible list of
 * steps: load -> schedule -> merge -> --schedule -> subset -> --params -> legalize ->
 * (stage | lower -> codegen -> products) -> commit.  Products are built under temporary names
 * next to their final paths and renamed only once all of them exist, so a
 * failed run leaves nothing behind and an old output is never half-replaced. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/cg_export.h"
#include "driver/drv_internal.h"
#include "driver/gpu.h"
#include "driver/load.h"
#include "driver/npu.h"
#include "driver/run.h"
#include "ir/printer.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "runtime/npz.h"
#include "runtime/write_file.h"
#include "base/util.h"
#include "sched/default_schedule.h"
#include "sched/schedule.h"

/* --------------------------------------------------------------- options */

DrvOptions drv_options_default(void) {
  DrvOptions o;
  memset(&o, 0, sizeof o);
  o.cg = cg_options_default();
  o.log = stderr;
  return o;
}

DrvProduct drv_product_for(const char *path) {
  static const struct {
    const char *suffix;
    DrvProduct p;
  } map[] = {{".so", DRV_PRODUCT_SO}, {".o", DRV_PRODUCT_OBJ}, {".ll", DRV_PRODUCT_LL}, {".s", DRV_PRODUCT_ASM}};
  size_t n = strlen(path);
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    size_t k = strlen(map[i].suffix);
    if (n > k && !strcmp(path + n - k, map[i].suffix) && path[n - k - 1] != '/') return map[i].p;
  }
  return DRV_PRODUCT_NONE;
}

/* --target npu, or --emit of an NPU stage (which implies it). */
static bool wants_npu(const DrvOptions *o) {
  return (o->target && !strcmp(o->target, "npu")) || (o->emit && cg_npu_stage_lookup(o->emit) >= 0);
}

int drv_check_options(const DrvOptions *o, DiagCtx *d) {
  if (o->ninputs == 0) {
    diag_error(d, span_none, "no input file");
    return -1;
  }
  if (wants_npu(o)) { /* the stream's text: -o FILE.npu or --emit npu-* */
    bool npu_stage = o->emit && cg_npu_stage_lookup(o->emit) >= 0;
    size_t n = o->output ? strlen(o->output) : 0;
    if (o->emit ? !npu_stage : !(n > 4 && !strcmp(o->output + n - 4, ".npu"))) {
      diag_error(d, span_none, "--target npu: give -o FILE.npu (the instruction stream; tvs run FILE.npu runs it) "
                 "or --emit npu-inject-dma|npu-inject-vthread|npu-coproc-sync|npu-isa");
      return -1;
    }
    if (o->header) {
      diag_error(d, span_none, "conflicting options: -H writes a header for a CPU module");
      return -1;
    }
    return 0;
  }
  if (tir_is_gpu_target(o->target)) {
    bool cuda = !strcmp(o->target, "cuda");
    bool code = cuda ? o->emit && (!strcmp(o->emit, "ptx") || !strcmp(o->emit, "nvvm"))
                     : o->emit && !strcmp(o->emit, "opencl");
    if (!o->emit || (!code && tir_gpu_pipeline_index(o->emit) < 0 && strcmp(o->emit, "tir"))) {
      diag_error(d, span_none, "--target %s: give --emit %s, tir or a GPU lowering pass (shared objects are "
                 "CPU-only for now; tvs run --target %s runs kernels)", o->target, cuda ? "ptx|nvvm" : "opencl",
                 o->target);
      return -1;
    }
    if (o->header) {
      diag_error(d, span_none, "conflicting options: -H writes a header for a CPU module");
      return -1;
    }
    return 0;
  }
  if (o->emit) {
    if (!drv_find_stage(o->emit, DRV_STAGES_EMIT, NULL)) {
      diag_error(d, span_none, "unknown stage '%s' for --emit (tvsc --list-stages lists them)", o->emit);
      return -1;
    }
    DrvProduct p = o->output ? drv_product_for(o->output) : DRV_PRODUCT_NONE;
    if (p == DRV_PRODUCT_SO || p == DRV_PRODUCT_OBJ) {
      diag_error(d, span_none,
                 "conflicting options: --emit %s prints a text stage, but -o '%s' asks for a %s; "
                 "drop --emit to build it, or write the stage to a text file",
                 o->emit, o->output, p == DRV_PRODUCT_SO ? "shared object" : "object file");
      return -1;
    }
    if (o->header) {
      diag_error(d, span_none, "conflicting options: -H writes a header for a compiled module, not with --emit");
      return -1;
    }
    return 0;
  }
  if (!o->output && !o->header) {
    diag_error(d, span_none, "nothing to do: give -o FILE (.so, .o, .ll, .s), -H HEADER or --emit STAGE");
    return -1;
  }
  if (o->output && drv_product_for(o->output) == DRV_PRODUCT_NONE) {
    diag_error(d, span_none,
               "cannot tell what to build from '%s': use a .so, .o, .ll or .s suffix, or --emit STAGE",
               o->output);
    return -1;
  }
  if (o->output && o->header && !strcmp(o->output, o->header)) {
    diag_error(d, span_none, "conflicting options: -o and -H name the same file '%s'", o->output);
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- state */

/* One output waiting to be renamed into place. */
typedef struct Pending {
  char *tmp;          /* the temporary file (exists) */
  const char *final;  /* where it goes */
} Pending;

typedef struct Run {
  const DrvOptions *o;
  DiagCtx *d;
  SourceFile **srcs;  /* every loaded file (kept alive with the modules) */
  int nsrcs, capsrcs;
  Pending pending[4];
  int npending;
  double t0;          /* start time, for -v */
  CgOptions cg;       /* o->cg with the target resolved (drv_prepare_target) */
} Run;

static void vlog(Run *r, const char *what) {
  if (r->o->verbose) fprintf(r->o->log, "tvsc: %-28s %8.1f ms\n", what, drv_now_ms() - r->t0);
}

/* Flushes diagnostics and reports whether there are errors. */
static bool failed(Run *r) {
  diag_flush(r->d);
  return r->d->nerr > 0;
}

/* ------------------------------------------------------------- loading */

/* Loads one file and applies the schedule statements it contains. */
static IrModule *load_one(Run *r, const char *path) {
  SourceFile *src = NULL;
  IrModule *m = drv_load_source(path, true, r->d, &src); /* .tvs, or .onnx with its weights */
  if (src) VEC_PUSH(r->srcs, r->nsrcs, r->capsrcs, src);
  if (!m || failed(r)) {
    ir_module_free(m);
    return NULL;
  }
  StrBuf out;
  sb_init(&out);
  int rc = sch_apply_schedules(&m, src, NULL, r->d, &out);
  if (out.len) fputs(out.data, r->o->log);
  sb_free(&out);
  if (rc != 0 || failed(r)) {
    ir_module_free(m);
    return NULL;
  }
  return m;
}

/* All input files as one module, in command-line then source order. */
static IrModule *load_all(Run *r) {
  if (r->o->ninputs == 1) return load_one(r, r->o->inputs[0]);
  IrModule *merged = ir_module_new("Module");
  for (int i = 0; i < r->o->ninputs; i++) {
    IrModule *m = load_one(r, r->o->inputs[i]);
    if (!m) {
      ir_module_free(merged);
      return NULL;
    }
    ir_heap_depend(merged->heap, m->heap);
    for (int k = 0; k < m->nfuncs; k++) {
      const IrGlobal *g = &m->funcs[k];
      if (ir_module_lookup(merged, g->name)) {
        diag_error(r->d, span_none, "function '%s' of '%s' is already defined by an earlier input file",
                   g->name, r->o->inputs[i]);
        continue;
      }
      if (g->kind == IR_FUNC_TIR) ir_module_add_tir(merged, g->name, g->tir);
      else ir_module_add_relax(merged, g->name, g->rx);
    }
    ir_module_free(m);
    if (failed(r)) {
      ir_module_free(merged);
      return NULL;
    }
  }
  return merged;
}


/* The --func subset (every name must exist), with the prim_funcs the chosen
 * graph functions call. */
static IrModule *select_funcs(Run *r, IrModule *m) {
  if (!r->o->nfuncs) return m;
  for (int i = 0; i < r->o->nfuncs; i++)
    if (!ir_module_lookup(m, r->o->funcs[i])) {
      diag_error(r->d, span_none, "--func %s: the input has no function '%s'", r->o->funcs[i], r->o->funcs[i]);
      StrBuf sb;
      sb_init(&sb);
      for (int k = 0; k < m->nfuncs; k++) sb_printf(&sb, "%s%s", k ? ", " : " ", m->funcs[k].name);
      diag_note(r->d, span_none, "functions in the input:%s", sb.data);
      sb_free(&sb);
    }
  if (failed(r)) {
    ir_module_free(m);
    return NULL;
  }
  IrModule *sub = ir_module_derive(m);
  sub->name = m->name;
  sub->implicit = m->implicit;
  bool *keep = xcalloc((size_t)(m->nfuncs ? m->nfuncs : 1), sizeof *keep);
  for (int k = 0; k < m->nfuncs; k++)
    for (int i = 0; i < r->o->nfuncs && !keep[k]; i++) keep[k] = !strcmp(r->o->funcs[i], m->funcs[k].name);
  for (int k = 0; k < m->nfuncs; k++)
    if (keep[k] && m->funcs[k].kind == IR_FUNC_RELAX) ir_module_mark_refs(m, m->funcs[k].rx->body, keep);
  for (int k = 0; k < m->nfuncs; k++) {
    if (!keep[k]) continue;
    if (m->funcs[k].kind == IR_FUNC_TIR) ir_module_add_tir(sub, m->funcs[k].name, m->funcs[k].tir);
    else ir_module_add_relax(sub, m->funcs[k].name, m->funcs[k].rx);
  }
  free(keep);
  ir_module_free(m);
  return sub;
}

/* --params w.npz: its arrays bound to the graph functions' parameters of
 * the same names (BindParams), so that they are compiled in as constants. */
static IrModule *bind_params(Run *r, IrModule *m) {
  const char *path = r->o->params;
  char err[512];
  TvsNpz *z = tvs_npz_load(path, err, sizeof err);
  if (!z) {
    size_t pl = strlen(path);
    diag_error(r->d, span_none, "--params %s: %s", path, !strncmp(err, path, pl) && err[pl] == ':' ? err + pl + 2 : err);
    ir_module_free(m);
    return NULL;
  }
  const char **names = xcalloc((size_t)(z->count ? z->count : 1), sizeof *names);
  const DLTensor **vals = xcalloc((size_t)(z->count ? z->count : 1), sizeof *vals);
  for (int i = 0; i < z->count; i++) names[i] = z->entries[i].name, vals[i] = &z->entries[i].array->t;
  IrModule *b = rx_bind_params(m, NULL, z->count, names, vals, err, sizeof err);
  if (!b) diag_error(r->d, span_none, "--params %s: %s", path, err);
  vlog(r, "bind params");
  free(names);
  free(vals);
  tvs_npz_free(z);
  ir_module_free(m);
  return b;
}

/* -------------------------------------------------------------- outputs */

/* Stages text for `final` (or stdout when final is NULL). */
static int put_text(Run *r, const char *final, const char *text) {
  if (!final) {
    fputs(text, stdout);
    if (tvs_flush_stdout() == 0) return 0;
    diag_error(r->d, span_none, "cannot write to standard output: %s", strerror(errno));
    clearerr(stdout); /* reported once, here */
    return -1;
  }
  struct stat st;
  if (stat(final, &st) == 0 && !S_ISREG(st.st_mode)) { /* /dev/null, a pipe: no rename over it */
    char err[512];
    if (tvs_write_text_file(final, text, err, sizeof err) == 0) return 0;
    diag_error(r->d, span_none, "%s", err);
    return -1;
  }
  char *tmp = drv_temp_path(final, NULL);
  if (drv_write_file(tmp, text, strlen(text), r->d)) {
    drv_temp_release(tmp);
    return -1;
  }
  r->pending[r->npending++] = (Pending){tmp, final};
  return 0;
}

static void discard_pending(Run *r) {
  for (int i = 0; i < r->npending; i++) {
    unlink(r->pending[i].tmp);
    drv_temp_release(r->pending[i].tmp);
  }
  r->npending = 0;
}

/* Renames every pending output into place. */
static int commit(Run *r) {
  for (int i = 0; i < r->npending; i++) {
    if (rename(r->pending[i].tmp, r->pending[i].final) != 0) {
      diag_error(r->d, span_none, "cannot write '%s': %s", r->pending[i].final, strerror(errno));
      /* the ones already renamed stay (complete); the rest are removed */
      for (int k = 0; k < i; k++) drv_temp_release(r->pending[k].tmp);
      memmove(r->pending, r->pending + i, (size_t)(r->npending - i) * sizeof *r->pending);
      r->npending -= i;
      discard_pending(r);
      return -1;
    }
  }
  for (int i = 0; i < r->npending; i++) drv_temp_release(r->pending[i].tmp);
  r->npending = 0;
  return 0;
}

static void print_tir_only(StrBuf *sb, const IrModule *m) {
  PrintOptions opt = print_options_default();
  IrModule *t = ir_module_copy(m);
  int n = 0;
  for (int i = 0; i < t->nfuncs; i++)
    if (t->funcs[i].kind == IR_FUNC_TIR) t->funcs[n++] = t->funcs[i];
  t->nfuncs = n;
  print_module(sb, t, &opt);
  ir_module_free(t);
}

/* A comma-separated list of the input files (for the header comment). */
static char *sources_text(const DrvOptions *o) {
  if (o->source_name) return xstrdup(o->source_name);
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < o->ninputs; i++) {
    const char *b = strrchr(o->inputs[i], '/');
    sb_printf(&sb, "%s%s", i ? ", " : "", b ? b + 1 : o->inputs[i]);
  }
  return sb_take(&sb);
}

/* Exports tvs_direct_NAME for functions C cannot call by name (`main`). */
static int add_aliases(Run *r, CgResult *cg, const IrModule *low) {
  for (int i = 0; i < low->nfuncs; i++) {
    const char *name = low->funcs[i].name;
    if (!drv_needs_alias(name)) continue;
    char alias[256];
    drv_direct_c_name(name, alias, sizeof alias);
    if (cg_add_alias(cg, alias, name, r->d)) return -1;
  }
  return 0;
}

/* The codegen products: .so/.o/.ll/.s for -o, or an LLVM/asm stage. */
static int build_products(Run *r, const IrModule *low, bool cross) {
  const DrvOptions *o = r->o;
  CgResult *cg = cg_build(low, &r->cg, r->d);
  vlog(r, "codegen (LLVM IR)");
  if (!cg || failed(r) || add_aliases(r, cg, low)) {
    cg_free(cg);
    return -1;
  }
  int rc = 0;
  const char *stage = o->emit;
  DrvProduct p = o->output ? drv_product_for(o->output) : DRV_PRODUCT_NONE;
  if (!stage && p == DRV_PRODUCT_LL) stage = "llvm";
  if (!stage && p == DRV_PRODUCT_ASM) stage = "asm";
  if (stage) {
    char *text = !strcmp(stage, "asm") ? cg_emit_asm(cg, r->d) : cg_emit_llvm(cg, !strcmp(stage, "llvm"));
    vlog(r, stage);
    if (!text) {
      if (!failed(r)) diag_error(r->d, span_none, "LLVM could not produce the '%s' stage", stage);
      rc = -1;
    } else {
      rc = put_text(r, o->output, text);
    }
    free(text);
  } else if (p == DRV_PRODUCT_OBJ || p == DRV_PRODUCT_SO) {
    char *obj = drv_temp_path(o->output, ".o");
    rc = cg_emit_object(cg, obj, r->d);
    vlog(r, "object code");
    if (rc == 0 && p == DRV_PRODUCT_SO) {
      char *so = drv_temp_path(o->output, ".so");
      rc = drv_link_shared(o, obj, so, cross, r->d);
      vlog(r, "link");
      unlink(obj);
      drv_temp_release(obj);
      obj = so;
    }
    if (rc == 0) r->pending[r->npending++] = (Pending){obj, o->output};
    else {
      unlink(obj);
      drv_temp_release(obj);
    }
  }
  cg_free(cg);
  return rc == 0 && !failed(r) ? 0 : -1;
}

/* --target npu: the NPU streams at stage (npu-isa without --emit); -o
 * FILE.npu takes exactly one kernel, a stream `tvs run FILE.npu` runs. */
static int emit_npu(Run *r, const IrModule *m, const char *stage) {
  DrvNpuOptions no;
  drv_npu_options_default(&no);
  bool graph = false;
  for (int i = 0; i < m->nfuncs; i++) graph |= m->funcs[i].kind == IR_FUNC_RELAX;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    diag_error(r->d, span_none, "out of memory");
    return -1;
  }
  int nk = 0;
  int rc = drv_npu_module_text(m, &no, stage ? (NpuStage)cg_npu_stage_lookup(stage) : NPU_STAGE_ISA, graph, f, &nk, r->d);
  fclose(f);
  if (rc == 0 && nk == 0) {
    diag_error(r->d, span_none, "--target npu: the module has no int8 matmul or conv2d for the npu");
    rc = -1;
  } else if (rc == 0 && !stage && nk > 1) {
    diag_error(r->d, span_none, "--target npu: -o '%s' holds one stream, but the module has %d NPU kernels "
               "(--emit npu-isa prints them all)", r->o->output, nk);
    rc = -1;
  }
  if (rc == 0) rc = put_text(r, r->o->output, text);
  free(text);
  return rc;
}

/* Everything after loading; m is consumed. */
static int compile_module(Run *r, IrModule *m) {
  const DrvOptions *o = r->o;
  int rc = -1;
  IrModule *low = NULL;
  StrBuf sb;
  sb_init(&sb);
  if (o->schedule) { /* --schedule FILE: on the merged module, before the subset */
    StrBuf out;
    sb_init(&out);
    int src = sch_apply_schedules(&m, NULL, o->schedule, r->d, &out);
    if (out.len) fputs(out.data, o->log);
    sb_free(&out);
    if (src != 0 || failed(r)) goto done;
    vlog(r, "schedule");
  }
  if (o->module_hook) {
    if (o->module_hook(&m, o->module_hook_arg, r->d) < 0 || failed(r)) goto done;
    vlog(r, "module hook (tuning database)");
  }
  if (!(m = select_funcs(r, m))) goto done;
  const char *stage = o->emit;
  if (stage && !strcmp(stage, "graph")) {
    PrintOptions popt = print_options_default();
    print_module(&sb, m, &popt);
    rc = put_text(r, o->output, sb.data);
    goto done;
  }
  if (o->params && !(m = bind_params(r, m))) goto done;
  { /* the graph passes (rx_graph_pipeline), all of them or up to the stage */
    int gi = rx_graph_pipeline_index(stage);
    IrModule *g = rx_run_graph_passes(m, gi, r->d, NULL, NULL);
    ir_module_free(m);
    m = g;
    vlog(r, "graph passes");
    if (!m || failed(r)) goto done;
  }
  if (stage && rx_graph_pipeline_index(stage) >= 0) {
    PrintOptions popt = print_options_default();
    print_module(&sb, m, &popt);
    rc = put_text(r, o->output, sb.data);
    goto done;
  }
  if (stage && !strcmp(stage, "tir")) {
    print_tir_only(&sb, m);
    rc = put_text(r, o->output, sb.data);
    goto done;
  }
  if (m->nfuncs == 0) {
    diag_error(r->d, span_none, "nothing to compile: the input has no function");
    goto done;
  }
  if (wants_npu(o)) {
    rc = emit_npu(r, m, stage);
    goto done;
  }
  if (tir_is_gpu_target(o->target)) { /* a GPU stage: a lowering pass or the device code */
    bool code = tir_gpu_pipeline_index(stage) < 0;
    low = drv_gpu_lower(m, o->target, code ? NULL : stage, r->d);
    char *text = low && code ? drv_gpu_device_code(low, o->target, &o->cg, !strcmp(stage, "nvvm"), r->d) : NULL;
    if (low && !code) print_tir_only(&sb, low);
    if (low && (text || !code)) rc = put_text(r, o->output, text ? text : sb.data);
    free(text);
    goto done;
  }
  bool cross = false;
  bool need_cg = !stage || tir_pipeline_index(stage) < 0;
  if (need_cg && (o->output || stage)) {
    CgOptions cg = o->cg;
    if (drv_prepare_target(&cg, &cross, r->d) || failed(r)) goto done;
    r->cg = cg; /* resolved (cpu "generic" for foreign triples) */
    r->cg.graph_funcs = true; /* graph functions get entries too */
    r->cg.flop_source = m;    /* FLOP counts for the metadata, from before lowering */
  }
  int last = stage ? tir_pipeline_index(stage) : -1;
  TirPassConfig pcfg = {o->cg.bounds_check};
  low = tir_lower_with(m, last, &pcfg, r->d, NULL, NULL);
  vlog(r, "lowering");
  if (!low || failed(r)) goto done;
  if (stage && last >= 0) {
    print_tir_only(&sb, low);
    rc = put_text(r, o->output, sb.data);
    goto done;
  }
  if (o->output || stage) {
    if (build_products(r, low, cross)) goto done;
  }
  if (o->header) {
    char *sources = sources_text(o);
    char *text = drv_header_text(low, o->header, sources);
    free(sources);
    rc = put_text(r, o->header, text);
    free(text);
    if (rc) goto done;
  }
  rc = 0;
done:
  sb_free(&sb);
  ir_module_free(low);
  ir_module_free(m);
  return rc;
}

int drv_compile(const DrvOptions *o, DiagCtx *d) {
  sch_default_schedule_install(); /* the pipeline's default-schedule stage */
  if (drv_check_options(o, d) ||
      (o->output && drv_check_writable(o->output, d)) || (o->header && drv_check_writable(o->header, d))) {
    diag_flush(d);
    if (o->report) o->report(d);
    return -1;
  }
  Run r;
  memset(&r, 0, sizeof r);
  r.o = o;
  r.d = d;
  r.t0 = drv_now_ms();
  r.cg = o->cg;
  int rc = -1;
  IrModule *m = load_all(&r);
  vlog(&r, "parse + elaborate + schedules");
  if (m) rc = compile_module(&r, m);
  if (rc == 0 && !failed(&r)) rc = commit(&r);
  else rc = -1;
  discard_pending(&r);
  diag_flush(d);
  if (o->report) o->report(d);
  for (int i = 0; i < r.nsrcs; i++) src_free(r.srcs[i]);
  free(r.srcs);
  if (rc == 0) vlog(&r, "done");
  return rc;
}
