#!/usr/bin/python3
"""Converts the 8x8 digits of python3-sklearn into the app's compact form.

    make-digits.py DIGITS.csv.gz OUTPUT

The CSV has one image a row: 64 values from 0 to 16 (the number of ink
pixels in each 4x4 block of a 32x32 bitmap), then the digit. OUTPUT
holds the N images' 64 bytes each, row after row, then the N digits
(N x 65 bytes in all), so that the app reads it from its GResource in
one piece, without a CSV parser or a Python package at run time.
"""

import gzip
import sys


def main(argv):
    source, output = argv
    pixels, labels = bytearray(), bytearray()
    with gzip.open(source, "rt") as f:
        for line_number, line in enumerate(f, 1):
            values = [int(float(v)) for v in line.split(",")]
            if len(values) != 65 or not all(0 <= v <= 16 for v in values[:64]) \
                    or not 0 <= values[64] <= 9:
                sys.exit(f"{source}:{line_number}: not an 8x8 digit")
            pixels += bytes(values[:64])
            labels.append(values[64])
    with open(output, "wb") as f:
        f.write(pixels + labels)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
