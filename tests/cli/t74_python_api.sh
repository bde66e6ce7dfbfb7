#!/usr/bin/env bash
# The Python API (python/kjudge, docs/python.md) on the CPU track: pip
# installs the package offline (its own build backend), kjudge.eval judges a
# shipped candidate given as a path and as code, a broken one gets its
# verdict, an unknown task and a judge without its sandbox raise with the
# exit code and the judge's message, options become flags while the seed
# secret goes through the environment, KernelEnv's reset and step, and
# kjudge.Client against a kjudge serve started here, with and without a
# token.  A package that does not install is a failure, not a skip.
. "$(dirname "$0")/lib.sh"

cleanup() {
	for f in "$TMP"/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
. "$(dirname "$0")/serve_lib.sh"

PY=$(command -v python3 || echo python3)
SITE=$TMP/site
export PYTHONDONTWRITEBYTECODE=1 KJUDGE_BIN=$KJ KJ_ROOT SITE TMP PASS_C FAIL_C FAIL_E
unset KJUDGE_SEED_SECRET KJUDGE_SEED_SECRET_FILE KJUDGE_TOKEN
# py NAME: runs $TMP/NAME.py (written below) against the installed package
py() { PYTHONPATH=$SITE "$PY" "$TMP/$1.py"; }

expect_success "pip installs ./python into a target folder, offline" '
	"$PY" -m pip install --no-index --no-cache-dir --disable-pip-version-check -q \
		--target "$SITE" "$KJ_ROOT/python" &&
	test -f "$SITE/kjudge/__init__.py" && ls -d "$SITE"/kjudge-*.dist-info'

expect_success "an sdist of kjudge_build.py installs the same files" '
	"$PY" -c "import sys; sys.path.insert(0, sys.argv[1]); import kjudge_build as b; print(b.build_sdist(sys.argv[2]))" \
		"$KJ_ROOT/python" "$TMP" >"$TMP/sdist" && tar tzf "$TMP/$(cat "$TMP/sdist")" &&
	"$PY" -m pip install --no-index --no-cache-dir --disable-pip-version-check -q \
		--target "$TMP/site2" "$TMP/$(cat "$TMP/sdist")" &&
	diff -r -x __pycache__ "$SITE/kjudge" "$TMP/site2/kjudge"'

cat >"$TMP/import.py" <<'EOF'
import importlib.metadata, os, kjudge
print(kjudge.__file__)
assert kjudge.__file__.startswith(os.environ["SITE"] + "/")
assert importlib.metadata.version("kjudge") == kjudge.__version__
for name in ("eval", "prompt", "Client", "KernelEnv", "default_reward", "find_kjudge",
             "KjudgeError", "UsageError", "JudgeError", "ServeError", "BinaryNotFound"):
    assert hasattr(kjudge, name), name
EOF
expect_success "the installed package is the one imported, with its metadata" 'py import'

cat >"$TMP/eval_path.py" <<'EOF'
import json, os, kjudge
v = kjudge.eval("level1/relu", os.environ["PASS_C"], seeds=2, perf_budget=0.2)
print(v["status"], v["speedup"], v["backend"])
assert v["schema"] == "kjudge.verdict/1" and v["task"] == "level1/relu" and v["backend"] == "cpu"
assert v["status"] == "pass" and v["speedup"] > 0 and v["seeds"] == 2
json.dump(v, open(os.environ["TMP"] + "/pass.json", "w"))
EOF
expect_success "kjudge.eval judges examples/solutions/cpu/relu.c (a path): pass, timed" 'py eval_path'

cat >"$TMP/eval_code.py" <<'EOF'
import hashlib, os, pathlib, kjudge
code = pathlib.Path(os.environ["PASS_C"]).read_text()
v = kjudge.eval("level1/relu", code, backend="cpu", no_perf=True, seeds=1)
print(v["status"], v["speedup"], v["candidate_sha256"])
assert v["status"] == "pass" and v["speedup"] is None and v["perf"] == []
assert v["candidate_sha256"] == hashlib.sha256(code.encode()).hexdigest()
v = kjudge.eval("level1/relu", pathlib.Path(os.environ["PASS_C"]), no_perf=True, seeds=1)
assert v["status"] == "pass"
try:
    kjudge.eval("level1/relu", "no/such/candidate.c")
    raise SystemExit("a missing file was judged")
except FileNotFoundError as e:
    print(e)
EOF
expect_success "kjudge.eval takes the code as a string (or a pathlib.Path); a missing file raises" 'py eval_code'

cat >"$TMP/eval_fail.py" <<'EOF'
import os, kjudge
v = kjudge.eval("level1/relu", os.environ["FAIL_C"], no_perf=True, seeds=1)
print(v["status"], v["stage"], v["reason"])
assert v["status"] == os.environ["FAIL_E"] and v["reason"]
EOF
expect_success "a broken candidate is a verdict ('"$FAIL_E"'), not an exception" 'py eval_fail'

printf 'task broken\nlevel 1\ninput x: f32[B] ~ normal\n' >"$TMP/bad.kt"
cat >"$TMP/eval_task.py" <<'EOF'
import os, kjudge
for task in ("level9/nope", os.environ["TMP"] + "/bad.kt"):
    try:
        kjudge.eval(task, os.environ["PASS_C"], no_perf=True)
        raise SystemExit("no exception for " + task)
    except kjudge.UsageError as e:
        print(repr(e.message), e.exit_code, repr(e.error))
        assert e.exit_code == 2 and isinstance(e, kjudge.KjudgeError)
        assert e.message.startswith("kjudge eval exited 2: ") and "no message" not in e.message
        assert e.error is None or isinstance(e.error, dict)
        assert e.stderr.strip() or e.error
try:
    kjudge.eval("level1/relu", os.environ["PASS_C"], seeds=0)
    raise SystemExit("no exception for seeds=0")
except kjudge.UsageError as e:
    print(e.message)
    assert e.message == "kjudge eval exited 2: --seeds wants 1..100, got '0'"
# a judge that prints its JSON error object on stdout (the {"error", "exit"} contract)
try:
    kjudge.eval("level1/relu", os.environ["PASS_C"], kjudge=os.environ["TMP"] + "/kjerr")
    raise SystemExit("no exception from kjerr")
except kjudge.UsageError as e:
    print(e.message, e.error)
    assert e.error == {"kind": "task", "message": "unknown task 'x'"}
    assert e.message == "kjudge eval exited 2: unknown task 'x'"
EOF
cat >"$TMP/kjerr" <<'EOF'
#!/bin/sh
echo '{"error": {"kind": "task", "message": "unknown task '"'x'"'"}, "exit": 2}'
echo "kjudge eval: something else" >&2
exit 2
EOF
chmod +x "$TMP/kjerr"
expect_success "an unknown task, an invalid task file, a bad option, a JSON error raise UsageError (exit 2)" '
	py eval_task >"$TMP/task.out" && cat "$TMP/task.out" && grep -q "level9/nope" "$TMP/task.out"'

cat >"$TMP/eval_judge.py" <<'EOF'
import os, kjudge
try:
    kjudge.eval("level1/relu", os.environ["PASS_C"], no_perf=True,
                env={"KJ_BWRAP": os.environ["TMP"] + "/no-bwrap"})
    raise SystemExit("no exception")
except kjudge.JudgeError as e:
    print(e.message, e.exit_code)
    assert e.exit_code == 3 and "exited 3" in e.message
EOF
expect_success "a judge that cannot sandbox (no bwrap) raises JudgeError (exit 3)" 'py eval_judge'

# a stand-in kjudge that records its command line and the secret it was given
cat >"$TMP/kjwrap" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$TMP/argv"
printf '%s\n' "\${KJUDGE_SEED_SECRET-unset}" >"$TMP/secret"
exec "$KJ" "\$@"
EOF
chmod +x "$TMP/kjwrap"
cat >"$TMP/eval_opts.py" <<'EOF'
import json, os, kjudge
tmp = os.environ["TMP"]
v = kjudge.eval("level1/relu", os.environ["PASS_C"], kjudge=tmp + "/kjwrap", seeds=3, no_perf=True,
                timeout=5, policy="strict", no_cache=True, seed_secret="s3cret-of-the-test")
argv = open(tmp + "/argv").read().split("\n")
print(argv)
for flag in ("--json", "--seeds", "3", "--no-perf", "--timeout", "5", "--policy", "strict",
             "--no-cache", "--backend", "cpu"):
    assert flag in argv, flag
assert not any("s3cret" in a for a in argv)
assert open(tmp + "/secret").read().strip() == "s3cret-of-the-test"
public = json.load(open(tmp + "/pass.json"))["base_seed"]
print(v["status"], v["seeds"], v["base_seed"], public)
assert v["status"] == "pass" and v["seeds"] == 3 and v["base_seed"] != public
EOF
expect_success "options are flags; seed_secret goes by \$KJUDGE_SEED_SECRET, never argv" 'py eval_opts'

cat >"$TMP/find.py" <<'EOF'
import os, kjudge
kj, tmp = os.environ["KJUDGE_BIN"], os.environ["TMP"]
assert kjudge.find_kjudge() == kj
assert kjudge.find_kjudge(tmp + "/kjwrap") == tmp + "/kjwrap"
del os.environ["KJUDGE_BIN"]
os.environ["PATH"] = os.path.dirname(kj) + os.pathsep + os.environ["PATH"]
assert kjudge.find_kjudge() == kj
os.environ["PATH"] = tmp + "/nothing"
for arg in (None, tmp + "/nothing/kjudge"):
    try:
        kjudge.find_kjudge(arg)
        raise SystemExit("found one")
    except kjudge.BinaryNotFound as e:
        print(e)
EOF
expect_success "find_kjudge: the argument, then \$KJUDGE_BIN, then PATH; else BinaryNotFound" 'py find'

cat >"$TMP/env_pass.py" <<'EOF'
import os, kjudge
env = kjudge.KernelEnv("level1/relu", backend="cpu", no_perf=True, seeds=1)
obs, info = env.reset(seed=1)
assert info["task"] == "level1/relu" and info["backend"] == "cpu"
assert obs == kjudge.prompt("level1/relu", "cpu")
assert "void relu(const float* x, float* y, int64_t B, int64_t D)" in obs, obs
obs, reward, terminated, truncated, info = env.step(open(os.environ["PASS_C"]).read())
print(reward, terminated, truncated, info["status"], info["step"])
assert (reward, terminated, truncated, info["status"]) == (1.0, True, False, "pass")
assert info["verdict"]["schema"] == "kjudge.verdict/1" and isinstance(obs, str) and obs
try:
    env.step("x\n")
    raise SystemExit("a step after the end")
except RuntimeError as e:
    print(e)
EOF
expect_success "KernelEnv: reset gives the prompt; a passing step ends the episode, reward 1 untimed" 'py env_pass'

cat >"$TMP/env_fail.py" <<'EOF'
import os, kjudge
env = kjudge.KernelEnv(["level1/relu"], max_steps=2, no_perf=True, seeds=1)
env.reset()
fail = open(os.environ["FAIL_C"]).read()
obs, reward, terminated, truncated, info = env.step(fail)
print(reward, terminated, truncated, info["status"])
assert (reward, terminated, truncated) == (0.0, False, False) and info["status"] == os.environ["FAIL_E"]
assert "Status: " + os.environ["FAIL_E"] in obs and "previous attempt (round 0)" in obs, obs[-2000:]
obs, reward, terminated, truncated, info = env.step(fail)
assert (reward, terminated, truncated, info["step"]) == (0.0, False, True, 2)
tasks = ["level1/relu", "level1/softmax", "level1/gelu"]
picks = [kjudge.KernelEnv(tasks).reset(seed=7)[1]["task"] for _ in range(2)]
assert picks[0] == picks[1] and picks[0] in tasks
assert kjudge.KernelEnv(tasks).reset(options={"task": "level1/gelu"})[1]["task"] == "level1/gelu"
env = kjudge.KernelEnv("level1/relu", reward=lambda v: 42, no_perf=True, seeds=1)
env.reset()
assert env.step(os.environ["PASS_C"])[1] == 42.0
r = kjudge.default_reward
assert r({"status": "mismatch", "speedup": None}) == 0.0
assert r({"status": "pass", "speedup": None}) == 1.0
assert r({"status": "pass", "speedup": 4.0}) == 3.0 and r({"status": "pass", "speedup": 1.0}) == 1.0
assert r({"status": "pass", "speedup": 0.01}) == 0.1
EOF
expect_success "KernelEnv: a failing step gives reward 0 and the refinement prompt, then truncates; own rewards" 'py env_fail'

# kjudge.Client against kjudge serve (--no-perf --seeds 1, serve_lib.sh)
start A "$TMP/a.sqlite"
export URL_A=http://127.0.0.1:$PORT_A
cat >"$TMP/client.py" <<'EOF'
import os, kjudge
c = kjudge.Client(os.environ["URL_A"] + "/v1/")
h = c.health()
print(c, h)
assert h["status"] == "ok" and h["backend"] == "cpu"
assert any(t["id"] == "level1/relu" for t in c.tasks())
v = c.eval("level1/relu", os.environ["PASS_C"], timeout=120)
print(v["status"])
assert v["schema"] == "kjudge.verdict/1" and v["status"] == "pass"
v = c.eval("level1/relu", open(os.environ["FAIL_C"]).read(), model="m1", timeout=120)
assert v["status"] == os.environ["FAIL_E"]
job = c.submit("level1/relu", os.environ["PASS_C"], idempotency_key="py-1")
again = c.submit("level1/relu", os.environ["PASS_C"], idempotency_key="py-1")
assert again["id"] == job["id"] and again.get("replayed") is True
done = c.wait(job["id"], timeout=120)
assert done["state"] == "done" and done["status"] == "pass" and done["attempts"] == 1
assert c.job(job["id"])["verdict"]["status"] == "pass"
assert [j["id"] for j in c.jobs(state="done")][-1] == job["id"]
for call, status in ((lambda: c.submit("level9/nope", "x\n"), 422),
                     (lambda: c.job(999999), 404),
                     (lambda: c.cancel(job["id"]), 409)):
    try:
        call()
        raise SystemExit("no error")
    except kjudge.ServeError as e:
        print(e.status, e.error)
        assert e.status == status and isinstance(e.error, dict) and e.error["error"]
try:
    kjudge.Client("http://127.0.0.1:1").health()
    raise SystemExit("no error")
except kjudge.ServeError as e:
    print(e)
    assert e.status is None
EOF
expect_success "Client: health, tasks, eval (pass, '"$FAIL_E"'), submit/wait/job/jobs, idempotency, errors" '
	test "$PORT_A" -gt 0 && py client'
kill -TERM $PID_A 2>/dev/null; wait $PID_A 2>/dev/null; rm -f "$TMP/A.pid"

TDB=$TMP/t.sqlite
"$KJ" serve token add py --db "$TDB" >"$TMP/tok" 2>"$TMP/tok.err"
start T "$TDB"
export URL_T=http://127.0.0.1:$PORT_T TOK_T=$(cat "$TMP/tok")
cat >"$TMP/client_token.py" <<'EOF'
import os, kjudge
url, tok = os.environ["URL_T"], os.environ["TOK_T"]
assert kjudge.Client(url).health()["status"] == "ok"
try:
    kjudge.Client(url).tasks()
    raise SystemExit("no error without a token")
except kjudge.ServeError as e:
    print(e)
    assert e.status == 401
assert kjudge.Client(url, tok).eval("level1/relu", os.environ["PASS_C"], timeout=120)["status"] == "pass"
os.environ["KJUDGE_TOKEN"] = tok
assert kjudge.Client(url).tasks()
EOF
expect_success "Client with tokens: 401 without one; the token as an argument or \$KJUDGE_TOKEN" '
	test -s "$TMP/tok" && test "$PORT_T" -gt 0 && py client_token'
kill -TERM $PID_T 2>/dev/null; wait $PID_T 2>/dev/null; rm -f "$TMP/T.pid"

done_testing
