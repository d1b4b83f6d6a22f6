// The explorer and the run reports in a real browser: Debian's Chromium,
// headless, driven by playwright-core (no browser download).
//
//   node --test tests/browser/            (from the repository root; .ci/run does this)
//
// Environment:
//   XSTORE_BIN        the xstore binary (default target/release/xstore, else target/debug/xstore)
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
import { mkdirSync, mkdtempSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = process.env.XSTORE_BIN
  || [join(root, "target/release/xstore"), join(root, "target/debug/xstore")].find(existsSync);
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
    ],
  });
});

after(async () => {
  if (browser) await browser.close();
  stopServer();
  assert.deepEqual(offsite, [], "the page asked for something other than its server");
});

/** A fresh page on the explorer whose every request is checked. */
async function openExplorer(viewport = { width: 1280, height: 900 }) {
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
    if (m.type() === "error" && !/status of 422/.test(m.text())) pageErrors.push(m.text());
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

/** Type `text` into the instruction input and wait for the answer. */
async function typeInstruction(page, isa, text) {
  await page.selectOption("#isa", isa);
  await page.check("#mode-asm");
  await page.fill("#input", "");
  await page.locator("#input").pressSequentially(text, { delay: 0 });
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
    await page.waitForFunction((h) => document.getElementById("encoding").textContent.trim() === h, hex);
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
  await typeInstruction(page, "neuron", INSTRUCTIONS.neuron.text);
  await page.waitForSelector("#diagram svg");
  await shot(page, "explorer.png");
  await context.close();
});

test("a hex input is disassembled and explained", async () => {
  const { page, context } = await openExplorer();
  await page.selectOption("#isa", "q7");
  await page.check("#mode-hex");
  await page.fill("#input", "1f03049c945e9c02");
  await page.waitForFunction(() => document.getElementById("encoding").textContent === "IVP_SV2NX8_IP v0, a3, 64");
  assert.equal(await page.textContent("#encoding-title"), "Disassembly");
  await page.waitForSelector("#explain table");
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
  await page.waitForFunction(() => /^<input>:byte /.test(document.querySelector("#input-error .rendered")?.textContent));
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

/** Bytes written by a scenario, from `xstore run --json`. */
function bytesWritten(path) {
  let out;
  try {
    out = xstore("--json", "run", path);
  } catch (e) {
    out = e.stdout; // exit 1: an expectation failed; the JSON is still there
  }
  const run = JSON.parse(out);
  return { run, bytes: run.writes.reduce((n, w) => n + w.hex.length / 2, 0) };
}

test("every example is one click away, and running one shows its map and steps", async () => {
  const { page, context } = await openExplorer({ width: 1280, height: 1000 });
  await page.click("#tab-scen");
  const examples = JSON.parse(execFileSync(bin, ["--json", "demo"], { cwd: root, encoding: "utf8" })).scenarios;
  const buttons = await page.locator(".example").count();
  assert.equal(buttons, examples.length, "one button per bundled example");
  for (const path of ["examples/neuron/store_u16_2d.toml", "examples/q7/source_s4.toml", "examples/pto/fault_alignment_first.toml"]) {
    await page.click(`.example[data-path='${path}']`);
    await page.waitForFunction((p) => document.getElementById("scen-name").textContent === p, path);
    await page.waitForSelector("#report:not(.hidden) #map svg");
    const { run, bytes } = bytesWritten(path);
    assert.equal(await page.textContent("#outcome"), run.outcome, `${path}: outcome`);
    const written = await page.locator(WRITTEN_CELLS).count();
    assert.equal(written, bytes, `${path}: written cells`);
    // Before the first instruction nothing is written.
    await page.click("#step-first");
    await page.waitForFunction(() => document.getElementById("step-label").textContent.startsWith("before"));
    assert.equal(await page.locator(WRITTEN_CELLS).count(), 0, `${path}: step 0`);
    await page.click("#step-last");
    await page.waitForFunction(() => document.getElementById("step-label").textContent.startsWith("after"));
    assert.equal(await page.locator(WRITTEN_CELLS).count(), bytes, `${path}: last step`);
    if (path.includes("store_u16_2d")) await shot(page, "explorer-scenario.png");
  }
  // A broken scenario shows its error at its line.
  await page.fill("#scenario", 'isa = "q7"\nprogam = "nop"\n');
  await page.click("#run");
  await page.waitForSelector("#scenario-error:not(.hidden)");
  assert.match(await page.textContent("#scenario-error .rendered"), /^<scenario>:2:1: error: /);
  assert.equal(await page.textContent("#scenario-mirror mark"), "progam");
  await context.close();
});

test("HTML reports of xstore run show the legend and a cell per byte written", async () => {
  const dir = mkdtempSync(join(tmpdir(), "xstore-report-"));
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  try {
    for (const path of ["examples/neuron/store_u16_2d.toml", "examples/q7/source_s4.toml", "examples/pto/fault_alignment_first.toml", "examples/pto/source_local.toml"]) {
      const out = join(dir, path.replace(/\//g, "_") + ".html");
      try {
        xstore("run", path, "--report", out);
      } catch (e) {
        if (!existsSync(out)) throw e;
      }
      const { bytes } = bytesWritten(path);
      const page = await context.newPage();
      page.on("pageerror", (e) => pageErrors.push(String(e)));
      await page.route("**/*", (route) => {
        const u = route.request().url();
        if (u.startsWith("file:") || u.startsWith("data:")) return route.continue();
        offsite.push(u);
        return route.abort();
      });
      await page.goto(pathToFileURL(out).href);
      assert.ok(await page.locator(LEGEND).count() >= 1, `${path}: legend`);
      assert.equal(await page.locator(WRITTEN_CELLS).count(), bytes, `${path}: written cells`);
      if (path.includes("store_u16_2d")) await shot(page, "report.png");
      else await shot(page, `report-${path.split("/").pop()}.png`);
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

// The memory map's markup (crates/viz): a byte cell written by instruction k
// has the classes `cell wK`; the legend is the element with id `legend`.
const WRITTEN_CELLS = "svg .cell[class*=' w']";
const LEGEND = "#legend";
