/*
 * The fp64 oracle of table E: the kernels of random_impl.h with
 * double values.
 */
#include <math.h>
#include <stdint.h>

#include "ops/table_e.h"

#define real double
#define KJ_FN(name) kj_cpu64_##name
#define KJ_SQRT sqrt
#define KJ_LOG log
#define KJ_COS cos
#define KJ_SIN sin
#define KJ_TWO_PI 6.283185307179586

#include "ops/cpu/random_impl.h"
