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

    /// Rows: capacity*8 / (Col * bits) for a row-major tile; for a CUBE tile the storage
    /// rows (CUBE_N8: ValidRow rounded up to the cell rows; CUBE_M32/M16: the cell rows).
    pub fn rows(&self) -> u32 {
        if let Some(c) = self.cube_cell() {
            return if self.layout == TileLayout::CubeN8 {
                self.valid_rows.max(1).div_ceil(c.rows) * c.rows
            } else {
                c.rows
            };
        }
        let b = self.bits().max(1) as u64;
        ((self.capacity as u64 * 8) / (self.cols.max(1) as u64 * b)) as u32
    }

    fn cube_cell(&self) -> Option<&'static tables::CubeCell> {
        if !self.layout.is_cube() {
            return None;
        }
        tables::dtype(self.dtype)
            .filter(|d| d.cube)
            .and_then(|_| tables::cube_cell(self.layout, self.bits()))
    }

    /// Legality of a descriptor. `cap_max` is 64 KiB for Local, 256 KiB for Shared.
    ///
    /// A row-major tile has a nonzero power-of-two Col and Rows = capacity*8 / (Col*bits)
    /// (pto-spec, asl/tile/model/shape/rows-columns.asl). A CUBE tile's storage comes from its
    /// valid shape (asl/tile/model/shape/cube-cell.asl): Col = ValidCol rounded up to the cell
    /// columns, Rows as in [`Shape::rows`], and its cells (128 bytes each) fit the capacity.
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
        let range = format!("a multiple of 128 in 128..={cap_max}");
        if self.capacity == 0 || self.capacity % tables::CAP_UNIT != 0 {
            return e(
                "capacity",
                "tile_capacity",
                format!(
                    "capacity {} is not a nonzero multiple of 128",
                    self.capacity
                ),
                range,
            );
        }
        if self.capacity > cap_max {
            return e(
                "capacity",
                "tile_capacity",
                format!("capacity {} exceeds the maximum {cap_max}", self.capacity),
                range,
            );
        }
        if self.layout.is_cube() {
            return self.check_cube();
        }
        if self.cols == 0 || !self.cols.is_power_of_two() {
            return e(
                "cols",
                "tile_col_pow2",
                format!(
                    "Col {} of a row-major tile is not a nonzero power of two",
                    self.cols
                ),
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
        Ok(())
    }

    /// The CUBE part of [`Shape::check`].
    fn check_cube(&self) -> Result<(), ShapeError> {
        let e = |key, rule, message: String, expected: String| {
            Err(ShapeError {
                key,
                rule,
                message,
                expected,
            })
        };
        let d = tables::dtype(self.dtype).expect("checked by the caller");
        let Some(c) = self.cube_cell() else {
            return e(
                "layout",
                "tile_cube_dtype",
                format!("{} has no {} geometry", d.name, self.layout.key()),
                "a CUBE layout with a 32-, 16-, 8- or 4-bit type other than HiF4X2".into(),
            );
        };
        if self.valid_rows == 0 {
            return e(
                "valid_rows",
                "tile_valid_rows",
                "a CUBE tile needs ValidRow >= 1".into(),
                "1..".into(),
            );
        }
        if self.valid_cols == 0 {
            return e(
                "valid_cols",
                "tile_valid_cols",
                "a CUBE tile needs ValidCol >= 1".into(),
                "1..".into(),
            );
        }
        if self.layout != TileLayout::CubeN8 && self.valid_rows > c.rows {
            return e(
                "valid_rows",
                "tile_valid_rows",
                format!(
                    "ValidRow {} exceeds the {} rows of one {} cell",
                    self.valid_rows,
                    c.rows,
                    self.layout.key()
                ),
                format!("1..={}", c.rows),
            );
        }
        let cols = self.valid_cols.div_ceil(c.cols) * c.cols;
        let rows = self.rows();
        if cols > tables::ROWS_MAX || rows > tables::ROWS_MAX {
            return e(
                "valid_cols",
                "tile_cube_cells",
                format!("{rows} × {cols} storage exceeds 65535 in a dimension"),
                "storage rows and columns <= 65535".into(),
            );
        }
        if self.cols != cols {
            return e(
                "cols",
                "tile_cube_cols",
                format!(
                    "Col {} of a {} tile with ValidCol {} must be {cols} (ValidCol rounded up to the cell's {} columns)",
                    self.cols,
                    self.layout.key(),
                    self.valid_cols,
                    c.cols
                ),
                cols.to_string(),
            );
        }
        let need = (rows / c.rows) as u64 * (cols / c.cols) as u64 * tables::CUBE_CELL_BYTES as u64;
        if need > self.capacity as u64 {
            return e(
                "capacity",
                "tile_cube_cells",
                format!(
                    "{rows} × {cols} storage needs {} cells = {need} bytes, more than the capacity {}",
                    need / tables::CUBE_CELL_BYTES as u64,
                    self.capacity
                ),
                format!("capacity >= {need}"),
            );
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
