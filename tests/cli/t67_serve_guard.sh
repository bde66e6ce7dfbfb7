#!/usr/bin/env bash
# kjudge serve against bad clients and bad set-ups (CPU track): 1,000
# half-open connections from one address leave /v1/health and an
# authenticated client served; a request header trickled in a byte at a time
# is answered 408 after --read-timeout; malformed requests (a bad request
# line, no Host, oversized headers, a bad Content-Length...), which
# libmicrohttpd answered with HTML pages, get JSON errors with one header
# block; a job handed back at shutdown has no owner; a server whose
# KJUDGE_HOME lacks what jobs need refuses to start (exit 3) and says what.
. "$(dirname "$0")/lib.sh"

for t in curl sqlite3 python3; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "1..0 # SKIP the $t command is not installed (Debian package $t)"
		exit 0
	fi
done

cleanup() {
	for f in "$TMP"/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

q() { sqlite3 "$1" "$2"; }
. "$(dirname "$0")/serve_lib.sh"

# hold.py PORT N SRC READY: opens N connections to 127.0.0.1:PORT from the
# address SRC, each sending a partial request header, writes how many
# connected to READY, then holds them until killed
cat >"$TMP/hold.py" <<'EOF'
import resource, socket, sys, time
port, n, src, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft != resource.RLIM_INFINITY and soft < n + 64:
    resource.setrlimit(resource.RLIMIT_NOFILE, (n + 64 if hard == resource.RLIM_INFINITY else min(hard, n + 64), hard))
held = []
for i in range(n):
    s = socket.socket()
    s.settimeout(5)
    try:
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        continue
    held.append(s)
    try:
        # a connection the server closed at once may refuse this
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    except OSError:
        pass
time.sleep(1)
with open(ready, "w") as f:
    f.write("%d\n" % len(held))
while True:
    time.sleep(60)
EOF

# raw.py PORT FILE: sends the bytes of FILE on one connection and prints the
# whole answer, after checking that it is JSON with an "error", one header
# block, Content-Type application/json
cat >"$TMP/raw.py" <<'EOF'
import json, socket, sys
port, path = int(sys.argv[1]), sys.argv[2]
data = open(path, "rb").read()
s = socket.create_connection(("127.0.0.1", port), timeout=20)
try:
    s.sendall(data)
except OSError:
    pass
got = b""
while True:
    try:
        b = s.recv(65536)
    except OSError:
        break
    if not b:
        break
    got += b
sys.stdout.write(got.decode("latin-1"))
head, sep, body = got.partition(b"\r\n\r\n")
assert sep, "no header block"
lines = head.split(b"\r\n")
assert lines[0].startswith(b"HTTP/1."), "status line: %r" % lines[0]
ctype = [l for l in lines if l.lower().startswith(b"content-type:")]
assert [l.split(b":", 1)[1].strip() for l in ctype] == [b"application/json"], "content-type: %r" % ctype
assert not body.startswith(b"HTTP/"), "a second header block in the body"
clen = [l.split(b":", 1)[1].strip() for l in lines if l.lower().startswith(b"content-length:")]
assert clen == [str(len(body)).encode()], "content-length %r for %d bytes" % (clen, len(body))
names = [l.split(b":", 1)[0].lower() for l in lines[1:]]
assert len(names) == len(set(names)), "a header twice: %r" % names
o = json.loads(body)
assert isinstance(o, dict) and "error" in o, "no error in %r" % o
print("\nstatus %s" % lines[0].split()[1].decode())
EOF

# trickle.py PORT: sends a request header a byte every 0.5 s (each byte
# resets an idle timer) and succeeds when a JSON 408 comes back within 30 s
cat >"$TMP/trickle.py" <<'EOF'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
t0, got = time.time(), b""
s.settimeout(0.5)
for c in b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
    try:
        s.sendall(bytes([c]))
        got = s.recv(4096)
    except socket.timeout:
        continue
    except OSError:
        pass
    break
s.settimeout(10)
try:
    while True:
        b = s.recv(4096)
        if not b:
            break
        got += b
except OSError:
    pass
print(got.decode("latin-1"))
print("answered after %.1f s" % (time.time() - t0))
sys.exit(0 if got.startswith(b"HTTP/1.1 408") and b"application/json" in got and time.time() - t0 < 30 else 1)
EOF

DB=$TMP/g.sqlite
"$KJ" serve token add bob --db "$DB" >"$TMP/tok" 2>/dev/null
TOK=$(cat "$TMP/tok")
start G "$DB"
P=$PORT_G

# ---- slowloris ----------------------------------------------------------------
python3 "$TMP/hold.py" "$P" 1000 127.0.0.2 "$TMP/held" >"$TMP/hold.log" 2>&1 &
echo $! >"$TMP/hold.pid"
for _ in $(seq 600); do [ -s "$TMP/held" ] && break; sleep 0.1; done

expect_success "1,000 half-open connections from 127.0.0.2 were opened" '
	cat "$TMP/held" && test "$(cat "$TMP/held")" -ge 1000'

expect_success "... while they are held, /v1/health answers another address (200)" '
	t0=$(date +%s%N); code=$(http $P GET /v1/health --max-time 10);
	echo "HTTP $code in $(( ($(date +%s%N) - t0) / 1000000 )) ms" && test "$code" = 200 &&
	test "$(json_get "$TMP/resp" status)" = ok'

expect_success "... and an authenticated client is served (GET /v1/tasks, POST /v1/jobs)" '
	test "$(http $P GET /v1/tasks --max-time 10 -H "Authorization: Bearer $TOK")" = 200 &&
	grep -q "level1/relu" "$TMP/resp" &&
	test "$(http $P POST /v1/jobs --max-time 10 -H "Authorization: Bearer $TOK" --data-binary @"$TMP/pass.json")" = 202 &&
	id=$(json_get "$TMP/resp" id) &&
	test "$(http $P GET "/v1/jobs/$id?wait=60" --max-time 90 -H "Authorization: Bearer $TOK")" = 200 &&
	test "$(json_get "$TMP/resp" status)" = pass'
kill "$(cat "$TMP/hold.pid")" 2>/dev/null; wait "$(cat "$TMP/hold.pid")" 2>/dev/null; rm -f "$TMP/hold.pid"

# ---- protocol errors ------------------------------------------------------------
printf 'GARBAGE\r\n\r\n' >"$TMP/r_line"
printf 'GET /v1/health HTTP/1.1\r\n\r\n' >"$TMP/r_nohost"
printf 'GET /v1/health HTTP/3.0\r\nHost: x\r\n\r\n' >"$TMP/r_version"
printf 'POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n' >"$TMP/r_clen"
printf 'POST /v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n' >"$TMP/r_chunk"
{ printf 'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: '; head -c 70000 /dev/zero | tr '\0' a; printf '\r\n\r\n'; } >"$TMP/r_big"
printf 'G@T /v1/health HTTP/1.1\r\nHost: x\r\n\r\n' >"$TMP/r_method"
printf 'GET /v1/health HTTP/1.1\r\nHost x\r\n\r\n' >"$TMP/r_field"
printf 'FROB /v1/health HTTP/1.1\r\nHost: x\r\n\r\n' >"$TMP/r_unknown"
printf 'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-\377\376: 1\r\n\r\n' >"$TMP/r_bytes"
# r_unknown: an unknown method reaches the routes (405)
for r in line:400 nohost:400 version:505 clen:400 chunk:411 big:431 method:400 field:400 bytes:400 unknown:405; do
	expect_success "a bad request (${r%:*}) gets a JSON error ${r#*:}, one header block" '
		python3 "$TMP/raw.py" $P "$TMP/r_'${r%:*}'" >"$TMP/raw.out" 2>&1; rc=$?;
		cat "$TMP/raw.out"; test $rc = 0 && grep -q "^status '${r#*:}'" "$TMP/raw.out"'
done

kill -TERM $PID_G 2>/dev/null; wait $PID_G 2>/dev/null; rm -f "$TMP/G.pid"

start R "$TMP/r.sqlite" --read-timeout 2
expect_success "a header trickled in a byte at a time gets a 408 after --read-timeout" '
	python3 "$TMP/trickle.py" $PORT_R'
kill -TERM $PID_R 2>/dev/null; wait $PID_R 2>/dev/null; rm -f "$TMP/R.pid"

expect_success "--max-conns-per-ip, --max-conns, --read-timeout are checked (exit 2)" '
	"$KJ" serve --max-conns-per-ip 0 2>"$TMP/e1"; test $? = 2 &&
	"$KJ" serve --read-timeout 1.5 2>"$TMP/e2"; test $? = 2 &&
	"$KJ" serve --max-conns 8 --max-conns-per-ip 9 2>"$TMP/e3"; test $? = 2 &&
	"$KJ" serve --help | grep -q -- "--max-conns-per-ip N" &&
	"$KJ" serve --help | grep -q -- "--read-timeout S"'

# ---- the shutdown hand-back ------------------------------------------------------
HDB=$TMP/h.sqlite
start H "$HDB"
expect_success "a slow job is being judged, its owner set" '
	test "$(http $PORT_H POST /v1/jobs --data-binary @"$TMP/slow.json")" = 202 &&
	id=$(json_get "$TMP/resp" id) && wait_state $PORT_H $id running && echo $id >"$TMP/id_h" &&
	test -n "$(q "$HDB" "SELECT owner FROM jobs WHERE id = $id")"'
ID_H=$(cat "$TMP/id_h" 2>/dev/null || echo 0)
kill -TERM $PID_H; sleep 0.5; kill -TERM $PID_H; wait $PID_H; rm -f "$TMP/H.pid"
expect_success "a second signal hands it back: queued, attempts kept, no owner" '
	grep -q "handed back" "$TMP/H.log" &&
	row=$(q "$HDB" "SELECT state || \" \" || attempts || \" [\" || owner || \"]\" FROM jobs WHERE id = $ID_H") &&
	echo "$row" && test "$row" = "queued 1 []"'

# ---- start-up checks ---------------------------------------------------------------
mkdir -p "$TMP/home"
ln -s "$KJ_ROOT/tasks" "$TMP/home/tasks"
# serve_at HOME NAME [env...]: runs a server that must refuse to start; its
# exit status in $TMP/NAME.rc, its stderr in $TMP/NAME.err
serve_at() {
	local home=$1 name=$2
	shift 2
	env KJUDGE_HOME="$home" "$@" timeout 20 "$KJ" serve --db "$TMP/$name.sqlite" --listen 127.0.0.1:0 \
		--port-file "$TMP/$name.port" 2>"$TMP/$name.err"
	echo $? >"$TMP/$name.rc"
	cat "$TMP/$name.err"
}
expect_success "KJUDGE_HOME without include/: refuses to start (3), naming the header" '
	serve_at "$TMP/home" noinc; test "$(cat "$TMP/noinc.rc")" = 3 &&
	grep -q "include/candidate/kjudge_cpu.h" "$TMP/noinc.err" && ! test -s "$TMP/noinc.port"'

mkdir -p "$TMP/home/include"
ln -s "$KJ_ROOT/include/candidate" "$TMP/home/include/candidate"
expect_success "a missing worker binary: refuses to start (3), naming it" '
	serve_at "$TMP/home" nowrk KJ_WORKER="$TMP/no-such-worker"; test "$(cat "$TMP/nowrk.rc")" = 3 &&
	grep -q "no-such-worker" "$TMP/nowrk.err"'

expect_success "no sandbox (bwrap missing): refuses to start (3) and names --unsafe-no-sandbox" '
	serve_at "$TMP/home" nobw KJ_BWRAP="$TMP/no-bwrap"; test "$(cat "$TMP/nobw.rc")" = 3 &&
	grep -q "unsafe-no-sandbox" "$TMP/nobw.err"'

mkdir -p "$TMP/empty/tasks"
expect_success "no task to serve: refuses to start (3)" '
	serve_at "$TMP/empty" notask; test "$(cat "$TMP/notask.rc")" = 3 && grep -q "no task" "$TMP/notask.err"'

KJUDGE_HOME="$TMP/home" start OK "$TMP/ok.sqlite"
expect_success "with everything there it starts" '
	test "$(http $PORT_OK GET /v1/health)" = 200'
kill -TERM $PID_OK 2>/dev/null; wait $PID_OK 2>/dev/null; rm -f "$TMP/OK.pid"

done_testing
