#!/usr/bin/env bash
# Every global symbol libpaimonc.a defines carries the project prefix:
# paimon_ (public API) or pm_ (internal), so that a static link can never
# clash with a user's own names. Usage: check_symbols.sh <libpaimonc.a>
set -euo pipefail
lib=$1
[ -f "$lib" ] || { echo "check_symbols: $lib not found"; exit 1; }
all=$(nm -g --defined-only "$lib" | awk 'NF==3 && $2 ~ /[TDBRVWGS]/ {print $3}')
n=$(printf '%s\n' "$all" | grep -c . || true)
[ "$n" -gt 100 ] || { echo "check_symbols: only $n global symbols in $lib; nm output not understood"; exit 1; }
bad=$(printf '%s\n' "$all" | grep -vE '^(pm_|paimon_)' || true)
if [ -n "$bad" ]; then
  echo "check_symbols: global symbols without the pm_/paimon_ prefix:"; printf '  %s\n' $bad; exit 1
fi
echo "check_symbols: $n global symbols, all prefixed pm_ or paimon_"
