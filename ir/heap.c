/* heap.c - reference-counted IR arenas. */
#include "ir/heap.h"
#include "base/util.h"

#include <stdlib.h>

struct IrHeap {
  Arena arena;    /* every node allocated for this version */
  int refcount;   /* owners: module versions and dependent heaps */
  IrHeap **deps;  /* heaps whose nodes this heap's nodes point to */
  int ndeps, capdeps;
};

IrHeap *ir_heap_new(void) {
  IrHeap *h = xcalloc(1, sizeof *h);
  arena_init(&h->arena);
  h->refcount = 1;
  return h;
}

void ir_heap_retain(IrHeap *h) {
  if (h) h->refcount++;
}

void ir_heap_release(IrHeap *h) {
  /* Iterative over the common single-dependency chain to avoid deep recursion
   * after long REPL sessions. */
  while (h && --h->refcount == 0) {
    IrHeap *next = NULL;
    for (int i = 0; i < h->ndeps; i++) {
      if (i == h->ndeps - 1) next = h->deps[i];
      else ir_heap_release(h->deps[i]);
    }
    arena_free(&h->arena);
    free(h->deps);
    free(h);
    h = next;
  }
}

void ir_heap_depend(IrHeap *h, IrHeap *on) {
  if (!h || !on || h == on) return;
  for (int i = 0; i < h->ndeps; i++)
    if (h->deps[i] == on) return;
  VEC_PUSH(h->deps, h->ndeps, h->capdeps, on);
  ir_heap_retain(on);
}

void *ir_alloc(IrHeap *h, size_t n) { return arena_alloc(&h->arena, n); }
char *ir_strdup(IrHeap *h, const char *s) { return s ? arena_strdup(&h->arena, s) : NULL; }
void *ir_memdup(IrHeap *h, const void *p, size_t n) { return arena_memdup(&h->arena, p, n); }
size_t ir_heap_bytes(const IrHeap *h) { return h->arena.used_total; }
