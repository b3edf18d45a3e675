#!/usr/bin/env bash
# Makes the HLS and gapless-album test media in OUTDIR/hls and OUTDIR/album.
# Usage: make-hls-media.sh OUTDIR   (called by make-test-media.sh, which caches the result)
#
# Synthesised with sox -R (fixed noise seed), lame, ffmpeg and openssl (fixed keys and IVs), so
# the same tools make the same bytes. OUTDIR/hls and OUTDIR/album are made afresh each run.
# Every NAME.mp3 named "(ref)" below has NAME.mp3.raw and NAME.mp3.info next to it, made like
# the other test media (media-lib.sh's write_reference: `mpg123 -q -s`, s16 native-endian,
# native rate and channels; .info: rate= channels= samples= bytes= audio_offset= decodable=).
# Playlist URIs are all relative. "lame -t" = no Xing/LAME tag (and lame writes no ID3 tag), so
# the file is bare MPEG frames: ffmpeg's segments of it, put back together, are the file's bytes
# and decode exactly like it (checked below). Such a file decodes with the encoder delay and
# padding in it (mpg123 has no tag to trim by); its .raw has them too.
#
# hls/
#   source.mp3 (ref)    24 s, 44.1 kHz stereo, second markers + seeded noise (unique at every
#                       position), lame -t --cbr -b 128. What the vod, tagged, byterange, aes,
#                       ts and (re-encoded) aac/fmp4 streams carry.
#   vod/index.m3u8      ffmpeg segment list (VERSION 3, TARGETDURATION 5, MEDIA-SEQUENCE 0,
#                       ENDLIST) of seg000.mp3..seg006.mp3: 4 s segments of source.mp3 cut at
#                       frame boundaries, no ID3 tag, no Xing frame. EXTINF 4.022857, 3.996735
#                       x5, 0.026122 (the last segment is one frame: a real ffmpeg leftover).
#                       cat seg*.mp3 == source.mp3, byte for byte.
#   tagged/index.m3u8   the same cut with ffmpeg's default mp3 muxer options: every segment
#       seg00N.mp3      starts with an ID3v2.4 tag (TSSE "Lavf...") and then an Info (Xing)
#                       frame; without those two each segment is the vod segment's bytes
#                       (checked). The engine must strip both.
#   byterange/index.m3u8  EXT-X-VERSION 4, EXT-X-BYTERANGE entries into all.mp3 (= source.mp3
#       all.mp3         bytes); the ranges are the vod segment sizes, the EXTINFs the vod ones.
#                       Odd entries (1, 3, 5) have no @offset: implicit "right after the
#                       previous range"; even ones give it.
#   aes/index.m3u8      the vod segments, each AES-128-CBC encrypted (openssl enc, PKCS7
#       seg00N.mp3      padding), MEDIA-SEQUENCE 7. seg000..seg002 (sequence 7..9) under
#       key1.bin        #EXT-X-KEY:METHOD=AES-128,URI="key1.bin" with no IV attribute (IV =
#       key2.bin        the sequence number, 16 bytes big-endian); seg003..seg006 (10..13) under
#                       URI="key2.bin",IV=0x... (explicit). Keys: 16 raw bytes. See KEY1, KEY2,
#                       IV2 below. Decrypting gives the vod segments (checked).
#   aes-badkey/index.m3u8  the aes playlist and segments, but both key URIs are "missing.bin",
#                       which does not exist (a 404).
#   master.m3u8         master playlist: low/index.m3u8 (BANDWIDTH=70000), vod/index.m3u8
#                       (140000), both CODECS="mp4a.40.34" (MP3), and aac/index.m3u8
#                       (300000, CODECS="mp4a.40.2", AAC: unsupported).
#   master-aac-only.m3u8  only the AAC variant.
#   low/source.mp3 (ref)  the same 24 s signal, lame -t --cbr -b 64 (44.1 kHz kept)
#   low/index.m3u8, seg00N.mp3  cut like vod (same EXTINFs, 7 segments).
#   discontinuity/index.m3u8  a000.mp3 a001.mp3 (partA: 7.9 s sweep + noise, 44.1 kHz stereo,
#                       lame -t --cbr -b 128), #EXT-X-DISCONTINUITY, b000.mp3 b001.mp3 (partB:
#                       7.9 s sweep + noise, 48 kHz MONO, lame -t --cbr -b 64). 7.9 s, not 8,
#                       so that each part is exactly two segments (no one-frame leftover).
#   discontinuity/partA.mp3, partB.mp3 (ref)  the two parts whole; their .raw are what the
#                       segments decode to, part by part (checked).
#   aac/index.m3u8      AAC (ffmpeg aac, 128k) in ADTS segments seg00N.aac (segment muxer).
#   ts/index.m3u8       source.mp3's frames in MPEG-TS segments seg00N.ts (ffmpeg hls muxer).
#   fmp4/index.m3u8     AAC in fragmented MP4: EXT-X-MAP init.mp4, seg00N.m4s (hls muxer).
#   fmp4-single/index.m3u8  the same in one file, all.m4s: EXT-X-MAP and the segments are
#                       byte ranges of it (single_file).
#   disguised-ts/index.m3u8  the ts segments under the names seg00N.mp3: only sniffing the
#                       content can tell they are not MP3.
#   live/source.mp3 (ref)  12 s sweep + noise, 44.1 kHz stereo, lame -t --cbr -b 128.
#   live/index.m3u8, seg00N.mp3  cut like vod but in 2 s segments. The fault server's
#                       /hls-live/ID/ paths serve these as a live sliding-window stream.
# album/                one continuous 18 s signal (sweep + noise, 44.1 kHz stereo, 793800
#                       samples) cut with sox at samples 233730 (5.3 s) and 515970 (11.7 s),
#                       neither a multiple of 1152, into three tracks, each plain
#                       `lame --cbr -b 128` WITH the LAME tag (encoder delay and padding):
#   01.mp3 02.mp3 03.mp3 (ref)  the three tracks; their .raw decodes, played one after the
#                       other, are the whole signal's length (checked: the sample counts add up).
#   whole.raw           the original 18 s signal, s16 little-endian stereo (for information).
#   04-48k.mp3 (ref)    3 s sweep + noise, 48 kHz MONO, lame --cbr -b 96 (another rate and
#                       channel count after the album).
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=media-lib.sh
source "$scripts/media-lib.sh"

for tool in sox lame mpg123 python3 ffmpeg openssl; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "make-hls-media: $tool not found (run scripts/install-deps.sh)" >&2
    exit 1
  }
done

die() {
  echo "make-hls-media: $*" >&2
  exit 1
}

mkdir -p "$1"
out=$(cd "$1" && pwd)
hls=$out/hls
album=$out/album
rm -rf "$hls" "$album"
mkdir -p "$hls" "$album"
tmp=$(mktemp -d "$out/hls-tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Fixed AES-128 keys ("STREAMPLAY KEY 1" and "... 2" in ASCII) and key2's explicit IV.
KEY1=53545245414d504c4159204b45592031
KEY2=53545245414d504c4159204b45592032
IV2=9a3c5e7f112233445566778899aabbcc
AES_FIRST_SEQUENCE=7

ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }

# The segment URIs of a playlist, one a line.
segments_of() { # PLAYLIST
  grep -v '^#' "$1" | grep -v '^[[:space:]]*$'
}

# ffmpeg's segment muxer: SRC (absolute) cut into SECONDS-long segments seg%03d.mp3 in DIR,
# with DIR/index.m3u8. Bare frames unless "tagged" (ID3v2 tag + Info frame on every segment).
segment_mp3() { # SRC DIR SECONDS [tagged]
  local src=$1 dir=$2 secs=$3 opts=(-segment_format_options write_xing=0:id3v2_version=0)
  [[ ${4:-} == tagged ]] && opts=()
  mkdir -p "$dir"
  (cd "$dir" && ff -i "$src" -c copy -f segment -segment_time "$secs" -segment_format mp3 \
    "${opts[@]}" -segment_list index.m3u8 -segment_list_type m3u8 seg%03d.mp3)
  grep -q '^#EXT-X-ENDLIST' "$dir/index.m3u8" || die "$dir/index.m3u8 has no ENDLIST"
}

# The segments of PLAYLIST, concatenated in order, must be FILE byte for byte and decode
# (mpg123 -q -s, as one stream) exactly like FILE.raw.
check_segments() { # PLAYLIST FILE
  local dir name
  dir=$(dirname "$1")
  : >"$tmp/concat"
  while read -r name; do cat "$dir/$name" >>"$tmp/concat"; done < <(segments_of "$1")
  cmp -s "$tmp/concat" "$2" || die "the segments of $1 are not the bytes of $2"
  mpg123 -q -s - <"$tmp/concat" >"$tmp/concat.raw"
  cmp -s "$tmp/concat.raw" "$2.raw" || die "the segments of $1 do not decode like $2"
}

# --- hls/source.mp3 and the plain VOD cut -----------------------------------------------------

unique_signal marker 44100 2 24 "$tmp/source.wav"
lame --quiet -t --cbr -b 128 "$tmp/source.wav" "$hls/source.mp3"
[[ $(head -c 3 "$hls/source.mp3") != ID3 ]] || die "lame wrote an ID3 tag into source.mp3"
write_reference "$hls/source.mp3"

segment_mp3 "$hls/source.mp3" "$hls/vod" 4
check_segments "$hls/vod/index.m3u8" "$hls/source.mp3"

# --- tagged: ID3v2 + Info frame on every segment ----------------------------------------------

segment_mp3 "$hls/source.mp3" "$hls/tagged" 4 tagged
python3 - "$hls/tagged" "$hls/vod" <<'EOF'
import os, sys
tagged, vod = sys.argv[1], sys.argv[2]
def uris(d):
    lines = [l.strip() for l in open(os.path.join(d, "index.m3u8"))]
    return [l for l in lines if l and not l.startswith("#")]
names = uris(tagged)
assert names == uris(vod), f"tagged and vod are cut differently: {names} {uris(vod)}"
BITRATES = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
for name in names:
    data = open(os.path.join(tagged, name), "rb").read()
    if data[:3] != b"ID3":
        sys.exit(f"make-hls-media: tagged/{name} does not start with an ID3 tag")
    size = 10 + ((data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9])
    h = data[size:size + 4]
    if h[0] != 0xFF or h[1] & 0xFE != 0xFA:
        sys.exit(f"make-hls-media: tagged/{name}: no MPEG-1 layer III frame after the tag")
    length = 144000 * BITRATES[h[2] >> 4] // 44100 + ((h[2] >> 1) & 1)
    frame = data[size:size + length]
    if b"Info" not in frame and b"Xing" not in frame:
        sys.exit(f"make-hls-media: tagged/{name} has no Info/Xing frame after its ID3 tag")
    if data[size + length:] != open(os.path.join(vod, name), "rb").read():
        sys.exit(f"make-hls-media: tagged/{name} without tag and Info frame is not vod/{name}")
EOF

# --- byterange: one file, EXT-X-BYTERANGE -----------------------------------------------------

mkdir -p "$hls/byterange"
cp "$hls/source.mp3" "$hls/byterange/all.mp3"
python3 - "$hls/vod" "$hls/byterange/index.m3u8" <<'EOF'
import math, os, sys
vod, dst = sys.argv[1], sys.argv[2]
entries, extinf = [], None
for line in open(os.path.join(vod, "index.m3u8")):
    line = line.strip()
    if line.startswith("#EXTINF:"):
        extinf = line
    elif line and not line.startswith("#"):
        entries.append((extinf, os.path.getsize(os.path.join(vod, line))))
target = math.ceil(max(float(e[len("#EXTINF:"):].split(",")[0]) for e, _ in entries))
lines = ["#EXTM3U", "#EXT-X-VERSION:4", f"#EXT-X-TARGETDURATION:{target}",
         "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
offset = 0
for i, (extinf, size) in enumerate(entries):
    lines.append(extinf)
    # Odd entries rely on the implicit offset (right after the previous sub-range).
    lines.append(f"#EXT-X-BYTERANGE:{size}" if i % 2 else f"#EXT-X-BYTERANGE:{size}@{offset}")
    lines.append("all.mp3")
    offset += size
lines.append("#EXT-X-ENDLIST")
open(dst, "w").write("\n".join(lines) + "\n")
EOF

# --- aes: AES-128, implicit and explicit IVs --------------------------------------------------

mkdir -p "$hls/aes" "$hls/aes-badkey"
printf '%s' "$KEY1" | xxd -r -p >"$hls/aes/key1.bin"
printf '%s' "$KEY2" | xxd -r -p >"$hls/aes/key2.bin"
mapfile -t vod_segments < <(segments_of "$hls/vod/index.m3u8")
half=$(((${#vod_segments[@]} + 1) / 2 - 1)) # segments 0..half-1 under key1 (3 of 7)
[[ $half -ge 1 ]] || die "too few vod segments for two keys"
for i in "${!vod_segments[@]}"; do
  name=${vod_segments[$i]}
  if ((i < half)); then
    key=$KEY1 iv=$(printf '%032x' $((AES_FIRST_SEQUENCE + i)))
  else
    key=$KEY2 iv=$IV2
  fi
  openssl enc -aes-128-cbc -K "$key" -iv "$iv" -in "$hls/vod/$name" -out "$hls/aes/$name"
  openssl enc -d -aes-128-cbc -K "$key" -iv "$iv" -in "$hls/aes/$name" -out "$tmp/dec"
  cmp -s "$tmp/dec" "$hls/vod/$name" || die "aes/$name does not decrypt to vod/$name"
  cp "$hls/aes/$name" "$hls/aes-badkey/$name"
done
python3 - "$hls/vod/index.m3u8" "$hls/aes/index.m3u8" "$hls/aes-badkey/index.m3u8" \
  "$half" "$AES_FIRST_SEQUENCE" "$IV2" <<'EOF'
import sys
src, dst, bad, half, seq, iv2 = sys.argv[1:]
half = int(half)
lines = [l.rstrip("\n") for l in open(src)]
target = next(l for l in lines if l.startswith("#EXT-X-TARGETDURATION:"))
out = ["#EXTM3U", "#EXT-X-VERSION:3", target, f"#EXT-X-MEDIA-SEQUENCE:{seq}",
       "#EXT-X-PLAYLIST-TYPE:VOD", '#EXT-X-KEY:METHOD=AES-128,URI="key1.bin"']
i, extinf = 0, None
for l in lines:
    if l.startswith("#EXTINF:"):
        extinf = l
    elif l and not l.startswith("#"):
        if i == half:
            out.append(f'#EXT-X-KEY:METHOD=AES-128,URI="key2.bin",IV=0x{iv2}')
        out += [extinf, l]
        i += 1
out.append("#EXT-X-ENDLIST")
text = "\n".join(out) + "\n"
open(dst, "w").write(text)
for key in ('"key1.bin"', '"key2.bin"'):
    text = text.replace(key, '"missing.bin"')
open(bad, "w").write(text)
EOF

# --- master: two MP3 variants and an AAC one ------------------------------------------------

mkdir -p "$hls/low"
lame --quiet -t --cbr -b 64 --resample 44.1 "$tmp/source.wav" "$hls/low/source.mp3"
write_reference "$hls/low/source.mp3"
segment_mp3 "$hls/low/source.mp3" "$hls/low" 4
check_segments "$hls/low/index.m3u8" "$hls/low/source.mp3"
cmp -s <(grep '^#EXTINF' "$hls/low/index.m3u8") <(grep '^#EXTINF' "$hls/vod/index.m3u8") ||
  die "low and vod are cut differently"

cat >"$hls/master.m3u8" <<'EOF'
#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=70000,CODECS="mp4a.40.34"
low/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=140000,CODECS="mp4a.40.34"
vod/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=300000,CODECS="mp4a.40.2"
aac/index.m3u8
EOF
cat >"$hls/master-aac-only.m3u8" <<'EOF'
#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=300000,CODECS="mp4a.40.2"
aac/index.m3u8
EOF

# --- discontinuity: 44.1 kHz stereo, then 48 kHz mono -----------------------------------------

disc=$hls/discontinuity
mkdir -p "$disc"
unique_signal sweep 44100 2 7.9 "$tmp/partA.wav"
unique_signal sweep 48000 1 7.9 "$tmp/partB.wav"
lame --quiet -t --cbr -b 128 --resample 44.1 "$tmp/partA.wav" "$disc/partA.mp3"
lame --quiet -t --cbr -b 64 --resample 48 -m m "$tmp/partB.wav" "$disc/partB.mp3"
for part in A B; do
  write_reference "$disc/part$part.mp3"
  segment_mp3 "$disc/part$part.mp3" "$tmp/part$part" 4
  check_segments "$tmp/part$part/index.m3u8" "$disc/part$part.mp3"
  [[ $(segments_of "$tmp/part$part/index.m3u8" | wc -l) -eq 2 ]] ||
    die "part $part is not two segments"
done
python3 - "$tmp/partA/index.m3u8" "$tmp/partB/index.m3u8" "$disc" <<'EOF'
import math, os, shutil, sys
a, b, disc = sys.argv[1], sys.argv[2], sys.argv[3]
def entries(pl):
    out, extinf = [], None
    for l in open(pl):
        l = l.strip()
        if l.startswith("#EXTINF:"):
            extinf = l
        elif l and not l.startswith("#"):
            out.append((extinf, os.path.join(os.path.dirname(pl), l)))
    return out
parts = [("a", entries(a)), ("b", entries(b))]
durations = [float(e[len("#EXTINF:"):].split(",")[0]) for _, es in parts for e, _ in es]
lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{math.ceil(max(durations))}",
         "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
for k, (prefix, es) in enumerate(parts):
    if k:
        lines.append("#EXT-X-DISCONTINUITY")
    for i, (extinf, path) in enumerate(es):
        name = f"{prefix}{i:03d}.mp3"
        shutil.copyfile(path, os.path.join(disc, name))
        lines += [extinf, name]
lines.append("#EXT-X-ENDLIST")
open(os.path.join(disc, "index.m3u8"), "w").write("\n".join(lines) + "\n")
EOF

# --- other segment formats: AAC/ADTS, MPEG-TS, fMP4, TS disguised as .mp3 ----------------------

mkdir -p "$hls/aac" "$hls/ts" "$hls/fmp4" "$hls/disguised-ts"
(cd "$hls/aac" && ff -i "$tmp/source.wav" -fflags +bitexact -c:a aac -b:a 128k -f segment \
  -segment_time 4 -segment_format adts -segment_list index.m3u8 -segment_list_type m3u8 \
  seg%03d.aac)
(cd "$hls/ts" && ff -i "$hls/source.mp3" -c copy -f hls -hls_time 4 -hls_playlist_type vod \
  -hls_segment_type mpegts -hls_segment_filename seg%03d.ts index.m3u8)
(cd "$hls/fmp4" && ff -i "$tmp/source.wav" -fflags +bitexact -c:a aac -b:a 128k -f hls \
  -hls_time 4 -hls_playlist_type vod -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 \
  -hls_segment_filename seg%03d.m4s index.m3u8)
grep -q '^#EXT-X-MAP:URI="init.mp4"' "$hls/fmp4/index.m3u8" || die "fmp4 playlist has no EXT-X-MAP"
# The same kept in one file: EXT-X-MAP and every segment are byte ranges of all.m4s.
mkdir -p "$hls/fmp4-single"
(cd "$hls/fmp4-single" && ff -i "$tmp/source.wav" -fflags +bitexact -c:a aac -b:a 128k -f hls \
  -hls_time 4 -hls_playlist_type vod -hls_segment_type fmp4 -hls_flags single_file \
  -hls_segment_filename all.m4s index.m3u8)
grep -q '^#EXT-X-MAP:URI="all.m4s",BYTERANGE="[0-9]*@0"' "$hls/fmp4-single/index.m3u8" \
  || die "fmp4-single playlist has no EXT-X-MAP with a BYTERANGE"
while read -r name; do
  [[ $(head -c 1 "$hls/ts/$name" | xxd -p) == 47 ]] || die "ts/$name is not MPEG-TS"
  cp "$hls/ts/$name" "$hls/disguised-ts/${name%.ts}.mp3"
done < <(segments_of "$hls/ts/index.m3u8")
sed 's/\.ts$/.mp3/' "$hls/ts/index.m3u8" >"$hls/disguised-ts/index.m3u8"
for d in aac ts fmp4 disguised-ts; do
  [[ $(segments_of "$hls/$d/index.m3u8" | wc -l) -ge 2 ]] || die "$d: too few segments"
  grep -q '^#EXT-X-ENDLIST' "$hls/$d/index.m3u8" || die "$d/index.m3u8 has no ENDLIST"
done
# SAMPLE-AES with a FairPlay key: DRM, refused by name (the segments themselves are clear).
mkdir -p "$hls/sample-aes"
sed 's|^#EXT-X-MAP:|#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key-id",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"\n#EXT-X-MAP:|' \
  "$hls/fmp4/index.m3u8" | sed 's|^seg|../fmp4/seg|; s|URI="init.mp4"|URI="../fmp4/init.mp4"|' >"$hls/sample-aes/index.m3u8"
grep -q 'METHOD=SAMPLE-AES' "$hls/sample-aes/index.m3u8" || die "sample-aes playlist has no key"
# An init segment that is not there (404): the play fails with the status, before any audio.
mkdir -p "$hls/missing-init"
sed 's|URI="init.mp4"|URI="../fmp4/missing-init.mp4"|; s|^seg|../fmp4/seg|' "$hls/fmp4/index.m3u8" >"$hls/missing-init/index.m3u8"
# References: the segments joined into one stream (fMP4 after its init segment), decoded by the
# ffmpeg program: what a player that decodes across the joins without a reset must produce.
for d in aac ts fmp4; do
  {
    [[ $d == fmp4 ]] && cat "$hls/fmp4/init.mp4"
    while read -r name; do cat "$hls/$d/$name"; done < <(segments_of "$hls/$d/index.m3u8")
  } >"$tmp/joined-$d"
  ff -i "$tmp/joined-$d" -f s16le -c:a pcm_s16le "$hls/$d/stream.raw"
  ffprobe -v error -select_streams a:0 -show_entries stream=sample_rate,channels -of default=noprint_wrappers=1 \
    "$tmp/joined-$d" | sed -e 's/^sample_rate=/rate=/' >"$hls/$d/stream.info"
done
# The one file is already the init section and the segments joined.
ff -i "$hls/fmp4-single/all.m4s" -f s16le -c:a pcm_s16le "$hls/fmp4-single/stream.raw"
cp "$hls/fmp4/stream.info" "$hls/fmp4-single/stream.info"

# --- live: 2 s segments for the fault server's /hls-live/ ---------------------------------------

mkdir -p "$hls/live"
unique_signal sweep 44100 2 12 "$tmp/live.wav"
lame --quiet -t --cbr -b 128 "$tmp/live.wav" "$hls/live/source.mp3"
write_reference "$hls/live/source.mp3"
segment_mp3 "$hls/live/source.mp3" "$hls/live" 2
check_segments "$hls/live/index.m3u8" "$hls/live/source.mp3"

# --- album: one signal, three gapless tracks, then another rate -------------------------------

whole_samples=$((18 * 44100))
cut1=233730 # 5.3 s
cut2=515970 # 11.7 s
((cut1 % 1152 && cut2 % 1152)) || die "album cuts fall on frame boundaries"
unique_signal sweep 44100 2 18 "$tmp/whole.wav"
sox "$tmp/whole.wav" -t raw -e signed-integer -b 16 -L "$album/whole.raw"
[[ $(stat -c %s "$album/whole.raw") -eq $((whole_samples * 4)) ]] ||
  die "whole.raw has the wrong length"
sox "$tmp/whole.wav" "$tmp/01.wav" trim 0s "${cut1}s"
sox "$tmp/whole.wav" "$tmp/02.wav" trim "${cut1}s" "$((cut2 - cut1))s"
sox "$tmp/whole.wav" "$tmp/03.wav" trim "${cut2}s"
total=0
for n in 01 02 03; do
  lame --quiet --cbr -b 128 "$tmp/$n.wav" "$album/$n.mp3"
  write_reference "$album/$n.mp3"
  total=$((total + $(info_value "$album/$n.mp3.info" samples)))
done
[[ $total -eq $whole_samples ]] ||
  die "album tracks decode to $total samples, the signal has $whole_samples"
unique_signal sweep 48000 1 3 "$tmp/04.wav"
lame --quiet --cbr -b 96 --resample 48 -m m "$tmp/04.wav" "$album/04-48k.mp3"
write_reference "$album/04-48k.mp3"

echo "make-hls-media: made $hls and $album" >&2
