#!/usr/bin/env bash
# Builds the example player (Examples/QueuePlayer, a package of its own that links the library
# as a user's player would) and plays a queue of an M4A, a FLAC and an Ogg Vorbis track with it
# into a WAV file. The audio must be the three tracks' ffmpeg decodes end to end, sample for
# sample: the example builds, links, and plays gaplessly.
#   bash scripts/check-example.sh MEDIA_DIR
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
media=${1:?usage: check-example.sh MEDIA_DIR}

swift build --package-path Examples/QueuePlayer --scratch-path .build-examples
binary=$(swift build --package-path Examples/QueuePlayer --scratch-path .build-examples --show-bin-path)/queue-player

work=$(mktemp -d "${TMPDIR:-/tmp}/streamplay-example.XXXXXX")
trap 'rm -rf "$work"' EXIT
parts=(formats/part1.m4a formats/part2.flac formats/part3.ogg)
"$binary" --wav "$work/out.wav" "${parts[@]/#/$media/}" > "$work/events.txt"
cat "$work/events.txt"

# The samples the example wrote, and the references made by ffmpeg (make-test-media.sh).
ffmpeg -v error -i "$work/out.wav" -f s16le -acodec pcm_s16le "$work/out.raw"
for part in "${parts[@]}"; do cat "$media/$part.raw"; done > "$work/expected.raw"
if ! cmp -s "$work/out.raw" "$work/expected.raw"; then
  echo "check-example.sh: the example's audio ($(stat -c %s "$work/out.raw") bytes) is not the three decodes end to end ($(stat -c %s "$work/expected.raw") bytes)" >&2
  exit 1
fi
grep -q "track 3 of 3" "$work/events.txt" || { echo "check-example.sh: no event for the third track" >&2; exit 1; }
echo "check-example.sh: the example player played the queue sample for sample"
