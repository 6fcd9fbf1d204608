/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding of hardware access samples into dprof's data-source classes:
 * AMD IBS op data registers and perf's generic data_src word (which the
 * kernel fills from Intel PEBS records, and from IBS since 6.1).  Plain
 * code, no kernel dependencies, so the same header is unit-tested in
 * userspace against register values built from the vendors' layouts:
 *   AMD: PPR for family 17h/19h, MSRC001_1036 IbsOpData2 and
 *        MSRC001_1037 IbsOpData3;
 *   perf: union perf_mem_data_src in include/uapi/linux/perf_event.h.
 */
#ifndef _DPROF_DECODE_H
#define _DPROF_DECODE_H

#include <linux/types.h>
#include <linux/const.h>
#include "uapi/dprof.h"

struct dprof_access {
	__u8 src;		/* enum dprof_src */
	__u8 load;		/* the op read memory */
	__u8 store;		/* the op wrote memory */
	__u8 l1_miss;		/* missed the L1 data cache */
	__u8 addr_valid;	/* the data address in the sample is valid */
	__u16 latency;		/* miss latency in cycles, 0 when unknown */
};

/* ---- AMD IBS (IbsOpData2, IbsOpData3) ----------------------------------- */
#define DPROF_IBS_D3_LD_OP		_BITULL(0)
#define DPROF_IBS_D3_ST_OP		_BITULL(1)
#define DPROF_IBS_D3_DC_MISS		_BITULL(7)
#define DPROF_IBS_D3_LIN_ADDR_VALID	_BITULL(17)
#define DPROF_IBS_D3_L2_MISS		_BITULL(20)
#define DPROF_IBS_D3_MISS_LAT_SHIFT	32	/* bits 32-47, cycles */
#define DPROF_IBS_D2_SRC_LO_MASK	0x7ULL	/* bits 0-2 */
#define DPROF_IBS_D2_RMT_NODE		_BITULL(4)
#define DPROF_IBS_D2_SRC_HI_SHIFT	6	/* bits 6-7, family 19h+ */

/*
 * @src_hi: the CPU defines DataSrcHi (family 19h model 10h+, "Zen 4");
 * before it, bits 6-7 are reserved and must be ignored.
 */
static inline void dprof_ibs_decode(__u64 op_data2, __u64 op_data3,
				    int src_hi, struct dprof_access *a)
{
	unsigned int data_src = op_data2 & DPROF_IBS_D2_SRC_LO_MASK;
	int remote = !!(op_data2 & DPROF_IBS_D2_RMT_NODE);

	if (src_hi)
		data_src |= ((op_data2 >> DPROF_IBS_D2_SRC_HI_SHIFT) & 3) << 3;
	a->load = !!(op_data3 & DPROF_IBS_D3_LD_OP);
	a->store = !!(op_data3 & DPROF_IBS_D3_ST_OP);
	a->l1_miss = !!(op_data3 & DPROF_IBS_D3_DC_MISS);
	a->addr_valid = !!(op_data3 & DPROF_IBS_D3_LIN_ADDR_VALID);
	/* The miss latency counts only for loads that missed. */
	a->latency = a->l1_miss && a->load ?
		     (__u16)(op_data3 >> DPROF_IBS_D3_MISS_LAT_SHIFT) : 0;
	if (!a->load && !a->store) {
		a->src = DPROF_SRC_UNKNOWN;
		return;
	}
	if (!a->l1_miss) {
		a->src = DPROF_SRC_L1;
		return;
	}
	switch (data_src) {
	case 1:			/* local L3, or another core's L1/L2 in the CCX */
		a->src = DPROF_SRC_L3;
		break;
	case 2:			/* another CCX's cache, same node */
		a->src = remote ? DPROF_SRC_REMOTE : DPROF_SRC_PEER_CACHE;
		break;
	case 3:			/* DRAM */
	case 6:			/* long-latency DIMM */
	case 8:			/* extension memory */
		a->src = remote ? DPROF_SRC_REMOTE : DPROF_SRC_DRAM;
		break;
	case 5:			/* another CCX's cache, other node */
		a->src = DPROF_SRC_REMOTE;
		break;
	case 7:			/* MMIO, config, PCI, APIC */
		a->src = DPROF_SRC_IO;
		break;
	default:		/* no source: an L2 hit if L2 did not miss */
		a->src = (op_data3 & DPROF_IBS_D3_L2_MISS) ? DPROF_SRC_MISS :
			 DPROF_SRC_L2;
		break;
	}
}

/* ---- perf's data_src word (PEBS, and IBS through perf) ------------------ */
#define DPROF_MEM_OP_LOAD	0x02	/* mem_op, bits 0-4 */
#define DPROF_MEM_OP_STORE	0x04
#define DPROF_MEM_LVL_SHIFT	5	/* mem_lvl, bits 5-18 */
#define DPROF_MEM_LVL_HIT	0x0002
#define DPROF_MEM_LVL_MISS	0x0004
#define DPROF_MEM_LVL_L1	0x0008
#define DPROF_MEM_LVL_LFB	0x0010
#define DPROF_MEM_LVL_L2	0x0020
#define DPROF_MEM_LVL_L3	0x0040
#define DPROF_MEM_LVL_LOC_RAM	0x0080
#define DPROF_MEM_LVL_REM_RAM	0x0300	/* REM_RAM1 | REM_RAM2 */
#define DPROF_MEM_LVL_REM_CCE	0x0c00	/* REM_CCE1 | REM_CCE2 */
#define DPROF_MEM_LVL_IO	0x1000
#define DPROF_MEM_LVL_UNC	0x2000
#define DPROF_MEM_SNOOP_SHIFT	19	/* mem_snoop, bits 19-23 */
#define DPROF_MEM_SNOOP_HITM	0x10
#define DPROF_MEM_LVLNUM_SHIFT	33	/* mem_lvl_num, bits 33-36 */
#define DPROF_MEM_REMOTE_BIT	37	/* mem_remote */
#define DPROF_MEM_SNOOPX_SHIFT	38	/* mem_snoopx, bits 38-39 */
#define DPROF_MEM_SNOOPX_PEER	0x2

enum {
	DPROF_LVLNUM_L1 = 0x1, DPROF_LVLNUM_L2 = 0x2, DPROF_LVLNUM_L3 = 0x3,
	DPROF_LVLNUM_L4 = 0x4, DPROF_LVLNUM_ANY_CACHE = 0xb,
	DPROF_LVLNUM_LFB = 0xc, DPROF_LVLNUM_RAM = 0xd,
	DPROF_LVLNUM_PMEM = 0xe, DPROF_LVLNUM_NA = 0xf,
};

static inline unsigned int dprof_src_from_lvlnum(unsigned int lvlnum,
						 int remote, int peer)
{
	switch (lvlnum) {
	case DPROF_LVLNUM_L1: return DPROF_SRC_L1;
	case DPROF_LVLNUM_LFB: return DPROF_SRC_LFB;
	case DPROF_LVLNUM_L2: return DPROF_SRC_L2;
	case DPROF_LVLNUM_L3:
	case DPROF_LVLNUM_L4:
		return remote ? DPROF_SRC_REMOTE :
		       peer ? DPROF_SRC_PEER_CACHE : DPROF_SRC_L3;
	case DPROF_LVLNUM_ANY_CACHE:
		return remote ? DPROF_SRC_REMOTE : DPROF_SRC_PEER_CACHE;
	case DPROF_LVLNUM_RAM:
	case DPROF_LVLNUM_PMEM:
		return remote ? DPROF_SRC_REMOTE : DPROF_SRC_DRAM;
	default: return DPROF_SRC_UNKNOWN;
	}
}

static inline unsigned int dprof_src_from_lvl(unsigned int lvl)
{
	if (lvl & DPROF_MEM_LVL_L1)
		return lvl & DPROF_MEM_LVL_MISS ? DPROF_SRC_MISS : DPROF_SRC_L1;
	if (lvl & DPROF_MEM_LVL_LFB)
		return DPROF_SRC_LFB;
	if (lvl & DPROF_MEM_LVL_L2)
		return DPROF_SRC_L2;
	if (lvl & DPROF_MEM_LVL_L3)
		return DPROF_SRC_L3;
	if (lvl & DPROF_MEM_LVL_LOC_RAM)
		return DPROF_SRC_DRAM;
	if (lvl & (DPROF_MEM_LVL_REM_RAM | DPROF_MEM_LVL_REM_CCE))
		return DPROF_SRC_REMOTE;
	if (lvl & (DPROF_MEM_LVL_IO | DPROF_MEM_LVL_UNC))
		return DPROF_SRC_IO;
	return DPROF_SRC_UNKNOWN;
}

/* Latency (perf's weight) and address validity come with the sample. */
static inline void dprof_mem_src_decode(__u64 data_src, struct dprof_access *a)
{
	unsigned int op = data_src & 0x1f;
	unsigned int lvl = (data_src >> DPROF_MEM_LVL_SHIFT) & 0x3fff;
	unsigned int snoop = (data_src >> DPROF_MEM_SNOOP_SHIFT) & 0x1f;
	unsigned int lvlnum = (data_src >> DPROF_MEM_LVLNUM_SHIFT) & 0xf;
	int remote = (data_src >> DPROF_MEM_REMOTE_BIT) & 1;
	int peer = ((data_src >> DPROF_MEM_SNOOPX_SHIFT) & 3) ==
		   DPROF_MEM_SNOOPX_PEER;

	a->load = !!(op & DPROF_MEM_OP_LOAD);
	a->store = !!(op & DPROF_MEM_OP_STORE);
	/* Newer kernels say the level in mem_lvl_num, older in mem_lvl. */
	if (lvlnum && lvlnum != DPROF_LVLNUM_NA)
		a->src = dprof_src_from_lvlnum(lvlnum, remote, peer);
	else
		a->src = dprof_src_from_lvl(lvl);
	/* A modified line in another core's cache: the sharing signature. */
	if ((snoop & DPROF_MEM_SNOOP_HITM) &&
	    (a->src == DPROF_SRC_L3 || a->src == DPROF_SRC_MISS))
		a->src = DPROF_SRC_PEER_CACHE;
	a->l1_miss = a->src != DPROF_SRC_L1 && a->src != DPROF_SRC_UNKNOWN;
	if (a->src == DPROF_SRC_UNKNOWN && (lvl & DPROF_MEM_LVL_MISS))
		a->l1_miss = 1;
}

#endif /* _DPROF_DECODE_H */
