/* tvs.h - shared pieces of the `tvs` command's subcommands (tools/tvs/).
 * The binary stays thin: each subcommand parses its arguments and calls the
 * libraries (lang/, ir/, runtime/). */
#ifndef TVS_TOOLS_TVS_H
#define TVS_TOOLS_TVS_H

#include "ir/interp.h"
#include "ir/module.h"
#include "base/diag.h"
#include "tools/common/options.h"

#define TVS_VERSION_STRING "tvs 0.1.0 (TVMScript surface of TVM v0.23)"

/* Options common to every subcommand. */
typedef struct ToolCommon {
  DiagFormat diag_format;  /* --diagnostics-format=text|json */
  int color;               /* -1 auto, 0 never, 1 always (--color=) */
} ToolCommon;

/* Consumes a common option at argv[*i] if it is one; returns 1 if consumed,
 * 0 if not, -1 on a malformed common option (message printed). */
int tool_common_option(ToolCommon *c, int argc, char **argv, int *i);
/* The common options' table (in every subcommand's --help). */
extern const ToolOption tool_common_options[];
/* Prints a subcommand's --help: the prose header, then "options:" generated
 * from tab and the common options. */
void tool_print_help(const char *header, const ToolOption *tab);
void tool_diag_init(DiagCtx *d, const ToolCommon *c);

/* Reads, parses and elaborates path; prints diagnostics; NULL on error.
 * *src_out receives the source (keep it alive while the module is used). */
IrModule *tool_load(const char *path, DiagCtx *d, SourceFile **src_out);
/* The same; an .onnx model's weights become constants only when bind_weights
 * (tool_load binds them; `tvs show` keeps them as parameters). */
IrModule *tool_load_ex(const char *path, bool bind_weights, DiagCtx *d, SourceFile **src_out);

/* `tvs run --target npu`: builds prim_func fname's NPU stream, runs it on
 * the simulator (config_path: JSON or NULL; vthreads 0: the schedule's),
 * checks the output against the interpreter, prints the cycle report;
 * 0, or -1 (reported). */
int tool_run_npu(const IrModule *m, const char *fname, InterpArg *args, int nargs, const char *config_path,
                 int vthreads, DiagCtx *d);
/* `tvs run --target npu` of a graph function: legalized, its NPU kernels on
 * the simulator (each checked against the interpreter), the rest on the
 * interpreter; prints the cycle report per kernel and in total.  *results
 * as interp_run_relax's.  0, or -1 (reported). */
int tool_run_npu_graph(const IrModule *m, const char *fname, InterpArg *args, int nargs,
                       const char *config_path, int vthreads, DLTensor ***results, int *nresults, DiagCtx *d);
/* `tvs run FILE.npu`: a hand-written instruction stream (docs/npu.md's text
 * form) on the simulator, DRAM filled with a fixed pattern; prints the cycle
 * report and a checksum of each buffer; 0, or -1 (reported). */
int tool_run_npu_stream(const char *path, const char *config_path);
/* `tvs show FILE --stage npu-isa`: the stream of each prim_func after the
 * schedules; 0, or 1 (reported). */
int tool_show_npu(const char *file, const char *sched_path, const char *config_path, const char *stage, DiagCtx *d);

int cmd_run(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_equal(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_repl(int argc, char **argv);
int cmd_lsp(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_import(int argc, char **argv);

/* Reports a command-line usage error ("tvs run: error: ...") and returns 2. */
int tool_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
