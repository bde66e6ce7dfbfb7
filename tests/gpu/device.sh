#!/usr/bin/env bash
# Runs a command on the GPU machine with what kjudge's binaries need there:
# the Debian runtime libraries carried in .gpu/ (libelf, libjansson, libffi,
# libsqlite3, libseccomp, libmicrohttpd, libpq and what libpq needs)
# are unpacked into /tmp/kjlibs and put on LD_LIBRARY_PATH.  Binaries are built
# on the development machine and carried in build/.
#   bash tests/gpu/device.sh make test-gpu
set -u
if [ -d .gpu ] && ls .gpu/*.deb >/dev/null 2>&1; then
	mkdir -p /tmp/kjlibs
	for f in .gpu/*.deb; do dpkg -x "$f" /tmp/kjlibs; done
	export LD_LIBRARY_PATH=/tmp/kjlibs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export PATH=/usr/local/cuda/bin:$PATH
# cuDNN (the conv/pool baseline): the toolkit's copy, else PyTorch's wheel
if [ ! -e /usr/local/cuda/lib64/libcudnn.so.9 ] && ! ldconfig -p 2>/dev/null | grep -q 'libcudnn.so.9 '; then
	d=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
	[ -n "$d" ] && [ -e "$d/libcudnn.so.9" ] && export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
exec "$@"
