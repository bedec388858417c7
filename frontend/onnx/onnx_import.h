/* onnx_import.h - the ONNX importer: an .onnx model file becomes a graph
 * function `main` in the R. dialect (readable .tvs text: one binding per ONNX
 * node, named after it, the node's name in a comment) plus its weights.
 *
 * The model's inputs are main's first parameters; its weights (initializers and
 * large Constant values the graph uses at run time) follow, named after them,
 * and are returned as arrays (for an .npz beside the .tvs, or to bind as
 * constants).  Shape computations on static shapes are folded at import; a
 * named (dim_param) dimension becomes a symbolic size.  An op, opset or
 * attribute the importer does not support is an error naming the node, the op
 * type, the opset and the attribute. */
#ifndef TVS_FRONTEND_ONNX_IMPORT_H
#define TVS_FRONTEND_ONNX_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "runtime/ndarray.h"

typedef struct OnnxImport {
  char *text;            /* the module as .tvs source text */
  int nweights;          /* weights: main's parameters after the model inputs */
  char **weight_names;   /* parameter names, in parameter order */
  TvsNDArray **weights;  /* their values (owned) */
  int64_t opset;         /* the model's default-domain opset */
  int nnodes;            /* ONNX nodes converted */
} OnnxImport;

/* Imports the model at path.  0, or -1 after reporting errors to d (then out
 * holds nothing to free). */
int onnx_import_file(const char *path, OnnxImport *out, DiagCtx *d);
/* Imports a model from memory; path names it in messages and locates
 * external data (fuzzing, tests). */
int onnx_import_bytes(const uint8_t *data, size_t len, const char *path, OnnxImport *out, DiagCtx *d);
void onnx_import_free(OnnxImport *r);

/* true when path names an ONNX model (ends in ".onnx"). */
int onnx_is_model_path(const char *path);

#endif
