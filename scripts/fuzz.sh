#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each for a bounded time:
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 30)
# A crash stops the run with a non-zero status; the input that crashed is kept in .build-fuzz/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-30}
out=.build-fuzz
mkdir -p "$out"

# target name, driver, parser sources (the parsers depend on nothing else in the library but
# its small support files, listed with each target)
targets=(
  "icy Fuzz/FuzzICY.swift Sources/StreamPlay/Input/ICYDemuxer.swift Sources/StreamPlay/Player/StreamMetadata.swift Sources/StreamPlay/Player/Artwork.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainSettings.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainValues.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
  "playlist Fuzz/FuzzPlaylist.swift Sources/StreamPlay/Input/PlaylistParser.swift Sources/StreamPlay/Support/RelativeLocation.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
  "hls Fuzz/FuzzHLS.swift Sources/StreamPlay/Input/HLS/HLSPlaylistParser.swift Sources/StreamPlay/Input/HLS/HLSPlaylist.swift Sources/StreamPlay/Input/HLS/HLSVariantSelection.swift Sources/StreamPlay/Player/PlayerError.swift Sources/StreamPlay/Support/RedactedURL.swift Sources/StreamPlay/Support/RelativeLocation.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
  "sniffer Fuzz/FuzzSniffer.swift Sources/StreamPlay/Decoder/Sniffing/ContentSniffer.swift Sources/StreamPlay/Decoder/Sniffing/MediaSignature.swift Sources/StreamPlay/Decoder/Sniffing/MPEGAudioFrameHeader.swift Sources/StreamPlay/Decoder/Sniffing/ADTSFrameHeader.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
  "ogg Fuzz/FuzzOggPages.swift Sources/StreamPlay/Decoder/FFmpeg/OggChainWatcher.swift Sources/StreamPlay/Player/StreamMetadata.swift Sources/StreamPlay/Player/Artwork.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainSettings.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainValues.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
  "ffmpeg Fuzz/FuzzFFmpegInput.swift Sources/StreamPlay/Decoder/FFmpeg/FFmpegDecoder.swift Sources/StreamPlay/Decoder/FFmpeg/FFmpegDecoder+Diagnostics.swift Sources/StreamPlay/Decoder/FFmpeg/FFmpegDecoder+Converter.swift Sources/StreamPlay/Decoder/FFmpeg/FFmpegDecoder+FLACSeek.swift Sources/StreamPlay/Decoder/FFmpeg/FLACSeekSearch.swift Sources/StreamPlay/Decoder/FFmpeg/FLACFrameHeader.swift Sources/StreamPlay/Decoder/FFmpeg/FFmpegReplayGainReader.swift Sources/StreamPlay/Decoder/FFmpeg/ITunesGaplessInfo.swift Sources/StreamPlay/Decoder/FFmpeg/AVIOBridge.swift Sources/StreamPlay/Decoder/FFmpeg/OggChainWatcher.swift Sources/StreamPlay/Decoder/FFmpeg/FFmpegTagReader.swift Sources/StreamPlay/Decoder/DecoderInputPump.swift Sources/StreamPlay/Decoder/AudioDecoder.swift Sources/StreamPlay/Decoder/Sniffing/MediaSignature.swift Sources/StreamPlay/Player/AudioFormat.swift Sources/StreamPlay/Player/PlayerError.swift Sources/StreamPlay/Player/StreamMetadata.swift Sources/StreamPlay/Player/Artwork.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainSettings.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainValues.swift Sources/StreamPlay/Support/RedactedURL.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
  "flac Fuzz/FuzzFLAC.swift Sources/StreamPlay/Decoder/FFmpeg/FLACFrameHeader.swift Sources/StreamPlay/Decoder/FFmpeg/FLACSeekSearch.swift"
  "headers Fuzz/FuzzHeaders.swift Sources/StreamPlay/Input/ResponseHeaders.swift Sources/StreamPlay/Input/Transport/MediaResponseHead.swift Sources/StreamPlay/HTTP/HTTPHeaders.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
  "id3 Fuzz/FuzzID3.swift Sources/StreamPlay/Decoder/Tags/ID3TagReader.swift Sources/StreamPlay/Player/StreamMetadata.swift Sources/StreamPlay/Player/Artwork.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainSettings.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainValues.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
  "id3v1 Fuzz/FuzzID3v1.swift Sources/StreamPlay/Decoder/Tags/ID3v1TagReader.swift Sources/StreamPlay/Player/StreamMetadata.swift Sources/StreamPlay/Player/Artwork.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainSettings.swift Sources/StreamPlay/Decoder/ReplayGain/ReplayGainValues.swift Sources/StreamPlay/Support/WhitespaceTrimming.swift"
)

for entry in "${targets[@]}"; do
  read -r name sources <<<"$entry"
  # shellcheck disable=SC2086  # the source list is meant to split
  # The FFmpeg target takes the package's CFFmpeg module, and its loader (C) as an object: it
  # loads FFmpeg's libraries at the first decoder, as the library does.
  extra=()
  if [[ $name == ffmpeg ]]; then
    clang -c -O1 -fsanitize=address -I Sources/CFFmpeg/include Sources/CFFmpeg/loader.c -o "$out/cffmpeg-loader.o"
    extra=(-Xcc -fmodule-map-file=Sources/CFFmpeg/include/module.modulemap -I Sources/CFFmpeg/include "$out/cffmpeg-loader.o")
  fi
  swiftc -O -sanitize=fuzzer,address -parse-as-library -package-name StreamPlay "${extra[@]}" $sources -o "$out/fuzz-$name" 2> "$out/fuzz-$name.build.log" || {
    cat "$out/fuzz-$name.build.log" >&2
    exit 1
  }
  mkdir -p "$out/corpus-$name"
  # libFuzzer exits non-zero on a missing corpus folder; git keeps no empty folders, so a
  # target without committed seeds would look like a crash on a fresh clone.
  if ! compgen -G "Fuzz/corpus/$name/*" > /dev/null; then
    echo "fuzz.sh: no seed inputs in Fuzz/corpus/$name (commit at least one)" >&2
    exit 1
  fi
  echo "fuzz.sh: $name for $seconds s"
  # New inputs go to the first corpus folder (a build folder); the committed seeds are read only.
  "$out/fuzz-$name" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$out/crash-$name-" \
    "$out/corpus-$name" "Fuzz/corpus/$name" > "$out/fuzz-$name.log" 2>&1 || {
    tail -n 40 "$out/fuzz-$name.log" >&2
    echo "fuzz.sh: $name found a crash (input kept as $out/crash-$name-*)" >&2
    exit 1
  }
  grep -E "stat::number_of_executed_units|Done" "$out/fuzz-$name.log" | tail -n 1
done
