/*
 * The fp64 oracle for table F: the kernels of linalg2_impl.h with
 * every value and intermediate in double.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/table_f.h"

#define real double
#define KJ_FN(name) kj_cpu64_##name
#define KJ_SQRT sqrt

#define KJ_GS_COORD kjf_gs_coord_d

#include "ops/cpu/linalg2_impl.h"
