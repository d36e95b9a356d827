#!/usr/bin/env bash
# Regenerates docs/report-tile3.png, the screenshot of a `halo explain` report shown in the
# README and docs/guide/: the report of the thesis's tile-by-3 example (fig. 2.2) rendered
# by headless Chromium and cropped to its pictures, heat maps, derivation and the start of
# its trace. Needs a built halo (HALO, default build/halo), chromium and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
HALO=${HALO:-build/halo}
OUT=${1:-docs/report-tile3.png}
WIDTH=1200
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chrome=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
        --user-data-dir="$tmp/profile" --window-size="$WIDTH,1000")

"$HALO" explain examples/thesis_2_2_tile3.halo -o "$tmp/report.html"

# Where the sections start, measured by the browser itself.
sed 's|</body>|<script>document.body.dataset.top = document.getElementById("pictures").offsetTop; document.body.dataset.bottom = document.getElementById("trace").offsetTop + 340; document.body.dataset.height = document.documentElement.scrollHeight;</script></body>|' \
  "$tmp/report.html" > "$tmp/measure.html"
body=$("${chrome[@]}" --dump-dom "file://$tmp/measure.html" 2>/dev/null | grep -o '<body[^>]*>')
top=$(sed -n 's/.*data-top="\([0-9]*\)".*/\1/p' <<< "$body")
bottom=$(sed -n 's/.*data-bottom="\([0-9]*\)".*/\1/p' <<< "$body")
height=$(sed -n 's/.*data-height="\([0-9]*\)".*/\1/p' <<< "$body")

"${chrome[@]/--window-size=$WIDTH,1000/--window-size=$WIDTH,$height}" --screenshot="$tmp/full.png" \
  "file://$tmp/report.html" 2>/dev/null

# Crop rows [top - 10, bottom) of the PNG (8-bit RGB or RGBA, not interlaced).
python3 - "$tmp/full.png" "$OUT" "$((top - 10))" "$bottom" <<'PY'
import struct, sys, zlib
src, dst, top, bottom = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(src, 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat, ihdr = 8, b'', None
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR': ihdr = body
    if kind == b'IDAT': idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', ihdr)
assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unexpected PNG format'
bpp = 3 if ctype == 2 else 4
stride = w * bpp
raw = zlib.decompress(idat)
rows, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
top, bottom = max(0, top), min(h, bottom)
out = b''.join(b'\x00' + r for r in rows[top:bottom])
def chunk(kind, body): return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, bottom - top, 8, ctype, 0, 0, 0))
png += chunk(b'IDAT', zlib.compress(out, 9)) + chunk(b'IEND', b'')
open(dst, 'wb').write(png)
print(f'{dst}: {w} x {bottom - top}')
PY
