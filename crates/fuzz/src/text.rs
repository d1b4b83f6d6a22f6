//! The decoders, the assemblers and the scenario loader on arbitrary input.

use xstore_core::hex;
use xstore_core::isa::{build_memory, run_scenario, Isa};
use xstore_core::scenario::Scenario;

/// Allocation cap for scenarios run by the targets: enough for every example,
/// small enough that a runaway program ends quickly.
pub(crate) const CAP: u64 = 16 << 20;

/// Bytes into the decoder, `validate` and `explain`. When the bytes decode,
/// assembling the disassembly gives the bytes back (decode∘encode is the
/// identity).
pub fn decode(isa: &dyn Isa, data: &[u8]) {
    let _ = isa.validate(data);
    let _ = isa.explain(&hex::encode(&data[..data.len().min(80)]));
    let Ok(lines) = isa.disasm(data) else {
        return;
    };
    let text = lines.join("\n");
    let back = isa.asm(&text).unwrap_or_else(|d| {
        panic!(
            "{}: disasm output does not assemble: {d}\n{text}",
            isa.name()
        )
    });
    assert_eq!(
        back.concat(),
        data,
        "{}: assembling the disassembly does not give the bytes back:\n{text}",
        isa.name()
    );
}

/// Text into the assembler. When it assembles, the bytes disassemble, and
/// assembling that text gives the same bytes (asm∘disasm∘asm = asm).
pub fn assemble(isa: &dyn Isa, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(lines) = isa.asm(&text) else {
        return;
    };
    let bytes = lines.concat();
    if bytes.is_empty() {
        return;
    }
    let printed = isa
        .disasm(&bytes)
        .unwrap_or_else(|d| panic!("{}: assembled bytes do not disassemble: {d}", isa.name()));
    let again = isa
        .asm(&printed.join("\n"))
        .unwrap_or_else(|d| panic!("{}: canonical text does not assemble: {d}", isa.name()));
    assert_eq!(
        again.concat(),
        bytes,
        "{}: asm(disasm(asm(text))) differs from asm(text)",
        isa.name()
    );
}

/// Parse `text` as a scenario file the way `xstore run` does.
pub fn load(text: &str) -> Option<(Scenario, &'static dyn Isa)> {
    xstore_core::isa::load_scenario(crate::isas(), text, "fuzz.toml").ok()
}

/// Text into the scenario loader; a scenario that loads is run and linted.
pub fn scenario(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Some((sc, isa)) = load(&text) else {
        return;
    };
    let _ = run_scenario(isa, &sc, CAP);
    if let Ok(mem) = build_memory(isa, &sc, CAP) {
        let _ = isa.lint(&sc, &mem);
    }
}
