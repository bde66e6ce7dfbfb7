/* kj_task_from_kernelbench: a KernelBench problem file's description (the
 * JSON line of kjudge_pyworker.py --describe) as a task: values, shapes,
 * dtypes, distributions, the one binding, the id, the tolerance by dtype,
 * the scalar inputs kept for the workers, and clear errors. */
#include <stdlib.h>

#include "kjudge/judge.h"
#include "kjudge/task.h"
#include "tap.h"

static const char *relu =
	"{\"ok\": true, \"problem\": \"/kb/KernelBench/level1/19_ReLU.py\", \"seed\": 42, \"init\": [],"
	" \"inputs\": [{\"tensor\": true, \"shape\": [16, 16384], \"dtype\": \"float32\", \"min\": -4.5, \"max\": 4.4}],"
	" \"outputs\": [{\"shape\": [16, 16384], \"dtype\": \"float32\"}], \"training\": true, \"torch\": \"2.11\"}";

static const char *mixed =
	"{\"ok\": true, \"problem\": \"/x/ce.py\", \"seed\": 42, \"init\": [10, 0.5, \"mean\"],"
	" \"inputs\": [{\"tensor\": true, \"shape\": [8, 10], \"dtype\": \"float16\", \"min\": 0.01, \"max\": 0.99},"
	"  {\"tensor\": false, \"value\": 3},"
	"  {\"tensor\": true, \"shape\": [8], \"dtype\": \"int64\", \"min\": 0, \"max\": 9}],"
	" \"outputs\": [{\"shape\": [8, 10], \"dtype\": \"float16\"}, {\"shape\": [1], \"dtype\": \"int64\"}]}";

int main(void)
{
	struct kj_err err;
	kj_task *t = NULL;
	kj_plan p;
	double atol, rtol;
	int rc;

	kj_err_init(&err);
	rc = kj_task_from_kernelbench(relu, "/kb/KernelBench/level1/19_ReLU.py", &t, &err);
	ok(rc == 0 && t, "relu's description is a task (%s)", err.msg);
	if (!t)
		return 1;
	is_str(t->id, "kernelbench/level1/19_ReLU", "the id names the level and the problem");
	is_int(t->level, 1, "level from the levelN folder");
	is_str(t->name, "kb_19_ReLU", "the name is a symbol");
	is_int(t->nvals, 2, "one input, one output");
	is_str(t->vals[0].name, "x0", "the input is x0");
	is_int(t->vals[0].kind, KJ_V_INPUT, "x0 is an input");
	is_int(t->vals[1].kind, KJ_V_OUTPUT, "y0 is an output");
	is_int(t->vals[0].dist, KJ_DIST_NORMAL, "a signed float input is drawn from the normal distribution");
	is_int(t->nnodes, 0, "no op nodes: the reference is the problem's Model");
	is_int(t->nbind, 1, "one binding");
	is_int(t->binds[0].bench, 1, "it is the bench shape");
	ok(t->kb && strstr(t->kb, "\"seed\":42"), "the description is kept for the workers");
	kj_tolerance(t, KJ_F32, &atol, &rtol);
	ok(atol == 1e-4 && rtol == 1e-4, "f32: atol = rtol = 1e-4 (KernelBench's fp32 tolerance)");
	rc = kj_plan_build(t, 0, &p, &err);
	ok(rc == 0, "the binding plans (%s)", err.msg);
	if (rc == 0) {
		is_int(p.vals[0].shape.rank, 2, "x0 has rank 2");
		is_int(p.vals[0].shape.d[1], 16384, "x0's last dim");
		is_int(p.vals[1].dtype, KJ_F32, "y0 is f32");
		is_int(p.vals[1].shape.d[0], 16, "y0's first dim");
		kj_plan_release(&p);
	}
	kj_task_free(t);

	t = NULL;
	rc = kj_task_from_kernelbench(mixed, "/x/ce.py", &t, &err);
	ok(rc == 0 && t, "a description with a scalar input, ints and two outputs is a task (%s)", err.msg);
	if (!t)
		return 1;
	is_str(t->id, "kernelbench/ce", "no level folder: kernelbench/<name>");
	is_int(t->nvals, 4, "two tensor inputs (the scalar is not a tensor), two outputs");
	is_str(t->vals[1].name, "x1", "the int tensor is x1");
	is_int(t->vals[0].dist, KJ_DIST_UNIFORM, "a non-negative float input stays non-negative (uniform)");
	is_int(t->vals[1].dist, KJ_DIST_RANDINT, "an int input is drawn from its observed range");
	is_int(t->vals[3].dtype, KJ_I64, "the second output is i64");
	ok(strstr(t->kb, "\"value\":3") != NULL, "the scalar's value is kept for forward");
	ok(strstr(t->kb, "\"init\":[10,0.5,\"mean\"]") != NULL, "the init arguments are kept");
	kj_tolerance(t, KJ_F16, &atol, &rtol);
	ok(atol == 1e-2 && rtol == 1e-2, "f16: 1e-2 (KernelBench's fp16 tolerance)");
	kj_tolerance(t, KJ_I64, &atol, &rtol);
	ok(atol == 0 && rtol == 0, "integers: exact");
	rc = kj_plan_build(t, 0, &p, &err);
	ok(rc == 0, "it plans (%s)", err.msg);
	if (rc == 0) {
		is_near(p.dists[1].a, 0, 0, "randint from the observed min");
		is_near(p.dists[1].b, 10, 0, "to the observed max + 1");
		is_near(p.dists[0].b, 1, 0, "uniform up to 1");
		kj_plan_release(&p);
	}
	kj_task_free(t);

	t = NULL;
	rc = kj_task_from_kernelbench("not json", "/x/bad.py", &t, &err);
	ok(rc == KJ_E_PARSE && !t, "bad JSON is a parse error");
	like(err.msg, "/x/bad.py: the problem's description is not JSON", "naming the problem");
	rc = kj_task_from_kernelbench("{\"ok\": false, \"error\": \"the problem file defines no Model\"}", "/x/p.py", &t,
				      &err);
	ok(rc == KJ_E_PARSE, "a failed description is an error");
	like(err.msg, "/x/p.py: the problem file defines no Model", "with the describe step's reason");
	rc = kj_task_from_kernelbench("{\"ok\": true, \"init\": [], \"inputs\": [{\"tensor\": true, \"shape\": [4], "
				      "\"dtype\": \"complex64\"}], \"outputs\": [{\"shape\": [4], \"dtype\": \"float32\"}]}",
				      "/x/c.py", &t, &err);
	ok(rc == KJ_E_UNSUPPORTED, "a dtype kjudge does not judge is refused");
	like(err.msg, "input 0 has dtype complex64", "naming the input and the dtype");
	rc = kj_task_from_kernelbench("{\"ok\": true, \"init\": [], \"inputs\": [{\"tensor\": true, \"shape\": [0, 4], "
				      "\"dtype\": \"float32\"}], \"outputs\": [{\"shape\": [4], \"dtype\": \"float32\"}]}",
				      "/x/e.py", &t, &err);
	ok(rc == KJ_E_UNSUPPORTED, "an empty tensor is refused");
	like(err.msg, "dim 0 is not a size >= 1", "naming the dim");
	rc = kj_task_from_kernelbench("{\"ok\": true, \"init\": [], \"inputs\": [{\"tensor\": false, \"value\": 1}], "
				      "\"outputs\": [{\"shape\": [4], \"dtype\": \"float32\"}]}",
				      "/x/s.py", &t, &err);
	ok(rc == KJ_E_UNSUPPORTED, "a problem without tensor inputs is refused");
	like(err.msg, "get_inputs() returns no tensor", "saying why");
	rc = kj_task_from_kernelbench("{\"ok\": true, \"init\": [], \"inputs\": [{\"tensor\": true, \"shape\": [4], "
				      "\"dtype\": \"float32\"}], \"outputs\": []}", "/x/o.py", &t, &err);
	ok(rc == KJ_E_UNSUPPORTED, "a forward without outputs is refused");
	rc = kj_task_from_kernelbench("{\"ok\": true, \"inputs\": []}", "/x/i.py", &t, &err);
	ok(rc == KJ_E_PARSE, "a description without outputs or init is a parse error");
	return done_testing();
}
