/* cache_stage.h - the copy stages and regions of cache_read / cache_write
 * (cache_stage.c), shared by primitive_cache.c.  Not for use outside sched/. */
#ifndef TVS_SCHED_CACHE_STAGE_H
#define TVS_SCHED_CACHE_STAGE_H

#include "sched/sched_internal.h"

/* `dst[v...] = src[v...]` over the whole of src (loops ax_d, iters v_d). */
TirStmt *sch_cache_full_copy(IrHeap *h, const char *name, TirBuffer *src, TirBuffer *dst,
                             TirStmt **realize_out);
/* A copy of region reg between full-shaped src and dst: loops ax_d over the
 * extents, iters v_d over the shape bound to min_d + ax_d. */
TirStmt *sch_cache_region_copy(IrHeap *h, const char *name, const TirRange *reg, TirBuffer *src,
                               TirBuffer *dst, TirStmt **realize_out);
/* A copy between region reg of buf and the compact cache cbuf (shaped as the
 * extents): iters v_d over [0, extent_d) bound to ax_d, buf indexed by
 * min_d + v_d; into cbuf when to_cache, else back into buf. */
TirStmt *sch_cache_compact_copy(IrHeap *h, const char *name, bool to_cache, const TirRange *reg,
                                TirBuffer *buf, TirBuffer *cbuf, TirStmt **realize_out);
/* The whole of buf as a region. */
TirRange *sch_cache_full_region(IrHeap *h, const TirBuffer *buf);
/* The region of buf that realize r (the end of path p) writes, relaxed over
 * the loops in p after index q (a dimension that cannot be bounded: all of it). */
TirRange *sch_cache_relaxed_write(IrHeap *h, const SchPath *p, int q, const TirStmt *r,
                                  const TirBuffer *buf);
/* st with every access to buf inside the realizes targets made to cbuf;
 * with off (the region a compact cbuf holds) indices, regions and
 * match_buffer sources move by its mins, simplified as TVM does. */
TirStmt *sch_cache_redirect(IrHeap *h, TirStmt *st, const TirBuffer *buf, TirBuffer *cbuf,
                            const TirRange *off, const PtrVec *targets);

#endif
