"""Drives the Java Paimon interop harness (tests/interop/java) from pytest.

The harness runs many commands in one JVM (`batch`), so a test collects its
commands, runs them at once and gets back (exit code, stdout) per command.
If Java or the jars are missing the harness build fails loudly: Java interop
tests never pass silently.
"""
import json
import os
import subprocess
from pathlib import Path

from paimonc.types import to_type_string

ROOT = Path(__file__).resolve().parents[2]
# Java 1.4.2's Parquet reader logs a WARN per file column it does not find (every _ROW_ID /
# _SEQUENCE_NUMBER and every column a partial file lacks): batch(quiet_parquet=True) mutes it.
QUIET_PARQUET = "-Dorg.slf4j.simpleLogger.log.org.apache.paimon.format.parquet.ParquetReaderFactory=error"
HARNESS = ROOT / "tests" / "interop" / "java"


def build():
    p = subprocess.run([str(HARNESS / "build.sh")], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("Java interop harness build failed:\n" + p.stdout[-2000:] + p.stderr[-4000:])


def run(*args, check=True):
    p = subprocess.run([str(HARNESS / "run.sh"), *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"java {' '.join(map(str, args))} failed ({p.returncode}):\n{p.stderr[-4000:]}")
    return p


def batch(commands, quiet_parquet=False):
    """Runs commands (lists of args) in one JVM; returns ([(rc, stdout)], stderr)."""
    text = "\n".join(" ".join(str(a) for a in cmd) for cmd in commands) + "\n"
    env = None
    if quiet_parquet:
        env = dict(os.environ)
        env["PAIMON_INTEROP_JAVA_OPTS"] = (env.get("PAIMON_INTEROP_JAVA_OPTS", "") + " " + QUIET_PARQUET).strip()
    p = subprocess.run([str(HARNESS / "run.sh"), "batch"], input=text, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise AssertionError(f"java batch failed ({p.returncode}):\n{p.stderr[-4000:]}")
    results, cur = [], []
    for line in p.stdout.split("\n"):
        if line.startswith("### "):
            results.append((int(line[4:]), "\n".join(cur)))
            cur = []
        else:
            cur.append(line)
    if len(results) != len(commands):
        raise AssertionError(f"java batch: {len(results)} results for {len(commands)} commands\n"
                             f"stdout tail: {p.stdout[-2000:]}\nstderr tail: {p.stderr[-4000:]}")
    return results, p.stderr


def describe_paimonc(table):
    """The paimonc view of a table in the harness's canonical `describe` form
    (types in Java's SQL form: to_type_string, not pypaimon-style str())."""
    return {
        "fields": [{"id": f.id, "name": f.name, "type": to_type_string(f.type), "description": f.description}
                   for f in table.fields],
        "partitionKeys": list(table.partition_keys),
        "primaryKeys": list(table.primary_keys),
        "options": dict(sorted(table.options.items())),
        "comment": table.comment,
        "highestFieldId": table.highest_field_id,
        "schemaId": table.schema_id,
    }
