//! What the command-line tests share: scenarios and a scratch directory.

/// Run the built `xstore` with `args` from the repository root, stdin closed.
#[allow(dead_code)]
pub fn xstore(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_xstore"))
        .args(args)
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the binary runs")
}

/// A scratch directory of this test process, removed on drop.
#[allow(dead_code)] // not every test binary uses one
pub struct Scratch(pub std::path::PathBuf);

#[allow(dead_code)]
impl Scratch {
    /// A new directory under the system's temporary one, named by `tag`.
    pub fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("xstore-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    /// Write `text` to the file `name` in it; its path.
    pub fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A PTO scenario of `blocks` blocks, each storing four 64 KiB tiles row by
/// row (stride 128): 256 KiB of writes in 4,096 rows per block, into at most
/// 8 MiB of memory (the base registers repeat every 16 blocks).
#[allow(dead_code)] // not every test binary builds PTO rows
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
