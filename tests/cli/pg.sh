#!/bin/sh
# A throw-away PostgreSQL server for tests and benchmarks, on 127.0.0.1 and a
# socket in its own folder, with trust authentication and fsync off.
#
#   tests/cli/pg.sh start DIR   prints the URL (postgresql://kjudge@127.0.0.1:PORT/kjudge)
#   tests/cli/pg.sh stop DIR    stops it (DIR may then be removed)
#
# The server binaries are PG_BIN, else the newest /usr/lib/postgresql/*/bin
# (Debian's postgresql package).  Exit status of start: 0 running; 77 no
# server binaries here; 1 it would not start (the log is printed).  As root
# the server runs as the postgres user (or nobody): initdb refuses root.
set -u
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
	echo "usage: $0 start|stop DIR" >&2
	exit 2
fi

bin=${PG_BIN:-}
if [ -z "$bin" ]; then
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && bin=$d
	done
fi
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
	echo "pg.sh: no PostgreSQL server binaries (initdb, pg_ctl) in PG_BIN or /usr/lib/postgresql/*/bin" \
		"(Debian package postgresql)" >&2
	exit 77
fi

as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$pguser" -- "$@"
	else
		"$@"
	fi
}
pguser=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
	if id postgres >/dev/null 2>&1; then pguser=postgres; else pguser=nobody; fi
fi

case $cmd in
start)
	mkdir -p "$dir/data" || exit 1
	if [ "$(id -u)" -eq 0 ]; then
		# the server user must reach DIR through its parents
		p=$dir
		while [ "$p" != / ] && [ "$p" != . ]; do
			chmod o+x "$p" 2>/dev/null
			p=$(dirname "$p")
		done
		chown -R "$pguser" "$dir" || exit 1
	fi
	chmod 700 "$dir/data"
	if ! as_user "$bin/initdb" -D "$dir/data" -U kjudge --auth=trust -E UTF8 --no-locale \
		>"$dir/initdb.log" 2>&1; then
		echo "pg.sh: initdb failed:" >&2
		cat "$dir/initdb.log" >&2
		exit 1
	fi
	tries=0
	while [ $tries -lt 8 ]; do
		tries=$((tries + 1))
		port=$((20000 + ($$ * 7 + tries * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/') / 1000) % 30000))
		if as_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
			-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" \
			start >"$dir/pg_ctl.log" 2>&1; then
			echo "$port" >"$dir/port"
			as_user "$bin/psql" -X -q -h 127.0.0.1 -p "$port" -U kjudge -d postgres \
				-c "CREATE DATABASE kjudge" >/dev/null 2>&1 || {
				echo "pg.sh: cannot create database kjudge" >&2
				exit 1
			}
			echo "postgresql://kjudge@127.0.0.1:$port/kjudge"
			exit 0
		fi
	done
	echo "pg.sh: the server would not start; its log:" >&2
	cat "$dir/server.log" "$dir/pg_ctl.log" >&2 2>/dev/null
	exit 1
	;;
stop)
	[ -d "$dir/data" ] || exit 0
	as_user "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
	exit 0
	;;
*)
	echo "usage: $0 start|stop DIR" >&2
	exit 2
	;;
esac
