/* packed.c - packed function objects: a C callback, its resource and an
 * atomic reference count, plus the string-result buffer and the names of
 * type codes used in messages. */
#include "runtime/tvs_runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TVSFunction {
  atomic_int refcount;           /* the function is freed when it drops to 0 */
  TVSPackedCFunc fn;             /* the callback */
  void *resource;                /* passed as resource_handle */
  void (*free_resource)(void *); /* runs on resource at the end; may be NULL */
};

TVSFunction *tvs_func_from_c(TVSPackedCFunc f, void *resource, void (*free_resource)(void *)) {
  if (!f) {
    tvs_set_last_error("tvs_func_from_c: null function pointer");
    return NULL;
  }
  TVSFunction *fn = malloc(sizeof *fn);
  if (!fn) {
    tvs_set_last_error("tvs_func_from_c: out of memory");
    return NULL;
  }
  atomic_init(&fn->refcount, 1);
  fn->fn = f;
  fn->resource = resource;
  fn->free_resource = free_resource;
  return fn;
}

TVSFunction *tvs_func_retain(TVSFunction *f) {
  if (f) atomic_fetch_add_explicit(&f->refcount, 1, memory_order_relaxed);
  return f;
}

void tvs_func_release(TVSFunction *f) {
  if (!f) return;
  if (atomic_fetch_sub_explicit(&f->refcount, 1, memory_order_acq_rel) != 1) return;
  if (f->free_resource) f->free_resource(f->resource);
  free(f);
}

int tvs_func_call(TVSFunction *f, TVSValue *args, int *type_codes, int num_args, TVSValue *ret,
                  int *ret_type_code) {
  TVSValue dummy_ret;
  int dummy_code;
  if (!ret) ret = &dummy_ret;
  if (!ret_type_code) ret_type_code = &dummy_code;
  ret->v_handle = NULL;
  *ret_type_code = TVS_NULL;
  if (!f) {
    tvs_set_last_error("tvs_func_call: null function");
    return -1;
  }
  if (num_args < 0 || (num_args > 0 && (!args || !type_codes))) {
    tvs_set_last_error("tvs_func_call: bad argument arrays (%d arguments)", num_args);
    return -1;
  }
  int rc = f->fn(args, type_codes, num_args, ret, ret_type_code, f->resource);
  if (rc != 0) {
    if (!tvs_get_last_error()[0])
      tvs_set_last_error("tvs_func_call: function failed with code %d and no message", rc);
    return -1;
  }
  return 0;
}

/* The TVS_STR result buffer: one per thread, grown on demand and freed by a
 * thread-exit destructor (the main thread's stays reachable from TLS). */
static pthread_key_t ret_str_key;
static pthread_once_t ret_str_once = PTHREAD_ONCE_INIT;
static __thread char *tls_ret_str;
static __thread size_t tls_ret_cap;

static void ret_str_free(void *p) { free(p); }
static void ret_str_init(void) { pthread_key_create(&ret_str_key, ret_str_free); }

int tvs_ret_str(TVSValue *ret, int *ret_type_code, const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  if (n > tls_ret_cap) {
    pthread_once(&ret_str_once, ret_str_init);
    size_t cap = tls_ret_cap ? tls_ret_cap : 64;
    while (cap < n) cap *= 2;
    char *buf = malloc(cap);
    if (!buf) {
      tvs_set_last_error("tvs_ret_str: out of memory");
      return -1;
    }
    memcpy(buf, s, n); /* s may point into the old buffer: copy, then free */
    free(tls_ret_str);
    tls_ret_str = buf;
    tls_ret_cap = cap;
    pthread_setspecific(ret_str_key, buf);
  } else if (s != tls_ret_str) {
    memmove(tls_ret_str, s, n);
  }
  ret->v_str = tls_ret_str;
  *ret_type_code = TVS_STR;
  return 0;
}

const char *tvs_type_code_name(int type_code) {
  switch (type_code) {
    case TVS_INT: return "int";
    case TVS_FLOAT: return "float";
    case TVS_HANDLE: return "handle";
    case TVS_NULL: return "null";
    case TVS_DTYPE: return "dtype";
    case TVS_DEVICE: return "device";
    case TVS_TENSOR: return "DLTensor";
    case TVS_MODULE: return "module";
    case TVS_FUNC: return "function";
    case TVS_STR: return "str";
    default: return "unknown type code";
  }
}
