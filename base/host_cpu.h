/* host_cpu.h - facts about the CPU this process runs on, for rules that size
 * code for it (default schedules, layouts, the tuner's analytic candidate). */
#ifndef TVS_BASE_HOST_CPU_H
#define TVS_BASE_HOST_CPU_H

#include <stdbool.h>

/* Whether the host has AVX-512F (32 vector registers of 16 floats). */
bool host_cpu_has_avx512(void);

#endif
