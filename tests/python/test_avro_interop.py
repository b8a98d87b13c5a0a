"""Avro interop between paimonc's Avro layer and fastavro, both directions.

There is no Python binding for the Avro layer, so the test compiles the small
C driver tests/unit/avro/avro_driver.c against the static library of a build
directory ($PAIMONC_BINARY_DIR, default <repo>/build) and talks to it through
files: fastavro-written files are dumped by the driver as JSON lines, and
records given as JSON lines are written by the driver and read by fastavro.
Skipped when the build directory or a C compiler is missing.
"""
import io
import json
import os
import random
import shutil
import subprocess

import pytest

import fastavro  # noqa: E402  (scripts/deps.sh installs it)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PAIMONC_BINARY_DIR", os.path.join(ROOT, "build"))
CODECS = ["null", "deflate", "snappy", "zstandard"]

SCHEMA = {
    "type": "record", "name": "record", "namespace": "org.apache.paimon.avro.generated",
    "fields": [
        {"name": "_VERSION", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "b", "type": "boolean"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "s", "type": ["null", "string"], "default": None},
        {"name": "rev", "type": ["string", "null"]},
        {"name": "by", "type": "bytes"},
        {"name": "e", "type": {"type": "enum", "name": "Kind", "symbols": ["ADD", "DELETE"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "F3", "size": 3}},
        {"name": "arr", "type": ["null", {"type": "array", "items": ["null", "long"]}], "default": None},
        {"name": "m", "type": {"type": "map", "values": "string"}},
        {"name": "sub", "type": {"type": "record", "name": "record__SUB", "fields": [
            {"name": "x", "type": "int"},
            {"name": "stats", "type": ["null", {"type": "array", "items": "record__SUB"}], "default": None}]}},
    ],
}


def rand_str(rng):
    return "".join(rng.choice("abcé€😀xyz\"\\/\n") for _ in range(rng.randrange(0, 12)))


def rand_sub(rng, depth):
    stats = None
    if depth < 2 and rng.random() < 0.5:
        stats = [rand_sub(rng, depth + 1) for _ in range(rng.randrange(0, 3))]
    return {"x": rng.randrange(-2**31, 2**31), "stats": stats}


def rand_record(rng):
    return {
        "_VERSION": 2,
        "l": rng.choice([0, -1, 2**63 - 1, -2**63, rng.randrange(-2**40, 2**40)]),
        "b": rng.random() < 0.5,
        "f": rng.randrange(-1000, 1000) / 4.0,
        "d": rng.uniform(-1e6, 1e6),
        "s": None if rng.random() < 0.3 else rand_str(rng),
        "rev": None if rng.random() < 0.3 else rand_str(rng),
        "by": bytes(rng.randrange(256) for _ in range(rng.randrange(0, 20))),
        "e": rng.choice(["ADD", "DELETE"]),
        "fx": bytes(rng.randrange(256) for _ in range(3)),
        "arr": None if rng.random() < 0.3 else [None if rng.random() < 0.2 else rng.randrange(-2**62, 2**62)
                                                for _ in range(rng.randrange(0, 6))],
        "m": {rand_str(rng) + str(i): rand_str(rng) for i in range(rng.randrange(0, 4))},
        "sub": rand_sub(rng, 0),
    }


def to_jsonable(v):
    """fastavro value -> the driver's JSON convention."""
    if isinstance(v, bytes):
        return {"hex": v.hex()}
    if isinstance(v, dict):
        return {k: to_jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_jsonable(x) for x in v]
    return v


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    lib = os.path.join(BUILD, "libpaimonc.a")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not os.path.exists(lib) or not cc or not shutil.which("pkg-config"):
        pytest.fail("needs a CMake build directory with libpaimonc.a (scripts/test.sh builds build/) and a C compiler")
    out = str(tmp_path_factory.mktemp("avro") / "avro_driver")
    libs = subprocess.run(["pkg-config", "--libs", "jansson", "libzstd", "liblz4", "zlib"],
                          check=True, capture_output=True, text=True).stdout.split()
    cmd = [cc, "-std=c11", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "src"),
           os.path.join(ROOT, "tests/unit/avro/avro_driver.c"), lib] + libs + ["-lsnappy", "-o", out]
    cache = os.path.join(BUILD, "CMakeCache.txt")
    if os.path.exists(cache) and "LIBDEFLATE_FOUND:INTERNAL=1" in open(cache).read():
        cmd[-2:-2] = ["-ldeflate"]  # core/crc32.c took libdeflate
    cmd[-2:-2] = ["-ldl"]  # format/vortex dlopens its optional shim
    # A sanitizer build's library needs the sanitizer runtimes.
    cache = os.path.join(BUILD, "CMakeCache.txt")
    if os.path.exists(cache) and "PAIMONC_SANITIZE:BOOL=ON" in open(cache).read():
        cmd += ["-fsanitize=address,undefined"]
    subprocess.run(cmd, check=True)
    return out


@pytest.mark.parametrize("codec", CODECS)
def test_fastavro_written_read_by_paimonc(driver, tmp_path, codec):
    rng = random.Random(codec)
    recs = [rand_record(rng) for _ in range(2000)]
    path = tmp_path / ("f_%s.avro" % codec)
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(SCHEMA), recs, codec=codec, sync_interval=4000)
    out = subprocess.run([driver, "dump", str(path)], check=True, capture_output=True, text=True).stdout
    got = [json.loads(line) for line in out.splitlines()]
    assert len(got) == len(recs)
    for g, want in zip(got, recs):
        assert g == to_jsonable(want)


@pytest.mark.parametrize("codec", CODECS)
def test_paimonc_written_read_by_fastavro(driver, tmp_path, codec):
    rng = random.Random("w" + codec)
    recs = [rand_record(rng) for _ in range(3000)]
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    with open(tmp_path / "recs.jsonl", "w") as f:
        for r in recs:
            f.write(json.dumps(to_jsonable(r)) + "\n")
    out = tmp_path / ("p_%s.avro" % codec)
    subprocess.run([driver, "write", codec, str(tmp_path / "schema.json"), str(tmp_path / "recs.jsonl"),
                    str(out), "8000"], check=True)
    with open(out, "rb") as f:
        rd = fastavro.reader(f)
        assert rd.codec == codec
        got = list(rd)
    assert len(got) == len(recs)
    for g, want in zip(got, recs):
        assert to_jsonable(g) == to_jsonable(want)
    # several blocks were written (sync interval 8000 bytes)
    with open(out, "rb") as f:
        blocks = list(fastavro.block_reader(f))
    assert len(blocks) > 3


def test_paimonc_reads_its_own_output_as_fastavro_does(driver, tmp_path):
    """Our writer's file, dumped by our reader, equals fastavro's reading."""
    rng = random.Random(7)
    recs = [rand_record(rng) for _ in range(500)]
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "recs.jsonl").write_text("".join(json.dumps(to_jsonable(r)) + "\n" for r in recs))
    out = tmp_path / "o.avro"
    subprocess.run([driver, "write", "zstandard", str(tmp_path / "schema.json"), str(tmp_path / "recs.jsonl"),
                    str(out)], check=True)
    dumped = subprocess.run([driver, "dump", str(out)], check=True, capture_output=True, text=True).stdout
    with open(out, "rb") as f:
        fa = [to_jsonable(r) for r in fastavro.reader(f)]
    assert [json.loads(x) for x in dumped.splitlines()] == fa
