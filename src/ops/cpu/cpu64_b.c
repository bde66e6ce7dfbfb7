/*
 * The fp64 oracle of the second op table: the kernels of the impl headers compiled
 * with every value and intermediate in double.  These are the truth the
 * judge compares against; they favour plain loops over speed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_b.h"

#define real double
#define KJ_FN(name) kj_cpu64_##name
#define KJ_SQRT sqrt
#define KJ_EXP exp
#define KJ_LOG log

#include "ops/cpu/linalg_impl.h"
#include "ops/cpu/shape_impl.h"
#include "ops/cpu/norm_impl.h"
#include "ops/cpu/loss_impl.h"
