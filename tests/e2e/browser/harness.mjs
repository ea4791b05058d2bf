// harness.mjs: what every browser test needs: the real `gpuplan serve` on a
// free port with a fresh database, Debian's chromium driven by
// playwright-core with a fresh profile, and a screenshot of the page under
// tests/e2e/screenshots/ whenever a test fails.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../../..');
export const SHOTS = path.join(ROOT, 'tests/e2e/screenshots');
const BIN = process.env.GPUPLAN_BIN || path.join(ROOT, 'build/gpuplan');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts the server; resolves to {base, stop(), log()}. */
export async function startServer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpuplan-browser-'));
  const portFile = path.join(dir, 'port');
  const logFile = path.join(dir, 'server.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(BIN, ['serve', '--port', '0', '--port-file', portFile, '--db', path.join(dir, 'test.db'), '--threads', '8'], {
    stdio: ['ignore', out, out],
  });
  let exited = null;
  child.on('exit', (code, sig) => (exited = { code, sig }));
  for (let i = 0; i < 200 && !fs.existsSync(portFile); i++) {
    if (exited) break;
    await sleep(50);
  }
  if (!fs.existsSync(portFile)) {
    child.kill('SIGKILL');
    throw new Error(`gpuplan serve did not start: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
  }
  const port = Number(fs.readFileSync(portFile, 'utf8').trim());
  return {
    base: `http://127.0.0.1:${port}`,
    log: () => fs.readFileSync(logFile, 'utf8'),
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        for (let i = 0; i < 100 && !exited; i++) await sleep(50);
        if (!exited) child.kill('SIGKILL');
      }
      fs.closeSync(out);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh browser profile each time; resolves to {context, close()}. */
export async function startBrowser() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gpuplan-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Runs fn(page) in a new page with its own cookies; on failure saves a
 * screenshot named after the test, and fails on any uncaught page error or
 * CSP violation (both mean the UI is broken even if the DOM looks right).
 */
export async function withPage(t, browser, fn, { width = 1280, height = 900 } = {}) {
  const name = t.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase();
  const file = path.join(SHOTS, `${name}.png`);
  fs.rmSync(file, { force: true }); // a screenshot left from an earlier failure must not mislead
  const page = await browser.context.newPage();
  await page.context().clearCookies();
  await page.setViewportSize({ width, height });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  try {
    await fn(page);
    if (problems.length) throw new Error(problems.join('\n'));
  } catch (e) {
    fs.mkdirSync(SHOTS, { recursive: true });
    try {
      await page.screenshot({ path: file, fullPage: true });
      e.message += `\n(screenshot: ${file})`;
    } catch {
      /* the page may be gone */
    }
    throw e;
  } finally {
    await page.close();
  }
}

/** JSON call from node, outside the browser (sets up fixtures fast). */
export async function apiCall(base, method, p, body, headers = {}) {
  const res = await fetch(base + p, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text, headers: res.headers };
}

export function fixture(name) {
  return fs.readFileSync(path.join(here, 'fixtures', name), 'utf8');
}

export function uniqueEmail(tag) {
  return `${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.test`;
}
