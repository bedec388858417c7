/* test_packed.c - the runtime ABI: packed calls with every type code, error
 * propagation, the registry, modules (a fake backend, a symbol table standing
 * in for the JIT, a real .so when a C compiler is at hand), argument checks
 * with their exact messages, symbolic dims and workspaces. */
#include "runtime/tvs_runtime.h"
#include "runtime/host_memory.h"
#include "runtime/ndarray.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check.h"

/* ---- packed functions ------------------------------------------------------ */

/* Returns its first argument unchanged (functions and modules: a new reference). */
static int echo(TVSValue *args, int *codes, int n, TVSValue *ret, int *ret_code, void *res) {
  if (n < 1) {
    tvs_set_last_error("echo: expected 1 argument, got %d", n);
    return -1;
  }
  *ret = args[0];
  *ret_code = codes[0];
  if (codes[0] == TVS_FUNC) tvs_func_retain(args[0].v_handle);
  if (codes[0] == TVS_MODULE) tvs_module_retain(args[0].v_handle);
  if (codes[0] == TVS_STR) return tvs_ret_str(ret, ret_code, args[0].v_str);
  return 0;
}

/* Sums int and float arguments; anything else is an error. */
static int sum(TVSValue *args, int *codes, int n, TVSValue *ret, int *ret_code, void *res) {
  double acc = 0;
  int any_float = 0;
  for (int i = 0; i < n; i++) {
    if (codes[i] == TVS_INT) acc += (double)args[i].v_int64;
    else if (codes[i] == TVS_FLOAT) {
      acc += args[i].v_float64;
      any_float = 1;
    } else {
      tvs_set_last_error("sum: argument %d is %s", i, tvs_type_code_name(codes[i]));
      return -1;
    }
  }
  if (any_float) {
    ret->v_float64 = acc;
    *ret_code = TVS_FLOAT;
  } else {
    ret->v_int64 = (int64_t)acc;
    *ret_code = TVS_INT;
  }
  return 0;
}

static int fail_silently(TVSValue *a, int *c, int n, TVSValue *r, int *rc, void *res) { return -1; }

static int resource_freed;
static void count_free(void *p) { resource_freed += (int)(intptr_t)p; }

/* Returns (resource + args[0]) to check resource_handle is passed through. */
static int add_resource(TVSValue *args, int *codes, int n, TVSValue *ret, int *ret_code,
                        void *res) {
  ret->v_int64 = (int64_t)(intptr_t)res + args[0].v_int64;
  *ret_code = TVS_INT;
  return 0;
}

/* Calls the function given as argument 0 with the other arguments. */
static int apply(TVSValue *args, int *codes, int n, TVSValue *ret, int *ret_code, void *res) {
  if (codes[0] != TVS_FUNC) {
    tvs_set_last_error("apply: argument 0 must be a function");
    return -1;
  }
  if (tvs_func_call(args[0].v_handle, &args[1], &codes[1], n - 1, ret, ret_code)) {
    tvs_set_last_error("apply: %s", tvs_get_last_error());
    return -1;
  }
  return 0;
}

static void test_packed_calls(void) {
  TVSFunction *f = tvs_func_from_c(echo, NULL, NULL);
  CHECK(f != NULL);
  TVSValue a, r;
  int code, rcode;

  a.v_int64 = -42, code = TVS_INT;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK_EQ_INT(rcode, TVS_INT);
  CHECK_EQ_INT(r.v_int64, -42);

  a.v_float64 = 2.5, code = TVS_FLOAT;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK(rcode == TVS_FLOAT && r.v_float64 == 2.5);

  int obj;
  a.v_handle = &obj, code = TVS_HANDLE;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK(rcode == TVS_HANDLE && r.v_handle == &obj);

  a.v_handle = NULL, code = TVS_NULL;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK(rcode == TVS_NULL && r.v_handle == NULL);

  a.v_type = (DLDataType){kDLFloat, 16, 4}, code = TVS_DTYPE;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK(rcode == TVS_DTYPE && r.v_type.code == kDLFloat && r.v_type.bits == 16 &&
        r.v_type.lanes == 4);

  a.v_device = (DLDevice){kDLCUDA, 3}, code = TVS_DEVICE;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK(rcode == TVS_DEVICE && r.v_device.device_type == kDLCUDA && r.v_device.device_id == 3);

  DLTensor t = {0};
  a.v_handle = &t, code = TVS_TENSOR;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK(rcode == TVS_TENSOR && r.v_handle == &t);

  char buf[8] = "hello";
  a.v_str = buf, code = TVS_STR;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK_EQ_INT(rcode, TVS_STR);
  CHECK_EQ_STR(r.v_str, "hello");
  CHECK(r.v_str != buf); /* copied into the return buffer */
  /* A string longer than the current buffer, and one aliasing it. */
  char big[300];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  a.v_str = big;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK_EQ_INT(strlen(r.v_str), 299);
  a.v_str = r.v_str + 290;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK_EQ_STR(r.v_str, "xxxxxxxxx");

  /* A function as argument and result: the result is a new reference. */
  a.v_handle = f, code = TVS_FUNC;
  CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
  CHECK(rcode == TVS_FUNC && r.v_handle == f);
  tvs_func_release(r.v_handle);

  /* Higher order: apply(echo, 7). */
  TVSFunction *ap = tvs_func_from_c(apply, NULL, NULL);
  TVSValue args2[2];
  int codes2[2] = {TVS_FUNC, TVS_INT};
  args2[0].v_handle = f;
  args2[1].v_int64 = 7;
  CHECK_EQ_INT(tvs_func_call(ap, args2, codes2, 2, &r, &rcode), 0);
  CHECK(rcode == TVS_INT && r.v_int64 == 7);
  /* Error through two levels. */
  CHECK_EQ_INT(tvs_func_call(ap, args2, codes2, 1, &r, &rcode), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "apply: echo: expected 1 argument, got 0");
  tvs_func_release(ap);

  /* Mixed sum, no result code preset by the callee for nothing. */
  TVSFunction *s = tvs_func_from_c(sum, NULL, NULL);
  TVSValue sv[3] = {{.v_int64 = 1}, {.v_int64 = 2}, {.v_float64 = 0.5}};
  int sc[3] = {TVS_INT, TVS_INT, TVS_FLOAT};
  CHECK_EQ_INT(tvs_func_call(s, sv, sc, 2, &r, &rcode), 0);
  CHECK(rcode == TVS_INT && r.v_int64 == 3);
  CHECK_EQ_INT(tvs_func_call(s, sv, sc, 3, &r, &rcode), 0);
  CHECK(rcode == TVS_FLOAT && r.v_float64 == 3.5);
  CHECK_EQ_INT(tvs_func_call(s, NULL, NULL, 0, &r, &rcode), 0);
  CHECK(rcode == TVS_INT && r.v_int64 == 0);
  sc[1] = TVS_STR;
  sv[1].v_str = "x";
  CHECK_EQ_INT(tvs_func_call(s, sv, sc, 3, &r, &rcode), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "sum: argument 1 is str");
  CHECK_EQ_INT(rcode, TVS_NULL);
  tvs_func_release(s);
  tvs_func_release(f);

  /* Failing without a message still gives one. */
  TVSFunction *q = tvs_func_from_c(fail_silently, NULL, NULL);
  tvs_clear_last_error();
  CHECK_EQ_INT(tvs_func_call(q, NULL, NULL, 0, NULL, NULL), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "tvs_func_call: function failed with code -1 and no message");
  tvs_func_release(q);
  CHECK_EQ_INT(tvs_func_call(NULL, NULL, NULL, 0, NULL, NULL), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "tvs_func_call: null function");
  CHECK(tvs_func_from_c(NULL, NULL, NULL) == NULL);

  /* Resources: passed to the callee, freed once with the last reference. */
  resource_freed = 0;
  TVSFunction *ar = tvs_func_from_c(add_resource, (void *)(intptr_t)100, count_free);
  a.v_int64 = 5, code = TVS_INT;
  CHECK_EQ_INT(tvs_func_call(ar, &a, &code, 1, &r, &rcode), 0);
  CHECK_EQ_INT(r.v_int64, 105);
  tvs_func_retain(ar);
  tvs_func_release(ar);
  CHECK_EQ_INT(resource_freed, 0);
  tvs_func_release(ar);
  CHECK_EQ_INT(resource_freed, 100);
  tvs_func_release(NULL);

  CHECK_EQ_STR(tvs_type_code_name(TVS_TENSOR), "DLTensor");
  CHECK_EQ_STR(tvs_type_code_name(TVS_MODULE), "module");
  CHECK_EQ_STR(tvs_type_code_name(TVS_FUNC), "function");
  CHECK_EQ_STR(tvs_type_code_name(99), "unknown type code");
}

static void test_errors(void) {
  tvs_clear_last_error();
  CHECK_EQ_STR(tvs_get_last_error(), "");
  tvs_set_last_error("a %d %s", 1, "b");
  CHECK_EQ_STR(tvs_get_last_error(), "a 1 b");
  tvs_set_last_error("ctx: %s", tvs_get_last_error()); /* self-reference */
  CHECK_EQ_STR(tvs_get_last_error(), "ctx: a 1 b");
  tvs_set_last_error_str("100% plain");
  CHECK_EQ_STR(tvs_get_last_error(), "100% plain");
  char longmsg[3000];
  memset(longmsg, 'e', sizeof longmsg - 1);
  longmsg[sizeof longmsg - 1] = '\0';
  tvs_set_last_error_str(longmsg);
  CHECK_EQ_INT(strlen(tvs_get_last_error()), 1023);
}

/* Errors are per thread. */
static void *error_thread(void *arg) {
  tvs_set_last_error("thread error");
  return (void *)(intptr_t)(strcmp(tvs_get_last_error(), "thread error") == 0);
}

static void test_error_thread_local(void) {
  tvs_set_last_error("main error");
  pthread_t th;
  void *ok;
  pthread_create(&th, NULL, error_thread, NULL);
  pthread_join(th, &ok);
  CHECK(ok != NULL);
  CHECK_EQ_STR(tvs_get_last_error(), "main error");
}

/* ---- registry ---------------------------------------------------------------- */

static void *registry_hammer(void *arg) {
  int id = (int)(intptr_t)arg, bad = 0;
  char name[32];
  for (int i = 0; i < 200; i++) {
    snprintf(name, sizeof name, "t%d.f%d", id, i);
    TVSFunction *f = tvs_func_from_c(sum, NULL, NULL);
    if (tvs_registry_register(name, f, 0)) bad++;
    tvs_func_release(f);
    TVSFunction *g = tvs_registry_get("shared.echo");
    if (!g) bad++;
    tvs_func_release(g);
    if (i % 2 && tvs_registry_remove(name)) bad++;
  }
  return (void *)(intptr_t)bad;
}

static void test_registry(void) {
  TVSFunction *e = tvs_func_from_c(echo, NULL, NULL);
  TVSFunction *s = tvs_func_from_c(sum, NULL, NULL);
  CHECK_EQ_INT(tvs_registry_register("test.echo", e, 0), 0);
  CHECK_EQ_INT(tvs_registry_register("test.sum", s, 0), 0);
  CHECK_EQ_INT(tvs_registry_register("test.echo", s, 0), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "tvs_registry_register: function 'test.echo' is already registered");
  CHECK_EQ_INT(tvs_registry_register("", s, 0), -1);

  TVSFunction *g = tvs_registry_get("test.echo");
  CHECK(g == e);
  TVSValue a = {.v_int64 = 9}, r;
  int code = TVS_INT, rcode;
  CHECK_EQ_INT(tvs_func_call(g, &a, &code, 1, &r, &rcode), 0);
  CHECK_EQ_INT(r.v_int64, 9);
  tvs_func_release(g);

  CHECK_EQ_INT(tvs_registry_register("test.echo", s, 1), 0); /* override */
  g = tvs_registry_get("test.echo");
  CHECK(g == s);
  tvs_func_release(g);

  CHECK(tvs_registry_get("test.nothing") == NULL);
  CHECK_EQ_STR(tvs_get_last_error(), "tvs_registry_get: no function 'test.nothing' is registered");

  int n = -1;
  const char **names = tvs_registry_list(&n);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_STR(names[0], "test.echo");
  CHECK_EQ_STR(names[1], "test.sum");
  CHECK(names[2] == NULL);
  free(names);

  CHECK_EQ_INT(tvs_registry_remove("test.sum"), 0);
  CHECK_EQ_INT(tvs_registry_remove("test.sum"), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "tvs_registry_remove: no function 'test.sum' is registered");

  /* Concurrent registration, lookup and removal. */
  CHECK_EQ_INT(tvs_registry_register("shared.echo", e, 0), 0);
  pthread_t th[4];
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, registry_hammer, (void *)(intptr_t)i);
  int bad = 0;
  for (int i = 0; i < 4; i++) {
    void *b;
    pthread_join(th[i], &b);
    bad += (int)(intptr_t)b;
  }
  CHECK_EQ_INT(bad, 0);
  names = tvs_registry_list(&n);
  CHECK_EQ_INT(n, 2 + 4 * 100);
  int sorted = 1;
  for (int i = 1; i < n; i++) sorted &= strcmp(names[i - 1], names[i]) < 0;
  CHECK(sorted);
  for (int i = 0; i < n; i++) {
    char *copy = strdup(names[i]); /* removal must not depend on the list block */
    tvs_registry_remove(copy);
    free(copy);
  }
  free(names);
  names = tvs_registry_list(&n);
  CHECK_EQ_INT(n, 0);
  CHECK(names && names[0] == NULL);
  free(names);
  tvs_func_release(e);
  tvs_func_release(s);
}

/* ---- modules ------------------------------------------------------------------ */

typedef struct {
  int destroyed;     /* set by the destructor */
} FakeState;

static int fake_destroyed;

static TVSFunction *fake_get(void *self, TVSModule *mod, const char *name) {
  if (!strcmp(name, "echo")) return tvs_func_from_c(echo, NULL, NULL);
  if (!strcmp(name, "sum"))
    return tvs_func_from_c(sum, tvs_module_retain(mod), (void (*)(void *))tvs_module_free);
  return NULL;
}

static int fake_list(void *self, const char **names, int cap) {
  static const char *all[] = {"echo", "sum"};
  for (int i = 0; i < 2 && i < cap; i++) names[i] = all[i];
  return 2;
}

static void fake_destroy(void *self) {
  fake_destroyed++;
  free(self);
}

static const TVSModuleBackend fake_backend = {
    .kind = "fake",
    .get_function = fake_get,
    .list_functions = fake_list,
    .metadata = NULL,
    .destroy = fake_destroy,
};

static void test_fake_module(void) {
  fake_destroyed = 0;
  TVSModule *m = tvs_module_create(&fake_backend, malloc(sizeof(FakeState)));
  CHECK(m != NULL);
  CHECK_EQ_STR(tvs_module_kind(m), "fake");
  int n;
  const char **names = tvs_module_list_functions(m, &n);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_STR(names[0], "echo");
  CHECK_EQ_STR(names[1], "sum");
  CHECK(names[2] == NULL);
  free(names);
  CHECK(tvs_module_metadata(m) == NULL);
  CHECK(tvs_module_func_info(m, "echo") == NULL);

  CHECK(tvs_module_get_function(m, "nope") == NULL);
  CHECK_EQ_STR(tvs_get_last_error(), "module (fake): no function 'nope'");

  TVSFunction *f = tvs_module_get_function(m, "sum");
  CHECK(f != NULL);
  /* A module passed through a packed call. */
  TVSFunction *e = tvs_module_get_function(m, "echo");
  TVSValue a = {.v_handle = m}, r;
  int code = TVS_MODULE, rcode;
  CHECK_EQ_INT(tvs_func_call(e, &a, &code, 1, &r, &rcode), 0);
  CHECK(rcode == TVS_MODULE && r.v_handle == m);
  tvs_module_free(r.v_handle);
  tvs_func_release(e);

  tvs_module_free(m); /* the function still holds the module */
  CHECK_EQ_INT(fake_destroyed, 0);
  TVSValue sv[2] = {{.v_int64 = 20}, {.v_int64 = 22}};
  int sc[2] = {TVS_INT, TVS_INT};
  CHECK_EQ_INT(tvs_func_call(f, sv, sc, 2, &r, &rcode), 0);
  CHECK_EQ_INT(r.v_int64, 42);
  tvs_func_release(f);
  CHECK_EQ_INT(fake_destroyed, 1);
}

/* A JIT stand-in: a table of symbols. */
static int jit_add(TVSValue *args, int *codes, int n, TVSValue *ret, int *ret_code, void *res) {
  if (tvs_check_num_args("add", n, 2) || tvs_check_scalar_arg("add", "a", 0, codes[0], TVS_INT) ||
      tvs_check_scalar_arg("add", "b", 1, codes[1], TVS_INT))
    return -1;
  ret->v_int64 = args[0].v_int64 + args[1].v_int64;
  *ret_code = TVS_INT;
  /* The resource is the module itself. */
  return res ? 0 : -1;
}

static const int64_t mm_a_shape[] = {-1, 128};
static const int64_t mm_b_shape[] = {128, -1};
static const int64_t mm_c_shape[] = {-1, -1};
static const char *const mm_a_syms[] = {"n", NULL};
static const char *const mm_b_syms[] = {NULL, "m"};
static const char *const mm_c_syms[] = {"n", "m"};
static const TVSParamInfo mm_params[] = {
    {"A", TVS_TENSOR, {kDLFloat, 32, 1}, 2, mm_a_shape, mm_a_syms},
    {"B", TVS_TENSOR, {kDLFloat, 32, 1}, 2, mm_b_shape, mm_b_syms},
    {"C", TVS_TENSOR, {kDLFloat, 32, 1}, 2, mm_c_shape, mm_c_syms},
};
static const TVSParamInfo add_params[] = {
    {"a", TVS_INT, {kDLInt, 64, 1}, 0, NULL, NULL},
    {"b", TVS_INT, {kDLInt, 64, 1}, 0, NULL, NULL},
};
static const TVSFuncInfo jit_funcs[] = {
    {"add", 2, add_params, 0, -1},
    {"mm", 3, mm_params, 1, -1},
};
static TVSModuleMetadata jit_meta = {TVS_METADATA_MAGIC, TVS_METADATA_VERSION, 2, jit_funcs};
static void *jit_module_ctx;
static int jit_destroyed;

static void *jit_lookup(void *ctx, const char *sym) {
  if (!strcmp(sym, "__tvs_packed_add")) {
    void *p;
    TVSPackedCFunc fn = jit_add;
    memcpy(&p, &fn, sizeof p);
    return p;
  }
  if (!strcmp(sym, "__tvs_metadata")) return ctx;
  if (!strcmp(sym, "__tvs_module_ctx")) return &jit_module_ctx;
  return NULL;
}

static void jit_destroy(void *ctx) { jit_destroyed++; }

static void test_symbol_module(void) {
  jit_destroyed = 0;
  TVSModule *m = tvs_module_from_symbols("jit", jit_lookup, &jit_meta, jit_destroy);
  CHECK(m != NULL);
  CHECK(jit_module_ctx == m);
  CHECK_EQ_STR(tvs_module_kind(m), "jit");
  int n;
  const char **names = tvs_module_list_functions(m, &n);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_STR(names[0], "add");
  CHECK_EQ_STR(names[1], "mm");
  free(names);
  const TVSFuncInfo *fi = tvs_module_func_info(m, "mm");
  CHECK(fi && fi->num_params == 3 && fi->num_outputs == 1);
  CHECK_EQ_STR(fi->params[1].name, "B");

  TVSFunction *add = tvs_module_get_function(m, "add");
  CHECK(add != NULL);
  TVSValue av[2] = {{.v_int64 = 40}, {.v_int64 = 2}}, r;
  int ac[2] = {TVS_INT, TVS_INT}, rcode;
  CHECK_EQ_INT(tvs_func_call(add, av, ac, 2, &r, &rcode), 0);
  CHECK_EQ_INT(r.v_int64, 42);
  ac[1] = TVS_FLOAT;
  CHECK_EQ_INT(tvs_func_call(add, av, ac, 2, &r, &rcode), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "add: argument 1 ('b') must be an int, got float");
  CHECK_EQ_INT(tvs_func_call(add, av, ac, 1, &r, &rcode), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "add: expected 2 arguments, got 1");
  CHECK(tvs_module_get_function(m, "mm") == NULL); /* listed, but no entry point */
  CHECK_EQ_STR(tvs_get_last_error(), "module (jit): no function 'mm'");

  /* Compiled code looking functions up: module first, then the registry. */
  TVSFunction *got = NULL;
  CHECK_EQ_INT(tvs_backend_get_func_from_env(jit_module_ctx, "add", &got), 0);
  CHECK(got != NULL);
  tvs_func_release(got);
  TVSFunction *e = tvs_func_from_c(echo, NULL, NULL);
  tvs_registry_register("env.echo", e, 0);
  CHECK_EQ_INT(tvs_backend_get_func_from_env(jit_module_ctx, "env.echo", &got), 0);
  CHECK(got == e);
  tvs_func_release(got);
  CHECK_EQ_INT(tvs_backend_get_func_from_env(NULL, "env.none", &got), -1);
  CHECK(got == NULL);
  CHECK_EQ_STR(tvs_get_last_error(),
               "tvs_backend_get_func_from_env: no function 'env.none' in the module or the "
               "registry");
  tvs_registry_remove("env.echo");
  tvs_func_release(e);

  tvs_module_free(m);
  CHECK_EQ_INT(jit_destroyed, 0); /* add still holds it */
  CHECK(jit_module_ctx == m);
  tvs_func_release(add);
  CHECK_EQ_INT(jit_destroyed, 1);
  CHECK(jit_module_ctx == NULL); /* never left dangling */

  /* Bad metadata is refused and the context destroyed. */
  TVSModuleMetadata bad = jit_meta;
  bad.version = 7;
  CHECK(tvs_module_from_symbols("jit", jit_lookup, &bad, jit_destroy) == NULL);
  CHECK_EQ_STR(tvs_get_last_error(),
               "module (jit): metadata version 7, this runtime reads version 2");
  CHECK_EQ_INT(jit_destroyed, 2);
  bad.magic = 0x1234;
  CHECK(tvs_module_from_symbols("jit", jit_lookup, &bad, jit_destroy) == NULL);
  CHECK_EQ_STR(tvs_get_last_error(),
               "module (jit): __tvs_metadata has a bad magic number 0x00001234");
  CHECK_EQ_INT(jit_destroyed, 3);
}

/* A real .so, built with the system C compiler when there is one. */
static const char *so_source =
    "#include \"runtime/tvs_runtime.h\"\n"
    "void *__tvs_module_ctx;\n"
    "int __tvs_packed_twice(TVSValue *a, int *c, int n, TVSValue *r, int *rc, void *res) {\n"
    "  if (n != 1 || c[0] != TVS_INT || res != __tvs_module_ctx) return -1;\n"
    "  r->v_int64 = 2 * a[0].v_int64; *rc = TVS_INT; return 0;\n"
    "}\n"
    "static const TVSParamInfo params[] = {{\"x\", TVS_INT, {kDLInt, 64, 1}, 0, 0, 0}};\n"
    "static const TVSFuncInfo funcs[] = {{\"twice\", 1, params, 0}};\n"
    "const TVSModuleMetadata __tvs_metadata =\n"
    "    {TVS_METADATA_MAGIC, TVS_METADATA_VERSION, 1, funcs};\n";

static void test_so_module(void) {
  CHECK(tvs_module_load("/nonexistent/k.so") == NULL);
  const char *prefix = "tvs_module_load: cannot load '/nonexistent/k.so': ";
  CHECK(strncmp(tvs_get_last_error(), prefix, strlen(prefix)) == 0);

  char root[1024];
  const char *env = getenv("TVS_SOURCE_DIR");
  if (env) snprintf(root, sizeof root, "%s", env);
  else {
    snprintf(root, sizeof root, "%s", __FILE__);
    char *cut = strstr(root, "/tests/unit/");
    if (cut) *cut = '\0';
    else snprintf(root, sizeof root, ".");
  }
  char dir[] = "/tmp/tvs_test_so_XXXXXX";
  if (!mkdtemp(dir)) {
    printf("[SKIP] .so module: no temporary directory\n");
    return;
  }
  char src[256], so[256], cmd[2048];
  snprintf(src, sizeof src, "%s/k.c", dir);
  snprintf(so, sizeof so, "%s/k.so", dir);
  FILE *fp = fopen(src, "w");
  if (fp) {
    fputs(so_source, fp);
    fclose(fp);
  }
  snprintf(cmd, sizeof cmd, "cc -shared -fPIC -I'%s' -o '%s' '%s' 2>/dev/null", root, so, src);
  if (!fp || system(cmd) != 0) {
    printf("[SKIP] .so module: no working C compiler\n");
  } else {
    TVSModule *m = tvs_module_load(so);
    CHECK(m != NULL);
    if (m) {
      CHECK_EQ_STR(tvs_module_kind(m), "so");
      int n;
      const char **names = tvs_module_list_functions(m, &n);
      CHECK(n == 1 && !strcmp(names[0], "twice"));
      free(names);
      TVSFunction *f = tvs_module_get_function(m, "twice");
      CHECK(f != NULL);
      tvs_module_free(m);
      TVSValue a = {.v_int64 = 21}, r;
      int code = TVS_INT, rcode;
      CHECK_EQ_INT(tvs_func_call(f, &a, &code, 1, &r, &rcode), 0);
      CHECK_EQ_INT(r.v_int64, 42);
      tvs_func_release(f); /* unloads the .so */
    }
  }
  unlink(so);
  unlink(src);
  rmdir(dir);
}

/* ---- argument checks --------------------------------------------------------- */

static void test_arg_checks(void) {
  const DLDataType f32 = {kDLFloat, 32, 1}, i32 = {kDLInt, 32, 1};
  float data[4];
  int64_t shape[3] = {128, 64, 2};
  DLTensor t = {.data = data, .device = {kDLCPU, 0}, .ndim = 2, .dtype = f32, .shape = shape};
  TVSValue v = {.v_handle = &t};
  const int64_t want[2] = {128, 64};
  const int64_t want_sym[2] = {-1, 64};

  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), 0);
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want_sym), 0);
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, NULL), 0);

  TVSValue iv = {.v_int64 = 3};
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &iv, TVS_INT, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') must be a DLTensor, got int");
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &iv, TVS_STR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') must be a DLTensor, got str");

  TVSValue nv = {.v_handle = NULL};
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &nv, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') is a null DLTensor pointer");

  t.data = NULL;
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "B", 1, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 1 ('B') has a null data pointer");
  t.data = data;

  t.device = (DLDevice){kDLCUDA, 0};
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') is on device cuda:0, expected cpu");
  t.device = (DLDevice){(DLDeviceType)77, 1};
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "mm_relu: argument 0 ('A') is on device type 77, expected cpu");
  t.device = (DLDevice){kDLCPU, 0};

  t.dtype = i32;
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') has dtype int32, expected float32");
  t.dtype = (DLDataType){kDLFloat, 32, 4};
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "mm_relu: argument 0 ('A') has dtype float32x4, expected float32");
  t.dtype = f32;

  t.ndim = 3;
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') has 3 dimensions, expected 2");
  t.ndim = 1;
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') has 1 dimension, expected 2");
  t.ndim = 2;

  const int64_t want2[2] = {128, 128};
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want2), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') shape[1] is 64, expected 128");
  shape[0] = -1;
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want_sym), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: argument 0 ('A') has a negative shape[0] (-1)");
  shape[0] = 128;

  int64_t strides[2] = {64, 1};
  t.strides = strides;
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), 0);
  strides[0] = 1, strides[1] = 128; /* column-major */
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "mm_relu: argument 0 ('A') is not compact: strides[1] is 128, expected 1");
  strides[0] = 65, strides[1] = 1; /* padded rows */
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "mm_relu: argument 0 ('A') is not compact: strides[0] is 65, expected 64");
  /* Unit dims may carry any stride (as numpy produces for broadcast views). */
  shape[0] = 1;
  strides[0] = 0;
  const int64_t want_row[2] = {1, 64};
  CHECK_EQ_INT(tvs_check_tensor_arg("mm_relu", "A", 0, &v, TVS_TENSOR, f32, 2, want_row), 0);
  t.strides = NULL;

  /* Scalars and counts. */
  CHECK_EQ_INT(tvs_check_num_args("mm_relu", 3, 3), 0);
  CHECK_EQ_INT(tvs_check_num_args("mm_relu", 2, 3), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm_relu: expected 3 arguments, got 2");
  CHECK_EQ_INT(tvs_check_num_args("f", 0, 1), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "f: expected 1 argument, got 0");
  CHECK_EQ_INT(tvs_check_scalar_arg("mm", "alpha", 3, TVS_TENSOR, TVS_FLOAT), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm: argument 3 ('alpha') must be a float, got DLTensor");
}

static void test_bind_dim(void) {
  TVSDimSlot n = TVS_DIM_SLOT_INIT;
  CHECK_EQ_INT(tvs_bind_dim("mm", "n", "A", 128, &n), 0);
  CHECK_EQ_INT(n.value, 128);
  CHECK_EQ_INT(tvs_bind_dim("mm", "n", "C", 128, &n), 0);
  CHECK_EQ_INT(tvs_bind_dim("mm", "n", "B", 64, &n), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "mm: inconsistent value for symbolic dimension 'n': 64 (argument 'B') vs 128 "
               "(argument 'A')");
  TVSDimSlot z = TVS_DIM_SLOT_INIT;
  CHECK_EQ_INT(tvs_bind_dim("mm", "k", "A", 0, &z), 0); /* zero is a value like any other */
  CHECK_EQ_INT(tvs_bind_dim("mm", "k", "B", 1, &z), -1);

  /* Whole calls against metadata: mm(A: (n, 128), B: (128, m), C: (n, m)). */
  const DLDataType f32 = {kDLFloat, 32, 1};
  float buf[1];
  int64_t sa[2] = {10, 128}, sb[2] = {128, 7}, sc[2] = {10, 7};
  DLTensor A = {.data = buf, .device = {kDLCPU, 0}, .ndim = 2, .dtype = f32, .shape = sa};
  DLTensor B = A, C = A;
  B.shape = sb;
  C.shape = sc;
  TVSValue args[3] = {{.v_handle = &A}, {.v_handle = &B}, {.v_handle = &C}};
  int codes[3] = {TVS_TENSOR, TVS_TENSOR, TVS_TENSOR};
  int64_t syms[4] = {0};
  CHECK_EQ_INT(tvs_check_args(&jit_funcs[1], args, codes, 3, syms, 4), 2);
  CHECK(syms[0] == 10 && syms[1] == 7);
  sc[0] = 11;
  CHECK_EQ_INT(tvs_check_args(&jit_funcs[1], args, codes, 3, syms, 4), -1);
  CHECK_EQ_STR(tvs_get_last_error(),
               "mm: inconsistent value for symbolic dimension 'n': 11 (argument 'C') vs 10 "
               "(argument 'A')");
  sc[0] = 10;
  sb[0] = 64;
  CHECK_EQ_INT(tvs_check_args(&jit_funcs[1], args, codes, 3, NULL, 0), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm: argument 1 ('B') shape[0] is 64, expected 128");
  sb[0] = 128;
  codes[2] = TVS_NULL;
  CHECK_EQ_INT(tvs_check_args(&jit_funcs[1], args, codes, 3, NULL, 0), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm: argument 2 ('C') must be a DLTensor, got null");
  CHECK_EQ_INT(tvs_check_args(&jit_funcs[1], args, codes, 2, NULL, 0), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "mm: expected 3 arguments, got 2");
  CHECK_EQ_INT(tvs_check_args(&jit_funcs[0], args, codes, 2, NULL, 0), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "add: argument 0 ('a') must be an int, got DLTensor");
}

static void test_workspace(void) {
  void *p = tvs_backend_alloc_workspace(1000, 0);
  CHECK(p != NULL && (uintptr_t)p % 64 == 0);
  memset(p, 1, 1000);
  CHECK_EQ_INT(tvs_backend_free_workspace(p), 0);
  p = tvs_backend_alloc_workspace(10, 256);
  CHECK(p != NULL && (uintptr_t)p % 256 == 0);
  tvs_backend_free_workspace(p);
  p = tvs_backend_alloc_workspace(0, 8);
  CHECK(p != NULL && (uintptr_t)p % 64 == 0);
  tvs_backend_free_workspace(p);
  CHECK(tvs_backend_alloc_workspace(16, 48) == NULL);
  CHECK_EQ_STR(tvs_get_last_error(),
               "tvs_backend_alloc_workspace: alignment 48 is not a power of two");
  CHECK_EQ_INT(tvs_backend_free_workspace(NULL), 0);
}

/* Large workspaces come back from the pool on the next call (not under
 * ASan, where the pool is off so that a use after free still reports). */
static void test_workspace_pool(void) {
#if defined(__SANITIZE_ADDRESS__)
  bool pooled = false;
#else
  bool pooled = true;
#endif
  enum { BIG = 3 << 20 };
  char *a = tvs_backend_alloc_workspace(BIG, 64);
  char *b = tvs_backend_alloc_workspace(BIG, 4096);
  CHECK(a && b && a != b && (uintptr_t)a % 64 == 0 && (uintptr_t)b % 4096 == 0);
  memset(a, 1, BIG);
  memset(b, 2, BIG);
  tvs_backend_free_workspace(a);
  tvs_backend_free_workspace(b);
  /* the same sizes again: the same two blocks, in either order */
  char *c = tvs_backend_alloc_workspace(BIG, 64), *d = tvs_backend_alloc_workspace(BIG - 100, 64);
  CHECK(c && d && c != d);
  if (pooled) CHECK((c == a && d == b) || (c == b && d == a));
  memset(d, 3, BIG - 100);
  tvs_backend_free_workspace(c);
  tvs_backend_free_workspace(d);
  /* a block more than twice the request is not handed out for it */
  char *e = tvs_backend_alloc_workspace(BIG / 4, 64);
  CHECK(e && e != a && e != b);
  memset(e, 4, BIG / 4);
  tvs_backend_free_workspace(e);
  /* an alignment above a page bypasses the pool */
  char *f = tvs_backend_alloc_workspace(BIG, 1 << 16);
  CHECK(f && (uintptr_t)f % (1 << 16) == 0);
  tvs_backend_free_workspace(f);
  /* many live blocks at once (beyond what the pool tracks) all work */
  enum { N = 300 };
  char **many = calloc(N, sizeof *many);
  for (int i = 0; i < N; i++) {
    many[i] = tvs_backend_alloc_workspace(64 * 1024, 64);
    CHECK(many[i] != NULL);
    many[i][0] = (char)i;
    many[i][64 * 1024 - 1] = (char)i;
  }
  for (int i = 0; i < N; i++) {
    CHECK(many[i][0] == (char)i && many[i][64 * 1024 - 1] == (char)i);
    tvs_backend_free_workspace(many[i]);
  }
  free(many);
}

/* Buffers of 2 MiB and more (workspaces, tensors) start on a 2 MiB
 * boundary, so that huge pages can back them; smaller ones keep their own
 * alignment. */
static void test_host_memory(void) {
  void *p = tvs_host_alloc(TVS_HUGE_PAGE_BYTES, 64), *q = tvs_host_alloc(100, 128), *r = tvs_host_alloc(0, 64);
  CHECK(p && (uintptr_t)p % TVS_HUGE_PAGE_BYTES == 0);
  CHECK(q && (uintptr_t)q % 128 == 0 && r && (uintptr_t)r % 64 == 0);
  memset(p, 1, TVS_HUGE_PAGE_BYTES);
  free(p);
  free(q);
  free(r);
  char *w = tvs_backend_alloc_workspace(3 << 20, 64);
  CHECK(w && (uintptr_t)w % TVS_HUGE_PAGE_BYTES == 0);
  tvs_backend_free_workspace(w);
  TvsNDArray *a = tvs_ndarray_empty(2, (int64_t[]){1024, 1024}, (DLDataType){kDLFloat, 32, 1});
  TvsNDArray *b = tvs_ndarray_empty(1, (int64_t[]){3}, (DLDataType){kDLFloat, 32, 1});
  CHECK(a && (uintptr_t)a->t.data % TVS_HUGE_PAGE_BYTES == 0 && ((float *)a->t.data)[1024 * 1024 - 1] == 0);
  CHECK(b && (uintptr_t)b->t.data % TVS_ALLOC_ALIGN == 0);
  tvs_ndarray_free(a);
  tvs_ndarray_free(b);
}

int main(void) {
  test_packed_calls();
  test_errors();
  test_error_thread_local();
  test_registry();
  test_fake_module();
  test_symbol_module();
  test_so_module();
  test_arg_checks();
  test_bind_dim();
  test_workspace();
  test_workspace_pool();
  test_host_memory();
  TEST_MAIN_END();
}
