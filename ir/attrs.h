/* attrs.h - attribute values: function attrs, loop and block annotations.
 *
 * The values TVMScript writes in `T.func_attr({...})`, `T.block_attr({...})`
 * and `annotations={...}`: numbers, booleans, strings, expressions, nested
 * lists and dicts.  Immutable and heap-allocated like IR nodes. */
#ifndef TVS_IR_ATTRS_H
#define TVS_IR_ATTRS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/heap.h"

struct TirExpr;
struct TirBuffer;

typedef enum IrValueKind {
  IRV_NONE,   /* None */
  IRV_BOOL,   /* True / False (printed T.bool(True) as TVM does for func attrs) */
  IRV_INT,    /* integer literal (an int32 IntImm in TVM) */
  IRV_FLOAT,  /* float literal */
  IRV_STR,    /* string */
  IRV_EXPR,   /* any other expression (typed literal, variable, ...) */
  IRV_ARRAY,  /* [a, b, ...] */
  IRV_DICT,   /* {"k": v, ...}; keys are strings, order preserved */
  IRV_BUFFER  /* a buffer (block_attr {"layout_free_placeholders": [C]}), printed by name */
} IrValueKind;

typedef struct IrValue IrValue;
struct IrValue {
  IrValueKind kind;     /* which fields below are used */
  int64_t i;            /* IRV_INT value, IRV_BOOL 0/1 */
  double f;             /* IRV_FLOAT */
  const char *s;        /* IRV_STR */
  struct TirExpr *expr; /* IRV_EXPR */
  struct TirBuffer *buf; /* IRV_BUFFER */
  IrValue **items;      /* IRV_ARRAY elements, IRV_DICT values */
  const char **keys;    /* IRV_DICT keys */
  int n;                /* number of items */
};

IrValue *irv_none(IrHeap *h);
IrValue *irv_bool(IrHeap *h, bool b);
IrValue *irv_int(IrHeap *h, int64_t i);
IrValue *irv_float(IrHeap *h, double f);
IrValue *irv_str(IrHeap *h, const char *s);
IrValue *irv_expr(IrHeap *h, struct TirExpr *e);
IrValue *irv_buffer(IrHeap *h, struct TirBuffer *b);
IrValue *irv_array(IrHeap *h, IrValue **items, int n);
IrValue *irv_dict(IrHeap *h, const char **keys, IrValue **vals, int n);
/* Dict lookup; NULL when d is NULL, not a dict, or lacks key. */
const IrValue *irv_dict_get(const IrValue *d, const char *key);
/* A dict equal to d with key set to v (added at the end or replaced in place);
 * d may be NULL (then a one-entry dict).  v == NULL removes the key. */
IrValue *irv_dict_set(IrHeap *h, const IrValue *d, const char *key, IrValue *v);

#endif
