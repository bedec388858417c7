/* dtype.h - scalar and vector data types (TVM's DataType / DLPack's DLDataType).
 *
 * A DType is a small value: a type code, the bits of one lane, and the lane
 * count.  `bool` is its own code with 1 bit (TVM spells it "bool"; DLPack
 * stores it as kDLBool/uint8 in memory).  The string forms match TVMScript:
 * "float32", "int64", "float32x8", "bool", "handle", "" (void). */
#ifndef TVS_IR_DTYPE_H
#define TVS_IR_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum DTypeCode {
  DT_INT = 0,     /* two's complement signed */
  DT_UINT = 1,    /* unsigned */
  DT_FLOAT = 2,   /* IEEE binary16/32/64 */
  DT_HANDLE = 3,  /* opaque pointer (T.handle, Buffer.data) */
  DT_BFLOAT = 4,  /* bfloat16 */
  DT_BOOL = 5,    /* 1-bit boolean, stored as one byte */
  DT_VOID = 6     /* no value (Evaluate of a void call, T.handle-less returns) */
} DTypeCode;

typedef struct DType {
  uint8_t code;   /* a DTypeCode */
  uint8_t bits;   /* bits of one lane: 1, 8, 16, 32, 64 */
  uint16_t lanes; /* vector lanes; 1 for scalars */
} DType;

#define DTYPE(c, b) ((DType){(uint8_t)(c), (uint8_t)(b), 1})
extern const DType dt_bool, dt_int8, dt_int16, dt_int32, dt_int64, dt_uint8, dt_uint16,
    dt_uint32, dt_uint64, dt_float16, dt_bfloat16, dt_float32, dt_float64, dt_handle, dt_void;

static inline bool dt_eq(DType a, DType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
static inline bool dt_is_int(DType t) { return t.code == DT_INT; }
static inline bool dt_is_uint(DType t) { return t.code == DT_UINT; }
/* int or uint (not bool) */
static inline bool dt_is_integer(DType t) { return t.code == DT_INT || t.code == DT_UINT; }
static inline bool dt_is_float(DType t) { return t.code == DT_FLOAT || t.code == DT_BFLOAT; }
static inline bool dt_is_bool(DType t) { return t.code == DT_BOOL; }
static inline bool dt_is_handle(DType t) { return t.code == DT_HANDLE; }
static inline bool dt_is_void(DType t) { return t.code == DT_VOID; }
static inline DType dt_with_lanes(DType t, int lanes) { t.lanes = (uint16_t)lanes; return t; }
static inline DType dt_element(DType t) { t.lanes = 1; return t; }
/* Bytes one element occupies in memory (bool: 1). */
size_t dt_bytes(DType t);

/* Parses "float32", "int8", "float32x4", "bool", "handle", "" / "void";
 * returns false for anything else. */
bool dt_parse(const char *s, DType *out);
/* Writes the canonical name into buf (at least 24 bytes); returns buf. */
const char *dt_str(DType t, char *buf);
#define DT_STR_MAX 24

/* x rounded to a binary format with p significant bits (implicit bit
 * included), minimum normal exponent emin and maximum exponent emax, to
 * nearest even; subnormals, overflow to infinity, NaN and signed zero kept. */
double dt_round_format(double x, int p, int emin, int emax);
/* x rounded to float dtype t's format (float16, bfloat16, float32; float64
 * unchanged): the one rounding the constant folder and the interpreter share. */
double dt_round_float(DType t, double x);
/* Integer v of dtype from (int: signed, uint: the bits unsigned) as a double
 * that rounds correctly to any float format of at most 51 significant bits:
 * magnitudes beyond 2^53 keep a sticky low bit, so int -> double -> narrow
 * float does not round twice.  Shared by the constant folder and interpreter. */
double dt_int_to_double(DType from, int64_t v);

#endif
