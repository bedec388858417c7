/* fp16_rt.c - float <-> binary16 helpers for JIT code on CPUs without F16C.
 *
 * LLVM lowers `half` conversions to libcalls (__gnu_h2f_ieee/__gnu_f2h_ieee,
 * __extendhfsf2/__truncsfhf2) when the target lacks F16C; the JIT resolves
 * those names to these functions (round to nearest even, NaN stays NaN). */
#include <stdint.h>
#include <string.h>

#include "codegen/cg_internal.h"

float cg_rt_h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 31, m = h & 1023, bits;
  if (e == 31) {
    bits = sign | 0x7f800000u | (m << 13);
  } else if (e == 0) {
    if (!m) {
      bits = sign;
    } else { /* subnormal: normalize */
      int sh = 0;
      while (!(m & 0x400)) {
        m <<= 1;
        sh++;
      }
      bits = sign | ((uint32_t)(113 - sh) << 23) | ((m & 1023) << 13);
    }
  } else {
    bits = sign | ((e + 112) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint16_t cg_rt_f2h(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
  int32_t exp = (int32_t)((bits >> 23) & 0xff);
  uint32_t mant = bits & 0x7fffff;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 | (mant >> 13) : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return sign;
    uint32_t m = mant | 0x800000;
    unsigned shift = (unsigned)(14 - e);
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
  return (uint16_t)(sign | r);
}
