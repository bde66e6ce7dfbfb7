/*
 * kj_gpu_state: a GPU's clocks, power, temperature and settings through NVML
 * (include/kjudge/gpu_state.h).  NVML is loaded with dlopen and its entry
 * points looked up by name: the prototypes below are NVML's documented C
 * API (enums as unsigned int, the device handle as a pointer).  Uses only
 * libc and dlopen.
 */
#include "kjudge/gpu_state.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *nvml_dev;
/* NVML's return codes that change what is said */
#define NVML_OK 0
#define NVML_ERR_NOT_FOUND 6
/* nvmlClockType_t, nvmlTemperatureSensors_t, nvmlTemperatureThresholds_t */
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMP_GPU 0
#define NVML_TEMP_THRESHOLD_SLOWDOWN 1

/* NVML's entry points, loaded once per process (pthread_once); read-only
 * after. */
static struct {
	pthread_once_t once;
	int rc; /* KJ_OK once loaded and initialised */
	char msg[512];
	int (*init)(void);
	const char *(*error_string)(int);
	int (*driver_version)(char *, unsigned);
	int (*by_uuid)(const char *, nvml_dev *);
	int (*clock)(nvml_dev, unsigned, unsigned *);
	int (*max_clock)(nvml_dev, unsigned, unsigned *);
	int (*app_clock)(nvml_dev, unsigned, unsigned *);
	int (*power_limit)(nvml_dev, unsigned *);
	int (*power)(nvml_dev, unsigned *);
	int (*temp)(nvml_dev, unsigned, unsigned *);
	int (*temp_threshold)(nvml_dev, unsigned, unsigned *);
	int (*ecc)(nvml_dev, unsigned *, unsigned *);
	int (*mig)(nvml_dev, unsigned *, unsigned *);
	int (*persistence)(nvml_dev, unsigned *);
	int (*reasons)(nvml_dev, unsigned long long *);
} nv = { .once = PTHREAD_ONCE_INIT };

static void load(void)
{
	const char *lib = getenv("KJ_NVML_LIB");
	void *h;
	int rc;
	if (!lib || !*lib)
		lib = "libnvidia-ml.so.1";
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		nv.rc = KJ_E_UNSUPPORTED;
		snprintf(nv.msg, sizeof(nv.msg), "NVML is not available (%s): the GPU's clocks and temperature "
			 "are not recorded", dlerror());
		return;
	}
	/* the entry points every NVML since CUDA 10's drivers has; the
	 * others are optional and their fields stay -1 without them */
	*(void **)&nv.init = dlsym(h, "nvmlInit_v2");
	*(void **)&nv.error_string = dlsym(h, "nvmlErrorString");
	*(void **)&nv.by_uuid = dlsym(h, "nvmlDeviceGetHandleByUUID");
	*(void **)&nv.driver_version = dlsym(h, "nvmlSystemGetDriverVersion");
	*(void **)&nv.clock = dlsym(h, "nvmlDeviceGetClockInfo");
	*(void **)&nv.max_clock = dlsym(h, "nvmlDeviceGetMaxClockInfo");
	*(void **)&nv.app_clock = dlsym(h, "nvmlDeviceGetApplicationsClock");
	*(void **)&nv.power_limit = dlsym(h, "nvmlDeviceGetEnforcedPowerLimit");
	*(void **)&nv.power = dlsym(h, "nvmlDeviceGetPowerUsage");
	*(void **)&nv.temp = dlsym(h, "nvmlDeviceGetTemperature");
	*(void **)&nv.temp_threshold = dlsym(h, "nvmlDeviceGetTemperatureThreshold");
	*(void **)&nv.ecc = dlsym(h, "nvmlDeviceGetEccMode");
	*(void **)&nv.mig = dlsym(h, "nvmlDeviceGetMigMode");
	*(void **)&nv.persistence = dlsym(h, "nvmlDeviceGetPersistenceMode");
	*(void **)&nv.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!nv.reasons)
		*(void **)&nv.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
	if (!nv.init || !nv.by_uuid) {
		nv.rc = KJ_E_UNSUPPORTED;
		snprintf(nv.msg, sizeof(nv.msg), "%s lacks nvmlInit_v2 or nvmlDeviceGetHandleByUUID", lib);
		return;
	}
	if ((rc = nv.init()) != NVML_OK) {
		nv.rc = KJ_E_UNSUPPORTED;
		snprintf(nv.msg, sizeof(nv.msg), "nvmlInit_v2 failed: %s (NVML %d)",
			 nv.error_string ? nv.error_string(rc) : "?", rc);
		return;
	}
	nv.rc = KJ_OK;
}

/* one unsigned field: -1 where the entry point is missing or fails */
#define GET(fn, ...) ((fn) && (fn)(__VA_ARGS__) == NVML_OK)

int kj_gpu_state_read(const char *uuid, kj_gpu_state *st, struct kj_err *err)
{
	nvml_dev d;
	unsigned u, v;
	unsigned long long r;
	struct timespec ts;
	int rc;
	memset(st, 0, sizeof(*st));
	st->sm_mhz = st->mem_mhz = st->sm_max_mhz = st->mem_max_mhz = -1;
	st->app_sm_mhz = st->app_mem_mhz = st->power_limit_w = st->power_w = -1;
	st->temp_c = st->temp_slowdown_c = st->ecc = st->mig = st->persistence = -1;
	st->reasons = -1;
	snprintf(st->uuid, sizeof(st->uuid), "%s", uuid ? uuid : "");
	clock_gettime(CLOCK_REALTIME, &ts);
	st->at = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	pthread_once(&nv.once, load);
	if (nv.rc)
		return kj_err_set(err, nv.rc, "%s", nv.msg);
	if ((rc = nv.by_uuid(st->uuid, &d)) != NVML_OK)
		return kj_err_set(err, rc == NVML_ERR_NOT_FOUND ? KJ_E_NOTFOUND : KJ_E_UNSUPPORTED,
				  "NVML has no GPU '%s': %s (NVML %d)", st->uuid,
				  nv.error_string ? nv.error_string(rc) : "?", rc);
	if (!GET(nv.driver_version, st->driver, (unsigned)sizeof(st->driver)))
		st->driver[0] = 0;
	if (GET(nv.clock, d, NVML_CLOCK_SM, &u))
		st->sm_mhz = (int)u;
	if (GET(nv.clock, d, NVML_CLOCK_MEM, &u))
		st->mem_mhz = (int)u;
	if (GET(nv.max_clock, d, NVML_CLOCK_SM, &u))
		st->sm_max_mhz = (int)u;
	if (GET(nv.max_clock, d, NVML_CLOCK_MEM, &u))
		st->mem_max_mhz = (int)u;
	if (GET(nv.app_clock, d, NVML_CLOCK_SM, &u))
		st->app_sm_mhz = (int)u;
	if (GET(nv.app_clock, d, NVML_CLOCK_MEM, &u))
		st->app_mem_mhz = (int)u;
	if (GET(nv.power_limit, d, &u)) /* mW */
		st->power_limit_w = (int)((u + 500) / 1000);
	if (GET(nv.power, d, &u))
		st->power_w = (int)((u + 500) / 1000);
	if (GET(nv.temp, d, NVML_TEMP_GPU, &u))
		st->temp_c = (int)u;
	if (GET(nv.temp_threshold, d, NVML_TEMP_THRESHOLD_SLOWDOWN, &u))
		st->temp_slowdown_c = (int)u;
	if (GET(nv.ecc, d, &u, &v))
		st->ecc = u != 0;
	if (GET(nv.mig, d, &u, &v))
		st->mig = u != 0;
	if (GET(nv.persistence, d, &u))
		st->persistence = u != 0;
	if (GET(nv.reasons, d, &r))
		st->reasons = (long long)r;
	return 0;
}

static const struct {
	unsigned long long bit;
	const char *name;
} reason_names[] = {
	{ KJ_GPU_REASON_IDLE, "idle" },
	{ KJ_GPU_REASON_APP_CLOCKS, "app_clocks" },
	{ KJ_GPU_REASON_SW_POWER_CAP, "sw_power_cap" },
	{ KJ_GPU_REASON_HW_SLOWDOWN, "hw_slowdown" },
	{ KJ_GPU_REASON_SYNC_BOOST, "sync_boost" },
	{ KJ_GPU_REASON_SW_THERMAL, "sw_thermal" },
	{ KJ_GPU_REASON_HW_THERMAL, "hw_thermal" },
	{ KJ_GPU_REASON_HW_POWER_BRAKE, "hw_power_brake" },
	{ KJ_GPU_REASON_DISPLAY_CLOCKS, "display_clocks" },
};

void kj_gpu_state_reasons(long long reasons, char *out, size_t len)
{
	size_t off = 0;
	unsigned long long known = 0;
	if (!len)
		return;
	out[0] = 0;
	if (reasons < 0) {
		snprintf(out, len, "unknown");
		return;
	}
	if (!reasons) {
		snprintf(out, len, "none");
		return;
	}
	for (size_t i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++) {
		known |= reason_names[i].bit;
		if ((unsigned long long)reasons & reason_names[i].bit && off < len)
			off += (size_t)snprintf(out + off, len - off, "%s%s", off ? "," : "", reason_names[i].name);
	}
	if ((unsigned long long)reasons & ~known && off < len)
		snprintf(out + off, len - off, "%s0x%llx", off ? "," : "", (unsigned long long)reasons & ~known);
}

/* appends "; " + a sentence to why */
static void say(char *why, size_t len, size_t *off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void say(char *why, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	if (!why || *off >= len)
		return;
	if (*off)
		*off += (size_t)snprintf(why + *off, len - *off, "; ");
	if (*off >= len)
		return;
	va_start(ap, fmt);
	*off += (size_t)vsnprintf(why + *off, len - *off, fmt, ap);
	va_end(ap);
}

static int hot(const kj_gpu_state *s)
{
	return s->temp_c >= 0 && s->temp_slowdown_c > 0 && s->temp_c >= s->temp_slowdown_c - KJ_GPU_TEMP_MARGIN_C;
}

int kj_gpu_state_drift(const kj_gpu_state *start, const kj_gpu_state *end, char *why, size_t len)
{
	size_t off = 0;
	int n = 0;
	char rs[160];
	const kj_gpu_state *both[2] = { start, end };
	if (why && len)
		why[0] = 0;
#define CHANGED(f, what)                                                                                         \
	if (start && start->f >= 0 && end->f >= 0 && start->f != end->f) {                                          \
		say(why, len, &off, "%s changed from %d to %d", what, start->f, end->f);                             \
		n++;                                                                                                 \
	}
	if (start) {
		if (strcmp(start->driver, end->driver)) {
			say(why, len, &off, "the driver changed from %s to %s", start->driver, end->driver);
			n++;
		}
		CHANGED(power_limit_w, "the power limit (W)")
		CHANGED(app_sm_mhz, "the SM application clock (MHz)")
		CHANGED(app_mem_mhz, "the memory application clock (MHz)")
		CHANGED(ecc, "ECC")
		CHANGED(mig, "MIG")
	}
#undef CHANGED
	for (int i = 0; i < 2; i++) {
		const kj_gpu_state *s = both[i];
		if (!s)
			continue;
		if (s->reasons > 0 && ((unsigned long long)s->reasons & KJ_GPU_REASONS_SLOWDOWN)) {
			kj_gpu_state_reasons((long long)((unsigned long long)s->reasons & KJ_GPU_REASONS_SLOWDOWN), rs,
					     sizeof(rs));
			say(why, len, &off, "the clocks were cut at the %s (%s)", i ? "end" : "start", rs);
			n++;
		}
		if (hot(s)) {
			say(why, len, &off, "%d C at the %s, within %d C of the slowdown threshold (%d C)", s->temp_c,
			    i ? "end" : "start", KJ_GPU_TEMP_MARGIN_C, s->temp_slowdown_c);
			n++;
		}
	}
	return n > 0;
}

/* a JSON number, or null for -1 */
static const char *num(int v, char *buf, size_t len)
{
	if (v < 0)
		return "null";
	snprintf(buf, len, "%d", v);
	return buf;
}

/* a JSON string of printable ASCII (NVML's strings are); anything else is '?' */
static void str(const char *s, char *out, size_t len)
{
	size_t o = 0;
	if (len < 3)
		return;
	out[o++] = '"';
	for (; *s && o + 2 < len; s++)
		out[o++] = (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\') ? *s : '?';
	out[o++] = '"';
	out[o] = 0;
}

size_t kj_gpu_state_json(const kj_gpu_state *st, char *out, size_t len)
{
	char b[16][24], u[64], dv[64], rs[160], rsj[176], at[40];
	time_t sec = (time_t)st->at;
	struct tm tm;
	/* when: UTC to the millisecond (a number this large would lose its
	 * fraction to a JSON writer's default precision) */
	if (gmtime_r(&sec, &tm))
		snprintf(at, sizeof(at), "\"%04d-%02d-%02dT%02d:%02d:%02d.%03dZ\"", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			 (int)((st->at - (double)sec) * 1000) % 1000);
	else
		snprintf(at, sizeof(at), "null");
	kj_gpu_state_reasons(st->reasons, rs, sizeof(rs));
	str(st->uuid, u, sizeof(u));
	str(st->driver, dv, sizeof(dv));
	str(rs, rsj, sizeof(rsj));
	return (size_t)snprintf(
		out, len,
		"{\"uuid\": %s, \"driver\": %s, \"sm_mhz\": %s, \"mem_mhz\": %s, \"sm_max_mhz\": %s, "
		"\"mem_max_mhz\": %s, \"app_sm_mhz\": %s, \"app_mem_mhz\": %s, \"power_limit_w\": %s, "
		"\"power_w\": %s, \"temp_c\": %s, \"temp_slowdown_c\": %s, \"ecc\": %s, \"mig\": %s, "
		"\"persistence\": %s, \"clock_reasons\": %s, \"at\": %s}",
		u, st->driver[0] ? dv : "null", num(st->sm_mhz, b[0], 24), num(st->mem_mhz, b[1], 24),
		num(st->sm_max_mhz, b[2], 24), num(st->mem_max_mhz, b[3], 24), num(st->app_sm_mhz, b[4], 24),
		num(st->app_mem_mhz, b[5], 24), num(st->power_limit_w, b[6], 24), num(st->power_w, b[7], 24),
		num(st->temp_c, b[8], 24), num(st->temp_slowdown_c, b[9], 24),
		st->ecc < 0 ? "null" : st->ecc ? "true" : "false", st->mig < 0 ? "null" : st->mig ? "true" : "false",
		st->persistence < 0 ? "null" : st->persistence ? "true" : "false", rsj, at);
}
