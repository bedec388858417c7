/* arena.c - chunked bump allocator. */
#include "base/arena.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
  ArenaChunk *next; /* older chunk */
  size_t cap;       /* bytes in data */
  size_t used;      /* bytes used in data */
  _Alignas(16) unsigned char data[];
};

void arena_init(Arena *a) {
  a->head = NULL;
  a->used_total = 0;
}

void arena_free(Arena *a) {
  ArenaChunk *c = a->head;
  while (c) {
    ArenaChunk *next = c->next;
    free(c);
    c = next;
  }
  a->head = NULL;
  a->used_total = 0;
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (n == 0) n = 16;
  ArenaChunk *c = a->head;
  if (!c || c->used + n > c->cap) {
    size_t cap = c ? c->cap * 2 : 4096;
    if (cap > (1u << 20)) cap = 1u << 20;
    if (cap < n) cap = n;
    c = xmalloc(sizeof(ArenaChunk) + cap);
    c->cap = cap;
    c->used = 0;
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  a->used_total += n;
  memset(p, 0, n);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

void *arena_memdup(Arena *a, const void *p, size_t n) {
  void *q = arena_alloc(a, n);
  if (n) memcpy(q, p, n);
  return q;
}

void *arena_grow(Arena *a, void *items, size_t elem, size_t n, size_t *cap) {
  if (n < *cap) return items;
  size_t ncap = *cap ? *cap * 2 : 8;
  void *q = arena_alloc(a, ncap * elem);
  if (n) memcpy(q, items, n * elem);
  *cap = ncap;
  return q;
}
