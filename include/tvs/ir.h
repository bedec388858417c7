/* tvs/ir.h - modules: parsing TVMScript-style text into an IRModule,
 * listing its functions, printing it at any pipeline stage.
 * Included by tvs/tvs.h; see there for the conventions. */
#ifndef TVS_IR_H
#define TVS_IR_H

#include <dlpack/dlpack.h>

#include "tvs/tvs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An immutable IRModule: prim_funcs and graph functions by name. */
typedef struct TvsIRModule TvsIRModule;

/* What a module function is. */
typedef enum TvsFuncKind { TVS_FUNC_PRIM = 0, TVS_FUNC_GRAPH = 1 } TvsFuncKind;

/* Parses and elaborates .tvs / TVMScript text (an @I.ir_module class, or bare
 * @T.prim_func / @R.function definitions).  name names the source in
 * diagnostics (a path, "<string>"); first_line is the line number of the
 * text's first line there (1 for a whole file; a Python decorator passes the
 * line its class starts on, so errors point into the user's .py file).
 * Schedule statements after the module are ignored here (tvs/schedule.h
 * runs them). */
TVS_API int tvs_irmod_parse(const char *text, const char *name, int first_line, TvsIRModule **out);
/* The same for a file on disk. */
TVS_API int tvs_irmod_parse_file(const char *path, TvsIRModule **out);
TVS_API void tvs_irmod_release(TvsIRModule *m);

/* The functions, in source order: count, and name / kind of function i
 * (NULL / -1 out of range). */
TVS_API int tvs_irmod_num_funcs(const TvsIRModule *m);
TVS_API const char *tvs_irmod_func_name(const TvsIRModule *m, int i);
TVS_API int tvs_irmod_func_kind(const TvsIRModule *m, int i);
/* The class name ("Module" for bare definitions). */
TVS_API const char *tvs_irmod_name(const TvsIRModule *m);

/* The module as TVMScript text (what `tvs show --stage graph` prints). */
TVS_API int tvs_irmod_script(const TvsIRModule *m, char **out);
/* One function as text (a prim_func or a graph function). */
TVS_API int tvs_irmod_func_script(const TvsIRModule *m, const char *func, char **out);
/* The module at a pipeline stage, as `tvs show --stage NAME` prints it:
 * graph, a graph pass (legalize, fuse-ops, ...), tir, a lowering pass,
 * llvm-unopt, llvm, asm.  TVS_ERR_ARGUMENT for an unknown stage. */
TVS_API int tvs_irmod_show_stage(const TvsIRModule *m, const char *stage, char **out);
/* The stage names, one per line, "NAME  description". */
TVS_API int tvs_stage_list(char **out);
/* A module holding only the named functions (and those they call). */
TVS_API int tvs_irmod_select(const TvsIRModule *m, const char *const *funcs, int n, TvsIRModule **out);
/* BindParams (TVM's relax.transform.BindParams): the parameters of graph
 * function func (NULL: of every graph function) named names[i] become
 * constants holding a copy of values[i] (host memory, compact row-major; the
 * dtype and static shape must match the parameter's), so the function takes
 * only its other parameters.  TVS_ERR_ARGUMENT names the parameter and both
 * shapes or dtypes on a mismatch, or the unknown name. */
TVS_API int tvs_irmod_bind_params(const TvsIRModule *m, const char *func, const char *const *names,
                                  const DLTensor *const *values, int n, TvsIRModule **out);
/* Structural equality (names of functions and bodies, up to variable
 * names): 1 equal, 0 not; *why (may be NULL) receives the first difference. */
TVS_API int tvs_irmod_equal(const TvsIRModule *a, const TvsIRModule *b, char **why);

#ifdef __cplusplus
}
#endif

#endif
