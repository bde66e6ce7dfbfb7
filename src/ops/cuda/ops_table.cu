/*
 * The table of CUDA op implementations, looked up by op name by the GPU
 * executor (exec.cu).  Every op of the registry (kj_ops_a, kj_ops_b) has an
 * entry; bmm shares matmul's, as it does on the CPU.  Ops whose failure
 * depends on the data also have a check that the executor runs after them.
 */
#include "ops/cuda/ops_common.cuh"

#define KJ_CUDA_OP_ENTRY(name) {#name, kj_cuda_##name},

/* table C (ops_conv.cu): one function per family, every spatial rank */
KJ_CUDA_OP_DECL(conv) KJ_CUDA_OP_DECL(conv_transpose) KJ_CUDA_OP_DECL(max_pool)
KJ_CUDA_OP_DECL(avg_pool) KJ_CUDA_OP_DECL(adaptive_avg_pool)

/* table D (ops_attn.cu, ops_index.cu, ops_scan.cu: cumprod, ops_norm.cu, ops_loss.cu) */
#define KJ_CUDA_OPS_D(X) \
	X(sdpa) X(embedding) X(cat) X(narrow) X(pad) X(flip) X(where) X(masked_fill) X(triu) \
	X(tril) X(cumprod) X(batch_norm) X(group_norm) X(instance_norm) X(norm) X(normalize) \
	X(cosine_similarity) X(kl_div) X(hinge_embedding_loss) X(huber_loss) X(smooth_l1_loss) \
	X(triplet_margin_loss)
KJ_CUDA_OPS_D(KJ_CUDA_OP_DECL)
/* table E (ops_random.cu: rand_like, randn_like; ops_elementwise.cu: the comparisons) */
#define KJ_CUDA_OPS_E(X) X(rand_like) X(randn_like) X(less) X(less_equal) X(greater) \
	X(greater_equal)
KJ_CUDA_OPS_E(KJ_CUDA_OP_DECL)
/* table F (ops_linalg.cu: solve_triangular, cholesky; ops_resample.cu: interpolate,
 * grid_sample) */
#define KJ_CUDA_OPS_F(X) X(linalg_solve_triangular) X(linalg_cholesky) X(interpolate) \
	X(grid_sample)
KJ_CUDA_OPS_F(KJ_CUDA_OP_DECL)
int kj_cuda_embedding_check(kj_gpu *g, const kj_bnode *n, const void *const *in, int reference,
			    char *msg, size_t msglen, struct kj_err *err);

static const struct kj_cuda_op kj_cuda_ops[] = {
	KJ_CUDA_OPS(KJ_CUDA_OP_ENTRY)
	{"bmm", kj_cuda_matmul},
	KJ_CUDA_OPS_D(KJ_CUDA_OP_ENTRY)
	KJ_CUDA_OPS_E(KJ_CUDA_OP_ENTRY)
	KJ_CUDA_OPS_F(KJ_CUDA_OP_ENTRY)
	{"scaled_dot_product_attention", kj_cuda_sdpa},
	{"conv1d", kj_cuda_conv}, {"conv2d", kj_cuda_conv}, {"conv3d", kj_cuda_conv},
	{"conv_transpose1d", kj_cuda_conv_transpose}, {"conv_transpose2d", kj_cuda_conv_transpose},
	{"conv_transpose3d", kj_cuda_conv_transpose},
	{"max_pool1d", kj_cuda_max_pool}, {"max_pool2d", kj_cuda_max_pool},
	{"max_pool3d", kj_cuda_max_pool},
	{"avg_pool1d", kj_cuda_avg_pool}, {"avg_pool2d", kj_cuda_avg_pool},
	{"avg_pool3d", kj_cuda_avg_pool},
	{"adaptive_avg_pool1d", kj_cuda_adaptive_avg_pool},
	{"adaptive_avg_pool2d", kj_cuda_adaptive_avg_pool},
	{"adaptive_avg_pool3d", kj_cuda_adaptive_avg_pool},
};

kj_cuda_op_fn kj_cuda_op_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(kj_cuda_ops) / sizeof(kj_cuda_ops[0]); i++)
		if (strcmp(kj_cuda_ops[i].name, name) == 0)
			return kj_cuda_ops[i].fn;
	return NULL;
}

kj_cuda_check_fn kj_cuda_op_find_check(const char *name)
{
	if (name && strcmp(name, "cross_entropy") == 0)
		return kj_cuda_cross_entropy_check;
	if (name && strcmp(name, "embedding") == 0)
		return kj_cuda_embedding_check;
	return NULL;
}
