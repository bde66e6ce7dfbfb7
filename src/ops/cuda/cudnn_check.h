/*
 * KJ_CUDNN_CHECK, shared by the cuDNN users of src/ops/cuda/ (ops_conv.cu,
 * ops_attn_cudnn.cu): a failed cuDNN call becomes a struct kj_err naming the
 * call and cudnnGetErrorString (the status in err->vendor_status), and the
 * enclosing function returns that KJ_E_CUDA code.  Never included from C.
 */
#ifndef KJ_CUDNN_CHECK_H
#define KJ_CUDNN_CHECK_H

#include <cudnn.h>

#define KJ_CUDNN_CHECK(err, call)                                                            \
	do {                                                                                 \
		cudnnStatus_t kj_s_ = (call);                                                \
		if (kj_s_ != CUDNN_STATUS_SUCCESS) {                                         \
			int kj_rc_ = kj_err_set((err), KJ_E_CUDA, "%s failed: %s", #call,           \
						cudnnGetErrorString(kj_s_));                 \
			if (err)                                                             \
				(err)->vendor_status = (int)kj_s_;                           \
			return kj_rc_;                                                       \
		}                                                                            \
	} while (0)

#endif
