"""Vela's weight codec (PyPI ethos-u-vela, module ethosu.mlw_codec) as an oracle for
npu::ethos::vela, which runs this as `python -c <this file> OP` in a venv holding Vela.

OP is encode, decode or reorder_encode. The request comes on stdin, the answer goes to stdout,
all integers little-endian:
  request:  u32 count, then count items
    encode:          u32 n, n x i16 weights
    decode:          u32 n, n bytes of stream
    reorder_encode:  10 x u32 (ifm_ublock_depth, ofm_ublock_depth, ofm_depth, kernel_height,
                     kernel_width, ifm_depth, ofm_block_depth, flags: bit0 depthwise,
                     bit1 part-kernel-first, ifm_bitdepth, decomp_h << 16 | decomp_w),
                     u32 n, n x i16 OHWI weights
  answer:   per item
    encode, reorder_encode:  u32 n, n bytes of stream
    decode:                  i32 n, n x i16 weights; n = -1 where Vela rejected the stream
"""
import os
import struct
import sys

import numpy as np
from ethosu import mlw_codec


class Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def u32s(self, n):
        values = struct.unpack_from(f"<{n}I", self.data, self.pos)
        self.pos += 4 * n
        return values

    def u32(self):
        return self.u32s(1)[0]

    def raw(self, n):
        self.pos += n
        return self.data[self.pos - n : self.pos]

    def i16s(self):
        n = self.u32()
        return list(struct.unpack(f"<{n}h", self.raw(2 * n)))


def frame(payload):
    return struct.pack("<I", len(payload)) + bytes(payload)


def decoded_frame(values):
    return struct.pack("<i", len(values)) + np.asarray(values, dtype="<i2").tobytes()


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def decode_all(streams):
    """Vela's decoder calls exit(1) on a malformed stream, so the streams are decoded in a
    forked child. It decodes one after the other; where it dies, that stream is rejected and
    a new child goes on with the next one."""
    results = []
    while len(results) < len(streams):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the decoder's complaints
            try:
                for stream in streams[len(results) :]:
                    write_all(write_end, decoded_frame(mlw_codec.decode(stream)))
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            answer = pipe.read()
        os.waitpid(pid, 0)
        pos = 0
        while pos + 4 <= len(answer):
            (n,) = struct.unpack_from("<i", answer, pos)
            if pos + 4 + 2 * n > len(answer):
                break
            results.append(answer[pos : pos + 4 + 2 * n])
            pos += 4 + 2 * n
        if len(results) < len(streams):
            results.append(struct.pack("<i", -1))  # the stream the child died on
    return b"".join(results)


def main():
    op = sys.argv[1]
    request = Reader(sys.stdin.buffer.read())
    # The answer goes to the real stdout; anything the C code prints goes to stderr.
    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    count = request.u32()
    if op == "encode":
        out = b"".join(frame(mlw_codec.encode(request.i16s())) for _ in range(count))
    elif op == "decode":
        out = decode_all([bytearray(request.raw(request.u32())) for _ in range(count)])
    elif op == "reorder_encode":
        frames = []
        for _ in range(count):
            ifm_ublock, ofm_ublock, ofm, kh, kw, ifm, block, flags, bits, decomp = request.u32s(10)
            weights = np.array(request.i16s(), dtype=np.int16).reshape(ofm, kh, kw, ifm)
            stream, _ = mlw_codec.reorder_encode(
                ifm_ublock, ofm_ublock, weights, block, bool(flags & 1), bool(flags & 2), bits, decomp >> 16, decomp & 0xFFFF
            )
            frames.append(frame(stream))
        out = b"".join(frames)
    else:
        sys.exit(f"unknown operation {op}")
    answer.write(out)
    answer.flush()


main()
