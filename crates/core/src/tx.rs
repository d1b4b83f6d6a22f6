//! [`Transaction`]: the writes of one instruction, staged, for
//! [`AddressSpace::commit`](crate::AddressSpace::commit) to probe whole and
//! then apply.

const NO_MASK: usize = usize::MAX;

#[derive(Debug, Clone, Copy)]
struct WriteOp {
    addr: u64,
    len: usize,
    data: usize,
    mask: usize,
    align: u64,
}

/// The writes of one instruction, in order. Reusable: [`Transaction::clear`]
/// keeps its buffers, so a steady-state executor allocates nothing.
#[derive(Debug, Default, Clone)]
pub struct Transaction {
    ops: Vec<WriteOp>,
    data: Vec<u8>,
    masks: Vec<u8>,
}

impl Transaction {
    /// An empty transaction.
    pub fn new() -> Self {
        Self::default()
    }
    /// Drop every write, keeping the buffers.
    pub fn clear(&mut self) {
        self.ops.clear();
        self.data.clear();
        self.masks.clear();
    }
    /// Whether the transaction holds no write.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    /// The number of writes.
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    /// The bytes staged over all writes.
    pub(crate) fn bytes_len(&self) -> usize {
        self.data.len()
    }

    /// Write `bytes` at `addr`.
    #[inline]
    pub fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.write_aligned(addr, bytes, 1);
    }

    /// Write `bytes` at `addr`, faulting unless `addr % align == 0` (`align` is a
    /// power of two).
    #[inline]
    pub fn write_aligned(&mut self, addr: u64, bytes: &[u8], align: u64) {
        self.push_op(addr, bytes.len(), NO_MASK, align);
        self.data.extend_from_slice(bytes);
    }

    /// Reserve `len` bytes at `addr` and return them to be filled in place.
    pub fn write_with(&mut self, addr: u64, len: usize, align: u64) -> &mut [u8] {
        self.push_op(addr, len, NO_MASK, align);
        let start = self.data.len();
        self.data.resize(start + len, 0);
        &mut self.data[start..]
    }

    /// Write the bytes whose enable is true; the others are neither probed nor touched.
    pub fn write_enabled(&mut self, addr: u64, bytes: &[u8], enables: &[bool]) {
        assert_eq!(bytes.len(), enables.len(), "one enable per byte");
        let m = self.masks.len();
        self.masks
            .extend(enables.iter().map(|&e| if e { 0xff } else { 0 }));
        self.push_op(addr, bytes.len(), m, 1);
        self.data.extend_from_slice(bytes);
    }

    /// Write under a per-byte bit mask (`0x0f`/`0xf0` for one nibble, `0xff`
    /// for the whole byte, `0` to skip it): memory becomes `old & !m | new & m`.
    pub fn write_masked(&mut self, addr: u64, bytes: &[u8], mask: &[u8]) {
        assert_eq!(bytes.len(), mask.len(), "one mask per byte");
        let m = self.masks.len();
        self.masks.extend_from_slice(mask);
        self.push_op(addr, bytes.len(), m, 1);
        self.data.extend_from_slice(bytes);
    }

    /// Write one four-bit value into the low (`high == false`) or high nibble of
    /// the byte at `addr`, keeping the sibling nibble.
    pub fn write_nibble(&mut self, addr: u64, value: u8, high: bool) {
        let (v, m) = if high {
            ((value & 0xf) << 4, 0xf0)
        } else {
            (value & 0xf, 0x0f)
        };
        self.write_masked(addr, &[v], &[m]);
    }

    #[inline]
    fn push_op(&mut self, addr: u64, len: usize, mask: usize, align: u64) {
        assert!(align.is_power_of_two(), "alignment must be a power of two");
        self.ops.push(WriteOp {
            addr,
            len,
            data: self.data.len(),
            mask,
            align,
        });
    }

    /// The writes, as (addr, bytes, optional mask, required alignment).
    pub fn ops(&self) -> impl Iterator<Item = (u64, &[u8], Option<&[u8]>, u64)> + '_ {
        self.ops.iter().map(|op| {
            let mask = (op.mask != NO_MASK).then(|| &self.masks[op.mask..op.mask + op.len]);
            (
                op.addr,
                &self.data[op.data..op.data + op.len],
                mask,
                op.align,
            )
        })
    }

    /// The writes, as (addr, bytes, optional mask).
    pub fn writes(&self) -> impl Iterator<Item = (u64, &[u8], Option<&[u8]>)> + '_ {
        self.ops().map(|(addr, data, mask, _)| (addr, data, mask))
    }
}
