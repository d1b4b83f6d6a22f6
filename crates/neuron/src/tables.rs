//! The facts of the model as data, each row with its provenance. The decoder,
//! encoder, printer, parser, validator, executor, `explain` and the generated
//! part of `docs/neuron.md` all read these tables.

use xstore_core::isa::{ProfileDef, RegionDef};
use xstore_core::{Access, Provenance};

/// Bytes per instruction.
pub const INST_LEN: usize = 64;
/// `header.inst_word_len` of the 64-byte format (16 words of 32 bits).
pub const WORD_LEN: u8 = 0x10;
/// Sequencer registers per engine (vendor: 64 × 32-bit on NC-v2..v4).
pub const NUM_REGS: usize = 64;
/// Element cap of one instruction (32 register slots / 32 data bytes).
pub const MAX_ELEMS: usize = 32;
/// Bits of the immediate address (the ADDR8 marker bits 63..58 are cleared).
pub const IMM_ADDR_BITS: u32 = 58;
/// The window of the single-window rule: 16 MiB, aligned.
pub const WINDOW_SHIFT: u32 = 24;

/// What an opcode does in the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Store,
    Load,
    PseudoStore,
    PseudoLoad,
    /// Recognised by name, not modelled.
    NotModelled,
}

/// One opcode of the sequencer block (the opcode enum of `aws_neuron_isa_tpb_common.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeDef {
    pub code: u8,
    /// The vendor header's name (after `NEURON_ISA_TPB_OPCODE_`).
    pub name: &'static str,
    /// Assembly mnemonic.
    pub mnemonic: &'static str,
    pub kind: OpKind,
    pub note: &'static str,
    pub provenance: Provenance,
}

pub static OPCODES: &[OpcodeDef] = &[
    OpcodeDef {
        code: 0xa5,
        name: "WRITE",
        mnemonic: "write",
        kind: OpKind::NotModelled,
        note: "sequencer control block, not modelled",
        provenance: Provenance::OBSERVED_HIGH,
    },
    OpcodeDef {
        code: 0xa6,
        name: "NOTIFY",
        mnemonic: "notify",
        kind: OpKind::NotModelled,
        note: "not modelled",
        provenance: Provenance::OBSERVED_HIGH,
    },
    OpcodeDef {
        code: 0xa7,
        name: "MOVE",
        mnemonic: "move",
        kind: OpKind::NotModelled,
        note: "not modelled",
        provenance: Provenance::OBSERVED_HIGH,
    },
    OpcodeDef {
        code: 0xa8,
        name: "ALU_OP",
        mnemonic: "alu_op",
        kind: OpKind::NotModelled,
        note: "not modelled",
        provenance: Provenance::OBSERVED_HIGH,
    },
    OpcodeDef {
        code: 0xa9,
        name: "COMPARE_BRANCH",
        mnemonic: "compare_branch",
        kind: OpKind::NotModelled,
        note: "not modelled",
        provenance: Provenance::OBSERVED_HIGH,
    },
    OpcodeDef {
        code: 0xaa,
        name: "TENSOR_LOAD",
        mnemonic: "tensor_load",
        kind: OpKind::Load,
        note: "modelled: memory -> registers, the mirror of TENSOR_STORE",
        provenance: Provenance::OBSERVED_HIGH,
    },
    OpcodeDef {
        code: 0xab,
        name: "TENSOR_STORE",
        mnemonic: "tensor_store",
        kind: OpKind::Store,
        note: "modelled: registers or immediates -> memory",
        provenance: Provenance::OBSERVED_HIGH,
    },
    OpcodeDef {
        code: 0xcd,
        name: "PSEUDO_TENSOR_STORE",
        mnemonic: "pseudo_tensor_store",
        kind: OpKind::PseudoStore,
        note: "compiler pseudo: var_id/var_offset in bytes 16..24, lowered to 0xab",
        provenance: Provenance::OBSERVED_HIGH,
    },
    OpcodeDef {
        code: 0xce,
        name: "PSEUDO_TENSOR_LOAD",
        mnemonic: "pseudo_tensor_load",
        kind: OpKind::PseudoLoad,
        note: "compiler pseudo: var_id/var_offset in bytes 16..24, lowered to 0xaa",
        provenance: Provenance::OBSERVED_HIGH,
    },
];

/// The opcode row of `code`.
#[inline]
pub fn opcode(code: u8) -> Option<&'static OpcodeDef> {
    // OPCODES is sorted: 0xa5..=0xab, then 0xcd, 0xce (pinned by a test).
    let i = match code {
        0xa5..=0xab => (code - 0xa5) as usize,
        0xcd => 7,
        0xce => 8,
        _ => return None,
    };
    Some(&OPCODES[i])
}

/// One DTYPE byte value (`nrt_dtype_t` of the Neuron runtime header).
#[derive(Debug, Clone, Copy)]
pub struct DtypeDef {
    pub code: u8,
    /// The vendor enum's name.
    pub name: &'static str,
    /// Assembly suffix.
    pub suffix: &'static str,
    /// Bytes per element, where the type has a width.
    pub width: Option<u8>,
    /// In the 8-type set of `mem2d_dtype_check`.
    pub in_set: bool,
    pub signed: bool,
    pub float: bool,
    pub provenance: Provenance,
}

const fn dt(
    code: u8,
    name: &'static str,
    suffix: &'static str,
    width: Option<u8>,
    in_set: bool,
    signed: bool,
    float: bool,
) -> DtypeDef {
    DtypeDef {
        code,
        name,
        suffix,
        width,
        in_set,
        signed,
        float,
        provenance: Provenance::Vendor,
    }
}

pub static DTYPES: &[DtypeDef] = &[
    dt(0x0, "INVALID", "invalid", None, false, false, false),
    dt(0x1, "UINT64", "u64", Some(8), true, false, false),
    dt(0x2, "INT8", "i8", Some(1), true, true, false),
    dt(0x3, "UINT8", "u8", Some(1), true, false, false),
    dt(0x4, "INT16", "i16", Some(2), true, true, false),
    dt(0x5, "UINT16", "u16", Some(2), true, false, false),
    dt(0x6, "BF16", "bf16", Some(2), false, false, true),
    dt(0x7, "FP16", "fp16", Some(2), false, false, true),
    dt(0x8, "INT32", "i32", Some(4), true, true, false),
    dt(0x9, "UINT32", "u32", Some(4), true, false, false),
    dt(0xa, "FP32", "f32", Some(4), true, false, true),
    dt(0xb, "FP32R", "fp32r", Some(4), false, false, true),
    dt(0xc, "INT64", "i64", Some(8), false, true, false),
    dt(0xd, "FP8_E3", "fp8e3", Some(1), false, false, true),
    dt(0xe, "FP8_E4", "fp8e4", Some(1), false, false, true),
    dt(0xf, "FP8_E5", "fp8e5", Some(1), false, false, true),
];

/// The dtype row of `code` (codes 0x10..=0xff have none).
#[inline]
pub fn dtype(code: u8) -> Option<&'static DtypeDef> {
    DTYPES.get(code as usize)
}

/// Width of a dtype in the TensorStore set, else `None`.
#[inline]
pub fn set_width(code: u8) -> Option<u8> {
    match dtype(code) {
        Some(d) if d.in_set => d.width,
        _ => None,
    }
}

/// One field of the 64-byte MEM_2D instruction (`NEURON_ISA_TPB_MEM_2D_STRUCT`).
#[derive(Debug, Clone, Copy)]
pub struct FieldDef {
    pub name: &'static str,
    /// Byte range `start..end`.
    pub start: usize,
    pub end: usize,
    pub content: &'static str,
    pub provenance: Provenance,
}

const fn fd(
    name: &'static str,
    start: usize,
    end: usize,
    content: &'static str,
    provenance: Provenance,
) -> FieldDef {
    FieldDef {
        name,
        start,
        end,
        content,
        provenance,
    }
}

pub const F_OPCODE: usize = 0;
pub const F_WORD_LEN: usize = 1;
pub const F_DEBUG_CMD: usize = 2;
pub const F_DEBUG_HINT: usize = 3;
pub const F_WAIT_MODE: usize = 4;
pub const F_WAIT_IDX: usize = 5;
pub const F_UPDATE_MODE: usize = 6;
pub const F_UPDATE_IDX: usize = 7;
pub const F_SEM: usize = 8;
pub const F_DTYPE: usize = 9;
pub const F_DATASRC: usize = 10;
pub const F_NUM0: usize = 11;
pub const F_NUM1: usize = 12;
pub const F_ADDR: usize = 13;
pub const F_STEP0: usize = 14;
pub const F_STEP1: usize = 15;
pub const F_DATA: usize = 16;

/// The fields, in byte order; `FIELDS[F_*]` names each one.
pub static FIELDS: &[FieldDef] = &[
    fd(
        "header.opcode",
        0,
        1,
        "0xab / 0xaa / 0xcd / 0xce",
        Provenance::OBSERVED_HIGH,
    ),
    fd(
        "header.inst_word_len",
        1,
        2,
        "instruction length in 32-bit words; 0x10 for this format",
        Provenance::Secondary,
    ),
    fd(
        "header.debug_cmd",
        2,
        3,
        "passed through",
        Provenance::Secondary,
    ),
    fd(
        "header.debug_hint",
        3,
        4,
        "passed through",
        Provenance::Secondary,
    ),
    fd(
        "events.wait_mode",
        4,
        5,
        "raw; known 0x05 wait sem >= imm, 0x85 >= register, 0xfe unordered",
        Provenance::Secondary,
    ),
    fd(
        "events.wait_idx",
        5,
        6,
        "semaphore index (256 semaphores per core on v2+)",
        Provenance::Secondary,
    ),
    fd(
        "events.update_mode",
        6,
        7,
        "raw; public pages disagree on the encodings, never interpreted",
        Provenance::Secondary,
    ),
    fd(
        "events.update_idx",
        7,
        8,
        "semaphore index",
        Provenance::Secondary,
    ),
    fd(
        "events.semaphore_value",
        8,
        12,
        "u32",
        Provenance::Secondary,
    ),
    fd(
        "dtype",
        12,
        13,
        "element dtype (DTYPE table)",
        Provenance::OBSERVED_HIGH,
    ),
    fd(
        "src_datasrc",
        13,
        14,
        "0 = Register, 1 = Immediate",
        Provenance::OBSERVED_HIGH,
    ),
    fd(
        "num_elem[0]",
        14,
        15,
        "inner count",
        Provenance::OBSERVED_HIGH,
    ),
    fd(
        "num_elem[1]",
        15,
        16,
        "outer count",
        Provenance::OBSERVED_HIGH,
    ),
    fd(
        "start_addr",
        16,
        24,
        "ADDR8: marker in byte 23 (& 0xfc); immediate form = 58-bit address",
        Provenance::Secondary,
    ),
    fd(
        "step_elem[0]",
        24,
        28,
        "i32 inner stride in elements",
        Provenance::OBSERVED_HIGH,
    ),
    fd(
        "step_elem[1]",
        28,
        32,
        "i32 outer stride in elements",
        Provenance::OBSERVED_HIGH,
    ),
    fd(
        "data",
        32,
        64,
        "32 register numbers (u8), or packed immediates",
        Provenance::OBSERVED_HIGH,
    ),
];

/// The pseudo forms' replacement of bytes 16..24.
pub static PSEUDO_FIELDS: &[FieldDef] = &[
    fd(
        "var_id",
        16,
        20,
        "u32 symbolic variable id",
        Provenance::OBSERVED_HIGH,
    ),
    fd(
        "var_offset",
        20,
        24,
        "u32 offset from the variable's base, in bytes (assumed unit)",
        Provenance::OBSERVED_HIGH,
    ),
];

/// One ADDR8 marker value (public reverse-engineering pages of the family).
#[derive(Debug, Clone, Copy)]
pub struct Addr8Form {
    /// `byte23 & 0xfc`.
    pub marker: u8,
    pub address_from: &'static str,
    pub shape_from: &'static str,
    pub provenance: Provenance,
}

pub static ADDR8_FORMS: &[Addr8Form] = &[
    Addr8Form {
        marker: 0x00,
        address_from: "immediate",
        shape_from: "immediate",
        provenance: Provenance::Secondary,
    },
    Addr8Form {
        marker: 0x40,
        address_from: "immediate",
        shape_from: "register",
        provenance: Provenance::Secondary,
    },
    Addr8Form {
        marker: 0x80,
        address_from: "register pair",
        shape_from: "immediate",
        provenance: Provenance::Secondary,
    },
    Addr8Form {
        marker: 0xc0,
        address_from: "register",
        shape_from: "register",
        provenance: Provenance::Secondary,
    },
    Addr8Form {
        marker: 0x20,
        address_from: "table",
        shape_from: "immediate",
        provenance: Provenance::Secondary,
    },
    Addr8Form {
        marker: 0x60,
        address_from: "table",
        shape_from: "register",
        provenance: Provenance::Secondary,
    },
];

/// ADDR8 modifier bits of the marker byte.
pub static ADDR8_MODIFIERS: &[(u8, &str)] = &[
    (0x08, "table offset from a register"),
    (0x04, "64-bit offset"),
    (0x10, "VAR_ID (pseudo ADDR8)"),
];

/// Describe a marker byte (`byte23 & 0xfc`) for messages and `explain`.
pub fn describe_marker(marker: u8) -> String {
    let base = marker & 0xe0;
    let mut s = match ADDR8_FORMS.iter().find(|f| f.marker == base) {
        Some(f) => format!(
            "address from {}, shape from {}",
            f.address_from, f.shape_from
        ),
        None => "unknown form".to_string(),
    };
    for (bit, what) in ADDR8_MODIFIERS {
        if marker & bit != 0 {
            s.push_str(", +");
            s.push_str(what);
        }
    }
    s
}

/// Which instruction a check belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    Store,
    Load,
    Both,
}

/// One validation check (`is_valid_tensor_store` / `is_valid_tensor_load` of
/// `aws_neuron_isa_tpb_mem_2d.h`, the window rule, the assumed checks).
#[derive(Debug, Clone, Copy)]
pub struct CheckDef {
    pub name: &'static str,
    pub applies: Applies,
    /// From the specification (true) or this project's assumption.
    pub spec: bool,
    pub body: &'static str,
    pub provenance: Provenance,
}

pub static CHECKS: &[CheckDef] = &[
    CheckDef {
        name: "has_valid_neuron_header",
        applies: Applies::Both,
        spec: true,
        body: "opcode is a sequencer opcode and inst_word_len == 0x10 (body not public: \
               the word-length test is secondary evidence)",
        provenance: Provenance::Secondary,
    },
    CheckDef {
        name: "has_valid_neuron_events",
        applies: Applies::Both,
        spec: true,
        body: "accepts every value: body not public, not checkable",
        provenance: Provenance::Assumed,
    },
    CheckDef {
        name: "has_tensor_store_opcode",
        applies: Applies::Store,
        spec: true,
        body: "opcode == 0xab (0xcd before lowering)",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "has_tensor_load_opcode",
        applies: Applies::Load,
        spec: true,
        body: "opcode == 0xaa (0xce before lowering)",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "mem2d_shared_constraints",
        applies: Applies::Both,
        spec: true,
        body: "num_elem[0] and num_elem[1] in 1..=32, dtype in {u8,i8,u16,i16,u32,i32,fp32,u64}",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "mem2d_datasrc_valid",
        applies: Applies::Store,
        spec: true,
        body: "src_datasrc in {0 Register, 1 Immediate}",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "mem2d_datasrc_zero",
        applies: Applies::Load,
        spec: true,
        body: "src_datasrc == 0 (Register)",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "mem2d_store_num_elem_check",
        applies: Applies::Store,
        spec: true,
        body: "n0*n1 <= 32 (Register); Immediate: <= 32 u8/i8, 16 u16/i16, 8 u32/i32/fp32, 4 u64",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "mem2d_32_elem_check",
        applies: Applies::Load,
        spec: true,
        body: "n0*n1 <= 32",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "mem2d_u64_register_check",
        applies: Applies::Both,
        spec: true,
        body: "dtype u64 with a Register source: all 32 data slots hold even register numbers",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "valid_start_addr",
        applies: Applies::Both,
        spec: true,
        body: "immediate ADDR8 form: start_addr % sizeof(dtype) == 0; other forms trusted",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "window_16mib",
        applies: Applies::Both,
        spec: true,
        body: "every byte of every element in one aligned 16 MiB region, no 64-bit overflow \
               (static for the immediate form, at execution for the others)",
        provenance: Provenance::OBSERVED_HIGH,
    },
    CheckDef {
        name: "register_number_below_64",
        applies: Applies::Both,
        spec: false,
        body: "Register source/destination: every used data slot names r0..r63",
        provenance: Provenance::Assumed,
    },
];

/// The check row named `name`.
pub fn check_def(name: &str) -> &'static CheckDef {
    CHECKS
        .iter()
        .find(|c| c.name == name)
        .expect("check names come from the table")
}

const SBUF: RegionDef = RegionDef {
    name: "sbuf",
    base: 0x0,
    size: 0x200_0000,
    access: Access::ReadWrite,
};
const PSUM: RegionDef = RegionDef {
    name: "psum",
    base: 0x200_0000,
    size: 0x40_0000,
    access: Access::ReadWrite,
};

/// Memory profiles (docs/neuron.md, "Memory profiles"). The four generations share one map.
pub static PROFILES: &[ProfileDef] = &[
    ProfileDef {
        name: "nc-v2",
        description: "SUNDA (NeuronCore-v2): SBUF window 0x0 size 0x2000000, PSUM window \
                      0x2000000 size 0x400000, both mapped whole (vendor SBUF capacity 24 MiB)",
        regions: &[SBUF, PSUM],
        provenance: Provenance::OBSERVED_HIGH,
    },
    ProfileDef {
        name: "nc-v3",
        description: "CAYMAN (NeuronCore-v3): same windows as nc-v2 (vendor SBUF capacity 28 MiB)",
        regions: &[SBUF, PSUM],
        provenance: Provenance::OBSERVED_HIGH,
    },
    ProfileDef {
        name: "nc-v4",
        description: "MARIANA (NeuronCore-v4): same windows as nc-v2 (vendor SBUF capacity 32 MiB)",
        regions: &[SBUF, PSUM],
        provenance: Provenance::OBSERVED_HIGH,
    },
    ProfileDef {
        name: "nc-v5",
        description: "MAVERICK (NeuronCore-v5): same windows as nc-v2; header-level facts only, \
                      no vendor capacity published",
        regions: &[SBUF, PSUM],
        provenance: Provenance::OBSERVED_HIGH,
    },
];

/// What the project decided where the sources are silent, disagree or leave a choice
/// (docs/neuron.md, "Decisions").
pub struct Decision {
    pub topic: &'static str,
    pub decision: &'static str,
    pub provenance: Provenance,
}

pub static DECISIONS: &[Decision] = &[
    Decision {
        topic: "register file",
        decision: "64 sequencer registers of 32 bits, r0..r63, as the NKI documentation gives \
                   them; the r0..r31 of the TensorStore page is the 32-element cap, not the size \
                   of the file",
        provenance: Provenance::Vendor,
    },
    Decision {
        topic: "register >= 64",
        decision: "a used data slot naming r64..r255 fails the assumed check \
                   `register_number_below_64`; executing it is a fault of that name",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "u64 from registers",
        decision: "value = R[n] | R[n+1] << 32 for the even slot register n; a u64 load writes \
                   the low half to R[n], the high half to R[n+1]",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "u64 immediates",
        decision: "element k is the little-endian u64 at data[8k..8k+8]",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "register-source narrowing",
        decision: "a store writes the low dtype-width bytes of the 32-bit register, little-endian",
        provenance: Provenance::INFERRED_MED,
    },
    Decision {
        topic: "ADDR8 immediate form",
        decision: "marker (byte 23 & 0xfc) == 0: the address is the LE u64 with bits 63..58 \
                   cleared; alignment is checked only for this form",
        provenance: Provenance::Secondary,
    },
    Decision {
        topic: "other ADDR8 forms",
        decision: "decoded to marker + raw payload and round-tripped; executing one is an \
                   `unsupported ADDR8 form` error naming the marker (no resolver is guessed)",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "has_valid_neuron_header",
        decision: "opcode in the sequencer block and inst_word_len == 0x10",
        provenance: Provenance::Secondary,
    },
    Decision {
        topic: "has_valid_neuron_events",
        decision: "accepts every value and says so (body unknown); events are carried but not \
                   executed (no semaphore model), a nonzero wait/update gives a warning",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "pseudo forms in validate",
        decision: "0xcd/0xce are validated as the store/load they lower to; the opcode check \
                   accepts the pseudo opcode, valid_start_addr and window_16mib are not \
                   checkable before lowering",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "pseudo lowering",
        decision: "address = table[var_id] + var_offset (bytes), written as an immediate ADDR8; \
                   the sum must fit 58 bits; an unknown var_id is an error",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "overlapping elements",
        decision: "legal; elements are written in order k = i1*n0 + i0 and the later one wins",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "failed checks at execution",
        decision: "an instruction failing any check is a fault named by the first failing \
                   check in table order; nothing is written, no register changes",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "TensorLoad atomicity",
        decision: "every element is read before any register is written; a read fault leaves \
                   all registers unchanged",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "symbol table",
        decision: "the runtime's own table format is not public: the table is a TOML `[symbols]` \
                   (or `--sym ID=ADDR`), var_id and address numbers by the number rule, each \
                   var_id at most once whatever its spelling",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "numbers",
        decision: "every number (assembly, `--sym`, `[symbols]`, `[regs]`) is written as a TOML \
                   integer or float, the syntax the scenario file's values already have",
        provenance: Provenance::Assumed,
    },
    Decision {
        topic: "memory map",
        decision: "the SBUF and PSUM windows are mapped whole, identical in all four \
                   generations; other addresses fault as unmapped",
        provenance: Provenance::Assumed,
    },
];
