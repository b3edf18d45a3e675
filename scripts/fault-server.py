#!/usr/bin/env python3
"""A fault-injecting HTTP/1.1 test server (Python standard library only, 127.0.0.1 only).

    python3 scripts/fault-server.py --media DIR --port-file FILE --log FILE [--lifetime SECONDS]

Binds 127.0.0.1 on a free port, writes the port number to FILE (atomically: temp file, then
rename), serves the files of the media DIR with the behaviour the path asks for, and exits by
itself after --lifetime seconds (default 3600). Started by scripts/test-servers.sh.

NAME is a file in DIR (percent-decoded; it may not leave DIR). The query string is not used to
find the file, but it is part of the request key (path + "?" + query) that the first-request
behaviours count on: give each test its own query (e.g. ?t=UUID) to get a fresh "first request".
N, SECONDS, CODE and BYTES_PER_SECOND are decimal integers (SECONDS of stall-after may have a
fraction). A path that matches none of the forms below, or a missing NAME, gets 404.

Ranges: a single "bytes=A-", "bytes=A-B" or "bytes=-SUFFIX" is honoured (206 with
"Content-Range: bytes A-B/TOTAL"; B is clamped to TOTAL-1); A >= TOTAL gets 416 with
"Content-Range: bytes */TOTAL". A malformed Range, B < A, or several ranges: ignored (200).
Every file response carries Content-Length; Content-Type is audio/mpeg for .mp3.

  /plain/NAME              the file, Accept-Ranges: bytes, Range as above. HEAD supported.
  /drop-after/N/NAME       first request for the key: headers with the full Content-Length of
                           the asked range, N body bytes, then a clean close (shutdown + close,
                           FIN). Later requests: as plain.
  /reset-after/N/NAME      same, but the cut is a TCP reset (SO_LINGER (1, 0) and close; the N
                           bytes are acknowledged by the client before the RST is sent).
  /drop-every/N/NAME       every response is cut (clean close) after N body bytes, counted from
                           the start of that response.
  /stall-after/N/SECONDS/NAME
                           first request: N body bytes, then nothing for SECONDS with the
                           socket open (ends early if the client closes), then a clean close.
                           Later requests: as plain.
  /expire-after/N/NAME     first request: cut after N bytes (clean close); every later request
                           for the key: 403 (an expired signed URL).
  /gone-after/N/NAME       same, later requests get 410.
  /range-ignored/NAME      always 200 with the whole body (Range ignored), no Accept-Ranges;
                           the first request for the key is cut after 60000 bytes (clean close).
  /retry-after/SECONDS/NAME
                           first request for the key: 503 with "Retry-After: SECONDS" and a
                           small text body; later requests: as plain.
  /lie-short/NAME          without Range: 200, Content-Length the true size, but only the first
                           70% (size * 7 // 10 bytes) is sent, then a clean close; every time.
                           With a Range: as plain (so a resume fetches the rest).
  /lie-long/NAME           without Range: 200, Content-Length = size + max(1, size // 5), the
                           whole file is sent, then a clean close. A Range starting at or past
                           the true size: 416 with "Content-Range: bytes */SIZE"; other Ranges:
                           as plain (true sizes).
  /throttle/BYTES_PER_SECOND/NAME
                           as plain, paced to that rate in chunks of up to 4 KiB.
  /throttle-drop/BYTES_PER_SECOND/N/NAME
                           paced like /throttle/; the first request for the key is also cut
                           after N body bytes by a clean close (a link that drops mid-play).
  /status/CODE             that status (200..599) with a small text/plain body (none for 204
                           and 304). HEAD supported.
  /mid-garbage/NAME        the file with 8 KiB of pseudo-random bytes (fixed seed, the same on
                           every run) inserted at offset size * 40 // 100; Content-Length and
                           Ranges count the garbage (TOTAL = size + 8192).
  /repeat/N/NAME           the file N times over as one body (1 <= N <= 100000), Range
                           supported: a long stream for memory tests.
  /hls-live/ID/index.m3u8  a live HLS stream made of the segments of DIR/hls/live/index.m3u8
  /hls-live/ID/SEGMENT     (made by scripts/make-hls-media.sh; that list is read once, at the
                           first /hls-live/ request). ID: any token ([A-Za-z0-9._~-], up to
                           128); each ID is its own stream, whose clock starts at the first
                           request (playlist or segment) with that ID. Segment k (0-based) is
                           "published" at t = the sum of the EXTINF durations of segments 0..k-1
                           (segment 0 at once; about one more every 2 s). The playlist (200,
                           application/vnd.apple.mpegurl, Cache-Control: no-cache, Range
                           ignored) lists the last 3 published segments with their EXTINFs and
                           relative URIs: EXT-X-VERSION:3, EXT-X-TARGETDURATION = ceil of the
                           largest EXTINF of the whole list, EXT-X-MEDIA-SEQUENCE = index of
                           the first listed segment + 100, and EXT-X-ENDLIST once all are
                           published. SEGMENT (a name from the list): the file as plain (Range
                           supported) if it has been published and is at most one segment
                           older than the playlist's window, else 404 (gone, as on a real live
                           server); other names 404.
                           HEAD supported (it starts the clock too). Log entries of these
                           paths carry an extra "live" object (see below).

HEAD on other paths gets 405 (and does not count as a request for the key); other methods
get 405 too.

Every request is logged to the --log file as one JSON line, flushed at once, written when the
response is over:
  {"path": raw path without the query, "query": query string or null, "range": Range header
   or null, "status": int, "sent": body bytes written to the socket, "cut": "close" | "reset" |
   "stall" | null, "ua": User-Agent or null, "method": "GET" | "HEAD" | ..., "time": arrival as
   Unix seconds, "client_closed": true when the client went away before the response was over}
/hls-live/ID/... entries (with a valid ID, once the live list could be read) also have
  "live": {"id": ID, "elapsed": seconds since the stream's first request (at arrival),
           "published": segments published then, "segments": segments in the whole list,
           "segment": index of the asked segment in the list or null (the playlist, or a name
           not in the list), "sequence": the asked segment's media sequence number (index + 100)
           or null, "first_sequence": the playlist's EXT-X-MEDIA-SEQUENCE (playlist only, else
           null), "endlist": whether the playlist had EXT-X-ENDLIST (playlist only, else null)}
"""

import argparse
import fcntl
import json
import math
import os
import random
import re
import select
import socket
import struct
import sys
import termios
import threading
import time
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = 64 * 1024
THROTTLE_CHUNK = 4 * 1024
RANGE_IGNORED_CUT = 60000
GARBAGE_SIZE = 8 * 1024
GARBAGE_SEED = 0x53504C59  # "SPLY"
DRAIN_TIMEOUT = 2.0  # seconds to wait for the client's FIN after a clean cut
ACK_TIMEOUT = 5.0  # seconds to wait for the client to acknowledge the bytes before a reset

CONTENT_TYPES = {
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".html": "text/html",
    ".info": "text/plain",
    ".txt": "text/plain",
    ".m3u8": "application/vnd.apple.mpegurl",
    ".aac": "audio/aac",
    ".ts": "video/mp2t",
    ".m4s": "video/iso.segment",
    ".mp4": "video/mp4",
}

LIVE_DIR = "hls/live"  # in the media directory: index.m3u8 and its segments
LIVE_WINDOW = 3  # segments listed in a live playlist
LIVE_KEPT = 1  # segments still served after they left the playlist
LIVE_SEQUENCE_BASE = 100  # EXT-X-MEDIA-SEQUENCE of the first segment of the list
LIVE_ID_RE = re.compile(r"^[A-Za-z0-9._~-]{1,128}$")

GARBAGE = random.Random(GARBAGE_SEED).randbytes(GARBAGE_SIZE)

RANGE_RE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$", re.IGNORECASE)
INT_RE = re.compile(r"^\d{1,15}$")
SECONDS_RE = re.compile(r"^\d{1,9}(\.\d{1,6})?$")


class ClientGone(Exception):
    pass


class Body:
    """A response body read by offset: a file, or a file with garbage inserted."""

    def __init__(self, path, insert_garbage=False, repeat=1):
        self.fd = os.open(path, os.O_RDONLY)
        self.file_size = os.fstat(self.fd).st_size
        self.repeat = repeat
        if repeat > 1:
            # The file again and again, as one long body (a long stream for memory tests).
            self.insert_at = None
            self.size = self.file_size * repeat
        elif insert_garbage:
            self.insert_at = self.file_size * 40 // 100
            self.size = self.file_size + GARBAGE_SIZE
        else:
            self.insert_at = None
            self.size = self.file_size

    def close(self):
        os.close(self.fd)

    def read(self, offset, n):
        parts = []
        while n > 0 and offset < self.size:
            ins = self.insert_at
            if self.repeat > 1:
                within = offset % self.file_size
                data = os.pread(self.fd, min(n, self.file_size - within), within)
            elif ins is None:
                data = os.pread(self.fd, n, offset)
            elif offset < ins:
                data = os.pread(self.fd, min(n, ins - offset), offset)
            elif offset < ins + GARBAGE_SIZE:
                data = GARBAGE[offset - ins : offset - ins + n]
            else:
                data = os.pread(self.fd, n, offset - GARBAGE_SIZE)
            if not data:
                break  # the file shrank
            parts.append(data)
            offset += len(data)
            n -= len(data)
        return b"".join(parts)


def parse_range(header, total):
    """None: no usable Range (serve 200); "416": unsatisfiable; else (start, end inclusive)."""
    if header is None:
        return None
    m = RANGE_RE.match(header)
    if not m:
        return None
    a, b = m.group(1), m.group(2)
    if a == "" and b == "":
        return None
    if a == "":  # suffix: the last b bytes
        n = int(b)
        if n == 0 or total == 0:
            return "416"
        return (max(0, total - n), total - 1)
    start = int(a)
    end = int(b) if b != "" else total - 1
    if b != "" and end < start:
        return None
    if start >= total:
        return "416"
    return (start, min(end, total - 1))


class State:
    def __init__(self, media, log_path):
        self.media = os.path.realpath(media)
        self.lock = threading.Lock()
        self.counts = {}
        self.log = open(log_path, "a", encoding="utf-8")
        self.live_list = None  # [(name, EXTINF seconds, EXTINF text)], read once
        self.live_starts = {}  # ID -> time.monotonic() of its first request

    def live_segments(self):
        """The live list (read at the first call that finds it), or None if it is missing."""
        with self.lock:
            if self.live_list is None:
                try:
                    path = os.path.join(self.media, LIVE_DIR, "index.m3u8")
                    with open(path, encoding="utf-8") as f:
                        lines = [line.strip() for line in f]
                except OSError:
                    return None
                segments, extinf = [], None
                for line in lines:
                    if line.startswith("#EXTINF:"):
                        extinf = line[len("#EXTINF:") :].split(",")[0].strip()
                    elif line and not line.startswith("#") and extinf is not None:
                        segments.append((line, float(extinf), extinf))
                        extinf = None
                if not segments:
                    return None
                self.live_list = segments
            return self.live_list

    def live_elapsed(self, stream_id):
        """Seconds since the first request of stream_id (0 for this one if it is the first)."""
        now = time.monotonic()
        with self.lock:
            return now - self.live_starts.setdefault(stream_id, now)

    def count(self, key):
        """How many earlier requests had this key (0: this one is the first)."""
        with self.lock:
            n = self.counts.get(key, 0)
            self.counts[key] = n + 1
            return n

    def write_log(self, entry):
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        with self.lock:
            self.log.write(line)
            self.log.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "StreamPlayFaultServer/1"
    sys_version = ""

    def log_message(self, format, *args):  # the JSON log is enough
        pass

    def log_error(self, format, *args):
        sys.stderr.write("fault-server: %s - %s\n" % (self.address_string(), format % args))

    # -- request entry points ------------------------------------------------------------------

    def do_GET(self):
        self.handle_request(head=False)

    def do_HEAD(self):
        self.handle_request(head=True)

    def do_other(self):
        self.close_connection = True  # a request body, if any, is not read
        self.begin_entry()
        self.simple(405, extra=[("Allow", "GET, HEAD")])
        self.end_entry()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_other

    def begin_entry(self):
        raw = self.path
        if not raw.startswith("/"):  # absolute form
            parts = urllib.parse.urlsplit(raw)
            raw = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        path, sep, query = raw.partition("?")
        self.req_path = path
        self.req_query = query if sep else None
        self.req_key = path + ("?" + query if sep else "")
        self.entry = {
            "path": path,
            "query": self.req_query,
            "range": self.headers.get("Range"),
            "status": None,
            "sent": 0,
            "cut": None,
            "ua": self.headers.get("User-Agent"),
            "method": self.command,
            "time": round(time.time(), 3),
            "client_closed": False,
        }

    def end_entry(self):
        self.server.state.write_log(self.entry)

    def handle_request(self, head):
        self.begin_entry()
        try:
            self.route(head)
        except ClientGone:
            self.entry["client_closed"] = True
            self.close_connection = True
        finally:
            self.end_entry()

    # -- helpers -------------------------------------------------------------------------------

    def write(self, data):
        try:
            self.wfile.write(data)
        except OSError:  # BrokenPipe, ConnectionReset...: the client went away
            raise ClientGone()

    def start(self, status, headers):
        self.entry["status"] = status
        try:
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
        except OSError:
            raise ClientGone()

    def simple(self, status, text=None, extra=(), head=False):
        """A small text/plain answer (the connection stays usable)."""
        if text is None:
            try:
                text = "%d %s\n" % (status, HTTPStatus(status).phrase)
            except ValueError:
                text = "%d\n" % status
        body = text.encode()
        headers = list(extra)
        if status in (204, 304):
            body = b""
        else:
            headers += [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]
        self.start(status, headers)
        if not head and body:
            self.write(body)
            self.entry["sent"] = len(body)

    def not_found(self):
        self.simple(404)

    def open_body(self, name, garbage=False, repeat=1):
        """A Body for NAME in the media dir, or None (404 already sent)."""
        name = urllib.parse.unquote(name)
        state = self.server.state
        full = os.path.realpath(os.path.join(state.media, name))
        if (
            not name
            or "\0" in name
            or not full.startswith(state.media + os.sep)
            or not os.path.isfile(full)
        ):
            self.not_found()
            return None
        try:
            return Body(full, insert_garbage=garbage, repeat=repeat)
        except OSError:
            self.not_found()
            return None

    @staticmethod
    def content_type(name):
        return CONTENT_TYPES.get(os.path.splitext(name)[1].lower(), "application/octet-stream")

    def send_body(self, body, start, length, limit=None, rate=None):
        """Writes length bytes of body from start; stops after limit bytes. Returns bytes sent."""
        todo = length if limit is None else min(length, limit)
        sent = 0
        began = time.monotonic()
        chunk = CHUNK if rate is None else min(THROTTLE_CHUNK, max(1, rate))
        while sent < todo:
            data = body.read(start + sent, min(chunk, todo - sent))
            if not data:
                break
            self.write(data)
            sent += len(data)
            self.entry["sent"] = sent
            if rate is not None and sent < todo:
                delay = began + sent / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
        return sent

    def serve_file(
        self,
        name,
        head=False,
        limit=None,
        how="close",
        stall=None,
        rate=None,
        garbage=False,
        honour_range=True,
        accept_ranges=True,
        lie=None,
        repeat=1,
    ):
        """Serves NAME (Range honoured unless told not to), cut after limit body bytes."""
        body = self.open_body(name, garbage=garbage, repeat=repeat)
        if body is None:
            return
        try:
            total = body.size
            rng = self.headers.get("Range") if honour_range else None
            r = parse_range(rng, total)  # lie-long: total is the true size here
            if r == "416":
                self.simple(416, extra=[("Content-Range", "bytes */%d" % total)], head=head)
                return
            headers = [("Content-Type", self.content_type(name))]
            if accept_ranges:
                headers.append(("Accept-Ranges", "bytes"))
            if r is None:
                status, first, length = 200, 0, total
                claimed = length
                if lie == "short":
                    limit = total * 7 // 10
                elif lie == "long":
                    claimed = total + max(1, total // 5)
            else:
                status, first, length = 206, r[0], r[1] - r[0] + 1
                claimed = length
                headers.append(("Content-Range", "bytes %d-%d/%d" % (r[0], r[1], total)))
            headers.append(("Content-Length", str(claimed)))
            self.start(status, headers)
            if head:
                return
            sent = self.send_body(body, first, length, limit=limit, rate=rate)
            if sent < claimed:
                self.cut(how, stall_seconds=stall)
        finally:
            body.close()

    def cut(self, how, stall_seconds=None):
        """Ends the response early: "close" (FIN), "reset" (RST) or "stall" (wait, then FIN)."""
        self.entry["cut"] = how
        self.close_connection = True
        sock = self.connection
        if how == "stall":
            if self.wait_for_client_close(stall_seconds):
                self.entry["client_closed"] = True
                return
            how = "close"
        if how == "reset":
            # Let the bytes reach the client first (an RST discards unsent data).
            deadline = time.monotonic() + ACK_TIMEOUT
            while time.monotonic() < deadline:
                try:
                    queued = struct.unpack(
                        "i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
                    )[0]
                except OSError:
                    break
                if queued == 0:
                    break
                time.sleep(0.01)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                # rfile holds a reference; the socket really closes once both are closed. The
                # server's own shutdown/close afterwards fail quietly on the closed socket.
                self.rfile.close()
                sock.close()
            except OSError:
                pass
            return
        # Clean close: FIN now; wait (bounded) for the client's FIN so that closing with
        # unread data does not turn into a reset. The server closes the socket afterwards.
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            return
        self.wait_for_client_close(DRAIN_TIMEOUT)

    def wait_for_client_close(self, seconds):
        """Waits up to seconds, reading and dropping input; True if the client closed."""
        sock = self.connection
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                readable, _, _ = select.select([sock], [], [], left)
                if readable and not sock.recv(65536):
                    return True
            except (OSError, ValueError):
                return True
        return False

    # -- routing -------------------------------------------------------------------------------

    def route(self, head):
        parts = self.req_path.split("/")[1:]
        kind = parts[0] if parts else ""
        args = parts[1:]

        def ints(k):  # the first k args as ints, the rest joined as NAME
            if len(args) < k + 1 or not all(INT_RE.match(a) for a in args[:k]):
                return None
            return [int(a) for a in args[:k]] + ["/".join(args[k:])]

        if kind == "plain" and args:
            self.serve_file("/".join(args), head=head)
            return
        if kind == "hls-live":
            self.hls_live(args, head)
            return
        if kind == "status" and len(args) == 1 and INT_RE.match(args[0]):
            code = int(args[0])
            if 200 <= code <= 599:
                self.simple(code, head=head)
                return
            self.not_found()
            return
        if kind not in (
            "drop-after",
            "reset-after",
            "drop-every",
            "stall-after",
            "expire-after",
            "gone-after",
            "range-ignored",
            "retry-after",
            "lie-short",
            "lie-long",
            "throttle",
            "throttle-drop",
            "mid-garbage",
            "repeat",
        ):
            self.not_found()
            return
        if head:
            self.simple(405, extra=[("Allow", "GET")], head=True)
            return

        key = self.req_key
        state = self.server.state
        if kind in ("drop-after", "reset-after", "expire-after", "gone-after"):
            a = ints(1)
            if a is None:
                return self.not_found()
            n, name = a
            if not self.exists(name):
                return self.not_found()
            earlier = state.count(key)
            if earlier == 0:
                how = "reset" if kind == "reset-after" else "close"
                return self.serve_file(name, limit=n, how=how)
            if kind == "expire-after":
                return self.simple(403)
            if kind == "gone-after":
                return self.simple(410)
            return self.serve_file(name)
        if kind == "drop-every":
            a = ints(1)
            if a is None:
                return self.not_found()
            return self.serve_file(a[1], limit=a[0], how="close")
        if kind == "stall-after":
            if len(args) < 3 or not INT_RE.match(args[0]) or not SECONDS_RE.match(args[1]):
                return self.not_found()
            n, seconds, name = int(args[0]), float(args[1]), "/".join(args[2:])
            if not self.exists(name):
                return self.not_found()
            if state.count(key) == 0:
                return self.serve_file(name, limit=n, how="stall", stall=seconds)
            return self.serve_file(name)
        if kind == "range-ignored":
            if not args:
                return self.not_found()
            name = "/".join(args)
            if not self.exists(name):
                return self.not_found()
            first = state.count(key) == 0
            return self.serve_file(
                name,
                honour_range=False,
                accept_ranges=False,
                limit=RANGE_IGNORED_CUT if first else None,
                how="close",
            )
        if kind == "retry-after":
            a = ints(1)
            if a is None:
                return self.not_found()
            seconds, name = a
            if not self.exists(name):
                return self.not_found()
            if state.count(key) == 0:
                return self.simple(
                    503,
                    text="503 Service Unavailable: retry after %d s\n" % seconds,
                    extra=[("Retry-After", str(seconds))],
                )
            return self.serve_file(name)
        if kind in ("lie-short", "lie-long"):
            if not args:
                return self.not_found()
            return self.serve_file("/".join(args), lie=kind[4:], how="close")
        if kind == "throttle":
            a = ints(1)
            if a is None or a[0] <= 0:
                return self.not_found()
            return self.serve_file(a[1], rate=a[0])
        if kind == "throttle-drop":
            a = ints(2)
            if a is None or a[0] <= 0:
                return self.not_found()
            rate, n, name = a
            if not self.exists(name):
                return self.not_found()
            if state.count(key) == 0:
                return self.serve_file(name, rate=rate, limit=n, how="close")
            return self.serve_file(name, rate=rate)
        if kind == "repeat":
            a = ints(1)
            if a is None or not 1 <= a[0] <= 100000:
                return self.not_found()
            return self.serve_file(a[1], repeat=a[0])
        if kind == "mid-garbage":
            if not args:
                return self.not_found()
            return self.serve_file("/".join(args), garbage=True)
        self.not_found()

    def hls_live(self, args, head):
        state = self.server.state
        if len(args) != 2 or not LIVE_ID_RE.match(args[0]) or not args[1]:
            return self.not_found()
        segments = state.live_segments()
        if segments is None:
            return self.not_found()
        stream_id, name = args
        elapsed = state.live_elapsed(stream_id)
        # Segment k is published once the segments before it have "played" out.
        published, start = 0, 0.0
        for _, seconds, _ in segments:
            if start > elapsed:
                break
            published += 1
            start += seconds
        live = {
            "id": stream_id,
            "elapsed": round(elapsed, 3),
            "published": published,
            "segments": len(segments),
            "segment": None,
            "sequence": None,
            "first_sequence": None,
            "endlist": None,
        }
        self.entry["live"] = live
        if name == "index.m3u8":
            first = max(0, published - LIVE_WINDOW)
            endlist = published == len(segments)
            live["first_sequence"] = first + LIVE_SEQUENCE_BASE
            live["endlist"] = endlist
            target = math.ceil(max(seconds for _, seconds, _ in segments))
            lines = [
                "#EXTM3U",
                "#EXT-X-VERSION:3",
                "#EXT-X-TARGETDURATION:%d" % target,
                "#EXT-X-MEDIA-SEQUENCE:%d" % (first + LIVE_SEQUENCE_BASE),
            ]
            for seg, _, text in segments[first:published]:
                lines += ["#EXTINF:%s," % text, seg]
            if endlist:
                lines.append("#EXT-X-ENDLIST")
            body = ("\n".join(lines) + "\n").encode()
            self.start(
                200,
                [
                    ("Content-Type", CONTENT_TYPES[".m3u8"]),
                    ("Cache-Control", "no-cache"),
                    ("Content-Length", str(len(body))),
                ],
            )
            if not head:
                self.write(body)
                self.entry["sent"] = len(body)
            return
        index = next((k for k, (seg, _, _) in enumerate(segments) if seg == name), None)
        if index is None:
            return self.not_found()
        live["segment"] = index
        live["sequence"] = index + LIVE_SEQUENCE_BASE
        # Not yet published, or gone: a live server keeps only a little more than its window.
        if index >= published or index < published - LIVE_WINDOW - LIVE_KEPT:
            return self.not_found()
        self.serve_file(LIVE_DIR + "/" + name, head=head)

    def exists(self, name):
        state = self.server.state
        name = urllib.parse.unquote(name)
        full = os.path.realpath(os.path.join(state.media, name))
        return bool(name) and full.startswith(state.media + os.sep) and os.path.isfile(full)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # Client disconnects are expected; anything else goes to stderr, one line.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def main():
    p = argparse.ArgumentParser(description="Fault-injecting HTTP test server (127.0.0.1).")
    p.add_argument("--media", required=True, help="directory of the files to serve")
    p.add_argument("--port-file", required=True, help="the port is written here")
    p.add_argument("--log", required=True, help="JSON lines, one per request (appended)")
    p.add_argument("--lifetime", type=float, default=3600.0, help="exit after this (seconds)")
    args = p.parse_args()

    if not os.path.isdir(args.media):
        sys.exit("fault-server: no such directory: %s" % args.media)

    server = Server(("127.0.0.1", 0), Handler)
    server.state = State(args.media, args.log)

    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, args.port_file)

    timer = threading.Timer(args.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        server.state.log.close()


if __name__ == "__main__":
    main()
