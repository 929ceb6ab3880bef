#!/bin/sh
# Build the libsdformat 12.3 differential oracle into tests/oracle/build/sdf_oracle.
# Needs: apt-get install -y libsdformat-dev g++ pkg-config   (Debian bookworm: 12.3.0)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/build"
if ! pkg-config --exists sdformat12; then
    echo "build.sh: pkg-config cannot find sdformat12; run: apt-get install -y libsdformat-dev" >&2
    exit 1
fi
CXX=${CXX:-g++}
# shellcheck disable=SC2046
$CXX -O2 -Wall -Wextra -o "$here/build/sdf_oracle" "$here/sdf_oracle.cc" \
    $(pkg-config --cflags --libs sdformat12)
echo "built $here/build/sdf_oracle (libsdformat $(pkg-config --modversion sdformat12))"
