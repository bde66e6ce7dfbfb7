/*
 * The fp64 oracle of table A: the kernels of elementwise_impl.h and
 * reduce_impl.h with real = double, every intermediate in double.
 */
#include <math.h>

#include "ops/op_util.h"

#define real double
#define KJ_FN(name) kj_cpu64_##name
#define RM(fn) fn
#define RC(x) ((double)(x))

#include "elementwise_impl.h"
#include "reduce_impl.h"
