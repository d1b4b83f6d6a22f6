//! The coverage report as one self-contained HTML page (`xstore cover
//! --html`), under the run report's policy: inline CSS, no script, nothing
//! loaded.

use crate::html::page_head;
use crate::wave::xml_escape;
use xstore_core::verify::{CoverModel, CoverReport};

const EXTRA_CSS: &str = "td.hit{background:#e3f5e6}td.hole{background:#fde0e0}\
td.unreachable{color:#888}td.num{text-align:right}";

/// The page: totals, each group's bins and hits, the holes by name with
/// their meaning, the unreachable bins with their reasons, and every bin's
/// count.
pub fn coverage_html(r: &CoverReport, model: &CoverModel) -> String {
    let e = |s: &str| xml_escape(s);
    let mut h = page_head(&format!("xstore cover {}", r.isa), EXTRA_CSS);
    let pct = if r.reachable == 0 {
        100.0
    } else {
        100.0 * r.hit as f64 / r.reachable as f64
    };
    h.push_str(&format!(
        "<h1>xstore cover: isa <code>{}</code></h1>\n<p>{} program(s); <b>{} of {}</b> \
         reachable bins hit ({pct:.1} %); {} hole(s); {} bin(s) unreachable.</p>\n",
        e(&r.isa),
        r.programs,
        r.hit,
        r.reachable,
        r.holes.len(),
        r.unreachable.len()
    ));
    groups_table(r, &mut h);
    holes_and_unreachable(r, model, &mut h);
    every_bin(r, model, &mut h);
    h.push_str("</body></html>\n");
    h
}

fn groups_table(r: &CoverReport, h: &mut String) {
    let e = |s: &str| xml_escape(s);
    h.push_str(
        "<h2>Groups</h2>\n<table><tr><th>group</th><th>bins</th><th>reachable</th><th>hit</th>\
         <th>meaning</th><th>source</th></tr>\n",
    );
    for g in &r.groups {
        let class = if g.hit == g.reachable { "hit" } else { "hole" };
        h.push_str(&format!(
            "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num {class}\">{}</td><td>{}</td><td>{}</td></tr>\n",
            e(g.name),
            g.bins,
            g.reachable,
            g.hit,
            e(g.meaning),
            e(g.source)
        ));
    }
    h.push_str("</table>\n");
}

fn holes_and_unreachable(r: &CoverReport, model: &CoverModel, h: &mut String) {
    let e = |s: &str| xml_escape(s);
    if r.holes.is_empty() {
        h.push_str("<h2>Holes</h2>\n<p>None: every reachable bin is hit.</p>\n");
    } else {
        h.push_str(&format!(
            "<h2>Holes ({})</h2>\n<table><tr><th>bin</th><th>meaning</th></tr>\n",
            r.holes.len()
        ));
        for name in &r.holes {
            let meaning = model.bin(name).map(|b| b.meaning.as_str()).unwrap_or("");
            h.push_str(&format!(
                "<tr><td class=\"hole\"><code>{}</code></td><td>{}</td></tr>\n",
                e(name),
                e(meaning)
            ));
        }
        h.push_str("</table>\n");
    }
    if !r.unreachable.is_empty() {
        h.push_str(&format!(
            "<h2>Unreachable ({})</h2>\n<table><tr><th>bin</th><th>why no program hits it</th></tr>\n",
            r.unreachable.len()
        ));
        for u in &r.unreachable {
            h.push_str(&format!(
                "<tr><td class=\"unreachable\"><code>{}</code></td><td>{}</td></tr>\n",
                e(&u.name),
                e(&u.reason)
            ));
        }
        h.push_str("</table>\n");
    }
}

fn every_bin(r: &CoverReport, model: &CoverModel, h: &mut String) {
    let e = |s: &str| xml_escape(s);
    h.push_str("<h2>Every bin</h2>\n<table><tr><th>bin</th><th>hits</th><th>meaning</th></tr>\n");
    for b in &model.bins {
        let n = r.counts.get(&b.name).copied().unwrap_or(0);
        let class = if b.unreachable.is_some() {
            "unreachable"
        } else if n > 0 {
            "hit"
        } else {
            "hole"
        };
        h.push_str(&format!(
            "<tr><td class=\"{class}\"><code>{}</code></td><td class=\"num {class}\">{n}</td>\
             <td>{}</td></tr>\n",
            e(&b.name),
            e(&b.meaning)
        ));
    }
    h.push_str("</table>\n");
}
