/*
 * The f32 CPU-track baseline of table A: the same kernels as cpu64_a.c with
 * real = float, float accumulators and the float libm functions.
 */
#include <math.h>

#include "ops/op_util.h"

#define real float
#define KJ_FN(name) kj_cpu32_##name
#define RM(fn) fn##f
#define RC(x) ((float)(x))

#include "elementwise_impl.h"
#include "reduce_impl.h"
