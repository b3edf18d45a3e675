#!/usr/bin/env python3
"""An Icecast source client for the tests (Python standard library only).

    python3 scripts/icecast-source.py --url http://127.0.0.1:PORT/MOUNT --password PW \
        --file FILE.mp3 [--user source] [--bitrate KBPS] [--lifetime SECONDS] [--log FILE]

Streams FILE to the mount, in a loop, forever, at real time, the way a radio station's encoder
feeds Icecast; no ffmpeg needed. Started by scripts/test-servers.sh.

Connecting: HTTP PUT (Icecast >= 2.4) with Content-Type audio/mpeg, Basic authentication
(USER:PW, USER "source" unless --user), Ice-Public: 0, Ice-Name: StreamPlay test and
"Expect: 100-continue"; the server's "100 Continue" or "200 OK" starts the stream. A server that
rejects the PUT method itself (400/405/501, or a close without an answer) is tried once with the
legacy SOURCE method. Authentication failures (401/403) and "mount in use" are retried like a
dropped connection.

What is sent: the MPEG audio frames of FILE, without its ID3v2/ID3v1/APE tags and without a
Xing/Info/VBRI header frame (they would turn up in the middle of the stream at every loop). Each
frame is sent when its turn comes by its own duration (samples / sample rate), so the stream
runs at real time whatever the bitrate, CBR or VBR. With --bitrate KBPS, frames are paced as
bytes at that rate instead. A FILE that is not MPEG audio is sent in 4 KiB pieces at --bitrate
(default 128 kbps).

A dropped connection (reset, close, error) is reconnected after a short backoff (0.5 s doubling
to 5 s) and the file goes on where it was. The program exits by itself after --lifetime seconds
(default 3600), on SIGTERM or SIGINT. Events go to --log (appended, flushed at once) or stderr.
"""

import argparse
import base64
import os
import select
import signal
import socket
import sys
import time
import urllib.parse

RECONNECT_MIN = 0.5
RECONNECT_MAX = 5.0
ANSWER_TIMEOUT = 5.0  # seconds to wait for the server's answer to PUT/SOURCE
SEND_TIMEOUT = 10.0  # a send blocked this long counts as a dropped connection

# MPEG audio: bitrates in kbps by [version is MPEG-1][layer] and index; sample rates by version.
_BITRATES = {
    (True, 1): [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    (True, 2): [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    (True, 3): [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    (False, 1): [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    (False, 2): [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    (False, 3): [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
_RATES = {3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000]}

log_file = None


def log(msg):
    line = time.strftime("%Y-%m-%d %H:%M:%S") + f" icecast-source: {msg}\n"
    (log_file or sys.stderr).write(line)
    (log_file or sys.stderr).flush()


def parse_header(data, pos):
    """(frame length, samples, sample rate, kbps) of the MPEG audio frame header at pos, or
    None when there is none (free-format frames count as none: their length is unknown)."""
    if pos + 4 > len(data):
        return None
    b1, b2, b3 = data[pos + 1], data[pos + 2], data[pos + 3]
    if data[pos] != 0xFF or (b1 & 0xE0) != 0xE0:
        return None
    version = (b1 >> 3) & 3  # 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
    layer = 4 - ((b1 >> 1) & 3)  # 1, 2, 3 (4: reserved)
    br_index = b2 >> 4
    sr_index = (b2 >> 2) & 3
    padding = (b2 >> 1) & 1
    if version == 1 or layer == 4 or br_index in (0, 15) or sr_index == 3:
        return None
    if (b3 & 3) == 2:  # reserved emphasis
        return None
    mpeg1 = version == 3
    kbps = _BITRATES[(mpeg1, layer)][br_index]
    rate = _RATES[version][sr_index]
    if layer == 1:
        return (12 * kbps * 1000 // rate + padding) * 4, 384, rate, kbps
    if layer == 2 or mpeg1:
        return 144 * kbps * 1000 // rate + padding, 1152, rate, kbps
    return 72 * kbps * 1000 // rate + padding, 576, rate, kbps


def is_info_frame(frame):
    """A Xing/Info (LAME) or VBRI header frame: carries no audio of the stream."""
    head = frame[4:60]
    return b"Xing" in head or b"Info" in head or frame[36:40] == b"VBRI"


def find_frames(data):
    """The MPEG audio frames of data as (offset, length, seconds), or [] when data is not MPEG
    audio."""
    pos = 0
    if data[:3] == b"ID3" and len(data) >= 10:
        size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
        pos = 10 + size + (10 if data[5] & 0x10 else 0)
    # The first frame: a header whose next two frames start with headers too (an ID3 tag or
    # junk may contain a false sync word).
    start = None
    while pos < len(data) - 4:
        pos = data.find(b"\xff", pos)
        if pos < 0:
            break
        h = parse_header(data, pos)
        if h:
            n1 = pos + h[0]
            h1 = parse_header(data, n1)
            if h1 and parse_header(data, n1 + h1[0]):
                start = pos
                break
        pos += 1
    if start is None:
        return []
    frames = []
    pos = start
    while True:
        h = parse_header(data, pos)
        if not h or pos + h[0] > len(data):
            break  # the end, a tag (ID3v1 "TAG", APE) or junk: stop there
        length, samples, rate, _ = h
        if pos == start and is_info_frame(data[pos:pos + length]):
            pos += length
            continue
        frames.append((pos, length, samples / rate))
        pos += length
    return frames


class Dropped(Exception):
    pass


class Rejected(Exception):
    """The server does not take the method (fall back to SOURCE)."""


def read_answer(sock, deadline):
    """Status code of the server's answer (reads up to the end of its headers)."""
    buf = b""
    while b"\r\n\r\n" not in buf and b"\n\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Dropped("no answer from the server")
        sock.settimeout(left)
        try:
            chunk = sock.recv(4096)
        except socket.timeout:
            raise Dropped("no answer from the server") from None
        if not chunk:
            raise Rejected(f"connection closed without an answer ({buf[:80]!r})")
        buf += chunk
        if len(buf) > 65536:
            raise Dropped("answer too long")
    line = buf.split(b"\n", 1)[0].decode("latin-1").strip()
    parts = line.split()
    if len(parts) < 2 or not parts[0].startswith(("HTTP/", "ICE/")) or not parts[1].isdigit():
        raise Dropped(f"unexpected answer {line!r}")
    return int(parts[1]), line


def connect(args, host, port, path, method):
    auth = base64.b64encode(f"{args.user}:{args.password}".encode()).decode()
    headers = [
        f"{method} {path} HTTP/1.{1 if method == 'PUT' else 0}",
        f"Host: {host}:{port}",
        f"Authorization: Basic {auth}",
        "User-Agent: StreamPlay-icecast-source/1.0",
        f"Content-Type: {args.content_type}",
        "Ice-Public: 0",
        "Ice-Name: StreamPlay test",
        "Ice-Description: StreamPlay test radio",
    ]
    if args.audio_info:
        headers.append(f"Ice-Audio-Info: {args.audio_info}")
    if method == "PUT":
        headers.append("Expect: 100-continue")
    request = ("\r\n".join(headers) + "\r\n\r\n").encode("latin-1")
    sock = socket.create_connection((host, port), timeout=ANSWER_TIMEOUT)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(request)
        status, line = read_answer(sock, time.monotonic() + ANSWER_TIMEOUT)
        if status in (100, 200):
            sock.settimeout(SEND_TIMEOUT)
            return sock, line
        if status in (400, 405, 501) and method == "PUT":
            raise Rejected(line)
        raise Dropped(f"{method} refused: {line}")
    except BaseException:
        sock.close()
        raise


def server_closed(sock):
    """True when the server has closed (or reset) the connection; it never sends us data."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(4096, socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main():
    global log_file
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="http://127.0.0.1:PORT/MOUNT")
    ap.add_argument("--password", required=True)
    ap.add_argument("--user", default="source")
    ap.add_argument("--file", required=True)
    ap.add_argument("--bitrate", type=float, help="pace at this many kbps (default: by frames)")
    ap.add_argument("--lifetime", type=float, default=3600.0)
    ap.add_argument("--content-type", default="audio/mpeg")
    ap.add_argument("--log", help="append events to this file (default: stderr)")
    args = ap.parse_args()

    if args.log:
        log_file = open(args.log, "a", encoding="utf-8")
    deadline = time.monotonic() + args.lifetime

    def on_signal(signum, _frame):
        log(f"signal {signum}, exiting")
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    url = urllib.parse.urlsplit(args.url)
    if url.scheme != "http" or not url.hostname or not url.port:
        ap.error("--url must be http://HOST:PORT/MOUNT")
    host, port = url.hostname, url.port
    path = url.path or "/"

    with open(args.file, "rb") as f:
        data = f.read()
    frames = find_frames(data)
    kbps = None
    if frames:
        total = sum(d for _, _, d in frames)
        kbps = sum(n for _, n, _ in frames) * 8 / total / 1000  # the average, for VBR
        if args.bitrate:
            frames = [(o, n, n * 8 / (args.bitrate * 1000)) for o, n, _ in frames]
        log(f"{args.file}: {len(frames)} MPEG audio frames, {total:.2f} s, {kbps:.0f} kbps; "
            f"pacing by {'--bitrate' if args.bitrate else 'frame durations'}")
    else:
        rate = (args.bitrate or 128) * 1000 / 8
        frames = [(o, min(4096, len(data) - o), min(4096, len(data) - o) / rate)
                  for o in range(0, len(data), 4096)]
        log(f"{args.file}: no MPEG audio frames found, sending raw at {rate * 8 / 1000:g} kbps")
    if not frames:
        log(f"{args.file} is empty")
        return 1
    first = parse_header(data, frames[0][0]) if kbps else None
    args.audio_info = None
    if first:
        channels = 1 if (data[frames[0][0] + 3] >> 6) == 3 else 2
        args.audio_info = (f"bitrate={round(args.bitrate or kbps)};"
                           f"samplerate={first[2]};channels={channels}")

    method = "PUT"
    backoff = RECONNECT_MIN
    index = 0
    while time.monotonic() < deadline:
        try:
            try:
                sock, answer = connect(args, host, port, path, method)
            except Rejected as e:
                if method != "PUT":
                    raise Dropped(str(e)) from None
                log(f"PUT not taken ({e}); trying the SOURCE method")
                method = "SOURCE"
                sock, answer = connect(args, host, port, path, method)
            log(f"streaming to {args.url} ({method}; server: {answer})")
            backoff = RECONNECT_MIN
            try:
                # Real time from the first frame sent on this connection: frame k goes out at
                # t0 + the durations of the frames before it.
                t0 = time.monotonic()
                sent_time = 0.0
                while True:
                    now = time.monotonic()
                    if now >= deadline:
                        log("lifetime over, exiting")
                        return 0
                    wait = t0 + sent_time - now
                    if wait > 0:
                        time.sleep(min(wait, deadline - now))
                        continue
                    if server_closed(sock):
                        raise Dropped("the server closed the connection")
                    offset, length, seconds = frames[index]
                    try:
                        sock.sendall(data[offset:offset + length])
                    except (OSError, socket.timeout) as e:
                        raise Dropped(f"send failed: {e}") from None
                    sent_time += seconds
                    index = (index + 1) % len(frames)
            finally:
                sock.close()
        except (Dropped, Rejected, OSError) as e:
            log(f"{e}; reconnecting in {backoff:g} s")
        time.sleep(max(0.0, min(backoff, deadline - time.monotonic())))
        backoff = min(backoff * 2, RECONNECT_MAX)
    log("lifetime over, exiting")
    return 0


if __name__ == "__main__":
    sys.exit(main())
