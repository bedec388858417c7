/* api_module.c - tvs/ir.h: parsing text into modules, listing, printing at
 * a pipeline stage, selecting functions, structural equality. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "base/vec.h"
#include "codegen/codegen.h"
#include "driver/stages.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/transform.h"
#include "lang/elab.h"

TvsIRModule *api_module_wrap(IrModule *m, ApiSrc *src) {
  TvsIRModule *h = xcalloc(1, sizeof *h);
  h->m = m;
  h->src = api_src_retain(src);
  return h;
}

/* Parses src (taken) into *out. */
static int parse_source(SourceFile *src, TvsIRModule **out) {
  DiagCtx d;
  diag_init(&d, NULL);
  d.color = false;
  IrModule *m = tvs_load_module(src, &d);
  int rc = TVS_OK;
  if (!m || d.nerr) {
    rc = api_fail_diag(TVS_ERR_PARSE, &d, "the text does not define a module");
    ir_module_free(m);
    src_free(src);
  } else {
    ApiSrc *s = api_src_new(NULL);
    VEC_PUSH(s->files, s->nfiles, s->capfiles, src);
    *out = api_module_wrap(m, s);
    api_src_release(s);
  }
  diag_free(&d);
  return rc;
}

int tvs_irmod_parse(const char *text, const char *name, int first_line, TvsIRModule **out) {
  api_clear_error();
  if (!text || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_parse: text and out must not be NULL");
  /* Blank lines first, so that line numbers are those of the enclosing file. */
  int pad = first_line > 1 ? first_line - 1 : 0;
  size_t n = strlen(text);
  char *buf = xmalloc((size_t)pad + n + 1);
  memset(buf, '\n', (size_t)pad);
  memcpy(buf + pad, text, n + 1);
  SourceFile *src = src_from_string(name ? name : "<string>", buf, (size_t)pad + n);
  free(buf);
  return parse_source(src, out);
}

int tvs_irmod_parse_file(const char *path, TvsIRModule **out) {
  api_clear_error();
  if (!path || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_parse_file: path and out must not be NULL");
  const char *why = NULL;
  SourceFile *src = src_from_path(path, &why);
  if (!src) return api_fail(TVS_ERR_IO, "%s: error: cannot read: %s", path, why ? why : "unknown error");
  return parse_source(src, out);
}

void tvs_irmod_release(TvsIRModule *m) {
  if (!m) return;
  ir_module_free(m->m);
  api_src_release(m->src);
  free(m);
}

int tvs_irmod_num_funcs(const TvsIRModule *m) { return m ? m->m->nfuncs : 0; }

const char *tvs_irmod_func_name(const TvsIRModule *m, int i) {
  return m && i >= 0 && i < m->m->nfuncs ? m->m->funcs[i].name : NULL;
}

int tvs_irmod_func_kind(const TvsIRModule *m, int i) {
  if (!m || i < 0 || i >= m->m->nfuncs) return -1;
  return m->m->funcs[i].kind == IR_FUNC_TIR ? TVS_FUNC_PRIM : TVS_FUNC_GRAPH;
}

const char *tvs_irmod_name(const TvsIRModule *m) { return m ? m->m->name : NULL; }

int tvs_irmod_script(const TvsIRModule *m, char **out) {
  api_clear_error();
  if (!m || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_script: NULL argument");
  StrBuf sb;
  sb_init(&sb);
  PrintOptions opt = print_options_default();
  print_module(&sb, m->m, &opt);
  return api_take_text(&sb, out);
}

int tvs_irmod_func_script(const TvsIRModule *m, const char *func, char **out) {
  api_clear_error();
  if (!m || !func || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_func_script: NULL argument");
  const IrGlobal *g = ir_module_lookup(m->m, func);
  if (!g) return api_fail(TVS_ERR_ARGUMENT, "the module has no function '%s'", func);
  StrBuf sb;
  sb_init(&sb);
  PrintOptions opt = print_options_default();
  if (g->kind == IR_FUNC_TIR) print_tir_func(&sb, g->tir, g->name, &opt);
  else print_relax_func(&sb, g->rx, g->name, &opt);
  return api_take_text(&sb, out);
}

/* The prim_funcs of m only, as the tir stage and the lowering passes print. */
static void print_prims(StrBuf *sb, const IrModule *m) {
  IrModule *t = ir_module_copy(m);
  int n = 0;
  for (int i = 0; i < t->nfuncs; i++)
    if (t->funcs[i].kind == IR_FUNC_TIR) t->funcs[n++] = t->funcs[i];
  t->nfuncs = n;
  PrintOptions opt = print_options_default();
  print_module(sb, t, &opt);
  ir_module_free(t);
}

/* A codegen stage (llvm-unopt, llvm, asm) of the fully lowered module. */
static char *codegen_text(const IrModule *low, const char *stage, DiagCtx *d) {
  CgOptions cg = cg_options_default();
  CgResult *r = cg_build(low, &cg, d);
  char *text = NULL;
  if (r && !strcmp(stage, "asm")) text = cg_emit_asm(r, d);
  else if (r) text = cg_emit_llvm(r, !strcmp(stage, "llvm"));
  cg_free(r);
  return text;
}

/* Prints stage of m into sb (the same stages as `tvs show`); 0 / -1 (d). */
static int stage_text(const IrModule *m, const char *stage, StrBuf *sb, DiagCtx *d) {
  PrintOptions opt = print_options_default();
  if (!strcmp(stage, "graph")) {
    print_module(sb, m, &opt);
    return 0;
  }
  int gi = rx_graph_pipeline_index(stage), ti = tir_pipeline_index(stage);
  IrModule *g = rx_run_graph_passes(m, gi, d, NULL, NULL);
  if (!g || d->nerr) return ir_module_free(g), -1;
  int rc = 0;
  if (gi >= 0) {
    print_module(sb, g, &opt);
  } else if (!strcmp(stage, "tir")) {
    print_prims(sb, g);
  } else {
    IrModule *low = tir_lower(g, ti, d, NULL, NULL);
    if (!low || d->nerr) rc = -1;
    else if (ti >= 0) print_prims(sb, low);
    else {
      char *text = codegen_text(low, stage, d);
      if (text) sb_puts(sb, text);
      else rc = -1;
      free(text);
    }
    ir_module_free(low);
  }
  ir_module_free(g);
  return rc;
}

int tvs_irmod_show_stage(const TvsIRModule *m, const char *stage, char **out) {
  api_clear_error();
  if (!m || !stage || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_show_stage: NULL argument");
  DrvStage st;
  if (!drv_find_stage(stage, DRV_STAGES_EMIT, &st))
    return api_fail(TVS_ERR_ARGUMENT, "unknown stage '%s' (tvs_stage_list lists them)", stage);
  DiagCtx d;
  diag_init(&d, NULL);
  StrBuf sb;
  sb_init(&sb);
  int rc = stage_text(m->m, stage, &sb, &d);
  if (rc) {
    rc = api_fail_diag(TVS_ERR_BUILD, &d, "the stage could not be computed");
    sb_free(&sb);
  } else {
    api_take_text(&sb, out);
  }
  diag_free(&d);
  return rc;
}

int tvs_stage_list(char **out) {
  api_clear_error();
  if (!out) return api_fail(TVS_ERR_ARGUMENT, "tvs_stage_list: out must not be NULL");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return api_fail(TVS_ERR_IO, "tvs_stage_list: out of memory");
  drv_print_stages(f, DRV_STAGES_EMIT);
  fclose(f);
  *out = buf;
  return TVS_OK;
}

int tvs_irmod_select(const TvsIRModule *m, const char *const *funcs, int n, TvsIRModule **out) {
  api_clear_error();
  if (!m || (!funcs && n) || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_select: NULL argument");
  bool *keep = xcalloc((size_t)m->m->nfuncs + 1, sizeof *keep);
  for (int k = 0; k < n; k++) {
    int i = ir_module_index(m->m, funcs[k]);
    if (i < 0) {
      free(keep);
      return api_fail(TVS_ERR_ARGUMENT, "the module has no function '%s'", funcs[k]);
    }
    keep[i] = true;
    if (m->m->funcs[i].kind == IR_FUNC_RELAX) ir_module_mark_refs(m->m, m->m->funcs[i].rx->body, keep);
  }
  IrModule *c = ir_module_copy(m->m);
  int kept = 0;
  for (int i = 0; i < c->nfuncs; i++)
    if (keep[i]) c->funcs[kept++] = c->funcs[i];
  c->nfuncs = kept;
  free(keep);
  *out = api_module_wrap(c, m->src);
  return TVS_OK;
}

int tvs_irmod_bind_params(const TvsIRModule *m, const char *func, const char *const *names,
                          const DLTensor *const *values, int n, TvsIRModule **out) {
  api_clear_error();
  if (!m || !out || n < 0 || (n && (!names || !values)))
    return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_bind_params: NULL argument");
  if (func) {
    int fi = ir_module_index(m->m, func);
    if (fi < 0) return api_fail(TVS_ERR_ARGUMENT, "the module has no function '%s'", func);
    if (m->m->funcs[fi].kind != IR_FUNC_RELAX)
      return api_fail(TVS_ERR_ARGUMENT, "'%s' is a prim_func: parameters are bound on graph functions", func);
  }
  for (int k = 0; k < n; k++) {
    const DLTensor *t = values[k];
    if (!names[k] || !t || (!t->data && t->ndim > 0))
      return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_bind_params: value %d is NULL", k);
    if (t->device.device_type != kDLCPU)
      return api_fail(TVS_ERR_ARGUMENT, "parameter '%s': the value is not in host memory", names[k]);
    if (t->strides) { /* compact row-major only: the bytes are copied as they lie */
      int64_t want = 1;
      for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != 1 && t->strides[d] != want)
          return api_fail(TVS_ERR_ARGUMENT, "parameter '%s': the value is not a compact row-major array", names[k]);
        want *= t->shape[d];
      }
    }
  }
  /* DLTensor's byte_offset: rx_bind_params reads from data */
  const DLTensor **shifted = xcalloc((size_t)n + 1, sizeof *shifted);
  DLTensor *copies = xcalloc((size_t)n + 1, sizeof *copies);
  for (int k = 0; k < n; k++) {
    copies[k] = *values[k];
    copies[k].data = (char *)values[k]->data + values[k]->byte_offset;
    copies[k].byte_offset = 0;
    shifted[k] = &copies[k];
  }
  char err[512] = "";
  IrModule *c = rx_bind_params(m->m, func, n, names, shifted, err, sizeof err);
  free(shifted);
  free(copies);
  if (!c) {
    const char *file = strstr(err, " the file has"); /* rx_bind_params speaks of .npz files */
    if (file)
      return api_fail(TVS_ERR_ARGUMENT, "%.*s the value has%s", (int)(file - err), err, file + strlen(" the file has"));
    return api_fail(TVS_ERR_ARGUMENT, "%s", err);
  }
  *out = api_module_wrap(c, m->src);
  return TVS_OK;
}

int tvs_irmod_equal(const TvsIRModule *a, const TvsIRModule *b, char **why) {
  api_clear_error();
  if (!a || !b) return api_fail(TVS_ERR_ARGUMENT, "tvs_irmod_equal: NULL module");
  char *diff = NULL;
  bool eq = seq_module(a->m, b->m, NULL, why ? &diff : NULL);
  if (why) *why = diff ? diff : xstrdup("");
  return eq ? 1 : 0;
}
