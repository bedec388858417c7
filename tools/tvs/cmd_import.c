/* cmd_import.c - `tvs import MODEL.onnx -o MODEL.tvs`: the importer's graph
 * function as readable .tvs text, and its weights as an .npz beside it (the
 * names of main's weight parameters).  Both files are written under temporary
 * names and renamed, after the text has been checked to elaborate. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/onnx/onnx_import.h"
#include "lang/elab.h"
#include "runtime/npz.h"
#include "runtime/write_file.h"
#include "tools/tvs/tvs.h"

enum { IMPORT_HELP, IMPORT_OUTPUT, IMPORT_PARAMS };

static const ToolOption import_options[] = {
    {IMPORT_OUTPUT, "--output", "-o", "FILE.tvs", 0, "where the graph text goes (default: MODEL with .tvs)"},
    {IMPORT_PARAMS, "--params", NULL, "FILE.npz", 0, "where the weights go (default: the output with .npz)"},
    {IMPORT_HELP, "--help", "-h", NULL, 0, "this help"},
    {0, NULL, NULL, NULL, 0, NULL},
};

/* path with its extension (after the last '/') replaced by ext. */
static char *with_ext(const char *path, const char *ext) {
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
  return xasprintf("%.*s%s", (int)n, path, ext);
}

static int write_text(const char *path, const char *text) {
  char err[512];
  if (tvs_write_text_file(path, text, err, sizeof err) == 0) return 0;
  fprintf(stderr, "tvs import: error: %s\n", err);
  return 1;
}

/* Checks the text elaborates (an importer bug must not reach a file). */
static int check_text(const char *text, const char *name, DiagCtx *d) {
  SourceFile *src = src_from_string(name, text, strlen(text));
  IrModule *m = tvs_load_module(src, d);
  diag_flush(d);
  int rc = m && !d->nerr ? 0 : 1;
  ir_module_free(m);
  src_free(src);
  return rc;
}

static int do_import(const char *model, const char *out, const char *npz, DiagCtx *d) {
  OnnxImport imp;
  if (onnx_import_file(model, &imp, d)) {
    diag_flush(d);
    return 1;
  }
  StrBuf text;
  sb_init(&text);
  const char *nl = strchr(imp.text, '\n');
  sb_putn(&text, imp.text, (size_t)(nl - imp.text + 1));
  if (imp.nweights) sb_printf(&text, "# Weights: %s (tvs run %s --params %s).\n", npz, out, npz);
  sb_puts(&text, nl + 1);
  int rc = check_text(text.data, out, d);
  if (!rc && imp.nweights) {
    char err[512];
    const DLTensor **vals = xcalloc((size_t)imp.nweights, sizeof *vals);
    for (int i = 0; i < imp.nweights; i++) vals[i] = &imp.weights[i]->t;
    if (tvs_npz_save(npz, imp.nweights, (const char *const *)imp.weight_names, vals, err, sizeof err)) {
      fprintf(stderr, "tvs import: error: %s\n", err);
      rc = 1;
    }
    free(vals);
  }
  if (!rc) rc = write_text(out, text.data);
  if (!rc) printf("imported %s: %d nodes (opset %lld) -> %s, %d weights -> %s\n", model, imp.nnodes,
                  (long long)imp.opset, out, imp.nweights, imp.nweights ? npz : "(none)");
  sb_free(&text);
  onnx_import_free(&imp);
  return rc;
}

int cmd_import(int argc, char **argv) {
  ToolCommon common = {DIAG_FORMAT_TEXT, -1};
  const char *file = NULL, *out = NULL, *npz = NULL;
  for (int i = 1; i < argc; i++) {
    int r = tool_common_option(&common, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    const char *val, *spelled;
    bool missing;
    const ToolOption *o = opt_match(import_options, argc, argv, &i, &val, &spelled, &missing);
    if (o && o->id == IMPORT_HELP) {
      tool_print_help("usage: tvs import MODEL.onnx [-o MODEL.tvs] [--params MODEL.npz]\n"
                      "Imports an ONNX model: a graph function `main` in the R. dialect (one binding\n"
                      "per ONNX node, its name in a comment) and its weights as an .npz.\n",
                      import_options);
      return 0;
    }
    if (o && missing) return tool_usage_error("import", "%s needs a value", spelled);
    if (o && o->id == IMPORT_OUTPUT) out = val;
    else if (o && o->id == IMPORT_PARAMS) npz = val;
    else if (argv[i][0] == '-' && argv[i][1]) return tool_usage_error("import", "unknown option '%s'", argv[i]);
    else if (file) return tool_usage_error("import", "more than one input file");
    else file = argv[i];
  }
  if (!file) return tool_usage_error("import", "no input model");
  if (!onnx_is_model_path(file)) return tool_usage_error("import", "'%s' is not an .onnx model", file);
  char *out_own = out ? NULL : with_ext(file, ".tvs");
  if (!out) out = out_own;
  char *npz_own = npz ? NULL : with_ext(out, ".npz");
  if (!npz) npz = npz_own;
  DiagCtx d;
  tool_diag_init(&d, &common);
  int rc = do_import(file, out, npz, &d);
  diag_free(&d);
  free(out_own);
  free(npz_own);
  return rc;
}
