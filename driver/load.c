/* load.c - one entry that loads any program file: .tvs source, or an ONNX
 * model imported to graph text plus weights (bound as constants on request). */
#include <stdlib.h>
#include <string.h>

#include "driver/load.h"
#include "frontend/onnx/onnx_import.h"
#include "ir/transform.h"
#include "lang/elab.h"

bool drv_is_model_path(const char *path) { return onnx_is_model_path(path) != 0; }

static IrModule *load_model(const char *path, bool bind_weights, DiagCtx *d, SourceFile **src_out) {
  OnnxImport imp;
  if (onnx_import_file(path, &imp, d)) return NULL;
  /* spans point into the imported text, named after the model */
  char *name = xasprintf("%s (imported)", path);
  SourceFile *src = src_from_string(name, imp.text, strlen(imp.text));
  free(name);
  *src_out = src;
  IrModule *m = tvs_load_module(src, d);
  if (m && !d->nerr && bind_weights && imp.nweights) {
    const DLTensor **vals = xcalloc((size_t)imp.nweights, sizeof *vals);
    for (int i = 0; i < imp.nweights; i++) vals[i] = &imp.weights[i]->t;
    char err[512];
    IrModule *b = rx_bind_params(m, "main", imp.nweights, (const char *const *)imp.weight_names, vals, err, sizeof err);
    if (!b) diag_error(d, span_none, "%s: binding the weights: %s", path, err);
    free(vals);
    ir_module_free(m);
    m = b;
  }
  onnx_import_free(&imp);
  if (d->nerr) {
    ir_module_free(m);
    return NULL;
  }
  return m;
}

IrModule *drv_load_source(const char *path, bool bind_weights, DiagCtx *d, SourceFile **src_out) {
  *src_out = NULL;
  if (drv_is_model_path(path)) return load_model(path, bind_weights, d, src_out);
  const char *err = NULL;
  SourceFile *src = src_from_path(path, &err);
  if (!src) {
    diag_error(d, span_none, "cannot open '%s': %s", path, err ? err : "unknown error");
    return NULL;
  }
  *src_out = src;
  IrModule *m = tvs_load_module(src, d);
  if (d->nerr) {
    ir_module_free(m);
    return NULL;
  }
  return m;
}
