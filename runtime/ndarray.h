/* ndarray.h - host tensors as DLPack DLTensors.
 *
 * TvsNDArray wraps a DLTensor whose data the runtime allocated (64-byte
 * aligned) together with its shape storage, so one free releases everything.
 * Part of libtvs_runtime: depends on nothing in the compiler. */
#ifndef TVS_RUNTIME_NDARRAY_H
#define TVS_RUNTIME_NDARRAY_H

#include <dlpack/dlpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TVS_ALLOC_ALIGN 64

/* Bool tensors are {kDLBool, 8, 1}: one byte (0 or 1) per element.  The
 * installed DLPack (0.6) predates kDLBool; 6 is its value from DLPack 0.8 on. */
#if !defined(DLPACK_VERSION) || DLPACK_VERSION < 80
#define kDLBool 6
#endif

typedef struct TvsNDArray {
  DLTensor t;         /* data, device (kDLCPU), ndim, dtype, shape; strides NULL (compact) */
  int64_t shape[8];   /* storage for t.shape (ndim <= 8) */
} TvsNDArray;

#define TVS_MAX_NDIM 8

/* Zero-filled array; returns NULL when ndim > TVS_MAX_NDIM, a dim is negative,
 * or the size overflows. */
TvsNDArray *tvs_ndarray_empty(int ndim, const int64_t *shape, DLDataType dtype);
void tvs_ndarray_free(TvsNDArray *a);
int64_t tvs_ndarray_numel(const DLTensor *t);
size_t tvs_ndarray_nbytes(const DLTensor *t);
/* Bytes of one element (bool: 1). */
size_t tvs_dtype_bytes(DLDataType t);
/* "float32", "int8", "bool", ... into buf (>= 24 bytes). */
const char *tvs_dtype_str(DLDataType t, char *buf);
bool tvs_dtype_parse(const char *s, DLDataType *out);

/* Element i (row-major) of a compact tensor, converted to double (float16 and
 * bfloat16 decoded exactly; bool as 0/1). */
double tvs_ndarray_get_f64(const DLTensor *t, int64_t i);
/* Fills t with seeded pseudo-random values (splitmix64 on *rng_state): floats
 * uniform in [-1, 1), float16 from a few exactly representable values, ints in
 * [-5, 5], unsigned in [0, 10], bools 0/1.  Same seed, same values. */
void tvs_ndarray_fill_random(DLTensor *t, uint64_t *rng_state);

#endif
