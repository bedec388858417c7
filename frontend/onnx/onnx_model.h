/* onnx_model.h - reading an ONNX model file: the protobuf message (protoc-c's
 * reader of onnx.proto), tensors with their external data, and the graph's
 * checks (every input defined, no cycles) with a topological node order.
 *
 * Internal to frontend/onnx: the importer's public entry is onnx_import.h. */
#ifndef TVS_FRONTEND_ONNX_MODEL_H
#define TVS_FRONTEND_ONNX_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "runtime/ndarray.h"
#include "onnx.pb-c.h"

typedef struct OnnxModel {
  Onnx__ModelProto *proto; /* the unpacked message (protobuf-c owns its memory) */
  const char *path;        /* the file (for messages and external data), borrowed */
  char *dir;               /* its directory: external data locations are relative to it */
  int64_t opset;           /* the default ("" / "ai.onnx") domain's opset version */
  int *order;              /* graph nodes in a topological order (indices) */
  int norder;
} OnnxModel;

/* Unpacks data (len bytes, the contents of path) and checks the graph.  NULL
 * after reporting an error (truncated or corrupt bytes, no graph, a node
 * input nothing defines, a cycle, ...). */
OnnxModel *onnx_model_parse(const uint8_t *data, size_t len, const char *path, DiagCtx *d);
/* Reads path and parses it. */
OnnxModel *onnx_model_read(const char *path, DiagCtx *d);
void onnx_model_free(OnnxModel *m);

/* TVS's dtype for an ONNX element type; false for types TVS has no tensors of
 * (strings, complex, ...). */
bool onnx_dtype(int32_t elem_type, DLDataType *out);
const char *onnx_type_name(int32_t elem_type);

/* The tensor's value as a new array (raw_data, the typed repeated fields, or
 * external data beside the model file).  NULL after reporting an error. */
TvsNDArray *onnx_tensor_value(const OnnxModel *m, const Onnx__TensorProto *t, DiagCtx *d);

#endif
