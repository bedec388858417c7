/* registry.c - the global table of named packed functions.
 *
 * A sorted array under a reader-writer lock: lookups (binary search) are
 * concurrent, registrations rare.  The table is reachable from a static, so
 * functions still registered at exit are not leaks. */
#include "runtime/tvs_runtime.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *name;        /* owned copy */
  TVSFunction *fn;   /* one reference held by the registry */
} RegEntry;

static pthread_rwlock_t reg_lock = PTHREAD_RWLOCK_INITIALIZER;
static RegEntry *reg_entries; /* sorted by name */
static int reg_count, reg_cap;

/* Index of name, or -(insertion point) - 1. Caller holds the lock. */
static int reg_find(const char *name) {
  int lo = 0, hi = reg_count - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    int c = strcmp(reg_entries[mid].name, name);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

int tvs_registry_register(const char *name, TVSFunction *f, int override) {
  if (!name || !*name || !f) {
    tvs_set_last_error("tvs_registry_register: %s", f ? "empty name" : "null function");
    return -1;
  }
  pthread_rwlock_wrlock(&reg_lock);
  int at = reg_find(name);
  if (at >= 0) {
    if (!override) {
      pthread_rwlock_unlock(&reg_lock);
      tvs_set_last_error("tvs_registry_register: function '%s' is already registered", name);
      return -1;
    }
    TVSFunction *old = reg_entries[at].fn;
    reg_entries[at].fn = tvs_func_retain(f);
    pthread_rwlock_unlock(&reg_lock);
    tvs_func_release(old); /* outside the lock: its resource may do anything */
    return 0;
  }
  at = -at - 1;
  if (reg_count == reg_cap) {
    int cap = reg_cap ? reg_cap * 2 : 16;
    RegEntry *e = realloc(reg_entries, (size_t)cap * sizeof *e);
    if (!e) goto oom;
    reg_entries = e;
    reg_cap = cap;
  }
  char *copy = strdup(name);
  if (!copy) goto oom;
  memmove(&reg_entries[at + 1], &reg_entries[at], (size_t)(reg_count - at) * sizeof *reg_entries);
  reg_entries[at].name = copy;
  reg_entries[at].fn = tvs_func_retain(f);
  reg_count++;
  pthread_rwlock_unlock(&reg_lock);
  return 0;
oom:
  pthread_rwlock_unlock(&reg_lock);
  tvs_set_last_error("tvs_registry_register: out of memory");
  return -1;
}

TVSFunction *tvs_registry_get(const char *name) {
  if (!name) name = "";
  pthread_rwlock_rdlock(&reg_lock);
  int at = reg_find(name);
  TVSFunction *f = at >= 0 ? tvs_func_retain(reg_entries[at].fn) : NULL;
  pthread_rwlock_unlock(&reg_lock);
  if (!f) tvs_set_last_error("tvs_registry_get: no function '%s' is registered", name);
  return f;
}

int tvs_registry_remove(const char *name) {
  if (!name) name = "";
  pthread_rwlock_wrlock(&reg_lock);
  int at = reg_find(name);
  if (at < 0) {
    pthread_rwlock_unlock(&reg_lock);
    tvs_set_last_error("tvs_registry_remove: no function '%s' is registered", name);
    return -1;
  }
  RegEntry e = reg_entries[at];
  memmove(&reg_entries[at], &reg_entries[at + 1],
          (size_t)(reg_count - at - 1) * sizeof *reg_entries);
  reg_count--;
  pthread_rwlock_unlock(&reg_lock);
  free(e.name);
  tvs_func_release(e.fn);
  return 0;
}

const char **tvs_registry_list(int *count) {
  pthread_rwlock_rdlock(&reg_lock);
  size_t bytes = (size_t)(reg_count + 1) * sizeof(char *);
  for (int i = 0; i < reg_count; i++) bytes += strlen(reg_entries[i].name) + 1;
  const char **out = malloc(bytes);
  if (out) {
    char *p = (char *)(out + reg_count + 1);
    for (int i = 0; i < reg_count; i++) {
      size_t n = strlen(reg_entries[i].name) + 1;
      memcpy(p, reg_entries[i].name, n);
      out[i] = p;
      p += n;
    }
    out[reg_count] = NULL;
    if (count) *count = reg_count;
  }
  pthread_rwlock_unlock(&reg_lock);
  if (!out) {
    tvs_set_last_error("tvs_registry_list: out of memory");
    if (count) *count = 0;
  }
  return out;
}
