/* npy.h - reading and writing NumPy .npy files (format versions 1.0-3.0).
 *
 * C-order, little-endian arrays of bool, int8..int64, uint8..uint64, float16,
 * float32, float64 (and bfloat16 stored as numpy's "V2"/ml_dtypes "<V2" is not
 * supported).  Malformed files are rejected with a message, never a crash. */
#ifndef TVS_RUNTIME_NPY_H
#define TVS_RUNTIME_NPY_H

#include "runtime/ndarray.h"

/* The longest header dict a file may declare (numpy writes < 1 KiB; its own
 * reader stops at 10,000 bytes by default); longer ones are refused. */
#define TVS_NPY_HEADER_LIMIT 65536
/* Loads path; reads are bounded by the header (a file that goes on past the
 * data it declares is refused after one byte), directories and devices such as
 * /dev/zero are refused; on failure returns NULL and writes a message (no trailing
 * newline) into err[0..errlen). */
TvsNDArray *tvs_npy_load(const char *path, char *err, size_t errlen);
/* Parses an in-memory .npy image (fuzzing, tests). */
TvsNDArray *tvs_npy_parse(const unsigned char *data, size_t len, char *err, size_t errlen);
/* Writes t (must be compact, C-order) to path via a temporary file + rename;
 * returns 0 or -1 with a message in err. */
int tvs_npy_save(const char *path, const DLTensor *t, char *err, size_t errlen);

/* Helpers shared with the .npz reader and writer (runtime/npz.c). */
/* Formats a message into err[0..errlen) (nothing when err is NULL). */
void tvs_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define TVS_NPY_HEADER_MAX 522
/* Writes the .npy preamble and header of t (what tvs_npy_save writes before
 * the data) into out[0..TVS_NPY_HEADER_MAX) and sets *nbytes to the data
 * size; returns the header length, or 0 with a message in err. */
size_t tvs_npy_header(const DLTensor *t, unsigned char *out, size_t *nbytes, char *err,
                      size_t errlen);
#endif
