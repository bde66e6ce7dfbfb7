/*
 * The devices rows that verdicts point to, with the calibration in use
 * (include/kjudge/record.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kjudge/record.h"

int kj_record_cpu_device(kj_db *db, int64_t *id, char *name, size_t nl, struct kj_err *err)
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

int kj_record_gpu_device(kj_db *db, kj_gpu *g, const char *cache_dir, int calibrate,
			 kj_record_log_fn log, void *log_ctx, int64_t *id, kj_calib *cal,
			 int *have_cal, struct kj_err *err)
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
	if (!rc && !got && calibrate) {
		if (log) {
			char line[192];
			snprintf(line, sizeof(line), "calibrating %s (once per GPU)", gi->name);
			log(log_ctx, line);
		}
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

int kj_record_gpu_ordinal(kj_db *db, int ordinal, const char *cache_dir, int64_t *id, char *arch,
			  size_t al, char *name, size_t nl, struct kj_err *err)
{
	const kj_gpu_info *gi;
	kj_gpu *g;
	int rc;
	if ((rc = kj_gpu_open(ordinal, &g, err)))
		return rc;
	gi = kj_gpu_get_info(g);
	if (arch)
		snprintf(arch, al, "%s", gi->arch);
	if (name)
		snprintf(name, nl, "%s", gi->name);
	/* with the calibration the judge will use, recorded with the verdicts */
	rc = kj_record_gpu_device(db, g, cache_dir, 0, NULL, NULL, id, NULL, NULL, err);
	kj_gpu_close(g);
	return rc;
}
