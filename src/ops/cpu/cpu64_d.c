/*
 * The fp64 oracle of table D: the kernels of misc_impl.h with every value
 * and intermediate in double.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/table_d.h"

#define real double
#define KJ_FN(name) kj_cpu64_##name
#define KJ_SQRT sqrt
#define KJ_EXP exp
#define KJ_LOG log
#define KJ_POW pow
#define KJ_FABS fabs

#include "ops/cpu/misc_impl.h"
