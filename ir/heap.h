/* heap.h - reference-counted arenas that hold IR versions.
 *
 * IR nodes are immutable and never freed one by one.  Every node lives in an
 * IrHeap (an arena with a reference count).  A transform that derives a new
 * module version allocates its new nodes in a fresh heap and records that the
 * new heap depends on the old one, because unchanged subtrees are shared by
 * pointer.  Releasing a version releases its heap; a heap is freed when nothing
 * (no module version, no dependent heap) refers to it.  This makes undo/redo
 * and the tuner's thousands of candidates cost only the changed paths, and a
 * whole version is freed in one call. */
#ifndef TVS_IR_HEAP_H
#define TVS_IR_HEAP_H

#include <stddef.h>

#include "base/arena.h"

typedef struct IrHeap IrHeap;

IrHeap *ir_heap_new(void);
void ir_heap_retain(IrHeap *h);
/* Drops one reference; frees the heap (and releases its dependencies) at zero. */
void ir_heap_release(IrHeap *h);
/* Records that nodes in h point into `on` (no-op if h == on or already recorded). */
void ir_heap_depend(IrHeap *h, IrHeap *on);
/* Raw allocation (zeroed) in the heap's arena. */
void *ir_alloc(IrHeap *h, size_t n);
char *ir_strdup(IrHeap *h, const char *s);
void *ir_memdup(IrHeap *h, const void *p, size_t n);
/* Bytes allocated in this heap (not counting dependencies). */
size_t ir_heap_bytes(const IrHeap *h);

#endif
