//! Tile descriptors, their legality, physical layouts, and tiles (payload and
//! per-element definedness kept in step with the descriptor).

use crate::tables::{self, Rule, TileLayout, CAP_UNIT, LOCAL_CAP_MAX, ROWS_MAX, SHARED_CAP_MAX};

/// Where a tile lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// Vector tile storage (the default of row-major tiles).
    Vector,
    /// Matrix tile storage (the default of CUBE tiles; the CUBE form needs it).
    Matrix,
}

impl Location {
    /// The scenario key's value (`vector`, `matrix`).
    pub fn key(self) -> &'static str {
        match self {
            Location::Vector => "vector",
            Location::Matrix => "matrix",
        }
    }
    /// The location of a scenario key's value.
    pub fn parse(s: &str) -> Option<Location> {
        [Location::Vector, Location::Matrix]
            .into_iter()
            .find(|l| l.key() == s)
    }
}

/// The shape part of a descriptor. Any value can be written down; a [`Tile`]
/// is made only of a legal one ([`Shape::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// DataType code.
    pub dtype: u8,
    /// Layout.
    pub layout: TileLayout,
    /// Location.
    pub location: Location,
    /// Capacity in bytes.
    pub capacity: u32,
    /// Physical columns (Col).
    pub cols: u32,
    /// ValidRow.
    pub valid_rows: u32,
    /// ValidCol.
    pub valid_cols: u32,
}

/// A descriptor rule (the scenario file's `[[tile]]` / `[[shared]]` checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileRule {
    /// The data type is an element type.
    Dtype,
    /// The capacity is a nonzero multiple of 128 within the maximum.
    Capacity,
    /// A row-major Col is a nonzero power of two.
    ColPow2,
    /// Rows = capacity·8 / (Col·bits) is a whole number ≥ 1.
    RowsDivide,
    /// Rows ≤ 65535.
    RowsMax,
    /// ValidRow fits the rows.
    ValidRows,
    /// ValidCol fits the columns.
    ValidCols,
    /// The CUBE layout has a cell for the type.
    CubeDtype,
    /// A CUBE Col is ValidCol rounded up to whole cells.
    CubeCols,
    /// The CUBE cells fit the capacity.
    CubeCells,
    /// A Shared tile is row-major.
    SharedNotCube,
}

impl TileRule {
    /// The stable name, as diagnostics carry it.
    pub fn name(self) -> &'static str {
        match self {
            TileRule::Dtype => "tile_dtype",
            TileRule::Capacity => "tile_capacity",
            TileRule::ColPow2 => "tile_col_pow2",
            TileRule::RowsDivide => "tile_rows_divide",
            TileRule::RowsMax => "tile_rows_max",
            TileRule::ValidRows => "tile_valid_rows",
            TileRule::ValidCols => "tile_valid_cols",
            TileRule::CubeDtype => "tile_cube_dtype",
            TileRule::CubeCols => "tile_cube_cols",
            TileRule::CubeCells => "tile_cube_cells",
            TileRule::SharedNotCube => Rule::SharedNotCube.name(),
        }
    }
}

/// A descriptor rule that does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// The scenario key the error belongs to.
    pub key: &'static str,
    /// The rule.
    pub rule: TileRule,
    /// What is wrong.
    pub message: String,
    /// The allowed range or set.
    pub expected: String,
}

fn shape_err<T>(
    key: &'static str,
    rule: TileRule,
    message: String,
    expected: String,
) -> Result<T, ShapeError> {
    Err(ShapeError {
        key,
        rule,
        message,
        expected,
    })
}

impl Shape {
    /// Element width in bits (0 for a code that is not an element type).
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

    /// Valid elements (ValidRow × ValidCol).
    pub fn valid_elements(&self) -> usize {
        self.valid_rows as usize * self.valid_cols as usize
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
    /// columns, Rows as in [`Shape::rows`], and its cells fit the capacity.
    pub fn check(&self, cap_max: u32) -> Result<(), ShapeError> {
        if self.bits() == 0 {
            return shape_err(
                "dtype",
                TileRule::Dtype,
                "DTYPE_NONE is not an element type".into(),
                "an element data type".into(),
            );
        }
        let range = format!("a multiple of {CAP_UNIT} in {CAP_UNIT}..={cap_max}");
        if self.capacity == 0 || self.capacity % CAP_UNIT != 0 {
            return shape_err(
                "capacity",
                TileRule::Capacity,
                format!(
                    "capacity {} is not a nonzero multiple of {CAP_UNIT}",
                    self.capacity
                ),
                range,
            );
        }
        if self.capacity > cap_max {
            return shape_err(
                "capacity",
                TileRule::Capacity,
                format!("capacity {} exceeds the maximum {cap_max}", self.capacity),
                range,
            );
        }
        if self.layout.is_cube() {
            self.check_cube()
        } else {
            self.check_row_major()
        }
    }

    /// The row-major part of [`Shape::check`].
    fn check_row_major(&self) -> Result<(), ShapeError> {
        if self.cols == 0 || !self.cols.is_power_of_two() {
            return shape_err(
                "cols",
                TileRule::ColPow2,
                format!(
                    "Col {} of a row-major tile is not a nonzero power of two",
                    self.cols
                ),
                "1, 2, 4, …".into(),
            );
        }
        let num = self.capacity as u64 * 8;
        let den = self.cols as u64 * self.bits() as u64;
        if num % den != 0 || num / den == 0 {
            return shape_err(
                "cols",
                TileRule::RowsDivide,
                format!("capacity*8 = {num} is not a nonzero multiple of Col*bits = {den}"),
                "Rows = capacity*8 / (Col*bits) a whole number >= 1".into(),
            );
        }
        let rows = num / den;
        if rows > ROWS_MAX as u64 {
            return shape_err(
                "cols",
                TileRule::RowsMax,
                format!("Rows = {rows} exceeds {ROWS_MAX}"),
                format!("Rows <= {ROWS_MAX}"),
            );
        }
        if self.valid_rows as u64 > rows {
            return shape_err(
                "valid_rows",
                TileRule::ValidRows,
                format!("ValidRow {} exceeds Rows {rows}", self.valid_rows),
                format!("0..={rows}"),
            );
        }
        if self.valid_cols > self.cols {
            return shape_err(
                "valid_cols",
                TileRule::ValidCols,
                format!("ValidCol {} exceeds Col {}", self.valid_cols, self.cols),
                format!("0..={}", self.cols),
            );
        }
        Ok(())
    }

    /// The CUBE part of [`Shape::check`].
    fn check_cube(&self) -> Result<(), ShapeError> {
        let d = tables::dtype(self.dtype).expect("checked by the caller");
        let Some(c) = self.cube_cell() else {
            return shape_err(
                "layout",
                TileRule::CubeDtype,
                format!("{} has no {} geometry", d.name, self.layout.key()),
                "a CUBE layout with a 32-, 16-, 8- or 4-bit type other than HiF4X2".into(),
            );
        };
        if self.valid_rows == 0 || self.valid_cols == 0 {
            let (key, rule, what) = if self.valid_rows == 0 {
                ("valid_rows", TileRule::ValidRows, "ValidRow")
            } else {
                ("valid_cols", TileRule::ValidCols, "ValidCol")
            };
            return shape_err(
                key,
                rule,
                format!("a CUBE tile needs {what} >= 1"),
                "1..".into(),
            );
        }
        if self.layout != TileLayout::CubeN8 && self.valid_rows > c.rows {
            return shape_err(
                "valid_rows",
                TileRule::ValidRows,
                format!(
                    "ValidRow {} exceeds the {} rows of one {} cell",
                    self.valid_rows,
                    c.rows,
                    self.layout.key()
                ),
                format!("1..={}", c.rows),
            );
        }
        self.check_cube_storage(c)
    }

    /// A CUBE tile's storage: Col, and the cells against the capacity.
    fn check_cube_storage(&self, c: &tables::CubeCell) -> Result<(), ShapeError> {
        let cols = self.valid_cols.div_ceil(c.cols) * c.cols;
        let rows = self.rows();
        if cols > ROWS_MAX || rows > ROWS_MAX {
            return shape_err(
                "valid_cols",
                TileRule::CubeCells,
                format!("{rows} × {cols} storage exceeds {ROWS_MAX} in a dimension"),
                format!("storage rows and columns <= {ROWS_MAX}"),
            );
        }
        if self.cols != cols {
            return shape_err(
                "cols",
                TileRule::CubeCols,
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
        let cells = (rows / c.rows) as u64 * (cols / c.cols) as u64;
        let need = cells * c.bytes();
        if need > self.capacity as u64 {
            return shape_err(
                "capacity",
                TileRule::CubeCells,
                format!(
                    "{rows} × {cols} storage needs {cells} cells = {need} bytes, more than the capacity {}",
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

/// A tile: a legal descriptor, its physical payload (`capacity` bytes in the
/// tile's layout) and the definedness of each valid element. The fields are
/// private so the three always agree; Shared tiles also carry whether they
/// are published (whole-parent-ready).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    shape: Shape,
    payload: Vec<u8>,
    /// Definedness of the valid elements, row-major over ValidRow × ValidCol;
    /// empty exactly when every one is defined (`undefined_count == 0`), so a
    /// whole tile costs nothing here and equal states compare equal.
    defined: Vec<bool>,
    undefined_count: usize,
    published: bool,
}

impl Tile {
    /// A Local tile (capacity up to 64 KiB) whose valid elements are all
    /// defined and zero, or the descriptor rule it breaks.
    pub fn local(shape: Shape) -> Result<Tile, ShapeError> {
        shape.check(LOCAL_CAP_MAX)?;
        Ok(Tile::zeroed(shape))
    }

    /// A Shared tile (row-major, capacity up to 256 KiB), published, its
    /// valid elements defined and zero, or the descriptor rule it breaks.
    pub fn shared(shape: Shape) -> Result<Tile, ShapeError> {
        if shape.layout.is_cube() {
            return shape_err(
                "layout",
                TileRule::SharedNotCube,
                "a Shared tile never has a CUBE layout".into(),
                TileLayout::RowMajor.key().into(),
            );
        }
        shape.check(SHARED_CAP_MAX)?;
        Ok(Tile::zeroed(shape))
    }

    /// A Local tile of a checked `shape` whose payload starts with `bytes`
    /// (at most the capacity; the rest is zero), every valid element defined.
    pub(crate) fn local_from(shape: Shape, mut bytes: Vec<u8>) -> Tile {
        debug_assert!(shape.check(LOCAL_CAP_MAX).is_ok() && bytes.len() <= shape.capacity as usize);
        bytes.resize(shape.capacity as usize, 0);
        Tile {
            payload: bytes,
            defined: Vec::new(),
            undefined_count: 0,
            published: true,
            shape,
        }
    }

    fn zeroed(shape: Shape) -> Tile {
        Tile {
            payload: vec![0; shape.capacity as usize],
            defined: Vec::new(),
            undefined_count: 0,
            published: true,
            shape,
        }
    }

    /// The descriptor.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The physical bytes, `capacity` of them, in the tile's layout.
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The physical bytes, to fill in place (their number is fixed).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.payload
    }

    /// Element (r, c), raw bits (r, c in the storage shape).
    pub fn get(&self, r: u32, c: u32) -> u64 {
        let i = self.shape.phys(r, c);
        read_elem(&self.payload, i, self.shape.bits())
    }

    /// Set element (r, c) to the low element-size bits of `v`.
    pub fn set(&mut self, r: u32, c: u32, v: u64) {
        let i = self.shape.phys(r, c);
        write_elem(&mut self.payload, i, self.shape.bits(), v);
    }

    /// Whether valid element (r, c) is defined (elements outside the valid
    /// region count as defined: no store reads them).
    pub fn is_defined(&self, r: u32, c: u32) -> bool {
        self.undefined_count == 0
            || (r >= self.shape.valid_rows || c >= self.shape.valid_cols)
            || self.defined[r as usize * self.shape.valid_cols as usize + c as usize]
    }

    /// Whether any valid element is undefined.
    pub fn has_undefined(&self) -> bool {
        self.undefined_count > 0
    }

    /// Mark the `idx`-th valid element (row-major) undefined; false when there
    /// is no such element.
    pub fn set_undefined(&mut self, idx: usize) -> bool {
        let n = self.shape.valid_elements();
        if idx < n && self.defined.is_empty() {
            self.defined = vec![true; n];
        }
        match self.defined.get_mut(idx) {
            Some(d) => {
                if *d {
                    *d = false;
                    self.undefined_count += 1;
                }
                true
            }
            None => false,
        }
    }

    /// Mark every valid element undefined (a Shared tile before its first load).
    pub(crate) fn set_all_undefined(&mut self) {
        let n = self.shape.valid_elements();
        self.defined = vec![false; n];
        self.undefined_count = n;
    }

    /// Mark the `idx`-th valid element (row-major) defined.
    pub(crate) fn set_defined(&mut self, idx: usize) {
        if let Some(d) = self.defined.get_mut(idx) {
            if !*d {
                *d = true;
                self.undefined_count -= 1;
                if self.undefined_count == 0 {
                    self.defined = Vec::new();
                }
            }
        }
    }

    /// Whether a Shared tile is published and whole-parent-ready (always true
    /// for a Local tile).
    pub fn published(&self) -> bool {
        self.published
    }

    /// Publish (or withdraw) a Shared tile; a block reading an unpublished
    /// Shared tile is pending.
    pub fn set_published(&mut self, published: bool) {
        self.published = published;
    }
}

/// Element `i` of a payload of `bits`-bit elements.
pub(crate) fn read_elem(buf: &[u8], i: usize, bits: u32) -> u64 {
    if bits == 4 {
        let b = buf[i / 2];
        return if i % 2 == 0 { b & 0xf } else { b >> 4 } as u64;
    }
    let n = (bits / 8) as usize;
    let mut x = [0u8; 8];
    x[..n].copy_from_slice(&buf[i * n..i * n + n]);
    u64::from_le_bytes(x)
}

/// Write element `i` of a payload of `bits`-bit elements.
pub(crate) fn write_elem(buf: &mut [u8], i: usize, bits: u32, v: u64) {
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
