// ui.test.mjs: the web UI in a real browser against the real server: the
// planner, the team flow from sign-up to a report's verdict, the share page
// for procurement and its printout. Run with `node --test` (ctest: browser).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { apiCall, fixture, startBrowser, startServer, uniqueEmail, withPage } from './harness.mjs';

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
    for (const format of ['A4', 'Letter']) {
      const pdf = await page.pdf({ format, printBackground: true });
      const text = pdf.toString('latin1');
      assert.ok(text.startsWith('%PDF-'), 'a PDF');
      const pages = (text.match(/\/Type\s*\/Page(?![s\w])/g) || []).length;
      assert.ok(pages >= 1 && pages <= 12, `${format}: ${pages} pages`);
    }
  }));
