//! Byte helpers for executors' hot paths.

/// Copy `src` into `dst` (`dst` at least as long; its first `src.len()` bytes
/// are written). Up to 64 bytes the copy is two fixed-size, possibly
/// overlapping moves chosen by the length's size class through a two-level
/// test, inlined at the call site: a library call for a short variable-length
/// copy costs more than the copy. Longer copies use `copy_from_slice`.
#[inline(always)]
pub fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    let dst = &mut dst[..n];
    if n > 64 {
        dst.copy_from_slice(src);
    } else if n >= 16 {
        if n >= 32 {
            ends::<32>(dst, src);
        } else {
            ends::<16>(dst, src);
        }
    } else if n >= 4 {
        if n >= 8 {
            ends::<8>(dst, src);
        } else {
            ends::<4>(dst, src);
        }
    } else if n >= 2 {
        ends::<2>(dst, src);
    } else if n == 1 {
        dst[0] = src[0];
    }
}

/// The first and the last `K` bytes of `src` (`K <= len <= 2K`) into `dst`:
/// together they cover every byte.
#[inline(always)]
fn ends<const K: usize>(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    dst[..K].copy_from_slice(&src[..K]);
    dst[n - K..].copy_from_slice(&src[n - K..]);
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
