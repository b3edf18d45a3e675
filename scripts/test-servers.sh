#!/usr/bin/env bash
# Starts and stops the real servers the tests talk to, all on 127.0.0.1 and all inside DIR.
#
#   test-servers.sh start DIR [--http-only | --bench] [--owner-pid PID]
#   test-servers.sh stop DIR
#
# start writes DIR/env.sh (source it) with:
#   STREAMPLAY_TEST_HTTP        http://127.0.0.1:PORT   nginx (see the locations below)
#   STREAMPLAY_TEST_HTTPS       https://127.0.0.1:PORT  same locations over TLS
#   STREAMPLAY_TEST_CA          PEM file to trust for STREAMPLAY_TEST_HTTPS (self-signed)
#   STREAMPLAY_TEST_ACCESS_LOG  nginx access log, one request per line, tab-separated fields:
#                               uri status range body_bytes user_agent method scheme
#                               connection connection_requests msec request_time
#                               (empty values are "-"; tabs/quotes in values are \xNN-escaped)
#   STREAMPLAY_TEST_MEDIA       directory nginx serves (MEDIA_DIR, default DIR/media)
#   STREAMPLAY_TEST_BLACKHOLE   http://127.0.0.1:PORT   accepts connections, never answers
#   STREAMPLAY_TEST_REFUSED     http://127.0.0.1:PORT   nothing listens (connection refused)
#   STREAMPLAY_TEST_FAULTS      http://127.0.0.1:PORT   fault-injecting server
#                               (scripts/fault-server.py; see its paths below)
#   STREAMPLAY_TEST_FAULTS_LOG  DIR/faults.log          its request log: one JSON object a
#                               line, {"path","query","range","status","sent","cut","ua",
#                               "method","time","client_closed"}; cut is "close", "reset",
#                               "stall" or null; sent counts body bytes written;
#                               /hls-live/ lines also have a "live" object (fault-server.py)
#   STREAMPLAY_TEST_OAUTH       http://127.0.0.1:PORT   OAuth 2 authorization server and
#                               protected resource (scripts/oauth-server.py: Authlib, from the
#                               venv that scripts/install-python-deps.sh makes; its endpoints
#                               and clients in its docstring)
#   STREAMPLAY_TEST_OAUTH_LOG   DIR/oauth.log           its event log, one JSON object a line,
#                               never a secret in it
#   STREAMPLAY_TEST_OAUTH_CLIENT_SECRET, STREAMPLAY_TEST_OAUTH_PASSWORD  the confidential
#                               client's secret and the test user's password (throw-away, new
#                               at each start)
#   STREAMPLAY_STUB_*           the SoundCloud, Spotify and Spark stand-ins
#                               (scripts/service-stubs.py; the variables and endpoints are in
#                               its docstring): STREAMPLAY_STUB_CONTROL_URL,
#                               STREAMPLAY_STUB_SOUNDCLOUD_{AUTH_URL,TOKEN_URL,API_URL,...}, ...
#   STREAMPLAY_STUB_LOG         DIR/stubs.log           their request log, one JSON object a
#                               line, never a secret in it
#   PULSE_SERVER                unix:DIR/pulse/native   private PulseAudio daemon
#   STREAMPLAY_TEST_PULSE_SINK  streamplay_test         its null sink (44100 Hz, 2 ch, s16le,
#                               the default sink); record it from streamplay_test.monitor
#   PULSE_COOKIE                DIR/pulse/cookie        keeps clients from writing
#                               ~/.config/pulse/cookie (the daemon needs no cookie)
#   DBUS_SESSION_BUS_ADDRESS    unix:path=DIR/dbus/bus  private D-Bus session bus
#                               (dbus-daemon --session), for the MPRIS tests with playerctl
#   STREAMPLAY_TEST_PIPEWIRE_SERVER  unix:DIR/pipewire/run/pulse/native  PipeWire 0.3 with
#                               WirePlumber and pipewire-pulse, headless (its own
#                               XDG_RUNTIME_DIR and XDG_CONFIG_HOME in DIR/pipewire, the
#                               session bus above); its graph runs at 44100 Hz only, so 44.1 kHz
#                               audio passes unchanged (s16 to float and back is exact) and a
#                               48 kHz stream is resampled, as on the PulseAudio daemon
#   STREAMPLAY_TEST_SERVERS_DIR DIR                     for `kill-pulse DIR`, `start-pulse DIR`,
#                               `kill-pipewire DIR` and `start-pipewire DIR`
#   STREAMPLAY_TEST_PIPEWIRE_SINK  streamplay_test      its null sink (44100 Hz, 2 ch, s16le,
#                               the default sink); record it from streamplay_test.monitor
#   STREAMPLAY_TEST_ICECAST     http://127.0.0.1:PORT   Icecast 2.4 internet-radio server
#                               (Debian's icecast2, its own config in DIR/icecast; its error
#                               and access log together in DIR/icecast/log/icecast.log)
#   STREAMPLAY_TEST_ICECAST_MOUNT  /radio.mp3           a live MP3 mount on it: MEDIA_DIR's
#                               cbr-44k-stereo.mp3 (128 kbps CBR, 44.1 kHz, stereo, 30 s),
#                               looped at real time by ffmpeg (-re -stream_loop -1 -c copy,
#                               no ID3v2 tag or Xing/Info frame added: the stream is the file's
#                               audio frames, loop after loop); the title is
#                               "First Song" at start. A listener that sends "Icy-MetaData: 1"
#                               gets "icy-metaint: 16000" and StreamTitle='...'; blocks (the
#                               title at the first block, then only when it changes). Icecast
#                               answers HTTP/1.0 with "Connection: Close", no Content-Length;
#                               audio starts ~0.3 s after the headers with a 16 KiB burst.
#   STREAMPLAY_TEST_ICECAST_ADMIN  admin:PASSWORD       user:password (Basic auth) of the admin
#                               interface; throw-away, new at each start. Set the title with
#                               GET /admin/metadata?mount=/radio.mp3&mode=updinfo&song=TITLE
#                               (TITLE percent-encoded UTF-8, and no &charset: its bytes go into
#                               StreamTitle unchanged; with &charset=UTF-8 Icecast converts to
#                               Latin-1, "&#N;" for what Latin-1 lacks). A new listener has
#                               it in its first block, a connected one in its next (<= 1 s).
#                               Also /admin/listclients?mount=..., /admin/killclient?mount=...
#                               &id=N, /admin/killsource?mount=... (the source reconnects within
#                               ~1 s, the title is then empty until set again); public:
#                               /status-json.xsl.
#   STREAMPLAY_TEST_ICECAST_AAC_MOUNT  /radio.aac       a live AAC mount (audio/aac): MEDIA_DIR's
#                               formats/radio.aac (ADTS, 128 kbps, 44.1 kHz, stereo, 6 s, no
#                               noise substitution, so a mid-stream join decodes bit for bit),
#                               looped by ffmpeg as the MP3 one is (-c copy -f adts). Titles as
#                               for the MP3 mount: "First Song" at start, set with
#                               /admin/metadata?mount=/radio.aac&mode=updinfo&song=TITLE, sent
#                               as ICY metadata. Icecast's burst starts mid-frame.
#   STREAMPLAY_TEST_ICECAST_VORBIS_MOUNT  /radio.ogg    a live Ogg Vorbis mount (application/ogg)
#   STREAMPLAY_TEST_ICECAST_OPUS_MOUNT  /radio.opus     and a live Ogg Opus one (audio/ogg):
#                               MEDIA_DIR's formats/tone.ogg and formats/tone.opus (6 s each)
#                               sent by scripts/ogg-radio-source.py over one PUT connection, each
#                               loop a new chained stream (new serial, its own headers) whose
#                               comment header has TITLE=<the title file's text>. No ICY
#                               metadata (Icecast sends none for Ogg): a listener reads titles
#                               from the comment headers, the current stream's first.
#   STREAMPLAY_TEST_ICECAST_OGG_TITLE_FILE  DIR/icecast/ogg-title  the title of both Ogg mounts'
#                               next chained stream ("First Ogg Song" at start); write it whole
#                               (write and rename): it takes effect when the file next loops,
#                               within 6 s. On the Vorbis mount, /admin/metadata?mode=updinfo
#                               works too: Icecast 2.4.4 starts a chained stream of its own at
#                               once whose comment header has only TITLE=<song>, until the
#                               source's next one. On the Opus mount updinfo changes nothing
#                               (Icecast answers "Mountpoint will not accept URL updates").
# With --http-only only nginx over plain HTTP and the fault server are started (for the demo):
# env.sh then has STREAMPLAY_TEST_HTTP, STREAMPLAY_TEST_ACCESS_LOG, STREAMPLAY_TEST_MEDIA,
# STREAMPLAY_TEST_FAULTS and STREAMPLAY_TEST_FAULTS_LOG.
# With --bench (for scripts/bench.sh) nginx over plain HTTP, PulseAudio, PipeWire (on a bus of
# its own) and the fault server are started (no HTTPS, Icecast or black hole): env.sh then has
# STREAMPLAY_TEST_HTTP, STREAMPLAY_TEST_ACCESS_LOG, STREAMPLAY_TEST_MEDIA, STREAMPLAY_TEST_FAULTS,
# STREAMPLAY_TEST_FAULTS_LOG, PULSE_SERVER, PULSE_COOKIE, STREAMPLAY_TEST_PULSE_SINK and
# STREAMPLAY_TEST_PIPEWIRE_SERVER (not DBUS_SESSION_BUS_ADDRESS). The
# media directory then need not hold the test media (any MEDIA_DIR will do), the fault
# server lives 24 hours rather than two, and PulseAudio runs at nice -11 as a desktop's sound
# server does (the busy-machine scenario loads the players, not the server).
# With --owner-pid PID a watchdog stops everything once PID has gone (a killed test run leaves
# nothing behind).
#
# nginx locations (same on HTTP and HTTPS):
#   /NAME                static file, Range supported (206 + Content-Range). Content-Type by
#                        extension: .mp3 audio/mpeg, .m3u8 application/vnd.apple.mpegurl,
#                        .aac audio/aac, .ts video/mp2t, .m4s video/iso.segment, .mp4
#                        video/mp4, .html, .wav, .info; anything else application/octet-stream
#   /norange/NAME        same file, Range ignored: always 200 with the whole body, and no
#                        Accept-Ranges header (max_ranges 0)
#   /asaudio/NAME        same file, always Content-Type audio/mpeg (page.html too)
#   /slow/NAME           same file, throttled to 16 KiB/s (a 128 kbps MP3 plays at 16000 B/s)
#   /rate/RATE/NAME      same file, throttled to RATE bytes/s (an integer) from the first
#                        byte; Range supported as for /NAME. Like /slow/, nginx sends in
#                        steps about a second apart (16 KiB at once at 16000 B/s), the
#                        first at once
#   /status/{404,403,500,503}   that status; 503 carries "Retry-After: 2"
#   /redirect/NAME       302 -> /NAME;  /redirect2/NAME: 302 -> /redirect/NAME (two hops)
#   /loop                302 -> /loop, forever
#
# Fault server paths (NAME: a file of the media directory; N, SECONDS, CODE, RATE: integers,
# but the SECONDS of stall-after may have a fraction).
# "First request" is per key = path + "?" + query: the query is not used to find the file, so
# give each test its own query (e.g. ?t=UUID) for a fresh first request. "Cut" = the response
# ends early after Content-Length announced the full (range) size. Single Ranges (bytes=A-,
# A-B, -N) get 206 + Content-Range, A >= size gets 416 + "Content-Range: bytes */SIZE".
#   /plain/NAME              the file, Accept-Ranges: bytes, Range honoured; HEAD supported
#   /drop-after/N/NAME       first request cut after N body bytes by a clean close (FIN);
#                            later requests as plain
#   /reset-after/N/NAME      same, the cut is a TCP reset (RST, once the N bytes are acked)
#   /drop-every/N/NAME       every response cut (clean close) after N of its body bytes
#   /stall-after/N/SECONDS/NAME  first request: N bytes, silence for SECONDS, clean close
#   /expire-after/N/NAME     first request cut after N bytes; later requests 403
#   /gone-after/N/NAME       first request cut after N bytes; later requests 410
#   /range-ignored/NAME      always 200 + whole body, no Accept-Ranges; first request cut
#                            after 60000 bytes
#   /retry-after/SECONDS/NAME    first request 503 + "Retry-After: SECONDS"; later as plain
#   /lie-short/NAME          no Range: Content-Length = size, only size*7/10 bytes sent, then
#                            a clean close (every time); with a Range: as plain
#   /lie-long/NAME           no Range: Content-Length = size + size/5, whole file, clean
#                            close; a Range from >= size: 416 "bytes */SIZE"; others as plain
#   /throttle/RATE/NAME      as plain at RATE bytes/s (chunks of up to 4 KiB)
#   /status/CODE             that status (200..599), small text body
#   /mid-garbage/NAME        the file with 8 KiB of fixed-seed random bytes inserted at
#                            size*40/100 (Content-Length and Ranges include them)
#   /repeat/N/NAME           the file N times over as one body (a long stream)
#   /hls-live/ID/index.m3u8  a live HLS stream of MEDIA_DIR/hls/live/ (ID: any token, each
#   /hls-live/ID/SEGMENT     its own stream, clocked from its first request): a segment is
#                            published about every 2 s (by the EXTINFs), the playlist lists
#                            the last 3 published (MEDIA-SEQUENCE = index + 100) and gets
#                            EXT-X-ENDLIST once all are; unpublished segments 404. HEAD too.
#   anything else: 404. HEAD on other than /plain/, /status/ and /hls-live/: 405.
#
# Every wait is bounded. On a failed start the logs of what failed are printed, whatever was
# started is stopped, and the exit status is non-zero. stop is safe to call more than once.
set -euo pipefail

SINK=streamplay_test
START_TIMEOUT=10         # seconds to wait for each server to come up
# Lifetimes are backstops (the --owner-pid watchdog stops everything sooner), long enough for
# a whole test.sh run, sanitizer stages included, on a slow machine.
BLACKHOLE_LIFETIME=7200  # seconds; the black hole exits by itself after this
FAULTS_LIFETIME=7200     # seconds; the fault, OAuth and stand-in servers exit by themselves after this
BENCH_FAULTS_LIFETIME=86400  # seconds; the same with --bench: a full benchmark run may outlast
                             # an hour (bench.sh's --owner-pid watchdog stops it sooner)
SOURCE_LIFETIME=7200     # seconds; the Icecast source (ffmpeg) exits by itself after this
ICECAST_MOUNT=/radio.mp3
ICECAST_FILE=cbr-44k-stereo.mp3  # in the media directory
ICECAST_TITLE="First Song"
ICECAST_AAC_MOUNT=/radio.aac
ICECAST_AAC_FILE=formats/radio.aac   # in the media directory
ICECAST_VORBIS_MOUNT=/radio.ogg
ICECAST_VORBIS_FILE=formats/tone.ogg
ICECAST_OPUS_MOUNT=/radio.opus
ICECAST_OPUS_FILE=formats/tone.opus
ICECAST_OGG_TITLE="First Ogg Song"
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
FAULT_SERVER=$(dirname "$SELF")/fault-server.py
OAUTH_SERVER=$(dirname "$SELF")/oauth-server.py
SERVICE_STUBS=$(dirname "$SELF")/service-stubs.py
OGG_SOURCE=$(dirname "$SELF")/ogg-radio-source.py
VENV_PYTHON=${STREAMPLAY_VENV:-$(cd "$(dirname "$SELF")/.." && pwd)/.build-venv}/bin/python

usage() {
  echo "usage: $0 start DIR [--http-only | --bench] [--owner-pid PID] | $0 stop DIR" >&2
  echo "       $0 kill-pulse DIR | $0 start-pulse DIR | $0 kill-pipewire DIR | $0 start-pipewire DIR" >&2
  exit 2
}

log() { echo "test-servers: $*" >&2; }

# Paths go into nginx.conf in double quotes; nginx would expand "$" there, so keep them plain.
check_path() {
  if [[ ! $1 =~ ^[[:alnum:]_./+@:,=~%\ -]+$ ]]; then
    log "unsupported characters in path: $1"
    exit 1
  fi
}

# N distinct free TCP ports on 127.0.0.1 (all held open together, so they differ).
free_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

port_open() { # PORT: does something accept TCP connections there?
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A process that has exited but is not yet reaped (a zombie; our servers are reparented to
# init, which may be slow to reap) still answers kill -0: count it as gone.
alive() { # PID
  local state
  kill -0 "$1" 2>/dev/null || return 1
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [[ -n $state && $state != Z ]]
}

# True when PID runs and its command line (or, for PipeWire's programs, which take no
# arguments, its environment) mentions DIR: a pid file left from an earlier run must never make
# us signal an unrelated process that got the same pid.
is_ours() { # PID DIR
  local pid=$1 dir=$2 cmdline
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmdline == *"$dir"* ]] && return 0
  tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "XDG_RUNTIME_DIR=$dir/pipewire/run"
}

show_log() { # FILE
  if [[ -s $1 ]]; then
    echo "----- $1 -----" >&2
    tail -n 60 "$1" >&2
    echo "-----" >&2
  else
    log "(no log in $1)"
  fi
}

stop_pidfile() { # DIR NAME
  local dir=$1 name=$2 file="$1/$2.pid" pid children=() i
  [[ -f $file ]] || return 0
  pid=$(<"$file")
  if is_ours "$pid" "$dir"; then
    # nginx workers die with their master on TERM, but not on KILL: remember them.
    mapfile -t children < <(ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ')
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      log "$name ($pid) ignored TERM, killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    for i in "${children[@]}"; do
      if [[ -n $i ]] && alive "$i"; then
        kill -KILL "$i" 2>/dev/null || true
      fi
    done
  fi
  rm -f "$file"
}

do_stop() { # DIR
  local dir=$1 name
  [[ -d $dir ]] || return 0
  dir=$(cd "$dir" && pwd)
  # The watchdog first, so it does not race us; skip it when the watchdog itself is stopping.
  if [[ -f $dir/watchdog.pid && $(<"$dir/watchdog.pid") != "${BASHPID}" ]]; then
    stop_pidfile "$dir" watchdog
  fi
  # The Icecast source before Icecast, so that it does not reconnect in between.
  for name in nginx pulse blackhole faults oauth stubs icecast-source icecast-aac-source \
    icecast-vorbis-source icecast-opus-source icecast \
    pipewire-pulse wireplumber pipewire dbus; do
    stop_pidfile "$dir" "$name"
  done
  rm -f "$dir/watchdog.pid" "$dir/env.sh"
}

# ---------------------------------------------------------------------------------------------

start_pulse() { # DIR [high-priority]
  local dir=$1 pd="$1/pulse" pid i high=no
  [[ ${2:-} == high-priority ]] && high=yes
  mkdir -p "$pd/state" "$pd/config"
  # unix socket paths are limited to 108 bytes
  if [[ ${#pd} -gt 90 ]]; then
    log "DIR is too long for a unix socket path: $pd/native"
    return 1
  fi
  # Our own daemon.conf (via PULSE_CONFIG) so no system or user setting applies: never exit
  # when idle, no realtime/rtkit, and the sink stays at 44100 Hz (alternate rate = default
  # rate: a 48 kHz stream is resampled rather than switching the sink's rate). With
  # high-priority (the benchmark's server) the daemon runs at nice -11, as a desktop's sound
  # server does (PulseAudio's own default, and what PipeWire takes here), so that a busy
  # machine's load competes with the players, not with the server that plays them. No memfd
  # transport (POSIX shared memory instead): with it, PulseAudio 16.1's null sink has aborted
  # on a block a client sent ("Cannot send block reference with non-registered memfd ID",
  # then an assertion in memblock.c), once in a test run and once in a benchmark run, which
  # then failed every play after it.
  cat >"$pd/daemon.conf" <<EOF
daemonize = no
enable-memfd = no
exit-idle-time = -1
use-pid-file = no
realtime-scheduling = no
high-priority = $high
nice-level = -11
flat-volumes = no
default-sample-format = s16le
default-sample-rate = 44100
alternate-sample-rate = 44100
default-sample-channels = 2
default-channel-map = front-left,front-right
EOF
  # -n: no default.pa, so no hardware, bluetooth, X11 or D-Bus modules; we load exactly a null
  # sink and an anonymous unix socket without cookie. Running as root works with a warning.
  # No D-Bus session bus: on a desktop the user's own sound server holds the bus name
  # org.PulseAudio1, and a second daemon that fails to get it exits.
  env -u PULSE_SERVER -u PULSE_SINK -u PULSE_SOURCE -u DISPLAY -u WAYLAND_DISPLAY \
    DBUS_SESSION_BUS_ADDRESS="unix:path=$pd/no-dbus" \
    PULSE_RUNTIME_PATH="$pd" PULSE_STATE_PATH="$pd/state" PULSE_CONFIG_PATH="$pd/config" \
    PULSE_CONFIG="$pd/daemon.conf" PULSE_COOKIE="$pd/cookie" \
    setsid pulseaudio -n --daemonize=no --exit-idle-time=-1 --use-pid-file=no \
    --realtime=no --high-priority=$high --log-target=stderr --log-level=notice \
    -L "module-null-sink sink_name=$SINK format=s16le rate=44100 channels=2 channel_map=front-left,front-right sink_properties=device.description=StreamPlay_test_sink" \
    -L "module-native-protocol-unix socket=$pd/native auth-anonymous=1 auth-cookie-enabled=0" \
    </dev/null >"$dir/pulse.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/pulse.pid"

  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    if ! alive "$pid"; then
      log "PulseAudio exited during start"
      show_log "$dir/pulse.log"
      return 1
    fi
    if PULSE_SERVER="unix:$pd/native" PULSE_COOKIE="$pd/cookie" \
      timeout 5 pactl info >/dev/null 2>&1; then
      PULSE_SERVER="unix:$pd/native" PULSE_COOKIE="$pd/cookie" \
        timeout 5 pactl set-default-sink "$SINK"
      # The daemon gives up high priority quietly when it may not have it (not root, no
      # RLIMIT_NICE): say so, since the benchmark's figures assume it.
      if [[ $high == yes && $(ps -o ni= -p "$pid" | tr -d ' ') != -11 ]]; then
        log "warning: PulseAudio runs without nice -11 (high-priority): a busy machine's load falls on it too"
      fi
      return 0
    fi
    sleep 0.1
  done
  log "PulseAudio did not answer 'pactl info' within ${START_TIMEOUT}s"
  show_log "$dir/pulse.log"
  return 1
}

start_pipewire() { # DIR: PipeWire, WirePlumber and pipewire-pulse on the session bus of start_dbus
  local dir=$1 pw="$1/pipewire" name i server
  server="unix:$pw/run/pulse/native"
  if [[ ${#pw} -gt 90 ]]; then
    log "DIR is too long for a unix socket path: $pw/run/pulse/native"
    return 1
  fi
  mkdir -p "$pw/config/pipewire/pipewire.conf.d" "$pw/state"
  mkdir -p -m 700 "$pw/run"
  # The graph runs at 44100 Hz only, like the PulseAudio daemon's null sink.
  printf '%s\n' 'context.properties = {' '    default.clock.rate = 44100' \
    '    default.clock.allowed-rates = [ 44100 ]' '}' \
    >"$pw/config/pipewire/pipewire.conf.d/streamplay-test.conf"
  # WirePlumber links streams to sinks and needs the session bus; pipewire-pulse is the
  # PulseAudio protocol server the engine talks to.
  for name in pipewire wireplumber pipewire-pulse; do
    env -u PULSE_SERVER -u PULSE_SINK -u DISPLAY -u WAYLAND_DISPLAY \
      XDG_RUNTIME_DIR="$pw/run" XDG_CONFIG_HOME="$pw/config" XDG_STATE_HOME="$pw/state" \
      DBUS_SESSION_BUS_ADDRESS="unix:path=$dir/dbus/bus" \
      setsid "$name" </dev/null >"$dir/$name.log" 2>&1 &
    echo "$!" >"$dir/$name.pid"
    if [[ $name == pipewire ]]; then
      for ((i = 0; i < START_TIMEOUT * 10; i++)); do
        [[ -S $pw/run/pipewire-0 ]] && break
        sleep 0.1
      done
    fi
  done
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    for name in pipewire wireplumber pipewire-pulse; do
      if ! alive "$(<"$dir/$name.pid")"; then
        log "$name exited during start"
        show_log "$dir/$name.log"
        return 1
      fi
    done
    if timeout 5 pactl -s "$server" info >/dev/null 2>&1; then
      # A server just started may not take the module at once: looked for, and tried again.
      if ! timeout 5 pactl -s "$server" list short sinks 2>/dev/null | grep -q "[[:space:]]$SINK[[:space:]]"; then
        timeout 5 pactl -s "$server" load-module module-null-sink sink_name="$SINK" format=s16le rate=44100 \
          channels=2 channel_map=front-left,front-right >/dev/null 2>&1 || { sleep 0.1; continue; }
      fi
      timeout 5 pactl -s "$server" set-default-sink "$SINK" && return 0
    fi
    sleep 0.1
  done
  log "pipewire-pulse did not answer 'pactl info' within ${START_TIMEOUT}s"
  show_log "$dir/pipewire-pulse.log"
  return 1
}

start_dbus() { # DIR: a private session bus on DIR/dbus/bus (its path names DIR for is_ours)
  local dir=$1 i
  mkdir -p "$dir/dbus"
  rm -f "$dir/dbus/bus"
  setsid dbus-daemon --session --nofork --nopidfile --address="unix:path=$dir/dbus/bus" \
    </dev/null >"$dir/dbus.log" 2>&1 &
  echo "$!" >"$dir/dbus.pid"
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    if DBUS_SESSION_BUS_ADDRESS="unix:path=$dir/dbus/bus" timeout 5 dbus-send --session \
      --dest=org.freedesktop.DBus --print-reply /org/freedesktop/DBus org.freedesktop.DBus.GetId \
      >/dev/null 2>&1; then
      return 0
    fi
    alive "$(<"$dir/dbus.pid")" || break
    sleep 0.1
  done
  log "dbus-daemon did not answer within ${START_TIMEOUT}s"
  show_log "$dir/dbus.log"
  return 1
}

make_cert() { # DIR
  local tls="$1/tls"
  mkdir -p "$tls"
  # Self-signed for 127.0.0.1 (CN and IP SAN); being its own issuer, the cert is also the CA
  # file clients trust. Made fresh at each start, valid for two days.
  if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$tls/key.pem" -out "$tls/cert.pem" -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1" >"$1/openssl.log" 2>&1; then
    log "openssl could not make the test certificate"
    show_log "$1/openssl.log"
    return 1
  fi
}

write_nginx_conf() { # DIR MEDIA HTTP_PORT HTTPS_PORT(or empty)
  local dir=$1 media=$2 http_port=$3 https_port=$4 user_line=""
  mkdir -p "$dir/nginx-temp"
  # As root, nginx's workers would run as nobody, who may not read a mktemp dir (0700) or a
  # repo under /root; the servers only listen on 127.0.0.1, so let the workers stay root.
  [[ $(id -u) -eq 0 ]] && user_line="user root;"

  cat >"$dir/nginx-locations.conf" <<EOF
# Static files; Range requests get 206 with Content-Range (nginx's default). Only full 200
# responses carry "Accept-Ranges: bytes" (a 206 does not); a range past the end gets 416 with
# "Content-Range: bytes */SIZE"; several ranges get multipart/byteranges.
location / {
}

# Range is ignored: always 200 with the whole body, and nginx then sends no Accept-Ranges
# header at all (not "Accept-Ranges: none"), like many servers that cannot seek.
location /norange/ {
    alias "$media/";
    max_ranges 0;
}

# Everything comes as audio/mpeg, HTML included.
location /asaudio/ {
    alias "$media/";
    types { }
    default_type audio/mpeg;
}

# Throttled: 16 KiB/s from the first byte.
location /slow/ {
    alias "$media/";
    limit_rate 16k;
}

# Throttled to the rate in the path (bytes/s): /rate/16000/NAME. A regex location may alias
# only through its captures; limit_rate takes a variable since nginx 1.17.
location ~ ^/rate/(?<sp_rate>[0-9]+)/(?<sp_file>.+)\$ {
    alias "$media/\$sp_file";
    limit_rate \$sp_rate;
}

location = /status/404 { return 404; }
location = /status/403 { return 403; }
location = /status/500 { return 500; }
location = /status/503 {
    add_header Retry-After 2 always;
    return 503;
}

# 302s; nginx makes the Location absolute (http://127.0.0.1:PORT/...).
location /redirect/ {
    rewrite ^/redirect/(.*)\$ /\$1 redirect;
}
location /redirect2/ {
    rewrite ^/redirect2/(.*)\$ /redirect/\$1 redirect;
}
location = /loop {
    return 302 /loop;
}
EOF

  {
    cat <<EOF
# Generated by scripts/test-servers.sh
$user_line
worker_processes 1;
daemon off;
master_process on;
pid "$dir/nginx-master.pid";
error_log "$dir/nginx.log" info;

events {
    worker_connections 512;
}

http {
    types {
        audio/mpeg mp3;
        text/html html;
        application/octet-stream bin;
        audio/wav wav;
        text/plain info;
        application/vnd.apple.mpegurl m3u8;
        audio/aac aac;
        video/mp2t ts;
        video/iso.segment m4s;
        video/mp4 mp4;
    }
    default_type application/octet-stream;

    log_format streamplay "\$request_uri\t\$status\t\$http_range\t\$body_bytes_sent\t\$http_user_agent\t\$request_method\t\$scheme\t\$connection\t\$connection_requests\t\$msec\t\$request_time";
    access_log "$dir/access.log" streamplay;

    client_body_temp_path "$dir/nginx-temp/body";
    proxy_temp_path "$dir/nginx-temp/proxy";
    fastcgi_temp_path "$dir/nginx-temp/fastcgi";
    uwsgi_temp_path "$dir/nginx-temp/uwsgi";
    scgi_temp_path "$dir/nginx-temp/scgi";

    sendfile on;
    keepalive_timeout 30s;
    server_tokens off;

    server {
        listen 127.0.0.1:$http_port;
        server_name 127.0.0.1;
        root "$media";
        include "$dir/nginx-locations.conf";
    }
EOF
    if [[ -n $https_port ]]; then
      cat <<EOF

    server {
        listen 127.0.0.1:$https_port ssl;
        server_name 127.0.0.1;
        ssl_certificate "$dir/tls/cert.pem";
        ssl_certificate_key "$dir/tls/key.pem";
        root "$media";
        include "$dir/nginx-locations.conf";
    }
EOF
    fi
    echo "}"
  } >"$dir/nginx.conf"
}

start_nginx() { # DIR PORTS...
  local dir=$1 pid i port up
  shift
  : >"$dir/access.log"
  # -e: errors before the config is read go to the same log. nginx appends, like >> here.
  # shellcheck disable=SC2094
  setsid nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx.log" \
    </dev/null >>"$dir/nginx.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/nginx.pid"
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    if ! alive "$pid"; then
      log "nginx exited during start"
      show_log "$dir/nginx.log"
      return 1
    fi
    up=1
    for port in "$@"; do
      port_open "$port" || up=0
    done
    [[ $up -eq 1 ]] && return 0
    sleep 0.1
  done
  log "nginx did not listen on ports $* within ${START_TIMEOUT}s"
  show_log "$dir/nginx.log"
  return 1
}

start_blackhole() { # DIR -> prints the port
  local dir=$1 pid
  rm -f "$dir/blackhole.port"
  # Binds its own port (no race with other programs) and tells it through a file. DIR is on
  # its command line so that stop can recognise it.
  setsid python3 -c '
import os, selectors, socket, sys, time
port_file, lifetime = sys.argv[1], float(sys.argv[2])
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(128)
with open(port_file + ".tmp", "w") as f:
    f.write(str(srv.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)
sel = selectors.DefaultSelector()
sel.register(srv, selectors.EVENT_READ)
deadline = time.monotonic() + lifetime
while (left := deadline - time.monotonic()) > 0:
    for key, _ in sel.select(timeout=min(left, 5.0)):
        if key.fileobj is srv:
            conn, _ = srv.accept()
            sel.register(conn, selectors.EVENT_READ)
            continue
        # Read and drop what the client sends; never write. Close only once the client has.
        try:
            data = key.fileobj.recv(65536)
        except OSError:
            data = b""
        if not data:
            sel.unregister(key.fileobj)
            key.fileobj.close()
' "$dir/blackhole.port" "$BLACKHOLE_LIFETIME" "$dir" \
    </dev/null >"$dir/blackhole.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/blackhole.pid"
  wait_for_port_file "$dir/blackhole.port" "$pid" && return 0
  log "black hole server did not start"
  show_log "$dir/blackhole.log"
  return 1
}

start_faults() { # DIR MEDIA [LIFETIME] -> prints the port
  local dir=$1 media=$2 lifetime=${3:-$FAULTS_LIFETIME} pid
  rm -f "$dir/faults.port"
  : >"$dir/faults.log"
  # Binds its own port and tells it through a file, like the black hole; DIR is on its command
  # line (port file, log) so that stop can recognise it.
  setsid python3 "$FAULT_SERVER" --media "$media" --port-file "$dir/faults.port" \
    --log "$dir/faults.log" --lifetime "$lifetime" \
    </dev/null >"$dir/fault-server.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/faults.pid"
  wait_for_port_file "$dir/faults.port" "$pid" && return 0
  log "fault server did not start"
  show_log "$dir/fault-server.log"
  return 1
}

wait_for_port_file() { # FILE PID -> prints the port once FILE names one that listens
  local file=$1 pid=$2 i port
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    if [[ -s $file ]]; then
      port=$(<"$file")
      if [[ $port =~ ^[0-9]+$ ]] && port_open "$port"; then
        echo "$port"
        return 0
      fi
    fi
    alive "$pid" || return 1
    sleep 0.1
  done
  return 1
}

start_stubs() { # DIR MEDIA -> writes DIR/stubs.env
  local dir=$1 media=$2 pid i
  rm -f "$dir/stubs.env" "$dir/stubs.json"
  : >"$dir/stubs.log"
  # The venv's python, as for the OAuth server: Spark's OpenID Connect stand-in signs its ID
  # tokens with joserfc (scripts/service_stubs_spark.py).
  setsid "$VENV_PYTHON" "$SERVICE_STUBS" --media "$media" --urls-file "$dir/stubs.json" \
    --env-file "$dir/stubs.env" --log "$dir/stubs.log" --lifetime "$FAULTS_LIFETIME" \
    </dev/null >"$dir/stubs-server.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/stubs.pid"
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    # The env file is written just before the URLs file, once every listener is up.
    [[ -s $dir/stubs.json && -s $dir/stubs.env ]] && return 0
    alive "$pid" || break
    sleep 0.1
  done
  log "service stand-ins did not start (run scripts/install-python-deps.sh)"
  show_log "$dir/stubs-server.log"
  return 1
}

start_oauth() { # DIR CLIENT_SECRET PASSWORD -> prints the port
  local dir=$1 secret=$2 password=$3 pid
  rm -f "$dir/oauth.port"
  : >"$dir/oauth.log"
  setsid "$VENV_PYTHON" "$OAUTH_SERVER" --port-file "$dir/oauth.port" --log "$dir/oauth.log" \
    --lifetime "$FAULTS_LIFETIME" --client-secret "$secret" --password "$password" \
    </dev/null >"$dir/oauth-server.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/oauth.pid"
  wait_for_port_file "$dir/oauth.port" "$pid" && return 0
  log "OAuth server did not start (run scripts/install-python-deps.sh)"
  show_log "$dir/oauth-server.log"
  return 1
}

# HTTP GET on 127.0.0.1 without any proxy: prints "STATUS CONTENT-TYPE" and then the first
# 64 KiB of the body; fails when nothing answers within 2 seconds.
http_get() { # PORT PATH [USER:PASSWORD]
  python3 - "$@" <<'EOF'
import base64, http.client, sys
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=2)
headers = {}
if len(sys.argv) > 3:
    headers["Authorization"] = "Basic " + base64.b64encode(sys.argv[3].encode()).decode()
try:
    conn.request("GET", sys.argv[2], headers=headers)
    r = conn.getresponse()
    print(r.status, r.getheader("Content-Type", "-"))
    sys.stdout.write(r.read(65536).decode("utf-8", "replace"))
except OSError as e:
    print(f"000 - {e}")
    sys.exit(1)
EOF
}

write_icecast_conf() { # DIR PORT SOURCE_PASSWORD RELAY_PASSWORD ADMIN_PASSWORD
  local dir=$1 port=$2 source_pw=$3 relay_pw=$4 admin_pw=$5 ice="$1/icecast" security=""
  mkdir -p "$ice/log"
  # Icecast refuses to run as root: as root it binds its port, writes its pid file, then
  # becomes nobody (<changeowner>). DIR/icecast and its log dir belong to nobody then.
  # Its logs go to stderr ("-"), which we open (as the caller) into DIR/icecast/log/icecast.log:
  # nobody could not open files there by path when DIR is a mktemp dir (0700) or under /root,
  # and its startup errors land in the same file.
  if [[ $(id -u) -eq 0 ]]; then
    if ! id nobody >/dev/null 2>&1; then
      log "Icecast must not run as root and there is no user nobody to run it as"
      return 1
    fi
    chown "nobody:$(id -gn nobody)" "$ice" "$ice/log"
    security="<changeowner><user>nobody</user><group>$(id -gn nobody)</group></changeowner>"
  fi
  # Paths passed check_path: no characters XML would need escaped.
  cat >"$ice/icecast.xml" <<EOF
<!-- Generated by scripts/test-servers.sh -->
<icecast>
    <location>StreamPlay tests</location>
    <admin>nobody@127.0.0.1</admin>
    <hostname>127.0.0.1</hostname>
    <limits>
        <clients>100</clients>
        <sources>8</sources>
        <queue-size>262144</queue-size>
        <client-timeout>30</client-timeout>
        <header-timeout>15</header-timeout>
        <source-timeout>10</source-timeout>
        <burst-on-connect>1</burst-on-connect>
        <burst-size>16384</burst-size>
    </limits>
    <authentication>
        <source-password>$source_pw</source-password>
        <relay-password>$relay_pw</relay-password>
        <admin-user>admin</admin-user>
        <admin-password>$admin_pw</admin-password>
    </authentication>
    <listen-socket>
        <port>$port</port>
        <bind-address>127.0.0.1</bind-address>
    </listen-socket>
    <fileserve>1</fileserve>
    <paths>
        <basedir>$ice</basedir>
        <logdir>$ice/log</logdir>
        <pidfile>$ice/icecast.pid</pidfile>
        <webroot>/usr/share/icecast2/web</webroot>
        <adminroot>/usr/share/icecast2/admin</adminroot>
    </paths>
    <logging>
        <accesslog>-</accesslog>
        <errorlog>-</errorlog>
        <loglevel>3</loglevel>
    </logging>
    <security>
        <chroot>0</chroot>
        $security
    </security>
</icecast>
EOF
}

start_icecast() { # DIR PORT
  local dir=$1 port=$2 ice="$1/icecast" pid answer deadline=$((SECONDS + START_TIMEOUT))
  # The pid file is ours ($!, as for the other servers); DIR is on the command line.
  setsid icecast2 -c "$ice/icecast.xml" </dev/null >"$ice/log/icecast.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/icecast.pid"
  while ((SECONDS < deadline)); do
    if ! alive "$pid"; then
      log "Icecast exited during start"
      show_log "$ice/log/icecast.log"
      return 1
    fi
    if port_open "$port"; then
      answer=$(http_get "$port" /status-json.xsl 2>/dev/null) || true
      [[ $answer == 200\ * ]] && return 0
    fi
    sleep 0.1
  done
  log "Icecast did not answer GET /status-json.xsl within ${START_TIMEOUT}s"
  show_log "$ice/log/icecast.log"
  return 1
}

start_icecast_source() { # DIR NAME FILE URL CONTENT_TYPE FORMAT FFMPEG_OPTIONS...
  local dir=$1 name=$2 file=$3 url=$4 type=$5 format=$6 ice="$1/icecast"
  shift 6
  : >"$ice/$name.log"
  # ffmpeg feeds the mount: the file in a loop at real time (-re), its frames copied as they
  # are (-c copy). For MP3, -id3v2_version 0 and -write_xing 0 keep the mp3 muxer from putting
  # an ID3v2 tag and a Xing/Info frame in front of the stream; the input's own Info frame and
  # tags are not audio packets, so they are not sent either. ffmpeg does not reconnect, so a
  # small loop starts it again 0.5 s after it ended (after /admin/killsource, say). The loop
  # runs as the caller (ffmpeg reads the media file) and has DIR on its command line (for
  # stop); on TERM it stops its ffmpeg first. Both end at the lifetime: the loop by its
  # deadline, each ffmpeg by -t (so an ffmpeg left behind by a killed loop ends too). ffmpeg's
  # warnings and errors and the loop's events go to DIR/icecast/NAME.log.
  # shellcheck disable=SC2016  # $1.. belong to the inner bash
  setsid bash -c '
    dir=$1 deadline=$((SECONDS + $2)) file=$3 url=$4 type=$5 format=$6 child=""
    shift 6
    say() { echo "$(date "+%Y-%m-%d %H:%M:%S") icecast-source: $*"; }
    quit() {
      say "stopping"
      [[ -n $child ]] && kill -TERM "$child" 2>/dev/null && wait "$child"
      exit 0
    }
    trap quit TERM INT
    while ((SECONDS < deadline)); do
      say "ffmpeg streams $file to ${url##*@} (for $((deadline - SECONDS)) s at most)"
      ffmpeg -nostdin -hide_banner -loglevel warning -re -stream_loop -1 -i "$file" \
        -t "$((deadline - SECONDS))" -map 0:a:0 -c copy "$@" \
        -content_type "$type" -ice_name "StreamPlay test" \
        -ice_description "StreamPlay test radio" -f "$format" "$url" &
      child=$!
      wait "$child" && rc=0 || rc=$?
      child=""
      say "ffmpeg exited (status $rc)"
      ((SECONDS < deadline)) || break
      sleep 0.5 &
      wait $!
    done
    say "lifetime over, exiting"
  ' icecast-source "$dir" "$SOURCE_LIFETIME" "$file" "$url" "$type" "$format" "$@" \
    </dev/null >>"$ice/$name.log" 2>&1 &
  echo "$!" >"$dir/$name.pid"
}

start_ogg_source() { # DIR NAME FILE CONTENT_TYPE PORT MOUNT SOURCE_PASSWORD
  local dir=$1 name=$2 ice="$1/icecast"
  # A chained Ogg stream, a new logical stream with the current title each time the file
  # loops (see ogg-radio-source.py); the title file is shared by both Ogg mounts.
  : >"$ice/$name.log"
  setsid python3 "$OGG_SOURCE" "$dir" "$SOURCE_LIFETIME" "$3" "$4" "$ice/ogg-title" "$5" "$6" "$7" \
    </dev/null >>"$ice/$name.log" 2>&1 &
  echo "$!" >"$dir/$name.pid"
}

start_icecast_sources() { # DIR PORT MEDIA SOURCE_PASSWORD ADMIN_PASSWORD
  local dir=$1 port=$2 media=$3 source_pw=$4 admin_pw=$5 ice="$1/icecast" answer deadline name mount
  local url="icecast://source:$source_pw@127.0.0.1:$port"
  local -A mounts=([icecast-source]=$ICECAST_MOUNT [icecast-aac-source]=$ICECAST_AAC_MOUNT
    [icecast-vorbis-source]=$ICECAST_VORBIS_MOUNT [icecast-opus-source]=$ICECAST_OPUS_MOUNT)
  printf '%s\n' "$ICECAST_OGG_TITLE" >"$ice/ogg-title"
  # All four start at once: each takes about a second to go live, and they do not wait for
  # one another.
  start_icecast_source "$dir" icecast-source "$media/$ICECAST_FILE" "$url$ICECAST_MOUNT" audio/mpeg mp3 \
    -id3v2_version 0 -write_xing 0
  start_icecast_source "$dir" icecast-aac-source "$media/$ICECAST_AAC_FILE" "$url$ICECAST_AAC_MOUNT" audio/aac adts
  start_ogg_source "$dir" icecast-vorbis-source "$media/$ICECAST_VORBIS_FILE" application/ogg \
    "$port" "$ICECAST_VORBIS_MOUNT" "$source_pw"
  start_ogg_source "$dir" icecast-opus-source "$media/$ICECAST_OPUS_FILE" audio/ogg \
    "$port" "$ICECAST_OPUS_MOUNT" "$source_pw"
  # Live once the admin interface lists every mount (asking a mount itself would count as a
  # listener in the statistics tests may look at). A deadline rather than a count of tries:
  # each try may itself wait up to 2 s.
  deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    for name in "${!mounts[@]}"; do
      if ! alive "$(<"$dir/$name.pid")"; then
        log "the Icecast source $name exited during start"
        show_log "$ice/$name.log"
        show_log "$ice/log/icecast.log"
        return 1
      fi
    done
    answer=$(http_get "$port" /admin/listmounts "admin:$admin_pw" 2>/dev/null) || true
    for name in "${!mounts[@]}"; do
      [[ $answer == 200\ * && $answer == *"<source mount=\"${mounts[$name]}\">"* ]] || continue 2
    done
    # The first titles of the MP3 and AAC mounts, set the way a test changes them (the Ogg
    # mounts have theirs in their comment headers).
    for mount in "$ICECAST_MOUNT" "$ICECAST_AAC_MOUNT"; do
      answer=$(http_get "$port" "/admin/metadata?mount=$mount&mode=updinfo&song=${ICECAST_TITLE// /%20}" \
        "admin:$admin_pw" 2>/dev/null) || true
      if [[ $answer != 200\ * || $answer != *"<return>1</return>"* ]]; then
        log "Icecast did not take the first title of $mount: $answer"
        show_log "$ice/log/icecast.log"
        return 1
      fi
    done
    return 0
  done
  log "the Icecast mounts were not all live within ${START_TIMEOUT}s: $answer"
  for name in "${!mounts[@]}"; do show_log "$ice/$name.log"; done
  show_log "$ice/log/icecast.log"
  return 1
}

start_watchdog() { # DIR OWNER_PID
  local dir=$1 owner=$2
  # Polls the owner; once it has gone (even killed with SIGKILL), stops the servers.
  # shellcheck disable=SC2016  # $1.. belong to the inner bash
  setsid bash -c '
    while kill -0 "$2" 2>/dev/null; do sleep 2; done
    exec bash "$1" stop "$3"
  ' watchdog "$SELF" "$owner" "$dir" </dev/null >>"$dir/watchdog.log" 2>&1 &
  echo $! >"$dir/watchdog.pid"
}

on_start_exit() {
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    log "start failed"
    do_stop "$START_DIR"
  fi
}

do_start() { # DIR [--http-only | --bench] [--owner-pid PID]
  local dir=$1 mode=full owner="" media http_port https_port refused_port bh_port faults_port
  local ice_port source_pw relay_pw admin_pw
  shift
  while [[ $# -gt 0 ]]; do
    case $1 in
      --http-only)
        [[ $mode == full ]] || usage
        mode=http-only
        ;;
      --bench)
        [[ $mode == full ]] || usage
        mode=bench
        ;;
      --owner-pid)
        [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage
        owner=$2
        shift
        ;;
      *) usage ;;
    esac
    shift
  done

  for tool in nginx python3; do
    command -v "$tool" >/dev/null || { log "$tool not found (run scripts/install-deps.sh)"; exit 1; }
  done
  [[ -f $FAULT_SERVER ]] || { log "$FAULT_SERVER is missing"; exit 1; }
  if [[ $mode == full ]]; then
    for tool in pulseaudio pactl openssl icecast2 ffmpeg dbus-daemon dbus-send pipewire wireplumber pipewire-pulse; do
      command -v "$tool" >/dev/null || { log "$tool not found (run scripts/install-deps.sh)"; exit 1; }
    done
  elif [[ $mode == bench ]]; then
    for tool in pulseaudio pactl dbus-daemon dbus-send pipewire wireplumber pipewire-pulse; do
      command -v "$tool" >/dev/null || { log "$tool not found (run scripts/install-deps.sh)"; exit 1; }
    done
  fi

  media=${MEDIA_DIR:-$dir/media}
  check_path "$dir"
  check_path "$media"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [[ -n ${MEDIA_DIR:-} ]] || media=$dir/media
  mkdir -p "$media"
  media=$(cd "$media" && pwd)
  check_path "$dir"
  check_path "$media"
  if [[ $mode == full ]]; then
    for file in "$ICECAST_FILE" "$ICECAST_AAC_FILE" "$ICECAST_VORBIS_FILE" "$ICECAST_OPUS_FILE"; do
      [[ -f $media/$file ]] && continue
      log "an Icecast mount plays $media/$file, which is missing" \
        "(run scripts/make-test-media.sh and pass its directory as MEDIA_DIR)"
      exit 1
    done
  fi

  # Leftovers of an earlier start in the same DIR would confuse the pid files.
  do_stop "$dir"
  rm -f "$dir/env.sh"

  # On any failure below, stop what did start; the failing step has printed its log.
  START_DIR=$dir
  trap on_start_exit EXIT

  read -r http_port https_port refused_port ice_port < <(free_ports 4)

  if [[ $mode == http-only ]]; then
    write_nginx_conf "$dir" "$media" "$http_port" ""
    start_nginx "$dir" "$http_port"
  elif [[ $mode == bench ]]; then
    write_nginx_conf "$dir" "$media" "$http_port" ""
    start_nginx "$dir" "$http_port"
    start_pulse "$dir" high-priority
    # The position scenario's PipeWire run (its bus is PipeWire's alone: the players measured
    # are not given it, so the command publishes no MPRIS service).
    start_dbus "$dir"
    start_pipewire "$dir"
  else
    make_cert "$dir"
    write_nginx_conf "$dir" "$media" "$http_port" "$https_port"
    start_nginx "$dir" "$http_port" "$https_port"
    start_pulse "$dir"
    bh_port=$(start_blackhole "$dir")
    # Throw-away passwords, new at each start (hex: plain in XML, URLs and Basic auth).
    read -r source_pw relay_pw admin_pw < <(python3 -c \
      'import secrets; print(*(secrets.token_hex(8) for _ in range(3)))')
    write_icecast_conf "$dir" "$ice_port" "$source_pw" "$relay_pw" "$admin_pw"
    start_icecast "$dir" "$ice_port"
    start_icecast_sources "$dir" "$ice_port" "$media" "$source_pw" "$admin_pw"
    read -r oauth_secret oauth_password < <(python3 -c \
      'import secrets; print(*(secrets.token_hex(12) for _ in range(2)))')
    oauth_port=$(start_oauth "$dir" "$oauth_secret" "$oauth_password")
    start_stubs "$dir" "$media"
    start_dbus "$dir"
    start_pipewire "$dir"
  fi
  if [[ $mode == bench ]]; then
    faults_port=$(start_faults "$dir" "$media" "$BENCH_FAULTS_LIFETIME")
  else
    faults_port=$(start_faults "$dir" "$media")
  fi

  [[ -n $owner ]] && start_watchdog "$dir" "$owner"

  # Written last, to a temp name then renamed: when env.sh exists, everything is up.
  {
    echo "# Generated by scripts/test-servers.sh; source this file."
    printf 'export STREAMPLAY_TEST_HTTP=%q\n' "http://127.0.0.1:$http_port"
    printf 'export STREAMPLAY_TEST_ACCESS_LOG=%q\n' "$dir/access.log"
    printf 'export STREAMPLAY_TEST_MEDIA=%q\n' "$media"
    printf 'export STREAMPLAY_TEST_FAULTS=%q\n' "http://127.0.0.1:$faults_port"
    printf 'export STREAMPLAY_TEST_FAULTS_LOG=%q\n' "$dir/faults.log"
    if [[ $mode == full ]]; then
      printf 'export STREAMPLAY_TEST_HTTPS=%q\n' "https://127.0.0.1:$https_port"
      printf 'export STREAMPLAY_TEST_CA=%q\n' "$dir/tls/cert.pem"
      printf 'export STREAMPLAY_TEST_BLACKHOLE=%q\n' "http://127.0.0.1:$bh_port"
      printf 'export STREAMPLAY_TEST_REFUSED=%q\n' "http://127.0.0.1:$refused_port"
    fi
    if [[ $mode != http-only ]]; then
      printf 'export PULSE_SERVER=%q\n' "unix:$dir/pulse/native"
      printf 'export STREAMPLAY_TEST_PULSE_SINK=%q\n' "$SINK"
      # Clients otherwise create ~/.config/pulse/cookie; the server needs no cookie anyway.
      printf 'export PULSE_COOKIE=%q\n' "$dir/pulse/cookie"
    fi
    if [[ $mode == full ]]; then
      printf 'export STREAMPLAY_TEST_ICECAST=%q\n' "http://127.0.0.1:$ice_port"
      printf 'export STREAMPLAY_TEST_ICECAST_MOUNT=%q\n' "$ICECAST_MOUNT"
      printf 'export STREAMPLAY_TEST_ICECAST_AAC_MOUNT=%q\n' "$ICECAST_AAC_MOUNT"
      printf 'export STREAMPLAY_TEST_ICECAST_VORBIS_MOUNT=%q\n' "$ICECAST_VORBIS_MOUNT"
      printf 'export STREAMPLAY_TEST_ICECAST_OPUS_MOUNT=%q\n' "$ICECAST_OPUS_MOUNT"
      printf 'export STREAMPLAY_TEST_ICECAST_OGG_TITLE_FILE=%q\n' "$dir/icecast/ogg-title"
      printf 'export STREAMPLAY_TEST_ICECAST_ADMIN=%q\n' "admin:$admin_pw"
      printf 'export STREAMPLAY_TEST_OAUTH=%q\n' "http://127.0.0.1:$oauth_port"
      printf 'export STREAMPLAY_TEST_OAUTH_LOG=%q\n' "$dir/oauth.log"
      printf 'export STREAMPLAY_TEST_OAUTH_CLIENT_SECRET=%q\n' "$oauth_secret"
      printf 'export STREAMPLAY_TEST_OAUTH_PASSWORD=%q\n' "$oauth_password"
      cat "$dir/stubs.env"
      printf 'export STREAMPLAY_STUB_LOG=%q\n' "$dir/stubs.log"
      printf 'export DBUS_SESSION_BUS_ADDRESS=%q\n' "unix:path=$dir/dbus/bus"
      printf 'export STREAMPLAY_TEST_PIPEWIRE_SERVER=%q\n' "unix:$dir/pipewire/run/pulse/native"
      printf 'export STREAMPLAY_TEST_PIPEWIRE_SINK=%q\n' "$SINK"
      printf 'export STREAMPLAY_TEST_SERVERS_DIR=%q\n' "$dir"
    elif [[ $mode == bench ]]; then
      printf 'export STREAMPLAY_TEST_PIPEWIRE_SERVER=%q\n' "unix:$dir/pipewire/run/pulse/native"
    fi
  } >"$dir/env.sh.tmp"
  mv -f "$dir/env.sh.tmp" "$dir/env.sh"
  if [[ $mode == full ]]; then
    log "started in $dir (HTTP port $http_port, fault server port $faults_port," \
      "Icecast port $ice_port)"
  else
    log "started in $dir (HTTP port $http_port, fault server port $faults_port)"
  fi
}

[[ $# -ge 2 ]] || usage
cmd=$1
dir=$2
shift 2
case $cmd in
  start) do_start "$dir" "$@" ;;
  stop)
    [[ $# -eq 0 ]] || usage
    do_stop "$dir"
    ;;
  # For the tests of a sound server that goes away mid-play: kill-pulse kills the PulseAudio
  # daemon outright, as a crash would; start-pulse starts it again with the same socket and sink.
  kill-pulse)
    pid=$(<"$dir/pulse.pid")
    if is_ours "$pid" "$dir"; then
      kill -KILL "$pid"
      while alive "$pid"; do sleep 0.05; done
    fi
    rm -f "$dir/pulse/native"
    ;;
  start-pulse) start_pulse "$dir" ;;
  # The same for PipeWire: its three programs killed, then started again as at the start.
  kill-pipewire)
    for name in pipewire-pulse wireplumber pipewire; do
      pid=$(<"$dir/$name.pid")
      if is_ours "$pid" "$dir"; then
        kill -KILL "$pid"
        while alive "$pid"; do sleep 0.05; done
      fi
    done
    rm -f "$dir/pipewire/run/pulse/native" "$dir/pipewire/run/pipewire-0" "$dir/pipewire/run/pipewire-0.lock"
    ;;
  start-pipewire) start_pipewire "$dir" ;;
  *) usage ;;
esac
