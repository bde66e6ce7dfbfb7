#!/usr/bin/env bash
# check_layers.sh [ROOT]: every quoted #include of every file under ROOT/src
# (.c .h .cu .cuh) and ROOT/include/kjudge must stay within the layer rules of
# ROOT/docs/architecture.md (the table between <!-- layers:begin --> and
# <!-- layers:end -->: a layer, its folders, its public headers, the layers it
# may use).  A file's layer is its folder's (the longest folder that matches)
# or, for a public header, the table's row that names it; an include is
# resolved as the compiler does (beside the file, then include/, then src/).
# Prints one line per broken rule, e.g.
#   src/store/x.c:12 includes kjudge/judge.h: store may not use judge
# and exits 1 when there is one; 2 when the table or a file cannot be placed.
# `make check-layers` runs it; `make test` runs that first.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
doc=$root/docs/architecture.md
# headers the build writes (build/gen), included by the file that needs them
generated=" kj_version.h kj_baseline_id.h "

[ -r "$doc" ] || { echo "check_layers: cannot read $doc" >&2; exit 2; }
declare -A dir_layer hdr_layer uses
layers=""
rows=$(awk '/<!-- layers:begin -->/ { on = 1; next } /<!-- layers:end -->/ { on = 0 }
	on && /^\|/ && !/^\|[ -]*\|/ && !/^\| *layer *\|/' "$doc" | tr -d '`')
[ -n "$rows" ] || { echo "check_layers: no layer table in $doc" >&2; exit 2; }
while IFS='|' read -r _ name dirs hdrs may _; do
	name=$(echo $name)
	layers="$layers $name"
	for d in $dirs; do dir_layer[${d%/}]=$name; done
	for h in $hdrs; do hdr_layer[include/kjudge/$h]=$name; done
	uses[$name]=" $(echo "$may" | tr -d ',' | sed 's/—//; s/-//') "
done <<<"$rows"
for l in $layers; do
	for u in ${uses[$l]}; do
		case " $layers " in *" $u "*) ;; *) echo "check_layers: layer $l may use '$u', which is no layer" >&2; exit 2 ;; esac
	done
done

# layer_of PATH (relative to root): sets $layer to its layer, or "" when none
layer_of() {
	local p=$1 d
	layer=""
	case $p in
	include/kjudge/*) layer=${hdr_layer[$p]:-}; return ;;
	esac
	d=$p
	while [ "${d%/*}" != "$d" ]; do
		d=${d%/*}
		if [ -n "${dir_layer[$d]:-}" ]; then
			layer=${dir_layer[$d]}
			return
		fi
	done
}

bad=0
unplaced=0
cd "$root" || exit 2
files=$( { find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \); \
	   ls include/kjudge/*.h; } | sort)
for f in $files; do
	layer_of "$f"
	if [ -z "$layer" ]; then
		echo "$f: no layer in docs/architecture.md (add its folder or header to the table)"
		unplaced=$((unplaced + 1))
	fi
done
# FILE:LINE:INCLUDED of every quoted include, in one pass
while IFS=: read -r f line inc; do
	[ -n "$line" ] || continue
	layer_of "$f"
	own=$layer
	[ -n "$own" ] || continue
	case $generated in *" $inc "*) continue ;; esac
	here=${f%/*}
	if [ -f "$here/$inc" ]; then
		target=$here/$inc
	elif [ -f "include/$inc" ]; then
		target=include/$inc
	elif [ -f "src/$inc" ]; then
		target=src/$inc
	else
		echo "$f:$line includes $inc: no such file under src/ or include/"
		unplaced=$((unplaced + 1))
		continue
	fi
	layer_of "$target"
	to=$layer
	if [ -z "$to" ]; then
		echo "$f:$line includes $inc: $target has no layer in docs/architecture.md"
		unplaced=$((unplaced + 1))
	elif [ "$to" != "$own" ] && [[ ${uses[$own]} != *" $to "* ]]; then
		echo "$f:$line includes $inc: $own may not use $to"
		bad=$((bad + 1))
	fi
done < <(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files |
	 sed 's/^\([^:]*\):\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2:\3/')
[ $unplaced -eq 0 ] || exit 2
[ $bad -eq 0 ] || { echo "check_layers: $bad include(s) break the layers of docs/architecture.md"; exit 1; }
exit 0
