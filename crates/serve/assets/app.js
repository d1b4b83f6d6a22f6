// The xstore explorer. Plain script, no library: every answer comes from the
// JSON API of the server that served this page (docs/serve.md).
"use strict";

const $ = (id) => document.getElementById(id);

/** POST or GET a JSON endpoint; resolves to {ok, status, body}. */
async function api(path, body) {
  const init = body === undefined
    ? { method: "GET" }
    : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    const message = `the explorer's server does not answer (${e.message}); is xstore serve still running?`;
    return { ok: false, status: 0, body: { error: { message, location: { type: "none" } }, rendered: message } };
  }
  const type = res.headers.get("content-type") || "";
  const data = type.includes("json") ? await res.json() : await res.text();
  return { ok: res.ok, status: res.status, body: data };
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function setStatus(text) {
  $("status").textContent = text;
}

// ---- error display --------------------------------------------------------

/**
 * Where a diagnostic points in `text`: [start, end) character offsets, or
 * null. A text location is (line, col), 1-based; a binary one is a byte
 * offset, which in hex text is the byte's two digits.
 */
function errorSpan(diag, text, isHex) {
  const loc = diag.location || {};
  if (loc.type === "text" && loc.line > 0) {
    const lines = text.split("\n");
    if (loc.line > lines.length) return [text.length, text.length];
    let start = 0;
    for (let i = 0; i < loc.line - 1; i++) start += lines[i].length + 1;
    const line = lines[loc.line - 1];
    const chars = Array.from(line);
    const col = Math.max(1, Math.min(loc.col || 1, chars.length + 1));
    const before = chars.slice(0, col - 1).join("").length;
    let end = before;
    const stop = /[\s,;{}()\[\]=]/;
    while (end < line.length && !stop.test(line[end])) end++;
    if (end === before) end = Math.min(before + 1, line.length);
    return [start + before, start + end];
  }
  if (loc.type === "binary" && isHex) {
    // Walk the hex digits as the decoder does: whitespace, `_` and `:`
    // separate bytes, a leading `0x` is skipped.
    let i = 0, byte = 0;
    const t = text;
    while (i < t.length && /\s/.test(t[i])) i++;
    if (t.slice(i, i + 2).toLowerCase() === "0x") i += 2;
    while (i < t.length) {
      if (/[\s_:]/.test(t[i])) { i++; continue; }
      if (byte === loc.offset) return [i, Math.min(i + 2, t.length)];
      i += 2;
      byte++;
    }
    return [t.length, t.length];
  }
  return null;
}

/** Show a diagnostic under its input, and mark its position in the input. */
function showError(box, mirror, input, err, isHex) {
  const diag = err.error || {};
  const text = input.value;
  const span = errorSpan(diag, text, isHex);
  box.replaceChildren();
  box.append(el("div", { class: "rendered" }, err.rendered || diag.message || "error"));
  if (span) {
    const lineStart = text.lastIndexOf("\n", span[0] - 1) + 1;
    let lineEnd = text.indexOf("\n", span[0]);
    if (lineEnd < 0) lineEnd = text.length;
    const lineNo = text.slice(0, lineStart).split("\n").length;
    const pre = el("pre", { class: "excerpt" });
    pre.append(`${lineNo} | ` + text.slice(lineStart, span[0]));
    pre.append(el("mark", {}, text.slice(span[0], Math.min(span[1], lineEnd)) || " "));
    pre.append(text.slice(Math.min(span[1], lineEnd), lineEnd));
    box.append(pre);
  }
  box.classList.remove("hidden");
  markInput(mirror, text, span);
}

function clearError(box, mirror, input) {
  box.classList.add("hidden");
  box.replaceChildren();
  markInput(mirror, input.value, null);
}

/** The mirror behind a textarea holds its text with the error marked. */
function markInput(mirror, text, span) {
  mirror.replaceChildren();
  if (!span) {
    mirror.append(text + "\n");
    return;
  }
  const [a, b] = span;
  mirror.append(text.slice(0, a));
  mirror.append(el("mark", { class: "error-mark" }, text.slice(a, b) || " "));
  mirror.append(text.slice(b) + "\n");
}

function syncScroll(input, mirror) {
  input.addEventListener("scroll", () => {
    mirror.scrollTop = input.scrollTop;
  });
}

// ---- instruction panel ----------------------------------------------------

let isas = [];
let seq = 0;

function currentIsa() {
  return $("isa").value;
}

function mode() {
  return $("mode-hex").checked ? "hex" : "asm";
}

function renderExplain(list) {
  const box = $("explain");
  box.replaceChildren();
  for (const ex of list) {
    box.append(el("div", { class: "explain-title" }, ex.title, ex.hex ? " " : null,
      ex.hex ? el("span", { class: "mono" }, ex.hex) : null));
    const table = el("table", { class: "explain" });
    table.append(el("tr", {}, el("th", {}, "field"), el("th", {}, "bits"), el("th", {}, "raw"),
      el("th", {}, "meaning"), el("th", {}, "provenance")));
    for (const f of ex.fields) {
      table.append(el("tr", {}, el("td", { class: "mono" }, f.name), el("td", { class: "mono" }, f.bits),
        el("td", { class: "mono" }, f.raw), el("td", {}, f.meaning), el("td", { class: "mono" }, f.provenance)));
    }
    box.append(table);
    for (const n of ex.notes) box.append(el("div", { class: "note" }, "note: " + n));
  }
}

function renderVerdict(v) {
  const box = $("verdict");
  box.replaceChildren();
  box.append(el("span", { class: "verdict " + (v.valid ? "valid" : "invalid"), id: "verdict-word" },
    v.valid ? "valid" : "invalid"));
  const table = el("table", { class: "checks" });
  for (const c of v.checks) {
    const mark = c.passed === true ? "ok" : c.passed === false ? "FAIL" : "n/a";
    const cls = c.passed === false ? "check-fail" : c.passed === null ? "check-na" : "";
    table.append(el("tr", { class: cls }, el("td", { class: "mono" }, mark), el("td", { class: "mono" }, c.name),
      el("td", { class: "mono" }, c.origin), el("td", {}, c.detail)));
  }
  box.append(table);
}

function renderDiagrams(d) {
  const box = $("diagram");
  box.replaceChildren();
  for (const svg of (d.svg || []).filter(Boolean)) {
    const div = el("div", { class: "reg" });
    div.innerHTML = svg; // SVG produced by the server from the explanation
    box.append(div);
  }
}

function clearResults() {
  for (const id of ["encoding", "verdict", "diagram", "explain"]) $(id).replaceChildren();
}

/** Everything the page shows for the current input, in order. */
async function inspect() {
  const my = ++seq;
  const input = $("input");
  const text = input.value;
  const isa = currentIsa();
  const isHex = mode() === "hex";
  const stale = () => my !== seq;
  const fail = (r) => {
    if (stale()) return;
    clearResults();
    showError($("input-error"), $("input-mirror"), input, r.body, isHex);
    setStatus(`error (${r.status})`);
    shown(text);
  };
  if (!text.trim()) {
    clearResults();
    clearError($("input-error"), $("input-mirror"), input);
    setStatus("");
    shown(text);
    return;
  }
  setStatus("…");
  let hex;
  if (isHex) {
    const r = await api(`/api/${isa}/disasm`, { hex: text });
    if (!r.ok) return fail(r);
    if (stale()) return;
    hex = text;
    $("encoding-title").textContent = "Disassembly";
    $("encoding").textContent = r.body.text.join("\n");
  } else {
    const r = await api(`/api/${isa}/asm`, { text });
    if (!r.ok) return fail(r);
    if (stale()) return;
    hex = r.body.hex.join("\n");
    $("encoding-title").textContent = "Encoding";
    $("encoding").textContent = hex;
  }
  const [ex, va, dg] = await Promise.all([
    api(`/api/${isa}/explain`, { hex }),
    api(`/api/${isa}/validate`, { hex }),
    api(`/api/${isa}/diagram`, { hex }),
  ]);
  if (stale()) return;
  for (const r of [ex, va]) if (!r.ok) return fail(r);
  clearError($("input-error"), $("input-mirror"), input);
  renderExplain(ex.body);
  renderVerdict(va.body);
  if (dg.ok) renderDiagrams(dg.body);
  setStatus("ok");
  shown(text);
}

/** Record which input the panel now shows in full (the browser tests wait for it). */
function shown(text) {
  $("panel-inst").dataset.shown = `${currentIsa()}:${mode()}:${text}`;
}

let timer = null;
function later() {
  clearTimeout(timer);
  markInput($("input-mirror"), $("input").value, null);
  timer = setTimeout(inspect, 120);
}

function isaChanged() {
  const isa = currentIsa();
  const info = isas.find((i) => i.name === isa);
  $("isa-summary").textContent = info ? info.summary : "";
  const input = $("input");
  // Each ISA's sample instruction (from /api/isas), shown when its ISA is
  // picked and the input is empty or another ISA's sample.
  const samples = isas.map((i) => i.sample);
  if (mode() === "asm" && (input.value.trim() === "" || samples.includes(input.value))) {
    input.value = info ? info.sample : "";
  }
  inspect();
}

/** Switch assembly ↔ hex, carrying the input over when it is valid. An answer
 * that comes back after the input was edited, or after a later switch, is
 * dropped, so a slow answer never overwrites newer input. */
let modeSeq = 0;
async function modeChanged() {
  const my = ++modeSeq;
  const input = $("input");
  const isa = currentIsa();
  const before = input.value;
  const target = mode();
  if (before.trim()) {
    const r = target === "hex"
      ? await api(`/api/${isa}/asm`, { text: before })
      : await api(`/api/${isa}/disasm`, { hex: before });
    const current = my === modeSeq && input.value === before && mode() === target && currentIsa() === isa;
    if (r.ok && current) input.value = (target === "hex" ? r.body.hex : r.body.text).join("\n");
  }
  inspect();
}

// ---- scenario panel -------------------------------------------------------

let run = null; // {scenario, name, steps}
let scenarioName = null;

function setScenario(text, name) {
  $("scenario").value = text;
  scenarioName = name;
  $("scen-name").textContent = name || "pasted scenario";
  for (const b of document.querySelectorAll(".example")) {
    b.classList.toggle("active", b.dataset.path === name);
  }
  clearError($("scenario-error"), $("scenario-mirror"), $("scenario"));
}

async function loadExamples() {
  const r = await api("/api/examples");
  const box = $("examples");
  box.replaceChildren();
  let group = null;
  for (const e of r.body.examples) {
    if (e.isa !== group) {
      group = e.isa;
      box.append(el("h3", {}, group));
    }
    const b = el("button", { type: "button", class: "example", "data-path": e.path, title: e.path },
      e.path.replace(/^examples\/[^/]+\//, ""));
    b.addEventListener("click", async () => {
      const t = await api(`/api/example/${e.path}`);
      if (!t.ok) return;
      setScenario(t.body, e.path);
      await runScenario();
    });
    box.append(b);
  }
}

function fmtAddr(a) {
  return a === null || a === undefined ? "" : "0x" + a.toString(16);
}

function renderSummary(t) {
  const box = $("summary");
  box.replaceChildren();
  box.append(el("span", { class: "verdict " + t.outcome, id: "outcome" }, t.outcome));
  box.append(" ", el("span", { id: "run-counts" },
    `${t.executed} of ${t.steps.length + t.steps_omitted} instruction(s) completed; ` +
    `${t.writes} write(s), ${t.bytes_written} byte(s) written`));
  if (t.fault) {
    const f = t.fault;
    const at = f.address !== null && f.address !== undefined ? " at " + fmtAddr(f.address) : "";
    box.append(el("div", { class: "diag", id: "fault" }, `fault: ${f.kind}${at}: ${f.message}`));
  }
  for (const w of t.warnings) box.append(el("div", { class: "note" }, "warning: " + w));
  for (const p of t.pending) {
    box.append(el("div", { class: "note" }, `pending: ${p.len} byte(s) for ${fmtAddr(p.addr)} held in ${p.holder}`));
  }
  renderTiles(box, t.tiles); // the trace keeps the changed tiles only
  if (t.has_expect) {
    const ok = t.expect_failures.length === 0;
    box.append(el("div", { id: "expect", class: ok ? "" : "lint-warning" },
      ok ? "expect: all hold" : "expect FAILED: " + t.expect_failures.join("; ")));
  }
  if (t.steps_omitted || t.bytes_omitted) {
    box.append(el("div", { class: "note" },
      `the trace keeps the first ${t.steps.length} instruction(s); ${t.steps_omitted} more and ` +
      `${t.bytes_omitted} written byte(s) are left out of the map`));
  }
}

/** Longest run of element digits a tile's row shows before it is cut. */
const TILE_DIGITS = 96;

/** The tiles the run changed (a PTO TLOAD's destination), as `run` prints them. */
function renderTiles(box, tiles) {
  if (tiles.length === 0) return;
  const table = el("table", { id: "tiles-table" });
  table.append(el("tr", {}, el("th", {}, "tile"), el("th", {}, "descriptor"), el("th", {}, "valid elements")));
  for (const x of tiles) {
    const data = x.data.length > TILE_DIGITS ? x.data.slice(0, TILE_DIGITS) + "…" : x.data;
    table.append(el("tr", {}, el("td", { class: "mono" }, x.name),
      el("td", {}, x.descriptor === null ? "freed" : x.descriptor),
      el("td", { class: "mono hexcell", title: x.data }, data)));
  }
  box.append(table);
}

function regText(r) {
  return `${r.name}=${typeof r.value === "number" ? "0x" + r.value.toString(16) : r.value}`;
}

function renderSteps(t, current) {
  const table = el("table", { id: "steps-table" });
  table.append(el("tr", {}, el("th", {}, "#"), el("th", {}, "instruction"), el("th", {}, "status"),
    el("th", {}, "writes"), el("th", {}, "registers")));
  for (const s of t.steps) {
    const writes = s.writes.map((w) => `${fmtAddr(w.addr)}: ${w.hex}`).join("\n");
    table.append(el("tr", { class: s.index === current ? "current" : "" },
      el("td", { class: "mono" }, s.index), el("td", { class: "mono" }, s.text),
      el("td", {}, s.status.replace("_", " ")),
      el("td", { class: "mono hexcell" }, writes), el("td", { class: "mono" }, s.regs.map(regText).join(" "))));
  }
  $("steps").replaceChildren(table);
}

function renderLint(l) {
  const box = $("lint");
  box.replaceChildren();
  if (!l.ok) {
    box.append(el("div", { class: "note" }, l.body.rendered || "lint failed"));
    return;
  }
  if (l.body.findings.length === 0) box.append(el("div", { class: "note" }, "no findings"));
  for (const f of l.body.findings) {
    box.append(el("div", { class: f.severity === "warning" ? "lint-warning" : "note" },
      `${f.line ? "line " + f.line + ": " : ""}${f.severity}[${f.rule}]: ${f.message}`));
  }
}

/** Show memory after instruction `k` (from 0), or after the run (`null`). */
async function showStep(k) {
  if (!run) return;
  const n = run.trace.steps.length;
  let svg = run.map;
  if (k !== null) {
    const r = await api("/api/map", { scenario: run.scenario, name: run.name, step: k });
    if (!r.ok) return;
    svg = r.body.svg;
  }
  const shown = k === null ? n - 1 : k;
  $("step").value = Math.max(0, shown);
  const s = run.trace.steps[shown];
  $("step-label").textContent = k === null
    ? `after the run (${n} instruction(s))`
    : `after instruction ${k} of 0..${n - 1}: ${s ? s.text : ""}`;
  $("map").innerHTML = svg; // SVG produced by the server from the trace
  renderSteps(run.trace, shown);
}

async function runScenario() {
  const input = $("scenario");
  const scenario = input.value;
  const name = scenarioName || "<scenario>";
  setStatus("running…");
  $("step-label").textContent = "running…";
  const [r, l] = await Promise.all([
    api("/api/run", { scenario, name }),
    api("/api/lint", { scenario, name }),
  ]);
  if (!r.ok) {
    $("report").classList.add("hidden");
    $("open-report").disabled = true;
    run = null;
    showError($("scenario-error"), $("scenario-mirror"), input, r.body, false);
    setStatus(`error (${r.status})`);
    return;
  }
  clearError($("scenario-error"), $("scenario-mirror"), input);
  run = { scenario, name, trace: r.body.trace, map: r.body.map };
  $("open-report").disabled = false;
  const n = r.body.trace.steps.length;
  $("step").max = Math.max(0, n - 1);
  for (const id of ["step", "step-first", "step-prev", "step-next", "step-last"]) $(id).disabled = n === 0;
  renderSummary(r.body.trace);
  renderLint(l);
  $("report").classList.remove("hidden");
  await showStep(null);
  setStatus("ran " + name);
}

/** The run's HTML report (as `xstore run --report` writes it), in a new tab. */
async function openReport() {
  if (!run) return;
  const res = await fetch("/api/report", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ scenario: run.scenario, name: run.name }),
  });
  if (!res.ok) return;
  const blob = new Blob([await res.text()], { type: "text/html" });
  window.open(URL.createObjectURL(blob), "_blank");
}

// ---- wiring ---------------------------------------------------------------

async function main() {
  syncScroll($("input"), $("input-mirror"));
  syncScroll($("scenario"), $("scenario-mirror"));
  for (const t of document.querySelectorAll(".tab")) {
    t.addEventListener("click", () => {
      for (const u of document.querySelectorAll(".tab")) u.classList.toggle("active", u === t);
      for (const p of document.querySelectorAll(".panel")) p.classList.toggle("hidden", p.id !== t.dataset.panel);
    });
  }
  const r = await api("/api/isas");
  isas = r.body.isas;
  for (const i of isas) $("isa").append(el("option", { value: i.name }, i.name));
  $("isa").addEventListener("change", isaChanged);
  $("mode-asm").addEventListener("change", modeChanged);
  $("mode-hex").addEventListener("change", modeChanged);
  $("input").addEventListener("input", later);
  $("scenario").addEventListener("input", () => {
    $("scen-name").textContent = scenarioName ? scenarioName + " (edited)" : "pasted scenario";
    markInput($("scenario-mirror"), $("scenario").value, null);
  });
  $("run").addEventListener("click", runScenario);
  $("open-report").addEventListener("click", openReport);
  $("open").addEventListener("change", async (e) => {
    const f = e.target.files[0];
    if (f) setScenario(await f.text(), f.name);
  });
  $("step").addEventListener("input", () => showStep(Number($("step").value)));
  $("step-first").addEventListener("click", () => showStep(0));
  $("step-prev").addEventListener("click", () => showStep(Math.max(0, Number($("step").value) - 1)));
  $("step-next").addEventListener("click", () => showStep(Math.min(Number($("step").max), Number($("step").value) + 1)));
  $("step-last").addEventListener("click", () => showStep(null));
  await loadExamples();
  isaChanged();
  document.body.dataset.ready = "1";
}

main();
