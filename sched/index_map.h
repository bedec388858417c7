/* index_map.h - index maps of the schedule primitives (transform_layout,
 * transform_block_layout, reindex_cache_*...): a lambda written in a script,
 * `lambda i, j: (i // 16, j, i % 16)`, kept in traces as its source text
 * (SV_CODE), turned into fresh index vars and TIR expressions over them.
 *
 * The lambda body is a tuple or list of integer expressions (or a single
 * one) elaborated as TIR expressions are in a prim_func (+ - * // %, T.min,
 * T.max, T.floordiv, T.floormod, T.truncdiv..., constants); an element
 * `IndexMap.AXIS_SEPARATOR` (any dotted name ending so) records an axis
 * separator at that position instead of an output. */
#ifndef TVS_SCHED_INDEX_MAP_H
#define TVS_SCHED_INDEX_MAP_H

#include "ir/arith.h"
#include "sched/sched_internal.h"

typedef struct SchIndexMap {
  TirVar **src;  /* the lambda's parameters, fresh vars (in h) */
  int nsrc;
  TirExpr **dst; /* the results, expressions over src (in h) */
  int ndst;
  int *seps;     /* AXIS_SEPARATOR positions (indices into dst), in h; may be NULL */
  int nseps;
} SchIndexMap;

/* Script text parsed as one lambda expression (`lambda i, j: (j, i)`):
 * lambda is NULL when the text does not parse or is not a lambda (diag then
 * holds the parse errors, if any).  The AST points into src and file; free
 * all with sch_lambda_text_free. */
typedef struct SchLambdaText {
  SourceFile *src;
  AstFile *file;
  DiagCtx diag;
  const Ast *lambda;
} SchLambdaText;
void sch_lambda_text_parse(SchLambdaText *lt, const char *name, const char *text);
void sch_lambda_text_free(SchLambdaText *lt);

/* Parses "lambda i, j: (i // 16, j)" (SV_CODE text) into fresh int vars of
 * index_dtype and TIR expressions over them, allocated in h; returns 0, or
 * -1 after sch_fail(s, SCH_ERR_INVALID_ARGUMENT, argi, "<prim>: ...") on a bad lambda. */
int sch_index_map_parse(Schedule *s, IrHeap *h, const char *text, DType index_dtype,
                        const char *prim, int argi, SchIndexMap *out);

/* dst expressions with src vars replaced by the given index expressions
 * (m->nsrc of them); out receives m->ndst expressions (new nodes in h). */
void sch_index_map_apply(IrHeap *h, const SchIndexMap *m, TirExpr *const *indices, TirExpr **out);

/* The image of the box [0, extents[i]) (one extent per src var) under m:
 * out_shape[j] = max(dst[j]) + 1, simplified.  False (with *why set to a
 * static reason) when a result is unbounded or can be negative. */
bool sch_index_map_image(IrHeap *h, const SchIndexMap *m, TirExpr *const *extents,
                         TirExpr **out_shape, const char **why);

/* The inverse of m over the box [0, extents[i]) when m is a quasi-affine
 * bijection from it (or from the box padded up to the map's split factors)
 * onto its image: inv->src are fresh vars (one per dst of m, named
 * "<prefix>0"... ("v0"... when prefix is NULL)),
 * inv->dst the src vars of m as expressions over them.  *padding (may be
 * NULL) receives the condition on inv->src under which an image point has no
 * preimage (NULL when m is onto its image).  False with *why set otherwise. */
bool sch_index_map_inverse(IrHeap *h, const SchIndexMap *m, TirExpr *const *extents,
                           const char *prefix, SchIndexMap *inv, TirExpr **padding,
                           const char **why);

/* A pad_value lambda: like sch_index_map_parse, but with one result of type
 * value_dtype (untyped literals adopt it; a typed result of another type is
 * kept for the caller to report), in which buf (may be NULL) can be loaded
 * by its name. */
int sch_index_map_parse_value(Schedule *s, IrHeap *h, const char *text, DType index_dtype,
                              TirBuffer *buf, DType value_dtype, const char *prim, int argi,
                              SchIndexMap *out);

#endif
