#!/usr/bin/env bash
# Sets up the test peers: independent implementations (Spark with Delta,
# delta-rs, DuckDB, pyarrow) that tests use to check silt's output.
#
#   <repo>/.peers/venv   Python venv with tests/peers/requirements.txt
#   <repo>/.peers/jars   the Delta jars for Spark, from tests/peers/jars.txt
#   <repo>/.peers/jdbc   the PostgreSQL JDBC driver for tests/server (pinned, checksum)
#   <repo>/.peers/stamp  written last, when everything above checked out
#
# Idempotent: when the stamp matches the inputs (requirements.txt, jars.txt,
# this script, the python3 version) and the venv and jars are in place, it
# exits 0 at once. Otherwise it rebuilds the venv from scratch and fetches the
# jars. Any failure exits non-zero. `--force` rebuilds regardless.
#
# Needs: python3 (with venv) and java 17+ on PATH, mvn, and access to PyPI and
# Maven Central (scripts/bootstrap.sh installs the Debian side).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="$ROOT/.peers"
VENV="$PEERS/venv"
JARS="$PEERS/jars"
STAMP="$PEERS/stamp"
REQ="$ROOT/tests/peers/requirements.txt"
JARLIST="$ROOT/tests/peers/jars.txt"

die() { echo "setup-peers: ERROR: $*" >&2; exit 1; }
log() { echo "setup-peers: $*"; }

force=0
case "${1:-}" in
  "") ;;
  --force) force=1 ;;
  *) die "usage: $0 [--force]" ;;
esac

[ -f "$REQ" ] || die "missing $REQ"
[ -f "$JARLIST" ] || die "missing $JARLIST"
command -v python3 >/dev/null || die "python3 not on PATH"

# The coordinates in jars.txt (comments and blank lines dropped).
mapfile -t COORDS < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$JARLIST" | grep -v '^$')
[ "${#COORDS[@]}" -gt 0 ] || die "no jars listed in $JARLIST"
jar_file() { # group:artifact:version -> file name
  local a v
  IFS=: read -r _ a v <<<"$1"
  echo "$a-$v.jar"
}

want_stamp() {
  {
    python3 -c 'import sys; print(sys.version)'
    sha256sum "$REQ" "$JARLIST" "${BASH_SOURCE[0]}" | cut -d' ' -f1
  } | sha256sum | cut -d' ' -f1
}
WANT="$(want_stamp)"

in_place() {
  [ -x "$VENV/bin/python" ] || return 1
  local c
  for c in "${COORDS[@]}"; do [ -s "$JARS/$(jar_file "$c")" ] || return 1; done
}

# 0. The PostgreSQL JDBC driver that tests/server runs (server.jdbc), in its own folder:
# everything in .peers/jars goes on Spark's classpath. Checked on every run, so an
# up-to-date venv does not have to be rebuilt for it.
JDBC_COORD=org.postgresql:postgresql:42.7.14
JDBC_SHA256=73914527305a40cce504b0d3d90b23caf565136912d607ae8ae7c5895512332c
JDBC_JAR="$PEERS/jdbc/postgresql-42.7.14.jar"
if [ ! -s "$JDBC_JAR" ] || [ "$(sha256sum "$JDBC_JAR" | cut -d' ' -f1)" != "$JDBC_SHA256" ]; then
  command -v mvn >/dev/null || die "mvn not on PATH (needed to fetch the JDBC driver)"
  mkdir -p "$PEERS/jdbc"
  rm -f "$JDBC_JAR"
  log "fetching $JDBC_COORD"
  mvn -B -q -ntp -C dependency:copy -Dartifact="$JDBC_COORD" -DoutputDirectory="$PEERS/jdbc" \
    >"$PEERS/mvn.log" 2>&1 || { cat "$PEERS/mvn.log" >&2; die "mvn could not fetch $JDBC_COORD"; }
  [ "$(sha256sum "$JDBC_JAR" | cut -d' ' -f1)" = "$JDBC_SHA256" ] \
    || die "$JDBC_JAR does not have the pinned checksum $JDBC_SHA256"
fi

if [ "$force" = 0 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && in_place; then
  log "up to date ($PEERS)"
  exit 0
fi

start=$SECONDS
rm -f "$STAMP"
mkdir -p "$PEERS"

# Java: Spark 4 needs 17 or newer.
command -v java >/dev/null || die "java not on PATH (Spark needs Java 17+)"
jver="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)"
[ -n "$jver" ] && [ "$jver" -ge 17 ] || die "Java 17+ needed, found: $(java -version 2>&1 | head -1)"

# 1. The venv, always fresh so that nothing unpinned lingers in it.
log "creating venv $VENV"
rm -rf "$VENV"
python3 -m venv "$VENV" || die "python3 -m venv failed (is python3-venv installed?)"
log "installing $(grep -cv '^\s*\(#\|$\)' "$REQ") pinned packages from PyPI"
"$VENV/bin/python" -m pip install --no-input --disable-pip-version-check \
  --progress-bar off -q -r "$REQ" || die "pip install failed"
log "venv ready after $((SECONDS - start))s"

# 2. The Delta jars, with Maven into .peers/jars (checksums enforced).
command -v mvn >/dev/null || die "mvn not on PATH (needed to fetch the Delta jars)"
mkdir -p "$JARS"
for c in "${COORDS[@]}"; do
  f="$(jar_file "$c")"
  if [ ! -s "$JARS/$f" ]; then
    log "fetching $c"
    # Output only on failure (mvn 3.8 prints colour codes even in batch mode).
    if ! mvn -B -q -ntp -C dependency:copy -Dartifact="$c" -DoutputDirectory="$JARS" \
      >"$PEERS/mvn.log" 2>&1; then
      cat "$PEERS/mvn.log" >&2
      die "mvn could not fetch $c"
    fi
  fi
  [ -s "$JARS/$f" ] || die "expected $JARS/$f after fetching $c"
  python3 -c 'import sys, zipfile; sys.exit(zipfile.ZipFile(sys.argv[1]).testzip() is not None)' "$JARS/$f" \
    || die "$JARS/$f is not a valid jar"
done
# Jars no longer listed would end up on Spark's classpath: drop them.
shopt -s nullglob
for f in "$JARS"/*.jar; do
  keep=0
  for c in "${COORDS[@]}"; do [ "$(basename "$f")" = "$(jar_file "$c")" ] && keep=1; done
  [ "$keep" = 1 ] || { log "removing stale $(basename "$f")"; rm -f "$f"; }
done

# 3. Check that every pinned package imports at its pinned version.
"$VENV/bin/python" - "$REQ" <<'EOF' || die "venv check failed"
import re, sys
from importlib import metadata
bad = []
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, want = re.split(r"==", line)
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have != want:
        bad.append(f"{name}: want {want}, have {have}")
import duckdb, pyarrow, deltalake, pyspark, delta, pandas, scikit_build_core  # noqa: F401  the peers import
if bad:
    sys.exit("version mismatch:\n  " + "\n  ".join(bad))
EOF

echo "$WANT" >"$STAMP"
log "done in $((SECONDS - start))s ($PEERS)"
