// plan.js: one saved plan: its tiers (the chosen one marked), revisions and
// what changed between two of them, report upload (paste, pick or drop a
// file) with the verdict, the measured values of its reports over time
// against the plan's expectation, and share links for procurement.
import { api, items } from './api.js';
import { $, h, mount } from './dom.js';
import * as f from './fmt.js';
import { copyButton, field, onSubmit, sevBadge } from './forms.js';
import { renderNav, syncSession } from './nav.js';
import { tierRow } from './tiers.js';
import { measuredChart } from './charts.js';
import { verdictView } from './verdict.js';

const main = $('#main');
const id = new URLSearchParams(location.search).get('id');
const enc = encodeURIComponent;
let plan = null;

/** The planner URL that reproduces a workload (see planner.js URL keys). */
function plannerUrl(w, planId) {
  const q = new URLSearchParams();
  const m = w.model || {};
  if (m.preset) q.set('model', m.preset);
  else {
    q.set('model', 'custom');
    for (const [k, v] of Object.entries(m)) q.set(k, String(v));
  }
  for (const [k, v] of Object.entries(w)) {
    if (k === 'model') continue;
    if (k === 'gpus_allowed') q.set('gpus', v.join(','));
    else q.set(k, String(v));
  }
  if (planId) q.set('plan', planId);
  return `/?${q}`;
}

function tierOf(p) {
  const rec = p.recommendation || {};
  return (rec.tiers || []).find((t) => t.tier === p.tier) || (rec.tiers || [])[1] || null;
}

/* ---------------------------------------------------------------- revisions */

function flatten(obj, prefix = '', out = {}) {
  if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out[prefix] = Array.isArray(obj) ? JSON.stringify(obj) : obj;
  return out;
}

function diffRows(a, b) {
  const fa = flatten(a), fb = flatten(b);
  const keys = [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort();
  return keys.filter((k) => JSON.stringify(fa[k]) !== JSON.stringify(fb[k])).map((k) => ({ path: k, from: fa[k], to: fb[k] }));
}

function chosenSummary(p) {
  const t = tierOf(p);
  if (!t) return {};
  return {
    tier: p.tier,
    gpu: t.gpu && t.gpu.id,
    gpus: t.gpu && t.gpu.count,
    nodes: t.gpu && t.gpu.nodes,
    fabric: t.fabric && t.fabric.type,
    fabric_gbps_per_gpu: t.fabric && t.fabric.gbps_per_gpu,
    days: t.time && t.time.days && +t.time.days.toFixed(2),
    cost_usd: t.cost && t.cost.usd && Math.round(t.cost.usd),
  };
}

const KEY_PATHS = ['gpu.id', 'gpu.count', 'gpu.nodes', 'parallel.tp', 'parallel.pp', 'parallel.dp', 'memory.per_gpu_gib', 'fabric.type', 'fabric.gbps_per_gpu', 'fabric.topology', 'time.days', 'cost.usd', 'feasible'];

/** The changes that matter to a buyer first; the rest folded away. */
function tierDiff(rows) {
  if (!rows.length) return h('p', { class: 'empty' }, 'No differences.');
  const key = rows.filter((r) => KEY_PATHS.includes(r.path));
  const rest = rows.filter((r) => !KEY_PATHS.includes(r.path));
  return [
    key.length ? diffTable(key) : h('p', { class: 'muted' }, 'The cluster itself did not change.'),
    rest.length ? h('details', { class: 'why' }, h('summary', null, `All other changes (${rest.length})`), diffTable(rest)) : null,
  ];
}

function diffTable(rows) {
  if (!rows.length) return h('p', { class: 'empty' }, 'No differences.');
  // null is a figure with no value (a tier that does not fit), as absent is.
  const show = (v) => (v === undefined || v === null ? h('span', { class: 'muted' }, '(none)') : String(v));
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'diff' },
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'What'), h('th', { scope: 'col' }, 'Before'), h('th', { scope: 'col' }, 'After'))),
      h('tbody', null, rows.map((r) => h('tr', null, h('td', null, h('code', null, r.path)), h('td', { class: 'was' }, show(r.from)), h('td', { class: 'now' }, show(r.to))))),
    ),
  );
}

async function revision(n) {
  if (plan && Number(plan.revision) === Number(n)) return plan;
  return api('GET', `/api/v1/plans/${enc(id)}/revisions/${enc(n)}`);
}

/** The server's diff ({fields, workload, chosen_tier}); computed here from the two revisions if absent. */
async function showDiff(a, b, out) {
  mount(out, h('p', { class: 'muted' }, 'Comparing…'));
  try {
    let d = null;
    try {
      d = await api('GET', `/api/v1/plans/${enc(id)}/diff?from=${enc(a)}&to=${enc(b)}`);
    } catch (e) {
      if (e.status !== 404 && e.status !== 405) throw e;
    }
    const rows = (list) => (list || []).map((c) => ({ path: c.path, from: c.from, to: c.to }));
    if (d && (d.workload || d.fields)) {
      const ct = d.chosen_tier || {};
      mount(
        out,
        h('h3', null, `Revision ${d.from ?? a} → ${d.to ?? b}`),
        (d.fields || []).length ? diffTable(rows(d.fields)) : null,
        h('h4', null, 'Inputs'),
        diffTable(rows(d.workload)),
        h('h4', null, ct.from && ct.to && ct.from !== ct.to ? `Chosen tier: ${ct.from} → ${ct.to}` : `Chosen tier${ct.to ? ` (${ct.to})` : ''}`),
        tierDiff(rows(ct.changes)),
      );
      return;
    }
    const [ra, rb] = await Promise.all([revision(a), revision(b)]);
    mount(
      out,
      h('h3', null, `Revision ${a} → ${b}`),
      h('h4', null, 'Inputs'),
      diffTable(diffRows(ra.workload, rb.workload)),
      h('h4', null, 'Chosen tier'),
      diffTable(diffRows(chosenSummary(ra), chosenSummary(rb))),
    );
  } catch (e) {
    mount(out, h('p', { class: 'form-msg error' }, e.message));
  }
}

function revisionsPanel() {
  const n = Number(plan.current_revision || plan.revision) || 1;
  const out = h('div', { id: 'diff-out', 'aria-live': 'polite' });
  const from = h('select', { id: 'diff-from' });
  const to = h('select', { id: 'diff-to' });
  const list = h('ul', { class: 'rows', id: 'revision-list' });
  const fill = (revs) => {
    const opt = (sel) => revs.map((r) => h('option', { value: r.revision, selected: r.revision === sel }, `Revision ${r.revision}${r.created_at ? ` · ${f.when(r.created_at)}` : ''}`));
    from.replaceChildren(...opt(Math.max(1, n - 1)));
    to.replaceChildren(...opt(n));
    list.replaceChildren(
      ...[...revs].reverse().map((r) =>
        h('li', null, h('span', null, h('strong', null, `Revision ${r.revision}`), h('span', { class: 'muted' }, ` · ${r.title || ''}${r.tier ? ` · ${f.TIER_LABEL[r.tier] || r.tier}` : ''} · ${f.when(r.created_at)}`))),
      ),
    );
  };
  fill(Array.from({ length: n }, (_, i) => ({ revision: i + 1 })));
  api('GET', `/api/v1/plans/${enc(id)}/revisions`)
    .then((d) => {
      const revs = items(d, 'revisions');
      if (revs.length) fill([...revs].sort((x, y) => x.revision - y.revision));
    })
    .catch(() => {});
  const form = h(
    'form',
    { class: 'inline-form' },
    h('div', { class: 'field' }, h('label', { for: 'diff-from' }, 'Compare'), from),
    h('div', { class: 'field' }, h('label', { for: 'diff-to' }, 'with'), to),
    h('button', { type: 'submit' }, 'Show changes'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    showDiff(from.value, to.value, out);
  });
  if (n > 1) showDiff(n - 1, n, out);
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'rev-title' },
    h('h2', { id: 'rev-title' }, `Revisions (${n})`),
    list,
    n > 1 ? form : h('p', { class: 'muted' }, 'Only one revision so far. Edit the plan in the planner to make another.'),
    out,
  );
}

/* ---------------------------------------------------------------- reports */

function reportsPanel() {
  const verdictBox = h('div', { id: 'verdict', 'aria-live': 'polite' });
  const history = h('div', { id: 'report-history' });
  const chartBox = h('div', { id: 'measured' });
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const text = field({ label: 'Report text', name: 'content', textarea: true, placeholder: 'Paste the output of all_reduce_perf, nvidia-smi topo -m, ib_write_bw, fio…', help: 'Several tool outputs may follow one another; each is read as its own section.' });
  const fileInput = h('input', { id: 'report-file', type: 'file', accept: '.txt,.log,.json,.out,text/*' });
  const drop = h(
    'div',
    { class: 'drop', id: 'drop' },
    h('label', { for: 'report-file' }, 'Choose a file'),
    ' ',
    fileInput,
    h('p', { class: 'help' }, 'or drop one here; its text goes into the box below.'),
  );
  const source = field({ label: 'Source (optional)', name: 'source', placeholder: 'e.g. a CI job URL', help: 'Stored with the report.' });
  const form = h('form', { id: 'report-form', class: 'report-form', novalidate: true }, h('div', null, drop, source), text, h('div', { class: 'submit-row' }, h('button', { type: 'submit', class: 'primary' }, 'Check against the plan'), msg));
  const area = text.querySelector('textarea');

  async function readFile(file) {
    if (!file) return;
    if (file.size > 16 * 1024 * 1024) {
      msg.textContent = 'That file is larger than 16 MiB.';
      return;
    }
    area.value = await file.text();
    msg.textContent = `Loaded ${file.name} (${f.int(file.size)} bytes).`;
  }
  fileInput.addEventListener('change', () => readFile(fileInput.files[0]));
  for (const ev of ['dragenter', 'dragover']) drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add('over'); });
  for (const ev of ['dragleave', 'drop']) drop.addEventListener(ev, () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    readFile(e.dataTransfer.files[0]);
  });

  onSubmit(form, async (fm) => {
    const body = area.value;
    if (!body.trim()) throw Object.assign(new Error('Paste a report or choose a file first.'), { field: 'content' });
    msg.textContent = 'Checking…';
    const headers = {};
    const src = fm.source.value.trim();
    if (src) headers['X-Report-Source'] = src;
    const r = await api('POST', `/api/v1/plans/${enc(id)}/reports`, body, { headers });
    msg.textContent = '';
    mount(verdictBox, h('h3', null, `Report ${r.id ?? ''}`), verdictView(r));
    verdictBox.scrollIntoView({ block: 'nearest' });
    loadHistory();
  }, msg);

  // The history pages as the API does, newest first: the newest page, then
  // "Show older reports" asks for the next one with its cursor until `next`
  // is null. What the page counts is what it has loaded, and it says so
  // while older reports remain unloaded.
  const PAGE = 100; // the server's default page size, asked for by name
  let shown = []; // reports drawn, newest first
  let next = null; // the cursor of the next older page; null on the last
  let gen = 0; // each reload makes answers to earlier requests stale
  const rows = h('tbody', { id: 'report-rows' });
  const summary = h('p', { id: 'report-summary', class: 'muted', 'aria-live': 'polite' });
  const more = h('button', { type: 'button', id: 'reports-more' }, 'Show older reports');
  const moreMsg = h('p', { id: 'reports-more-msg', class: 'form-msg', role: 'status' });
  const moreRow = h('div', { class: 'more-row' }, more, moreMsg);

  function row(r) {
    return h(
      'tr',
      { dataset: { reportId: String(r.id) } },
      h('td', null, f.when(r.created_at)),
      h('td', null, sevBadge(r.verdict)),
      h('td', null, r.revision ? `revision ${r.revision}${r.tier ? ` · ${r.tier}` : ''}` : '–'),
      h('td', { class: 'source' }, r.source || (r.uploaded_by ? h('span', { class: 'muted' }, r.uploaded_by === 'token' ? 'API token' : 'uploaded here') : '–')),
      h('td', null, h('button', { type: 'button', 'aria-label': `Show the verdict of report ${r.id}`, onclick: async () => {
        try {
          const full = await api('GET', `/api/v1/plans/${enc(id)}/reports/${enc(r.id)}`);
          mount(verdictBox, h('h3', null, `Report ${r.id} · ${f.when(r.created_at)}`), verdictView(full));
          verdictBox.scrollIntoView({ block: 'nearest' });
        } catch (e) {
          mount(verdictBox, h('p', { class: 'form-msg error' }, e.message));
        }
      } }, 'Show')),
    );
  }

  /** "All 3 reports: 1 fail, 2 pass." or "The newest 100 reports: …; older ones are not loaded." */
  function describe() {
    const n = shown.length;
    const by = {};
    for (const r of shown) by[r.verdict || 'unknown'] = (by[r.verdict || 'unknown'] || 0) + 1;
    const parts = ['fail', 'warn', 'unknown', 'pass'].filter((v) => by[v]).map((v) => `${f.int(by[v])} ${v}`);
    const what = next === null ? (n === 1 ? '1 report' : `All ${f.int(n)} reports`) : `The newest ${f.int(n)} reports`;
    summary.textContent = `${what}: ${parts.join(', ')}${next === null ? '.' : '; older reports are not loaded yet.'}`;
    more.hidden = next === null;
    moreRow.hidden = next === null;
  }

  function page(path) {
    return api('GET', path).then((data) => ({ list: items(data, 'reports'), next: data && typeof data.next === 'string' && data.next ? data.next : null }));
  }

  async function loadHistory() {
    const mine = ++gen;
    // A reload after an upload or a re-check keeps as many rows as were shown (up to the API's 500).
    const limit = Math.min(500, Math.max(PAGE, shown.length));
    let got;
    try {
      got = await page(`/api/v1/plans/${enc(id)}/reports?limit=${limit}`);
    } catch (e) {
      if (mine !== gen) return;
      mount(history, h('p', { class: 'form-msg error' }, e.message));
      return;
    }
    if (mine !== gen) return;
    shown = got.list;
    next = got.next;
    moreMsg.textContent = '';
    moreMsg.classList.remove('error');
    more.removeAttribute('aria-disabled');
    if (!shown.length) {
      mount(history, h('p', { class: 'empty' }, 'No reports yet.'));
      mount(chartBox);
      return;
    }
    rows.replaceChildren(...shown.map(row));
    describe();
    mount(
      history,
      summary,
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { id: 'report-table' },
          h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'When'), h('th', { scope: 'col' }, 'Verdict'), h('th', { scope: 'col' }, 'Checked against'), h('th', { scope: 'col' }, 'Source'), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
          rows,
        ),
      ),
      moreRow,
    );
    drawMeasured(shown);
  }

  more.addEventListener('click', async () => {
    // aria-disabled, not disabled, while a page loads: a disabled button would drop the keyboard focus.
    if (next === null || more.getAttribute('aria-disabled') === 'true') return;
    const mine = gen;
    more.setAttribute('aria-disabled', 'true');
    moreMsg.classList.remove('error');
    moreMsg.textContent = 'Loading older reports…';
    let got;
    try {
      got = await page(`/api/v1/plans/${enc(id)}/reports?limit=${PAGE}&cursor=${enc(next)}`);
    } catch (e) {
      if (mine !== gen) return;
      more.removeAttribute('aria-disabled');
      moreMsg.textContent = `Older reports could not be loaded: ${e.message}`;
      moreMsg.classList.add('error');
      return;
    }
    if (mine !== gen) return; // the history was reloaded meanwhile; this page belongs to the old one
    const have = new Set(shown.map((r) => r.id));
    const fresh = got.list.filter((r) => !have.has(r.id));
    shown = shown.concat(fresh);
    next = got.next;
    const added = fresh.map(row);
    rows.append(...added);
    more.removeAttribute('aria-disabled');
    moreMsg.textContent = `Loaded ${f.int(fresh.length)} older report${fresh.length === 1 ? '' : 's'}.`;
    describe();
    // The button goes on the last page: focus moves to the first row it loaded.
    if (next === null && added.length) added[0].querySelector('button').focus();
  });

  const recheckMsg = h('p', { class: 'form-msg', role: 'status' });
  const recheck = h('button', { type: 'button', id: 'recheck' }, 'Re-check all reports against this revision');
  recheck.addEventListener('click', async () => {
    recheck.disabled = true;
    recheckMsg.textContent = 'Re-checking…';
    try {
      const d = await api('POST', `/api/v1/plans/${enc(id)}/recheck`, {});
      const changed = items(d).filter((x) => x.previous_verdict !== x.verdict);
      recheckMsg.textContent = `Re-checked ${items(d).length} report${items(d).length === 1 ? '' : 's'} against revision ${d.revision ?? ''}; ${changed.length} changed verdict.`;
      loadHistory();
    } catch (e) {
      recheckMsg.textContent = e.message;
      recheckMsg.classList.add('error');
    } finally {
      recheck.disabled = false;
    }
  });

  async function drawMeasured(list) {
    // Findings carry observed vs expected per check; the newest 30 reports are enough for a trend.
    const mine = gen;
    const recent = list.slice(0, 30);
    const full = await Promise.all(recent.map((r) => (r.findings ? r : api('GET', `/api/v1/plans/${enc(id)}/reports/${enc(r.id)}`).catch(() => null))));
    if (mine !== gen) return; // a newer reload draws its own
    const byId = new Map();
    full.forEach((r, i) => {
      if (!r) return;
      const at = f.dateOf(r.created_at || recent[i].created_at);
      for (const x of r.findings || []) {
        if (!f.isNum(x.observed)) continue;
        if (!byId.has(x.id)) byId.set(x.id, { points: [], expected: null, bound: 'min' });
        const s = byId.get(x.id);
        s.points.push({ at, value: x.observed, verdict: x.severity });
        const ex = x.expected;
        if (f.isNum(ex)) s.expected = ex;
        else if (ex && f.isNum(ex.min)) s.expected = ex.min;
        else if (ex && f.isNum(ex.max)) { s.expected = ex.max; s.bound = 'max'; }
      }
    });
    if (!byId.size) {
      mount(chartBox, h('p', { class: 'muted' }, 'No measured numbers to chart yet: upload nccl-tests, perftest or fio output.'));
      return;
    }
    const ids = [...byId.keys()].sort((a, b) => (b.includes('busbw') - a.includes('busbw')) || a.localeCompare(b));
    const pick = h('select', { id: 'measured-pick' }, ids.map((k) => h('option', { value: k }, k)));
    const slot = h('div');
    const draw = () => {
      const s = byId.get(pick.value);
      const unit = /_gbs$/.test(pick.value) ? 'GB/s' : /_gbps$/.test(pick.value) ? 'Gb/s' : /_us$/.test(pick.value) ? 'µs' : /_mbs$/.test(pick.value) ? 'MB/s' : '';
      mount(slot, measuredChart(`Measured ${pick.value} over time`, unit, s.points, s.expected, s.bound));
    };
    pick.addEventListener('change', draw);
    // Say which reports the chart is drawn from when it is not all of them.
    const from = list.length > recent.length || next !== null ? h('p', { class: 'help', id: 'measured-from' }, `From the newest ${f.int(recent.length)} reports.`) : null;
    mount(chartBox, h('div', { class: 'field' }, h('label', { for: 'measured-pick' }, 'Measured value'), pick), from, slot);
    draw();
  }

  loadHistory();
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'reports-title' },
    h('h2', { id: 'reports-title' }, 'Check the cluster'),
    h('p', { class: 'muted' }, 'Upload benchmark or preflight output from the real cluster; gpuplan reads it and checks it against this plan. CI can post the same with gpuplan submit and an API token.'),
    form,
    verdictBox,
    h('div', { class: 'plan-head section-gap' }, h('h3', null, 'History'), recheck),
    recheckMsg,
    h('div', { class: 'two' }, chartBox, history),
  );
}

/* ---------------------------------------------------------------- shares */

function sharesPanel() {
  const list = h('ul', { class: 'rows', id: 'share-list' });
  const shown = h('div', { 'aria-live': 'polite' });
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const form = h(
    'form',
    { class: 'inline-form', id: 'share-form' },
    field({ label: 'Link valid for (days)', name: 'expires_days', type: 'number', min: 1, max: 365, value: 30, required: true, help: '1 to 365 days.' }),
    h('button', { type: 'submit', class: 'primary' }, 'Create share link'),
    msg,
  );
  const abs = (u) => new URL(u, location.origin).href;
  async function load() {
    let data;
    try {
      data = await api('GET', `/api/v1/plans/${enc(id)}/shares`);
    } catch (e) {
      if (e.status === 404 || e.status === 405) return; // listing not offered: the new link still shows above
      mount(list, h('li', { class: 'form-msg error' }, e.message));
      return;
    }
    list.replaceChildren(
      ...items(data, 'shares').map((s) => {
        const gone = s.state ? s.state !== 'live' : s.revoked_at || (s.expires_at && new Date(s.expires_at) < new Date());
        return h(
          'li',
          null,
          h('span', null, `Share ${s.id}`, h('span', { class: 'muted' }, ` · created ${f.when(s.created_at)} · ${gone ? 'no longer valid' : `valid until ${f.when(s.expires_at)}`}`), gone && s.state ? ` (${s.state})` : ''),
          gone ? null : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke share ${s.id}`, onclick: async () => {
            try { await api('DELETE', `/api/v1/shares/${enc(s.id)}`); } catch (e) { alert(e.message); }
            load();
          } }, 'Revoke'),
        );
      }),
    );
    if (!list.children.length) list.append(h('li', { class: 'empty' }, 'No share links yet.'));
  }
  onSubmit(form, async (fm) => {
    const s = await api('POST', `/api/v1/plans/${enc(id)}/shares`, { expires_days: Number(fm.expires_days.value) });
    const url = abs(s.url || `/s/${s.token}`);
    mount(
      shown,
      h('div', { class: 'secret' }, h('span', null, 'Share link (shown only now):'), h('a', { href: url, id: 'share-url', target: '_blank', rel: 'noopener' }, url), copyButton(url)),
      h('p', { class: 'help' }, 'Anyone with the link can read the plan and its bill of materials; nothing else. Also as ', h('a', { href: `${url}.csv` }, 'CSV'), ' and ', h('a', { href: `${url}.json` }, 'JSON'), '.'),
    );
    load();
  }, msg);
  load();
  return h('section', { class: 'panel', 'aria-labelledby': 'shares-title' }, h('h2', { id: 'shares-title' }, 'Share with procurement'), form, shown, list);
}

/* ---------------------------------------------------------------- page */

/**
 * The plan's title with a Rename button; renaming is PUT /api/v1/plans/{id}
 * with only {title}: the server keeps the workload and the tiers and records
 * the new title as a revision, so the history says who renamed it and when.
 */
function titleBox() {
  const box = h('div', { class: 'title-box' });
  const show = (focus) => {
    const btn = h('button', { type: 'button', class: 'link-button', id: 'plan-rename', 'aria-label': 'Rename the plan' }, 'Rename');
    btn.addEventListener('click', edit);
    mount(box, h('h1', { id: 'plan-title' }, plan.title || `Plan ${plan.id}`), btn);
    if (focus) btn.focus();
  };
  const edit = () => {
    const msg = h('p', { class: 'form-msg', role: 'status' });
    const cancel = h('button', { type: 'button' }, 'Cancel');
    cancel.addEventListener('click', () => show(true));
    const form = h(
      'form',
      { class: 'inline-form rename', id: 'rename-form', novalidate: true },
      field({ label: 'Plan title', name: 'title', value: plan.title || '', maxlength: 200, required: true, help: 'Saved as a new revision; the cluster does not change.' }),
      h('button', { type: 'submit', class: 'primary' }, 'Save title'),
      cancel,
      msg,
    );
    form.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') show(true);
    });
    onSubmit(form, async (fm) => {
      // An empty title goes to the server too: its answer names the field.
      await api('PUT', `/api/v1/plans/${enc(id)}`, { title: fm.title.value.trim() });
      plan = await api('GET', `/api/v1/plans/${enc(id)}`);
      render();
      $('#plan-rename')?.focus();
    }, msg);
    mount(box, form);
    const input = form.querySelector('input');
    input.focus();
    input.select();
  };
  show(false);
  return box;
}

function header() {
  const sel = h('select', { id: 'plan-tier' }, ['minimum', 'recommended', 'performance'].map((t) => h('option', { value: t, selected: t === plan.tier }, f.TIER_LABEL[t])));
  const msg = h('span', { class: 'form-msg', role: 'status' });
  sel.addEventListener('change', async () => {
    msg.textContent = 'Saving…';
    try {
      await api('PUT', `/api/v1/plans/${enc(id)}/tier`, { tier: sel.value });
      plan = await api('GET', `/api/v1/plans/${enc(id)}`);
      render();
    } catch (e) {
      msg.textContent = e.message;
      msg.classList.add('error');
    }
  });
  const del = h('button', { type: 'button', class: 'danger', id: 'plan-delete' }, 'Delete plan');
  del.addEventListener('click', async () => {
    if (!confirm(`Delete the plan "${plan.title}" with its revisions, reports and share links?`)) return;
    try {
      await api('DELETE', `/api/v1/plans/${enc(id)}`);
      location.href = '/workspace.html';
    } catch (e) {
      msg.textContent = e.message;
      msg.classList.add('error');
    }
  });
  return h(
    'div',
    { class: 'plan-head' },
    h('div', null, h('p', { class: 'crumbs' }, h('a', { href: '/workspace.html' }, 'Workspace'), ' › plan ', String(plan.id)), titleBox(),
      h('p', { class: 'muted' }, `Revision ${plan.revision ?? 1}${plan.engine_version ? ` · engine ${plan.engine_version}` : ''}${plan.updated_at || plan.created_at ? ` · ${f.when(plan.updated_at || plan.created_at)}` : ''}`)),
    h('div', { class: 'inline-form' }, h('div', { class: 'field' }, h('label', { for: 'plan-tier' }, 'The team goes with'), sel), h('a', { href: plannerUrl(plan.workload || {}, plan.id) }, 'Edit in the planner'), del, msg),
  );
}

function render() {
  document.title = `gpuplan · ${plan.title || `plan ${plan.id}`}`;
  const rec = plan.recommendation || { tiers: [] };
  mount(
    main,
    header(),
    h('section', { 'aria-label': 'Tiers', class: 'plan-tiers' }, tierRow(rec, plan.tier)),
    h('div', { class: 'spacer' }),
    reportsPanel(),
    revisionsPanel(),
    sharesPanel(),
  );
}

async function start() {
  renderNav();
  syncSession();
  if (!id) {
    mount(main, h('p', null, 'No plan chosen. ', h('a', { href: '/workspace.html' }, 'Pick one in the workspace.')));
    return;
  }
  try {
    plan = await api('GET', `/api/v1/plans/${enc(id)}`);
  } catch (e) {
    if (e.status === 401) {
      location.href = `/workspace.html?next=${enc(location.pathname + location.search)}`;
      return;
    }
    mount(main, h('p', { class: 'form-error' }, e.status === 404 ? 'This plan does not exist or belongs to another team.' : e.message));
    return;
  }
  render();
}

start();
