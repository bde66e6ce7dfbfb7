# Helpers of the kjudge serve tests (sourced after lib.sh): request bodies, a
# server in the background, HTTP calls, polling, and the candidates they post
# (a passing, a failing and a slow correct one, their bodies in $TMP).

# body OUT TASK FILE [KEY]: a POST /v1/jobs body
body() {
	perl -MJSON::PP -e '
		local $/; open my $f, "<", $ARGV[2] or die "cannot open $ARGV[2]";
		my %b = (task => $ARGV[1], source => scalar <$f>);
		$b{idempotency_key} = $ARGV[3] if defined $ARGV[3];
		open my $o, ">", $ARGV[0] or die; print $o JSON::PP->new->canonical->encode(\%b);
	' "$@"
}

# start NAME DB [options]: a server in the background; its pid in PID_NAME,
# its port in PORT_NAME
start() {
	local name=$1 db=$2
	shift 2
	rm -f "$TMP/$name.port"
	"$KJ" serve --db "$db" --listen 127.0.0.1:0 --port-file "$TMP/$name.port" --no-perf --seeds 1 \
		--timeout 20 "$@" >>"$TMP/$name.log" 2>&1 &
	local pid=$!
	echo $pid >"$TMP/$name.pid"
	eval "PID_$name=$pid"
	for _ in $(seq 300); do
		[ -s "$TMP/$name.port" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	eval "PORT_$name=$(cat "$TMP/$name.port" 2>/dev/null || echo 0)"
}

# http PORT METHOD PATH [curl args...]: the status code on stdout, the body in $TMP/resp
http() {
	local port=$1 method=$2 path=$3
	shift 3
	curl -s -o "$TMP/resp" -w '%{http_code}' -X "$method" "$@" "http://127.0.0.1:$port$path"
}

# wait_state PORT ID STATE: polls until the job is in STATE (at most ~60 s)
wait_state() {
	for _ in $(seq 600); do
		http "$1" GET "/v1/jobs/$2" >/dev/null
		[ "$(json_get "$TMP/resp" state)" = "$3" ] && return 0
		sleep 0.1
	done
	cat "$TMP/resp"
	return 1
}

PASS_C=$KJ_ROOT/examples/solutions/cpu/relu.c
FAIL_C=$KJ_ROOT/examples/broken/cpu/wrong_result.c
FAIL_T=$(hdr "$FAIL_C" task)
FAIL_E=$(hdr "$FAIL_C" expect)
# a slow, correct candidate: it spins inside the kernel function on every call
cat >"$TMP/slow.c" <<'EOF'
#include <stdint.h>
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	volatile uint64_t spin = 0;
	for (uint64_t i = 0; i < 400000000u; i++)
		spin += i;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0 ? x[i] : 0;
}
EOF
body "$TMP/pass.json" level1/relu "$PASS_C"
body "$TMP/fail.json" "$FAIL_T" "$FAIL_C"
body "$TMP/slow.json" level1/relu "$TMP/slow.c"
body "$TMP/key1.json" level1/relu "$PASS_C" key-1
