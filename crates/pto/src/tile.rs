//! Tile descriptors, their legality (pto.md §3), physical layouts and the
//! machine state (4 PEs × 24 GPRs × 64 Local tiles, Shared tiles S0..S63).

use crate::tables::{self, TileLayout, GPR_COUNT, LOCAL_TILES, NUM_PES, SHARED_TILES};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Vector,
    Matrix,
}

impl Location {
    pub fn parse(s: &str) -> Option<Location> {
        match s {
            "vector" => Some(Location::Vector),
            "matrix" => Some(Location::Matrix),
            _ => None,
        }
    }
}

/// The shape part of a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub dtype: u8,
    pub layout: TileLayout,
    pub location: Location,
    pub capacity: u32,
    pub cols: u32,
    pub valid_rows: u32,
    pub valid_cols: u32,
}

/// A descriptor rule that does not hold, with the rule's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// Which key the error belongs to.
    pub key: &'static str,
    pub rule: &'static str,
    pub message: String,
    pub expected: String,
}

impl Shape {
    pub fn bits(&self) -> u32 {
        tables::dtype(self.dtype).map(|d| d.bits).unwrap_or(0)
    }

    /// Rows = capacity*8 / (Col * bits).
    pub fn rows(&self) -> u32 {
        let b = self.bits().max(1) as u64;
        ((self.capacity as u64 * 8) / (self.cols.max(1) as u64 * b)) as u32
    }

    /// Legality of pto.md §3. `cap_max` is 64 KiB for Local, 256 KiB for Shared.
    pub fn check(&self, cap_max: u32) -> Result<(), ShapeError> {
        let e = |key, rule, message: String, expected: String| {
            Err(ShapeError {
                key,
                rule,
                message,
                expected,
            })
        };
        let bits = self.bits();
        if bits == 0 {
            return e(
                "dtype",
                "tile_dtype",
                "DTYPE_NONE is not an element type".into(),
                "a data type of pto.md §2".into(),
            );
        }
        if self.capacity == 0 || self.capacity % tables::CAP_UNIT != 0 || self.capacity > cap_max {
            return e(
                "capacity",
                "tile_capacity",
                format!(
                    "capacity {} is not a multiple of 128 in 128..={cap_max}",
                    self.capacity
                ),
                format!("a multiple of 128 in 128..={cap_max}"),
            );
        }
        if self.cols == 0 || !self.cols.is_power_of_two() {
            return e(
                "cols",
                "tile_col_pow2",
                format!("Col {} is not a nonzero power of two", self.cols),
                "1, 2, 4, …".into(),
            );
        }
        let num = self.capacity as u64 * 8;
        let den = self.cols as u64 * bits as u64;
        if num % den != 0 || num / den == 0 {
            return e(
                "cols",
                "tile_rows_divide",
                format!("capacity*8 = {num} is not a nonzero multiple of Col*bits = {den}"),
                "Rows = capacity*8 / (Col*bits) a whole number >= 1".into(),
            );
        }
        let rows = num / den;
        if rows > tables::ROWS_MAX as u64 {
            return e(
                "cols",
                "tile_rows_max",
                format!("Rows = {rows} exceeds 65535"),
                "Rows <= 65535".into(),
            );
        }
        if self.valid_rows as u64 > rows {
            return e(
                "valid_rows",
                "tile_valid_rows",
                format!("ValidRow {} exceeds Rows {rows}", self.valid_rows),
                format!("0..={rows}"),
            );
        }
        if self.valid_cols > self.cols {
            return e(
                "valid_cols",
                "tile_valid_cols",
                format!("ValidCol {} exceeds Col {}", self.valid_cols, self.cols),
                format!("0..={}", self.cols),
            );
        }
        if self.layout.is_cube() {
            let d = tables::dtype(self.dtype).expect("checked above");
            let Some(c) = tables::cube_cell(self.layout, bits).filter(|_| d.cube) else {
                return e(
                    "layout",
                    "tile_cube_dtype",
                    format!("{} has no {} geometry", d.name, self.layout.key()),
                    "a CUBE layout with a 32-, 16-, 8- or 4-bit type other than HiF4X2".into(),
                );
            };
            if self.cols % c.cols != 0 || rows % c.rows as u64 != 0 {
                return e(
                    "cols",
                    "tile_cube_cells",
                    format!(
                        "{} × {} is not a whole number of {}×{} cells",
                        rows, self.cols, c.rows, c.cols
                    ),
                    format!(
                        "Col a multiple of {}, Rows a multiple of {}",
                        c.cols, c.rows
                    ),
                );
            }
        }
        Ok(())
    }

    /// Physical element index of (r, c) in the payload.
    pub fn phys(&self, r: u32, c: u32) -> usize {
        let cols = self.cols as usize;
        let (r, c) = (r as usize, c as usize);
        match self.layout {
            TileLayout::RowMajor => r * cols + c,
            l => {
                let cell = tables::cube_cell(l, self.bits()).expect("legal CUBE tile");
                let (cr, cc) = (cell.rows as usize, cell.cols as usize);
                let per = cr * cc;
                if l == TileLayout::CubeN8 {
                    let k_rep = self.rows() as usize / cr;
                    let idx = (c / cc) * k_rep + r / cr;
                    idx * per + (c % cc) * cr + r % cr
                } else {
                    let mut pc = c % cc;
                    if l == TileLayout::CubeM16 && cell.bits == 4 {
                        pc = tables::m16_b4_slot(pc as u32) as usize;
                    }
                    let idx = (r / cr) * (cols / cc) + c / cc;
                    idx * per + (r % cr) * cc + pc
                }
            }
        }
    }
}

/// A tile: descriptor, physical payload, per-element definedness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    pub shape: Shape,
    /// `capacity` bytes in the physical layout.
    pub payload: Vec<u8>,
    /// Definedness of the valid elements, row-major over ValidRow × ValidCol.
    pub defined: Vec<bool>,
    pub undefined_count: usize,
    /// Shared tiles only: published and whole-parent-ready.
    pub published: bool,
}

impl Tile {
    /// A tile whose valid elements are all defined and zero.
    pub fn new(shape: Shape) -> Tile {
        let n = shape.valid_rows as usize * shape.valid_cols as usize;
        Tile {
            payload: vec![0; shape.capacity as usize],
            defined: vec![true; n],
            undefined_count: 0,
            published: true,
            shape,
        }
    }

    pub fn get(&self, r: u32, c: u32) -> u64 {
        let i = self.shape.phys(r, c);
        read_elem(&self.payload, i, self.shape.bits())
    }

    pub fn set(&mut self, r: u32, c: u32, v: u64) {
        let i = self.shape.phys(r, c);
        write_elem(&mut self.payload, i, self.shape.bits(), v);
    }

    pub fn is_defined(&self, r: u32, c: u32) -> bool {
        self.undefined_count == 0
            || self
                .defined
                .get(r as usize * self.shape.valid_cols as usize + c as usize)
                .copied()
                .unwrap_or(true)
    }

    pub fn set_undefined(&mut self, idx: usize) {
        if self.defined[idx] {
            self.defined[idx] = false;
            self.undefined_count += 1;
        }
    }
}

pub fn read_elem(buf: &[u8], i: usize, bits: u32) -> u64 {
    if bits == 4 {
        let b = buf[i / 2];
        return if i % 2 == 0 { b & 0xf } else { b >> 4 } as u64;
    }
    let n = (bits / 8) as usize;
    let mut x = [0u8; 8];
    x[..n].copy_from_slice(&buf[i * n..i * n + n]);
    u64::from_le_bytes(x)
}

pub fn write_elem(buf: &mut [u8], i: usize, bits: u32, v: u64) {
    if bits == 4 {
        let b = &mut buf[i / 2];
        let v = (v & 0xf) as u8;
        *b = if i % 2 == 0 {
            (*b & 0xf0) | v
        } else {
            (*b & 0x0f) | (v << 4)
        };
        return;
    }
    let n = (bits / 8) as usize;
    buf[i * n..i * n + n].copy_from_slice(&v.to_le_bytes()[..n]);
}

/// The whole machine state TSTORE reads.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    pub gpr: [[u64; GPR_COUNT]; NUM_PES],
    /// `local[pe * 64 + code]`.
    pub local: Vec<Option<Tile>>,
    pub shared: Vec<Option<Tile>>,
}

impl Machine {
    pub fn new() -> Machine {
        Machine {
            gpr: [[0; GPR_COUNT]; NUM_PES],
            local: vec![None; NUM_PES * LOCAL_TILES],
            shared: vec![None; SHARED_TILES],
        }
    }
    pub fn local(&self, pe: usize, code: u8) -> Option<&Tile> {
        self.local[pe * LOCAL_TILES + code as usize].as_ref()
    }
    pub fn local_mut(&mut self, pe: usize, code: u8) -> &mut Option<Tile> {
        &mut self.local[pe * LOCAL_TILES + code as usize]
    }
    /// GPR read; selector 0 reads zero.
    pub fn reg(&self, pe: usize, sel: u8) -> u64 {
        if sel == 0 {
            0
        } else {
            self.gpr[pe][sel as usize]
        }
    }
}
