/*
 * The table of CUDA op implementations, looked up by op name by the GPU
 * executor (exec.cu).  Every op of the registry (kj_ops_a, kj_ops_b) has an
 * entry; bmm shares matmul's, as it does on the CPU.  Ops whose failure
 * depends on the data also have a check that the executor runs after them.
 */
#include "ops/cuda/ops_common.cuh"

#define KJ_CUDA_OP_ENTRY(name) {#name, kj_cuda_##name},

static const struct kj_cuda_op kj_cuda_ops[] = {
	KJ_CUDA_OPS(KJ_CUDA_OP_ENTRY)
	{"bmm", kj_cuda_matmul},
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
	return NULL;
}
