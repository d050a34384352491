/* The .tpub bytecode container: the one header shared by the back end (which
 * writes it) and the VM (which loads it).  See docs/bytecode.md.
 *
 * Layout, all little-endian:
 *   TpubHeader            64 bytes
 *   TpubSection[n]        16 bytes each
 *   section payloads      each 16-byte aligned, in section-table order
 * The checksum is XXH3-64 of the whole file with the checksum field zeroed.
 *
 * Sections:
 *   STRTAB  NUL-terminated strings, referenced by byte offset
 *   INTS    int64 pool: dims, type lists, attribute words, register lists
 *   TYPES   TpubType[]
 *   CONSTS  raw constant bytes (host layout), 16-byte aligned blobs
 *   FUNCS   TpubFunc[]
 *   CODE    uint32 instruction words (see TpubInstr below)
 *   LOCS    TpubLoc[]: source locations; instructions refer to them by index
 *   COSTS   TpubCost[], optional: one per top-level op, its modeled TPU cost
 *   LOCOPS  uint32[], present exactly when COSTS is: one per LOCS record,
 *           the op id of the top-level op it belongs to (0: none)
 *   SHARDS  TpubShard[], optional, only in a partitioned module: how the
 *           per-chip arguments and results of public functions are pieces
 *           of global values
 *   DYNDIMS TpubDyn[], optional: the bounded dynamic dims of public
 *           functions' parameters and results, and which parameter or
 *           result carries each one's runtime size
 */
#ifndef TPUB_H
#define TPUB_H

#include <stdint.h>

#include "common/limits.h"

#define TPUB_MAGIC "TPUB\x89\r\n\x1a" /* 8 bytes; the \r\n\x1a catch text-mode damage */
/* 2: COSTS section, mxu_dot; 3: COSTS per op, LOCOPS; 4: in-place loop
 * fusions; 5: opcode square (the opcodes after it renumbered); 6: SHARDS
 * section and MODULE's flags and mesh (SPMD-partitioned programs take
 * global inputs and give global results), where version 5 had reserved
 * zero words; 7: DYNDIMS section (bounded dynamic dims). */
#define TPUB_FORMAT_VERSION 7
#define TPUB_MAX_RANK 16     /* deeper tensors are refused by the loader */
#define TPUB_MAX_CALL_DEPTH TPU_MAX_CALL_DEPTH /* common/limits.h: the verifier's too */
#define TPUB_MAX_TUPLE_NESTING 64 /* tuples of tuples, at most this deep */

/* Element types: ID, name, bits, storage bytes, class.  Integers are stored
 * in the smallest byte container, sign-extended (signless/signed) or
 * zero-extended (unsigned); i1 is 0 or 1.  Minifloats keep their bit
 * pattern in the low bits of one byte; complex is (re, im). */
#define TPUB_ELEMS(X)                                 \
  X(I1, "i1", 1, 1, INT)                              \
  X(I2, "i2", 2, 1, INT)                              \
  X(I4, "i4", 4, 1, INT)                              \
  X(I8, "i8", 8, 1, INT)                              \
  X(I16, "i16", 16, 2, INT)                           \
  X(I32, "i32", 32, 4, INT)                           \
  X(I64, "i64", 64, 8, INT)                           \
  X(U1, "ui1", 1, 1, UINT)                            \
  X(U2, "ui2", 2, 1, UINT)                            \
  X(U4, "ui4", 4, 1, UINT)                            \
  X(U8, "ui8", 8, 1, UINT)                            \
  X(U16, "ui16", 16, 2, UINT)                         \
  X(U32, "ui32", 32, 4, UINT)                         \
  X(U64, "ui64", 64, 8, UINT)                         \
  X(F4E2M1FN, "f4E2M1FN", 4, 1, FLOAT)                \
  X(F6E2M3FN, "f6E2M3FN", 6, 1, FLOAT)                \
  X(F6E3M2FN, "f6E3M2FN", 6, 1, FLOAT)                \
  X(F8E3M4, "f8E3M4", 8, 1, FLOAT)                    \
  X(F8E4M3, "f8E4M3", 8, 1, FLOAT)                    \
  X(F8E4M3FN, "f8E4M3FN", 8, 1, FLOAT)                \
  X(F8E4M3FNUZ, "f8E4M3FNUZ", 8, 1, FLOAT)            \
  X(F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 8, 1, FLOAT)      \
  X(F8E5M2, "f8E5M2", 8, 1, FLOAT)                    \
  X(F8E5M2FNUZ, "f8E5M2FNUZ", 8, 1, FLOAT)            \
  X(F8E8M0FNU, "f8E8M0FNU", 8, 1, FLOAT)              \
  X(BF16, "bf16", 16, 2, FLOAT)                       \
  X(F16, "f16", 16, 2, FLOAT)                         \
  X(TF32, "tf32", 32, 4, FLOAT)                       \
  X(F32, "f32", 32, 4, FLOAT)                         \
  X(F64, "f64", 64, 8, FLOAT)                         \
  X(C64, "complex<f32>", 64, 8, COMPLEX)              \
  X(C128, "complex<f64>", 128, 16, COMPLEX)

typedef enum TpubElem {
#define X(id, name, bits, bytes, cls) TPUB_##id,
  TPUB_ELEMS(X)
#undef X
  TPUB_ELEM_COUNT
} TpubElem;

enum { TPUB_CLASS_INT, TPUB_CLASS_UINT, TPUB_CLASS_FLOAT, TPUB_CLASS_COMPLEX };

enum TpubSectionKind {
  TPUB_SEC_STRTAB = 1,
  TPUB_SEC_INTS,
  TPUB_SEC_TYPES,
  TPUB_SEC_CONSTS,
  TPUB_SEC_FUNCS,
  TPUB_SEC_CODE,
  TPUB_SEC_LOCS,
  TPUB_SEC_MODULE, /* one TpubModule */
  TPUB_SEC_COSTS,  /* optional */
  TPUB_SEC_LOCOPS, /* present exactly when COSTS is */
  TPUB_SEC_SHARDS, /* optional; only with TPUB_MODULE_SPMD */
  TPUB_SEC_DYNDIMS, /* optional */
  TPUB_SEC_COUNT /* one past the last kind */
};

typedef struct TpubHeader {
  char magic[8];
  uint32_t format_version;
  uint32_t header_size;       /* sizeof(TpubHeader) */
  char compiler_version[16];  /* NUL padded, e.g. "0.2.0" */
  char target[8];             /* NUL padded preset name, e.g. "v5e" */
  uint32_t section_count;
  uint32_t flags;             /* 0 */
  uint64_t file_size;
  uint64_t checksum;          /* XXH3-64, computed with this field zero */
} TpubHeader;
_Static_assert(sizeof(TpubHeader) == 64, "header layout");

typedef struct TpubSection {
  uint32_t kind;   /* TpubSectionKind; each kind at most once */
  uint32_t count;  /* number of records (bytes for STRTAB/CONSTS) */
  uint64_t offset; /* from the start of the file, 16-byte aligned */
} TpubSection;
_Static_assert(sizeof(TpubSection) == 16, "section layout");

enum TpubTypeKind { TPUB_TY_TENSOR = 1, TPUB_TY_TUPLE, TPUB_TY_TOKEN };

typedef struct TpubType {
  uint8_t kind;   /* TpubTypeKind */
  uint8_t elem;   /* TpubElem (tensors) */
  uint16_t rank;  /* tensors: rank; tuples: member count */
  uint32_t dims;  /* INTS index of rank dims, or of the member type indices */
} TpubType;
_Static_assert(sizeof(TpubType) == 8, "type layout");

enum TpubFuncFlags { TPUB_FUNC_PUBLIC = 1, TPUB_FUNC_REGION = 2 };

typedef struct TpubFunc {
  uint32_t name;       /* STRTAB offset */
  uint32_t flags;      /* TpubFuncFlags */
  uint32_t n_params;   /* registers 0..n_params-1 hold the arguments */
  uint32_t n_results;
  uint32_t n_regs;
  uint32_t reg_types;  /* INTS index of n_regs type indices */
  uint32_t result_types; /* INTS index of n_results type indices */
  uint32_t code;       /* CODE word index of the first instruction */
  uint32_t code_words; /* length; the last instruction is RETURN */
  uint32_t loc;        /* LOCS index of the function */
} TpubFunc;
_Static_assert(sizeof(TpubFunc) == 40, "func layout");

/* What the module says about the chips it runs on (mhlo.num_replicas,
 * mhlo.num_partitions; 1 when absent): tpurun's default slice.  Each is
 * 1..4096 and their product at most 4096.  flags: TPUB_MODULE_SPMD when
 * the module is the per-chip program of an SPMD partitioning
 * (tpu.spmd_partitioned): its public functions take and give global
 * values (SHARDS).  mesh_rank 0 (no mesh; mesh is 0), or 2 or 3 with
 * mesh the INTS index of that many dims, each >= 1, whose product is
 * num_partitions (tpu.mesh: the device mesh of the shardings). */
enum TpubModuleFlags { TPUB_MODULE_SPMD = 1 };
typedef struct TpubModule {
  uint32_t num_replicas, num_partitions;
  uint16_t flags;     /* TpubModuleFlags */
  uint16_t mesh_rank; /* 0, 2 or 3 */
  uint32_t mesh;      /* INTS index of mesh_rank dims */
} TpubModule;
_Static_assert(sizeof(TpubModule) == 16, "module layout");
#define TPUB_MAX_CHIPS 4096

/* One SHARDS record: parameter or result `index` of public function
 * `func` is a piece of a global tensor of rank dims (INTS[global ..]),
 * cut into tiles[d] pieces along each dim d and each piece held by r
 * partitions (INTS[tiles ..]: rank tile counts, then r, each >= 1).
 * INTS[devices ..] holds prod(tiles) * r = num_partitions partition ids,
 * each once, row-major over [tiles..., r]: the partitions holding each
 * piece.  The parameter's (result's) type is the per-chip tensor, of dims
 * ceil(global[d] / tiles[d]); the piece at tile coordinates c covers
 * global [c[d] * L[d], min((c[d] + 1) * L[d], global[d])) with L its
 * dims; the rest is padding (zeros in, ignored out).  Records are sorted
 * by func, then parameters before results, then index, each at most once;
 * parameters and results without one are whole (the same value on every
 * partition; a result is read from partition 0).  Pads are zero. */
enum TpubShardKind { TPUB_SHARD_PARAM, TPUB_SHARD_RESULT };
typedef struct TpubShard {
  uint32_t func;    /* FUNCS index of a public function */
  uint16_t kind;    /* TpubShardKind */
  uint16_t rank;    /* the tensor's rank */
  uint32_t index;   /* parameter or result index */
  uint32_t global;  /* INTS index of rank global dims */
  uint32_t tiles;   /* INTS index of rank + 1 counts: tiles, then r */
  uint32_t devices; /* INTS index of the partition ids */
  uint32_t ndevices;
  uint32_t pad;
} TpubShard;
_Static_assert(sizeof(TpubShard) == 32, "shard layout");

/* One DYNDIMS record (docs/dynamic-shapes.md): dim `dim` of parameter
 * (result) `index` of public function `func` is a bounded dynamic dim; the
 * tensor's type is padded to `bound` along it (its dims[dim] == bound) and
 * parameter (result) `size`, a tensor<i32> that is no tensor's record,
 * holds the runtime size, 0..bound.  Records are sorted by func, then
 * parameters before results, then index, then dim, each at most once;
 * each size parameter (result) serves one record.  Pads are zero. */
enum TpubDynKind { TPUB_DYN_PARAM, TPUB_DYN_RESULT };
typedef struct TpubDyn {
  uint32_t func;  /* FUNCS index of a public function */
  uint16_t kind;  /* TpubDynKind */
  uint16_t dim;   /* the dynamic dim */
  uint32_t index; /* the padded tensor's parameter or result index */
  uint32_t size;  /* the parameter or result index of its size */
  int64_t bound;
} TpubDyn;
_Static_assert(sizeof(TpubDyn) == 24, "dyn layout");

typedef struct TpubLoc {
  uint32_t file; /* STRTAB offset of the file name */
  uint32_t line, col;
  uint32_t op;   /* STRTAB offset of the StableHLO op name */
} TpubLoc;
_Static_assert(sizeof(TpubLoc) == 16, "loc layout");

/* The unit that bounds an op's modeled time (passes/cost.h CostBound). */
enum TpubBound {
  TPUB_BOUND_NONE,
  TPUB_BOUND_MXU,
  TPUB_BOUND_VPU,
  TPUB_BOUND_HBM,
  TPUB_BOUND_ICI,
  TPUB_BOUND_ISSUE,
  TPUB_BOUND_COUNT
};

/* Top-level ops (directly in a function body) are numbered from 1 in
 * program order; COSTS record i is the modeled cost of op i + 1.  LOCOPS
 * entry k is the op id of LOCS record k: every record written while
 * lowering an op (its instructions, and the functions made of its regions
 * with their instructions) carries its id; the others (those of the
 * module's functions) carry 0.  Numbers are finite and >= 0; pads are
 * zero. */
typedef struct TpubCost {
  uint32_t op_loc;  /* LOCS record naming the op (e.g. "tpu.fusion(output)"); its LOCOPS entry is this op */
  float mxu_util;   /* modeled MXU utilization, 0..1 */
  uint8_t bound;    /* TpubBound */
  uint8_t pad[7];
  double flops;     /* useful FLOPs */
  double hbm_bytes; /* HBM bytes read and written */
  double modeled_s; /* modeled time in seconds */
} TpubCost;
_Static_assert(sizeof(TpubCost) == 40, "cost layout");

/* mxu_dot's tile and pad lists (see vm/opcodes.def): three entries each,
 * M, N, K order; 1 <= tile <= TPUB_MXU_MAX_TILE; real size <= pad <= real
 * size + max(tile, TPUB_MXU_PAD_SLACK). */
#define TPUB_MXU_MAX_TILE 65536
#define TPUB_MXU_PAD_SLACK 256

/* An instruction in CODE is a run of uint32 words:
 *   opcode | flags << 16, n_in, n_out, attrs (INTS index), n_attrs, loc,
 *   in[n_in], out[n_out], n_kill, kill[n_kill]
 * in/out/kill are registers of the enclosing function.  kill lists the
 * registers whose last use is this instruction (freed after it).  The flag
 * TPUB_INSTR_INPLACE(k) says out[0] may reuse the buffer of in[k]. */
#define TPUB_INSTR_HEADER_WORDS 6
#define TPUB_INSTR_INPLACE 0x8000u /* bits 0-7 of the flags: operand index */
/* A collective started asynchronously (tpu.async_start): on the modeled
 * timeline it runs on the ICI while the chip goes on, until async_done. */
#define TPUB_INSTR_ASYNC 0x4000u

/* ------------------------------------------------------------------ */
/* Opcodes (the low 16 bits of an instruction's first word), their flags
 * and the kinds of their fields, from vm/opcodes.def. */
typedef enum VmOpcode {
#define OPC(id, name, nin, nout, fields, check, exec, flags, doc) VM_OP_##id,
#include "vm/opcodes.def"
#undef OPC
  VM_OP_COUNT
} VmOpcode;

enum VmOpFlags {
  VMF_ELEMENTWISE = 1, /* same-shape element-wise: out[0] may reuse a dying operand */
  VMF_ALIAS = 2,       /* result holds the operand's bytes unchanged: may share its buffer */
  VMF_UPDATE = 4,      /* result 0 is operand 0 with parts rewritten: may reuse it when it dies */
  VMF_COLLECTIVE = 8,  /* meets other chips (vm_collective): may be started asynchronously */
  VMF_TILEWISE = 16,   /* a loop FUSION, tile by tile: out[0] may reuse a dying operand (kind 0 only) */
};

/* Field kinds of the fields strings in vm/opcodes.def. */
enum VmFieldKind {
  VM_FIELD_INT = 'i',
  VM_FIELD_F64 = 'f',
  VM_FIELD_LIST = 'l',
  VM_FIELD_STR = 's',
  VM_FIELD_CONST = 'c',
  VM_FIELD_REGION = 'r',
  VM_FIELD_REGIONS = 'R',
};

#endif
