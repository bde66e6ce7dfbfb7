"""A PEP 517 build backend for the kjudge package, standard library only.

`pip install ./python` asks the backend named in pyproject.toml for a wheel.
The usual backend (setuptools) must come from the network under pip's build
isolation, and Debian's needs the separate `wheel` package, so a machine
without either could not install a package of four Python files.  This one
writes the wheel itself: the files of kjudge/, METADATA from pyproject.toml's
[project] strings, WHEEL and RECORD (PEP 427).  It also makes sdists and
editable installs (`pip install -e ./python`, PEP 660: a .pth file naming
this folder).
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "kjudge"
TAG = "py3-none-any"


def _project():
    """[project]'s `key = "string"` lines and the version from __init__.py."""
    meta, section = {}, None
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            m = re.match(r"^\[(.+)\]$", line)
            if m:
                section = m.group(1).strip()
                continue
            m = re.match(r'^([A-Za-z0-9_-]+)\s*=\s*"([^"\\]*)"\s*(#.*)?$', line)
            if section == "project" and m:
                meta[m.group(1)] = m.group(2)
    with open(os.path.join(HERE, PACKAGE, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    if not m:
        raise RuntimeError("kjudge/__init__.py has no __version__ line")
    meta["version"] = m.group(1)
    return meta


def _metadata(meta):
    lines = ["Metadata-Version: 2.1", "Name: " + meta["name"], "Version: " + meta["version"]]
    if "description" in meta:
        lines.append("Summary: " + meta["description"])
    if "requires-python" in meta:
        lines.append("Requires-Python: " + meta["requires-python"])
    return "\n".join(lines) + "\n"


def _sources():
    """(path in the archive, path on disk) of the package's .py files, sorted."""
    out = []
    for root, dirs, files in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                full = os.path.join(root, name)
                out.append((os.path.relpath(full, HERE).replace(os.sep, "/"), full))
    return out


def _dist_info(meta):
    return "%s-%s.dist-info" % (meta["name"], meta["version"])


def _write_wheel(wheel_directory, meta, entries):
    """entries: (archive path, bytes); adds the dist-info files and RECORD."""
    info = _dist_info(meta)
    entries = list(entries) + [
        (info + "/METADATA", _metadata(meta).encode()),
        (info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: kjudge_build\n"
                           "Root-Is-Purelib: true\nTag: %s\n" % TAG).encode()),
    ]
    name = "%s-%s-%s.whl" % (meta["name"], meta["version"], TAG)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            z.writestr(arc, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append("%s,sha256=%s,%d" % (arc, digest.decode(), len(data)))
        record.append(info + "/RECORD,,")
        z.writestr(info + "/RECORD", "\n".join(record) + "\n")
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    meta = _project()
    entries = []
    for arc, full in _sources():
        with open(full, "rb") as f:
            entries.append((arc, f.read()))
    return _write_wheel(wheel_directory, meta, entries)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    meta = _project()
    return _write_wheel(wheel_directory, meta, [(PACKAGE + "_editable.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    meta = _project()
    base = "%s-%s" % (meta["name"], meta["version"])
    files = [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
             ("kjudge_build.py", os.path.join(HERE, "kjudge_build.py"))] + _sources()
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for arc, full in files:
            t.add(full, arcname=base + "/" + arc, recursive=False)
        pkg_info = _metadata(meta).encode()
        ti = tarfile.TarInfo(base + "/PKG-INFO")
        ti.size = len(pkg_info)
        t.addfile(ti, io.BytesIO(pkg_info))
    return name
