"""Build of the paimonc Python package.

The extension module ``paimonc._native`` is compiled from the library's own C
sources (globbed, since layers gain files over time) plus the binding file
python/paimonc/_native.c, so ``pip install <repo>`` needs only a C compiler and
the development packages of the libraries libpaimonc links (jansson).
"""
import glob
import os
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
# The layer list, lowest first, is src/LAYERS (CMakeLists.txt reads it too);
# missing directories are skipped.
with open(os.path.join(HERE, "src", "LAYERS")) as _f:
    LAYERS = [l.strip() for l in _f if l.strip() and not l.startswith("#")]


def _layer_has_sources(layer):
    return bool(glob.glob(os.path.join(HERE, "src", layer, "*.c")))


# Libraries libpaimonc needs: jansson always; the compression libraries only
# once the codec layer (which uses them) has sources, so that a checkout
# without it still builds with just libjansson-dev installed.
LIBRARIES = ["jansson"]
if _layer_has_sources("codec"):
    LIBRARIES += ["zstd", "lz4", "z", "snappy"]
# CRoaring (deletion vectors, meta layer); Debian's libroaring-dev has no .pc.
if _layer_has_sources("meta"):
    LIBRARIES += ["roaring"]
# dlopen of the optional vortex shim (format/vortex); in libc on glibc >= 2.34.
if _layer_has_sources("format/vortex"):
    LIBRARIES += ["dl"]
# index/: libm for the vector distances, dlopen of libpaimon_vindex_ffi.
if _layer_has_sources("index"):
    LIBRARIES += ["m", "dl", "pthread"]
# libdeflate (optional): a CRC-32 about twice zlib's (core/crc32.c).
DEFINES = [("_GNU_SOURCE", None)]
def _have_pkg(name):
    try:
        return subprocess.run(["pkg-config", "--exists", name]).returncode == 0
    except OSError:
        return False


if os.environ.get("PAIMONC_WITH_LIBDEFLATE", "1") != "0" and _have_pkg("libdeflate"):
    LIBRARIES += ["deflate"]
    DEFINES.append(("PAIMONC_HAVE_LIBDEFLATE", None))


def rel(path):
    return os.path.relpath(path, HERE)


def library_sources():
    srcs = []
    for layer in LAYERS:
        srcs.extend(sorted(glob.glob(os.path.join(HERE, "src", layer, "*.c"))))
    return [rel(s) for s in srcs]


def pkg_config(flag, name):
    try:
        out = subprocess.run(["pkg-config", flag, name], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return out.split()


def extra_dirs(flag, prefix):
    dirs = []
    for lib in LIBRARIES:
        for tok in pkg_config(flag, lib):
            if tok.startswith(prefix) and tok[2:] not in dirs:
                dirs.append(tok[2:])
    return dirs


def headers():
    hs = glob.glob(os.path.join(HERE, "include", "paimonc", "*.h"))
    hs.extend(glob.glob(os.path.join(HERE, "include", "paimonc", "sys", "*.h")))
    for layer in LAYERS:
        hs.extend(glob.glob(os.path.join(HERE, "src", layer, "*.h")))
    return sorted(rel(h) for h in hs)


native = Extension(
    "paimonc._native",
    sources=library_sources() + sorted(rel(p) for p in glob.glob(os.path.join(HERE, "python", "paimonc", "*.c"))),
    include_dirs=["include", "src"] + extra_dirs("--cflags-only-I", "-I"),
    library_dirs=extra_dirs("--libs-only-L", "-L"),
    libraries=LIBRARIES,
    depends=headers() + ["python/paimonc/_native.h"],
    define_macros=DEFINES,
    extra_compile_args=["-std=c11", "-fvisibility=hidden", "-Wno-unused-parameter"],
)

setup(ext_modules=[native])
