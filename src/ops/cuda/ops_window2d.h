/*
 * Direct 2-D sliding-window kernels of the float baseline (ops_window2d.cu):
 * depthwise convolution (groups == in_channels, out_channels a multiple of
 * it), max pooling and average pooling over NCHW planes, f32, f16 and bf16,
 * any kernel size, stride, padding and dilation the task language gives.
 * They replace cuDNN where cuDNN's general algorithms move the planes
 * through DRAM more than once (PyTorch too runs its own direct kernels
 * for these ops).  ops_conv.cu calls kj_window2d before cuDNN; the
 * reference (double buffers) keeps its own kernels there.
 */
#ifndef KJ_OPS_WINDOW2D_H
#define KJ_OPS_WINDOW2D_H

#include "ops/cuda/gpu_internal.h"

extern "C" {
#include "ops/table_c.h"
}

/* Runs the node of geometry ge (kind KJC_CONV, KJC_MAXPOOL or KJC_AVGPOOL)
 * with the direct kernel when it applies: a float dtype, two spatial dims,
 * a conv that is depthwise (with a channel multiplier) with at most 256
 * taps, an output plane of at least 1024 elements, 32-bit offsets within a
 * plane and an input tile within 48 KB of shared memory.  x, y are the
 * input and output, w and b (may be NULL) the conv's weight [C*m, 1, kh,
 * kw] and bias [C*m]; both NULL for pools.  Sets *handled to 0 and returns
 * 0 without launching anything when it does not apply; else *handled = 1
 * and 0, or KJ_E_CUDA with err set when the launch failed.  Nothing is
 * allocated. */
int kj_window2d(kj_gpu *g, const kjc_geom *ge, kj_dtype dt, const void *x, const void *w,
		const void *b, void *y, int *handled, struct kj_err *err);

#endif
