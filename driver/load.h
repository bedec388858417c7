/* load.h - loading a program by its file's extension, for every tool (tvs
 * run/show/check, tvsc, the REPL's :load): a .tvs file is parsed and
 * elaborated; an .onnx model goes through the importer (frontend/onnx) in
 * memory -- its .tvs text is parsed from a string, no file is written. */
#ifndef TVS_DRIVER_LOAD_H
#define TVS_DRIVER_LOAD_H

#include <stdbool.h>

#include "base/diag.h"
#include "base/source.h"
#include "ir/module.h"

/* Loads path.  For a model, bind_weights makes its weights constants of main
 * (what running and compiling need); otherwise they stay main's parameters
 * (what printing wants: no megabytes of R.const).  *src_out receives the
 * source the module's spans point into (keep it alive; NULL when none).
 * NULL after reporting errors to d (not flushed). */
IrModule *drv_load_source(const char *path, bool bind_weights, DiagCtx *d, SourceFile **src_out);

/* true when path is a model the importer reads (*.onnx). */
bool drv_is_model_path(const char *path);

#endif
