#!/usr/bin/env bash
# Makes the test media (MP3s, their reference decodes, bad inputs, the demo track) in OUTDIR,
# and then the HLS and album media in OUTDIR/hls and OUTDIR/album (scripts/make-hls-media.sh;
# see its header for those files).
# Usage: make-test-media.sh OUTDIR
#
# Everything is synthesised here (sox, lame, ffmpeg, openssl, python3), nothing is downloaded.
# `sox -R` seeds sox's noise generator and python3's random is seeded, so a rerun with the same
# tools makes the same bytes. When OUTDIR/.complete exists, is newer than this script,
# media-lib.sh, make-demo.sh and make-hls-media.sh, and names the same tool versions, nothing is
# done (repeated test runs stay fast).
#
# For every NAME.mp3 there is NAME.mp3.raw (`mpg123 -q -s`: s16 native-endian, native rate and
# channels, gapless-trimmed) and NAME.mp3.info with key=value lines:
#   rate=  channels=  samples= (per channel)  bytes= (file size)
#   audio_offset= (bytes before the first MPEG frame)  decodable=yes|no
# Undecodable files (empty.mp3, not-mp3.mp3) get an empty .raw and rate=0 channels=0 samples=0.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$scripts/$(basename "${BASH_SOURCE[0]}")"
# shellcheck source-path=SCRIPTDIR source=media-lib.sh
source "$scripts/media-lib.sh"

for tool in sox lame mpg123 python3 ffmpeg openssl metaflac; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "make-test-media: $tool not found (run scripts/install-deps.sh)" >&2
    exit 1
  }
done

# Different tool versions may make different bytes, so they are part of the stamp.
stamp_text="sox=$(sox --version 2>&1 | head -n1)
lame=$(lame --version 2>&1 | head -n1)
mpg123=$(mpg123 --version 2>&1 | head -n1)
ffmpeg=$(ffmpeg -version 2>&1 | head -n1)
openssl=$(openssl version 2>&1 | head -n1)
metaflac=$(metaflac --version 2>&1 | head -n1)"

stamp="$out/.complete"
if [[ -f $stamp && ! $self -nt $stamp && ! $scripts/media-lib.sh -nt $stamp &&
  ! $scripts/make-demo.sh -nt $stamp && ! $scripts/make-hls-media.sh -nt $stamp &&
  ! $scripts/mp4-freeform.py -nt $stamp && "$(cat "$stamp")" == "$stamp_text" ]]; then
  exit 0
fi

echo "make-test-media: making test media in $out" >&2
mkdir -p "$out/wav"
rm -f "$stamp"
out=$(cd "$out" && pwd)
wav="$out/wav"

# --- Source signals (WAV) ---------------------------------------------------------------------

short=6 # seconds, for the short files

# 30 s second-marker + noise, 44.1 kHz stereo.
marker_signal 44100 2 30 "$wav/marker-44k-stereo.tmp.wav"
noise_signal 44100 2 30 "$wav/noise-44k-stereo-30s.tmp.wav"
mix "$wav/marker-44k-stereo.tmp.wav" "$wav/noise-44k-stereo-30s.tmp.wav" \
  "$wav/marker-noise-44k-stereo-30s.wav"

# Short sweep + noise signals in each rate/channel layout the MP3s need.
for layout in 44100:2 44100:1 48000:2 48000:1 22050:1; do
  rate=${layout%:*} ch=${layout#*:}
  name="unique-$((rate / 1000))k-$([[ $ch -eq 2 ]] && echo stereo || echo mono)-${short}s"
  sweep_signal "$rate" "$ch" "$short" "$wav/sweep.tmp.wav"
  noise_signal "$rate" "$ch" "$short" "$wav/noise.tmp.wav"
  mix "$wav/sweep.tmp.wav" "$wav/noise.tmp.wav" "$wav/$name.wav"
done
rm -f "$wav"/*.tmp.wav

# --- MP3s ------------------------------------------------------------------------------------

# --resample pins the output rate: lame would otherwise pick a lower rate for low bit rates.
enc() { # SRC.wav OUT.mp3 RATE_KHZ LAME_ARGS...
  local src=$1 dst=$2 khz=$3
  shift 3
  lame --quiet --resample "$khz" "$@" "$wav/$src" "$out/$dst"
}
enc marker-noise-44k-stereo-30s.wav cbr-44k-stereo.mp3 44.1 --cbr -b 128 -m j
enc marker-noise-44k-stereo-30s.wav vbr-44k-stereo.mp3 44.1 -V 2 -m j
enc unique-44k-stereo-6s.wav cbr-44k-stereo-short.mp3 44.1 --cbr -b 128 -m j
enc unique-48k-stereo-6s.wav cbr-48k-stereo.mp3 48 --cbr -b 128 -m j
enc unique-44k-mono-6s.wav cbr-44k-mono.mp3 44.1 --cbr -b 96 -m m
enc unique-22k-mono-6s.wav cbr-22k-mono.mp3 22.05 --cbr -b 64 -m m
enc unique-48k-mono-6s.wav vbr-48k-mono.mp3 48 -V 2 -m m

# id3-big.mp3: an ID3v2.3 tag of about 1 MiB (one PRIV frame of seeded random bytes, much like
# embedded cover art: it contains false MPEG sync words) in front of cbr-44k-stereo-short.mp3.
# junk-front.mp3: 333 bytes of seeded junk (no 0xFF, so no sync words) in front of the same file.
python3 - "$out" <<'EOF'
import random, struct, sys
out = sys.argv[1]
with open(f"{out}/cbr-44k-stereo-short.mp3", "rb") as f:
    mp3 = f.read()

payload = b"streamplay-test\x00" + random.Random(20240601).randbytes(1 << 20)
frame = b"PRIV" + struct.pack(">I", len(payload)) + b"\x00\x00" + payload  # v2.3: plain size
size = len(frame)
syncsafe = bytes([(size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F])
tag = b"ID3" + bytes([3, 0]) + b"\x00" + syncsafe + frame
with open(f"{out}/id3-big.mp3", "wb") as f:
    f.write(tag + mp3)

rng = random.Random(333)
junk = bytes(rng.randrange(0, 0xFF) for _ in range(333))
with open(f"{out}/junk-front.mp3", "wb") as f:
    f.write(junk + mp3)

with open(f"{out}/offsets.tmp", "w") as f:
    f.write(f"id3-big.mp3 {len(tag)}\njunk-front.mp3 {len(junk)}\n")
EOF

# truncated.mp3: the first 40% of the 30 s CBR file, cut wherever that falls (mid-frame). Its
# LAME tag still claims 30 s.
full=$(stat -c %s "$out/cbr-44k-stereo.mp3")
head -c $((full * 40 / 100)) "$out/cbr-44k-stereo.mp3" >"$out/truncated.mp3"

# joined.mp3: 24 quarter-second VBR MP3s joined with cat, each with its own LAME tag (as
# recordings split into parts and joined again are), more parts than the decoder's damage
# recovery limit allows damaged stretches: a join is not damage.
for i in $(seq 0 23); do
  sox -R "$wav/unique-44k-stereo-6s.wav" "$wav/part.tmp.wav" trim "$((i * 11025))s" 11025s
  lame --quiet --resample 44.1 -V 4 "$wav/part.tmp.wav" "$wav/part$i.tmp.mp3"
done
for i in $(seq 0 23); do cat "$wav/part$i.tmp.mp3"; done >"$out/joined.mp3"
# joined-short.mp3: a 2 s part and a 0.3 s part joined with cat. The second part (a few KiB)
# reaches the decoder in the same read as the first part's end, so the input has ended when the
# decoder ends the first part: that end is not the track's.
sox -R "$wav/unique-44k-stereo-6s.wav" "$wav/part.tmp.wav" trim 0s 88200s
lame --quiet --resample 44.1 -V 4 "$wav/part.tmp.wav" "$wav/short0.tmp.mp3"
sox -R "$wav/unique-44k-stereo-6s.wav" "$wav/part.tmp.wav" trim 88200s 13230s
lame --quiet --resample 44.1 -V 4 "$wav/part.tmp.wav" "$wav/short1.tmp.mp3"
cat "$wav/short0.tmp.mp3" "$wav/short1.tmp.mp3" >"$out/joined-short.mp3"
rm -f "$wav"/part*.tmp.* "$wav"/short*.tmp.*

# --- Bad inputs --------------------------------------------------------------------------------

cat >"$out/page.html" <<'EOF'
<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Not audio</title></head>
<body>
<h1>This is not an MP3</h1>
<p>StreamPlay test page: a server that answers with HTML (a login page, an error page, a
captive portal) where audio was expected.</p>
</body>
</html>
EOF
cp "$out/page.html" "$out/not-mp3.mp3"
: >"$out/empty.mp3"
python3 -c 'import random, sys; sys.stdout.buffer.write(random.Random(64).randbytes(65536))' \
  >"$out/random.bin"

# --- Other formats -----------------------------------------------------------------------------

# What listeners keep besides MP3, made by ffmpeg's own encoders and played through FFmpeg's
# libraries. The content decides, never the name: the .mp3-named copies are AAC. ffmpeg writes an
# MP4's index (moov) after its media data unless told otherwise: tone.m4a is such a file, and
# tone-faststart.m4a has its index first.
mkdir -p "$out/formats"
ff() { # OUT FFMPEG_OUTPUT_ARGS...
  local dst=$1
  shift
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" "$@" "$out/formats/$dst"
}
ff tone.m4a -c:a aac -b:a 128k
ff tone.aac -c:a aac -b:a 128k -f adts
# The Icecast AAC mount's file: without perceptual noise substitution, whose noise comes from a
# generator the decoder seeds once, so a listener who joins mid-stream decodes what a decode of
# the whole file gives, bit for bit (with it, only the stretches without noise bands match).
ff radio.aac -c:a aac -b:a 128k -aac_pns 0 -f adts
ff tone.flac -c:a flac
ff tone.opus -c:a libopus -b:a 96k
ff tone.ogg -c:a libvorbis -q:a 4
ff tone-faststart.m4a -c:a aac -b:a 128k -movflags +faststart
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-48k-mono-6s.wav" -c:a flac "$out/formats/tone-48k-mono.flac"
cp "$out/formats/tone.aac" "$out/formats/aac-named.mp3"
cp "$out/formats/tone.m4a" "$out/formats/m4a-named.mp3"
# One signal cut into an M4A, a FLAC and an Ogg Vorbis track: a gapless queue across decoders.
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" -t 2 -c:a aac -b:a 128k "$out/formats/part1.m4a"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" -ss 2 -t 2 -c:a flac "$out/formats/part2.flac"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" -ss 4 -c:a libvorbis -q:a 4 "$out/formats/part3.ogg"
# Tagged the way each container tags: Vorbis comments (FLAC, Ogg) and MP4 ilst.
for ext in flac m4a ogg; do
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" -t 1 \
    -metadata title="Tagged Title" -metadata artist="Tag Artist" -metadata album="Tag Album" "$out/formats/tagged.$ext"
done
# Cover art and a track number, in each container's own way: an ID3v2 APIC frame and TRCK
# (MP3), an MP4 covr atom and trkn (M4A), a FLAC PICTURE block and a TRACKNUMBER comment.
# cover.png is the picture every one of them holds, byte for byte.
ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i color=c=0x336699:s=96x96 -frames:v 1 \
  -c:v png "$out/formats/cover.png"
for ext in mp3 m4a flac; do
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" \
    -i "$out/formats/cover.png" -map 0:a -map 1:v -t 1 -c:v copy -disposition:v attached_pic \
    -metadata title="Covered Title" -metadata artist="Tag Artist" -metadata album="Tag Album" \
    -metadata track=3/12 -metadata:s:v comment="Cover (front)" "$out/formats/tagged-cover.$ext"
done
# Longer tracks, for seeks that need a Range request (their media outgrow a small ring).
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/marker-noise-44k-stereo-30s.wav" -c:a flac "$out/formats/long.flac"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/marker-noise-44k-stereo-30s.wav" -c:a aac -b:a 128k "$out/formats/long.m4a"
# Bad input, each a typed error (or a resync), never noise or a play that ends in success:
# an M4A cut short inside its index; one with no index at all; an M4A and a FLAC cut in their
# media; an M4A with Common Encryption (cenc); ADTS with garbage in the middle.
head -c "$(($(stat -c %s "$out/formats/tone.m4a") - 600))" "$out/formats/tone.m4a" >"$out/formats/truncated.m4a"
python3 - "$out/formats/tone.m4a" "$out/formats/no-moov.m4a" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
out, at = b"", 0
while at + 8 <= len(data):
    size, kind = struct.unpack(">I4s", data[at:at + 8])
    if kind != b"moov":
        out += data[at:at + size]
    at += size
open(sys.argv[2], "wb").write(out)
PY
# Chained Ogg, as an Ogg radio source sends a new title: two logical streams one after the
# other, each with its own comment header (cat of two Ogg files is a valid chained stream), in
# Vorbis and in Opus. The parts keep their own reference decodes; the whole one's is ffmpeg's.
for kind in "ogg libvorbis -q:a 4" "opus libopus -b:a 96k"; do
  read -r ext codec option value <<<"$kind"
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" -t 3 -c:a "$codec" "$option" "$value" \
    -metadata title="Chain One" -metadata artist="Chain Artist" -metadata album="Chain Album" "$out/formats/chain-one.$ext"
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" -ss 3 -c:a "$codec" "$option" "$value" \
    -metadata title="Chain Two" -metadata artist="Chain Artist" -metadata album="Chain Album" "$out/formats/chain-two.$ext"
  cat "$out/formats/chain-one.$ext" "$out/formats/chain-two.$ext" >"$out/formats/chained.$ext"
done
# Ogg cut short: mid-page (Vorbis and Opus), and at a page boundary in the middle with the last
# page kept, whose granule position (and end-of-stream flag) promises audio that is not there.
head -c "$(($(stat -c %s "$out/formats/tone.ogg") / 2))" "$out/formats/tone.ogg" >"$out/formats/truncated.ogg"
head -c "$(($(stat -c %s "$out/formats/tone.opus") / 2))" "$out/formats/tone.opus" >"$out/formats/truncated.opus"
python3 - "$out/formats/tone.ogg" "$out/formats/truncated-gap.ogg" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
pages, at = [], 0
while at < len(data):
    size = 27 + data[at + 26] + sum(data[at + 27:at + 27 + data[at + 26]])
    pages.append(data[at:at + size])
    at += size
half = len(pages) // 2
open(sys.argv[2], "wb").write(b"".join(pages[:half]) + pages[-1])
PY
# Ogg whose last page is not marked end-of-stream, as recordings of live streams often are
# (the stream was cut between pages, its end never sent): complete all the same.
for ext in ogg opus; do
  python3 - "$out/formats/tone.$ext" "$out/formats/no-eos.$ext" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
at = last = 0
while at < len(data):
    last = at
    at += 27 + data[at + 26] + sum(data[at + 27:at + 27 + data[at + 26]])
data[last + 5] &= ~0x04  # header_type: end-of-stream off
def crc(page):  # Ogg's CRC-32: polynomial 0x04c11db7, not reflected, no initial or final xor
    value = 0
    for byte in page:
        value ^= byte << 24
        for _ in range(8):
            value = ((value << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if value & 0x80000000 else (value << 1) & 0xFFFFFFFF
    return value
data[last + 22:last + 26] = b"\0\0\0\0"
data[last + 22:last + 26] = struct.pack("<I", crc(data[last:]))
open(sys.argv[2], "wb").write(data)
PY
done
# Ogg with an ID3v1 tag (128 bytes) after its last page, as some taggers append one: bytes that
# are no page after a whole stream, which ffmpeg and mpv play whole.
for ext in ogg opus; do
  { cat "$out/formats/tone.$ext"; printf 'TAG%-30s%-30s%-30s%-4s%-30s\377' Trailer StreamPlay Tests 2026 ''; } \
    >"$out/formats/id3v1-trailer.$ext"
done
head -c "$(($(stat -c %s "$out/formats/tone-faststart.m4a") / 2))" "$out/formats/tone-faststart.m4a" >"$out/formats/truncated-media.m4a"
head -c "$(($(stat -c %s "$out/formats/tone.flac") / 2))" "$out/formats/tone.flac" >"$out/formats/truncated.flac"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" -c:a aac -b:a 128k \
  -encryption_scheme cenc-aes-ctr -encryption_key 76a6c65c5ea762046bd749a2e632ccbb \
  -encryption_kid a7e61c373e219033c21091fa607bf3b8 "$out/formats/encrypted.m4a"
# A WAV whose format tag (0x1234) names no codec FFmpeg knows: unsupportedFormat, named.
python3 - "$out/formats/unknown-codec.wav" <<'PY'
import struct, sys
data = bytes(8000)
fmt = struct.pack("<HHIIHH", 0x1234, 2, 44100, 176400, 4, 16)
body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
open(sys.argv[1], "wb").write(b"RIFF" + struct.pack("<I", len(body)) + body)
PY
{
  head -c 40000 "$out/formats/tone.aac"
  head -c 3000 "$out/random.bin"
  tail -c +40001 "$out/formats/tone.aac"
} >"$out/formats/garbage-middle.aac"
# ReplayGain, as taggers write it: Vorbis comments in FLAC (a track and an album value with
# their peaks; a gain whose peak tag would clip, +6 dB on a stated peak of 0.8, with the
# signal's real peak near 0.5 so that the limited gain clips nothing), an Opus stream's R128
# comments (Q7.8 dB: -2560 is -10 dB, 512 is +2 dB), and ID3v2 TXXX frames in front of an MP3.
# Beside the FLACs, the ffmpeg program's decode scaled by the gain each mode must apply, in float
# as the engine does: .track.raw, .album.raw and, for the clipping case, .limited.raw (x1.25).
ff rg-tagged.flac -c:a flac -metadata REPLAYGAIN_TRACK_GAIN="-6.02 dB" -metadata REPLAYGAIN_TRACK_PEAK="0.51" \
  -metadata REPLAYGAIN_ALBUM_GAIN="-2.50 dB" -metadata REPLAYGAIN_ALBUM_PEAK="0.6"
ff rg-clip.flac -c:a flac -metadata REPLAYGAIN_TRACK_GAIN="+6.00 dB" -metadata REPLAYGAIN_TRACK_PEAK="0.8"
ff rg-r128.opus -c:a libopus -b:a 96k -metadata R128_TRACK_GAIN=-2560 -metadata R128_ALBUM_GAIN=512
ff rg-tagged.mp3 -c:a libmp3lame -b:a 128k -metadata REPLAYGAIN_TRACK_GAIN="-6.02 dB" \
  -metadata REPLAYGAIN_TRACK_PEAK="0.51"
# An M4A with the gains as iTunes-style freeform comments (----:com.apple.iTunes:replaygain_*),
# which ffmpeg does not write: added by scripts/mp4-freeform.py.
ff rg-plain.tmp.m4a -c:a aac -b:a 128k
python3 "$scripts/mp4-freeform.py" "$out/formats/rg-plain.tmp.m4a" "$out/formats/rg-tagged.m4a" \
  "replaygain_track_gain=-6.02 dB" "replaygain_track_peak=0.51" "replaygain_album_gain=-2.50 dB" \
  "replaygain_album_peak=0.6"
rm -f "$out/formats/rg-plain.tmp.m4a"
scaled() { # IN OUT VOLUME
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$out/formats/$1" -af "volume=$3:precision=float" \
    -f s16le -c:a pcm_s16le "$out/formats/$2"
}
scaled rg-tagged.flac rg-tagged.flac.track.raw -6.02dB
scaled rg-tagged.flac rg-tagged.flac.album.raw -2.50dB
scaled rg-clip.flac rg-clip.flac.limited.raw 1.25
scaled rg-tagged.m4a rg-tagged.m4a.track.raw -6.02dB
scaled rg-tagged.m4a rg-tagged.m4a.album.raw -2.50dB
# Reference decodes by the ffmpeg program (s16, the stream's own rate and channels), beside each.
reference_decode() { # FILE
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$1" -f s16le -c:a pcm_s16le "$1.raw"
  ffprobe -v error -select_streams a:0 -show_entries stream=sample_rate,channels -of default=noprint_wrappers=1 "$1" |
    sed -e 's/^sample_rate=/rate=/' >"$1.info"
}
for file in "$out"/formats/*; do
  case $file in *.raw | *.info) continue ;; esac
  case $(basename "$file") in truncated* | no-moov.m4a | encrypted.m4a | garbage-middle.aac | unknown-codec.wav | cover.png) continue ;; esac
  reference_decode "$file"
done

# --- Seeks by bisection ----------------------------------------------------------------------

# seek/seek.flac, seek/seek.opus: 30 s of exact digital silence, then the 30 s marker-noise
# signal, made like the benchmark's seek media (scripts/make-bench-media.sh): FLAC by ffmpeg
# (no seek table) and Opus 128 kbps in Ogg. libavformat seeks both by bisection, several reads
# at other offsets in a row, each a Range restart of the input. In a folder of their own: no
# reference decodes (a seek is judged by its sound starting, not its samples).
mkdir -p "$out/seek"
sox -D -n -r 44100 -c 2 -b 16 -t wavpcm "$wav/silence-30s.tmp.wav" trim 0 30
sox "$wav/silence-30s.tmp.wav" "$wav/marker-noise-44k-stereo-30s.wav" -t wavpcm "$wav/seek.tmp.wav"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/seek.tmp.wav" -map_metadata -1 -fflags +bitexact \
  -c:a flac "$out/seek/seek.flac"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/seek.tmp.wav" -map_metadata -1 -fflags +bitexact \
  -c:a libopus -b:a 128k "$out/seek/seek.opus"
# formats/seektable.flac: the same signal with a seek table, one point a second (metaflac: ffmpeg
# writes none). In formats/, for its reference decode: a seek into it is judged to the sample,
# and against seek/seek.flac by the Range requests it takes.
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/seek.tmp.wav" -map_metadata -1 -fflags +bitexact \
  -c:a flac "$out/formats/seektable.flac"
metaflac --add-seekpoint=1s "$out/formats/seektable.flac"
reference_decode "$out/formats/seektable.flac"
rm -f "$wav"/*.tmp.wav

# --- Demo track ------------------------------------------------------------------------------

# tagged/song-{a,b,c}.mp3: the 30 s signal at 128 kbps CBR, each with an ID3v2 tag (lame
# --id3v2-only) naming title "Song A" (B, C), artist "StreamPlay Testers" and album "Test
# Album", track numbers 1 to 3 of 3, and formats/cover.png as the front cover: tags for the
# MPRIS tests. In a folder of their own: no reference decodes.
mkdir -p "$out/tagged"
number=0
for letter in a b c; do
  number=$((number + 1))
  lame --quiet --resample 44.1 --cbr -b 128 -m j --id3v2-only --tt "Song ${letter^^}" \
    --ta "StreamPlay Testers" --tl "Test Album" --tn "$number/3" --ti "$out/formats/cover.png" \
    "$wav/marker-noise-44k-stereo-30s.wav" "$out/tagged/song-$letter.mp3"
done

bash "$scripts/make-demo.sh" "$out/demo.mp3"

# --- Gapless M4A by iTunSMPB alone --------------------------------------------------------------

# M4As whose only gapless facts are an iTunes-style `----:com.apple.iTunes:iTunSMPB` comment, as
# older iTunes-style encoders write them: ffmpeg's AAC encoder without an edit list, then the
# comment added with its real priming (1024 samples), padding and the source's length. In a
# folder of their own: the reference (NAME.raw) is the source signal itself, not ffmpeg's
# decode, and NAME.decoded.raw is ffmpeg's decode cut to that length (what a player that reads
# iTunSMPB gives, sample for sample). smpb-part1/2 are one signal cut at 2 s, for a gapless queue.
mkdir -p "$out/smpb"
smpb() { # OUT SOURCE_ARGS...
  local dst=$1
  shift
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$wav/unique-44k-stereo-6s.wav" "$@" -f s16le -c:a pcm_s16le "$out/smpb/$dst.raw"
  ffmpeg -nostdin -hide_banner -loglevel error -y -f s16le -ar 44100 -ac 2 -i "$out/smpb/$dst.raw" \
    -c:a aac -b:a 128k -use_editlist 0 "$out/smpb/$dst.tmp.m4a"
  local frames decoded padding priming=1024
  frames=$(($(stat -c %s "$out/smpb/$dst.raw") / 4))
  decoded=$(($(ffmpeg -nostdin -hide_banner -loglevel error -i "$out/smpb/$dst.tmp.m4a" -f s16le - | wc -c) / 4))
  padding=$((decoded - priming - frames))
  python3 "$scripts/mp4-freeform.py" "$out/smpb/$dst.tmp.m4a" "$out/smpb/$dst" --no-edit-list \
    "iTunSMPB=$(printf ' 00000000 %08X %08X %016X' "$priming" "$padding" "$frames")$(printf ' 00000000%.0s' 1 2 3 4 5 6 7 8)"
  rm -f "$out/smpb/$dst.tmp.m4a"
  printf 'rate=44100\nchannels=2\n' >"$out/smpb/$dst.info"
  cp "$out/smpb/$dst.info" "$out/smpb/$dst.decoded.info"
  ffmpeg -nostdin -hide_banner -loglevel error -i "$out/smpb/$dst" -f s16le - | head -c "$((frames * 4))" >"$out/smpb/$dst.decoded.raw"
}
smpb tone.m4a
smpb part1.m4a -t 2
smpb part2.m4a -ss 2 -t 2

# --- Reference decodes -------------------------------------------------------------------------

for mp3 in "$out"/*.mp3; do
  offset=$(awk -v n="$(basename "$mp3")" '$1 == n { print $2 }' "$out/offsets.tmp")
  write_reference "$mp3" "${offset:-0}"
done
rm -f "$out/offsets.tmp"

# The prefixed copies must decode exactly like the file inside them.
for name in id3-big.mp3 junk-front.mp3; do
  if ! cmp -s "$out/$name.raw" "$out/cbr-44k-stereo-short.mp3.raw"; then
    echo "make-test-media: $name does not decode like cbr-44k-stereo-short.mp3" >&2
    exit 1
  fi
done

# --- HLS and album media ------------------------------------------------------------------------

bash "$scripts/make-hls-media.sh" "$out"

printf '%s\n' "$stamp_text" >"$stamp"
echo "make-test-media: done" >&2
