#!/usr/bin/env bash
# kjudge serve over real HTTP on an ephemeral loopback port (CPU track):
# verdicts by long poll, idempotency keys, cancel, bearer tokens and quotas,
# request limits and JSON errors, graceful stop, and a server killed with
# SIGKILL while it judges: after a restart the job is judged to the end
# exactly once and says it took 2 attempts.
. "$(dirname "$0")/lib.sh"

for t in curl sqlite3; do
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

body "$TMP/key1b.json" level1/relu "$FAIL_C" key-1

DB=$TMP/a.sqlite
start A "$DB"
P=$PORT_A

expect_success "serve starts on an ephemeral loopback port and answers /v1/health" '
	test "$P" -gt 0 && test "$(http $P GET /v1/health)" = 200 &&
	test "$(json_get "$TMP/resp" status)" = ok && test "$(json_get "$TMP/resp" backend)" = cpu'

expect_success "GET /v1/tasks lists the tasks" '
	test "$(http $P GET /v1/tasks)" = 200 && grep -q "\"id\":\"level1/relu\"" "$TMP/resp"'

expect_success "POST /v1/jobs: a passing and a failing candidate are accepted (202)" '
	test "$(http $P POST /v1/jobs --data-binary @"$TMP/pass.json")" = 202 &&
	test "$(json_get "$TMP/resp" state)" = queued && test "$(json_get "$TMP/resp" attempts)" = 0 &&
	ID_PASS=$(json_get "$TMP/resp" id) && echo $ID_PASS >"$TMP/id_pass" &&
	test "$(http $P POST /v1/jobs --data-binary @"$TMP/fail.json")" = 202 &&
	json_get "$TMP/resp" id >"$TMP/id_fail"'
ID_PASS=$(cat "$TMP/id_pass" 2>/dev/null || echo 0)
ID_FAIL=$(cat "$TMP/id_fail" 2>/dev/null || echo 0)

expect_success "a long poll returns the passing verdict" '
	test "$(http $P GET "/v1/jobs/$ID_PASS?wait=60")" = 200 &&
	test "$(json_get "$TMP/resp" state)" = done && test "$(json_get "$TMP/resp" status)" = pass &&
	test "$(json_get "$TMP/resp" verdict.schema)" = kjudge.verdict/1 &&
	test "$(json_get "$TMP/resp" verdict.status)" = pass && test "$(json_get "$TMP/resp" attempts)" = 1'

expect_success "a long poll returns the failing verdict ('"$FAIL_E"')" '
	test "$(http $P GET "/v1/jobs/$ID_FAIL?wait=60")" = 200 &&
	test "$(json_get "$TMP/resp" state)" = done &&
	test "$(json_get "$TMP/resp" verdict.status)" = "$FAIL_E" &&
	test "$(json_get "$TMP/resp" status)" = "$FAIL_E"'

expect_success "idempotency: the same key and body give the same job (200, replayed)" '
	test "$(http $P POST /v1/jobs --data-binary @"$TMP/key1.json")" = 202 &&
	id1=$(json_get "$TMP/resp" id) &&
	test "$(http $P POST /v1/jobs --data-binary @"$TMP/key1.json")" = 200 &&
	test "$(json_get "$TMP/resp" id)" = "$id1" && test "$(json_get "$TMP/resp" replayed)" = true &&
	test "$(q "$DB" "SELECT count(*) FROM jobs WHERE idem_key = \"key-1\"")" = 1'

expect_success "idempotency: the same key with another body is a 409" '
	test "$(http $P POST /v1/jobs --data-binary @"$TMP/key1b.json")" = 409 &&
	grep -q "different request" "$TMP/resp"'

expect_success "malformed JSON is a 400 with a JSON error" '
	test "$(http $P POST /v1/jobs --data-binary "{\"task\": ")" = 400 &&
	json_get "$TMP/resp" error | grep -q "malformed JSON"'

expect_success "a missing source and an unknown field are 400s" '
	test "$(http $P POST /v1/jobs --data-binary "{\"task\": \"level1/relu\"}")" = 400 &&
	test "$(http $P POST /v1/jobs --data-binary "{\"task\": \"level1/relu\", \"source\": \"x\", \"sorce\": 1}")" = 400 &&
	json_get "$TMP/resp" error | grep -q "unknown field"'

expect_success "an unknown task is a 422, an unknown job a 404, an unknown path a 404" '
	test "$(http $P POST /v1/jobs --data-binary "{\"task\": \"level9/nope\", \"source\": \"x\"}")" = 422 &&
	json_get "$TMP/resp" error | grep -q "unknown task" &&
	test "$(http $P GET /v1/jobs/99999)" = 404 && test "$(http $P GET /v2/nothing)" = 404'

expect_success "a wrong method is a 405 with an Allow header" '
	test "$(http $P PUT /v1/jobs -D "$TMP/hdrs")" = 405 && grep -qi "^Allow: GET, POST" "$TMP/hdrs" &&
	test "$(http $P POST /v1/health)" = 405'

expect_success "cancel: a queued job is cancelled, a running one is not (409)" '
	test "$(http $P POST /v1/jobs --data-binary @"$TMP/slow.json")" = 202 &&
	slow=$(json_get "$TMP/resp" id) && wait_state $P $slow running &&
	test "$(http $P POST /v1/jobs --data-binary @"$TMP/pass.json")" = 202 &&
	queued=$(json_get "$TMP/resp" id) && test "$(json_get "$TMP/resp" state)" = queued &&
	test "$(http $P POST /v1/jobs/$queued/cancel)" = 200 &&
	test "$(json_get "$TMP/resp" state)" = cancelled &&
	test "$(http $P GET "/v1/jobs/$queued?wait=1")" = 200 && test "$(json_get "$TMP/resp" state)" = cancelled &&
	test "$(http $P DELETE /v1/jobs/$slow)" = 409 && test "$(json_get "$TMP/resp" state)" = running &&
	echo $slow >"$TMP/id_slow"'
ID_SLOW=$(cat "$TMP/id_slow" 2>/dev/null || echo 0)

kill -TERM $PID_A; wait $PID_A; echo $? >"$TMP/A.rc"; rm -f "$TMP/A.pid"
expect_success "SIGTERM stops gracefully: the running job finishes, then the server exits 0" '
	test "$(cat "$TMP/A.rc")" = 0 &&
	test "$(q "$DB" "SELECT state || \" \" || status FROM jobs WHERE id = $ID_SLOW")" = "done pass" &&
	grep -q "stopping" "$TMP/A.log"'

expect_success "kjudge report scores the served jobs (run serve)" '
	"$KJ" report serve --db "$DB" --format json >"$TMP/rep.json" &&
	test "$(json_get "$TMP/rep.json" judged)" = 4 && test "$(json_get "$TMP/rep.json" correct)" = 3'

# body size limit
start S "$TMP/s.sqlite" --max-body 4096
expect_success "a body over --max-body is a 413" '
	head -c 10000 /dev/zero | tr "\0" a >"$TMP/big" &&
	perl -e "print q({\"task\": \"level1/relu\", \"source\": \"), <STDIN>, q(\"})" <"$TMP/big" >"$TMP/big.json" &&
	test "$(http $PORT_S POST /v1/jobs --data-binary @"$TMP/big.json")" = 413 &&
	json_get "$TMP/resp" error | grep -q "larger than 4096" &&
	test "$(http $PORT_S POST /v1/jobs --data-binary @"$TMP/pass.json")" = 202'
kill -TERM $PID_S 2>/dev/null; wait $PID_S 2>/dev/null; rm -f "$TMP/S.pid"

# tokens
TDB=$TMP/t.sqlite
expect_success "off loopback, serve refuses to start without a token" '
	! "$KJ" serve --db "$TDB" --listen 0.0.0.0:0 2>"$TMP/refuse.err" &&
	grep -q "no bearer token" "$TMP/refuse.err"'

expect_success "token add prints a fresh token once and stores only its SHA-256" '
	"$KJ" serve token add alice --quota 1 --db "$TDB" >"$TMP/tok" &&
	tok=$(cat "$TMP/tok") && test ${#tok} -eq 68 &&
	test "$(q "$TDB" "SELECT count(*) FROM api_tokens WHERE name = \"alice\" AND quota = 1")" = 1 &&
	! grep -q "$tok" "$TDB" &&
	test "$(q "$TDB" "SELECT sha256 FROM api_tokens")" = "$(printf %s "$tok" | sha256sum | cut -d" " -f1)"'
TOK=$(cat "$TMP/tok" 2>/dev/null)

start T "$TDB"
expect_success "with tokens: no token or a wrong one is a 401, /v1/health stays open" '
	test "$(http $PORT_T GET /v1/tasks)" = 401 && json_get "$TMP/resp" error | grep -q "bearer token" &&
	test "$(http $PORT_T POST /v1/jobs --data-binary @"$TMP/pass.json" -H "Authorization: Bearer kjt_wrong")" = 401 &&
	test "$(http $PORT_T GET /v1/health)" = 200'

expect_success "with tokens: the token gets in; its quota of 1 queued job gives 429 beyond" '
	test "$(http $PORT_T POST /v1/jobs --data-binary @"$TMP/slow.json" -H "Authorization: Bearer $TOK")" = 202 &&
	id=$(json_get "$TMP/resp" id) &&
	test "$(http $PORT_T POST /v1/jobs --data-binary @"$TMP/pass.json" -H "Authorization: Bearer $TOK")" = 429 &&
	json_get "$TMP/resp" error | grep -q quota &&
	test "$(http $PORT_T GET "/v1/jobs/$id" -H "Authorization: Bearer $TOK")" = 200'
kill -9 $PID_T 2>/dev/null; wait $PID_T 2>/dev/null; rm -f "$TMP/T.pid"

# SIGKILL while a job runs, then a restart
KDB=$TMP/k.sqlite
start K "$KDB"
expect_success "a slow job is being judged" '
	test "$(http $PORT_K POST /v1/jobs --data-binary @"$TMP/slow.json")" = 202 &&
	id=$(json_get "$TMP/resp" id) && wait_state $PORT_K $id running && echo $id >"$TMP/id_k"'
ID_K=$(cat "$TMP/id_k" 2>/dev/null || echo 0)
kill -9 $PID_K; wait $PID_K 2>/dev/null; rm -f "$TMP/K.pid"

expect_success "kill -9 leaves it running, attempt 1, in the store" '
	test "$(q "$KDB" "SELECT state || \" \" || attempts FROM jobs WHERE id = $ID_K")" = "running 1"'

start K2 "$KDB"
expect_success "after a restart the job is judged again to the end: done, attempts 2" '
	test "$(http $PORT_K2 GET "/v1/jobs/$ID_K?wait=60")" = 200 &&
	test "$(json_get "$TMP/resp" state)" = done && test "$(json_get "$TMP/resp" attempts)" = 2 &&
	test "$(json_get "$TMP/resp" verdict.status)" = pass'

expect_success "... exactly once: one job, one verdict, one finished judgement" '
	cid=$(q "$KDB" "SELECT candidate_id FROM jobs WHERE id = $ID_K") && test -n "$cid" &&
	test "$(q "$KDB" "SELECT count(*) FROM jobs")" = 1 &&
	test "$(q "$KDB" "SELECT count(*) FROM verdicts WHERE candidate_id = $cid")" = 1 &&
	test "$(q "$KDB" "SELECT count(*) FROM judgements WHERE candidate_id = $cid AND finished IS NOT NULL")" = 1 &&
	test "$(q "$KDB" "SELECT count(*) FROM judgements WHERE candidate_id = $cid AND finished IS NULL")" = 1 &&
	grep -q "attempt 2" "$TMP/K2.log"'
# a bounded load: 8 concurrent clients, 3 jobs each, every one long-polled
for c in 1 2 3 4 5 6 7 8; do
	for k in 1 2 3; do body "$TMP/load-$c-$k.json" level1/relu "$PASS_C" "load-$c-$k"; done
done
client() {
	for k in 1 2 3; do
		code=$(curl -s -o "$TMP/lresp-$1-$k" -w '%{http_code}' --data-binary @"$TMP/load-$1-$k.json" \
			"http://127.0.0.1:$PORT_K2/v1/jobs")
		[ "$code" = 202 ] || { echo "client $1 job $k: $code"; return 1; }
	done
	for k in 1 2 3; do
		id=$(json_get "$TMP/lresp-$1-$k" id)
		for _ in 1 2 3; do
			curl -s -o "$TMP/lresp-$1-$k" "http://127.0.0.1:$PORT_K2/v1/jobs/$id?wait=60"
			[ "$(json_get "$TMP/lresp-$1-$k" state)" = done ] && break
		done
		echo "$id $(json_get "$TMP/lresp-$1-$k" state) $(json_get "$TMP/lresp-$1-$k" status)"
	done
}
expect_success "8 concurrent clients x 3 jobs: all 24 accepted, judged and answered, none lost" '
	for c in 1 2 3 4 5 6 7 8; do client $c >"$TMP/client-$c" & done; wait &&
	cat "$TMP"/client-* >"$TMP/load" && cat "$TMP/load" &&
	test "$(wc -l <"$TMP/load")" = 24 &&
	test "$(grep -c " done pass$" "$TMP/load")" = 24 &&
	test "$(cut -d" " -f1 "$TMP/load" | sort -u | wc -l)" = 24 &&
	test "$(q "$KDB" "SELECT count(*) FROM jobs WHERE idem_key LIKE \"load-%\" AND state = \"done\"")" = 24 &&
	test "$(q "$KDB" "SELECT count(*) FROM verdicts v JOIN jobs j ON j.candidate_id = v.candidate_id WHERE j.idem_key LIKE \"load-%\"")" = 24'
kill -TERM $PID_K2 2>/dev/null; wait $PID_K2 2>/dev/null; rm -f "$TMP/K2.pid"

done_testing
