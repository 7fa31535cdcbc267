#!/usr/bin/env bash
# Installs the storage servers the object-storage tests start themselves
# (docs/object-storage.md, tests/s3 and tests/objstore):
#
#   <repo>/.peers/go/bin/versitygw        S3, posix back end, SigV4 and conditional writes
#   <repo>/.peers/go/bin/fake-gcs-server  Google Cloud Storage's JSON API
#   <repo>/.peers/azurite/node_modules/   Azurite, Azure Blob Storage (npm)
#
# Idempotent: each one pinned version, skipped when its stamp says it is there.
# Needs Go and npm on PATH (the machine has them); versitygw takes about 2 minutes
# to build, fake-gcs-server about 2, Azurite under a minute.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/.peers/go/bin"
VERSITYGW_VERSION=v1.8.0
FAKE_GCS_VERSION=v1.56.1
AZURITE_VERSION=3.37.0

log() { echo "setup-servers: $*"; }

go_install() { # name module version
  local name=$1 module=$2 version=$3 stamp="$BIN/$1.version" start=$SECONDS
  if [ -x "$BIN/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
    log "$name $version up to date ($BIN)"
    return
  fi
  command -v go >/dev/null || { echo "setup-servers: ERROR: go not on PATH" >&2; exit 1; }
  mkdir -p "$BIN"
  log "building $name $version"
  GOBIN="$BIN" GOFLAGS=-buildvcs=false go install "$module@$version"
  echo "$version" > "$stamp"
  log "$name installed in $((SECONDS - start)) s"
}

go_install versitygw github.com/versity/versitygw/cmd/versitygw "$VERSITYGW_VERSION"
go_install fake-gcs-server github.com/fsouza/fake-gcs-server "$FAKE_GCS_VERSION"

AZ="$ROOT/.peers/azurite"
if [ -f "$AZ/node_modules/azurite/dist/src/blob/main.js" ] &&
   [ "$(cat "$AZ/azurite.version" 2>/dev/null)" = "$AZURITE_VERSION" ]; then
  log "azurite $AZURITE_VERSION up to date ($AZ)"
else
  command -v npm >/dev/null || { echo "setup-servers: ERROR: npm not on PATH" >&2; exit 1; }
  mkdir -p "$AZ"
  start=$SECONDS
  # Azurite declares node >= 22; its blob service runs on Debian's node 20 (tested here).
  (cd "$AZ" && npm install --no-audit --no-fund --loglevel=error "azurite@$AZURITE_VERSION")
  echo "$AZURITE_VERSION" > "$AZ/azurite.version"
  log "azurite installed in $((SECONDS - start)) s"
fi

# Spark's S3A connector, for tests/s3/spark_s3.py (Spark reading and writing silt's S3
# tables): hadoop-aws matching the hadoop-client jars of the pyspark in .peers/venv
# (3.4.2) and the AWS SDK v2 bundle its pom names (hadoop-project 3.4.2:
# aws-java-sdk-v2.version). Kept apart from .peers/jars so that the other Spark tests
# do not carry the 640 MB bundle, and here rather than in setup-peers.sh so that a
# change of them does not rebuild the venv.
S3A_JARS="$ROOT/.peers/jars-s3"
S3A_COORDS=(org.apache.hadoop:hadoop-aws:3.4.2 software.amazon.awssdk:bundle:2.29.52)
for c in "${S3A_COORDS[@]}"; do
  IFS=: read -r _ a v <<<"$c"
  if [ -s "$S3A_JARS/$a-$v.jar" ]; then
    log "$a $v up to date ($S3A_JARS)"
    continue
  fi
  command -v mvn >/dev/null || { echo "setup-servers: ERROR: mvn not on PATH" >&2; exit 1; }
  mkdir -p "$S3A_JARS"
  log "fetching $c"
  mvn -B -q -ntp -C dependency:copy -Dartifact="$c" -DoutputDirectory="$S3A_JARS" \
    > "$S3A_JARS/mvn.log" 2>&1 || { cat "$S3A_JARS/mvn.log" >&2; exit 1; }
  [ -s "$S3A_JARS/$a-$v.jar" ] || { echo "setup-servers: ERROR: no $a-$v.jar" >&2; exit 1; }
done
