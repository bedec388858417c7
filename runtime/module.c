/* module.c - modules: a reference-counted handle over a backend vtable, the
 * symbol-convention backend shared by .so files (dlopen) and JIT sessions,
 * and the lookup compiled code uses to call named functions. */
#include "runtime/tvs_runtime.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TVSModule {
  atomic_int refcount;              /* freed (backend destroyed) at 0 */
  const TVSModuleBackend *backend;  /* the vtable */
  void *self;                       /* the backend's state */
  char kind[32];                    /* backend kind, for messages */
};

#define PACKED_PREFIX "__tvs_packed_"

static TVSModule *module_new(const TVSModuleBackend *backend, void *self, const char *kind) {
  TVSModule *m = malloc(sizeof *m);
  if (!m) {
    if (backend->destroy) backend->destroy(self);
    tvs_set_last_error("tvs_module_create: out of memory");
    return NULL;
  }
  atomic_init(&m->refcount, 1);
  m->backend = backend;
  m->self = self;
  snprintf(m->kind, sizeof m->kind, "%s", kind ? kind : "module");
  return m;
}

TVSModule *tvs_module_create(const TVSModuleBackend *backend, void *self) {
  if (!backend || !backend->get_function) {
    tvs_set_last_error("tvs_module_create: backend without get_function");
    return NULL;
  }
  return module_new(backend, self, backend->kind);
}

TVSModule *tvs_module_retain(TVSModule *mod) {
  if (mod) atomic_fetch_add_explicit(&mod->refcount, 1, memory_order_relaxed);
  return mod;
}

void tvs_module_free(TVSModule *mod) {
  if (!mod) return;
  if (atomic_fetch_sub_explicit(&mod->refcount, 1, memory_order_acq_rel) != 1) return;
  if (mod->backend->destroy) mod->backend->destroy(mod->self);
  free(mod);
}

const char *tvs_module_kind(const TVSModule *mod) { return mod ? mod->kind : "(null)"; }

TVSFunction *tvs_module_get_function(TVSModule *mod, const char *name) {
  if (!mod || !name) {
    tvs_set_last_error("tvs_module_get_function: null %s", mod ? "name" : "module");
    return NULL;
  }
  tvs_clear_last_error();
  TVSFunction *f = mod->backend->get_function(mod->self, mod, name);
  if (!f && !tvs_get_last_error()[0])
    tvs_set_last_error("module (%s): no function '%s'", mod->kind, name);
  return f;
}

const TVSModuleMetadata *tvs_module_metadata(TVSModule *mod) {
  if (!mod || !mod->backend->metadata) return NULL;
  return mod->backend->metadata(mod->self);
}

const TVSFuncInfo *tvs_module_func_info(TVSModule *mod, const char *name) {
  const TVSModuleMetadata *md = tvs_module_metadata(mod);
  if (!md || !name) return NULL;
  for (int i = 0; i < md->num_funcs; i++)
    if (md->funcs[i].name && !strcmp(md->funcs[i].name, name)) return &md->funcs[i];
  return NULL;
}

/* Packs n strings into one free()-able, NULL-terminated block. */
static const char **pack_names(const char *const *names, int n) {
  size_t bytes = (size_t)(n + 1) * sizeof(char *);
  for (int i = 0; i < n; i++) bytes += strlen(names[i]) + 1;
  const char **out = malloc(bytes);
  if (!out) return NULL;
  char *p = (char *)(out + n + 1);
  for (int i = 0; i < n; i++) {
    size_t len = strlen(names[i]) + 1;
    memcpy(p, names[i], len);
    out[i] = p;
    p += len;
  }
  out[n] = NULL;
  return out;
}

const char **tvs_module_list_functions(TVSModule *mod, int *count) {
  if (count) *count = 0;
  if (!mod) {
    tvs_set_last_error("tvs_module_list_functions: null module");
    return NULL;
  }
  const char **names = NULL;
  int n = 0;
  if (mod->backend->list_functions) {
    n = mod->backend->list_functions(mod->self, NULL, 0);
    if (n < 0) n = 0;
    names = malloc((size_t)(n ? n : 1) * sizeof *names);
    if (!names) goto oom;
    int again = mod->backend->list_functions(mod->self, names, n);
    if (again < n) n = again < 0 ? 0 : again;
  } else {
    const TVSModuleMetadata *md = tvs_module_metadata(mod);
    n = md ? md->num_funcs : 0;
    names = malloc((size_t)(n ? n : 1) * sizeof *names);
    if (!names) goto oom;
    for (int i = 0; i < n; i++) names[i] = md->funcs[i].name ? md->funcs[i].name : "";
  }
  const char **out = pack_names(names, n);
  free(names);
  if (!out) goto oom;
  if (count) *count = n;
  return out;
oom:
  tvs_set_last_error("tvs_module_list_functions: out of memory");
  return NULL;
}

/* ---- compiled code behind the symbol convention (.so and JIT) ---------- */

typedef struct {
  void *(*lookup)(void *ctx, const char *symbol); /* symbol resolver */
  void *ctx;                                      /* its state */
  void (*destroy)(void *ctx);                     /* frees ctx */
  const TVSModuleMetadata *meta;                  /* __tvs_metadata or NULL */
  void **mod_ctx;                                 /* __tvs_module_ctx or NULL */
  TVSModule *mod;                                 /* the module over this state */
} SymModule;

static void module_release_resource(void *mod) { tvs_module_free(mod); }

/* The entry point of name, or NULL. */
static TVSPackedCFunc sym_lookup_packed(SymModule *sm, const char *name) {
  char small[128];
  size_t need = sizeof PACKED_PREFIX + strlen(name);
  char *sym = need <= sizeof small ? small : malloc(need);
  if (!sym) return NULL;
  snprintf(sym, need, PACKED_PREFIX "%s", name);
  void *addr = sm->lookup(sm->ctx, sym);
  if (sym != small) free(sym);
  TVSPackedCFunc fn;
  memcpy(&fn, &addr, sizeof fn); /* object pointer to function pointer */
  return fn;
}

static TVSFunction *sym_get_function(void *self, TVSModule *mod, const char *name) {
  TVSPackedCFunc fn = sym_lookup_packed(self, name);
  if (!fn) return NULL;
  TVSFunction *f = tvs_func_from_c(fn, tvs_module_retain(mod), module_release_resource);
  if (!f) tvs_module_free(mod);
  return f;
}

static const TVSModuleMetadata *sym_metadata(void *self) { return ((SymModule *)self)->meta; }

static void sym_destroy(void *self) {
  SymModule *sm = self;
  /* The same .so loaded twice shares one __tvs_module_ctx: never leave it
   * pointing at a freed module. */
  if (sm->mod_ctx && *sm->mod_ctx == sm->mod) *sm->mod_ctx = NULL;
  if (sm->destroy) sm->destroy(sm->ctx);
  free(sm);
}

static const TVSModuleBackend sym_backend = {
    .kind = "compiled",
    .get_function = sym_get_function,
    .list_functions = NULL,
    .metadata = sym_metadata,
    .destroy = sym_destroy,
};

TVSModule *tvs_module_from_symbols(const char *kind, void *(*lookup)(void *ctx, const char *symbol),
                                   void *ctx, void (*destroy)(void *ctx)) {
  if (!kind) kind = "jit";
  if (!lookup) {
    if (destroy) destroy(ctx);
    tvs_set_last_error("tvs_module_from_symbols: null lookup callback");
    return NULL;
  }
  const TVSModuleMetadata *meta = lookup(ctx, "__tvs_metadata");
  if (meta && (meta->magic != TVS_METADATA_MAGIC || meta->version != TVS_METADATA_VERSION)) {
    if (meta->magic != TVS_METADATA_MAGIC)
      tvs_set_last_error("module (%s): __tvs_metadata has a bad magic number 0x%08x", kind,
                         (unsigned)meta->magic);
    else
      tvs_set_last_error("module (%s): metadata version %u, this runtime reads version %d", kind,
                         (unsigned)meta->version, TVS_METADATA_VERSION);
    if (destroy) destroy(ctx);
    return NULL;
  }
  SymModule *sm = malloc(sizeof *sm);
  if (!sm) {
    if (destroy) destroy(ctx);
    tvs_set_last_error("tvs_module_from_symbols: out of memory");
    return NULL;
  }
  sm->lookup = lookup;
  sm->ctx = ctx;
  sm->destroy = destroy;
  sm->meta = meta;
  sm->mod_ctx = lookup(ctx, "__tvs_module_ctx");
  TVSModule *m = module_new(&sym_backend, sm, kind);
  if (!m) return NULL;
  sm->mod = m;
  if (sm->mod_ctx) *sm->mod_ctx = m;
  return m;
}

/* ---- .so files ------------------------------------------------------------ */

static void *so_lookup(void *handle, const char *symbol) { return dlsym(handle, symbol); }
static void so_close(void *handle) { dlclose(handle); }

TVSModule *tvs_module_load(const char *path) {
  if (!path) {
    tvs_set_last_error("tvs_module_load: null path");
    return NULL;
  }
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    tvs_set_last_error("tvs_module_load: cannot load '%s': %s", path, why ? why : "unknown error");
    return NULL;
  }
  TVSModule *m = tvs_module_from_symbols("so", so_lookup, handle, so_close);
  if (!m) tvs_set_last_error("tvs_module_load: '%s': %s", path, tvs_get_last_error());
  return m;
}

/* ---- calls from compiled code -------------------------------------------- */

int tvs_backend_get_func_from_env(void *mod_ctx, const char *name, TVSFunction **out) {
  *out = NULL;
  if (!name) name = "";
  if (mod_ctx) {
    TVSModule *mod = mod_ctx;
    TVSFunction *f = mod->backend->get_function(mod->self, mod, name);
    if (f) {
      *out = f;
      return 0;
    }
  }
  *out = tvs_registry_get(name);
  if (*out) return 0;
  tvs_set_last_error(
      "tvs_backend_get_func_from_env: no function '%s' in the module or the registry", name);
  return -1;
}
