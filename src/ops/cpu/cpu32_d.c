/*
 * The f32 eager baseline of the CPU track for table D: the kernels of
 * misc_impl.h with float values and float accumulators.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/table_d.h"

#define real float
#define KJ_FN(name) kj_cpu32_##name
#define KJ_SQRT sqrtf
#define KJ_EXP expf
#define KJ_LOG logf
#define KJ_POW powf
#define KJ_FABS fabsf

#include "ops/cpu/misc_impl.h"
