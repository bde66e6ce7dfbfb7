/*
 * The GPU API of include/kjudge/gpu.h in a build without CUDA (no nvcc, or
 * the fuzzer build): every call says so, and kj_gpu_available() is 0, so the
 * CPU track works and the CUDA track reports "not built" instead of failing
 * to link.
 */
#include "kjudge/gpu.h"

#ifndef KJ_HAVE_CUDA

#define NOT_BUILT(err) kj_err_set((err), KJ_E_UNSUPPORTED, "this kjudge was built without CUDA (nvcc was not found at build time)")

int kj_gpu_available(void) { return 0; }
int kj_gpu_open(int device, kj_gpu **out, struct kj_err *err) { (void)device; *out = NULL; return NOT_BUILT(err); }
void kj_gpu_close(kj_gpu *g) { (void)g; }
const kj_gpu_info *kj_gpu_get_info(const kj_gpu *g) { (void)g; return NULL; }
void kj_gpu_on_close(kj_gpu *g, void (*fn)(kj_gpu *g, void *ctx), void *ctx) { (void)g; (void)fn; (void)ctx; }
int kj_gpu_mem_info(kj_gpu *g, size_t *free_bytes, size_t *total_bytes, struct kj_err *err) { (void)g; *free_bytes = *total_bytes = 0; return NOT_BUILT(err); }
int kj_gpu_alloc(kj_gpu *g, size_t bytes, void **dptr, struct kj_err *err) { (void)g; (void)bytes; *dptr = NULL; return NOT_BUILT(err); }
void kj_gpu_free(kj_gpu *g, void *dptr) { (void)g; (void)dptr; }
int kj_gpu_copy(kj_gpu *g, void *dst, const void *src, size_t bytes, int dir, struct kj_err *err) { (void)g; (void)dst; (void)src; (void)bytes; (void)dir; return NOT_BUILT(err); }
int kj_gpu_copy_d2d_async(kj_gpu *g, void *dst, const void *src, size_t bytes, struct kj_err *err) { (void)g; (void)dst; (void)src; (void)bytes; return NOT_BUILT(err); }
int kj_gpu_ipc_handle(kj_gpu *g, void *dptr, unsigned char handle[64], struct kj_err *err) { (void)g; (void)dptr; (void)handle; return NOT_BUILT(err); }
int kj_gpu_sync(kj_gpu *g, struct kj_err *err) { (void)g; return NOT_BUILT(err); }
int kj_gpu_gen(kj_gpu *g, void *dptr, kj_dtype t, size_t n, const kj_dist *d, const kj_outliers *outl, uint64_t seed, uint32_t tensor_id, struct kj_err *err) { (void)g; (void)dptr; (void)t; (void)n; (void)d; (void)outl; (void)seed; (void)tensor_id; return NOT_BUILT(err); }
int kj_gpu_gen_fast(kj_gpu *g, void *dptr, kj_dtype t, size_t n, const kj_dist *d, uint64_t seed, uint32_t tensor_id, struct kj_err *err) { (void)g; (void)dptr; (void)t; (void)n; (void)d; (void)seed; (void)tensor_id; return NOT_BUILT(err); }
int kj_gpu_convert(kj_gpu *g, const void *src, kj_dtype st, void *dst, kj_dtype dt, size_t n, struct kj_err *err) { (void)g; (void)src; (void)st; (void)dst; (void)dt; (void)n; return NOT_BUILT(err); }
int kj_gpu_fill_sentinel(kj_gpu *g, void *dptr, kj_dtype t, size_t n, struct kj_err *err) { (void)g; (void)dptr; (void)t; (void)n; return NOT_BUILT(err); }
int kj_gpu_equal(kj_gpu *g, const void *a, const void *b, size_t bytes, int64_t *first_diff, struct kj_err *err) { (void)g; (void)a; (void)b; (void)bytes; *first_diff = -1; return NOT_BUILT(err); }
int kj_gpu_compare(kj_gpu *g, kj_dtype t, const void *got, const double *ref, size_t n, double atol, double rtol, kj_gpu_cmp *out, struct kj_err *err) { (void)g; (void)t; (void)got; (void)ref; (void)n; (void)atol; (void)rtol; (void)out; return NOT_BUILT(err); }
int kj_gpu_exec_init(kj_gpu *g, const kj_plan *p, int reference, kj_gpu_exec **out, struct kj_err *err) { (void)g; (void)p; (void)reference; *out = NULL; return NOT_BUILT(err); }
void *kj_gpu_exec_buf(kj_gpu_exec *x, int value) { (void)x; (void)value; return NULL; }
int kj_gpu_exec_rebind(kj_gpu_exec *x, int value, void *ptr) { (void)x; (void)value; (void)ptr; return -1; }
int kj_gpu_exec_run(kj_gpu_exec *x, struct kj_err *err) { (void)x; return NOT_BUILT(err); }
int kj_gpu_exec_profile(kj_gpu_exec *x, int flush, double *node_ms, struct kj_err *err) { (void)x; (void)flush; (void)node_ms; return NOT_BUILT(err); }
void kj_gpu_exec_free(kj_gpu_exec *x) { (void)x; }
int kj_gpu_has_op(const char *name) { (void)name; return 0; }
const char *kj_gpu_sdpa_path(const kj_gpu *g) { (void)g; return ""; }
int kj_gpu_l2_flush(kj_gpu *g, struct kj_err *err) { (void)g; return NOT_BUILT(err); }
int kj_gpu_time_exec(kj_gpu *g, kj_gpu_exec *x, int flush, double *ms, struct kj_err *err) { (void)g; (void)x; (void)flush; *ms = 0; return NOT_BUILT(err); }
int kj_gpu_time_train(kj_gpu *g, kj_gpu_exec *x, int reps, int nvals, const int *vals, char *base, size_t stride, const uint64_t *off, double *ms, struct kj_err *err) { (void)g; (void)x; (void)reps; (void)nvals; (void)vals; (void)base; (void)stride; (void)off; *ms = 0; return NOT_BUILT(err); }
int kj_gpu_calibrate(kj_gpu *g, kj_calib *out, struct kj_err *err) { (void)g; (void)out; return NOT_BUILT(err); }

#endif
