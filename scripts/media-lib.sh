# shellcheck shell=bash
# Shared helpers for the media scripts (make-test-media.sh, make-hls-media.sh); source it.
# Needs sox, mpg123 and python3. Every sox call uses -R (fixed seed), so the same tools make the
# same bytes.

# Second markers: during second N (0-based) a sine of 300 + 100*N Hz at -6 dBFS, same in both
# channels. Each second holds a whole number of cycles, so the joins are click-free. A test
# tells which second it hears by the dominant frequency.
marker_signal() { # RATE CHANNELS SECONDS OUTFILE
  local rate=$1 ch=$2 secs=$3 file=$4 chains=() n
  for ((n = 0; n < secs; n++)); do
    [[ $n -gt 0 ]] && chains+=(:)
    chains+=(synth 1 sine $((300 + 100 * n)) gain -6)
  done
  sox -R -r "$rate" -c "$ch" -n "$file" "${chains[@]}"
}

# Seeded white noise at about -36 dBFS, independent per channel. Mixed under the tones it makes
# every position of a signal unique, so cross-correlation against the reference decode finds
# an offset to the sample (a pure tone matches itself every period).
noise_signal() { # RATE CHANNELS SECONDS OUTFILE
  sox -R -r "$1" -c "$2" -n "$4" synth "$3" whitenoise gain -40
}

# Sweeps: left (or mono) rises 200 Hz -> 4 kHz exponentially, right falls 4 kHz -> 200 Hz, so
# time maps to frequency and left/right are told apart. -6 dBFS.
sweep_signal() { # RATE CHANNELS SECONDS OUTFILE
  local tones=(sine 200:4000)
  [[ $2 -eq 2 ]] && tones+=(sine 4000:200)
  sox -R -r "$1" -c "$2" -n "$4" synth "$3" "${tones[@]}" gain -6
}

# Plain sum (sox -m would otherwise scale each input by 1/2), written as a plain 16-bit PCM
# WAV (synth makes 32-bit; -t wavpcm avoids the WAVE_FORMAT_EXTENSIBLE header some readers
# reject).
mix() { # A B OUTFILE
  sox -R -m -v 1 "$1" -v 1 "$2" -b 16 -t wavpcm "$3"
}

# A unique signal (tones + seeded noise) as a 16-bit WAV. KIND: marker or sweep.
unique_signal() { # KIND RATE CHANNELS SECONDS OUTFILE
  local kind=$1 out=$5
  "${kind}_signal" "$2" "$3" "$4" "$out.tones.tmp.wav"
  noise_signal "$2" "$3" "$4" "$out.noise.tmp.wav"
  mix "$out.tones.tmp.wav" "$out.noise.tmp.wav" "$out"
  rm -f "$out.tones.tmp.wav" "$out.noise.tmp.wav"
}

# The reference decode of MP3: MP3.raw (`mpg123 -q -s`: s16 native-endian, native rate and
# channels, gapless-trimmed when the file has a LAME tag) and MP3.info with key=value lines:
#   rate=  channels=  samples= (per channel)  bytes= (file size)
#   audio_offset= (bytes before the first MPEG frame: AUDIO_OFFSET, default 0)
#   decodable=yes|no
# An undecodable file gets an empty .raw and rate=0 channels=0 samples=0 audio_offset=0.
write_reference() { # MP3 [AUDIO_OFFSET]
  local mp3=$1 offset=${2:-0} ref="$1.ref.tmp.wav"
  mpg123 -q -s "$mp3" >"$mp3.raw"
  # mpg123 -s writes no header: get rate and channels from a WAV decode of the same file.
  rm -f "$ref"
  mpg123 -q -w "$ref" "$mp3"
  python3 - "$mp3" "$ref" "$offset" >"$mp3.info" <<'EOF'
import os, sys, wave
mp3, ref, offset = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw_bytes = os.path.getsize(mp3 + ".raw")
if os.path.exists(ref) and raw_bytes > 0:
    with wave.open(ref) as w:
        rate, channels = w.getframerate(), w.getnchannels()
        assert w.getsampwidth() == 2, "expected s16"
        assert w.getnframes() * 2 * channels == raw_bytes, "WAV and raw decodes differ in length"
    samples, decodable = raw_bytes // (2 * channels), "yes"
else:
    rate = channels = samples = offset = 0
    decodable = "no"
print(f"rate={rate}\nchannels={channels}\nsamples={samples}")
print(f"bytes={os.path.getsize(mp3)}\naudio_offset={offset}\ndecodable={decodable}")
EOF
  rm -f "$ref"
}

# A value of a .info file.
info_value() { # INFO_FILE KEY
  sed -n "s/^$2=//p" "$1"
}
