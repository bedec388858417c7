/* cmd_npu.c - the npu target in `tvs`: `tvs run --target npu` (the
 * simulated NPU run of a prim_func, its check against the interpreter and
 * the cycle report) and `tvs show --stage npu-isa` (the instruction stream;
 * the earlier lowering stages npu-inject-dma, npu-inject-vthread and
 * npu-coproc-sync likewise);
 * driver/npu.h does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/npu.h"
#include "ir/transform.h"
#include "sched/schedule.h"
#include "tools/tvs/tvs.h"

int tool_run_npu(const IrModule *m, const char *fname, InterpArg *args, int nargs, const char *config_path,
                 int vthreads, DiagCtx *d) {
  DrvNpuOptions o;
  drv_npu_options_default(&o);
  o.vthreads = vthreads;
  char err[1024] = "";
  if (config_path && npu_config_load(&o.cfg, config_path, err, sizeof err)) {
    fprintf(stderr, "tvs run: error: %s\n", err);
    return -1;
  }
  if (!o.cfg.functional) {
    fprintf(stderr, "tvs run: error: --target npu computes the outputs: the config's \"functional\" must be true\n");
    return -1;
  }
  NpuReport r;
  int64_t bad = 0;
  int rc = drv_npu_run(m, fname, &o, args, nargs, &r, &bad, d, err, sizeof err);
  diag_flush(d);
  if (rc) {
    if (err[0]) fprintf(stderr, "tvs run: error: %s\n", err);
    return -1;
  }
  npu_report_print(stdout, &r);
  if (bad) {
    fprintf(stderr, "tvs run: error: %lld output elements differ from the interpreter's\n", (long long)bad);
    return -1;
  }
  printf("npu: outputs equal the interpreter's\n");
  return 0;
}

/* Prints the stream of every prim_func of the module (driver/npu_text.c). */
static int print_streams(const IrModule *m, const DrvNpuOptions *o, NpuStage stage, bool graph, DiagCtx *d) {
  int nkernels = 0;
  int rc = drv_npu_module_text(m, o, stage, graph, stdout, &nkernels, d);
  if (rc == 0 && nkernels == 0) {
    fprintf(stderr, "tvs show: error: the module has no prim_func for the npu\n");
    rc = -1;
  }
  return rc;
}

int tool_show_npu(const char *file, const char *sched_path, const char *config_path, const char *stage, DiagCtx *d) {
  DrvNpuOptions o;
  drv_npu_options_default(&o);
  char err[1024];
  if (config_path && npu_config_load(&o.cfg, config_path, err, sizeof err)) {
    fprintf(stderr, "tvs show: error: %s\n", err);
    return 1;
  }
  SourceFile *src = NULL;
  IrModule *m = tool_load(file, d, &src);
  StrBuf sout;
  sb_init(&sout);
  if (m && sch_apply_schedules(&m, src, sched_path, d, &sout)) ir_module_free(m), m = NULL;
  diag_flush(d);
  fputs(sout.data, stdout);
  sb_free(&sout);
  bool graph = false;
  for (int i = 0; m && i < m->nfuncs; i++) graph |= m->funcs[i].kind == IR_FUNC_RELAX;
  if (graph) { /* the kernels legalization and fusion make, as --target npu runs them */
    IrModule *legal = rx_run_graph_passes(m, rx_graph_pipeline_index("fuse-tir"), d, NULL, NULL);
    ir_module_free(m);
    m = legal;
  }
  int rc = m ? print_streams(m, &o, (NpuStage)cg_npu_stage_lookup(stage), graph, d) : -1;
  diag_flush(d);
  ir_module_free(m);
  src_free(src);
  return rc ? 1 : 0;
}

/* Reads a whole file; NULL (reported) on failure. */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tvs run: error: cannot open '%s'\n", path);
    return NULL;
  }
  StrBuf sb;
  sb_init(&sb);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sb_putn(&sb, chunk, n);
  fclose(f);
  return sb_take(&sb);
}

/* DRAM images: int8 tiles get a fixed pattern in [-8, 7], int32 ones zeros. */
static void **make_dram(const NpuConfig *c, const NpuProgram *p) {
  void **data = xcalloc((size_t)p->nbufs + 1, sizeof *data);
  for (int b = 0; b < p->nbufs; b++) {
    size_t bytes = (size_t)(p->bufs[b].ntiles * npu_tile_bytes(c, p->bufs[b].mem));
    int8_t *d = xcalloc(bytes + 1, 1);
    if (p->bufs[b].mem == NPU_MEM_INP || p->bufs[b].mem == NPU_MEM_WGT)
      for (size_t i = 0; i < bytes; i++) d[i] = (int8_t)((i * 7 + (size_t)b * 3) % 16) - 8;
    data[b] = d;
  }
  return data;
}

static void print_checksums(const NpuConfig *c, const NpuProgram *p, void *const *data) {
  for (int b = 0; b < p->nbufs; b++) {
    int64_t n = p->bufs[b].ntiles * npu_tile_bytes(c, p->bufs[b].mem), sum = 0;
    if (p->bufs[b].mem == NPU_MEM_ACC)
      for (int64_t i = 0; i < n / 4; i++) sum += ((const int32_t *)data[b])[i];
    else
      for (int64_t i = 0; i < n; i++) sum += ((const int8_t *)data[b])[i];
    printf("%s: %s, %lld tiles, sum=%lld\n", p->bufs[b].name, npu_mem_name(p->bufs[b].mem),
           (long long)p->bufs[b].ntiles, (long long)sum);
  }
}

int tool_run_npu_stream(const char *path, const char *config_path) {
  NpuConfig c;
  npu_config_default(&c);
  char err[1024];
  if (config_path && npu_config_load(&c, config_path, err, sizeof err)) {
    fprintf(stderr, "tvs run: error: %s\n", err);
    return -1;
  }
  char *text = read_text(path);
  if (!text) return -1;
  NpuProgram p;
  npu_program_init(&p);
  int rc = npu_program_parse(&p, path, text, err, sizeof err);
  free(text);
  if (rc) {
    fprintf(stderr, "%s\n", err);
    npu_program_free(&p);
    return -1;
  }
  void **data = make_dram(&c, &p);
  NpuReport r;
  rc = npu_sim_run(&c, &p, data, &r, err, sizeof err);
  if (rc) fprintf(stderr, "%s: error: %s\n", path, err);
  else {
    npu_report_print(stdout, &r);
    if (c.functional) print_checksums(&c, &p, data);
  }
  for (int b = 0; b < p.nbufs; b++) free(data[b]);
  free(data);
  npu_program_free(&p);
  return rc;
}

static void print_graph_report(const DrvNpuGraphReport *rep) {
  int64_t cycles = 0, gemm = 0;
  int nnpu = 0;
  for (int i = 0; i < rep->n; i++) {
    const DrvNpuKernel *k = &rep->k[i];
    if (!k->on_npu) {
      printf("npu: kernel %s: on the interpreter (not an NPU kernel)\n", k->name);
      continue;
    }
    printf("npu: kernel %s: %lld cycles, GEMM utilisation %.1f%% (%lld GEMM, %lld ALU cycles)\n", k->name,
           (long long)k->r.total_cycles, npu_report_utilisation(&k->r), (long long)k->r.gemm_cycles,
           (long long)k->r.alu_cycles);
    cycles += k->r.total_cycles, gemm += k->r.gemm_cycles, nnpu++;
  }
  printf("npu: total %lld cycles in %d NPU kernel%s, GEMM utilisation %.1f%%; outputs equal the interpreter's\n",
         (long long)cycles, nnpu, nnpu == 1 ? "" : "s", cycles ? 100.0 * (double)gemm / (double)cycles : 0.0);
}

int tool_run_npu_graph(const IrModule *m, const char *fname, InterpArg *args, int nargs, const char *config_path,
                       int vthreads, DLTensor ***results, int *nresults, DiagCtx *d) {
  DrvNpuOptions o;
  drv_npu_options_default(&o);
  o.vthreads = vthreads;
  char err[1024];
  if (config_path && npu_config_load(&o.cfg, config_path, err, sizeof err)) {
    fprintf(stderr, "tvs run: error: %s\n", err);
    return -1;
  }
  if (!o.cfg.functional) {
    fprintf(stderr, "tvs run: error: --target npu computes the outputs: the config's \"functional\" must be true\n");
    return -1;
  }
  DrvNpuGraphReport rep;
  int rc = drv_npu_run_graph(m, fname, &o, args, nargs, results, nresults, &rep, d);
  diag_flush(d);
  if (rc == 0) print_graph_report(&rep);
  drv_npu_graph_report_free(&rep);
  return rc;
}
