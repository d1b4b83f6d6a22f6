//! The facts of the model as data, each row with its provenance: opcodes,
//! DTYPE values, the fields of the 64-byte instruction, the ADDR8 forms, the
//! memory profiles and the project's decisions. The decoder, encoder,
//! printer, parser, validator, executor, `explain`, `lint` and the generated
//! part of `docs/neuron.md` all read these tables; the checks of `validate`
//! are the table of `check.rs`, which reads these.
//!
//! Where one fact follows from another it is computed, not written again:
//! the data field's size from its row of [`FIELDS`], the immediate caps from
//! the dtype widths, the immediate address width from the ADDR8 marker mask.
//! Compile-time assertions hold the tables to their shape (the fields tile
//! the 64 bytes, each dtype row sits at its code, each opcode row is found
//! by its code).

use xstore_core::isa::{ProfileDef, RegionDef};
use xstore_core::{Access, Provenance};

/// Bytes per instruction.
pub const INST_LEN: usize = 64;
/// `header.inst_word_len` of the 64-byte format (16 words of 32 bits).
pub const WORD_LEN: u8 = 0x10;
/// Sequencer registers per engine (vendor: 64 × 32-bit on NC-v2..v4).
pub const NUM_REGS: usize = 64;
/// Bytes of the data field (bytes 32..64): its row of [`FIELDS`].
pub const DATA_BYTES: usize = F_DATA.end - F_DATA.start;
/// The element cap of one instruction: one data slot (a register number
/// byte) per element, so as many elements as data bytes. It is also the
/// bound of each count, `num_elem[i]` in `1..=MAX_ELEMS`
/// (`mem2d_shared_constraints`).
pub const MAX_ELEMS: usize = DATA_BYTES;
/// The ADDR8 marker: the bits of byte 23 that select the form (`& 0xfc`).
pub const ADDR8_MARKER_MASK: u8 = 0xfc;
/// Bits of the immediate address: the 64-bit ADDR8 less its marker bits
/// (bits 63..58), so 58.
pub const IMM_ADDR_BITS: u32 = 64 - ADDR8_MARKER_MASK.count_ones();
/// The largest immediate address.
pub const IMM_ADDR_MAX: u64 = (1 << IMM_ADDR_BITS) - 1;
/// The window of the single-window rule: 16 MiB, aligned (`addr >> 24`).
pub const WINDOW_SHIFT: u32 = 24;

/// The four modelled opcodes (the rows of [`OPCODES`] whose `op` is set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// TENSOR_LOAD (0xaa): memory -> registers.
    TensorLoad,
    /// TENSOR_STORE (0xab): registers or immediates -> memory.
    TensorStore,
    /// PSEUDO_TENSOR_STORE (0xcd): a store with a symbolic address.
    PseudoTensorStore,
    /// PSEUDO_TENSOR_LOAD (0xce): a load with a symbolic address.
    PseudoTensorLoad,
}

/// Store or load, after or before lowering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    /// TensorStore (0xab) and its pseudo form (0xcd).
    Store,
    /// TensorLoad (0xaa) and its pseudo form (0xce).
    Load,
}

/// Where [`Op`]'s rows start in [`OPCODES`] (they follow in `Op` order).
const FIRST_MODELLED: usize = 5;

impl Op {
    /// Every modelled opcode, in table order.
    pub const ALL: [Op; 4] = [
        Op::TensorLoad,
        Op::TensorStore,
        Op::PseudoTensorStore,
        Op::PseudoTensorLoad,
    ];

    /// The opcode's row.
    #[inline]
    pub const fn def(self) -> &'static OpcodeDef {
        &OPCODES[FIRST_MODELLED + self as usize]
    }

    /// The opcode byte.
    #[inline]
    pub const fn code(self) -> u8 {
        self.def().code
    }

    /// Store or load.
    #[inline]
    pub const fn dir(self) -> Dir {
        match self {
            Op::TensorStore | Op::PseudoTensorStore => Dir::Store,
            Op::TensorLoad | Op::PseudoTensorLoad => Dir::Load,
        }
    }

    /// A pseudo form (0xcd, 0xce): the address is a symbolic variable.
    #[inline]
    pub const fn is_pseudo(self) -> bool {
        matches!(self, Op::PseudoTensorStore | Op::PseudoTensorLoad)
    }

    /// What lowering makes of it: 0xcd -> 0xab, 0xce -> 0xaa, others unchanged.
    #[inline]
    pub const fn lowered(self) -> Op {
        match self.dir() {
            Dir::Store => Op::TensorStore,
            Dir::Load => Op::TensorLoad,
        }
    }
}

/// One opcode of the sequencer block (the opcode enum of `aws_neuron_isa_tpb_common.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeDef {
    /// The opcode byte (byte 0).
    pub code: u8,
    /// The vendor header's name (after `NEURON_ISA_TPB_OPCODE_`).
    pub name: &'static str,
    /// Assembly mnemonic.
    pub mnemonic: &'static str,
    /// The modelled opcode, or `None`: recognised by name, not modelled.
    pub op: Option<Op>,
    /// What the model does with it.
    pub note: &'static str,
    /// Where the row comes from.
    pub provenance: Provenance,
}

const fn op(
    code: u8,
    name: &'static str,
    mnemonic: &'static str,
    op: Option<Op>,
    note: &'static str,
) -> OpcodeDef {
    OpcodeDef {
        code,
        name,
        mnemonic,
        op,
        note,
        provenance: Provenance::OBSERVED_HIGH,
    }
}

/// The opcodes of the sequencer block, by code.
pub static OPCODES: &[OpcodeDef] = &[
    op(
        0xa5,
        "WRITE",
        "write",
        None,
        "sequencer control block, not modelled",
    ),
    op(0xa6, "NOTIFY", "notify", None, "not modelled"),
    op(0xa7, "MOVE", "move", None, "not modelled"),
    op(0xa8, "ALU_OP", "alu_op", None, "not modelled"),
    op(
        0xa9,
        "COMPARE_BRANCH",
        "compare_branch",
        None,
        "not modelled",
    ),
    op(
        0xaa,
        "TENSOR_LOAD",
        "tensor_load",
        Some(Op::TensorLoad),
        "modelled: memory -> registers, the mirror of TENSOR_STORE",
    ),
    op(
        0xab,
        "TENSOR_STORE",
        "tensor_store",
        Some(Op::TensorStore),
        "modelled: registers or immediates -> memory",
    ),
    op(
        0xcd,
        "PSEUDO_TENSOR_STORE",
        "pseudo_tensor_store",
        Some(Op::PseudoTensorStore),
        "compiler pseudo: var_id/var_offset in bytes 16..24, lowered to 0xab",
    ),
    op(
        0xce,
        "PSEUDO_TENSOR_LOAD",
        "pseudo_tensor_load",
        Some(Op::PseudoTensorLoad),
        "compiler pseudo: var_id/var_offset in bytes 16..24, lowered to 0xaa",
    ),
];

/// `OPCODE_INDEX[code]` is the row of `code` in [`OPCODES`], or `NONE`.
const OPCODE_INDEX: [u8; 256] = {
    let mut t = [NONE; 256];
    let mut i = 0;
    while i < OPCODES.len() {
        t[OPCODES[i].code as usize] = i as u8;
        i += 1;
    }
    t
};
const NONE: u8 = u8::MAX;

// The modelled rows follow in `Op` order from FIRST_MODELLED.
const _: () = {
    let mut i = 0;
    while i < Op::ALL.len() {
        match OPCODES[FIRST_MODELLED + i].op {
            Some(o) => assert!(o as usize == i, "OPCODES rows out of Op order"),
            None => panic!("a modelled row is missing"),
        }
        i += 1;
    }
    assert!(FIRST_MODELLED + Op::ALL.len() == OPCODES.len());
};

/// The opcode row of `code`.
#[inline]
pub fn opcode(code: u8) -> Option<&'static OpcodeDef> {
    OPCODES.get(OPCODE_INDEX[code as usize] as usize)
}

/// The `src_datasrc` byte (byte 13): where a store's values come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataSrc {
    /// 0: the data field holds register numbers.
    Register,
    /// 1: the data field holds packed immediates.
    Immediate,
}

impl DataSrc {
    /// The byte value.
    pub const fn code(self) -> u8 {
        match self {
            DataSrc::Register => 0,
            DataSrc::Immediate => 1,
        }
    }
    /// The source a byte value names, if any.
    pub const fn from_code(code: u8) -> Option<DataSrc> {
        match code {
            0 => Some(DataSrc::Register),
            1 => Some(DataSrc::Immediate),
            _ => None,
        }
    }
    /// The vendor header's name.
    pub const fn name(self) -> &'static str {
        match self {
            DataSrc::Register => "Register",
            DataSrc::Immediate => "Immediate",
        }
    }
}

/// One DTYPE byte value (`nrt_dtype_t` of the Neuron runtime header).
#[derive(Debug, Clone, Copy)]
pub struct DtypeDef {
    /// The byte value (byte 12).
    pub code: u8,
    /// The vendor enum's name.
    pub name: &'static str,
    /// Assembly suffix.
    pub suffix: &'static str,
    /// Bytes per element, where the type has a width.
    pub width: Option<u8>,
    /// In the 8-type set of `mem2d_dtype_check`.
    pub in_set: bool,
    /// A signed integer type (loads sign-extend it).
    pub signed: bool,
    /// A floating-point type (immediates are written as floats).
    pub float: bool,
    /// Where the row comes from.
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

/// The DTYPE values, each at the index of its code.
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

const _: () = {
    let mut i = 0;
    while i < DTYPES.len() {
        assert!(
            DTYPES[i].code as usize == i,
            "a DTYPE row is not at its code"
        );
        i += 1;
    }
};

/// The dtype row of `code` (codes 0x10..=0xff have none).
#[inline]
pub fn dtype(code: u8) -> Option<&'static DtypeDef> {
    DTYPES.get(code as usize)
}

/// `WIDTHS[code]` is `(width of a dtype in the set, width of any dtype)`,
/// 0 for none: [`DTYPES`] as a lookup by byte, for the checks' fast path.
const WIDTHS: [(u8, u8); 256] = {
    let mut t = [(0u8, 0u8); 256];
    let mut i = 0;
    while i < DTYPES.len() {
        let d = &DTYPES[i];
        if let Some(w) = d.width {
            t[d.code as usize] = (if d.in_set { w } else { 0 }, w);
        }
        i += 1;
    }
    t
};

/// Width of a dtype in the TensorStore set, else `None`.
#[inline]
pub fn set_width(code: u8) -> Option<u8> {
    match WIDTHS[code as usize].0 {
        0 => None,
        w => Some(w),
    }
}

/// Width of a dtype that has one, in the set or not.
#[inline]
pub fn any_width(code: u8) -> Option<u8> {
    match WIDTHS[code as usize].1 {
        0 => None,
        w => Some(w),
    }
}

/// The immediate cap of `mem2d_store_num_elem_check` for a dtype of `width`
/// bytes: as many immediates as fit the data field, `DATA_BYTES / width`.
#[inline]
pub const fn imm_cap(width: u8) -> usize {
    DATA_BYTES / width as usize
}

/// The widths of the dtype set and what messages call the dtypes of each
/// (a test holds the names to the rows of [`DTYPES`]).
pub static IMM_WIDTHS: &[(u8, &str)] = &[
    (1, "u8/i8"),
    (2, "u16/i16"),
    (4, "u32/i32/fp32"),
    (8, "u64"),
];

/// What messages call the dtypes of the set that are `width` bytes wide.
pub fn width_class(width: u8) -> &'static str {
    IMM_WIDTHS
        .iter()
        .find(|w| w.0 == width)
        .map_or("?", |w| w.1)
}

/// One field of the 64-byte MEM_2D instruction (`NEURON_ISA_TPB_MEM_2D_STRUCT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    /// The field's name, as `explain` and the docs print it.
    pub name: &'static str,
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// What the field holds.
    pub content: &'static str,
    /// Where the row comes from.
    pub provenance: Provenance,
}

impl FieldDef {
    /// Bytes the field spans.
    pub const fn width(&self) -> usize {
        self.end - self.start
    }
    /// The field's bit range counted from its first byte (`7:0` for a byte),
    /// as diagnostics locate a field (`byte N bits H:L`).
    pub const fn bits(&self) -> xstore_core::bits::Bits {
        xstore_core::bits::Bits::new(8 * self.width() as u32 - 1, 0)
    }
    /// [`FieldDef::bits`] as a diagnostic takes it.
    pub(crate) const fn bit_range(&self) -> Option<(u32, u32)> {
        let b = self.bits();
        Some((b.hi, b.lo))
    }
    /// `byte N` or `bytes N..M`, as `explain` prints the range.
    pub fn range(&self) -> String {
        if self.width() == 1 {
            format!("byte {}", self.start)
        } else {
            format!("bytes {}..{}", self.start, self.end)
        }
    }
    /// The field's bytes of an instruction (`N` is the field's width).
    #[inline(always)]
    pub(crate) fn get<const N: usize>(&self, b: &[u8; INST_LEN]) -> [u8; N] {
        b[self.start..self.end]
            .try_into()
            .expect("N is the field's width")
    }
    /// Write the field's bytes into an instruction.
    #[inline(always)]
    pub(crate) fn put<const N: usize>(&self, b: &mut [u8; INST_LEN], v: [u8; N]) {
        b[self.start..self.end].copy_from_slice(&v);
    }
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

/// `header.opcode`.
pub const F_OPCODE: FieldDef = fd(
    "header.opcode",
    0,
    1,
    "0xab / 0xaa / 0xcd / 0xce",
    Provenance::OBSERVED_HIGH,
);
/// `header.inst_word_len`.
pub const F_WORD_LEN: FieldDef = fd(
    "header.inst_word_len",
    1,
    2,
    "instruction length in 32-bit words; 0x10 for this format",
    Provenance::Secondary,
);
/// `header.debug_cmd`.
pub const F_DEBUG_CMD: FieldDef = fd(
    "header.debug_cmd",
    2,
    3,
    "passed through",
    Provenance::Secondary,
);
/// `header.debug_hint`.
pub const F_DEBUG_HINT: FieldDef = fd(
    "header.debug_hint",
    3,
    4,
    "passed through",
    Provenance::Secondary,
);
/// `events.wait_mode`.
pub const F_WAIT_MODE: FieldDef = fd(
    "events.wait_mode",
    4,
    5,
    "raw; known 0x05 wait sem >= imm, 0x85 >= register, 0xfe unordered",
    Provenance::Secondary,
);
/// `events.wait_idx`.
pub const F_WAIT_IDX: FieldDef = fd(
    "events.wait_idx",
    5,
    6,
    "semaphore index (256 semaphores per core on v2+)",
    Provenance::Secondary,
);
/// `events.update_mode`.
pub const F_UPDATE_MODE: FieldDef = fd(
    "events.update_mode",
    6,
    7,
    "raw; public pages disagree on the encodings, never interpreted",
    Provenance::Secondary,
);
/// `events.update_idx`.
pub const F_UPDATE_IDX: FieldDef = fd(
    "events.update_idx",
    7,
    8,
    "semaphore index",
    Provenance::Secondary,
);
/// `events.semaphore_value`.
pub const F_SEM: FieldDef = fd(
    "events.semaphore_value",
    8,
    12,
    "u32",
    Provenance::Secondary,
);
/// `dtype`.
pub const F_DTYPE: FieldDef = fd(
    "dtype",
    12,
    13,
    "element dtype (DTYPE table)",
    Provenance::OBSERVED_HIGH,
);
/// `src_datasrc`.
pub const F_DATASRC: FieldDef = fd(
    "src_datasrc",
    13,
    14,
    "0 = Register, 1 = Immediate",
    Provenance::OBSERVED_HIGH,
);
/// `num_elem[0]`.
pub const F_NUM0: FieldDef = fd(
    "num_elem[0]",
    14,
    15,
    "inner count",
    Provenance::OBSERVED_HIGH,
);
/// `num_elem[1]`.
pub const F_NUM1: FieldDef = fd(
    "num_elem[1]",
    15,
    16,
    "outer count",
    Provenance::OBSERVED_HIGH,
);
/// `start_addr` (ADDR8).
pub const F_ADDR: FieldDef = fd(
    "start_addr",
    16,
    24,
    "ADDR8: marker in byte 23 (& 0xfc); immediate form = 58-bit address",
    Provenance::Secondary,
);
/// `step_elem[0]`.
pub const F_STEP0: FieldDef = fd(
    "step_elem[0]",
    24,
    28,
    "i32 inner stride in elements",
    Provenance::OBSERVED_HIGH,
);
/// `step_elem[1]`.
pub const F_STEP1: FieldDef = fd(
    "step_elem[1]",
    28,
    32,
    "i32 outer stride in elements",
    Provenance::OBSERVED_HIGH,
);
/// `data`.
pub const F_DATA: FieldDef = fd(
    "data",
    32,
    64,
    "32 register numbers (u8), or packed immediates",
    Provenance::OBSERVED_HIGH,
);

/// The fields, in byte order.
pub static FIELDS: &[FieldDef] = &[
    F_OPCODE,
    F_WORD_LEN,
    F_DEBUG_CMD,
    F_DEBUG_HINT,
    F_WAIT_MODE,
    F_WAIT_IDX,
    F_UPDATE_MODE,
    F_UPDATE_IDX,
    F_SEM,
    F_DTYPE,
    F_DATASRC,
    F_NUM0,
    F_NUM1,
    F_ADDR,
    F_STEP0,
    F_STEP1,
    F_DATA,
];

/// `var_id` of the pseudo forms.
pub const F_VAR_ID: FieldDef = fd(
    "var_id",
    16,
    20,
    "u32 symbolic variable id",
    Provenance::OBSERVED_HIGH,
);
/// `var_offset` of the pseudo forms.
pub const F_VAR_OFFSET: FieldDef = fd(
    "var_offset",
    20,
    24,
    "u32 offset from the variable's base, in bytes (assumed unit)",
    Provenance::OBSERVED_HIGH,
);

/// The pseudo forms' replacement of bytes 16..24 (`start_addr`).
pub static PSEUDO_FIELDS: &[FieldDef] = &[F_VAR_ID, F_VAR_OFFSET];

/// Whether `fields` follow one another without gap or overlap from byte
/// `start` to byte `end`.
const fn tiles(fields: &[FieldDef], start: usize, end: usize) -> bool {
    let mut at = start;
    let mut i = 0;
    while i < fields.len() {
        if fields[i].start != at || fields[i].end <= fields[i].start {
            return false;
        }
        at = fields[i].end;
        i += 1;
    }
    at == end
}

// The fields tile the 64 bytes; the pseudo fields tile `start_addr`; the
// immediate address and the marker byte are the bytes of `start_addr`.
const _: () = {
    assert!(tiles(FIELDS, 0, INST_LEN), "FIELDS must tile the 64 bytes");
    assert!(tiles(PSEUDO_FIELDS, F_ADDR.start, F_ADDR.end));
    assert!(F_ADDR.width() == 8 && F_DATA.end == INST_LEN);
};

/// One ADDR8 marker value (public reverse-engineering pages of the family).
#[derive(Debug, Clone, Copy)]
pub struct Addr8Form {
    /// `byte23 & 0xfc`.
    pub marker: u8,
    /// Where the address comes from.
    pub address_from: &'static str,
    /// Where the shape (counts and strides) comes from.
    pub shape_from: &'static str,
    /// Where the row comes from.
    pub provenance: Provenance,
}

const fn form(marker: u8, address_from: &'static str, shape_from: &'static str) -> Addr8Form {
    Addr8Form {
        marker,
        address_from,
        shape_from,
        provenance: Provenance::Secondary,
    }
}

/// The ADDR8 forms by marker.
pub static ADDR8_FORMS: &[Addr8Form] = &[
    form(0x00, "immediate", "immediate"),
    form(0x40, "immediate", "register"),
    form(0x80, "register pair", "immediate"),
    form(0xc0, "register", "register"),
    form(0x20, "table", "immediate"),
    form(0x60, "table", "register"),
];

/// ADDR8 modifier bits of the marker byte.
pub static ADDR8_MODIFIERS: &[(u8, &str)] = &[
    (0x08, "table offset from a register"),
    (0x04, "64-bit offset"),
    (0x10, "VAR_ID (pseudo ADDR8)"),
];

/// The marker bits that select the form: the marker less the modifier bits.
const ADDR8_FORM_MASK: u8 = {
    let mut m = ADDR8_MARKER_MASK;
    let mut i = 0;
    while i < ADDR8_MODIFIERS.len() {
        m &= !ADDR8_MODIFIERS[i].0;
        i += 1;
    }
    m
};

/// Describe a marker byte (`byte23 & 0xfc`) for messages and `explain`.
pub fn describe_marker(marker: u8) -> String {
    let base = marker & ADDR8_FORM_MASK;
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

/// The SBUF window, mapped whole.
pub(crate) const SBUF: RegionDef = RegionDef {
    name: "sbuf",
    base: 0x0,
    size: 0x200_0000,
    access: Access::ReadWrite,
};
/// The PSUM window, mapped whole.
pub(crate) const PSUM: RegionDef = RegionDef {
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
#[derive(Debug, Clone, Copy)]
pub struct Decision {
    /// What the decision is about.
    pub topic: &'static str,
    /// What the model does.
    pub decision: &'static str,
    /// Where the decision comes from (`assumed` where nothing pins it).
    pub provenance: Provenance,
}

/// The decisions, in the order of the docs table.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tiling_check_sees_gaps_and_overlaps() {
        assert!(tiles(FIELDS, 0, INST_LEN));
        let gap = [F_OPCODE, F_DEBUG_CMD];
        let overlap = [F_OPCODE, F_WORD_LEN, fd("x", 1, 3, "", Provenance::Assumed)];
        let short = [F_OPCODE, F_WORD_LEN];
        assert!(!tiles(&gap, 0, 3));
        assert!(!tiles(&overlap, 0, 3));
        assert!(!tiles(&short, 0, 3));
        assert_eq!((DATA_BYTES, MAX_ELEMS, IMM_ADDR_BITS), (32, 32, 58));
        assert_eq!(ADDR8_FORM_MASK, 0xe0);
    }

    #[test]
    fn lookups_by_code_agree_with_the_rows() {
        for code in 0..=255u8 {
            assert_eq!(opcode(code), OPCODES.iter().find(|o| o.code == code));
            let d = DTYPES.iter().find(|d| d.code == code);
            assert_eq!(any_width(code), d.and_then(|d| d.width));
            assert_eq!(
                set_width(code),
                d.filter(|d| d.in_set).and_then(|d| d.width)
            );
        }
        for op in Op::ALL {
            assert_eq!(op.def().op, Some(op));
        }
    }

    /// The names messages give the dtypes of each immediate width are those
    /// dtypes, by suffix or vendor name, and every width of the set has one.
    #[test]
    fn immediate_width_names_are_the_set_dtypes() {
        let mut widths: Vec<u8> = DTYPES
            .iter()
            .filter(|d| d.in_set)
            .filter_map(|d| d.width)
            .collect();
        widths.sort();
        widths.dedup();
        assert_eq!(widths, IMM_WIDTHS.iter().map(|w| w.0).collect::<Vec<_>>());
        for &(w, names) in IMM_WIDTHS {
            let set: Vec<_> = DTYPES
                .iter()
                .filter(|d| d.in_set && d.width == Some(w))
                .collect();
            let parts: Vec<&str> = names.split('/').collect();
            assert_eq!(parts.len(), set.len(), "{names}");
            for p in parts {
                assert!(
                    set.iter()
                        .any(|d| d.suffix == p || d.name.to_lowercase() == p),
                    "{p} is not a dtype of width {w}"
                );
            }
            assert_eq!(imm_cap(w) * w as usize, DATA_BYTES);
        }
    }
}
