// The explorer and the run reports in a real browser: Debian's Chromium,
// headless, driven by playwright-core (no browser download).
//
//   node --test tests/browser/            (from the repository root; .ci/run does this)
//
// Environment:
//   XSTORE_BIN        the xstore binary (default: the newer of target/release/xstore and
//                     target/debug/xstore)
//   CHROMIUM          the browser (default /usr/bin/chromium)
//   XSTORE_ARTIFACTS  where screenshots go (default target/browser-artifacts)
//   XSTORE_SHOTS      also write the README's screenshots (explorer.png, report.png) here,
//                     e.g. XSTORE_SHOTS=docs/img
//
// Each run gets a fresh browser profile (playwright's launch() makes one in a
// temporary directory and removes it). The script starts `xstore serve --port 0` itself, reads the URL it prints,
// and stops that process (by its pid) when it is done. Every request the
// page makes is checked to go to that server: anything else fails the test.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, existsSync, rmSync, writeFileSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// Without XSTORE_BIN: the newer of the release and the debug build.
const bin = process.env.XSTORE_BIN
  || [join(root, "target/release/xstore"), join(root, "target/debug/xstore")]
    .filter(existsSync)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";
const artifacts = resolve(root, process.env.XSTORE_ARTIFACTS || "target/browser-artifacts");
const shots = process.env.XSTORE_SHOTS ? resolve(root, process.env.XSTORE_SHOTS) : null;
mkdirSync(artifacts, { recursive: true });
if (shots) mkdirSync(shots, { recursive: true });

let server = null; // the `xstore serve` child
let url = null;
let browser = null;
const offsite = []; // requests to anywhere but the server
const pageErrors = [];

/** `xstore ARGS…` from the repository root; its stdout. */
function xstore(...args) {
  return execFileSync(bin, args, { cwd: root, encoding: "utf8" });
}

function startServer() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(bin, ["serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error("xstore serve printed no URL in 30 s")), 30000);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n")[0];
      if (out.includes("\n")) {
        clearTimeout(timer);
        if (!/^http:\/\/127\.0\.0\.1:\d+\/$/.test(line)) reject(new Error(`unexpected URL line: ${line}`));
        else resolvePromise({ child, url: line });
      }
    });
    child.stderr.on("data", () => {});
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`xstore serve exited (${code}) before printing its URL`));
    });
  });
}

function stopServer() {
  if (server && server.exitCode === null) process.kill(server.pid, "SIGTERM");
  server = null;
}
process.on("exit", stopServer);

before(async () => {
  assert.ok(bin && existsSync(bin), `no xstore binary (build it, or set XSTORE_BIN): ${bin}`);
  ({ child: server, url } = await startServer());
  browser = await chromium.launch({
    executablePath: browserPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // A page is never treated as hidden and slowed down, however busy the machine.
      "--disable-background-timer-throttling",
      "--disable-renderer-backgrounding",
      "--disable-backgrounding-occluded-windows",
    ],
  });
});

after(async () => {
  if (browser) await browser.close();
  stopServer();
  assert.deepEqual(offsite, [], "the page asked for something other than its server");
});

/** A fresh page on the explorer whose every request is checked. */
async function openExplorer(viewport = { width: 1280, height: 900 }, { failedRequestsExpected = false } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith(url) || u.startsWith("data:")) return route.continue();
    offsite.push(u);
    return route.abort();
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => {
    // Chromium logs every 4xx answer; a 422 is the API's answer to bad input,
    // which these tests send on purpose. Anything else is an error.
    // A test that cuts the page off its server expects failed requests.
    const expected = /status of 422/.test(m.text()) || (failedRequestsExpected && /ERR_FAILED/.test(m.text()));
    if (m.type() === "error" && !expected) pageErrors.push(m.text());
  });
  await page.goto(url);
  await page.waitForSelector("body[data-ready='1']");
  return { page, context };
}

async function shot(page, name, locator) {
  const target = locator || page;
  await target.screenshot({ path: join(artifacts, name) });
  if (shots && (name === "explorer.png" || name === "report.png")) {
    await target.screenshot({ path: join(shots, name) });
  }
}

// Predicates are polled on a timer: an animation-frame poll (the default)
// stops when a headless page gets no frames.
const POLL = { polling: 100 };

/** Type `text` into the instruction input and wait for the answer. */
async function typeInstruction(page, isa, text) {
  await page.selectOption("#isa", isa);
  await page.check("#mode-asm");
  await page.fill("#input", "");
  await page.locator("#input").pressSequentially(text, { delay: 0 });
  await waitShown(page, `${isa}:asm:${text}`);
}

/** Wait until the instruction panel shows everything for this input. */
async function waitShown(page, key) {
  try {
    await page.waitForFunction((k) => document.getElementById("panel-inst").dataset.shown === k, key, POLL);
  } catch (e) {
    // Say what the panel shows instead, so a failure in CI can be read from its log.
    const state = await page.evaluate(() => ({
      shown: document.getElementById("panel-inst").dataset.shown,
      isa: document.getElementById("isa").value,
      hexMode: document.getElementById("mode-hex").checked,
      input: document.getElementById("input").value,
      encoding: document.getElementById("encoding").textContent,
      error: document.getElementById("input-error").textContent,
    }));
    throw new Error(`the panel never showed ${JSON.stringify(key)}: ${JSON.stringify(state)} (${e.message})`);
  }
}

const INSTRUCTIONS = {
  neuron: {
    text: "tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)",
  },
  pto: {
    text: "BSTART.TSTORE U8; B.DIM LB0, 64; B.DIM LB1, 8; B.DIM LB2, 64; B.IOR a0, a1; B.IOT T1, mask=1111, last; BSTOP",
  },
  q7: { text: "{ IVP_SV2NX8_IP v0, a3, 64 ; nop }" },
};

test("an instruction of each ISA shows its encoding, diagram, explain table and verdict", async () => {
  const { page, context } = await openExplorer();
  for (const [isa, { text }] of Object.entries(INSTRUCTIONS)) {
    await typeInstruction(page, isa, text);
    const hex = execFileSync(bin, [isa, "asm"], { cwd: root, input: text, encoding: "utf8" }).trim();
    await page.waitForFunction((h) => document.getElementById("encoding").textContent.trim() === h, hex, POLL);
    await page.waitForSelector("#explain table tr >> nth=1");
    await page.waitForSelector("#verdict-word");
    await page.waitForSelector("#diagram svg");
    const verdict = await page.textContent("#verdict-word");
    const cli = JSON.parse(execFileSync(bin, ["--json", isa, "validate", "-"], {
      cwd: root, input: hex, encoding: "utf8",
    }).trim() || "{}");
    assert.equal(verdict, cli.valid ? "valid" : "invalid", `${isa} verdict`);
    const rows = await page.locator("#explain table tr").count();
    const ex = JSON.parse(execFileSync(bin, ["--json", isa, "explain", "-"], {
      cwd: root, input: hex, encoding: "utf8",
    }));
    const fields = ex.reduce((n, e) => n + e.fields.length + 1, 0); // a header row per table
    assert.equal(rows, fields, `${isa}: explain rows`);
    assert.ok(await page.locator("#input-error").isHidden(), `${isa}: no error shown`);
    await shot(page, `explorer-${isa}.png`);
  }
  // The README's picture: a Q7 bundle, whose diagram, verdict and table fit one screen.
  await typeInstruction(page, "q7", INSTRUCTIONS.q7.text);
  await page.waitForSelector("#diagram svg");
  await shot(page, "explorer.png");
  await context.close();
});

test("a hex input is disassembled and explained", async () => {
  const { page, context } = await openExplorer();
  await page.selectOption("#isa", "q7");
  await waitShown(page, `q7:asm:${INSTRUCTIONS.q7.text}`);
  await page.check("#mode-hex");
  // The switch carries the default bundle over as hex; typing before it has
  // landed would race the page's own update of the input.
  await waitShown(page, "q7:hex:1f03049c945e9c02");
  await page.fill("#input", "1f03049c945e9c02");
  await waitShown(page, "q7:hex:1f03049c945e9c02");
  await page.waitForFunction(() => document.getElementById("encoding").textContent === "IVP_SV2NX8_IP v0, a3, 64", undefined, POLL);
  assert.equal(await page.textContent("#encoding-title"), "Disassembly");
  await page.waitForSelector("#explain table");
  // Switching the mode carries a valid input over: hex → assembly → hex.
  await page.check("#mode-asm");
  await waitShown(page, "q7:asm:IVP_SV2NX8_IP v0, a3, 64");
  assert.equal(await page.textContent("#encoding"), "1f03049c945e9c02");
  await page.check("#mode-hex");
  await waitShown(page, "q7:hex:1f03049c945e9c02");
  await context.close();
});

test("a slow answer to a mode switch never overwrites newer input", async () => {
  const { page, context } = await openExplorer();
  await page.selectOption("#isa", "q7");
  await waitShown(page, `q7:asm:${INSTRUCTIONS.q7.text}`);
  // From here every assembly request answers late: the switch to hex below is
  // still waiting when the hex is typed and the mode switched back.
  await page.route("**/api/q7/asm", async (route) => {
    await new Promise((r) => setTimeout(r, 800));
    await route.continue();
  });
  await page.check("#mode-hex");
  await page.fill("#input", "1f03049c945e9c02");
  await waitShown(page, "q7:hex:1f03049c945e9c02");
  await page.check("#mode-asm");
  await waitShown(page, "q7:asm:IVP_SV2NX8_IP v0, a3, 64");
  // Past the late answer of the first switch: the panel still shows the newest input.
  await page.waitForTimeout(1500);
  assert.equal(await page.inputValue("#input"), "IVP_SV2NX8_IP v0, a3, 64");
  assert.equal(await page.locator("#panel-inst").getAttribute("data-shown"), "q7:asm:IVP_SV2NX8_IP v0, a3, 64");
  await context.close();
});

test("the page says so when its server does not answer", async () => {
  const { page, context } = await openExplorer(undefined, { failedRequestsExpected: true });
  await page.route("**/api/**", (route) => route.abort());
  await page.fill("#input", "IVP_SV2NX8_IP v0, a3, 0");
  await page.waitForFunction(() => /does not answer/.test(document.querySelector("#input-error .rendered")?.textContent), undefined, POLL);
  await context.close();
});

test("a bad instruction shows the command line's error at its position", async () => {
  const { page, context } = await openExplorer();
  await typeInstruction(page, "pto", "BSTART.TSTORE U9");
  await page.waitForSelector("#input-error:not(.hidden)");
  const rendered = await page.textContent("#input-error .rendered");
  // The command line's own message for the same input (it names stdin).
  let cli = "";
  try {
    execFileSync(bin, ["pto", "asm"], { cwd: root, input: "BSTART.TSTORE U9", encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    cli = e.stderr.trim();
  }
  assert.ok(cli.startsWith("<stdin>:1:15: error:"), cli);
  assert.equal(rendered, cli.replace("<stdin>", "<input>"));
  assert.equal(await page.textContent("#input-error mark"), "U9");
  assert.equal(await page.textContent("#input-mirror mark"), "U9");
  assert.equal(await page.locator("#encoding").textContent(), "");
  await shot(page, "explorer-error.png");
  // A byte offset in hex input marks that byte's digits.
  await page.selectOption("#isa", "neuron");
  await page.check("#mode-hex");
  await page.fill("#input", "ab10 0000");
  await waitShown(page, "neuron:hex:ab10 0000");
  await page.waitForFunction(() => /^<input>:byte /.test(document.querySelector("#input-error .rendered")?.textContent), undefined, POLL);
  const r2 = await page.textContent("#input-error .rendered");
  const cli2 = (() => {
    try {
      execFileSync(bin, ["neuron", "disasm", "-"], { cwd: root, input: "ab10 0000", encoding: "utf8", stdio: "pipe" });
    } catch (e) {
      return e.stderr.trim();
    }
    return "";
  })();
  assert.equal(r2, cli2.replace("<stdin>", "<input>"));
  // The mark covers the digits of the byte the error names.
  const offset = Number(r2.match(/^<input>:byte (\d+)/)[1]);
  const digits = "ab100000".slice(2 * offset, 2 * offset + 2);
  assert.equal(await page.textContent("#input-mirror mark"), digits || " ");
  await context.close();
});

/** The run of a scenario file by `xstore run --json` (exit 1, a failed expectation, is a run too). */
function cliRun(path) {
  let out;
  try {
    out = xstore("--json", "run", path);
  } catch (e) {
    if (e.status !== 1) throw e;
    out = e.stdout;
  }
  return JSON.parse(out);
}

/** How many distinct bytes these writes ({addr, hex}) cover: one map cell each. */
function distinctBytes(writes) {
  const seen = new Set();
  for (const w of writes) {
    for (let i = 0; i < w.hex.length / 2; i++) seen.add(BigInt(w.addr) + BigInt(i));
  }
  return seen.size;
}

/** The server's trace of an example (what the page and the report draw). */
async function serverTrace(path) {
  const text = await (await fetch(`${url}api/example/${path}`)).text();
  const res = await fetch(`${url}api/run`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ scenario: text, name: path }),
  });
  assert.equal(res.status, 200, path);
  return (await res.json()).trace;
}

const SCENARIOS = [
  "examples/neuron/store_u16_2d.toml",
  "examples/q7/source_s4.toml",
  "examples/pto/fault_alignment_first.toml",
  "examples/pto/source_local.toml",
  "examples/q7/aligned_loop.toml",
  "examples/pto/tload_store_back.toml",
];

async function waitLabel(page, prefix) {
  await page.waitForFunction((p) => document.getElementById("step-label").textContent.startsWith(p), prefix, POLL);
}

test("every example is one click away, and running one shows its map and steps", async () => {
  const { page, context } = await openExplorer({ width: 1280, height: 1000 });
  await page.click("#tab-scen");
  const examples = JSON.parse(execFileSync(bin, ["--json", "demo"], { cwd: root, encoding: "utf8" })).scenarios;
  assert.equal(await page.locator(".example").count(), examples.length, "one button per bundled example");
  for (const e of examples) assert.equal(await page.locator(`.example[data-path='${e.path}']`).count(), 1, e.path);
  for (const path of SCENARIOS) {
    await page.click(`.example[data-path='${path}']`);
    await page.waitForFunction((p) => document.getElementById("scen-name").textContent === p, path, POLL);
    await waitLabel(page, "after the run");
    const run = cliRun(path);
    const trace = await serverTrace(path);
    const total = distinctBytes(run.writes);
    assert.equal(await page.textContent("#outcome"), run.outcome, `${path}: outcome`);
    assert.equal(await page.locator(WRITTEN_CELLS).count(), total, `${path}: written cells after the run`);
    const writers = trace.steps.filter((s) => s.writes.length > 0).length;
    assert.equal(await page.locator(LEGEND_WRITERS).count(), writers, `${path}: legend entries`);
    assert.equal(await page.locator("#steps-table tr").count(), trace.steps.length + 1, `${path}: steps`);
    // The tiles the run changed, one row each, as `run --json` gives them.
    const tiles = (run.tiles || []).filter((x) => x.changed);
    assert.equal(await page.locator("#tiles-table tr").count(), tiles.length ? tiles.length + 1 : 0, `${path}: tiles`);
    if (path.includes("tload")) assert.ok(tiles.length > 0, `${path}: its TLOAD changes a tile`);
    for (const [i, x] of tiles.entries()) {
      const cells = page.locator("#tiles-table tr").nth(i + 1).locator("td");
      assert.equal(await cells.nth(0).textContent(), x.name, `${path}: tile ${i}`);
      assert.equal(await cells.nth(2).getAttribute("title"), x.data, `${path}: tile ${i} data`);
    }
    if (run.fault && run.fault.address !== null) {
      assert.equal(await page.locator("#map svg rect.cell.fault").count(), 1, `${path}: the fault's cell`);
    }
    // Step by step: after instruction k, the cells of instructions 0..=k.
    await page.click("#step-first");
    await waitLabel(page, "after instruction 0 ");
    assert.equal(await page.locator(WRITTEN_CELLS).count(), distinctBytes(trace.steps[0].writes), `${path}: step 0`);
    if (trace.steps.length > 1) {
      await page.click("#step-next");
      await waitLabel(page, "after instruction 1 ");
      const upto1 = trace.steps.slice(0, 2).flatMap((s) => s.writes);
      assert.equal(await page.locator(WRITTEN_CELLS).count(), distinctBytes(upto1), `${path}: step 1`);
      assert.equal(await page.locator("#steps-table tr.current td").first().textContent(), "1");
      await page.click("#step-prev");
      await waitLabel(page, "after instruction 0 ");
      assert.equal(await page.locator(WRITTEN_CELLS).count(), distinctBytes(trace.steps[0].writes), `${path}: back to step 0`);
    }
    await page.click("#step-last");
    await waitLabel(page, "after the run");
    assert.equal(await page.locator(WRITTEN_CELLS).count(), total, `${path}: back after the run`);
    if (path.includes("source_local")) await shot(page, "explorer-scenario.png");
    // The HTML report of the same run, opened from the page in a new tab.
    if (path.includes("source_s4")) {
      const [tab] = await Promise.all([context.waitForEvent("page"), page.click("#open-report")]);
      await tab.waitForLoadState();
      assert.ok(tab.url().startsWith("blob:"), tab.url());
      assert.equal(await tab.locator(LEGEND).count(), 1, "report tab: legend");
      assert.equal(await tab.locator(WRITTEN_CELLS).count(), total, "report tab: written cells");
      await tab.close();
    }
  }
  // A scenario opened from a local file (read by the page, sent as text).
  const opened = "examples/q7/narrowing.toml";
  await page.setInputFiles("#open", join(root, opened));
  await page.waitForFunction(() => document.getElementById("scen-name").textContent === "narrowing.toml", undefined, POLL);
  assert.equal(await page.inputValue("#scenario"), readFileSync(join(root, opened), "utf8"));
  await page.click("#run");
  await page.waitForFunction(() => document.getElementById("status").textContent === "ran narrowing.toml", undefined, POLL);
  await waitLabel(page, "after the run");
  const openedRun = cliRun(opened);
  assert.equal(await page.textContent("#outcome"), openedRun.outcome);
  assert.equal(await page.locator(WRITTEN_CELLS).count(), distinctBytes(openedRun.writes), "opened: written cells");

  // A broken scenario shows the command line's error at its line (the
  // edited scenario keeps its name, as an edited file would).
  const bad = 'isa = "q7"\nprogam = "nop"\n';
  await page.fill("#scenario", bad);
  await page.click("#run");
  await page.waitForSelector("#scenario-error:not(.hidden)");
  const dir = mkdtempSync(join(tmpdir(), "xstore-bad-"));
  writeFileSync(join(dir, "bad.toml"), bad);
  let cli = "";
  try {
    execFileSync(bin, ["run", join(dir, "bad.toml")], { cwd: root, encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    cli = e.stderr.trim();
  }
  rmSync(dir, { recursive: true, force: true });
  assert.equal(await page.textContent("#scenario-error .rendered"), cli.replace(join(dir, "bad.toml"), "narrowing.toml"));
  assert.match(cli, /:2:1: error: unknown key `progam`/);
  assert.equal(await page.textContent("#scenario-mirror mark"), "progam");
  assert.ok(await page.locator("#report").isHidden());
  await context.close();
});

test("HTML reports of xstore run show the legend and a cell per byte written", async () => {
  const dir = mkdtempSync(join(tmpdir(), "xstore-report-"));
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  try {
    for (const path of SCENARIOS) {
      const out = join(dir, path.replace(/\//g, "_") + ".html");
      try {
        xstore("run", path, "--report", out);
      } catch (e) {
        if (e.status !== 1) throw e;
      }
      const run = cliRun(path);
      const trace = await serverTrace(path);
      const page = await context.newPage();
      page.on("pageerror", (e) => pageErrors.push(String(e)));
      await page.route("**/*", (route) => {
        const u = route.request().url();
        if (u === pathToFileURL(out).href) return route.continue();
        offsite.push(u);
        return route.abort();
      });
      await page.goto(pathToFileURL(out).href);
      assert.equal(await page.locator(LEGEND).count(), 1, `${path}: legend`);
      const writers = trace.steps.filter((s) => s.writes.length > 0).length;
      assert.equal(await page.locator(LEGEND_WRITERS).count(), writers, `${path}: legend entries`);
      assert.equal(await page.locator(WRITTEN_CELLS).count(), distinctBytes(run.writes), `${path}: written cells`);
      // Each written cell names the instruction the trace says wrote it last.
      const last = new Map();
      trace.steps.forEach((s) => s.writes.forEach((w) => {
        for (let i = 0; i < w.hex.length / 2; i++) last.set((BigInt(w.addr) + BigInt(i)).toString(), s.index);
      }));
      const cells = await page.$$eval(WRITTEN_CELLS, (rs) => rs.map((r) => {
        const row = BigInt(r.closest("g.row").dataset.addr);
        const col = [...r.parentNode.querySelectorAll("rect.cell")].indexOf(r);
        return { addr: (row + BigInt(col)).toString(), inst: Number(r.dataset.inst) };
      }));
      for (const c of cells) assert.equal(c.inst, last.get(c.addr), `${path}: cell ${c.addr}`);
      // The README's picture: a stream with two writers and bytes left pending.
      if (path.includes("source_s4")) await shot(page, "report.png");
      else await shot(page, `report-${path.split("/").pop().replace(".toml", "")}.png`);
      await page.close();
    }
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the page raised no script error", () => {
  assert.deepEqual(pageErrors, []);
});

// The memory map's markup (crates/viz, docs/viz.md): a byte cell is a
// `rect.cell`, and one written last by instruction k has the class `wK` and
// `data-inst="K"`; the legend is `#legend`, one `.legend-item[data-inst]`
// per instruction that wrote.
const WRITTEN_CELLS = "svg rect.cell[data-inst]";
const LEGEND = "svg #legend";
const LEGEND_WRITERS = "svg #legend .legend-item[data-inst]";
