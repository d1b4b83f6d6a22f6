//! Byte helpers for executors' hot paths.

/// Copy `src` into `dst` (equal lengths). Up to 64 bytes the copy is two
/// fixed-size, possibly overlapping moves picked by the length's size class,
/// inlined at the call site; a library call for a short variable-length copy
/// costs more than the copy. Longer copies use `copy_from_slice`.
#[inline(always)]
pub fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    let dst = &mut dst[..n];
    match n {
        0 => {}
        1 => dst[0] = src[0],
        2..=3 => {
            dst[..2].copy_from_slice(&src[..2]);
            dst[n - 2..].copy_from_slice(&src[n - 2..]);
        }
        4..=7 => {
            dst[..4].copy_from_slice(&src[..4]);
            dst[n - 4..].copy_from_slice(&src[n - 4..]);
        }
        8..=15 => {
            dst[..8].copy_from_slice(&src[..8]);
            dst[n - 8..].copy_from_slice(&src[n - 8..]);
        }
        16..=31 => {
            dst[..16].copy_from_slice(&src[..16]);
            dst[n - 16..].copy_from_slice(&src[n - 16..]);
        }
        32..=64 => {
            dst[..32].copy_from_slice(&src[..32]);
            dst[n - 32..].copy_from_slice(&src[n - 32..]);
        }
        _ => dst.copy_from_slice(src),
    }
}

#[cfg(test)]
mod tests {
    use super::copy_short;

    #[test]
    fn copy_short_equals_copy_from_slice_for_every_length_and_offset() {
        let src: Vec<u8> = (0..200u32).map(|i| (i * 7 + 1) as u8).collect();
        for n in 0..=150 {
            for at in [0usize, 1, 3, 17] {
                let mut a = vec![0xeeu8; 200];
                let mut b = a.clone();
                copy_short(&mut a[at..at + n + 5], &src[at..at + n]);
                b[at..at + n].copy_from_slice(&src[at..at + n]);
                assert_eq!(a, b, "n = {n}, at = {at}");
            }
        }
    }

    #[test]
    #[should_panic]
    fn copy_short_rejects_a_short_destination() {
        copy_short(&mut [0u8; 3], &[1, 2, 3, 4]);
    }
}
