/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the referee needs to know of an x86-64 instruction from its bytes
 * (oracle.c decides what to instrument by them).  Plain C, no QEMU, so
 * that test-referee.c checks it on known encodings.
 */
#ifndef REFEREE_INSN_H
#define REFEREE_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An atomic read-modify-write (Intel SDM: a lock prefix; xchg with
 * memory is locked without one).
 */
bool insn_atomic(const uint8_t *b, size_t n);
/*
 * A string instruction (movs, cmps, stos, lods, scas, ins, outs) after
 * its prefixes: TCG runs a rep prefix's iterations one by one, each with
 * its accesses.
 */
bool insn_string(const uint8_t *b, size_t n);

enum insn_branch { INSN_NOT_BRANCH, INSN_CALL, INSN_JMP };
/*
 * A direct call (e8 rel32) or jump (e9 rel32, eb rel8) at @pc: its
 * kind, and its target in *@target.
 */
enum insn_branch insn_direct(uint64_t pc, const uint8_t *b, size_t n,
			     uint64_t *target);

#endif
