#!/usr/bin/env bash
# Makes the benchmark media (scripts/bench.sh) in OUTDIR.
# Usage: make-bench-media.sh OUTDIR [--smoke]
#
# Everything is synthesised here (sox, lame), nothing is downloaded; `sox -R` seeds sox's noise
# generator and its dither, so a rerun with the same tools makes the same bytes. When
# OUTDIR/.complete exists, is newer than this script and names the same tool versions and set
# (full or smoke), nothing is done. The caller gives the smoke set a directory of its own.
#
# The signal: 44100 Hz, 16-bit stereo; in each channel three steady tones (left 220, 347,
# 563 Hz; right 251, 409, 613 Hz; -18 dBFS each) plus seeded white noise (peak -20 dBFS, RMS
# about -25 dBFS), independent per channel; peak about -6 dBFS (-5 in the MP3 decodes). The
# tones keep it from ever being silent (not for 10 ms: checked below on the decodes), and the
# noise makes every position unique, so cross-correlation against a reference decode finds an
# offset to the sample (a tone alone matches itself every period).
#
# Files (full set; the smoke set's durations in brackets):
#   long.mp3        600 s [40 s] of the signal
#   long.mp3.raw    its reference decode: `mpg123 -q -s` (s16 little-endian, 44100 Hz, 2 ch,
#                   gapless-trimmed by the LAME tag: exactly seconds * 44100 frames)
#   seek.mp3        600 s [40 s]: the first half exact digital silence, then the signal from
#                   its start; seekTo = the midpoint, 300 s [20 s]. The decode is all zero
#                   samples until ~10 ms before the midpoint (the encoder's pre-echo; checked
#                   below: none before midpoint - 50 ms) and sound from the midpoint on
#   short.mp3       12 s [6 s] of the signal
#   short.mp3.raw   its reference decode, as long.mp3.raw
#   floor.raw       the first 3 s of the signal as raw s16le 44100 Hz stereo PCM, no MP3
#                   involved (for `pacat --raw`: the floor of the measuring method)
#   bench-media.json  {"rate":44100,"channels":2,"bitrate":128000,"files":{"long.mp3":
#                   {"seconds":600,"bytes":N},"seek.mp3":{"seconds":600,"bytes":N,"seekTo":300},
#                   "short.mp3":{"seconds":12,"bytes":N}, ...},"smoke":false}  (bytes: file
#                   size; for an HLS playlist, the playlist's)
# All MP3s: `lame --quiet --resample 44.1 -b 128` (CBR 128 kbps, joint stereo, with the
# LAME/Xing tag that carries the encoder delay and padding).
#
# The other formats (the format scenarios), each as long.EXT (the signal of long.mp3) and
# seek.EXT (the silence-then-signal of seek.mp3, seekTo the midpoint), made by ffmpeg from the
# same WAVs:
#   long.m4a, seek.m4a    AAC-LC 128 kbps (ffmpeg's aac), MP4 with the index (moov) at the
#                         front (-movflags +faststart), as a streaming service serves it
#   long-tail.m4a,        long.m4a's and seek.m4a's audio remuxed with the index at the end
#   seek-tail.m4a         (ffmpeg's default): a player must fetch the end of the file first
#   hls-long/index.m3u8,  the AAC of long.m4a and seek.m4a, copied into fragmented-MP4 HLS
#   hls-seek/index.m3u8   (hls muxer, -hls_segment_type fmp4: EXT-X-MAP init.mp4, seg%04d.m4s,
#                         6 s segments, VOD media playlist with ENDLIST)
#   long.flac, seek.flac  FLAC (ffmpeg's flac, level 5; no seek table, as ffmpeg writes it)
#   long.opus, seek.opus  Opus 128 kbps in Ogg (libopus; 48 kHz, as Opus always decodes)
# Checked below on ffmpeg's decodes: every seek.EXT is silent up to 0.1 s before the midpoint
# (AAC and Opus smear a few ms of pre-echo before it) and sounds within 0.1 s after it.
set -euo pipefail

usage() {
  echo "usage: $0 OUTDIR [--smoke]" >&2
  exit 2
}

smoke=0
case $# in
  1) ;;
  2) [[ $2 == --smoke ]] || usage; smoke=1 ;;
  *) usage ;;
esac
out=$1
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$scripts/$(basename "${BASH_SOURCE[0]}")"

for tool in sox lame mpg123 ffmpeg python3; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "make-bench-media: $tool not found (run scripts/install-deps.sh)" >&2
    exit 1
  }
done

if [[ $smoke -eq 1 ]]; then
  long=40 short=6 set_name=smoke
else
  long=600 short=12 set_name=full
fi
half=$((long / 2))
rate=44100
floor=3

# Different tool versions may make different bytes, so they are part of the stamp; so is the
# set, should a caller reuse a directory for the other one.
stamp_text="set=$set_name
sox=$(sox --version 2>&1 | head -n1)
lame=$(lame --version 2>&1 | head -n1)
mpg123=$(mpg123 --version 2>&1 | head -n1)
ffmpeg=$(ffmpeg -version 2>&1 | head -n1)"

stamp="$out/.complete"
if [[ -f $stamp && ! $self -nt $stamp && "$(cat "$stamp")" == "$stamp_text" ]]; then
  exit 0
fi

echo "make-bench-media: making the $set_name benchmark media in $out" >&2
mkdir -p "$out"
rm -f "$stamp"
out=$(cd "$out" && pwd)
tmp="$out/tmp"
rm -rf "$tmp"
mkdir -p "$tmp"

# --- Signals (16-bit WAV) ----------------------------------------------------------------------

# One 8-channel synth (six tones, two noise generators), summed into two channels by remix with
# explicit volumes (0.125 = -18 dBFS per tone, 0.1 = -20 dBFS noise peak). -t wavpcm: a plain
# PCM header (not WAVE_FORMAT_EXTENSIBLE), which every reader takes.
signal() { # SECONDS OUTFILE
  sox -R -r "$rate" -c 8 -n -b 16 -t wavpcm "$2" \
    synth "$1" sine 220 sine 347 sine 563 sine 251 sine 409 sine 613 whitenoise whitenoise \
    remix -m 1v0.125,2v0.125,3v0.125,7v0.1 4v0.125,5v0.125,6v0.125,8v0.1
}

signal "$long" "$tmp/long.wav"
# Shorter pieces are cuts of the same signal: every file starts the same way.
sox "$tmp/long.wav" -t wavpcm "$tmp/short.wav" trim 0 "$short"
sox "$tmp/long.wav" -t wavpcm "$tmp/second-half.wav" trim 0 "$half"
# Exact zeros: -D, because sox would otherwise dither the null input on its way to 16 bits
# (+-1 LSB of noise, which is not silence).
sox -D -n -r "$rate" -c 2 -b 16 -t wavpcm "$tmp/silence.wav" trim 0 "$half"
sox "$tmp/silence.wav" "$tmp/second-half.wav" -t wavpcm "$tmp/seek.wav"
sox "$tmp/long.wav" -t raw -e signed-integer -b 16 -L "$out/floor.raw" trim 0 "$floor"

# --- MP3s and reference decodes ----------------------------------------------------------------

for name in long short seek; do
  lame --quiet --resample 44.1 -b 128 "$tmp/$name.wav" "$out/$name.mp3"
done
mpg123 -q -s "$out/long.mp3" >"$out/long.mp3.raw"
mpg123 -q -s "$out/short.mp3" >"$out/short.mp3.raw"
mpg123 -q -s "$out/seek.mp3" >"$tmp/seek.mp3.raw"

# --- Other formats ------------------------------------------------------------------------------

# -fflags +bitexact and -map_metadata -1: no encoder version or date in the bytes.
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
for name in long seek; do
  ff -i "$tmp/$name.wav" -map_metadata -1 -fflags +bitexact -c:a aac -b:a 128k -movflags +faststart \
    "$out/$name.m4a"
  ff -i "$tmp/$name.wav" -map_metadata -1 -fflags +bitexact -c:a flac "$out/$name.flac"
  ff -i "$tmp/$name.wav" -map_metadata -1 -fflags +bitexact -c:a libopus -b:a 128k "$out/$name.opus"
  rm -rf "$out/hls-$name"
  mkdir -p "$out/hls-$name"
  (cd "$out/hls-$name" && ff -i "$out/$name.m4a" -map_metadata -1 -fflags +bitexact -c copy -f hls \
    -hls_time 6 -hls_playlist_type vod -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 \
    -hls_segment_filename 'seg%04d.m4s' index.m3u8)
  grep -q '^#EXT-X-MAP:URI="init.mp4"' "$out/hls-$name/index.m3u8" || {
    echo "make-bench-media: hls-$name/index.m3u8 has no EXT-X-MAP" >&2
    exit 1
  }
done
for name in long seek; do
  ff -i "$out/$name.m4a" -map_metadata -1 -fflags +bitexact -c copy "$out/$name-tail.m4a"
done

# Each seek file decoded by ffmpeg around its midpoint (5 s either side), for the check below;
# -ss after -i (decode and drop), because ffmpeg 5.1 cannot seek a local HLS playlist.
for file in seek.m4a seek-tail.m4a hls-seek/index.m3u8 seek.flac seek.opus; do
  ff -i "$out/$file" -ss $((half - 5)) -t 10 -f s16le -ac 2 -ar "$rate" \
    "$tmp/mid-$(echo "$file" | tr / -).raw"
done

# --- Checks ------------------------------------------------------------------------------------

# Exact lengths (the LAME tag's delay and padding are trimmed), never 10 ms of silence where
# the signal is, and seek.mp3's first half all zeros up to 50 ms before the midpoint with
# sound right after it. mpg123 -s writes native-endian samples: this machine's (array('h')).
python3 - "$out" "$tmp" "$rate" "$long" "$short" "$half" "$floor" <<'EOF'
import array, sys
out, tmp = sys.argv[1], sys.argv[2]
rate, long_s, short_s, half_s, floor_s = map(int, sys.argv[3:])
window = rate // 100  # 10 ms
quiet = 64            # |sample| below this counts as silence (the noise alone peaks ~3300)

def load(path, seconds):
    a = array.array("h")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if len(a) != seconds * rate * 2:
        sys.exit(f"make-bench-media: {path}: {len(a) // 2} frames, expected {seconds * rate}")
    return a

def never_silent(name, a, first_frame=0):
    for ch in (0, 1):
        s = a[ch::2]
        for start in range(first_frame, len(s) - window + 1, window // 2):
            if max(map(abs, s[start:start + window])) < quiet:
                sys.exit(f"make-bench-media: {name} is silent near {start / rate:.3f} s")

long_raw = load(f"{out}/long.mp3.raw", long_s)
never_silent("long.mp3", long_raw)
never_silent("short.mp3", load(f"{out}/short.mp3.raw", short_s))
never_silent("floor.raw", load(f"{out}/floor.raw", floor_s))

seek = load(f"{tmp}/seek.mp3.raw", long_s)
zero_end = (half_s * rate - rate // 20) * 2  # 50 ms before the midpoint
if any(seek[:zero_end]):
    first = next(i for i, v in enumerate(seek[:zero_end]) if v) // 2
    sys.exit(f"make-bench-media: seek.mp3 is not silent at {first / rate:.4f} s")
never_silent("seek.mp3 (second half)", seek, half_s * rate)

# The other formats' seek files, around the midpoint (their decodes start 5 s before it): quiet
# until 0.1 s before it, sound by 0.1 s after it (AAC's priming delay, 1024 samples, stays in
# the HLS segments' timeline).
import glob
for path in sorted(glob.glob(f"{tmp}/mid-*.raw")):
    a = array.array("h")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    name = path.rsplit("/mid-", 1)[1][:-4]
    quiet_end, loud_by = int(4.9 * rate) * 2, int(5.1 * rate) * 2
    loud = [i for i, v in enumerate(a) if abs(v) > quiet]
    if not loud or loud[0] < quiet_end or loud[0] > loud_by:
        at = loud[0] / 2 / rate - 5 if loud else None
        sys.exit(f"make-bench-media: {name}: first sound at {at} s from the midpoint, expected within 0.1 s")
EOF

python3 - "$out" "$long" "$short" "$half" "$smoke" >"$tmp/bench-media.json" <<'EOF'
import json, os, sys
out = sys.argv[1]
long_s, short_s, half_s, smoke = map(int, sys.argv[2:])
size = lambda name: os.path.getsize(os.path.join(out, name))
print(json.dumps({
    "rate": 44100, "channels": 2, "bitrate": 128000,
    "files": {
        "long.mp3": {"seconds": long_s, "bytes": size("long.mp3")},
        "seek.mp3": {"seconds": long_s, "bytes": size("seek.mp3"), "seekTo": half_s},
        "short.mp3": {"seconds": short_s, "bytes": size("short.mp3")},
        **{f"long{ext}": {"seconds": long_s, "bytes": size(f"long{ext}")}
           for ext in (".m4a", "-tail.m4a", ".flac", ".opus")},
        **{f"seek{ext}": {"seconds": long_s, "bytes": size(f"seek{ext}"), "seekTo": half_s}
           for ext in (".m4a", "-tail.m4a", ".flac", ".opus")},
        "hls-long/index.m3u8": {"seconds": long_s, "bytes": size("hls-long/index.m3u8")},
        "hls-seek/index.m3u8": {"seconds": long_s, "bytes": size("hls-seek/index.m3u8"),
                                "seekTo": half_s},
    },
    "smoke": bool(smoke),
}, separators=(",", ":")))
EOF
mv -f "$tmp/bench-media.json" "$out/bench-media.json"
rm -rf "$tmp"

printf '%s\n' "$stamp_text" >"$stamp"
echo "make-bench-media: done" >&2
