/*
 * The judge <-> kjudge-worker protocol: fixed-size structs, one per
 * SOCK_SEQPACKET message, on the socket that the worker finds as fd 3.  Both
 * ends run on one host, so fields are in host order, which kjudge requires to
 * be little-endian.  Every message starts with a type and a sequence number;
 * a reply echoes the request's number, and its size must equal
 * kj_wire_size(type) exactly, so a short, long or stray message is a protocol
 * error.  ARENA carries the arena's memfd as SCM_RIGHTS ancillary data;
 * ARENA_CUDA carries a cudaIpcMemHandle_t instead (the CUDA track).
 * docs/worker-protocol.md describes the exchange; this header is included by
 * both src/sandbox/worker_client.c and src/worker/worker.c, nothing else.
 */
#ifndef KJUDGE_WIRE_H
#define KJUDGE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the kjudge worker protocol assumes a little-endian host"
#endif

#define KJ_WIRE_VERSION 5
#define KJ_WIRE_FD 3          /* the protocol socket's number in the worker */
/* Level-3 tasks pass every weight as a pointer argument: 64 tensors and 32
 * dims cover a small architecture (CALL is then 800 bytes). */
#define KJ_WIRE_MAX_PTR 64
#define KJ_WIRE_MAX_DIM 32
#define KJ_WIRE_PATH_MAX 4096 /* including the NUL */
#define KJ_WIRE_SYM_MAX 256   /* including the NUL */
#define KJ_WIRE_TEXT_MAX 480  /* ERROR text, including the NUL */
#define KJ_WIRE_IPC_HANDLE 64 /* sizeof(cudaIpcMemHandle_t) */
/* The L2 flush before a timed call is the judge's (from its own context), so
 * CALL carries no flags any more; the field stays zero. */

enum kj_wire_type {
	/* worker -> judge, once, unsolicited, seq 0 */
	KJ_WIRE_HELLO = 1,
	/* judge -> worker requests */
	KJ_WIRE_LOAD = 2,
	KJ_WIRE_ARENA = 3,
	KJ_WIRE_CALL = 4,
	KJ_WIRE_NOP = 5,
	KJ_WIRE_ARENA_CUDA = 6,
	/* before LOAD only: the CUDA context (or the Python framework), and a
	 * CALL (the same message) that goes through the whole call path with
	 * nothing called: the judge's trusted floor for a call on that shape */
	KJ_WIRE_SETUP = 7,
	KJ_WIRE_PROBE = 8,
	/* worker -> judge replies */
	KJ_WIRE_OK = 0x100,
	KJ_WIRE_ERROR = 0x101,
};

struct kj_wire_hdr {
	uint32_t type;
	uint32_t seq;
};

struct kj_wire_hello {
	struct kj_wire_hdr h;
	uint32_t version; /* KJ_WIRE_VERSION */
	uint32_t pid;     /* the worker's getpid() */
};

struct kj_wire_load {
	struct kj_wire_hdr h;
	uint32_t nptr, ndim; /* pointer arguments, then int64 arguments */
	uint32_t cuda;       /* 1: one more pointer argument (the stream) */
	int32_t device;      /* CUDA device ordinal when cuda */
	char path[KJ_WIRE_PATH_MAX];  /* NUL-terminated */
	char symbol[KJ_WIRE_SYM_MAX]; /* NUL-terminated */
};

struct kj_wire_arena {
	struct kj_wire_hdr h;
	uint64_t size; /* bytes; the memfd travels as SCM_RIGHTS (none when 0) */
};

/* A device arena exported by the judge with cudaIpcGetMemHandle; size 0
 * closes the previous one and opens nothing. */
struct kj_wire_arena_cuda {
	struct kj_wire_hdr h;
	uint64_t size;   /* bytes */
	int32_t device;  /* the ordinal the allocation lives on */
	uint32_t pad;
	unsigned char handle[KJ_WIRE_IPC_HANDLE];
};

struct kj_wire_call {
	struct kj_wire_hdr h;
	uint32_t nptr, ndim; /* must match the LOAD */
	uint32_t flags;      /* 0 */
	/* A train (CUDA only): reps calls back to back inside one pair of
	 * events, call r on the arguments off[i] + r * stride; 0 or 1 is one
	 * call (stride unused).  Every offset of every call lies in the arena. */
	uint32_t reps;
	uint64_t stride;
	uint64_t off[KJ_WIRE_MAX_PTR]; /* arena offsets, each < arena size (device arena when cuda) */
	int64_t dims[KJ_WIRE_MAX_DIM];
};

struct kj_wire_nop {
	struct kj_wire_hdr h;
};

struct kj_wire_setup {
	struct kj_wire_hdr h;
	uint32_t cuda;   /* 1: make the CUDA context on device */
	int32_t device;
};


struct kj_wire_ok {
	struct kj_wire_hdr h;
	int64_t worker_ns;  /* the worker's own measurement: informative only */
	int64_t gpu_ns;     /* CUDA events around a CALL on the candidate's stream, else -1 */
	int64_t devsync_ns; /* worker clock, call start to cudaDeviceSynchronize's return, else -1 */
};

struct kj_wire_error {
	struct kj_wire_hdr h;
	int32_t cuda_error; /* cudaError_t; non-zero promises that the worker exits next */
	char text[KJ_WIRE_TEXT_MAX]; /* NUL-terminated */
};

union kj_wire_msg {
	struct kj_wire_hdr h;
	struct kj_wire_hello hello;
	struct kj_wire_load load;
	struct kj_wire_arena arena;
	struct kj_wire_arena_cuda arena_cuda;
	struct kj_wire_call call;
	struct kj_wire_nop nop;
	struct kj_wire_setup setup;
	struct kj_wire_ok ok;
	struct kj_wire_error error;
};

_Static_assert(sizeof(struct kj_wire_hello) == 16, "wire layout");
_Static_assert(sizeof(struct kj_wire_load) == 24 + KJ_WIRE_PATH_MAX + KJ_WIRE_SYM_MAX, "wire layout");
_Static_assert(sizeof(struct kj_wire_arena) == 16, "wire layout");
_Static_assert(sizeof(struct kj_wire_arena_cuda) == 24 + KJ_WIRE_IPC_HANDLE, "wire layout");
_Static_assert(sizeof(struct kj_wire_call) == 32 + 8 * KJ_WIRE_MAX_PTR + 8 * KJ_WIRE_MAX_DIM,
	       "wire layout");
_Static_assert(sizeof(struct kj_wire_ok) == 32, "wire layout");
_Static_assert(sizeof(struct kj_wire_setup) == 16, "wire layout");

_Static_assert(sizeof(struct kj_wire_error) == 12 + KJ_WIRE_TEXT_MAX, "wire layout");

/* The exact size of a message of this type, or 0 for an unknown type. */
static inline size_t kj_wire_size(uint32_t type)
{
	switch (type) {
	case KJ_WIRE_HELLO:
		return sizeof(struct kj_wire_hello);
	case KJ_WIRE_LOAD:
		return sizeof(struct kj_wire_load);
	case KJ_WIRE_ARENA:
		return sizeof(struct kj_wire_arena);
	case KJ_WIRE_CALL:
		return sizeof(struct kj_wire_call);
	case KJ_WIRE_NOP:
		return sizeof(struct kj_wire_nop);
	case KJ_WIRE_ARENA_CUDA:
		return sizeof(struct kj_wire_arena_cuda);
	case KJ_WIRE_SETUP:
		return sizeof(struct kj_wire_setup);
	case KJ_WIRE_PROBE:
		return sizeof(struct kj_wire_call);
	case KJ_WIRE_OK:
		return sizeof(struct kj_wire_ok);
	case KJ_WIRE_ERROR:
		return sizeof(struct kj_wire_error);
	}
	return 0;
}

#endif
