// ui.test.mjs: the web UI in a real browser against the real server: the
// planner, the team flow from sign-up to a report's verdict, the share page
// for procurement and its printout, and the quality bar (contrast AA, every
// control reached by keyboard with a visible focus, 390 px screens). Run
// with `node --test` (ctest: browser).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  apiCall, contrastProblems, fixture, openAllDetails, SHOTS, startBrowser, startServer, tabWalk, uniqueEmail, withPage,
} from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await startBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const TIERS = ['minimum', 'recommended', 'performance'];

/** Controls a screen reader could not name: no label, no aria-label, no text. */
async function unlabelled(page) {
  return page.$$eval('input, select, textarea, button', (els) =>
    els
      .filter((e) => e.type !== 'hidden' && !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !(e.tagName === 'BUTTON' && e.textContent.trim()))
      .map((e) => e.outerHTML.slice(0, 80)),
  );
}

async function threeTiers(page) {
  await page.waitForFunction(() => document.querySelectorAll('#tiers [data-tier]').length === 3, null, { timeout: 30000 });
  return page.$$eval('#tiers [data-tier]', (els) => els.map((e) => e.dataset.tier));
}

/** A team, logged in from node: {cookie, csrf}. */
async function teamFromNode(tag) {
  const r = await apiCall(server.base, 'POST', '/api/v1/teams', { team: `Team ${tag}`, email: uniqueEmail(tag), password: 'correct horse battery staple' });
  assert.equal(r.status, 201, r.text);
  const cookie = (r.headers.get('set-cookie') || '').split(';')[0];
  return { cookie, csrf: r.json.csrf_token };
}

async function planFromNode(team) {
  const r = await apiCall(
    server.base,
    'POST',
    '/api/v1/plans',
    { title: 'Share test plan', tier: 'recommended', workload: { model: { preset: 'llama-2-7b' }, task: 'pretrain', tokens_b: 200, seq_len: 4096, precision: 'bf16', deadline_days: 30, pricing: 'cloud' } },
    { Cookie: team.cookie, 'X-CSRF-Token': team.csrf },
  );
  assert.equal(r.status, 201, r.text);
  return r.json;
}

async function reportFromNode(team, plan) {
  const r = await apiCall(server.base, 'POST', `/api/v1/plans/${plan.id}/reports`, fixture('oci-oke-2node-a100-busbw238.txt'), {
    Cookie: team.cookie, 'X-CSRF-Token': team.csrf, 'Content-Type': 'text/plain',
  });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

/** Logs the browser in as a team made from node: its cookie, and the CSRF token the pages keep. */
async function logIn(page, team) {
  const eq = team.cookie.indexOf('=');
  await page.context().addCookies([{ name: team.cookie.slice(0, eq), value: team.cookie.slice(eq + 1), url: server.base }]);
  await page.addInitScript((csrf) => localStorage.setItem('gpuplan.csrf', csrf), team.csrf);
}

/** The plan page with its report history drawn and one verdict shown. */
async function planPageWithVerdict(page, plan) {
  await page.goto(`${server.base}/plan.html?id=${plan.id}`);
  await page.locator('#report-history tbody tr').first().waitFor({ timeout: 15000 });
  await page.getByRole('button', { name: /^Show the verdict/ }).first().click();
  await page.locator('#verdict .verdict[data-verdict]').waitFor({ timeout: 15000 });
}

async function shareFromNode(team, plan) {
  const r = await apiCall(server.base, 'POST', `/api/v1/plans/${plan.id}/shares`, { expires_days: 7 }, { Cookie: team.cookie, 'X-CSRF-Token': team.csrf });
  assert.equal(r.status, 201, r.text);
  return new URL(r.json.url || `/s/${r.json.token}`, server.base).href;
}

test('the planner shows three tier cards on load and updates when the model changes', async (t) =>
  withPage(t, browser, async (page) => {
    await page.goto(`${server.base}/`);
    assert.deepEqual(await threeTiers(page), TIERS);
    for (const tier of TIERS) {
      const card = page.locator(`#tiers [data-tier="${tier}"]`);
      assert.match(await card.innerText(), /Memory per GPU/i);
    }
    assert.equal(await page.locator('#charts svg[role="img"]').count(), 2, 'memory and time/cost charts');
    // The example's recommended and minimum tiers sit close on the time/cost
    // chart: their labels step aside instead of running into each other.
    const clashes = await page.$$eval('#charts .point-label, #charts .limit-label', (els) => {
      const boxes = els.map((e) => ({ text: e.textContent, r: e.getBoundingClientRect() }));
      const out = [];
      boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
        const gap = 3; // px of air between two labels, or they read as one
        if (a.r.left < b.r.right + gap && b.r.left < a.r.right + gap && a.r.top < b.r.bottom && b.r.top < a.r.bottom) out.push(`${a.text} / ${b.text}`);
      }));
      return out;
    });
    assert.deepEqual(clashes, [], 'chart labels run into each other');

    const select = page.locator('#f-model');
    const before = await select.inputValue();
    const other = await select.evaluate((el, cur) => [...el.options].map((o) => o.value).find((v) => v !== cur && v !== 'custom'), before);
    assert.ok(other, 'the catalog offers a second preset');
    const oldSummary = await page.locator('#summary').innerText();
    await select.selectOption(other);
    await page.waitForFunction((old) => {
      const s = document.querySelector('#summary');
      return s && s.innerText !== old && !document.querySelector('#status.busy');
    }, oldSummary, { timeout: 30000 });
    const name = (await select.locator('option:checked').innerText()).split(' · ')[0];
    assert.ok((await page.locator('#summary').innerText()).includes(name), `the summary names ${name}`);
    assert.deepEqual(await threeTiers(page), TIERS);
    assert.match(page.url(), new RegExp(`model=${encodeURIComponent(other).replace(/[.]/g, '\\.')}`));

    // The URL reproduces the calculation in a fresh page.
    const url = page.url();
    const again = await browser.context.newPage();
    try {
      await again.goto(url);
      assert.deepEqual(await threeTiers(again), TIERS);
      assert.equal(await again.locator('#f-model').inputValue(), other);
      assert.equal(await again.locator('#summary').innerText(), await page.locator('#summary').innerText());
    } finally {
      await again.close();
    }
  }));

test('an API error is shown next to the field it names', async (t) =>
  withPage(t, browser, async (page) => {
    await page.goto(`${server.base}/?model=llama-2-7b&task=pretrain&tokens_b=-5&precision=bf16&pricing=cloud`);
    const err = page.locator('#f-tokens_b[aria-invalid="true"] ~ .field-error, .field:has(#f-tokens_b) .field-error');
    await err.first().waitFor({ timeout: 30000 });
    assert.ok((await err.first().innerText()).length > 0);
    await page.fill('#f-tokens_b', '100');
    await page.waitForFunction(() => !document.querySelector('.field-error') && document.querySelectorAll('#tiers [data-tier]').length === 3, null, { timeout: 30000 });
  }));

test('a Gaudi 3 plan names its on-chip RoCE ports instead of zero NICs', async (t) =>
  withPage(t, browser, async (page) => {
    await page.goto(`${server.base}/?model=llama-3-70b&task=pretrain&tokens_b=2000&precision=bf16&pricing=buy&gpus=gaudi3-oam-128gb`);
    await threeTiers(page);
    const text = await page.locator('#tiers [data-tier="recommended"]').innerText();
    assert.match(text, /on-chip ports\/node/);
    assert.doesNotMatch(text, /\b0 NICs\/node/);
  }));

test('the planner fits a 390 px wide screen', async (t) =>
  withPage(
    t,
    browser,
    async (page) => {
      await page.goto(`${server.base}/`);
      await threeTiers(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
      // Every control has a label (accessible name).
      assert.deepEqual(await unlabelled(page), []);
    },
    { width: 390, height: 844 },
  ));

test('sign-up, save a plan, upload a report and read its verdict and findings', async (t) =>
  withPage(t, browser, async (page) => {
    await page.goto(`${server.base}/workspace.html`);
    const signup = page.locator('#signup');
    await signup.waitFor();
    assert.deepEqual(await unlabelled(page), []);
    await signup.getByLabel('Team name').fill('Browser Test Team');
    await signup.getByLabel('Email').fill(uniqueEmail('ui'));
    await signup.getByLabel('Password').fill('a long enough password');
    await signup.getByRole('button', { name: 'Sign up' }).click();
    await page.locator('#plan-list').waitFor({ timeout: 15000 });
    await page.locator('#token-list li').first().waitFor();
    assert.deepEqual(await unlabelled(page), []);

    await page.goto(`${server.base}/`);
    await threeTiers(page);
    await page.locator('#save-form').waitFor();
    await page.getByLabel('Plan title').fill('Browser test plan');
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.waitForURL(/\/plan\.html\?id=/, { timeout: 15000 });
    await page.waitForFunction(() => document.querySelectorAll('[data-tier]').length === 3, null, { timeout: 15000 });
    assert.equal(await page.locator('h1').innerText(), 'Browser test plan');
    assert.equal(await page.locator('[data-tier].chosen').getAttribute('data-tier'), 'recommended');
    // The team can choose another tier; the page marks it.
    await page.getByLabel('The team goes with').selectOption('performance');
    await page.waitForFunction(() => document.querySelector('[data-tier].chosen')?.dataset.tier === 'performance', null, { timeout: 15000 });

    // Upload through the file picker: its text lands in the box, then goes up.
    await page.setInputFiles('#report-file', { name: 'all_reduce.txt', mimeType: 'text/plain', buffer: Buffer.from(fixture('oci-oke-2node-a100-busbw238.txt')) });
    await page.waitForFunction(() => document.querySelector('#report-form textarea').value.includes('all_reduce') || document.querySelector('#report-form textarea').value.includes('busbw'));
    await page.getByRole('button', { name: 'Check against the plan' }).click();
    const verdict = page.locator('#verdict .verdict[data-verdict]');
    await verdict.waitFor({ timeout: 15000 });
    assert.match(await verdict.getAttribute('data-verdict'), /^(pass|warn|fail|unknown)$/);
    const sev = await page.$$eval('#verdict table.checked tr.finding', (rows) => rows.map((r) => r.dataset.severity));
    assert.ok(sev.length >= 1, 'at least one finding compared with the plan');
    assert.ok(sev.some((x) => x === 'fail' || x === 'warn'), 'the fixture (busbw 238 GB/s on A100) misses this plan somewhere');
    const rank = { fail: 0, warn: 1, unknown: 2, skip: 3, pass: 4 };
    assert.deepEqual(sev, [...sev].sort((a, b) => rank[a] - rank[b]), 'findings sorted worst first');
    // Each finding reads as observed vs expected with its rule.
    const cells = await page.locator('#verdict table.checked tr.finding').first().locator('td').allInnerTexts();
    assert.equal(cells.length, 5);
    assert.match(cells[4], /^[RFT]\d/);
    // The report joins the plan's history.
    await page.locator('#report-history tbody tr').first().waitFor({ timeout: 15000 });

    assert.deepEqual(await unlabelled(page), []);

    // A share link made in the UI opens without login.
    await page.getByRole('button', { name: 'Create share link' }).click();
    const link = page.locator('#share-url');
    await link.waitFor({ timeout: 15000 });
    const shareUrl = await link.getAttribute('href');
    await browser.context.clearCookies();
    const anon = await browser.context.newPage();
    try {
      const res = await anon.goto(shareUrl);
      assert.equal(res.status(), 200);
      assert.ok((await anon.locator('table.bom tbody tr').count()) >= 1);
    } finally {
      await anon.close();
    }
  }));

test('a share link opens without login and shows the bill of materials', async (t) =>
  withPage(t, browser, async (page) => {
    const team = await teamFromNode('share');
    const url = await shareFromNode(team, await planFromNode(team));
    const res = await page.goto(url);
    assert.equal(res.status(), 200);
    const bom = page.locator('table.bom');
    assert.ok((await bom.count()) >= 1, 'a table.bom');
    assert.ok((await page.locator('table.bom tbody tr').count()) >= 3, 'several BOM lines');
    assert.match(await page.locator('body').innerText(), /as of/i);
    assert.equal(await page.locator('input, textarea, select, form').count(), 0, 'nothing editable');
    // The page is styled by share.css (the header row's shading comes only from there).
    const shade = await page.locator('table.bom thead th').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(shade, 'rgb(238, 242, 246)');
    for (const ext of ['csv', 'json']) {
      const r = await page.request.get(`${url}.${ext}`);
      assert.equal(r.status(), 200, ext);
    }
  }));

test('printing the share page gives A4 and Letter pages with the BOM table', async (t) =>
  withPage(t, browser, async (page) => {
    const team = await teamFromNode('print');
    const url = await shareFromNode(team, await planFromNode(team));
    await page.goto(url);
    await page.emulateMedia({ media: 'print' });
    const visible = await page.locator('table.bom').first().evaluate((el) => {
      const r = el.getBoundingClientRect();
      return getComputedStyle(el).display !== 'none' && r.width > 0 && r.height > 0;
    });
    assert.ok(visible, 'table.bom prints');
    const dom = await page.evaluate(() => ({
      tables: document.querySelectorAll('table.bom').length,
      rows: document.querySelectorAll('table.bom tr').length,
    }));
    for (const format of ['A4', 'Letter']) {
      // A tagged PDF carries the document's structure (Table, TR, TH, TD), so
      // the printout can be checked for the tables themselves, not only for pages.
      const pdf = await page.pdf({ format, printBackground: true, tagged: true });
      const text = pdf.toString('latin1');
      assert.ok(text.startsWith('%PDF-'), 'a PDF');
      const pages = (text.match(/\/Type\s*\/Page(?![s\w])/g) || []).length;
      assert.ok(pages >= 1 && pages <= 12, `${format}: ${pages} pages`);
      const tags = {};
      for (const m of text.matchAll(/\/S\s*\/(Table|TR|TH|TD)\b/g)) tags[m[1]] = (tags[m[1]] || 0) + 1;
      assert.equal(tags.Table, dom.tables, `${format}: every BOM table is in the PDF`);
      assert.equal(tags.TR, dom.rows, `${format}: every BOM row is in the PDF`);
      assert.ok(tags.TD > dom.rows, `${format}: the rows carry their cells`);
    }
  }));

test('warnings said for several tiers appear once above the cards, and long lists fold', async (t) =>
  withPage(t, browser, async (page) => {
    // A large MoE run: every tier warns, one warning (the price estimate of
    // the same card) repeats across tiers, and one tier has more than two.
    const workload = { model: { preset: 'deepseek-v3' }, task: 'pretrain', tokens_b: 14000, precision: 'fp8', deadline_days: 60, budget_usd: 50000000, pricing: 'cloud' };
    const rec = (await apiCall(server.base, 'POST', '/api/v1/recommend', workload)).json;
    const where = new Map();
    for (const tier of rec.tiers) for (const w of new Set(tier.warnings || [])) where.set(w, [...(where.get(w) || []), tier.tier]);
    const shared = [...where].filter(([, tiers]) => tiers.length > 1).map(([w]) => w);
    const own = Object.fromEntries(rec.tiers.map((x) => [x.tier, [...new Set(x.warnings || [])].filter((w) => !shared.includes(w))]));
    assert.ok(shared.length >= 1, 'this workload has a warning shared by tiers (pick another if the engine changed)');
    assert.ok(Object.values(own).some((l) => l.length > 2), 'and a tier with more than two of its own');

    await page.goto(`${server.base}/?model=deepseek-v3&task=pretrain&tokens_b=14000&precision=fp8&deadline_days=60&budget_usd=50000000&pricing=cloud`);
    await threeTiers(page);
    const block = page.locator('#shared-warnings');
    await openAllDetails(page);
    const blockText = await block.innerText();
    for (const w of shared) assert.ok(blockText.replace(/\s+/g, ' ').includes(w.replace(/\s+/g, ' ')), `shared once above the cards: ${w}`);
    for (const tier of TIERS) {
      const card = page.locator(`#tiers [data-tier="${tier}"]`);
      const items = await card.locator('.warnings li').allInnerTexts();
      assert.deepEqual(items.map((x) => x.replace(/\s+/g, ' ').trim()), own[tier].map((x) => x.replace(/\s+/g, ' ').trim()), `${tier}: only its own warnings`);
      assert.equal(await card.locator('details.warnings').count(), own[tier].length > 2 ? 1 : 0, `${tier}: folded only when more than two`);
      const sharedHere = shared.filter((w) => where.get(w).includes(tier)).length;
      assert.equal(await card.locator('.shared-note').count(), sharedHere ? 1 : 0, `${tier}: points to its shared warnings`);
    }
    // Folded lists start closed and name each warning in their summary.
    await page.reload();
    await threeTiers(page);
    const folded = page.locator('#tiers details.warnings').first();
    assert.equal(await folded.evaluate((d) => d.open), false);
    assert.match(await folded.locator('summary').innerText(), /^\d+ warnings: /);
  }));

test('text meets WCAG AA contrast on the planner, workspace, plan and share pages', async (t) =>
  withPage(t, browser, async (page) => {
    // The check itself must see bad text: grey #999 on white is 2.8:1.
    await page.goto(`${server.base}/`);
    await threeTiers(page);
    const probe = await page.evaluate(() => {
      const p = document.createElement('p');
      p.textContent = 'contrast probe';
      p.style.color = '#999999';
      p.style.background = '#ffffff';
      document.querySelector('.summary').append(p);
      return true;
    });
    const caught = (await contrastProblems(page)).filter((x) => x.text === 'contrast probe');
    assert.ok(probe && caught.length === 1 && caught[0].ratio < 3 && caught[0].need === 4.5, JSON.stringify(caught));

    const found = {};
    const check = async (where) => {
      await openAllDetails(page);
      const bad = await contrastProblems(page);
      if (bad.length) found[where] = bad;
    };
    await page.goto(`${server.base}/`);
    await threeTiers(page);
    await check('planner');
    // A tier that cannot be built, and shared warnings above the cards.
    await page.goto(`${server.base}/?model=llama-3.1-405b&task=pretrain&tokens_b=15000&precision=fp8&deadline_days=90&pricing=buy&gpus=gb200-nvl-186gb,mi300x-oam-192gb`);
    await threeTiers(page);
    await check('planner with an infeasible tier');
    // An input error while the cards still show the last good answer.
    await page.fill('#f-tokens_b', '-5');
    await page.locator('.field-error').first().waitFor({ timeout: 30000 });
    await page.waitForFunction(() => document.querySelector('#results.stale'), null, { timeout: 30000 });
    await check('planner with an input error');
    await page.goto(`${server.base}/workspace.html`);
    await page.locator('#signup').waitFor();
    await check('workspace, logged out');

    const team = await teamFromNode('contrast');
    const plan = await planFromNode(team);
    await reportFromNode(team, plan);
    const share = await shareFromNode(team, plan);
    await logIn(page, team);
    await page.goto(`${server.base}/workspace.html`);
    await page.locator('#plan-list li[data-plan-id]').first().waitFor({ timeout: 15000 });
    await check('workspace');
    await planPageWithVerdict(page, plan);
    await check('plan page');
    await page.goto(share);
    await check('share page');
    await page.setViewportSize({ width: 390, height: 844 });
    await check('share page at 390 px');
    assert.deepEqual(found, {}, `text below AA contrast:\n${JSON.stringify(found, null, 1)}`);
  }));

test('every control on the planner and the plan page is reached with Tab and shows its focus', async (t) =>
  withPage(t, browser, async (page) => {
    await page.goto(`${server.base}/`);
    await threeTiers(page);
    await openAllDetails(page); // the GPU list and the folded card sections hold controls too
    let walk = await tabWalk(page);
    assert.ok(walk.expected >= 30, `the planner has its controls (${walk.expected})`);
    assert.deepEqual(walk.missed, [], 'planner: controls Tab never reaches');
    assert.deepEqual(walk.unmarked, [], 'planner: controls without a visible focus');
    // The walk must see a control whose focus style was taken away.
    await page.evaluate(() => document.styleSheets[0].insertRule('#copy-link:focus-visible { outline: none !important; box-shadow: none !important; }', document.styleSheets[0].cssRules.length));
    walk = await tabWalk(page);
    assert.deepEqual(walk.unmarked, ['button#copy-link "Copy link to this calculation"'], 'the probe without a focus style is caught');

    const team = await teamFromNode('keys');
    const plan = await planFromNode(team);
    await reportFromNode(team, plan);
    await logIn(page, team);
    await planPageWithVerdict(page, plan);
    await openAllDetails(page);
    walk = await tabWalk(page);
    assert.ok(walk.expected >= 20, `the plan page has its controls (${walk.expected})`);
    assert.deepEqual(walk.missed, [], 'plan page: controls Tab never reaches');
    assert.deepEqual(walk.unmarked, [], 'plan page: controls without a visible focus');
  }));

test('a plan is renamed on its page, with the keyboard, as a new revision', async (t) =>
  withPage(t, browser, async (page) => {
    const team = await teamFromNode('rename');
    const plan = await planFromNode(team);
    await logIn(page, team);
    await page.goto(`${server.base}/plan.html?id=${plan.id}`);
    const rename = page.locator('#plan-rename');
    await rename.waitFor({ timeout: 15000 });
    const input = page.getByLabel('Plan title');

    // An empty title: the server's message shows next to the field.
    await rename.focus();
    await page.keyboard.press('Enter');
    assert.ok(await input.evaluate((el) => el === document.activeElement), 'the field takes the focus');
    await input.fill(' ');
    await page.keyboard.press('Enter');
    const err = page.locator('#rename-form .field-error');
    await err.waitFor({ timeout: 15000 });
    assert.match(await err.innerText(), /title/);
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    // Escape leaves the title as it was.
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#plan-title').innerText(), 'Share test plan');
    assert.ok(await rename.evaluate((el) => el === document.activeElement), 'focus back on Rename');

    await page.keyboard.press('Enter');
    await input.fill('Procurement copy, spring run');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#plan-title')?.textContent === 'Procurement copy, spring run', null, { timeout: 15000 });
    assert.ok(await page.locator('#plan-rename').evaluate((el) => el === document.activeElement), 'focus back on Rename');
    assert.match(await page.title(), /Procurement copy, spring run/);

    // The server keeps it: a new revision with the same workload and tier.
    const got = await apiCall(server.base, 'GET', `/api/v1/plans/${plan.id}`, undefined, { Cookie: team.cookie });
    assert.equal(got.json.title, 'Procurement copy, spring run');
    assert.equal(got.json.revision, (plan.revision ?? 1) + 1);
    assert.equal(got.json.tier, plan.tier);
    assert.deepEqual(got.json.workload, plan.workload);
    await page.reload();
    await page.locator('#plan-title').waitFor({ timeout: 15000 });
    assert.equal(await page.locator('#plan-title').innerText(), 'Procurement copy, spring run');
    assert.match(await page.locator('#revision-list').innerText(), /Revision 2/);
  }));

test('the share page bill of materials stacks into rows at 390 px and stays a table in print and at 1280 px', async (t) =>
  withPage(
    t,
    browser,
    async (page) => {
      const team = await teamFromNode('reflow');
      await page.goto(await shareFromNode(team, await planFromNode(team)));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
      const tables = await page.$$eval('table.bom', (list) =>
        list.map((table) => {
          const heads = [...table.tHead.rows[0].cells].map((c) => c.textContent.trim());
          const bad = [];
          if (table.scrollWidth > table.clientWidth + 1) bad.push('the table scrolls sideways');
          for (const tr of table.tBodies[0].rows) {
            if (getComputedStyle(tr).display !== 'block') bad.push('a row is not stacked');
            [...tr.cells].forEach((td, i) => {
              if (td.getBoundingClientRect().right > window.innerWidth) bad.push(`${heads[i]} runs off the screen`);
              const caption = getComputedStyle(td, '::before').content;
              // Every cell but the item (the row's heading) is captioned by its column's name.
              if (i > 0 && td.textContent.trim() && caption !== JSON.stringify(heads[i])) bad.push(`${heads[i]} cell captioned ${caption}`);
            });
          }
          return { rows: table.tBodies[0].rows.length, bad };
        }),
      );
      assert.ok(tables.length >= 1 && tables.every((x) => x.rows >= 1));
      assert.deepEqual(tables.flatMap((x) => x.bad), []);

      const shape = () => page.$eval('table.bom', (el) => ({ table: getComputedStyle(el).display, head: getComputedStyle(el.tHead).display, row: getComputedStyle(el.tBodies[0].rows[0]).display }));
      await page.emulateMedia({ media: 'print' });
      assert.deepEqual(await shape(), { table: 'table', head: 'table-header-group', row: 'table-row' }, 'print keeps the table');
      await page.emulateMedia({ media: 'screen' });
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.deepEqual(await shape(), { table: 'table', head: 'table-header-group', row: 'table-row' }, 'a wide screen keeps the table');
    },
    { width: 390, height: 844 },
  ));

test('the workspace and a plan page with a verdict fit a 390 px wide screen', async (t) =>
  withPage(
    t,
    browser,
    async (page) => {
      const wider = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      const team = await teamFromNode('narrow');
      const plan = await planFromNode(team);
      await reportFromNode(team, plan);
      await logIn(page, team);
      await page.goto(`${server.base}/workspace.html`);
      await page.locator('#plan-list li[data-plan-id]').first().waitFor({ timeout: 15000 });
      assert.ok((await wider()) <= 0, `workspace is ${await wider()}px wider than the screen`);
      await planPageWithVerdict(page, plan);
      await openAllDetails(page);
      assert.ok((await wider()) <= 0, `plan page is ${await wider()}px wider than the screen`);
      await page.locator('#plan-rename').click();
      assert.ok((await wider()) <= 0, `plan page while renaming is ${await wider()}px wider than the screen`);
    },
    { width: 390, height: 844 },
  ));

test('a failing browser test leaves a screenshot of its page', async () => {
  const name = 'harness-self-check-failing-on-purpose';
  const file = path.join(SHOTS, `${name}.png`);
  try {
    await assert.rejects(
      withPage({ name }, browser, async (page) => {
        await page.goto(`${server.base}/`);
        throw new Error('failing on purpose');
      }),
      (e) => e.message.includes('failing on purpose') && e.message.includes(file),
    );
    const png = fs.readFileSync(file);
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.ok(png.length > 1000);
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('the summary gives a fine-tune of a fraction of a billion tokens as such, not as 0 B tokens', async (t) =>
  withPage(t, browser, async (page) => {
    await page.goto(`${server.base}/?model=llama-2-7b&task=qlora&tokens_b=0.2&precision=bf16&pricing=cloud`);
    await threeTiers(page);
    const text = await page.locator('#summary').innerText();
    assert.match(text, /· 0\.2 B tokens ·/, text);
    await page.fill('#f-tokens_b', '15000');
    await page.waitForFunction(() => /15,000 B tokens/.test(document.querySelector('#summary').innerText), null, { timeout: 30000 });
  }));

test('tiers that do not fit are labelled so, with no 0 days, $0 or points on the charts', async (t) =>
  withPage(t, browser, async (page) => {
    await page.goto(`${server.base}/?model=llama-3.1-405b&task=pretrain&tokens_b=100&precision=bf16&pricing=cloud&gpus=l4-pcie-24gb&max_gpus=8`);
    await threeTiers(page);
    for (const tier of TIERS) {
      const card = page.locator(`#tiers [data-tier="${tier}"]`);
      const text = await card.innerText();
      assert.match(text, /^Does not fit$/im, `${tier}: labelled`);
      assert.match(text, /does not fit on any allowed GPU/, `${tier}: says why`);
      assert.doesNotMatch(text, /\$0\b|\b0 d\b|\b0 h\b|Memory per GPU/, `${tier}: no figures`);
    }
    assert.equal(await page.locator('#charts .point').count(), 0, 'no tier on the time/cost chart');
    assert.equal(await page.locator('#charts .bar').count(), 0, 'no tier on the memory chart');
    assert.match(await page.locator('#charts').innerText(), /No tier has a cluster that fits/);
  }));

test('a QLoRA checkpoint write rate of a fraction of a MB/s reads as such, not as 0 GB/s', async (t) =>
  withPage(t, browser, async (page) => {
    await page.goto(`${server.base}/?model=llama-2-7b&task=qlora&tokens_b=0.2&precision=bf16&pricing=cloud`);
    await threeTiers(page);
    const text = await page.locator('#tiers [data-tier="recommended"]').innerText();
    const m = text.match(/writes at ([^ ]+) GB\/s/);
    assert.ok(m, text);
    assert.notEqual(Number(m[1]), 0, `written as ${m[1]} GB/s`);
    assert.match(m[1], /^0\.000\d\d$/, 'two significant figures');
  }));

test('the report history pages: "Show older reports" appends each older page once, in order, then goes', async (t) =>
  withPage(t, browser, async (page) => {
    // 230 reports: the newest 100, then 100 older, then the last 30 (the API's page is 100).
    const N = 230;
    const team = await teamFromNode('pages');
    const plan = await planFromNode(team);
    const auth = { Cookie: team.cookie, 'X-CSRF-Token': team.csrf, 'Content-Type': 'text/plain' };
    // One all_reduce_perf line each (a few ms to store, where the full fixture takes ~40), one after
    // another: concurrent writers only wait on each other's SQLite lock. The bandwidth varies the verdicts.
    const line = (busbw) => `#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n  8589934592    2147483648     float     sum      -1   36000  ${busbw}  ${busbw}      0   36000  ${busbw}  ${busbw}      0\n`;
    for (let j = 0; j < N; j++) {
      const r = await apiCall(server.base, 'POST', `/api/v1/plans/${plan.id}/reports`, line([90, 238.6, 420][j % 3]), { ...auth, 'X-Report-Source': `ci run ${j}` });
      assert.equal(r.status, 201, r.text);
    }
    const all = await apiCall(server.base, 'GET', `/api/v1/plans/${plan.id}/reports?limit=500`, undefined, auth);
    assert.equal(all.status, 200, all.text);
    assert.equal(all.json.next, null);
    const want = all.json.items.map((r) => String(r.id)); // newest first
    assert.equal(want.length, N);
    const verdicts = all.json.verdicts;

    await logIn(page, team);
    const requests = [];
    page.on('request', (r) => { if (/\/reports\?/.test(r.url())) requests.push(new URL(r.url()).search); });
    await page.goto(`${server.base}/plan.html?id=${plan.id}`);
    const rows = page.locator('#report-rows tr');
    const more = page.locator('#reports-more');
    const summary = page.locator('#report-summary');
    const ids = () => page.$$eval('#report-rows tr', (trs) => trs.map((tr) => tr.dataset.reportId));
    await more.waitFor({ state: 'visible', timeout: 15000 });
    assert.deepEqual(await ids(), want.slice(0, 100), 'the newest page, newest first');
    assert.match(await summary.innerText(), /^The newest 100 reports: .*; older reports are not loaded yet\.$/);
    assert.doesNotMatch(await summary.innerText(), /\b230\b/, 'no total the page does not know');
    assert.match(await page.locator('#measured-from').innerText(), /From the newest 30 reports/);

    // A failed page keeps what is shown and says why next to the button, which stays for a retry.
    await page.route(/\/reports\?.*cursor=/, (route) => route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'The database is busy.' }) }));
    await more.click();
    const msg = page.locator('#reports-more-msg');
    await page.waitForFunction(() => /could not be loaded/.test(document.querySelector('#reports-more-msg').textContent), null, { timeout: 15000 });
    assert.match(await msg.innerText(), /Older reports could not be loaded: The database is busy\./);
    assert.ok(await msg.evaluate((el) => el.classList.contains('error')));
    assert.equal(await rows.count(), 100, 'the rows shown stay');
    assert.ok(await more.isVisible() && await more.isEnabled(), 'the button stays for a retry');
    await page.unroute(/\/reports\?.*cursor=/);

    // The keyboard loads the next page: Tab from the last row's Show reaches the button, which shows its focus; Enter.
    await rows.last().locator('button').focus();
    await page.keyboard.press('Tab');
    assert.ok(await more.evaluate((el) => el === document.activeElement), 'Tab after the last row reaches the button');
    assert.ok(await more.evaluate((el) => el.matches(':focus-visible') && getComputedStyle(el).outlineStyle !== 'none' && parseFloat(getComputedStyle(el).outlineWidth) > 0), 'the button shows its focus');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('#report-rows tr').length === 200, null, { timeout: 15000 });
    assert.deepEqual(await ids(), want.slice(0, 200));
    assert.match(await summary.innerText(), /^The newest 200 reports: /);
    assert.ok(await more.isVisible());
    assert.ok(await more.evaluate((el) => el === document.activeElement), 'focus stays on the button');
    // The button and its message meet the contrast bar and fit a 390 px screen.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.deepEqual(await contrastProblems(page), []);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the plan page fits 390 px');
    const box = await more.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box));
    await page.setViewportSize({ width: 1280, height: 900 });

    await more.click();
    await page.waitForFunction((n) => document.querySelectorAll('#report-rows tr').length === n, N, { timeout: 15000 });
    await more.waitFor({ state: 'hidden', timeout: 15000 });
    const got = await ids();
    assert.equal(new Set(got).size, got.length, 'no report twice');
    assert.deepEqual(got, want, 'every report, newest first');
    const counts = ['fail', 'warn', 'unknown', 'pass'].filter((v) => verdicts[v]).map((v) => `${verdicts[v]} ${v}`).join(', ');
    assert.equal(await summary.innerText(), `All ${N} reports: ${counts}.`);
    assert.ok(await page.evaluate(() => document.activeElement?.closest('tr')?.dataset.reportId), 'focus on the first row loaded');
    assert.equal(await page.evaluate(() => document.activeElement.closest('tr').dataset.reportId), want[200]);
    // Each page was asked for once, with the cursor the page before gave.
    const older = requests.filter((q) => /cursor=/.test(q));
    assert.deepEqual(older.map((q) => new URLSearchParams(q).get('cursor')), [want[99], want[99], want[199]]);

    // A re-check reloads the history and keeps the rows that were shown.
    await page.getByRole('button', { name: 'Re-check all reports against this revision' }).click();
    await page.waitForFunction(() => /Re-checked 230 reports/.test(document.body.innerText), null, { timeout: 30000 });
    await page.waitForFunction((n) => document.querySelectorAll('#report-rows tr').length === n && /^All /.test(document.querySelector('#report-summary').textContent), N, { timeout: 15000 });
    assert.deepEqual(await ids(), want);
    assert.ok(await more.isHidden());
  }));
