// planner.js: the planner page. The form is the single source of the
// workload: every change rewrites the URL (so a copied link reproduces the
// calculation) and, debounced, asks POST /api/v1/recommend. Requests that
// are overtaken by a newer edit are aborted so an old answer never paints
// over a new one.
import { api, ApiError, who } from './api.js';
import { $, $$, debounce, h, mount } from './dom.js';
import * as f from './fmt.js';
import { tierRow, warningList } from './tiers.js';
import { memoryChart, timeCostChart } from './charts.js';
import { renderNav, syncSession } from './nav.js';

const EXAMPLE = {
  model: 'llama-3-70b',
  task: 'pretrain',
  tokens_b: '2000',
  seq_len: '8192',
  precision: 'bf16',
  deadline_days: '60',
  budget_usd: '5000000',
  pricing: 'cloud',
};
const NUMBER_FIELDS = ['tokens_b', 'seq_len', 'deadline_days', 'budget_usd', 'global_batch_tokens', 'dataset_tb', 'max_gpus'];
const MODEL_FIELDS = ['params_b', 'layers', 'hidden', 'heads', 'kv_heads', 'ffn_hidden', 'vocab', 'experts', 'experts_active'];
const URL_KEYS = ['model', 'task', 'precision', 'pricing', ...NUMBER_FIELDS, ...MODEL_FIELDS, 'gpus', 'plan'];

const form = $('#workload');
let catalog = null;
let inflight = null;
let last = null; // {workload, rec}

function presetsOf(cat) {
  const list = (cat && (cat.models || cat.presets || cat.model_presets)) || [];
  return list.map((m) => (typeof m === 'string' ? { id: m } : { ...m, id: m.id || m.preset }));
}

function gpusOf(cat) {
  return ((cat && cat.gpus) || []).map((g) => (typeof g === 'string' ? { id: g } : g));
}

function fillCatalog() {
  const sel = $('#f-model');
  const presets = presetsOf(catalog);
  sel.replaceChildren(
    ...presets.map((m) =>
      h('option', { value: m.id }, `${m.name || m.id}${f.isNum(m.params_b) ? ` · ${f.num(m.params_b)} B params` : ''}`),
    ),
    h('option', { value: 'custom' }, 'Custom shape…'),
  );
  const list = $('#gpu-list');
  list.replaceChildren(
    ...gpusOf(catalog).map((g) =>
      h(
        'label',
        { class: 'check' },
        h('input', { type: 'checkbox', name: 'gpus', value: g.id }),
        ` ${g.name || g.id}`,
        f.isNum(g.memory_gib) ? h('span', { class: 'muted' }, ` ${f.num(g.memory_gib, 0)} GiB`) : null,
      ),
    ),
  );
}

/** URL query -> form controls. */
function readUrl() {
  const q = new URLSearchParams(location.search);
  const has = URL_KEYS.some((k) => q.has(k));
  const src = has ? Object.fromEntries(q) : { ...EXAMPLE };
  if (!has && !presetsOf(catalog).some((m) => m.id === src.model)) src.model = presetsOf(catalog)[0]?.id || 'custom';
  const sel = $('#f-model');
  if (src.model && [...sel.options].some((o) => o.value === src.model)) sel.value = src.model;
  else if (src.params_b || src.model === 'custom') sel.value = 'custom';
  for (const k of ['task', 'precision']) if (src[k]) form.elements[k].value = src[k];
  for (const r of $$('input[name="pricing"]', form)) r.checked = r.value === (src.pricing || 'cloud');
  for (const k of [...NUMBER_FIELDS, ...MODEL_FIELDS]) form.elements[k].value = src[k] ?? '';
  const allowed = new Set((src.gpus || '').split(',').filter(Boolean));
  for (const c of $$('input[name="gpus"]', form)) c.checked = allowed.has(c.value);
  if (allowed.size) $('details.advanced').open = true;
  if ([...NUMBER_FIELDS.slice(4)].some((k) => src[k])) $('details.advanced').open = true;
  return src.plan || null;
}

function numberOf(el) {
  const v = el.value.trim();
  if (v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : v; // let the server name a bad value
}

/** Form -> workload (API.md "Workload") and the URL query that reproduces it. */
/** The chosen preset's defaults show as placeholders (what an empty field means). */
function showPresetDefaults() {
  const p = presetsOf(catalog).find((m) => m.id === $('#f-model').value);
  form.elements.seq_len.placeholder = p && p.seq_len ? String(p.seq_len) : '';
}

function readForm() {
  const w = {};
  const q = new URLSearchParams();
  const model = $('#f-model').value;
  $('#custom-model').hidden = model !== 'custom';
  showPresetDefaults();
  if (model !== 'custom') {
    w.model = { preset: model };
    q.set('model', model);
  } else {
    w.model = {};
    q.set('model', 'custom');
    for (const k of MODEL_FIELDS) {
      const v = numberOf(form.elements[k]);
      if (v !== undefined) {
        w.model[k] = v;
        q.set(k, String(form.elements[k].value.trim()));
      }
    }
  }
  w.task = form.elements.task.value;
  q.set('task', w.task);
  for (const k of NUMBER_FIELDS) {
    const v = numberOf(form.elements[k]);
    if (v !== undefined) {
      w[k] = v;
      q.set(k, form.elements[k].value.trim());
    }
  }
  w.precision = form.elements.precision.value;
  q.set('precision', w.precision);
  w.pricing = $('input[name="pricing"]:checked', form)?.value || 'cloud';
  q.set('pricing', w.pricing);
  const gpus = $$('input[name="gpus"]:checked', form).map((c) => c.value);
  if (gpus.length) {
    w.gpus_allowed = gpus;
    q.set('gpus', gpus.join(','));
  }
  return { workload: w, query: q };
}

function clearErrors() {
  for (const el of $$('.field-error', form)) el.remove();
  for (const el of $$('[aria-invalid]', form)) {
    el.removeAttribute('aria-invalid');
    const ids = (el.getAttribute('aria-describedby') || '').split(' ').filter((x) => x && !x.startsWith('err-'));
    if (ids.length) el.setAttribute('aria-describedby', ids.join(' '));
    else el.removeAttribute('aria-describedby');
  }
  $('#form-error').hidden = true;
}

/** Shows the API's message next to the control its "field" names. */
function showError(err) {
  clearErrors();
  const field = err.field || '';
  const controls = $$('[data-field]', form);
  const norm = (x) => x.replace(/\[\d+\]/g, '').replace(/^workload\./, '');
  const target =
    controls.find((c) => c.dataset.field === norm(field)) ||
    controls.find((c) => norm(field).startsWith(`${c.dataset.field}.`)) ||
    controls.find((c) => c.dataset.field.split('.').pop() === norm(field).split('.').pop()) ||
    (norm(field).startsWith('model') ? $('#f-model') : null);
  if (target && field) {
    const id = `err-${field.replace(/[^a-z0-9_-]/gi, '_')}`;
    const msg = h('p', { class: 'field-error', id, role: 'alert' }, err.message);
    const box = target.closest('.field, fieldset') || target.parentElement;
    if (box.closest('details')) box.closest('details').open = true;
    if (box.closest('[hidden]')) box.closest('[hidden]').hidden = false;
    box.append(msg);
    const input = target.matches('input,select,textarea') ? target : $('input,select', box);
    if (input) {
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', `${input.getAttribute('aria-describedby') || ''} ${id}`.trim());
    }
  } else {
    const banner = $('#form-error');
    banner.textContent = err.message;
    banner.hidden = false;
  }
}

function setStatus(text, busy = false) {
  const el = $('#status');
  el.textContent = text;
  el.classList.toggle('busy', busy);
  $('#results').setAttribute('aria-busy', busy ? 'true' : 'false');
}

function summary(rec, workload) {
  const m = rec.model || {};
  const warn = rec.warnings || [];
  return h(
    'div',
    { class: 'summary' },
    h(
      'p',
      null,
      `${presetsOf(catalog).find((p) => p.id === workload.model.preset)?.name || workload.model.preset || 'Custom model'}: ${f.num(m.params_b)} B parameters`,
      f.isNum(m.active_params_b) && m.active_params_b !== m.params_b ? ` (${f.num(m.active_params_b)} B active)` : '',
      ` · ${f.billions(workload.tokens_b)} B tokens · ${workload.task} · ${workload.precision}`,
      rec.engine_version ? h('span', { class: 'muted' }, ` · engine ${rec.engine_version}`) : null,
    ),
    warn.length ? warningList(warn, 'Warnings for the workload') : null,
  );
}

function render(rec, workload) {
  mount($('#summary'), summary(rec, workload));
  mount($('#tiers'), tierRow(rec));
  mount($('#charts'), memoryChart(rec), timeCostChart(rec, workload));
  renderSave();
}

async function recompute() {
  const { workload, query } = readForm();
  const url = `${location.pathname}?${query}${planId ? `&plan=${encodeURIComponent(planId)}` : ''}`;
  if (url !== location.pathname + location.search) history.replaceState(null, '', url);
  if (inflight) inflight.abort();
  const ctl = new AbortController();
  inflight = ctl;
  setStatus('Updating…', true);
  try {
    const rec = await api('POST', '/api/v1/recommend', workload, { signal: ctl.signal });
    if (ctl.signal.aborted) return;
    clearErrors();
    last = { workload, rec };
    render(rec, workload);
    const n = rec.configs_evaluated;
    setStatus(`Up to date${f.isNum(n) ? ` · ${f.int(n)} layouts compared` : ''}.`);
  } catch (e) {
    if (e.name === 'AbortError') return;
    setStatus(e instanceof ApiError && e.status === 400 ? 'Fix the highlighted input to update; the cards show the last good answer.' : `Could not update: ${e.message}`);
    showError(e);
    $('#results').classList.add('stale');
    return;
  } finally {
    if (inflight === ctl) inflight = null;
  }
  $('#results').classList.remove('stale');
}

const schedule = debounce(recompute, 350);

let planId = null;

function renderSave() {
  const body = $('#save-body');
  if (!who()) {
    mount(
      body,
      h('p', null, 'Save plans for your team, check your cluster\'s benchmark output against them and share a bill of materials with procurement. ',
        h('a', { href: `/workspace.html?next=${encodeURIComponent(location.pathname + location.search)}` }, 'Log in or sign up'), ' to save this plan.'),
      h('p', { class: 'muted' }, 'Or copy this page\'s address: the link reproduces the calculation.'),
    );
    return;
  }
  if ($('#save-form')) return; // keep what the user typed
  const title = h('input', { id: 'save-title-input', name: 'title', required: !planId, maxlength: 200, value: planId ? '' : defaultTitle() });
  const tier = h('select', { id: 'save-tier', name: 'tier' }, ['minimum', 'recommended', 'performance'].map((t) => h('option', { value: t, selected: t === 'recommended' }, f.TIER_LABEL[t])));
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const formEl = h(
    'form',
    { id: 'save-form', class: 'inline-form' },
    h('div', { class: 'field' }, h('label', { for: 'save-title-input' }, planId ? 'New title (optional)' : 'Plan title'), title),
    h('div', { class: 'field' }, h('label', { for: 'save-tier' }, 'Tier the team goes with'), tier),
    h('button', { type: 'submit', class: 'primary' }, planId ? `Save as a new revision of plan ${planId}` : 'Save plan'),
    msg,
  );
  formEl.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!last) return;
    msg.textContent = 'Saving…';
    const payload = { workload: last.workload, tier: tier.value };
    if (title.value.trim()) payload.title = title.value.trim();
    try {
      const plan = planId
        ? await api('PUT', `/api/v1/plans/${encodeURIComponent(planId)}`, payload)
        : await api('POST', '/api/v1/plans', payload);
      location.href = `/plan.html?id=${encodeURIComponent(plan.id ?? planId)}`;
    } catch (e) {
      msg.textContent = e.status === 401 ? 'Your session ended: log in again.' : e.message;
      msg.classList.add('error');
      if (e.status === 401) renderNav();
    }
  });
  mount(body, formEl);
}

function defaultTitle() {
  const { workload } = readForm();
  return `${workload.model.preset || `${workload.model.params_b || '?'}B custom`} · ${workload.tokens_b ?? '?'}B tokens`;
}

async function main() {
  // Invite links point at /#/join/TOKEN; joining happens in the workspace.
  if (location.hash.startsWith('#/join/')) {
    location.replace(`/workspace.html${location.hash}`);
    return;
  }
  renderNav();
  syncSession().then(() => last && renderSave());
  try {
    catalog = await api('GET', '/api/v1/catalog');
  } catch (e) {
    setStatus(`The catalog could not be loaded: ${e.message}`);
    catalog = {};
  }
  fillCatalog();
  planId = readUrl();
  readForm();
  // Switching to a custom shape starts from the preset that was chosen.
  let lastPreset = $('#f-model').value;
  $('#f-model').addEventListener('change', () => {
    const sel = $('#f-model').value;
    if (sel !== 'custom') {
      lastPreset = sel;
      return;
    }
    const p = presetsOf(catalog).find((m) => m.id === lastPreset);
    if (p && !form.elements.params_b.value)
      for (const k of MODEL_FIELDS) if (p[k] !== undefined && p[k] !== null && (p[k] !== 0 || k === 'experts')) form.elements[k].value = p[k];
  });
  $('#copy-link').addEventListener('click', async (ev) => {
    const b = ev.currentTarget;
    try {
      await navigator.clipboard.writeText(location.href);
      b.textContent = 'Link copied';
    } catch {
      b.textContent = 'Copy the address bar';
    }
    setTimeout(() => (b.textContent = 'Copy link to this calculation'), 2000);
  });
  form.addEventListener('input', schedule);
  form.addEventListener('change', schedule);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    recompute();
  });
  window.addEventListener('popstate', () => {
    planId = readUrl();
    recompute();
  });
  await recompute();
}

main();
