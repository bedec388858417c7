"""_ffi.py - the binding to libtvs.so (include/tvs/) through cffi's ABI mode.

The declarations below restate include/tvs/*.h; the library is found, in order,
at $TVS_LIBRARY, beside this package (an installed wheel's tvs/lib), in the build
tree next to the source tree (build*/libtvs.so) and by the dynamic loader
(ldconfig's paths), then in the libdir
of `pkg-config tvs` (an install prefix named by PKG_CONFIG_PATH)."""
import glob
import os
import subprocess

import cffi

ffi = cffi.FFI()
ffi.cdef("""
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void *data; DLDevice device; int32_t ndim; DLDataType dtype;
  int64_t *shape; int64_t *strides; uint64_t byte_offset;
} DLTensor;

const char *tvs_last_error(void);
const char *tvs_status_name(int status);
const char *tvs_version(void);
void tvs_string_free(char *s);

typedef struct TvsIRModule TvsIRModule;
int tvs_irmod_parse(const char *text, const char *name, int first_line, TvsIRModule **out);
int tvs_irmod_parse_file(const char *path, TvsIRModule **out);
void tvs_irmod_release(TvsIRModule *m);
int tvs_irmod_num_funcs(const TvsIRModule *m);
const char *tvs_irmod_func_name(const TvsIRModule *m, int i);
int tvs_irmod_func_kind(const TvsIRModule *m, int i);
const char *tvs_irmod_name(const TvsIRModule *m);
int tvs_irmod_script(const TvsIRModule *m, char **out);
int tvs_irmod_func_script(const TvsIRModule *m, const char *func, char **out);
int tvs_irmod_show_stage(const TvsIRModule *m, const char *stage, char **out);
int tvs_stage_list(char **out);
int tvs_irmod_select(const TvsIRModule *m, const char *const *funcs, int n, TvsIRModule **out);
int tvs_irmod_bind_params(const TvsIRModule *m, const char *func, const char *const *names,
                          const DLTensor *const *values, int n, TvsIRModule **out);
int tvs_irmod_equal(const TvsIRModule *a, const TvsIRModule *b, char **why);

typedef struct TvsSchedule TvsSchedule;
int tvs_sched_create(const TvsIRModule *m, TvsSchedule **out);
void tvs_sched_release(TvsSchedule *s);
int tvs_sched_exec(TvsSchedule *s, const char *text, char **output);
int tvs_sched_exec_named(TvsSchedule *s, const char *text, const char *name, char **output);
int tvs_sched_var_kind(const TvsSchedule *s, const char *name);
int tvs_sched_module(const TvsSchedule *s, TvsIRModule **out);
int tvs_sched_trace(const TvsSchedule *s, int as_function, char **out);
int tvs_sched_trace_len(const TvsSchedule *s);
int tvs_sched_undo(TvsSchedule *s);
int tvs_sched_work_on(TvsSchedule *s, const char *func);
const char *tvs_sched_method_name(int i);
int tvs_sched_method_signature(const char *name, char **out);
/* typed calls (declared for embedders' use from cffi; tvs.tir.Schedule uses statements) */
typedef struct TvsBlockRV { int64_t id; } TvsBlockRV;
typedef struct TvsLoopRV { int64_t id; } TvsLoopRV;
typedef struct TvsExprRV { int64_t id; } TvsExprRV;
typedef struct TvsRV { int64_t id; } TvsRV;
void tvs_handles_free(void *handles);
int tvs_sched_rv_kind(const TvsSchedule *s, TvsRV rv);
const char *tvs_sched_rv_name(const TvsSchedule *s, TvsRV rv);
int tvs_sched_expr_value(const TvsSchedule *s, TvsExprRV v, int64_t *out);
int tvs_sched_seed(TvsSchedule *s, int64_t seed);
int tvs_sched_bind_name(TvsSchedule *s, const char *name, TvsRV rv);
int tvs_sched_bind_list(TvsSchedule *s, const char *name, const TvsRV *rvs, int n);
int tvs_sched_lookup_block(const TvsSchedule *s, const char *name, TvsBlockRV *out);
int tvs_sched_lookup_loop(const TvsSchedule *s, const char *name, TvsLoopRV *out);
int tvs_sched_lookup_expr(const TvsSchedule *s, const char *name, TvsExprRV *out);
int tvs_sched_lookup_list(const TvsSchedule *s, const char *name, TvsRV **out, int *n);
int tvs_sched_get_block(TvsSchedule *s, const char *name, const char *func_name, TvsBlockRV *out);
int tvs_sched_get_loops(TvsSchedule *s, TvsBlockRV block, TvsLoopRV **out, int *n);
int tvs_sched_get_child_blocks(TvsSchedule *s, TvsRV block_or_loop, TvsBlockRV **out, int *n);
int tvs_sched_get_producers(TvsSchedule *s, TvsBlockRV block, TvsBlockRV **out, int *n);
int tvs_sched_get_consumers(TvsSchedule *s, TvsBlockRV block, TvsBlockRV **out, int *n);
int tvs_sched_split(TvsSchedule *s, TvsLoopRV loop, const int64_t *factors, int n, int preserve_unit_iters, int disable_predication, TvsLoopRV *out);
int tvs_sched_split_exprs(TvsSchedule *s, TvsLoopRV loop, const TvsExprRV *factors, int n, int preserve_unit_iters, int disable_predication, TvsLoopRV *out);
int tvs_sched_fuse(TvsSchedule *s, const TvsLoopRV *loops, int n, int preserve_unit_iters, TvsLoopRV *out);
int tvs_sched_reorder(TvsSchedule *s, const TvsLoopRV *loops, int n);
int tvs_sched_parallel(TvsSchedule *s, TvsLoopRV loop);
int tvs_sched_vectorize(TvsSchedule *s, TvsLoopRV loop);
int tvs_sched_unroll(TvsSchedule *s, TvsLoopRV loop);
int tvs_sched_bind(TvsSchedule *s, TvsLoopRV loop, const char *thread_axis);
int tvs_sched_annotate_int(TvsSchedule *s, TvsRV block_or_loop, const char *key, int64_t value);
int tvs_sched_annotate_float(TvsSchedule *s, TvsRV block_or_loop, const char *key, double value);
int tvs_sched_annotate_string(TvsSchedule *s, TvsRV block_or_loop, const char *key, const char *value);
int tvs_sched_unannotate(TvsSchedule *s, TvsRV block_or_loop, const char *key);
int tvs_sched_compute_at(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop, int preserve_unit_loops, int index);
int tvs_sched_reverse_compute_at(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop, int preserve_unit_loops, int index);
int tvs_sched_compute_inline(TvsSchedule *s, TvsBlockRV block);
int tvs_sched_reverse_compute_inline(TvsSchedule *s, TvsBlockRV block);
int tvs_sched_cache_read(TvsSchedule *s, TvsBlockRV block, int read_buffer_index, const char *storage_scope, const TvsBlockRV *consumer_blocks, int n, TvsBlockRV *out);
int tvs_sched_cache_write(TvsSchedule *s, TvsBlockRV block, int write_buffer_index, const char *storage_scope, const TvsBlockRV *consumer_blocks, int n, TvsBlockRV *out);
int tvs_sched_set_scope(TvsSchedule *s, TvsBlockRV block, int buffer_index, const char *storage_scope);
int tvs_sched_storage_align(TvsSchedule *s, TvsBlockRV block, int buffer_index, int axis, int factor, int offset);
int tvs_sched_rfactor(TvsSchedule *s, TvsLoopRV loop, int factor_axis, TvsBlockRV *out);
int tvs_sched_decompose_reduction(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop, TvsBlockRV *out);
int tvs_sched_blockize(TvsSchedule *s, TvsLoopRV loop, int preserve_unit_iters, TvsBlockRV *out);
int tvs_sched_blockize_blocks(TvsSchedule *s, const TvsBlockRV *blocks, int n, int preserve_unit_iters, TvsBlockRV *out);
int tvs_sched_tensorize(TvsSchedule *s, TvsRV block_or_loop, const char *intrin_name, int preserve_unit_iters);
int tvs_sched_sample_perfect_tile(TvsSchedule *s, TvsLoopRV loop, int n, int max_innermost_factor, const int64_t *decision, TvsExprRV *rvs, int64_t *factors);

typedef struct TvsExecutable TvsExecutable;
typedef struct TvsFunction TvsFunction;
typedef struct TvsBuildOptions {
  int opt_level; int set_opt_level; const char *mcpu; const char *mattr;
} TvsBuildOptions;
int tvs_build(const TvsIRModule *m, const char *target, const TvsBuildOptions *opt, TvsExecutable **out);
int tvs_export_library(const TvsIRModule *m, const char *target, const char *path);
int tvs_executable_load(const char *path, TvsExecutable **out);
void tvs_executable_release(TvsExecutable *e);
int tvs_executable_num_funcs(const TvsExecutable *e);
const char *tvs_executable_func_name(const TvsExecutable *e, int i);
int tvs_executable_get_function(TvsExecutable *e, const char *name, TvsFunction **out);
void tvs_function_release(TvsFunction *f);
int tvs_function_num_params(const TvsFunction *f);
int tvs_function_num_outputs(const TvsFunction *f);
int tvs_function_param(const TvsFunction *f, int i, const char **name, int *type, DLDataType *dtype,
                       int *ndim, const int64_t **shape, const char *const **sym_dims);
double tvs_function_flops(const TvsFunction *f);
typedef struct TvsArg { int32_t type; DLTensor *tensor; int64_t i; double f; } TvsArg;
int tvs_function_call(TvsFunction *f, const TvsArg *args, int nargs);
int tvs_function_time(TvsFunction *f, const TvsArg *args, int nargs, int number, int repeat,
                      double min_repeat_ms, double *results);
int tvs_set_num_threads(int n);
""")

# Status codes (include/tvs/tvs.h).
OK, ERR_ARGUMENT, ERR_PARSE, ERR_SCHEDULE, ERR_BUILD, ERR_RUN, ERR_IO = 0, -1, -2, -3, -4, -5, -6


def _candidates():
    env = os.environ.get("TVS_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "lib", "libtvs.so")
    # installed by CMake: <prefix>/lib/python3/site-packages/tvs -> <prefix>/lib/libtvs.so
    yield os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(here))), "libtvs.so")
    root = os.path.dirname(os.path.dirname(here))  # the source tree, when run from it
    for d in sorted(glob.glob(os.path.join(root, "build*"))):
        yield os.path.join(d, "libtvs.so")
    yield "libtvs.so.0"
    yield "libtvs.so"
    try:  # an installed prefix that pkg-config knows (PKG_CONFIG_PATH)
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "tvs"], capture_output=True, text=True,
                                timeout=10).stdout.strip()
        if libdir:
            yield os.path.join(libdir, "libtvs.so")
    except (OSError, subprocess.SubprocessError):
        pass


def _load():
    errors = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            continue
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("tvs: cannot find libtvs.so (build TVS with CMake, or set TVS_LIBRARY to its path)"
                      + "".join("\n  " + e for e in errors))


lib, library_path = _load()


def last_error():
    return ffi.string(lib.tvs_last_error()).decode("utf-8", "replace")


def take_string(p):
    """A char * the API returned, as a str (the C string is freed)."""
    try:
        return ffi.string(p[0]).decode("utf-8", "replace")
    finally:
        lib.tvs_string_free(p[0])
