/* tvs_runtime.h - the public C ABI of libtvs_runtime, the only library a
 * compiled kernel (.so or JIT code) links against.
 *
 * Self-contained: includes only DLPack and standard headers.  Covers packed
 * functions, the global function registry, modules (.so, JIT, custom
 * backends), argument checks for compiled entry points, and the thread pool. */
#ifndef TVS_RUNTIME_TVS_RUNTIME_H
#define TVS_RUNTIME_TVS_RUNTIME_H

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TVS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TVS_PRINTF(f, a)
#endif

/* ===== Errors ==============================================================
 * Every fallible runtime call and every compiled packed function returns 0 on
 * success and -1 on error, leaving a message in a thread-local buffer.  The
 * message never ends in a newline and reads "func: what went wrong". */

/* printf-style; the arguments may include tvs_get_last_error() itself (the
 * message is formatted into scratch space first), so context can be added
 * with tvs_set_last_error("while loading: %s", tvs_get_last_error()). */
void tvs_set_last_error(const char *fmt, ...) TVS_PRINTF(1, 2);
/* Unformatted variant for generated code (cheaper, no '%' interpretation). */
void tvs_set_last_error_str(const char *msg);
/* The calling thread's last message ("" when none). Valid until the next
 * tvs_set_last_error* on this thread. */
const char *tvs_get_last_error(void);
void tvs_clear_last_error(void);

/* ===== Packed functions ====================================================
 * A packed function takes an array of untyped values and a parallel array of
 * type codes, so any language can call any function through one signature
 * (TVM's PackedFunc).  Numbering follows TVM's classic TVMArgTypeCode. */

typedef enum {
  TVS_INT = 0,     /* v_int64 (also bool and unsigned scalars) */
  TVS_FLOAT = 2,   /* v_float64 */
  TVS_HANDLE = 3,  /* v_handle: an opaque pointer */
  TVS_NULL = 4,    /* no value (v_handle == NULL) */
  TVS_DTYPE = 5,   /* v_type */
  TVS_DEVICE = 6,  /* v_device */
  TVS_TENSOR = 7,  /* v_handle: a DLTensor* (borrowed) */
  TVS_MODULE = 9,  /* v_handle: a TVSModule* */
  TVS_FUNC = 10,   /* v_handle: a TVSFunction* */
  TVS_STR = 11,    /* v_str: NUL-terminated UTF-8 */
} TVSTypeCode;

typedef union {
  int64_t v_int64;     /* TVS_INT */
  double v_float64;    /* TVS_FLOAT */
  void *v_handle;      /* TVS_HANDLE, TVS_NULL, TVS_TENSOR, TVS_MODULE, TVS_FUNC */
  const char *v_str;   /* TVS_STR */
  DLDataType v_type;   /* TVS_DTYPE */
  DLDevice v_device;   /* TVS_DEVICE */
} TVSValue;

/* The calling convention of every compiled entry point and C callback.
 *   args/type_codes  num_args values, borrowed for the duration of the call
 *   ret/ret_type_code  the result; the caller pre-sets *ret_type_code to
 *                      TVS_NULL, so a function returning nothing leaves it
 *   resource_handle  the resource given to tvs_func_from_c (for functions of
 *                    a .so/JIT module: the TVSModule* they came from)
 * Returns 0 on success; -1 after tvs_set_last_error on failure.
 * Ownership of results: TVS_FUNC and TVS_MODULE results are new references
 * the caller must release; a TVS_STR result must stay valid until the next
 * packed call on this thread (use tvs_ret_str to get that for free); a
 * TVS_TENSOR result is a borrowed pointer whose lifetime the callee defines. */
typedef int (*TVSPackedCFunc)(TVSValue *args, int *type_codes, int num_args, TVSValue *ret,
                              int *ret_type_code, void *resource_handle);

typedef struct TVSFunction TVSFunction; /* reference-counted, thread-safe */
typedef struct TVSModule TVSModule;     /* reference-counted, thread-safe */

/* Wraps a C callback. free_resource (may be NULL) runs on resource when the
 * last reference goes.  Returns a function with one reference, or NULL. */
TVSFunction *tvs_func_from_c(TVSPackedCFunc f, void *resource, void (*free_resource)(void *));
TVSFunction *tvs_func_retain(TVSFunction *f); /* returns f; NULL-safe */
void tvs_func_release(TVSFunction *f);        /* NULL-safe */
/* Calls f; sets *ret_type_code to TVS_NULL first. 0 or -1 (message set). */
int tvs_func_call(TVSFunction *f, TVSValue *args, int *type_codes, int num_args, TVSValue *ret,
                  int *ret_type_code);
/* Copies s into a thread-local buffer and makes it the TVS_STR result. */
int tvs_ret_str(TVSValue *ret, int *ret_type_code, const char *s);
/* "int", "float", "handle", "null", "dtype", "device", "DLTensor", "module",
 * "function", "str"; "unknown type code" for anything else. */
const char *tvs_type_code_name(int type_code);

/* ===== Global registry =====================================================
 * Named functions visible to every module and to compiled code
 * (tvs_backend_get_func_from_env).  All calls are thread-safe. */

/* Registers f under name, taking a new reference.  With override == 0 an
 * existing name is an error ("tvs_registry_register: function 'x' is already
 * registered"). */
int tvs_registry_register(const char *name, TVSFunction *f, int override);
/* A new reference (release it), or NULL with the last error set. */
TVSFunction *tvs_registry_get(const char *name);
/* 0 if removed, -1 if the name is not registered. */
int tvs_registry_remove(const char *name);
/* Sorted names; one malloc block (free() it), NULL-terminated; *count may
 * be NULL.  NULL only when out of memory. */
const char **tvs_registry_list(int *count);

/* ===== Modules =============================================================
 * A module is a set of named packed functions with one backend behind it.
 *
 * Compiled modules (.so files and JIT sessions) follow one symbol convention:
 *   __tvs_packed_<name>  a TVSPackedCFunc, the entry point of function <name>
 *                        (resource_handle = the TVSModule*)
 *   __tvs_metadata       a const TVSModuleMetadata (optional: without it the
 *                        module cannot list its functions)
 *   __tvs_module_ctx     a void* variable (optional); the loader stores the
 *                        TVSModule* in it, for tvs_backend_get_func_from_env
 * All are C symbols with default visibility. */

#define TVS_METADATA_MAGIC 0x53565454u /* "TTVS" in little-endian bytes */
#define TVS_METADATA_VERSION 2

/* One parameter of a compiled function. */
typedef struct TVSParamInfo {
  const char *name;              /* the parameter's name in the source, e.g. "A" */
  int32_t type_code;             /* TVS_TENSOR, or TVS_INT/TVS_FLOAT for scalars */
  DLDataType dtype;              /* element dtype (tensors) or scalar dtype */
  int32_t ndim;                  /* tensors: number of dims; scalars: 0 */
  const int64_t *shape;          /* ndim entries; -1 marks a symbolic dim */
  const char *const *sym_dims;   /* ndim entries, the symbol of each -1 dim ("n")
                                    and NULL for static dims; NULL if none */
} TVSParamInfo;

/* One exported function. */
typedef struct TVSFuncInfo {
  const char *name;              /* entry point symbol: __tvs_packed_<name> */
  int32_t num_params;            /* entries in params */
  const TVSParamInfo *params;    /* in call order (outputs included) */
  int32_t num_outputs;           /* the last num_outputs params are outputs */
  double flops;                  /* floating-point operations of one call, counted
                                    from the IR before lowering; -1 when unknown
                                    (symbolic sizes, graph functions) */
} TVSFuncInfo;

/* What __tvs_metadata holds. */
typedef struct TVSModuleMetadata {
  uint32_t magic;                /* TVS_METADATA_MAGIC */
  uint32_t version;              /* TVS_METADATA_VERSION */
  int32_t num_funcs;             /* entries in funcs */
  const TVSFuncInfo *funcs;      /* exported functions */
} TVSModuleMetadata;

/* A module backend.  self is the backend's state, owned by the module. */
typedef struct TVSModuleBackend {
  const char *kind;              /* "so", "jit", ... (shown in messages) */
  /* A new function reference for name, or NULL when absent (no error needed).
   * mod is the module itself, to retain from functions that need it alive. */
  TVSFunction *(*get_function)(void *self, TVSModule *mod, const char *name);
  /* Up to cap names into names; returns the total count. May be NULL, then
   * the metadata's function names are listed. */
  int (*list_functions)(void *self, const char **names, int cap);
  /* The module's metadata or NULL. May be NULL. */
  const TVSModuleMetadata *(*metadata)(void *self);
  /* Frees self when the last reference goes. May be NULL. */
  void (*destroy)(void *self);
} TVSModuleBackend;

/* A module with one reference over a backend (the vtable must outlive it;
 * normally static).  On failure calls destroy(self) and returns NULL. */
TVSModule *tvs_module_create(const TVSModuleBackend *backend, void *self);
/* A module over compiled code: lookup(ctx, symbol) resolves the symbols of
 * the convention above (NULL when absent); destroy(ctx) runs at the end.
 * This is how the LLVM JIT plugs in; tvs_module_load uses it with dlsym.
 * Fails (destroying ctx) when __tvs_metadata has a bad magic or version. */
TVSModule *tvs_module_from_symbols(const char *kind, void *(*lookup)(void *ctx, const char *symbol),
                                   void *ctx, void (*destroy)(void *ctx));
/* dlopen()s a compiled module (RTLD_NOW | RTLD_LOCAL). NULL + message on error. */
TVSModule *tvs_module_load(const char *path);
TVSModule *tvs_module_retain(TVSModule *mod); /* returns mod; NULL-safe */
void tvs_module_free(TVSModule *mod);          /* drops one reference; NULL-safe */
const char *tvs_module_kind(const TVSModule *mod);
/* A new reference, or NULL with "module (so): no function 'x'" set. The
 * function keeps the module alive. */
TVSFunction *tvs_module_get_function(TVSModule *mod, const char *name);
/* Like tvs_registry_list: one free()-able, NULL-terminated block. */
const char **tvs_module_list_functions(TVSModule *mod, int *count);
const TVSModuleMetadata *tvs_module_metadata(TVSModule *mod);
/* The metadata entry of function name, or NULL. */
const TVSFuncInfo *tvs_module_func_info(TVSModule *mod, const char *name);

/* ===== Argument checks for compiled packed functions ======================
 * Entry points check their arguments before touching memory.  These helpers
 * are cheap on success (no formatting) and write one clear message on error.
 * func and param name the function and parameter for messages. */

/* "mm: expected 3 arguments, got 2". */
int tvs_check_num_args(const char *func, int num_args, int expected);
/* A scalar parameter: "mm: argument 2 ('n') must be an int, got float". */
int tvs_check_scalar_arg(const char *func, const char *param, int index, int type_code,
                         int expect_code);
/* A tensor parameter: type code TVS_TENSOR, non-null tensor and data, kDLCPU,
 * the dtype, ndim and every static dim (expect_shape[i] == -1: symbolic, not
 * checked; expect_shape may be NULL), and compact row-major strides (NULL
 * strides or the compact ones; dims of extent 1 may have any stride).
 * Messages, e.g. for function mm_relu, argument 0 named A:
 *   mm_relu: argument 0 ('A') must be a DLTensor, got int
 *   mm_relu: argument 0 ('A') is a null DLTensor pointer
 *   mm_relu: argument 0 ('A') has a null data pointer
 *   mm_relu: argument 0 ('A') is on device cuda:0, expected cpu
 *   mm_relu: argument 0 ('A') has dtype int32, expected float32
 *   mm_relu: argument 0 ('A') has 3 dimensions, expected 2
 *   mm_relu: argument 0 ('A') shape[1] is 64, expected 128
 *   mm_relu: argument 0 ('A') has a negative shape[0] (-1)
 *   mm_relu: argument 0 ('A') is not compact: strides[0] is 1, expected 128
 * The data pointer used by kernels is (char *)data + byte_offset. */
int tvs_check_tensor_arg(const char *func, const char *param, int index, const TVSValue *v,
                         int type_code, DLDataType expect_dtype, int expect_ndim,
                         const int64_t *expect_shape);

/* A symbolic dimension's binding across arguments; start with TVS_DIM_SLOT_INIT. */
typedef struct TVSDimSlot {
  int64_t value;                 /* the bound value (when bound) */
  const char *param;             /* the argument that bound it; NULL = unbound */
} TVSDimSlot;
#define TVS_DIM_SLOT_INIT {0, NULL}

/* Binds symbol sym_name to value (read from argument param) or checks it
 * against the earlier binding:
 *   mm: inconsistent value for symbolic dimension 'n': 64 (argument 'B') vs 128 (argument 'A') */
int tvs_bind_dim(const char *func, const char *sym_name, const char *param, int64_t value,
                 TVSDimSlot *slot);

/* Checks a whole call against a function's metadata: count, each parameter
 * (tensors and scalars), and consistent symbolic dims. sym_values (may be
 * NULL) receives up to max_syms symbol values in order of first appearance;
 * returns the number of distinct symbols (>= 0) or -1 on error. */
int tvs_check_args(const TVSFuncInfo *info, const TVSValue *args, const int *type_codes,
                   int num_args, int64_t *sym_values, int max_syms);

/* ===== Messages of the --bounds-check checks ==============================
 * Code compiled with --bounds-check (the instrument-bound-checkers stage)
 * asserts before every buffer access and integer division; on failure it
 * sets "func: " + one of these messages and returns -1.  The wording is the
 * reference interpreter's.  The text lives in a thread-local buffer, valid
 * until the next call on the same thread; access is "load from" or
 * "store to".
 *   out-of-bounds load from buffer 'A': index [10] outside shape (8,) */
const char *tvs_out_of_bounds_message(const char *access, const char *buffer, int64_t index,
                                      int64_t extent);
/* "division by zero". */
const char *tvs_division_by_zero_message(void);

/* ===== Backend services for compiled code ================================ */

/* Thread pool: persistent workers; the caller runs task 0 and helps with the
 * rest.  Runs task(i, n, cdata) exactly once for each i in [0, n), with
 * n = num_tasks, or the pool's thread count when num_tasks <= 0; tasks may
 * run on any thread in any order, several on one thread.  Returns 0, or -1
 * when a task returned non-zero (the first failing task's message becomes
 * the caller's last error).  A launch from inside a task, or while another
 * thread's launch holds the pool, runs its tasks serially in the calling
 * thread, so nesting never deadlocks.  No barrier inside a launch: tasks must
 * not wait for each other. */
typedef int (*TVSParallelTask)(int task_id, int num_tasks, void *cdata);
int tvs_parallel_launch(TVSParallelTask task, void *cdata, int num_tasks);
/* The threads a launch uses (caller included): TVS_NUM_THREADS if set to a
 * positive integer, else the CPUs this process may run on (capped at 256). */
int tvs_thread_pool_num_threads(void);
/* Sets the thread count (n <= 0: back to the default) and stops the current
 * workers; the pool restarts lazily on the next launch. -1 from inside a task
 * or while a launch is running. */
int tvs_thread_pool_set_num_threads(int n);
/* Stops and joins the workers now (also done at exit). */
void tvs_thread_pool_shutdown(void);
/* 1 inside a parallel task (any thread), else 0. */
int tvs_in_parallel_region(void);

/* Temporaries for kernels: at least max(align, 64)-byte aligned (align must
 * be a power of two or 0), never NULL for nbytes == 0.  NULL + message when
 * out of memory. */
void *tvs_backend_alloc_workspace(size_t nbytes, size_t align);
int tvs_backend_free_workspace(void *ptr); /* NULL-safe; returns 0 */

/* For compiled code calling a named function: looks name up in module
 * mod_ctx (a TVSModule*: the resource_handle the entry point received, or
 * the value of __tvs_module_ctx; may be NULL), then in the registry.
 * *out gets a new reference (compiled code typically caches it for good). */
int tvs_backend_get_func_from_env(void *mod_ctx, const char *name, TVSFunction **out);

#ifdef __cplusplus
}
#endif
#endif
