/*
 * The f32 eager baseline of the CPU track for the second op table: the
 * kernels of the impl headers compiled with float values and float accumulators,
 * as a CPU framework computes an f32 graph one op at a time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_b.h"

#define real float
#define KJ_FN(name) kj_cpu32_##name
#define KJ_SQRT sqrtf
#define KJ_EXP expf
#define KJ_LOG logf

#include "ops/cpu/linalg_impl.h"
#include "ops/cpu/shape_impl.h"
#include "ops/cpu/norm_impl.h"
#include "ops/cpu/loss_impl.h"
