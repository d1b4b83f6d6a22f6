//! Scenarios the command-line tests share.

/// A PTO scenario of `blocks` blocks, each storing four 64 KiB tiles row by
/// row (stride 128): 256 KiB of writes in 4,096 rows per block, into at most
/// 8 MiB of memory (the base registers repeat every 16 blocks).
pub fn pto_rows(blocks: usize) -> String {
    let regs = [
        "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s1", "s2", "s3", "s4", "s5", "s6", "s7",
        "s8",
    ];
    let mut s = String::from("isa = \"pto\"\nprogram = \"\"\"\n");
    for b in 0..blocks {
        s.push_str(&format!(
            "BSTART.TSTORE U8; B.DIM LB0, 64; B.DIM LB1, 1024; B.DIM LB2, 64; B.IOR {}, s0; \
             B.IOT T1, mask=1111, last; BSTOP\n",
            regs[b % 16]
        ));
    }
    s.push_str("\"\"\"\n[[memory]]\nbase = 0\nsize = 0x2000000\n[regs]\n");
    for pe in 0..4u64 {
        s.push_str(&format!("\"pe{pe}.s0\" = 128\n"));
        for (k, r) in regs.iter().enumerate() {
            s.push_str(&format!(
                "\"pe{pe}.{r}\" = {:#x}\n",
                pe * 0x80_0000 + k as u64 * 0x2_0000
            ));
        }
    }
    for pe in 0..4 {
        s.push_str(&format!(
            "[[tile]]\npe = {pe}\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 65536\ncols = 64\n\
             valid_rows = 1024\nvalid_cols = 64\n"
        ));
    }
    s
}
