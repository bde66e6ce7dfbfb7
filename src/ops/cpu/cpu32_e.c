/*
 * The f32 eager baseline of the CPU track of table E: the kernels of random_impl.h with
 * float values.
 */
#include <math.h>
#include <stdint.h>

#include "ops/table_e.h"

#define real float
#define KJ_FN(name) kj_cpu32_##name
#define KJ_SQRT sqrtf
#define KJ_LOG logf
#define KJ_COS cosf
#define KJ_SIN sinf
#define KJ_TWO_PI 6.28318548f

#include "ops/cpu/random_impl.h"
