/*
 * The f32 eager baseline of the CPU track for the third op table
 * (convolution and pooling): the kernels of conv_impl.h compiled with float
 * values and float accumulators, one op at a time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/table_c.h"

#define real float
#define KJ_FN(name) kj_cpu32_##name

#include "ops/cpu/conv_impl.h"
