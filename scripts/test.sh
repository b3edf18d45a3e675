#!/usr/bin/env bash
# The test command (README and CI): bash scripts/test.sh [extra `swift test` arguments]
#
# Installs the Debian packages, makes the test media (cached in .build-media/), starts the
# real servers the tests use (PulseAudio null sink, nginx over HTTP and HTTPS, a black hole and
# a refused port; all on 127.0.0.1, see scripts/test-servers.sh), and runs `swift test` with
# their addresses in the environment; then, if that passed, the DocC build, the example player,
# the engine tests under Thread and Address Sanitizer, the fuzz targets and a smoke run of the
# benchmark harness. Exits with the first failing step's status. Extra arguments go to
# `swift test` and skip every step after it. Variables:
#   STREAMPLAY_SANITIZERS=0     skips the sanitizer passes and the fuzz targets
#   STREAMPLAY_FUZZ_SECONDS=N   seconds per fuzz target (15 here; scripts/fuzz.sh alone runs 30)
#   STREAMPLAY_DOCS=0           skips the DocC build (which must have no warning)
#   STREAMPLAY_BENCH_SMOKE=0    skips the benchmark smoke run
#   STREAMPLAY_KEEP_TEST_DIR=1  keeps the servers' directory (logs, access log) after the run
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

bash scripts/install-deps.sh
bash scripts/install-python-deps.sh   # Authlib for the OAuth 2 test server, in .build-venv/
bash scripts/make-test-media.sh "$root/.build-media"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamplay-test.XXXXXX")
status=1
# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
  bash "$root/scripts/test-servers.sh" stop "$tmp" || true
  summarize_failures
  if [[ $status -eq 0 && ${STREAMPLAY_KEEP_TEST_DIR:-0} != 1 ]]; then
    rm -rf "$tmp"
  else
    echo "test.sh: server logs and access log kept in $tmp" >&2
  fi
}
trap cleanup EXIT

# The failed tests of every pass, repeated at the very end: a CI log is often read from its
# tail, and the passes print thousands of lines before their verdict.
summarize_failures() {
  [[ -s "$tmp/failures.log" ]] || return 0
  echo "test.sh: failed tests (each pass's log is in $tmp):" >&2
  head -n 40 "$tmp/failures.log" | cut -c1-400 >&2 || true
  # The sound servers log warnings and errors (PulseAudio its notices too): their last lines
  # tell of a stream the server would not link or run, which the tests' own lines cannot.
  local log
  for log in pulse pipewire wireplumber pipewire-pulse; do
    [[ -s "$tmp/$log.log" ]] || continue
    echo "test.sh: the last lines of $log.log:" >&2
    grep -v libcamera "$tmp/$log.log" | tail -n 8 | cut -c1-300 >&2 || true
  done
}
# Runs `swift test` with the given arguments, its output also kept in $tmp/NAME.log; the
# failed tests' lines are added to $tmp/failures.log. Returns swift test's status. Called with
# errexit off (its callers turn it off around the passes).
run_tests() {
  local name=$1
  shift
  # Not `| tee`: a pipe lasts until every process holding it has exited, and a failed test can
  # leave a child behind (a recorder, a CPU load) that inherited swift test's output; the run
  # would then wait for it forever. swift test's own exit ends the pass.
  swift test "$@" > >(tee "$tmp/$name.log") 2>&1
  local result=$?
  sleep 1   # what tee has not written out yet
  if [[ $result -ne 0 ]]; then
    echo "[$name]" >> "$tmp/failures.log"
    grep -E '✘ Test .*(recorded an issue|failed)|error: |Fatal error|ThreadSanitizer|AddressSanitizer|LeakSanitizer' \
      "$tmp/$name.log" | grep -v '✘ Test run with' >> "$tmp/failures.log" || true
  fi
  return "$result"
}

# --owner-pid: should this script be killed outright, the servers stop by themselves.
MEDIA_DIR="$root/.build-media" bash scripts/test-servers.sh start "$tmp" --owner-pid $$
# shellcheck source=/dev/null
source "$tmp/env.sh"
# Suites that need the servers are skipped by a plain `swift test` when their environment is
# absent; here they must run, so that anything missing fails instead.
export STREAMPLAY_REQUIRE_SERVERS=1

echo "tools: $(mpg123 --version 2>&1 | head -n1); $(nginx -v 2>&1 | head -n1);" \
  "$(pulseaudio --version 2>&1 | head -n1)"

# The tests' temporary files (downloads, configurations, Foundation's atomic writes) go into
# this run's folder, removed with it, rather than piling up in the system's. The bench smoke
# run at the end gets the system's back: its servers' sockets live in a folder of its own.
system_tmpdir=${TMPDIR-}
mkdir -p "$tmp/tmp"
export TMPDIR="$tmp/tmp"

# Serial on purpose: the tests share one PulseAudio null sink, whose monitor must hear one
# player at a time.
# The CLI tests run the streamplay executable, which `swift test` alone does not build.
swift build
set +e
run_tests plain --no-parallel "$@"
status=$?
set -e

# The DocC catalogs and every public symbol's documentation build without a warning (a broken
# symbol link, an undocumented parameter). STREAMPLAY_DOCS=0 skips this.
if [[ $status -eq 0 && ${STREAMPLAY_DOCS:-1} == 1 && $# -eq 0 ]]; then
  echo "test.sh: the documentation (DocC)"
  set +e
  swift package generate-documentation --target StreamPlay --target StreamPlayServices \
    --target StreamPlayTesting --target StreamPlayMPRIS --warnings-as-errors > "$tmp/docc.log" 2>&1
  status=$?
  set -e
  if [[ $status -ne 0 ]]; then
    grep -v "prohibited flag" "$tmp/docc.log" | tail -n 60 >&2
    echo "test.sh: the documentation has warnings or errors (above)" >&2
  fi
fi

# The example player (Examples/QueuePlayer) builds against the library and plays a queue.
if [[ $status -eq 0 && $# -eq 0 ]]; then
  echo "test.sh: the example player"
  set +e
  bash scripts/check-example.sh "$root/.build-media"
  status=$?
  set -e
fi

# The engine's tests again under Thread Sanitizer and Address Sanitizer (with LeakSanitizer),
# each in a build folder of its own. Not the tests that run the `streamplay` executable (the
# command, not the engine, is what they check; and its C front end carries no sanitizer runtime
# for the command library it loads) nor the memory test (sanitizers hold freed memory back).
# Nor the suites that compare a whole play after a rebuffer or a sound-server restart with
# the reference, sample for sample, from the sink's monitor: under a sanitizer the engine's
# threads run several times slower, and those comparisons failed there intermittently (one
# suite in each of two fresh-clone runs on 2026-11-24; most likely the sound server ran dry
# before the decoder paused it, not yet proven); the plain pass above runs them. Nor the two stalled
# stream tests that compare the same way after a stall (the third, a play failing, runs). Nor
# the 70-player test: under the thread sanitizer in a fresh-clone run on 2026-11-29, 4 of its
# players on PipeWire never left their prebuffer, their streams listed as corked (not yet
# understood; PipeWire's pulse server answers a stream's creation only once the session manager
# has linked it, and lists a stream it is not running as corked, so a stream never made ready
# is one candidate; the test's failure now names each stuck player's stream state); the plain
# pass runs it.
# Nor, to keep the whole run inside CI's time (it had grown to 86 of its 90 minutes), what the
# other engine suites already put through the same code under the sanitizers, where the test
# spends its time waiting on a sound server in real time: the service clients against their
# stand-ins (Swift over the HTTP client that the engine's own suites exercise; their in-memory
# suites still run), every format recorded whole from both servers' monitors
# (monitorEqualsReference: the pause, queue, latency and format suites play through the same
# sinks), the seek bisection on a loaded machine (a timing test; the other seek tests run), and
# the album's joins recorded through PulseAudio (the gapless hand-over runs in its other tests).
# The plain pass runs them all. STREAMPLAY_SANITIZERS=0 skips the sanitizer passes (a quick
# local run); they are skipped too when extra arguments select tests.
if [[ $status -eq 0 && ${STREAMPLAY_SANITIZERS:-1} == 1 && $# -eq 0 ]]; then
  for sanitizer in thread address; do
    echo "test.sh: the engine tests under the $sanitizer sanitizer"
    set +e
    LSAN_OPTIONS="suppressions=$root/.ci/lsan-suppressions.txt" \
      TSAN_OPTIONS="halt_on_error=1" \
      run_tests "$sanitizer" --no-parallel --sanitize="$sanitizer" --scratch-path ".build-$sanitizer" \
      --skip 'CommandLineTests|commandLineTitle|commandLineRedaction|AppTokenProcessTests|LongStreamTests|SoundServerRestartTests|suspendedSinkStream|unlinkedPipeWireStream|manyPlayersOneClient|FFmpegRebufferTests|StreamPlayIntegrationTests\.(SparkTests|SpotifyTests|SoundCloudTests|ResolverTests|SpotifyDevelopmentModeStandInTests|SoundCloudStandInSchemaTests|SpotifySchemaTests)/|monitorEqualsReference|bisectionUnderLoad|gaplessThroughPulseAudio'
    status=$?
    set -e
    [[ $status -eq 0 ]] || break
  done
  # The parsers of network bytes under libFuzzer, a bounded time each.
  if [[ $status -eq 0 ]]; then
    set +e
    bash scripts/fuzz.sh "${STREAMPLAY_FUZZ_SECONDS:-15}"
    status=$?
    set -e
  fi
fi
# A smoke run of the benchmark harness (one round, small files) keeps it working; its timings
# are not judged here. STREAMPLAY_BENCH_SMOKE=0 skips it.
if [[ $status -eq 0 && ${STREAMPLAY_BENCH_SMOKE:-1} == 1 && $# -eq 0 ]]; then
  echo "test.sh: a smoke run of the benchmark harness"
  set +e
  (
    if [[ -n $system_tmpdir ]]; then export TMPDIR=$system_tmpdir; else unset TMPDIR; fi
    bash scripts/bench.sh --smoke
  )
  status=$?
  set -e
fi
exit "$status"
