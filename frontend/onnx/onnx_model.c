/* onnx_model.c - unpacking an ONNX file with protoc-c's generated reader,
 * tensor values (inline and external data) and the graph checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "frontend/onnx/onnx_model.h"

/* ONNX TensorProto.DataType values and their TVS dtypes. */
static const struct {
  int32_t onnx;
  const char *name;
  DLDataType dt;
} type_table[] = {
    {1, "float", {kDLFloat, 32, 1}},   {2, "uint8", {kDLUInt, 8, 1}},    {3, "int8", {kDLInt, 8, 1}},
    {4, "uint16", {kDLUInt, 16, 1}},   {5, "int16", {kDLInt, 16, 1}},    {6, "int32", {kDLInt, 32, 1}},
    {7, "int64", {kDLInt, 64, 1}},     {9, "bool", {kDLBool, 8, 1}},     {10, "float16", {kDLFloat, 16, 1}},
    {11, "double", {kDLFloat, 64, 1}}, {12, "uint32", {kDLUInt, 32, 1}}, {13, "uint64", {kDLUInt, 64, 1}},
    {16, "bfloat16", {kDLBfloat, 16, 1}},
};

bool onnx_dtype(int32_t elem_type, DLDataType *out) {
  for (size_t i = 0; i < sizeof type_table / sizeof type_table[0]; i++)
    if (type_table[i].onnx == elem_type) return *out = type_table[i].dt, true;
  return false;
}

const char *onnx_type_name(int32_t elem_type) {
  static const char *const others[] = {[0] = "undefined", [8] = "string", [14] = "complex64", [15] = "complex128"};
  for (size_t i = 0; i < sizeof type_table / sizeof type_table[0]; i++)
    if (type_table[i].onnx == elem_type) return type_table[i].name;
  if (elem_type >= 0 && elem_type < 16 && others[elem_type]) return others[elem_type];
  return "unknown";
}

/* ------------------------------------------------------------ tensors */

/* Reads external data: location (relative, inside the model's directory),
 * offset and length from the tensor's key/value list. */
static int read_external(const OnnxModel *m, const Onnx__TensorProto *t, const char *name, void *dst, size_t nbytes,
                         DiagCtx *d) {
  const char *loc = NULL;
  long long off = 0, len = -1;
  for (size_t i = 0; i < t->n_external_data; i++) {
    const char *k = t->external_data[i]->key, *v = t->external_data[i]->value;
    if (!k || !v) continue;
    if (!strcmp(k, "location")) loc = v;
    else if (!strcmp(k, "offset")) off = strtoll(v, NULL, 10);
    else if (!strcmp(k, "length")) len = strtoll(v, NULL, 10);
  }
  if (!loc || !*loc || loc[0] == '/' || strstr(loc, "..")) {
    diag_error(d, span_none, "%s: tensor '%s': external data location '%s' is not a file beside the model", m->path,
               name, loc ? loc : "");
    return -1;
  }
  if (off < 0 || (len >= 0 && (size_t)len != nbytes)) {
    diag_error(d, span_none, "%s: tensor '%s': external data offset %lld / length %lld do not fit its %zu bytes",
               m->path, name, off, len, nbytes);
    return -1;
  }
  char *full = xasprintf("%s%s", m->dir, loc);
  FILE *f = fopen(full, "rb");
  int rc = -1;
  if (!f) diag_error(d, span_none, "%s: tensor '%s': cannot open external data '%s': %s", m->path, name, full,
                     strerror(errno));
  else if (fseek(f, (long)off, SEEK_SET) != 0 || fread(dst, 1, nbytes, f) != nbytes)
    diag_error(d, span_none, "%s: tensor '%s': external data '%s' is shorter than offset %lld + %zu bytes", m->path,
               name, full, off, nbytes);
  else rc = 0;
  if (f) fclose(f);
  free(full);
  return rc;
}

/* Copies a typed repeated field (float_data, int32_data, ...) element-wise. */
static int copy_typed(const Onnx__TensorProto *t, TvsNDArray *a, int64_t n) {
  DLDataType dt = a->t.dtype;
  void *p = a->t.data;
  size_t have = dt.code == kDLFloat && dt.bits == 32   ? t->n_float_data
                : dt.code == kDLFloat && dt.bits == 64 ? t->n_double_data
                : dt.code == kDLInt && dt.bits == 64   ? t->n_int64_data
                : dt.code == kDLUInt && dt.bits >= 32  ? t->n_uint64_data
                                                        : t->n_int32_data;
  if ((int64_t)have != n) return -1;
  for (int64_t i = 0; i < n; i++) {
    if (dt.code == kDLFloat && dt.bits == 32) ((float *)p)[i] = t->float_data[i];
    else if (dt.code == kDLFloat && dt.bits == 64) ((double *)p)[i] = t->double_data[i];
    else if (dt.code == kDLInt && dt.bits == 64) ((int64_t *)p)[i] = t->int64_data[i];
    else if (dt.code == kDLUInt && dt.bits == 64) ((uint64_t *)p)[i] = t->uint64_data[i];
    else if (dt.code == kDLUInt && dt.bits == 32) ((uint32_t *)p)[i] = (uint32_t)t->uint64_data[i];
    else if (dt.bits == 32) ((int32_t *)p)[i] = t->int32_data[i];
    else if (dt.bits == 16) ((uint16_t *)p)[i] = (uint16_t)t->int32_data[i]; /* fp16/bf16 bits, int16 */
    else ((uint8_t *)p)[i] = (uint8_t)t->int32_data[i];                      /* int8, uint8, bool */
  }
  return 0;
}

TvsNDArray *onnx_tensor_value(const OnnxModel *m, const Onnx__TensorProto *t, DiagCtx *d) {
  DLDataType dt;
  const char *name = t->name && *t->name ? t->name : "(unnamed)";
  if (!onnx_dtype(t->data_type, &dt)) {
    diag_error(d, span_none, "%s: tensor '%s' has element type %s, which TVS has no tensors of", m->path, name,
               onnx_type_name(t->data_type));
    return NULL;
  }
  if (t->n_dims > TVS_MAX_NDIM) {
    diag_error(d, span_none, "%s: tensor '%s' has %zu dimensions (at most %d)", m->path, name, t->n_dims, TVS_MAX_NDIM);
    return NULL;
  }
  TvsNDArray *a = tvs_ndarray_empty((int)t->n_dims, t->dims, dt);
  if (!a) {
    diag_error(d, span_none, "%s: tensor '%s' has an invalid shape", m->path, name);
    return NULL;
  }
  size_t nbytes = tvs_ndarray_nbytes(&a->t);
  int rc = 0;
  if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    rc = read_external(m, t, name, a->t.data, nbytes, d);
  else if (t->has_raw_data) {
    if (t->raw_data.len != nbytes) {
      diag_error(d, span_none, "%s: tensor '%s' holds %zu bytes of raw data, its shape needs %zu", m->path, name,
                 t->raw_data.len, nbytes);
      rc = -1;
    } else if (nbytes) {
      memcpy(a->t.data, t->raw_data.data, nbytes);
    }
  } else if (copy_typed(t, a, tvs_ndarray_numel(&a->t))) {
    diag_error(d, span_none, "%s: tensor '%s': its data does not match its shape", m->path, name);
    rc = -1;
  }
  if (rc) tvs_ndarray_free(a), a = NULL;
  return a;
}

/* ------------------------------------------------------------ graph order */

/* Index of name among the defined values, or -1 (linear: graphs are small
 * enough, and the sort below visits each edge once). */
typedef struct Defs {
  const char **names; /* value names */
  int *node;          /* defining node, -1 for graph inputs and initializers */
  int n, cap;
} Defs;

static int def_find(const Defs *s, const char *name) {
  for (int i = s->n - 1; i >= 0; i--)
    if (!strcmp(s->names[i], name)) return i;
  return -1;
}

static void def_add(Defs *s, const char *name, int node) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->names = xrealloc(s->names, (size_t)s->cap * sizeof *s->names);
    s->node = xrealloc(s->node, (size_t)s->cap * sizeof *s->node);
  }
  s->names[s->n] = name;
  s->node[s->n++] = node;
}

/* Depth-first topological sort (iterative, so deep graphs do not overflow the
 * stack); state 1 = on the stack (a cycle if met again), 2 = done. */
static int visit(OnnxModel *m, const Defs *defs, char *state, int start, DiagCtx *d) {
  const Onnx__GraphProto *g = m->proto->graph;
  int *stack = xmalloc(sizeof(int) * 2 * (g->n_node + 1)), sp = 0, rc = 0;
  stack[sp++] = start, stack[sp++] = 0;
  state[start] = 1;
  while (sp && !rc) {
    int ni = stack[sp - 2], ii = stack[sp - 1];
    const Onnx__NodeProto *n = g->node[ni];
    if ((size_t)ii == n->n_input) {
      state[ni] = 2;
      m->order[m->norder++] = ni;
      sp -= 2;
      continue;
    }
    stack[sp - 1]++;
    const char *in = n->input[ii];
    if (!in || !*in) continue; /* an omitted optional input */
    int k = def_find(defs, in);
    if (k < 0) {
      diag_error(d, span_none, "%s: node '%s' (%s): input '%s' is not defined by any node, graph input or initializer",
                 m->path, n->name ? n->name : "", n->op_type, in);
      rc = -1;
    } else if (defs->node[k] >= 0 && state[defs->node[k]] == 1) {
      diag_error(d, span_none, "%s: the graph has a cycle through node '%s' (%s)", m->path, n->name ? n->name : "",
                 n->op_type);
      rc = -1;
    } else if (defs->node[k] >= 0 && !state[defs->node[k]]) {
      state[defs->node[k]] = 1;
      stack[sp++] = defs->node[k], stack[sp++] = 0;
    }
  }
  free(stack);
  return rc;
}

static int sort_graph(OnnxModel *m, DiagCtx *d) {
  const Onnx__GraphProto *g = m->proto->graph;
  Defs defs = {0};
  for (size_t i = 0; i < g->n_input; i++) def_add(&defs, g->input[i]->name, -1);
  for (size_t i = 0; i < g->n_initializer; i++) def_add(&defs, g->initializer[i]->name, -1);
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t j = 0; j < g->node[i]->n_output; j++)
      if (g->node[i]->output[j][0]) def_add(&defs, g->node[i]->output[j], (int)i);
  m->order = xmalloc(sizeof(int) * (g->n_node + 1));
  char *state = xcalloc(g->n_node + 1, 1);
  int rc = 0;
  for (size_t i = 0; i < g->n_node && !rc; i++)
    if (!state[i]) rc = visit(m, &defs, state, (int)i, d);
  for (size_t i = 0; i < g->n_output && !rc; i++)
    if (def_find(&defs, g->output[i]->name) < 0) {
      diag_error(d, span_none, "%s: graph output '%s' is not defined by any node or input", m->path,
                 g->output[i]->name);
      rc = -1;
    }
  free(state);
  free(defs.names);
  free(defs.node);
  return rc;
}

/* protobuf-c leaves an absent optional string NULL: the names the importer
 * relies on must be there (node names and domains may be absent). */
static int check_names(const OnnxModel *m, DiagCtx *d) {
  const Onnx__GraphProto *g = m->proto->graph;
  if (!g->n_output) {
    diag_error(d, span_none, "%s: the graph has no outputs", m->path);
    return -1;
  }
  for (size_t i = 0; i < g->n_node; i++) {
    const Onnx__NodeProto *n = g->node[i];
    if (!n->op_type) {
      diag_error(d, span_none, "%s: node %zu has no op_type", m->path, i);
      return -1;
    }
    for (size_t k = 0; k < n->n_attribute; k++)
      if (!n->attribute[k]->name) {
        diag_error(d, span_none, "%s: node %zu (%s) has an attribute without a name", m->path, i, n->op_type);
        return -1;
      }
  }
  for (size_t i = 0; i < g->n_input + g->n_output; i++) {
    const Onnx__ValueInfoProto *v = i < g->n_input ? g->input[i] : g->output[i - g->n_input];
    if (!v->name) {
      diag_error(d, span_none, "%s: a graph %s has no name", m->path, i < g->n_input ? "input" : "output");
      return -1;
    }
  }
  for (size_t i = 0; i < g->n_initializer; i++)
    if (!g->initializer[i]->name) {
      diag_error(d, span_none, "%s: initializer %zu has no name", m->path, i);
      return -1;
    }
  return 0;
}

/* ------------------------------------------------------------ reading */

OnnxModel *onnx_model_parse(const uint8_t *data, size_t len, const char *path, DiagCtx *d) {
  Onnx__ModelProto *p = onnx__model_proto__unpack(NULL, len, data);
  if (!p) {
    diag_error(d, span_none, "%s: not a valid ONNX model (the protobuf message is truncated or corrupt)", path);
    return NULL;
  }
  OnnxModel *m = xcalloc(1, sizeof *m);
  m->proto = p;
  m->path = path;
  const char *slash = strrchr(path, '/');
  m->dir = slash ? xstrndup(path, (size_t)(slash - path + 1)) : xstrdup("");
  m->opset = -1;
  for (size_t i = 0; i < p->n_opset_import; i++) {
    const char *dom = p->opset_import[i]->domain;
    if (!dom || !*dom || !strcmp(dom, "ai.onnx")) m->opset = p->opset_import[i]->version;
  }
  if (!p->graph) {
    diag_error(d, span_none, "%s: the model has no graph", path);
  } else if (m->opset < 0) {
    diag_error(d, span_none, "%s: a model without an opset of the default ONNX domain is not supported", path);
  } else if (check_names(m, d) == 0 && sort_graph(m, d) == 0) {
    return m;
  }
  onnx_model_free(m);
  return NULL;
}

OnnxModel *onnx_model_read(const char *path, DiagCtx *d) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    diag_error(d, span_none, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  struct stat st; /* a device never ends (/dev/zero): refuse it before reading */
  if (fstat(fileno(f), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode))) {
    diag_error(d, span_none, "cannot read '%s': %s", path,
               S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file (a device)");
    fclose(f);
    return NULL;
  }
  size_t cap = 1 << 16, len = 0, got;
  uint8_t *buf = xmalloc(cap);
  while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) buf = xrealloc(buf, cap *= 2);
  }
  int err = ferror(f);
  fclose(f);
  OnnxModel *m = NULL;
  if (err) diag_error(d, span_none, "cannot read '%s'", path);
  else m = onnx_model_parse(buf, len, path, d);
  free(buf);
  return m;
}

void onnx_model_free(OnnxModel *m) {
  if (!m) return;
  onnx__model_proto__free_unpacked(m->proto, NULL);
  free(m->dir);
  free(m->order);
  free(m);
}
