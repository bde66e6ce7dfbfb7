#!/usr/bin/env bash
# The device bundle of another git revision, for measuring two builds side by
# side on the GPU machine (bench/sandbox_cost.sh --before ... --after ...).
#
#   bench/make_before.sh [REV] [DEST]      # defaults: 959bd26 (main before the
#                                          # sandbox work), build/device-before
#
# Exports REV's tracked files (git archive: no worktree, no change to .git)
# into a temporary folder, runs `make device-bundle` there on every core, and
# copies kjudge, kjudge-worker and libkjudge.so into DEST: the layout
# `make device-bundle` gives build/device (kjudge finds libkjudge.so through
# its $ORIGIN run path and kjudge-worker beside itself), without the GPU tests,
# plus REVISION (the commit).  A full build takes ~3 minutes on 2 cores.
#
# libkjudge.so (~30 MB, nearly all of it the CUDA fatbin) is stored gzipped,
# as libkjudge.so.gz (~12 MB), so that DEST, build/device (~31 MB) and .gpu
# (~8 MB) together stay under the device machine's 64 MiB carry limit;
# bench/sandbox_cost.sh unpacks it into its scratch folder and puts it first
# on LD_LIBRARY_PATH for that build.  To run DEST/kjudge by hand:
#   gunzip -k DEST/libkjudge.so.gz    (and remove DEST/libkjudge.so before carrying)
# PACK=0 leaves libkjudge.so unpacked.  Environment: JOBS (make -j, default:
# the core count), KEEP=1 keeps the temporary tree (its path is printed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-959bd26}
dest=${2:-$root/build/device-before}
case $dest in /*) ;; *) dest=$PWD/$dest ;; esac
jobs=${JOBS:-$(nproc)}

sha=$(git -C "$root" rev-parse --verify "$rev^{commit}") || {
	echo "make_before: no commit $rev in $root" >&2
	exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/kjbefore.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
	echo "make_before: keeping $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi
echo "make_before: $rev = $sha ($(git -C "$root" log -1 --format=%s "$sha" | cut -c1-72))" >&2
git -C "$root" archive --format=tar "$sha" | tar -x -C "$work"
start=$(date +%s)
if ! make -C "$work" -j"$jobs" device-bundle >"$work/make.log" 2>&1; then
	tail -n 30 "$work/make.log" >&2
	echo "make_before: the build of $rev failed (log above)" >&2
	exit 1
fi
grep -q 'nvcc' "$work/make.log" || echo "make_before: warning: built without nvcc (no CUDA track in this bundle)" >&2

tmp=$dest.tmp.$$
rm -rf "$tmp" && mkdir -p "$tmp"
cp "$work/build/device/kjudge" "$work/build/device/kjudge-worker" "$work/build/device/libkjudge.so" "$tmp/"
printf '%s\n' "$sha" >"$tmp/REVISION"
[ "${PACK:-1}" = 1 ] && gzip -9 "$tmp/libkjudge.so"
rm -rf "$dest" && mv "$tmp" "$dest"
mib() { awk -v b="$1" 'BEGIN{printf "%.1f MiB", b / 1048576}'; }
echo "make_before: $dest from $rev in $(( $(date +%s) - start )) s, $(mib "$(du -sb "$dest" | cut -f1)"):" >&2
ls -l "$dest" >&2
# what the device machine would be sent: the working tree (tracked and
# untracked, not ignored), build/device, DEST and .gpu
tree=$(cd "$root" && git ls-files -co --exclude-standard -z | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)
sum=$tree line="working tree $(mib "$tree")"
for d in "$root/build/device" "$dest" "$root/.gpu"; do
	if [ -d "$d" ]; then
		b=$(du -sb "$d" | cut -f1)
		sum=$((sum + b)) line="$line + ${d#$root/} $(mib "$b")"
	else
		line="$line + ${d#$root/} (absent)"
	fi
done
echo "make_before: carried: $line = $(mib "$sum") (limit 64 MiB)" >&2
