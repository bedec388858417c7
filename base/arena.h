/* arena.h - bump allocation for data that dies together.
 *
 * The AST of one parse, the scratch data of one pass, and every IR node of one
 * module version live in arenas and are freed in one call.  Allocations are
 * 16-byte aligned and zero-filled. */
#ifndef TVS_BASE_ARENA_H
#define TVS_BASE_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
  ArenaChunk *head;   /* current chunk (chunks form a list) */
  size_t used_total;  /* bytes handed out, for statistics */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Zeroed, 16-byte aligned memory that lives until arena_free. */
void *arena_alloc(Arena *a, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
/* Copy of n elements of size sz. */
void *arena_memdup(Arena *a, const void *p, size_t n);
/* The arena's growable array: items (n used of *cap, elem bytes each) when it
 * has room for one more, else a copy into a block of twice the capacity (the
 * old block is reclaimed with the arena).  Arena-held counterpart of VEC_PUSH. */
void *arena_grow(Arena *a, void *items, size_t elem, size_t n, size_t *cap);

#endif
