#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Is the operand sampler's binomial interval the right width?

Reads a recording made with sample_records=1 (every sample also a ring
record, with its time) and the judged JSON of the same run
(build/case-referee/judged.json, case-referee.sh -o -p sample_records=1),
and prints, per type over 1 % of the slab samples, its share, the
referee's, and three standard errors of the share:

  binom   sqrt(p (1 - p) / n), the one the views print;
  batch   from the spread of the share over B batches of equal sample
          counts in time order (ten by default): holds the workload's
          phases as if they were sampling error;
  local   the successive-difference (von Neumann) estimate over 100
          batches: the spread between neighbours in time, phases left
          out.

local / binom near 1 says the samples are binomial given the run; then
z = (share - referee) / binom with a variance over 1 says dprof and the
referee count different things, which no batching of the samples fixes.

  scripts/referee-batches.py REC.dprof JUDGED.json [B]
"""
import collections
import json
import math
import struct
import sys

# module/uapi/dprof.h: the file header, section kinds, the SAMPLE record.
FILE_MAGIC, ABI_OLDEST, ABI_NEWEST = 0x454c494646525044, 6, 7
SEC_TARGETS, SEC_EVENTS, REC_SAMPLE = 2, 6, 7


def read_samples(path):
    b = open(path, 'rb').read()
    if len(b) < 16:
        sys.exit(f'{path}: {len(b)} bytes, shorter than a recording header')
    magic, abi, off = struct.unpack_from('<QII', b, 0)
    if magic != FILE_MAGIC or not ABI_OLDEST <= abi <= ABI_NEWEST:
        sys.exit(f'{path}: not a dprof recording of ABI {ABI_OLDEST} to '
                 f'{ABI_NEWEST} (magic {magic:#x}, ABI {abi})')
    targets, samples = {}, []
    while off + 16 <= len(b):
        kind, _, length = struct.unpack_from('<IIQ', b, off)
        p = off + 16
        if p + length > len(b):
            sys.exit(f'{path}: truncated: section {kind} wants {length} '
                     f'bytes at {p}, the file has {len(b) - p}')
        if kind == SEC_TARGETS:
            for i in range(length // 80):
                idx = struct.unpack_from('<I', b, p + 80 * i)[0]
                name = b[p + 80 * i + 16:p + 80 * i + 80].split(b'\0')[0]
                targets[idx] = name.decode()
        elif kind == SEC_EVENTS:
            q = p
            while q + 8 <= p + length:
                k, _, size, _, target = struct.unpack_from('<BBHHH', b, q)
                if size == 0:
                    break
                if k == REC_SAMPLE and target in targets:
                    t = struct.unpack_from('<Q', b, q + 8)[0]
                    samples.append((t, targets[target]))
                q += size
        off = p + ((length + 7) & ~7)
    samples.sort()
    return [name for _, name in samples]


def shares(seq, name, nb):
    n = len(seq)
    out = []
    for i in range(nb):
        part = seq[i * n // nb:(i + 1) * n // nb]
        out.append(sum(1 for x in part if x == name) / max(len(part), 1))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    seq = read_samples(sys.argv[1])
    if not seq:
        sys.exit(f'{sys.argv[1]}: no sample records in slab objects '
                 '(record with sample_records=1)')
    nb = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    ref = {t['cache']: t['referee_share']
           for t in json.load(open(sys.argv[2]))['types']
           if t.get('referee_share') is not None}
    n = len(seq)
    print(f'{n} slab samples; batch: {nb} batches, local: 100')
    print(f'{"type":24} {"share":>7} {"referee":>7} {"binom":>7} '
          f'{"batch":>7} {"local":>7} {"z":>6}')
    z = []
    for name, k in collections.Counter(seq).most_common():
        p = k / n
        if p < 0.01 or name not in ref:
            continue
        binom = math.sqrt(p * (1 - p) / n)
        per = shares(seq, name, nb)
        mean = sum(per) / nb
        batch = math.sqrt(sum((x - mean) ** 2 for x in per) /
                          (nb - 1) / nb)
        per = shares(seq, name, 100)
        local = math.sqrt(sum((per[i + 1] - per[i]) ** 2
                              for i in range(99)) / 198 / 100)
        z.append((p - ref[name]) / binom)
        print(f'{name:24} {p:7.4f} {ref[name]:7.4f} {binom:7.4f} '
              f'{batch:7.4f} {local:7.4f} {z[-1]:+6.2f}')
    if z:
        print(f'variance of z over {len(z)} types: '
              f'{sum(x * x for x in z) / len(z):.2f}')


main()
