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

/**
 * Text on the page that misses WCAG 2.x AA contrast: below 4.5:1, or 3:1 for
 * large text (24 px, or 18.66 px bold). Each element's own text (text nodes,
 * a control's value or placeholder, SVG text by its fill) is measured
 * against the background it sits on: the backgrounds of its ancestors
 * composited from the page down, each weighted by its alpha and the opacity
 * of its group, so translucent badges and dimmed panels count as they
 * render. Hidden, clipped-away and disabled text is skipped (WCAG exempts
 * disabled controls). Resolves to a list of {text, ratio, need, fg, bg}.
 */
export async function contrastProblems(page) {
  return page.evaluate(() => {
    const parse = (c) => {
      const m = /rgba?\(([^)]+)\)/.exec(c || '');
      if (!m) return null;
      const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
      return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
    };
    const over = (top, under) => ({
      r: top.r * top.a + under.r * (1 - top.a),
      g: top.g * top.a + under.g * (1 - top.a),
      b: top.b * top.a + under.b * (1 - top.a),
      a: 1,
    });
    const lum = (c) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
    };
    const ratio = (x, y) => {
      const [hi, lo] = [lum(x), lum(y)].sort((p, q) => q - p);
      return (hi + 0.05) / (lo + 0.05);
    };
    const hex = (c) => `#${[c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
    const clippedAway = (el) => {
      for (let e = el; e && e !== document.body; e = e.parentElement) {
        const cs = getComputedStyle(e);
        const r = e.getBoundingClientRect();
        if (r.width <= 1 || r.height <= 1) {
          if (e === el || cs.overflow !== 'visible' || cs.clip !== 'auto') return true;
        }
      }
      const r = el.getBoundingClientRect();
      return r.right <= 0 || r.bottom <= 0 - window.scrollY; // moved off the page (the skip link)
    };
    const textOf = (el) => {
      if (el.matches('input, textarea')) {
        if (['checkbox', 'radio', 'file', 'hidden', 'range', 'color'].includes(el.type)) return null;
        return el.value ? { text: el.value } : el.placeholder ? { text: el.placeholder, pseudo: '::placeholder' } : null;
      }
      if (el.tagName === 'SELECT') return el.selectedOptions[0] ? { text: el.selectedOptions[0].textContent } : null;
      if (el.tagName === 'OPTION' || el.closest('select')) return null;
      const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('').trim();
      return own ? { text: own } : null;
    };
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      const t = textOf(el);
      if (!t) continue;
      if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) continue;
      if (el.matches(':disabled') || el.closest('fieldset:disabled')) continue;
      if (clippedAway(el)) continue;
      const cs = getComputedStyle(el, t.pseudo || null);
      const own = getComputedStyle(el);
      const isSvg = el instanceof SVGElement;
      let fg = parse(isSvg ? cs.fill : cs.color);
      if (!fg) continue;
      const chain = [];
      for (let e = el; e; e = e.parentElement) chain.unshift(e);
      let bg = { r: 255, g: 255, b: 255, a: 1 }; // the canvas
      let opacity = 1;
      for (const e of chain) {
        const s = getComputedStyle(e);
        opacity *= Number(s.opacity);
        const c = e instanceof SVGElement ? null : parse(s.backgroundColor);
        if (c && c.a > 0) bg = over({ ...c, a: c.a * opacity }, bg);
      }
      fg = over({ ...fg, a: fg.a * opacity }, bg);
      const size = parseFloat(own.fontSize);
      const bold = parseInt(own.fontWeight, 10) >= 700;
      const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
      const r = ratio(fg, bg);
      if (r + 1e-6 < need)
        out.push({ text: t.text.slice(0, 50), where: el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''), ratio: +r.toFixed(2), need, fg: hex(fg), bg: hex(bg) });
    }
    return out;
  });
}

/**
 * Tabs through the page from its start and reports which tab stops were
 * never reached and which showed no focus indicator. The tab stops expected
 * are every visible, enabled control (links, buttons, inputs, selects,
 * textareas, summaries, tabindex >= 0); a radio group is one stop, as the
 * arrow keys move within it. A focus indicator is a non-none outline of
 * some width or a box-shadow while the element matches :focus-visible.
 * Resolves to {expected, reached, missed: [...], unmarked: [...]}.
 */
export async function tabWalk(page, { maxSteps = 400 } = {}) {
  const expected = await page.evaluate(() => {
    const sel = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]';
    const groups = new Map();
    let n = 0;
    const list = [];
    for (const el of document.querySelectorAll(sel)) {
      delete el.dataset.kbd;
      if (el.tabIndex < 0 || el.matches(':disabled') || el.closest('[inert]')) continue;
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      if (el.type === 'radio' && el.name) {
        const key = `${el.form ? el.form.id : ''}/${el.name}`;
        if (!groups.has(key)) {
          groups.set(key, String(n++));
          list.push({ id: groups.get(key), what: `radio group ${el.name}` });
        }
        el.dataset.kbd = groups.get(key);
        continue;
      }
      el.dataset.kbd = String(n++);
      list.push({ id: el.dataset.kbd, what: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${(el.getAttribute('aria-label') || el.textContent || el.name || '').trim().slice(0, 40)}"` });
    }
    // Start from the top of the document, whatever was clicked before.
    document.body.tabIndex = -1;
    document.body.focus();
    document.body.removeAttribute('tabindex');
    return list;
  });
  const reached = new Map();
  let first = null;
  let outside = 0;
  for (let i = 0; i < maxSteps; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const cs = getComputedStyle(el);
      const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0;
      return {
        id: el.dataset.kbd ?? `untracked ${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}`,
        marked: el.matches(':focus-visible') && (outline || cs.boxShadow !== 'none'),
      };
    });
    if (!at) {
      if (++outside > 3) break; // focus left the page for good
      continue; // past the last control focus leaves the page, then comes back to the top
    }
    outside = 0;
    if (at.id === first) break; // wrapped around
    if (first === null) first = at.id;
    reached.set(at.id, at.marked);
  }
  return {
    expected: expected.length,
    reached: reached.size,
    missed: expected.filter((e) => !reached.has(e.id)).map((e) => e.what),
    unmarked: expected.filter((e) => reached.get(e.id) === false).map((e) => e.what),
  };
}

/** Opens every <details> so folded text and controls are checked too. */
export async function openAllDetails(page) {
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
}
