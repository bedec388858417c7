/* npz.h - reading and writing NumPy .npz parameter files.
 *
 * A .npz is a ZIP archive whose members are NAME.npy files (runtime/npy.h),
 * as np.savez (stored) and np.savez_compressed (deflate) write it; np.load
 * gives the member NAME.npy under the key NAME.  We read stored and deflated
 * members, ZIP64 archives and ZIP64 extra fields (numpy writes them in every
 * local header), and check each member's CRC-32.  We write stored members
 * (ZIP64 where a size or offset needs it, UTF-8 flagged names) via a
 * temporary file + rename, so np.load reads the result.  Names are returned
 * as their bytes in the archive (UTF-8 for numpy's archives).
 *
 * Malformed archives are rejected with a message naming the problem (and the
 * file, for tvs_npz_load), never a crash or an out-of-bounds read: a missing
 * end-of-central-directory record (truncated or not a ZIP archive), bad
 * signatures, records running past the end, encrypted or multi-disk
 * archives, compression methods other than stored/deflate, CRC mismatches,
 * members that are not .npy files (or whose .npy does not parse), names with
 * path components, and duplicate names. */
#ifndef TVS_RUNTIME_NPZ_H
#define TVS_RUNTIME_NPZ_H

#include "runtime/ndarray.h"

typedef struct TvsNpzEntry {
  char *name;         /* the member name without ".npy" (np.load's key) */
  TvsNDArray *array;  /* owned */
} TvsNpzEntry;

typedef struct TvsNpz {
  int count;
  TvsNpzEntry *entries;  /* in archive (central directory) order */
} TvsNpz;

/* Loads path; on failure returns NULL and writes "path: problem" (no
 * trailing newline) into err[0..errlen). */
TvsNpz *tvs_npz_load(const char *path, char *err, size_t errlen);
/* Parses an in-memory .npz image (fuzzing, tests); messages without a path. */
TvsNpz *tvs_npz_parse(const unsigned char *data, size_t len, char *err, size_t errlen);
/* The array stored under name (without ".npy"), or NULL. */
TvsNDArray *tvs_npz_find(const TvsNpz *z, const char *name);
void tvs_npz_free(TvsNpz *z);

/* Writes count tensors (compact, host memory, dtypes .npy can hold) under
 * names[i] (np.load's keys: non-empty, no '/' or '\\', not "." or "..",
 * distinct) to path via a temporary file + rename; returns 0 or -1 with a
 * message in err. */
int tvs_npz_save(const char *path, int count, const char *const *names,
                 const DLTensor *const *tensors, char *err, size_t errlen);

/* Testing only: sizes and offsets at or above limit are written as ZIP64
 * (default and limit 0 mean 0xFFFFFFFF, the format's own limit). */
void tvs_npz_set_zip64_limit(uint64_t limit);

#endif
