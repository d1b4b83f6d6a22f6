//! Traces, memory maps and reports of scenario runs: every bundled example
//! renders, a trace's per-instruction writes are the run's writes, faults
//! and pending bytes are marked, and huge runs stay bounded.

use std::path::{Path, PathBuf};
use xstore_core::isa::{run_scenario, Isa};
use xstore_core::mem::DEFAULT_CAP;
use xstore_core::scenario::{Outcome, Scenario};
use xstore_viz::map::MAX_ROWS;
use xstore_viz::trace::{MAX_KEPT_BYTES, MAX_STEPS};
use xstore_viz::{memory_map_svg, report_html, trace, Trace, UnitStatus};

fn isas() -> [&'static dyn Isa; 3] {
    [xstore_neuron::isa(), xstore_pto::isa(), xstore_q7::isa()]
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn parse(text: &str, file: &str) -> (Scenario, &'static dyn Isa) {
    let names: Vec<&str> = isas().iter().map(|i| i.name()).collect();
    let sc = Scenario::parse(text, file, &names, &|n| {
        isas()
            .into_iter()
            .find(|i| i.name() == n)
            .map(|i| i.scenario_keys())
    })
    .unwrap_or_else(|d| panic!("{d}"));
    let isa = isas().into_iter().find(|i| i.name() == sc.isa).unwrap();
    (sc, isa)
}

fn load(rel: &str) -> (Scenario, &'static dyn Isa) {
    let text = std::fs::read_to_string(root().join(rel)).unwrap();
    parse(&text, rel)
}

/// The bundled examples of every ISA (its registry list; `xstore demo`'s
/// test checks that it is every scenario file in examples/<isa>), relative
/// to the root.
fn examples() -> Vec<String> {
    let mut rel: Vec<String> = isas()
        .into_iter()
        .flat_map(|i| i.examples())
        .map(|e| e.path.to_string())
        .collect();
    rel.sort();
    rel
}

/// The URLs a page or an SVG names: only the SVG namespace is allowed.
fn assert_self_contained(doc: &str) {
    let rest = doc.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(
        !rest.contains("http://") && !rest.contains("https://"),
        "a URL"
    );
    for bad in ["<script", "src=", "href=", "@import", "url("] {
        assert!(!rest.contains(bad), "{bad}");
    }
}

/// `class="cell …"` cells of a map by their kind.
fn count(svg: &str, class: &str) -> usize {
    svg.matches(&format!("class=\"cell {class}")).count()
}

#[test]
fn every_example_renders_a_report_whose_writes_are_the_runs() {
    let all = examples();
    assert!(all.len() >= 30, "{all:?}");
    let mut by_outcome = [0usize; 3];
    for rel in &all {
        let (sc, isa) = load(rel);
        let t = trace(isa, &sc, DEFAULT_CAP).unwrap_or_else(|d| panic!("{rel}: {d}"));
        let r = run_scenario(isa, &sc, DEFAULT_CAP).unwrap();
        // The same run: outcome, fault, count, warnings, final registers.
        assert_eq!(t.outcome, r.exec.outcome, "{rel}");
        assert_eq!(t.fault, r.exec.fault, "{rel}");
        assert_eq!(t.executed, r.exec.executed, "{rel}");
        assert_eq!(t.warnings, r.exec.warnings, "{rel}");
        assert_eq!(t.expect_failures, r.expect_failures, "{rel}");
        // Per-instruction writes, in order, are the run's writes.
        let flat: Vec<_> = t.all_writes().map(|(_, w)| w.clone()).collect();
        assert_eq!(flat, r.writes, "{rel}");
        assert!(!t.truncated());
        // Each register the run changed was last changed to its final value.
        for reg in r.exec.regs.iter().filter(|x| x.changed) {
            let last = t
                .steps
                .iter()
                .rev()
                .find_map(|s| s.regs.iter().find(|x| x.name == reg.name))
                .unwrap_or_else(|| panic!("{rel}: {} changed by no step", reg.name));
            assert_eq!(last.value, reg.value, "{rel}: {}", reg.name);
        }
        // Statuses: the completed ones, then the stopping one, then not run.
        let done = t
            .steps
            .iter()
            .filter(|s| s.status == UnitStatus::Done)
            .count();
        assert_eq!(done, t.executed, "{rel}");
        let stopped = t
            .steps
            .iter()
            .filter(|s| matches!(s.status, UnitStatus::Fault | UnitStatus::Pending))
            .count();
        assert_eq!(stopped, usize::from(t.outcome != Outcome::Ok), "{rel}");
        by_outcome[t.outcome as usize] += 1;
        // The page and the map.
        let html = report_html(&t);
        assert_self_contained(&html);
        assert!(html.starts_with("<!DOCTYPE html>") && html.contains("id=\"legend\""));
        let svg = memory_map_svg(&t, None);
        assert_self_contained(&svg);
        roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{rel}: {e}"));
        // One written cell per distinct byte written (none marked otherwise).
        let mut bytes = std::collections::BTreeSet::new();
        for w in &r.writes {
            for i in 0..w.hex.len() as u64 / 2 {
                bytes.insert(w.addr + i);
            }
        }
        let marked = count(&svg, "fault") + count(&svg, "pending");
        assert!(count(&svg, "w") + marked >= bytes.len(), "{rel}");
        assert!(count(&svg, "w") <= bytes.len(), "{rel}");
        for (i, s) in t.steps.iter().enumerate() {
            assert_eq!(s.index, i);
            let _ = memory_map_svg(&t, Some(i));
        }
    }
    // The examples reach every outcome.
    assert!(by_outcome.iter().all(|&n| n > 0), "{by_outcome:?}");
}

fn cells_of<'a>(doc: &'a roxmltree::Document<'a>, class: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.attribute("class") == Some(class))
        .collect()
}

fn row_addr(n: &roxmltree::Node) -> u64 {
    let row = n.parent().unwrap();
    let a = row.attribute("data-addr").unwrap();
    u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap()
}

/// The address of a cell: its row's address and its place among the row's cells.
fn cell_addr(n: &roxmltree::Node) -> u64 {
    // `prev_siblings` starts at the node itself.
    let k = n
        .prev_siblings()
        .skip(1)
        .filter(|s| s.has_tag_name("rect"))
        .count();
    row_addr(n) + k as u64
}

#[test]
fn a_fault_is_marked_at_its_address_and_its_instruction_writes_nothing() {
    for (rel, addr, index) in [
        ("examples/pto/fault_page.toml", 0x1000u64, 0usize),
        ("examples/q7/unmapped_fault.toml", 0x10100, 1),
        ("examples/neuron/fault_unmapped.toml", 0, usize::MAX),
    ] {
        let (sc, isa) = load(rel);
        let t = trace(isa, &sc, DEFAULT_CAP).unwrap();
        assert_eq!(t.outcome, Outcome::Fault, "{rel}");
        let f = t.fault.as_ref().unwrap();
        // 0 and MAX: the address and instruction the fault report names.
        let index = if index == usize::MAX {
            f.instruction.unwrap()
        } else {
            index
        };
        assert_eq!(f.instruction, Some(index), "{rel}");
        let addr = if addr == 0 { f.address.unwrap() } else { addr };
        assert_eq!(f.address, Some(addr));
        let s = &t.steps[index];
        assert_eq!(s.status, UnitStatus::Fault, "{rel}");
        assert!(s.writes.is_empty(), "{rel}");
        assert!(t.steps[index + 1..]
            .iter()
            .all(|s| s.status == UnitStatus::NotRun));
        let svg = memory_map_svg(&t, None);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let fault = cells_of(&doc, "cell fault");
        assert_eq!(fault.len(), 1, "{rel}");
        assert_eq!(cell_addr(&fault[0]), addr, "{rel}");
        // Before the faulting instruction, no fault is drawn.
        if index > 0 {
            assert_eq!(count(&memory_map_svg(&t, Some(index - 1)), "fault"), 0);
        }
        assert!(report_html(&t).contains("fault: <b>"));
    }
}

#[test]
fn pending_valign_bytes_are_marked_and_the_steps_show_the_map_at_each_point() {
    let (sc, isa) = load("examples/q7/source_s4.toml");
    let t = trace(isa, &sc, DEFAULT_CAP).unwrap();
    assert_eq!(t.pending.len(), 1);
    let p = &t.pending[0];
    assert_eq!((p.holder.as_str(), p.addr, p.len), ("u0", 0x7040, 5));
    let svg = memory_map_svg(&t, None);
    // The title of a step names the instruction as the program's table does
    // (from #0) and counts the instructions.
    let n = t.steps.len();
    let first = memory_map_svg(&t, Some(0));
    assert!(
        first.contains(&format!("memory after instruction #0 of {n}<")),
        "{n} instructions: {}",
        &first[..first.len().min(600)]
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let pending = cells_of(&doc, "cell pending");
    let addrs: Vec<u64> = pending.iter().map(cell_addr).collect();
    assert_eq!(addrs, (0x7040..0x7045).collect::<Vec<_>>());
    assert!(pending
        .iter()
        .all(|n| n.attribute("data-holder") == Some("u0")));
    // The written cells carry the instruction that wrote them last.
    let written: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("data-inst").is_some() && n.has_tag_name("rect"))
        .filter(|n| n.attribute("class").unwrap().starts_with("cell "))
        .collect();
    // The spill writes 0x7000..0x7040 and the stream overwrites 0x7005..:
    // 64 distinct bytes, 5 of them last written by #0, 59 by #2.
    assert_eq!(written.len(), 64);
    for n in &written {
        let k = n.attribute("data-inst").unwrap();
        assert_eq!(n.attribute("class"), Some(format!("cell w{k}").as_str()));
        let want = if cell_addr(n) < 0x7005 { "0" } else { "2" };
        assert_eq!(k, want, "{:#x}", cell_addr(n));
    }
    assert_eq!((count(&svg, "w0"), count(&svg, "w2")), (5, 59));
    // After instruction 0 only its bytes are drawn, and nothing is pending yet.
    let first = memory_map_svg(&t, Some(0));
    assert_eq!(
        count(&first, "w0"),
        t.steps[0]
            .writes
            .iter()
            .map(|w| w.hex.len() / 2)
            .sum::<usize>()
    );
    assert_eq!(count(&first, "w2"), 0);
    assert_eq!(count(&first, "pending"), 0);
    // The legend names the writers and the pending bytes.
    let legend = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("legend"))
        .unwrap();
    let text: String = legend.descendants().filter_map(|n| n.text()).collect();
    assert!(
        text.contains("#0 IVP_SALIGN_IP") && text.contains("held in u0"),
        "{text}"
    );
    // A PTO pending block: no write, its status pending, the rest not run.
    let (sc, isa) = load("examples/pto/pending_shared.toml");
    let t = trace(isa, &sc, DEFAULT_CAP).unwrap();
    assert_eq!(t.outcome, Outcome::Pending);
    assert_eq!(t.steps[0].status, UnitStatus::Pending);
    assert_eq!(t.steps[1].status, UnitStatus::NotRun);
}

#[test]
fn registers_are_reported_by_the_instruction_that_changed_them() {
    let (sc, isa) = load("examples/q7/unmapped_fault.toml");
    let t = trace(isa, &sc, DEFAULT_CAP).unwrap();
    // The first store moves a3 past its 64 bytes; the faulting one changes nothing.
    let names: Vec<&str> = t.steps[0].regs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["a3"]);
    assert!(t.steps[1].regs.is_empty());
    let html = report_html(&t);
    assert!(
        html.contains("<code>a3</code> = <span class=\"hex\">0x10100</span>"),
        "{html}"
    );
}

fn q7_stores(n: usize) -> Trace {
    let program = "IVP_SV2NX8_IP v0, a3, 64\n".repeat(n);
    let text = format!(
        "isa = \"q7\"\nprogram = \"\"\"\n{program}\"\"\"\n[[memory]]\nbase = 0\nsize = 0x2000000\n\
         [regs]\na3 = 0\n"
    );
    let (sc, isa) = parse(&text, "big.toml");
    trace(isa, &sc, DEFAULT_CAP).unwrap()
}

#[test]
fn huge_runs_are_bounded() {
    let n = 20_000; // 1.28 MB in 20 000 rows of 64 bytes
    let t = q7_stores(n);
    assert_eq!(t.executed, n);
    assert_eq!((t.writes, t.bytes_written), (n as u64, 64 * n as u64));
    assert_eq!(t.steps.len(), MAX_STEPS);
    assert_eq!(t.steps_omitted, n - MAX_STEPS);
    let kept: u64 = t.all_writes().map(|(_, w)| w.hex.len() as u64 / 2).sum();
    assert_eq!(kept, (MAX_STEPS * 64) as u64);
    assert!(kept <= MAX_KEPT_BYTES);
    assert_eq!(t.bytes_omitted, 64 * (n - MAX_STEPS) as u64);
    let svg = memory_map_svg(&t, None);
    let rows = svg.matches("class=\"row\"").count();
    assert_eq!(rows, MAX_ROWS);
    assert!(svg.contains(&format!(
        "{} more touched rows not drawn",
        MAX_STEPS - MAX_ROWS
    )));
    assert!(svg.len() < 4 << 20, "{}", svg.len());
    let html = report_html(&t);
    assert!(html.contains("The report is bounded"));
    assert!(html.len() < 8 << 20, "{}", html.len());
    // The byte bound: 17 000 stores of 64 bytes pass 1 MiB.
    let t = q7_stores(MAX_STEPS);
    assert!(!t.truncated());
}

/// A PTO scenario of `blocks` blocks, each storing four 64 KiB tiles row by
/// row: 256 KiB of writes per block.
fn pto_blocks(blocks: usize) -> String {
    let mut s = String::from("isa = \"pto\"\nprogram = \"\"\"\n");
    for b in 0..blocks {
        s.push_str(&format!(
            "BSTART.TSTORE U8; B.DIM LB0, 64; B.DIM LB1, 1024; B.DIM LB2, 64; B.IOR a{b}, s0; \
             B.IOT T1, mask=1111, last; BSTOP\n"
        ));
    }
    s.push_str("\"\"\"\n[[memory]]\nbase = 0\nsize = 0x4000000\n[regs]\n");
    for pe in 0..4u64 {
        s.push_str(&format!("\"pe{pe}.s0\" = 64\n"));
        for b in 0..blocks as u64 {
            s.push_str(&format!("\"pe{pe}.a{b}\" = {:#x}\n", (b * 4 + pe) << 16));
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

#[test]
fn written_bytes_past_the_bound_are_counted_not_kept() {
    let (sc, isa) = parse(&pto_blocks(8), "rows.toml");
    let t = trace(isa, &sc, DEFAULT_CAP).unwrap();
    assert_eq!(t.executed, 8);
    assert_eq!(t.bytes_written, 8 << 18);
    let kept: u64 = t.all_writes().map(|(_, w)| w.hex.len() as u64 / 2).sum();
    assert_eq!(kept, MAX_KEPT_BYTES);
    assert_eq!(t.bytes_omitted, (8 << 18) - MAX_KEPT_BYTES);
    // The first four blocks are kept whole, the others not at all.
    assert!(t.steps[..4].iter().all(|s| !s.writes.is_empty()));
    assert!(t.steps[4..].iter().all(|s| s.writes.is_empty()));
    let svg = memory_map_svg(&t, None);
    assert_eq!(svg.matches("class=\"row\"").count(), MAX_ROWS);
    assert!(svg.contains("written bytes past the trace's bound are not drawn"));
}

#[test]
fn the_report_carries_a_policy_that_forbids_scripts_and_loads() {
    let (sc, isa) = load("examples/q7/source_s4.toml");
    let html = report_html(&trace(isa, &sc, DEFAULT_CAP).unwrap());
    let meta = format!(
        "<head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" \
         content=\"{}\">",
        xstore_viz::html::REPORT_POLICY
    );
    // First in the head (after the charset), so it covers the style sheet.
    assert!(html.contains(&meta), "{html}");
    assert!(html.find(&meta).unwrap() < html.find("<style>").unwrap());
    let policy: Vec<&str> = xstore_viz::html::REPORT_POLICY.split("; ").collect();
    assert_eq!(policy[0], "default-src 'none'");
    // Nothing else is allowed but inline style: no script, no load.
    assert!(policy.contains(&"style-src 'unsafe-inline'"));
    assert!(policy.contains(&"base-uri 'none'") && policy.contains(&"form-action 'none'"));
    for p in &policy[1..] {
        assert!(
            p.ends_with("'none'") || *p == "style-src 'unsafe-inline'",
            "{p}"
        );
    }
}

#[test]
fn a_cancelled_trace_is_an_error_and_an_uncancelled_one_runs_to_its_end() {
    use std::sync::atomic::AtomicBool;
    let (sc, isa) = parse(&pto_blocks(8), "rows.toml");
    let go = AtomicBool::new(false);
    let t = xstore_viz::trace_cancellable(isa, &sc, DEFAULT_CAP, &go).unwrap();
    assert_eq!(t, trace(isa, &sc, DEFAULT_CAP).unwrap());
    let stop = AtomicBool::new(true);
    let e = xstore_viz::trace_cancellable(isa, &sc, DEFAULT_CAP, &stop).unwrap_err();
    assert_eq!(e.to_string(), "rows.toml: error: the run was cancelled");
    assert_eq!(e.kind, xstore_core::DiagKind::Resource);
}

#[test]
fn the_docs_state_the_bounds_the_code_has() {
    let doc = std::fs::read_to_string(root().join("docs/viz.md")).unwrap();
    for (name, value) in [
        ("MAX_STEPS", MAX_STEPS as u64),
        ("MAX_KEPT_BYTES", MAX_KEPT_BYTES),
        ("MAX_ROWS", MAX_ROWS as u64),
        ("MAX_LEGEND", xstore_viz::map::MAX_LEGEND as u64),
        (
            "MAX_LISTED_WRITES",
            xstore_viz::html::MAX_LISTED_WRITES as u64,
        ),
        ("MAX_SHOWN_BYTES", xstore_viz::html::MAX_SHOWN_BYTES as u64),
    ] {
        let row = format!("| `{name}` | {value} |");
        assert!(doc.contains(&row), "docs/viz.md lacks {row}");
    }
    // The map's row width and the diagram's lane width, as the docs say them.
    assert_eq!(xstore_viz::map::ROW_BYTES, 64);
    assert!(doc.contains("with 32 bits a lane"));
    assert_eq!(xstore_viz::wave::LANE_BITS, 32);
}

#[test]
fn a_tload_report_lists_the_tiles_it_filled() {
    let (sc, isa) = load("examples/pto/tload_store_back.toml");
    let t = trace(isa, &sc, DEFAULT_CAP).unwrap();
    let names: Vec<&str> = t.tiles.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["pe0.T#1", "pe1.T#1"]);
    let html = report_html(&t);
    assert!(html.contains("<h2>Tiles changed by the run</h2>"), "{html}");
    assert!(html.contains("<code>pe1.T#1</code>"));
    assert!(html.contains("1112131415161718"));
    // A run that changes no tile has no such section.
    let (sc, isa) = load("examples/pto/cube_n8.toml");
    assert!(!report_html(&trace(isa, &sc, DEFAULT_CAP).unwrap()).contains("Tiles changed"));
}

#[test]
fn a_tload_report_lists_the_memory_each_load_read() {
    let (sc, isa) = load("examples/pto/tload_store_back.toml");
    let t = trace(isa, &sc, DEFAULT_CAP).unwrap();
    let reads: Vec<(u64, u64)> = t.steps[0].reads.iter().map(|r| (r.addr, r.len)).collect();
    // PE0's two rows of 4 bytes at a 16-byte stride, then PE1's.
    assert_eq!(reads, [(0x100, 4), (0x110, 4), (0x200, 4), (0x210, 4)]);
    assert!(t.steps[1].reads.is_empty(), "a TSTORE reads nothing");
    let html = report_html(&t);
    assert!(html.contains("<h2>Memory read</h2>"), "{html}");
    assert!(html.contains("0x110..=0x113 (4 B)"));
    assert!(html.contains("<td>16</td>"));
    // Rows back to back are one run read: a dense load of 2 x 4 bytes.
    let dense = "isa = \"pto\"\nprogram = \"\"\"\nBSTART.TLOAD U8\nC.B.DIMI 4, ->LB0\n\
                 C.B.DIMI 2, ->LB1\nB.IOT mask=1000, last, ->T<1>\nBSTOP\n\"\"\"\n";
    let (sc, isa) = parse(dense, "dense");
    let t = trace(isa, &sc, DEFAULT_CAP).unwrap();
    let reads: Vec<(u64, u64)> = t.steps[0].reads.iter().map(|r| (r.addr, r.len)).collect();
    assert_eq!(reads, [(0, 8)]);
    // A run that reads nothing has no such section.
    let (sc, isa) = load("examples/pto/cube_n8.toml");
    assert!(!report_html(&trace(isa, &sc, DEFAULT_CAP).unwrap()).contains("Memory read"));
}
