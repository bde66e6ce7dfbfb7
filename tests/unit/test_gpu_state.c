/* kj_gpu_state: reading a GPU's state through NVML (a stand-in NVML built
 * here, named by KJ_NVML_LIB), the drift rule, the reasons' names and the
 * JSON; and what is said when NVML is missing. */
#include "kjudge/gpu_state.h"
#include "so_testlib.h"
#include "tap.h"

#include <jansson.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* An NVML with one GPU, GPU-fake-0001: SM 1980/1980 MHz, memory 3201 MHz,
 * application clocks 1980/3201, 700 W limit drawing 412 W, 61 C (slowdown
 * at 90 C), ECC on, MIG off, persistence on, clocks cut by the power cap.
 * nvmlDeviceGetCurrentClocksEventReasons is missing: the older name is
 * used. */
static const char fake_nvml[] =
	"#include <string.h>\n"
	"typedef void *dev;\n"
	"static int one;\n"
	"int nvmlInit_v2(void) { return 0; }\n"
	"const char *nvmlErrorString(int r) { return r == 6 ? \"Not Found\" : \"Unknown Error\"; }\n"
	"int nvmlSystemGetDriverVersion(char *v, unsigned n) { strncpy(v, \"580.159.04\", n); return 0; }\n"
	"int nvmlDeviceGetHandleByUUID(const char *u, dev *d) {\n"
	"  if (strcmp(u, \"GPU-fake-0001\")) return 6; *d = &one; return 0; }\n"
	"int nvmlDeviceGetClockInfo(dev d, unsigned t, unsigned *c) { *c = t == 1 ? 1980 : 3201; return 0; }\n"
	"int nvmlDeviceGetMaxClockInfo(dev d, unsigned t, unsigned *c) { *c = t == 1 ? 1980 : 3201; return 0; }\n"
	"int nvmlDeviceGetApplicationsClock(dev d, unsigned t, unsigned *c) { *c = t == 1 ? 1980 : 3201; return 0; }\n"
	"int nvmlDeviceGetEnforcedPowerLimit(dev d, unsigned *p) { *p = 700000; return 0; }\n"
	"int nvmlDeviceGetPowerUsage(dev d, unsigned *p) { *p = 412345; return 0; }\n"
	"int nvmlDeviceGetTemperature(dev d, unsigned s, unsigned *t) { *t = 61; return 0; }\n"
	"int nvmlDeviceGetTemperatureThreshold(dev d, unsigned k, unsigned *t) {\n"
	"  if (k != 1) return 3; *t = 90; return 0; }\n"
	"int nvmlDeviceGetEccMode(dev d, unsigned *c, unsigned *p) { *c = *p = 1; return 0; }\n"
	"int nvmlDeviceGetMigMode(dev d, unsigned *c, unsigned *p) { *c = *p = 0; return 0; }\n"
	"int nvmlDeviceGetPersistenceMode(dev d, unsigned *m) { return 3; }\n"
	"int nvmlDeviceGetCurrentClocksThrottleReasons(dev d, unsigned long long *r) { *r = 4; return 0; }\n";

static kj_gpu_state base(void)
{
	kj_gpu_state s;
	memset(&s, 0, sizeof(s));
	snprintf(s.uuid, sizeof(s.uuid), "GPU-x");
	snprintf(s.driver, sizeof(s.driver), "580.159.04");
	s.sm_mhz = s.sm_max_mhz = s.app_sm_mhz = 1980;
	s.mem_mhz = s.mem_max_mhz = s.app_mem_mhz = 3201;
	s.power_limit_w = 700;
	s.power_w = 300;
	s.temp_c = 50;
	s.temp_slowdown_c = 90;
	s.ecc = 1;
	s.mig = 0;
	s.persistence = 1;
	s.reasons = 0;
	return s;
}

int main(void)
{
	char dir[] = "/tmp/kj_gpu_state_XXXXXX", why[512], txt[1024], rs[160];
	kj_gpu_state st, a, b;
	struct kj_err err;
	json_t *j;
	json_error_t je;
	const char *whyp = why, *rsp = rs; /* the TAP macros test their argument for NULL */
	pid_t pid;
	int status;

	if (!mkdtemp(dir))
		return 1;

	/* NVML missing: unsupported, and the message says what is not recorded
	 * (a child: the library is loaded once per process) */
	pid = fork();
	if (pid == 0) {
		setenv("KJ_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
		kj_err_init(&err);
		int rc = kj_gpu_state_read("GPU-fake-0001", &st, &err);
		_exit(rc == KJ_E_UNSUPPORTED && strstr(err.msg, "NVML is not available") &&
		      strstr(err.msg, "not recorded") && st.temp_c == -1 && st.reasons == -1 ? 0 : 1);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "no NVML: KJ_E_UNSUPPORTED naming NVML, every field unknown");

	ok(kjt_build_so(dir, "fakenvml", fake_nvml, "") == 0, "the stand-in NVML builds");
	setenv("KJ_NVML_LIB", kjt_so_path(dir, "fakenvml"), 1);
	kj_err_init(&err);
	is_int(kj_gpu_state_read("GPU-fake-0001", &st, &err), 0, "reads the stand-in's GPU (%s)", err.msg);
	is_str(st.driver, "580.159.04", "driver");
	is_int(st.sm_mhz, 1980, "SM clock");
	is_int(st.mem_max_mhz, 3201, "memory max clock");
	is_int(st.app_sm_mhz, 1980, "SM application clock");
	is_int(st.power_limit_w, 700, "power limit in W (mW rounded)");
	is_int(st.power_w, 412, "power drawn in W");
	is_int(st.temp_c, 61, "temperature");
	is_int(st.temp_slowdown_c, 90, "slowdown threshold");
	is_int(st.ecc, 1, "ECC on");
	is_int(st.mig, 0, "MIG off");
	is_int(st.persistence, -1, "persistence: the stand-in says not supported, so unknown");
	ok(st.reasons == 4, "clock reasons through the older entry point (got %lld)", st.reasons);
	ok(st.at > 1.7e9, "read time is the wall clock");

	kj_err_init(&err);
	is_int(kj_gpu_state_read("GPU-other", &st, &err), KJ_E_NOTFOUND, "an unknown UUID is not found");
	like(err.msg, "GPU-other", "the message names the UUID");
	like(err.msg, "Not Found", "and NVML's reason");

	/* JSON: one object, unknown fields null, reasons as words */
	kj_err_init(&err);
	kj_gpu_state_read("GPU-fake-0001", &st, &err);
	ok(kj_gpu_state_json(&st, txt, sizeof(txt)) < sizeof(txt), "the JSON fits");
	j = json_loads(txt, 0, &je);
	ok(j && json_is_object(j), "the JSON parses: %s", j ? "" : je.text);
	ok(j && json_integer_value(json_object_get(j, "temp_c")) == 61, "temp_c in the JSON");
	ok(j && json_is_null(json_object_get(j, "persistence")), "unknown persistence is null");
	ok(j && json_is_true(json_object_get(j, "ecc")), "ecc is true");
	is_str(j ? json_string_value(json_object_get(j, "clock_reasons")) : "", "sw_power_cap", "reasons as words");
	is_str(j ? json_string_value(json_object_get(j, "uuid")) : "", "GPU-fake-0001", "uuid");
	{
		const char *at = j ? json_string_value(json_object_get(j, "at")) : NULL;
		ok(at && strlen(at) == 24 && at[4] == '-' && at[10] == 'T' && at[19] == '.' && at[23] == 'Z',
		   "at: UTC to the millisecond (%s)", at ? at : "missing");
	}
	json_decref(j);

	kj_gpu_state_reasons(0, rs, sizeof(rs));
	is_str(rsp, "none", "no reasons: none");
	kj_gpu_state_reasons(-1, rs, sizeof(rs));
	is_str(rsp, "unknown", "unknown reasons");
	kj_gpu_state_reasons(0x1 | 0x40 | 0x1000, rs, sizeof(rs));
	is_str(rsp, "idle,hw_thermal,0x1000", "several reasons, an unnamed bit in hex");

	/* the drift rule */
	a = base();
	b = base();
	b.temp_c = 75;
	b.power_w = 690;
	b.sm_mhz = 1755;
	b.reasons = (long long)KJ_GPU_REASON_SW_POWER_CAP;
	is_int(kj_gpu_state_drift(&a, &b, why, sizeof(why)), 0,
	       "warmer, a lower clock under a power cap: not drift (%s)", why);
	is_str(whyp, "", "and nothing said");
	b = base();
	b.power_limit_w = 500;
	is_int(kj_gpu_state_drift(&a, &b, why, sizeof(why)), 1, "a power limit changed: drift");
	like(whyp, "power limit (W) changed from 700 to 500", "it says which and how");
	b = base();
	b.app_sm_mhz = 1410;
	is_int(kj_gpu_state_drift(&a, &b, why, sizeof(why)), 1, "application clocks changed: drift");
	b = base();
	b.reasons = (long long)(KJ_GPU_REASON_SW_THERMAL | KJ_GPU_REASON_SW_POWER_CAP);
	is_int(kj_gpu_state_drift(&a, &b, why, sizeof(why)), 1, "thermal slowdown at the end: drift");
	like(whyp, "clocks were cut at the end (sw_thermal)", "it names the slowdown, not the power cap");
	b = base();
	b.temp_c = 86;
	is_int(kj_gpu_state_drift(&a, &b, why, sizeof(why)), 1, "within 5 C of the slowdown threshold: drift");
	like(whyp, "86 C at the end", "it gives the temperature");
	b = base();
	b.temp_c = 84;
	is_int(kj_gpu_state_drift(&a, &b, why, sizeof(why)), 0, "6 C below the threshold: not drift");
	b = base();
	snprintf(b.driver, sizeof(b.driver), "590.1");
	b.mig = 1;
	is_int(kj_gpu_state_drift(&a, &b, why, sizeof(why)), 1, "driver and MIG changed: drift");
	like(whyp, "driver changed from 580.159.04 to 590.1; MIG changed from 0 to 1", "both are said");
	b = base();
	b.reasons = (long long)KJ_GPU_REASON_HW_SLOWDOWN;
	is_int(kj_gpu_state_drift(NULL, &b, why, sizeof(why)), 1, "one reading with a hardware slowdown: drift");
	a.power_limit_w = -1;
	b = base();
	b.power_limit_w = 500;
	is_int(kj_gpu_state_drift(&a, &b, why, sizeof(why)), 0, "an unknown field at the start is not a change");

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)system(cmd);
	return done_testing();
}
