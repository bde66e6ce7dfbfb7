#!/usr/bin/env bash
# kjudge refine over real HTTP: a stand-in chat-completions server
# (tests/cli/mock_chat.c, libmicrohttpd, built here) on a loopback port
# replays recorded answers - a compile error, then a wrong kernel, then a
# correct one - after a first 429; the key travels as a bearer token; the
# report shows the pass at round 2.
. "$(dirname "$0")/lib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "1..0 # SKIP the sqlite3 command is not installed (Debian package sqlite3)"
	exit 0
fi
S=$KJ_ROOT/examples/solutions/cpu
B=$KJ_ROOT/examples/broken/cpu
MOCK=$TMP/mock_chat
MOCK_PID=
trap '[ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

mkdir -p "$TMP/answers"
{ printf 'Sure:\n```c\n'; cat "$B/compile_error.c"; printf '```\n'; } >"$TMP/answers/level1__relu.0.txt"
{ printf 'Fixed the typo:\n```c\n'; cat "$B/wrong_result.c"; printf '```\n'; } >"$TMP/answers/level1__relu.1.txt"
{ printf 'Removed the scale:\n```c\n'; cat "$S/relu.c"; printf '```\n'; } >"$TMP/answers/level1__relu.2.txt"

expect_success "the stand-in server builds (libmicrohttpd, jansson)" '
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -o "$MOCK" "$KJ_ROOT/tests/cli/mock_chat.c" -lmicrohttpd -ljansson'
"$MOCK" "$TMP/port" "$TMP/answers" "$TMP/log" 1 sk-mock-key &
MOCK_PID=$!
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$TMP/port" 2>/dev/null)
URL=http://127.0.0.1:$PORT/v1
DB=$TMP/h.sqlite
R="--backend cpu --perf-budget 0.1 --db $DB --name h1"

expect_success "the server listens on a loopback port" 'test -n "$PORT" && test "$PORT" -gt 0'
expect_success "3 rounds against it: compile error, mismatch, pass (exit 0)" '
	OPENAI_API_KEY=sk-mock-key "$KJ" refine level1/relu --model mock-1 --base-url "$URL" --rounds 3 $R --json \
		>"$TMP/h.json" 2>"$TMP/h.err" &&
	test "$(json_get "$TMP/h.json" asked)" = 3 && test "$(json_get "$TMP/h.json" best.0.round)" = 2 &&
	test "$(json_get "$TMP/h.json" best.0.status)" = pass'
expect_success "the first request got 429 and was retried after Retry-After" '
	test "$(cut -d" " -f1 "$TMP/log" | tr "\n" " ")" = "429 200 200 200 " &&
	grep -q "HTTP 429: Rate limit reached.*retry 1 of 6 in 1.0 s (Retry-After)" "$TMP/h.err"'
expect_success "every request carried Authorization: Bearer <key>, and named the task and round" '
	test "$(grep -c " Bearer sk-mock-key$" "$TMP/log")" = 4 &&
	test "$(cut -d" " -f2,3 "$TMP/log" | tr "\n" " ")" = "level1/relu 0 level1/relu 0 level1/relu 1 level1/relu 2 "'
expect_success "the store has the three verdicts in order, with model and rounds" '
	test "$(sqlite3 "$DB" "SELECT c.round || v.status || c.model FROM candidates c JOIN verdicts v ON v.candidate_id = c.id ORDER BY c.round" | tr "\n" " ")" = "0compile_errormock-1 1mismatchmock-1 2passmock-1 "'
expect_success "report: fast_p@N is 0, 0, then 1 at round 2; one fix (mismatch -> pass)" '
	"$KJ" report h1 --db "$DB" --format json >"$TMP/r.json" &&
	test "$(json_get "$TMP/r.json" fast_p_at_n.0.fast_p.0)" = 0 && test "$(json_get "$TMP/r.json" fast_p_at_n.1.fast_p.0)" = 0 &&
	test "$(json_get "$TMP/r.json" fast_p_at_n.2.fast_p.0)" = 1 && test "$(json_get "$TMP/r.json" fix_vs_optimize.fixes)" = 1 &&
	test "$(json_get "$TMP/r.json" error_classes.status.compile_error)" = 1'
expect_success "a wrong key stops the run: exit 2 with the endpoint's message, nothing stored" '
	WRONG=nope "$KJ" refine level1/relu --model mock-2 --base-url "$URL" --api-key-env WRONG --rounds 1 $R 2>"$TMP/k.err";
	test $? -eq 2 && grep -q "HTTP 401: Incorrect API key provided" "$TMP/k.err" &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM candidates WHERE model = \"mock-2\"")" = 0'
expect_success "no server there: retries, then the chain stops (exit 1)" '
	kill "$MOCK_PID" && wait "$MOCK_PID" 2>/dev/null; MOCK_PID=;
	OPENAI_API_KEY=k "$KJ" refine level1/relu --model mock-3 --base-url "$URL" --retries 1 --rounds 1 $R 2>"$TMP/c.err";
	test $? -eq 1 && grep -q "gave up after 2 tries" "$TMP/c.err"'

done_testing
