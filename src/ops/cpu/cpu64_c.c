/*
 * The fp64 oracle of the third op table (convolution and pooling): the
 * kernels of conv_impl.h compiled with every value and sum in double.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/table_c.h"

#define real double
#define KJ_FN(name) kj_cpu64_##name

#include "ops/cpu/conv_impl.h"
