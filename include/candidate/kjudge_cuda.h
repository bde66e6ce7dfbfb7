/*
 * The header every CUDA-track candidate may include: the runtime API, the
 * 16-bit float types (__half, __nv_bfloat16), the 8-bit __nv_fp8_e4m3
 * (<cuda_fp8.h>; its float constructor saturates to +-448 where the judge's
 * cast, as PyTorch's, gives NaN) and fixed-width integers, i.e.
 * everything the generated prototype names.  The candidate's cache key covers
 * this file, so a change here rebuilds every CUDA candidate.
 */
#ifndef KJUDGE_CUDA_H
#define KJUDGE_CUDA_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

#endif
