/*
 * The f32 eager baseline of the CPU track for table F: the kernels of linalg2_impl.h with
 * float values and float accumulators.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/table_f.h"

#define real float
#define KJ_FN(name) kj_cpu32_##name
#define KJ_SQRT sqrtf

#define KJ_GS_COORD kjf_gs_coord_f

#include "ops/cpu/linalg2_impl.h"
