/* access_region.h - inferring a block's read/write regions (TVM's GetBlockAccessRegion).
 *
 * Used when a block has no T.reads/T.writes, and by schedule primitives that
 * rebuild blocks.  Order and shape match TVM v0.23 (reference/tir_surface.md
 * section 2): buffers in order of first access while walking the body (a store
 * is recorded before its value is visited), each region the hull of the
 * accessed indices relaxed over loops inside the block (block iter vars stay
 * symbolic: the region of A[vi, vk] is A[vi, vk] with extent 1), buffers
 * allocated inside the block left out, and for a block with init the written
 * buffer is not listed among the reads. */
#ifndef TVS_IR_ACCESS_REGION_H
#define TVS_IR_ACCESS_REGION_H

#include "ir/tir.h"

/* Computes reads and writes of blk (its init and body; nested blocks count by
 * their own declared regions, relaxed over the loops between).  Arrays are
 * allocated in h. */
void tir_infer_access_regions(IrHeap *h, const TirBlock *blk, TirBufferRegion **reads, int *nreads,
                              TirBufferRegion **writes, int *nwrites);

#endif
