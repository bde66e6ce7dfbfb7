#!/usr/bin/env bash
# kjudge serve against bad clients and bad set-ups (CPU track): a job handed
# back at shutdown has no owner; a server whose KJUDGE_HOME lacks what jobs
# need refuses to start (exit 3) and says what.
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
