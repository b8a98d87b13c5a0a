#!/usr/bin/env bash
# Runs the Java Paimon interop harness: run.sh <command> [args...]  (see README.md).
# Does not build; call build.sh first.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ ! -f "$HERE/target/paimon-interop.jar" ]]; then
  echo "run.sh: $HERE/target/paimon-interop.jar missing; run build.sh first" >&2
  exit 2
fi
# CatalogContext loads Hadoop configuration from these; keep the environment neutral.
unset HADOOP_CONF_DIR HADOOP_HOME
FLAGS=(
  -Xmx1g
  -XX:+IgnoreUnrecognizedVMOptions
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false
  -Dio.netty.tryReflectionSetAccessible=true
  -Duser.timezone=UTC
  -Dfile.encoding=UTF-8
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
  -Dorg.slf4j.simpleLogger.logFile=System.err
  -Dorg.slf4j.simpleLogger.log.org.apache.paimon.utils.HadoopUtils=error
)
exec java "${FLAGS[@]}" ${PAIMON_INTEROP_JAVA_OPTS:-} -cp "$HERE/target/paimon-interop.jar:$HERE/target/lib/*" interop.PaimonInterop "$@"
