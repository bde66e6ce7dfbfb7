#!/usr/bin/env bash
# kjudge serve against bad clients and bad set-ups (CPU track): a job handed
# back at shutdown has no owner.
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

done_testing
