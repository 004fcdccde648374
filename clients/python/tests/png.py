"""Just enough of PNG to read a pixel back (8-bit RGB or RGBA, not interlaced: what Chromium writes)."""

from __future__ import annotations

import struct
import zlib
from typing import List, Tuple


class Png:
    def __init__(self, data: bytes) -> None:
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            raise ValueError("not a PNG")
        pos, idat = 8, b""
        while pos < len(data):
            (length,) = struct.unpack(">I", data[pos : pos + 4])
            kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
            pos += 12 + length
            if kind == b"IHDR":
                self.width, self.height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
                if depth != 8 or color not in (2, 6) or interlace != 0:
                    raise ValueError(f"unsupported PNG: depth {depth}, colour type {color}, interlace {interlace}")
                self.channels = 3 if color == 2 else 4
            elif kind == b"IDAT":
                idat += body
            elif kind == b"IEND":
                break
        self.rows = self._unfilter(zlib.decompress(idat))

    def _unfilter(self, raw: bytes) -> List[bytearray]:
        stride, bpp = self.width * self.channels, self.channels
        rows: List[bytearray] = []
        previous = bytearray(stride)
        for y in range(self.height):
            start = y * (stride + 1)
            kind, row = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                up = previous[i]
                upper_left = previous[i - bpp] if i >= bpp else 0
                if kind == 1:
                    row[i] = (row[i] + left) & 0xFF
                elif kind == 2:
                    row[i] = (row[i] + up) & 0xFF
                elif kind == 3:
                    row[i] = (row[i] + (left + up) // 2) & 0xFF
                elif kind == 4:
                    p = left + up - upper_left
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                    predictor = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
                    row[i] = (row[i] + predictor) & 0xFF
            rows.append(row)
            previous = row
        return rows

    def at(self, x: int, y: int) -> Tuple[int, int, int]:
        i = x * self.channels
        r, g, b = self.rows[y][i : i + 3]
        return (r, g, b)
