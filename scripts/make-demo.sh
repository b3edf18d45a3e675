#!/usr/bin/env bash
# Makes the README demo track: ~20 s of strummed chords with an arpeggio on top, synthesised by
# sox alone (no samples, nothing downloaded), encoded as 44.1 kHz stereo 128 kbps CBR MP3.
# Usage: make-demo.sh OUTFILE
# Reproducible: `sox -R` seeds the noise that excites the plucked strings, and lame adds no
# time stamps, so the same tools make the same bytes. Skips work when OUTFILE is newer than
# this script.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTFILE" >&2
  exit 2
fi
out=$1
self=${BASH_SOURCE[0]}

if [[ -s $out && $out -nt $self ]]; then
  exit 0
fi

for tool in sox lame; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "make-demo: $tool not found (run scripts/install-deps.sh)" >&2
    exit 1
  }
done

mkdir -p "$(dirname "$out")"
work=$(mktemp -d "${TMPDIR:-/tmp}/streamplay-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

rate=44100
bar=2.5            # seconds per chord
note=0.3125        # eight arpeggio notes per bar

# Chord voicings (guitar-like, low to high) and the arpeggio over each chord.
declare -A CHORD=(
  [C]="C3 E3 G3 C4 E4"
  [Am]="A2 E3 A3 C4 E4"
  [F]="F2 C3 F3 A3 C4 F4"
  [G]="G2 B2 D3 G3 B3 G4"
)
declare -A ARP=(
  [C]="C5 E5 G5 C6 G5 E5 C5 E5"
  [Am]="A4 C5 E5 A5 E5 C5 A4 C5"
  [F]="F4 A4 C5 F5 C5 A4 F4 A4"
  [G]="G4 B4 D5 G5 D5 B4 G4 B4"
)
PROGRESSION=(C Am F G C F G C)

bars=()
i=0
for name in "${PROGRESSION[@]}"; do
  read -r -a tones <<<"${CHORD[$name]}"
  read -r -a notes <<<"${ARP[$name]}"

  # Strum: one plucked string per tone, each a little later than the one below.
  synth=() delays=()
  for k in "${!tones[@]}"; do
    synth+=(pluck "${tones[$k]}")
    delays+=("0.0$((k * 3))")
  done
  # Input has one channel per string (synth fills channel k with tone k); remix sums them.
  sox -R -r "$rate" -c "${#tones[@]}" -n -c 1 "$work/chord$i.wav" \
    synth "$bar" "${synth[@]}" delay "${delays[@]}" remix - \
    trim 0 "$bar" fade q 0.005 "$bar" 0.3 vol 0.5

  # Arpeggio: one sox call, one effects chain per note; the chains' outputs are concatenated.
  chains=()
  for n in "${notes[@]}"; do
    [[ ${#chains[@]} -gt 0 ]] && chains+=(:)
    chains+=(synth "$note" pluck "$n" fade q 0.002 "$note" 0.05)
  done
  if [[ $i -eq $((${#PROGRESSION[@]} - 1)) ]]; then
    # Last bar: a single long note to end on.
    chains=(synth "$bar" pluck C6 fade q 0.002 "$bar" 1.5)
  fi
  sox -R -r "$rate" -c 1 -n "$work/arp$i.wav" "${chains[@]}"

  # Chord mostly left, arpeggio mostly right.
  sox -R -M "$work/chord$i.wav" "$work/arp$i.wav" "$work/bar$i.wav" \
    remix 1v0.8,2v0.35 1v0.45,2v0.7
  bars+=("$work/bar$i.wav")
  i=$((i + 1))
done

# Room, softer pluck attacks, no DC, gentle fades and headroom; then a plain CBR encode like
# most MP3s on the web.
sox -R "${bars[@]}" -b 16 "$work/demo.wav" \
  highpass 30 lowpass 7000 reverb 40 50 70 gain -n -3 fade q 0.3 -0 2.5
lame --quiet --cbr -b 128 -m j --resample 44.1 "$work/demo.wav" "$work/demo.mp3"
mv -f "$work/demo.mp3" "$out"
