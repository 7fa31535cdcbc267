#!/usr/bin/env bash
# Installs the storage servers the object-storage tests start themselves
# (tests/s3/README.md): versitygw, an S3 server with a posix back end that
# enforces Signature V4 and conditional writes.
#
#   <repo>/.peers/go/bin/versitygw   (go install, from the Go module proxy)
#
# Idempotent: exits 0 at once when the binary of the pinned version is there.
# Needs Go on PATH (the machine has it); building takes about 2 minutes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/.peers/go/bin"
VERSITYGW_VERSION=v1.8.0
STAMP="$BIN/versitygw.version"

log() { echo "setup-servers: $*"; }

if [ -x "$BIN/versitygw" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$VERSITYGW_VERSION" ]; then
  log "versitygw $VERSITYGW_VERSION up to date ($BIN)"
  exit 0
fi
command -v go >/dev/null || { echo "setup-servers: ERROR: go not on PATH" >&2; exit 1; }
mkdir -p "$BIN"
log "building versitygw $VERSITYGW_VERSION (about 2 minutes)"
start=$SECONDS
GOBIN="$BIN" GOFLAGS=-buildvcs=false go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
echo "$VERSITYGW_VERSION" > "$STAMP"
log "versitygw installed in $((SECONDS - start)) s"
