#!/usr/bin/env bash
# Installs the Debian 12 packages StreamPlay needs to build, test and run its demo.
# Usage: install-deps.sh [--peers]
# --peers also installs the players the benchmark (scripts/bench.sh) compares StreamPlay with:
# mpv, and GStreamer's gst-launch-1.0 with the elements its playbin needs for an MP3 over HTTP
# into PulseAudio (souphttpsrc, mpegaudioparse, mpg123audiodec, pulsesink), and for the format
# scenario AAC (avdec_aac) and HLS (hlsdemux), and gcc with GStreamer's headers for
# Benchmarks/Peers/gst-play-from.c (GStreamer's seek trials). ffplay and mpg123 come with the
# base packages (ffmpeg, mpg123).
# Idempotent: when every package is already installed it does nothing (no apt at all).
set -euo pipefail

peers=0
case ${1:-} in
  "") ;;
  --peers) peers=1 ;;
  *)
    echo "usage: $0 [--peers]" >&2
    exit 2
    ;;
esac

PACKAGES=(
  libmpg123-dev mpg123            # decoder library, and the reference decoder for tests
  libavformat-dev libavcodec-dev libavutil-dev libswresample-dev  # FFmpeg: every other format
  libpulse-dev pulseaudio pulseaudio-utils  # sound server, null sink, pactl/paplay/parec
  libcurl4-openssl-dev            # HTTP(S) transport
  libssl-dev                      # libcrypto: AES-128 for encrypted HLS segments
  nginx-light                     # test HTTP server (Range, throttling)
  lame sox                        # test media
  flac                            # metaflac: a test FLAC with a seek table (ffmpeg writes none)
  openssl                         # self-signed certificate for the HTTPS test server
  python3                         # small helper servers, free ports, binary test files
  python3-venv                    # the venv of the OAuth 2 test server (scripts/install-python-deps.sh)
  curl                            # the OAuth and service stand-in self-tests
  icecast2                        # test internet-radio server (ICY metadata, live mounts)
  ffmpeg                          # feeds the test Icecast mount (loops a track at real time)
  pkg-config ca-certificates
  libsystemd-dev                  # sd-bus: MPRIS on the D-Bus session bus
  dbus-daemon dbus-bin playerctl  # the tests' private session bus, and a real MPRIS client
  pipewire pipewire-pulse wireplumber  # the PulseAudio output tests again on PipeWire
)

# Without recommends these are enough: mpv plays through its pulse output, and
# plugins-good has souphttpsrc (HTTP), mpegaudioparse and mpg123audiodec (MP3) in 1.22.
PEER_PACKAGES=(
  mpv                             # peer player
  gstreamer1.0-tools              # gst-launch-1.0, gst-inspect-1.0
  gstreamer1.0-plugins-base       # playbin, decodebin, audioconvert, audioresample
  gstreamer1.0-plugins-good       # souphttpsrc, mpegaudioparse, mpg123audiodec
  gstreamer1.0-pulseaudio         # pulsesink
  gstreamer1.0-libav              # avdec_aac: AAC (M4A, HLS) for the format scenario
  gstreamer1.0-plugins-bad        # hlsdemux: HLS for the format scenario (playbin, not playbin3)
  time                            # GNU time: peak memory of a short-lived command (its maxrss)
  libgstreamer1.0-dev gcc         # Benchmarks/Peers/gst-play-from.c: GStreamer's seek trials
)
if [[ $peers -eq 1 ]]; then
  PACKAGES+=("${PEER_PACKAGES[@]}")
fi

is_installed() {
  # `dpkg -s` also succeeds for removed packages whose config files remain, so check the status.
  # Read it whole first: piped into `grep -q`, dpkg could be killed by SIGPIPE once grep has
  # its match, and pipefail would then turn an installed package into a missing one.
  local status
  status=$(dpkg -s "$1" 2>/dev/null) || return 1
  grep -qx 'Status: install ok installed' <<<"$status"
}

missing=()
for pkg in "${PACKAGES[@]}"; do
  is_installed "$pkg" || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi

# Package scripts would otherwise start services (nginx's default site listens on *:80).
# We start our own instances on 127.0.0.1 only, so forbid service starts during the install,
# unless the machine already has a policy (e.g. Docker images ship one).
POLICY=/usr/sbin/policy-rc.d
created_policy=0
cleanup() {
  if [[ $created_policy -eq 1 ]]; then
    "${SUDO[@]}" rm -f "$POLICY"
  fi
}
trap cleanup EXIT
if [[ ! -e $POLICY ]]; then
  printf '#!/bin/sh\n# temporary, from StreamPlay scripts/install-deps.sh\nexit 101\n' |
    "${SUDO[@]}" tee "$POLICY" >/dev/null
  "${SUDO[@]}" chmod 755 "$POLICY"
  created_policy=1
fi

export DEBIAN_FRONTEND=noninteractive

# icecast2 asks (debconf) whether to set up its system-wide passwords; answer no beforehand.
# We never use its system service or /etc/icecast2: the test servers run their own instance
# with their own config.
icecast_missing=0
for pkg in "${missing[@]}"; do
  if [[ $pkg == icecast2 ]]; then
    icecast_missing=1
  fi
done
if [[ $icecast_missing -eq 1 ]]; then
  echo 'icecast2 icecast2/icecast-setup boolean false' |
    "${SUDO[@]}" debconf-set-selections
fi

# The package lists may be missing or stale on a fresh machine: update once, then install.
"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"

for pkg in "${missing[@]}"; do
  if ! is_installed "$pkg"; then
    echo "install-deps: $pkg is still not installed" >&2
    exit 1
  fi
done

# The policy above keeps icecast2's init script from starting the system service (it would
# listen on *:8000 with the default passwords). Should a policy of the machine have allowed
# it, stop it: only processes of the package's own user, never our test instances (those run
# as nobody, or as the calling user).
if [[ $icecast_missing -eq 1 ]] && id icecast2 >/dev/null 2>&1; then
  "${SUDO[@]}" start-stop-daemon --stop --oknodo --quiet --user icecast2 \
    --exec /usr/bin/icecast2 --retry TERM/5/KILL/5 || true
fi
