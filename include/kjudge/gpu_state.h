/*
 * The state of a GPU that decides what its timings mean: driver, clocks
 * (current, maximum, application), power limit and draw, temperature and
 * its slowdown threshold, ECC, MIG, persistence, and the reasons the
 * clocks are held down.  Read through NVML, loaded at run time
 * (libnvidia-ml.so.1, which the driver installs; KJ_NVML_LIB names another
 * file), so a build without the driver links and says "unsupported".
 * A run or a verdict reads it at its start and its end; kj_gpu_state_drift
 * says whether the two differ beyond the stated bounds.  Uses only libc and
 * dlopen.
 */
#ifndef KJUDGE_GPU_STATE_H
#define KJUDGE_GPU_STATE_H

#include <stddef.h>

#include "kjudge/err.h"

/* Every int field is -1 where NVML could not say (an older driver, a
 * field the device does not have). */
typedef struct kj_gpu_state {
	char uuid[48];          /* "GPU-..." as asked for */
	char driver[48];        /* "580.159.04" */
	int sm_mhz, mem_mhz;    /* current clocks */
	int sm_max_mhz, mem_max_mhz;
	int app_sm_mhz, app_mem_mhz; /* application clocks (what a loaded SM runs at when not held down) */
	int power_limit_w;      /* enforced */
	int power_w;            /* drawn now */
	int temp_c, temp_slowdown_c;
	int ecc, mig, persistence; /* 1 on, 0 off */
	long long reasons;      /* clocks-event reasons (KJ_GPU_REASON_*), -1 unknown */
	double at;              /* when it was read, seconds since the epoch */
} kj_gpu_state;

/* NVML's clocks-event reason bits */
#define KJ_GPU_REASON_IDLE 0x1ull
#define KJ_GPU_REASON_APP_CLOCKS 0x2ull
#define KJ_GPU_REASON_SW_POWER_CAP 0x4ull
#define KJ_GPU_REASON_HW_SLOWDOWN 0x8ull
#define KJ_GPU_REASON_SYNC_BOOST 0x10ull
#define KJ_GPU_REASON_SW_THERMAL 0x20ull
#define KJ_GPU_REASON_HW_THERMAL 0x40ull
#define KJ_GPU_REASON_HW_POWER_BRAKE 0x80ull
#define KJ_GPU_REASON_DISPLAY_CLOCKS 0x100ull
/* the reasons that mean the clocks were cut below what the settings allow
 * (a power cap under load is ordinary and not among them) */
#define KJ_GPU_REASONS_SLOWDOWN \
	(KJ_GPU_REASON_HW_SLOWDOWN | KJ_GPU_REASON_SW_THERMAL | KJ_GPU_REASON_HW_THERMAL | \
	 KJ_GPU_REASON_HW_POWER_BRAKE)
/* within this many degrees of the slowdown threshold is drift */
#define KJ_GPU_TEMP_MARGIN_C 5

/* Reads the state of the GPU with this UUID.  KJ_E_UNSUPPORTED when NVML
 * cannot be loaded, KJ_E_NOTFOUND when it has no such GPU. */
int kj_gpu_state_read(const char *uuid, kj_gpu_state *st, struct kj_err *err);

/* The reason bits as words ("sw_power_cap,hw_thermal"), "none" for 0,
 * "unknown" for -1. */
void kj_gpu_state_reasons(long long reasons, char *out, size_t len);

/* 1 when the state from `start` to `end` drifted: a setting changed
 * (driver, power limit, application clocks, ECC, MIG), or at either end the
 * clocks were cut for heat or a hardware slowdown (KJ_GPU_REASONS_SLOWDOWN),
 * or the temperature came within KJ_GPU_TEMP_MARGIN_C of its slowdown
 * threshold; `why` (may be NULL) then says which.  0 and "" otherwise.
 * `start` may be NULL (one reading). */
int kj_gpu_state_drift(const kj_gpu_state *start, const kj_gpu_state *end, char *why, size_t len);

/* The state as one JSON object (NUL-terminated); the length it needed. */
size_t kj_gpu_state_json(const kj_gpu_state *st, char *out, size_t len);

#endif
