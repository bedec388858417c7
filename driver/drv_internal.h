/* drv_internal.h - pieces shared by the compile driver's files (driver/):
 * compile.c (the flow), header.c (the C header), target.c (target checks),
 * link.c (the system linker) and files.c (temporary files renamed into place). */
#ifndef TVS_DRIVER_DRV_INTERNAL_H
#define TVS_DRIVER_DRV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/driver.h"
#include "ir/module.h"

#define DRV_VERSION "0.1.0"

/* ---- header.c */

/* The name under which C code calls the direct entry of prim_func name:
 * name itself, or "tvs_direct_<name>" when name is `main` or a C keyword
 * (tvsc then exports that alias).  Writes into buf; returns buf. */
const char *drv_direct_c_name(const char *name, char *buf, size_t cap);
/* Whether function name needs the alias above. */
bool drv_needs_alias(const char *name);
/* The text of a self-contained C header for the prim_funcs and graph
 * functions of the lowered module low: direct-entry prototypes with shapes as
 * comments, and the packed entries.  header_path names the guard; sources goes in the comment.
 * malloc'd. */
char *drv_header_text(const IrModule *low, const char *header_path, const char *sources);

/* ---- target.c */

/* Completes cg for the requested target: a foreign triple initializes all
 * LLVM targets and defaults the CPU to "generic"; then checks that LLVM knows
 * the triple, the CPU and every --mattr feature.  *cross tells whether the
 * triple differs from the host's.  0, or -1 with an error in d. */
int drv_prepare_target(CgOptions *cg, bool *cross, DiagCtx *d);

/* ---- link.c */

/* Links object obj into shared object out (both temporary paths) with the
 * system compiler driver: -shared, -Bsymbolic, and libtvs_runtime when found
 * (with an rpath), libm, pthread.  0, or -1 with an error in d. */
int drv_link_shared(const DrvOptions *o, const char *obj, const char *out, bool cross, DiagCtx *d);

/* ---- files.c */

/* A fresh temporary path next to final ("DIR/.NAME.tvsc-PID-N.SUFFIX").
 * malloc'd, and registered so that SIGINT/SIGTERM/SIGHUP remove the file
 * (runtime/temp_files.h) until drv_temp_release. */
char *drv_temp_path(const char *final, const char *suffix);
/* Forgets and frees a path from drv_temp_path (once renamed or removed). */
void drv_temp_release(char *path);
/* Writes n bytes to path (created 0644, truncated).  0, or -1 + error in d. */
int drv_write_file(const char *path, const char *data, size_t n, DiagCtx *d);
/* Checks that final's directory exists and is writable, so that the error
 * comes before the compilation does.  0, or -1 + error in d. */
int drv_check_writable(const char *final, DiagCtx *d);

#endif
