#!/usr/bin/env python3
"""Whether a chart is cut: the bounding box of what is drawn on a PNG (the
pixels that differ from its top-left corner's, the background), as
matplotlib's tight bbox would give it, and whether it reaches the edge of
the image, where a label that does not fit is cut off.  For the gnuplot
charts of scripts/report.py and scripts/workloads_report.py; needs no
imaging library (8-bit greyscale, RGB or RGBA PNG, not interlaced).

Usage: png_ink.py CHART.png
Prints "WIDTHxHEIGHT ink LEFT,TOP-RIGHT,BOTTOM"; exit 0 when at least one
pixel of background is left on every side, 1 when something is cut, 2
when the PNG cannot be read.
"""
import struct
import sys
import zlib


def pixels(path):
    """(width, height, rows): rows a list of bytes, BPP bytes a pixel."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
    width, height, depth, color, _, _, interlace = head
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}.get(color)
    if depth != 8 or bpp is None or interlace:
        raise ValueError("depth %d, color type %d, interlace %d: not read here"
                         % (depth, color, interlace))
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                cur[i] = (cur[i] + a) & 255
            elif kind == 2:
                cur[i] = (cur[i] + b) & 255
            elif kind == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(cur))
        prev = cur
    return width, height, bpp, rows


def ink(path):
    """(width, height, (left, top, right, bottom)) of what is drawn."""
    width, height, bpp, rows = pixels(path)
    bg = rows[0][:bpp]
    xs, ys = [], []
    for y, row in enumerate(rows):
        cols = [x for x in range(width) if row[x * bpp:(x + 1) * bpp] != bg]
        if cols:
            xs += (cols[0], cols[-1])
            ys.append(y)
    if not ys:
        return width, height, None
    return width, height, (min(xs), ys[0], max(xs), ys[-1])


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    try:
        width, height, box = ink(argv[0])
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        print("%s: %s" % (argv[0], e))
        return 2
    if box is None:
        print("%dx%d ink none" % (width, height))
        return 1
    print("%dx%d ink %d,%d-%d,%d" % (width, height, *box))
    left, top, right, bottom = box
    return 0 if left > 0 and top > 0 and right < width - 1 and bottom < height - 1 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
