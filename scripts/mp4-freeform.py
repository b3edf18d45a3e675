#!/usr/bin/env python3
"""Writes iTunes-style freeform comments into an MP4, as iTunes and taggers do.

Usage: mp4-freeform.py SOURCE TARGET [--no-edit-list] NAME=VALUE...

Each NAME=VALUE becomes a `----` atom (mean "com.apple.iTunes", name NAME, UTF-8 data VALUE)
appended to moov/udta/meta/ilst. The SOURCE must have its index (moov) after its media (ffmpeg's
default), so that growing the index moves no sample offset. --no-edit-list refuses a SOURCE with
an edit list (a file whose gapless facts must come from the comments alone).
"""
import struct
import sys


def main():
    args = sys.argv[1:]
    no_edit_list = "--no-edit-list" in args
    args = [arg for arg in args if arg != "--no-edit-list"]
    if len(args) < 3:
        sys.exit(__doc__)
    source, target, pairs = args[0], args[1], args[2:]
    data = bytearray(open(source, "rb").read())
    if no_edit_list and b"elst" in data:
        sys.exit(f"mp4-freeform: {source} has an edit list")

    def find(start, end, kind):
        at = start
        while at + 8 <= end:
            size, name = struct.unpack(">I4s", data[at:at + 8])
            if name == kind:
                return at, size
            at += size
        sys.exit(f"mp4-freeform: {source} has no {kind.decode()} atom")

    def atom(kind, body):
        return struct.pack(">I4s", 8 + len(body), kind) + body

    moov = find(0, len(data), b"moov")
    if moov[0] < find(0, len(data), b"mdat")[0]:
        sys.exit(f"mp4-freeform: {source} has its index before its media")
    udta = find(moov[0] + 8, sum(moov), b"udta")
    meta = find(udta[0] + 8, sum(udta), b"meta")
    ilst = find(meta[0] + 12, sum(meta), b"ilst")
    freeform = b""
    for pair in pairs:
        name, value = pair.split("=", 1)
        freeform += atom(b"----", atom(b"mean", bytes(4) + b"com.apple.iTunes")
                         + atom(b"name", bytes(4) + name.encode())
                         + atom(b"data", struct.pack(">II", 1, 0) + value.encode()))
    data[sum(ilst):sum(ilst)] = freeform
    for at, size in (moov, udta, meta, ilst):
        data[at:at + 4] = struct.pack(">I", size + len(freeform))
    open(target, "wb").write(data)


main()
