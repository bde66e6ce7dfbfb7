#!/usr/bin/env bash
# Runs a command on the GPU machine with what kjudge's binaries need there:
# the Debian runtime libraries carried in .gpu/ (libelf, libjansson, libffi,
# libsqlite3, libseccomp, libmicrohttpd, libpq and what libpq needs) and
# bubblewrap (bwrap, which the sandbox runs) are unpacked into /tmp/kjlibs.
# A carried library whose soname the machine already has (`ldconfig -p`,
# x86-64) is deleted there, so that only what the system lacks goes on
# LD_LIBRARY_PATH: the commands run under it (PyTorch among them) keep the
# system's own libssl, gnutls, krb5 and the rest.  /tmp/kjlibs/usr/bin goes
# at the end of PATH (a system bwrap, where there is one, comes first).
# One line says which carried libraries were kept.  Binaries are built on the
# development machine and carried in build/.
#   bash tests/gpu/device.sh make test-gpu
set -u
if [ -d .gpu ] && ls .gpu/*.deb >/dev/null 2>&1; then
	rm -rf /tmp/kjlibs && mkdir -p /tmp/kjlibs
	for f in .gpu/*.deb; do dpkg -x "$f" /tmp/kjlibs; done
	# the sonames this machine provides (x86-64 entries of the loader's cache)
	have=" $({ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | awk '/x86-64/ {printf "%s ", $1}')"
	[ -n "${have// /}" ] || echo "device.sh: ldconfig -p listed nothing: every carried library is kept"
	kept="" ndrop=0 libpath=""
	for d in /tmp/kjlibs/usr/lib/x86_64-linux-gnu /tmp/kjlibs/lib/x86_64-linux-gnu; do
		[ -d "$d" ] || continue
		# each real library file with the links that point to it: one of
		# those names is its soname (the runtime packages ship the soname link)
		declare -A names=() links=()
		for l in "$d"/lib*.so*; do
			r=$(readlink -f "$l")
			[ -f "$r" ] || continue
			names[$r]="${names[$r]:-} ${l##*/}"
			[ -L "$l" ] && links[$r]="${links[$r]:-} $l"
		done
		for r in "${!names[@]}"; do
			sys=""
			for n in ${names[$r]}; do
				case $have in *" $n "*) sys=$n ;; esac
			done
			if [ -n "$sys" ]; then
				rm -f "$r" ${links[$r]:-}
				ndrop=$((ndrop + 1))
			else # the shortest name: libelf.so.1 rather than libelf-0.188.so
				kept="$kept $(for n in ${names[$r]}; do echo "${#n} $n"; done | sort -n | head -n 1 | cut -d' ' -f2)"
			fi
		done
		unset names links
		ls "$d"/lib*.so* >/dev/null 2>&1 && libpath=$libpath${libpath:+:}$d
	done
	[ -n "$libpath" ] && export LD_LIBRARY_PATH=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export PATH=$PATH:/tmp/kjlibs/usr/bin
	kept=$(printf '%s\n' $kept | sort | paste -sd ' ')
	echo "device.sh: carried libraries kept (this system lacks them): ${kept:-none}; $ndrop dropped (the system has them); bwrap: $(command -v bwrap || echo none)"
fi
export PATH=/usr/local/cuda/bin:$PATH
# cuDNN (the conv/pool baseline): the toolkit's copy, else PyTorch's wheel
if [ ! -e /usr/local/cuda/lib64/libcudnn.so.9 ] && ! ldconfig -p 2>/dev/null | grep -q 'libcudnn.so.9 '; then
	d=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
	[ -n "$d" ] && [ -e "$d/libcudnn.so.9" ] && export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
exec "$@"
