#!/usr/bin/env python3
"""An Icecast source for an Ogg mount whose title can change: a chained Ogg stream.

    ogg-radio-source.py DIR LIFETIME FILE CONTENT_TYPE TITLE_FILE PORT MOUNT SOURCE_PASSWORD

Sends FILE (an Ogg Vorbis or Opus file) to Icecast on 127.0.0.1:PORT at MOUNT, over and over,
each time as a new logical stream of a chained Ogg stream whose comment header names the title
TITLE_FILE holds at that moment: ffmpeg (-re, so at real time) copies the audio packets and
writes new headers with that title. This is how Ogg radio changes titles: Icecast's
/admin/metadata?mode=updinfo does not apply to Ogg mounts, and a listener learns the new title
from the next chained stream's comment header, which Icecast passes on.

One HTTP PUT connection carries every chained stream (no chunked encoding: Icecast reads the
body until the connection closes). When Icecast drops it (/admin/killsource), the source
connects again 0.5 s later. It ends after LIFETIME seconds, or on TERM (stopping its ffmpeg).
DIR is only on the command line, for the test-servers.sh stop. Events go to stdout.
"""
import base64
import signal
import socket
import subprocess
import sys
import time

_, directory, lifetime, media, content_type, title_file, port, mount, password = sys.argv
deadline = time.monotonic() + float(lifetime)
child = None


def say(text):
    print(time.strftime("%Y-%m-%d %H:%M:%S"), "ogg-source:", text, flush=True)


def quit_(*_):
    say("stopping")
    if child is not None:
        child.terminate()
        child.wait()
    sys.exit(0)


signal.signal(signal.SIGTERM, quit_)
signal.signal(signal.SIGINT, quit_)


def connect():
    sock = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
    auth = base64.b64encode(f"source:{password}".encode()).decode()
    sock.sendall((f"PUT {mount} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Basic {auth}\r\n"
                  f"Content-Type: {content_type}\r\nIce-Name: StreamPlay test\r\n"
                  "Ice-Description: StreamPlay test radio (chained Ogg)\r\nIce-Public: 0\r\n\r\n").encode())
    status = sock.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
    if " 200 " not in status + " ":
        raise OSError(f"Icecast answered {status!r}")
    sock.settimeout(30)
    return sock


while time.monotonic() < deadline:
    try:
        sock = connect()
        say(f"streaming {media} to {mount}")
        while time.monotonic() < deadline:
            with open(title_file, encoding="utf-8") as f:
                title = f.read().strip()
            child = subprocess.Popen(
                ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "warning", "-re", "-i", media,
                 "-map", "0:a:0", "-c", "copy", "-map_metadata", "-1", "-metadata", f"title={title}",
                 "-f", "ogg", "-"], stdout=subprocess.PIPE)
            try:
                while chunk := child.stdout.read1(65536):
                    sock.sendall(chunk)
            finally:
                child.terminate()
                child.wait()
                child = None
        sock.close()
    except OSError as error:
        say(f"connection ended: {error}")
    time.sleep(0.5)
say("lifetime over, exiting")
