#!/bin/bash
# usage: build.sh <sha>   -> checks out sha in /work/wt/bisect, builds release, copies binary
set -e
sha=$(git -C /work/wt/bisect rev-parse --short=7 "$1")
if [ -x /tmp/bisect-bin/$sha ]; then echo "have $sha"; exit 0; fi
cd /work/wt/bisect
git checkout -q --detach "$sha"
export CARGO_TARGET_DIR=/work/wt/bisect/target CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false
start=$(date +%s)
nice cargo build --release --bin stampede > /tmp/bisect-logs/build-$sha.log 2>&1
cp target/release/stampede /tmp/bisect-bin/$sha
echo "built $sha in $(( $(date +%s) - start ))s"
