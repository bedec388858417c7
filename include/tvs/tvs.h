/* tvs.h - the public C API of the TVS compiler (libtvs.so): the one header an
 * embedding program includes.
 *
 * The API is a thin, stable layer over the compiler's libraries: parse a
 * module (tvs/ir.h), schedule it with TVM's tir.Schedule methods
 * (tvs/schedule.h), build and run it on DLPack tensors (tvs/build.h).
 * Everything is reached through opaque handles; libtvs.so exports only the
 * functions declared under include/tvs/.
 *
 * Conventions (every header):
 *  - Functions return a TvsStatus: TVS_OK (0) or a negative code.  On error the
 *    calling thread's message (tvs_last_error) says what went wrong, with
 *    clang-style `file:line:col: error: ...` diagnostics where the fault is in
 *    text; nothing prints, exits or aborts on bad input.
 *  - Results come back through out-parameters, set only on success.
 *  - Ownership: a handle returned through `**out` belongs to the caller and is
 *    released with the matching *_free (NULL-safe).  Strings returned through
 *    `char **out` are released with tvs_string_free.  `const char *` results
 *    are borrowed from their handle and live as long as it does.
 *  - Threads: the compiler side (parsing, schedules, builds, printing stages)
 *    keeps process-wide state (registries, caches, LLVM's initialisation):
 *    call it from one thread at a time.  Compiled functions
 *    (tvs_function_call, tvs_function_time) may be called from any number of
 *    threads at once, each with its own TvsFunction handle; the error message
 *    is per thread. */
#ifndef TVS_TVS_H
#define TVS_TVS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TVS_API __attribute__((visibility("default")))
#else
#define TVS_API
#endif

/* What went wrong; the message is in tvs_last_error(). */
typedef enum TvsStatus {
  TVS_OK = 0,
  TVS_ERR_ARGUMENT = -1,  /* a NULL handle, unknown name or option, bad tensor argument */
  TVS_ERR_PARSE = -2,     /* the text does not parse or elaborate (diagnostics) */
  TVS_ERR_SCHEDULE = -3,  /* a schedule statement failed (an illegal step: diagnostics) */
  TVS_ERR_BUILD = -4,     /* lowering, code generation or linking failed */
  TVS_ERR_RUN = -5,       /* a compiled function reported an error (argument checks) */
  TVS_ERR_IO = -6,        /* a file could not be read or written */
} TvsStatus;

/* The calling thread's message of the last failed call ("" when none);
 * valid until the next API call on this thread. */
TVS_API const char *tvs_last_error(void);
/* The status's name ("TVS_ERR_SCHEDULE"). */
TVS_API const char *tvs_status_name(int status);
/* "0.1.0": the library's version. */
TVS_API const char *tvs_version(void);
/* Releases a string the API returned (NULL-safe). */
TVS_API void tvs_string_free(char *s);

#ifdef __cplusplus
}
#endif

#include "tvs/ir.h"        /* IWYU pragma: export */
#include "tvs/schedule.h"  /* IWYU pragma: export */
#include "tvs/build.h"     /* IWYU pragma: export */

#endif
