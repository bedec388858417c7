/* onnx_internal.h - the importer's shared state: values, the text being built,
 * attribute readers and the converter table (one row per ONNX op, in the style
 * of TVM's relax/frontend/onnx: op type, opset range, attributes understood,
 * converter).  Internal to frontend/onnx. */
#ifndef TVS_FRONTEND_ONNX_INTERNAL_H
#define TVS_FRONTEND_ONNX_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/util.h"
#include "frontend/onnx/onnx_model.h"
#include "runtime/ndarray.h"

#define OX_MAX_NDIM 8

/* One ONNX value (a graph input, an initializer, a node output). */
typedef struct OxVal {
  char *name;               /* the ONNX name */
  char *ref;                /* how the .tvs text names it (a variable or R.const(...)); NULL until needed */
  DLDataType dt;            /* element type */
  int ndim;                 /* rank */
  int64_t dims[OX_MAX_NDIM]; /* sizes; -1 = symbolic, named by sym[i] */
  char *sym[OX_MAX_NDIM];   /* symbolic sizes' names (owned), NULL for static ones */
  TvsNDArray *cval;         /* the value when known at import time (owned), else NULL */
  bool is_tuple;            /* ref names a tuple (a node with several outputs) */
  bool bound;               /* ref is a variable bound in main's dataflow block */
} OxVal;

/* The importer's state for one model. */
typedef struct OxCtx {
  const OnnxModel *m;       /* the model */
  DiagCtx *d;               /* errors */
  int64_t opset;            /* default-domain opset */
  OxVal **vals;             /* every value defined so far */
  int nvals, capvals;
  StrBuf params;            /* main's parameter list text (inputs, then weights) */
  StrBuf body;              /* the dataflow block's bindings */
  char **wnames;            /* weights, in parameter order */
  TvsNDArray **warrs;       /* (borrowed from the values' cval) */
  int nw, capw, capwa;
  char **idents;            /* .tvs identifiers in use (unique names) */
  int nidents, capidents;
  const Onnx__NodeProto *node; /* the node being converted */
  char *bind;               /* its binding's base name */
  int ntmp;                 /* helper bindings made for it */
} OxCtx;

/* A converter: reads the node's inputs (in[i] NULL for an omitted optional
 * input) and defines its outputs with ox_emit / ox_define_const.  0, or -1
 * after reporting an error. */
typedef int (*OxConvertFn)(OxCtx *c, OxVal **in, int nin);

typedef struct OxOpRow {
  const char *op_type;      /* "Conv" */
  int min_opset, max_opset; /* the opset versions this converter implements */
  const char *attrs;        /* attributes understood, comma-separated ("" = none) */
  OxConvertFn convert;
} OxOpRow;

/* The table (onnx_ops.c); rows with the same op_type cover disjoint opsets. */
extern const OxOpRow ox_ops[];
extern const int ox_nops;

/* --- values */
OxVal *ox_lookup(OxCtx *c, const char *name);
/* A new value for the node's output i (shape and dtype to be filled). */
OxVal *ox_new_output(OxCtx *c, int i);
/* The text naming v in an expression (making small constants R.const(...)
 * and large ones weights on first use). */
const char *ox_ref(OxCtx *c, OxVal *v);
/* Defines output i as the known array a (taken over). */
OxVal *ox_define_const(OxCtx *c, int i, TvsNDArray *a);
/* A known value of the node that is not one of its outputs (a mask, a pad
 * block): named after the node's first output + suffix; a takes over. */
OxVal *ox_known(OxCtx *c, const char *suffix, TvsNDArray *a);
/* Defines output i as another name for v (Identity, Dropout). */
void ox_alias(OxCtx *c, int i, const OxVal *v);

/* --- text */
/* Binds output i of the node to the expression (printf-style) with the given
 * type; the binding is named after the node and carries its name in a comment. */
OxVal *ox_emit(OxCtx *c, int i, DLDataType dt, int ndim, const int64_t *dims, char *const *sym, const char *fmt,
               ...) __attribute__((format(printf, 7, 8)));
/* The same, with v's shape and dtype (unary element-wise results). */
OxVal *ox_emit_like(OxCtx *c, int i, const OxVal *v, DLDataType dt, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A helper binding for the node (part of a longer expansion); returns its name. */
const char *ox_tmp(OxCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "(1, 3, -1)": a shape for R.reshape (one symbolic size becomes -1; -1 return
 * when there are more). */
int ox_shape_arg(OxCtx *c, StrBuf *sb, int ndim, const int64_t *dims, char *const *sym);
/* "[1, 2]" */
void ox_ints_text(StrBuf *sb, const int64_t *v, int n);
const char *ox_dtype_name(DLDataType dt);

/* --- attributes */
const Onnx__AttributeProto *ox_attr(OxCtx *c, const char *name);
int64_t ox_attr_int(OxCtx *c, const char *name, int64_t def);
double ox_attr_float(OxCtx *c, const char *name, double def);
/* The string attribute (a static copy of at most 63 bytes) or def. */
const char *ox_attr_str(OxCtx *c, const char *name, const char *def, char buf[64]);
/* A list of ints into out[0..cap); its length, or -1 when absent. */
int ox_attr_ints(OxCtx *c, const char *name, int64_t *out, int cap);
/* Reports "node 'N' (Op, opset K): ..." and returns -1. */
int ox_fail(OxCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports an unsupported attribute value and returns -1. */
int ox_unsupported_attr(OxCtx *c, const char *attr, const char *why);

/* --- shapes and known values (onnx_shape.c) */
/* An axis in [-rank, rank) made non-negative; -1 (with an error) when out of range. */
int ox_axis(OxCtx *c, int64_t axis, int rank);
/* numpy broadcasting of a and b's shapes into out; -1 (error) if incompatible. */
int ox_broadcast(OxCtx *c, const OxVal *a, const OxVal *b, OxVal *out);
/* An input that must be known at import time, as int64 values into out[0..cap):
 * the count, or -1 after an error naming what. */
int ox_const_ints(OxCtx *c, const OxVal *v, const char *what, int64_t *out, int cap);
/* A known scalar (first element) as double; false when v has no known value. */
bool ox_const_scalar(const OxVal *v, double *out);
/* Element-wise folding of a known small binary/unary op (int64 and float
 * arithmetic used by shape computations); NULL when not foldable. */
TvsNDArray *ox_fold_binary(const char *op, const TvsNDArray *a, const TvsNDArray *b);
/* A known value of this shape would be too large to build at import time (over
 * 2^26 elements or a negative size): reports it and returns true. */
bool ox_too_big(OxCtx *c, int ndim, const int64_t *dims);
/* Copies v's shape (and symbolic names) into out. */
void ox_copy_shape(OxVal *out, const OxVal *v);
/* Frees the symbolic names of a stack OxVal used as a shape holder. */
void ox_shape_free(OxVal *v);
void ox_set_shape(OxVal *out, int ndim, const int64_t *dims, char *const *sym);

#endif
