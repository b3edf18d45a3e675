#!/usr/bin/env bash
# Plays the demo track: bash scripts/demo.sh
#
# Makes .build-media/demo.mp3 (synthesised by sox, see scripts/make-demo.sh), builds the
# streamplay player, serves the track with nginx on 127.0.0.1 and streams it over HTTP to your
# sound server. Without a reachable sound server (no PulseAudio or PipeWire), the player
# writes what it would have played to demo-output.wav in the current directory instead.
set -euo pipefail

start_dir=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

bash scripts/install-deps.sh
bash scripts/make-demo.sh "$root/.build-media/demo.mp3"

# Build before starting the server: it is the long step, and may fail. The same build as the
# benchmarks' (scripts/bench.sh): the executable (a small front end) and the engine library it
# loads from beside it, libStreamPlayCLI.so, which has the Swift runtime linked in.
swift build -c release --static-swift-stdlib --product streamplay
swift build -c release --static-swift-stdlib --product StreamPlayCLI
player="$root/.build/release/streamplay"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamplay-demo.XXXXXX")
cleanup() {
  bash "$root/scripts/test-servers.sh" stop "$tmp" || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# nginx only, plain HTTP; the watchdog stops it even if this script is killed.
MEDIA_DIR="$root/.build-media" bash scripts/test-servers.sh start "$tmp" --http-only --owner-pid $$
# shellcheck source=/dev/null
source "$tmp/env.sh"
url="$STREAMPLAY_TEST_HTTP/demo.mp3"

# Ask the sound server the user's environment points at (PULSE_SERVER, XDG_RUNTIME_DIR, ...).
if command -v pactl >/dev/null 2>&1 && timeout 5 pactl info >/dev/null 2>&1; then
  echo "demo: playing $url"
  "$player" "$url"
else
  out="$start_dir/demo-output.wav"
  echo "demo: no sound server reachable: writing the demo to demo-output.wav instead ($out)"
  "$player" --output "wav:$out" "$url"
  echo "demo: wrote $out"
fi
