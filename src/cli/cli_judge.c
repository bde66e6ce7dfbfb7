/*
 * Judge setup shared by the commands that judge into a store (run, refine,
 * serve, worker): where the worker binary and candidate headers are, and the
 * devices rows (with the calibration in use) that verdicts point to.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

double kj_cli_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kj_cli_judge_paths(char *worker, size_t wl, char *inc, size_t il)
{
	const char *w = getenv("KJ_WORKER");
	if (w && *w)
		snprintf(worker, wl, "%s", w);
	else
		snprintf(worker, wl, "%s/kjudge-worker", kj_cli_bindir());
	snprintf(inc, il, "%s/include/candidate", kj_cli_root());
}

void kj_cli_db_path(const char *db_arg, const char *name, char *out, size_t n)
{
	if (db_arg)
		snprintf(out, n, "%s", db_arg);
	else
		snprintf(out, n, "%s.sqlite", name);
}

int kj_cli_cpu_device(kj_db *db, int64_t *id, char *name, size_t nl, struct kj_err *err)
{
	char host[128] = "localhost", uuid[160], model[128] = "", info[96];
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				char *p = strchr(line, ':') + 1;
				while (*p == ' ')
					p++;
				snprintf(model, sizeof(model), "%.*s", (int)strcspn(p, "\n"), p);
				break;
			}
		fclose(f);
	}
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = 0;
	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "unknown");
	snprintf(uuid, sizeof(uuid), "cpu:%s", host);
	snprintf(info, sizeof(info), "{\"cores\": %ld}", sysconf(_SC_NPROCESSORS_ONLN));
	if (name)
		snprintf(name, nl, "%s", model[0] ? model : u.machine);
	return kj_store_device_upsert(db, uuid, model[0] ? model : u.machine, u.machine, info, id, err);
}

int kj_cli_gpu_device(kj_db *db, kj_gpu *g, const char *cache_dir, const char *calibrate_cmd,
		      int64_t *id, kj_calib *cal, int *have_cal, struct kj_err *err)
{
	const kj_gpu_info *gi = kj_gpu_get_info(g);
	kj_calib mine, have;
	char info[256];
	int rc, got;
	if (!cal)
		cal = &mine;
	snprintf(info, sizeof(info),
		 "{\"cc\": \"%d.%d\", \"mem_bytes\": %zu, \"l2_bytes\": %zu, \"sm_count\": %d}",
		 gi->cc_major, gi->cc_minor, gi->mem_bytes, gi->l2_bytes, gi->sm_count);
	rc = kj_store_device_upsert(db, gi->uuid, gi->name, gi->arch, info, id, err);
	got = !rc && kj_calib_load(cache_dir, gi->uuid, cal) == 0;
	if (!rc && !got && calibrate_cmd) {
		fprintf(stderr, "kjudge %s: calibrating %s (once per GPU)\n", calibrate_cmd, gi->name);
		if (kj_gpu_calibrate(g, cal, NULL) == 0) {
			kj_calib_store(cache_dir, cal);
			got = 1;
		}
	}
	if (got && (kj_store_calibration_latest(db, *id, &have, NULL) || have.copy_gbs != cal->copy_gbs ||
		    have.fp32_tflops != cal->fp32_tflops))
		rc = kj_store_calibration_add(db, *id, cal, err);
	if (have_cal)
		*have_cal = got;
	return rc;
}
