/* host_cpu.c - the host's ISA from cpuid (GCC's __builtin_cpu_supports). */
#include "base/host_cpu.h"

bool host_cpu_has_avx512(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}
