#!/usr/bin/env bash
# The benchmark command (README): bash scripts/bench.sh [--smoke] [streamplay-bench arguments]
#
# Installs the Debian packages with the peer players (mpv, GStreamer; mpg123 and ffplay come
# with the base packages), makes the benchmark media (cached in .build-bench-media/, or
# .build-bench-media-smoke/ with --smoke), starts nginx, PulseAudio, PipeWire and the fault server on
# 127.0.0.1 (scripts/test-servers.sh --bench), builds streamplay and streamplay-bench in
# release mode and runs the comparison harness, then the library's micro-benchmarks
# (`swift package benchmark`, ordo-one/benchmark).
#
# A full run writes Benchmarks/results/results.json, results.md and micro.md (all replaced), the
# format scenario's formats.json and formats.md, and the scale scenario's scale.json and
# scale.md: a run that leaves out the format (or scale) scenario leaves its files as they were,
# and one of those scenarios alone leaves results.json and results.md.
# --smoke is a quick check that every scenario works (small files, one round): it writes into
# the temporary directory instead, never over the committed results, and prints the Markdown
# at the end. Further arguments go to streamplay-bench (e.g. --rounds 3, --scenarios seek).
# STREAMPLAY_KEEP_BENCH_DIR=1 keeps the temporary directory (server logs, access log, smoke
# results) after a successful run; after a failed one it is always kept.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
# Puts the micro-benchmark target (and the ordo-one/benchmark dependency) into the package.
export STREAMPLAY_BENCHMARKS=1

# --smoke may come anywhere; everything else is the harness's.
smoke=0
args=()
for arg in "$@"; do
  if [[ $arg == --smoke ]]; then
    smoke=1
  else
    args+=("$arg")
  fi
done

# The command line the report quotes (a later --command-line among the arguments wins). Words
# with characters a shell would take specially are single-quoted.
command_line="bash scripts/bench.sh"
[[ $smoke -eq 1 ]] && command_line+=" --smoke"
for arg in "${args[@]}"; do
  if [[ $arg =~ ^[[:alnum:]_./=:,+@%-]+$ ]]; then
    command_line+=" $arg"
  else
    command_line+=" ${arg@Q}"
  fi
done

bash scripts/install-deps.sh --peers

# GStreamer's command for seek trials (gst-launch has no start option), and the position
# scenario's method floor (raw PCM through libpulse, read with pa_stream_get_time), built each
# run: each is one small file, and a stale binary could outlive a change to it.
tools="$root/.build-bench-tools"
mkdir -p "$tools"
# shellcheck disable=SC2046  # pkg-config's flags are separate words
gcc -O2 -Wall -Werror -o "$tools/gst-play-from" Benchmarks/Peers/gst-play-from.c \
  $(pkg-config --cflags --libs gstreamer-1.0)
# shellcheck disable=SC2046
gcc -O2 -Wall -Werror -o "$tools/pa-position-probe" Benchmarks/Peers/pa-position-probe.c \
  $(pkg-config --cflags --libs libpulse)
export PATH="$tools:$PATH"

# After the install, so that every tool is there to ask. Each in $(...): a version that cannot
# be read (or a SIGPIPE from head) must not end the run.
echo "bench.sh: tools:"
echo "  $(mpg123 --version 2>&1 | head -n1)"
echo "  $(mpv --version 2>&1 | head -n1)"
echo "  $(ffplay -version 2>&1 | head -n1)"
echo "  $(gst-launch-1.0 --version 2>&1 | head -n1)"

smoke_args=()
if [[ $smoke -eq 1 ]]; then
  media="$root/.build-bench-media-smoke"
  bash scripts/make-bench-media.sh "$media" --smoke
  smoke_args=(--smoke)
else
  media="$root/.build-bench-media"
  bash scripts/make-bench-media.sh "$media"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamplay-bench.XXXXXX")
status=1
# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
  bash "$root/scripts/test-servers.sh" stop "$tmp" || true
  if [[ $status -eq 0 && ${STREAMPLAY_KEEP_BENCH_DIR:-0} != 1 ]]; then
    rm -rf "$tmp"
  else
    echo "bench.sh: server logs and access log kept in $tmp" >&2
  fi
}
trap cleanup EXIT

if [[ $smoke -eq 1 ]]; then
  out="$tmp/results"
else
  out="$root/Benchmarks/results"
fi
mkdir -p "$out"

# --owner-pid: should this script be killed outright, the servers stop by themselves.
MEDIA_DIR="$media" bash scripts/test-servers.sh start "$tmp" --bench --owner-pid $$
# shellcheck source=/dev/null
source "$tmp/env.sh"

# Release builds with the Swift runtime linked in, the way a player would ship: fewer shared
# libraries to load at every start. All with the same flags, so the library compiles once.
# streamplay is a C front end; the command runs in libStreamPlayCLI.so, which it loads from
# beside it (--version does not load it).
swift build -c release --static-swift-stdlib --product streamplay
swift build -c release --static-swift-stdlib --product StreamPlayCLI
swift build -c release --static-swift-stdlib --product streamplay-bench

.build/release/streamplay-bench --media "$media" --streamplay .build/release/streamplay \
  --json "$out/results.json" --markdown "$out/results.md" --summary "$out/summary.md" \
  --formats-json "$out/formats.json" --formats-markdown "$out/formats.md" \
  --scale-json "$out/scale.json" --scale-markdown "$out/scale.md" "${smoke_args[@]}" \
  --command-line "$command_line" "${args[@]}"

# The micro-benchmarks read the media through STREAMPLAY_BENCH_MEDIA (bench-media.json). The
# plugin (benchmark 1.38) has no option to shorten a run; each benchmark bounds itself
# (maxDuration, maxIterations), and with --smoke the files it decodes are the short ones.
# Captured first, so that a failed run leaves no half table in micro.md.
export STREAMPLAY_BENCH_MEDIA=$media
swift package benchmark --target StreamPlayBenchmarks --no-progress --format markdown \
  --path stdout >"$tmp/micro.out"
{
  echo "# Micro-benchmarks"
  echo
  echo "\`$command_line\`, $(date -u +%Y-%m-%d); \`swift package benchmark\` (ordo-one/benchmark)."
  echo
  # Without the plugin's colour codes and its note about an optional interposer.
  sed -e 's/\x1b\[[0-9;]*m//g' -e '/^Warning: running with the Swift runtime interposer/d' \
    -e '/^Note: skipping LD_PRELOAD/d' "$tmp/micro.out"
} >"$out/micro.md"

# A full run (every scenario and every player: no --scenarios, no --players; --rounds still
# runs them all) puts its summary into the README, between the markers.
full_run=1
for arg in "${args[@]}"; do
  case $arg in --scenarios | --scenarios=* | --players | --players=*) full_run=0 ;; esac
done
if [[ $smoke -eq 0 && $full_run -eq 1 ]]; then
  python3 - "$root/README.md" "$out/summary.md" <<'PY'
import sys
readme_path, summary_path = sys.argv[1], sys.argv[2]
begin, end = "<!-- bench-summary:begin -->", "<!-- bench-summary:end -->"
readme = open(readme_path, encoding="utf-8").read()
summary = open(summary_path, encoding="utf-8").read()
start, stop = readme.index(begin) + len(begin), readme.index(end)
open(readme_path, "w", encoding="utf-8").write(readme[:start] + "\n" + summary + readme[stop:])
PY
fi

if [[ $smoke -eq 1 ]]; then
  for report in results.md formats.md scale.md; do
    if [[ -f $out/$report ]]; then
      echo
      cat "$out/$report"
    fi
  done
  echo
  cat "$out/micro.md"
else
  echo "bench.sh: results in $out" >&2
fi
status=0
