// tiers.js: renders a recommendation (API.md "Recommendation") as three tier
// cards side by side. Shared by the planner and the plan page so a saved plan
// reads exactly like the live one.
import { h } from './dom.js';
import * as f from './fmt.js';

const LINK_NAME = {
  nvswitch: 'NVLink + NVSwitch',
  'nvlink-bridge': 'NVLink bridge',
  pcie: 'PCIe',
  'xgmi-mesh': 'Infinity Fabric mesh',
  'ethernet-scaleup': 'On-die RoCE scale-up',
};
const FABRIC_NAME = { none: 'None (single node)', roce: 'RoCE v2', infiniband: 'InfiniBand' };

/**
 * Whether a tier has a cluster. One that does not fit (no layout fits memory)
 * has null GPU count and days from the engine (0 in plans saved before), which
 * are no figures: it is labelled "Does not fit" and shows no numbers.
 */
export function hasCluster(t) {
  const gpu = (t && t.gpu) || {};
  const days = t && t.time ? t.time.days : null;
  return f.isNum(gpu.count) && gpu.count >= 1 && f.isNum(days) && !(t.feasible === false && days <= 0);
}

export const warningText = (w) => (typeof w === 'string' ? w : (w && (w.text || w.message)) || JSON.stringify(w));

/** An engine warning reads "what: details"; the short lead before the colon is its name. */
// Most GPUs reach the fabric through a NIC per GPU; Gaudi 3 carries its own
// RoCE ports (fabric.ports_per_node), and no NIC is bought.
function nicText(fab) {
  if (!fab.nics_per_node && fab.ports_per_node) return `${f.int(fab.ports_per_node)} on-chip ports/node`;
  return `${f.int(fab.nics_per_node)} NICs/node`;
}

function warningLead(text) {
  const i = text.indexOf(': ');
  return i > 0 && i <= 60 ? text.slice(0, i) : null;
}

function warningItem(text, applies) {
  const lead = warningLead(text);
  return h(
    'li',
    null,
    applies ? h('span', { class: 'applies' }, applies) : null,
    lead ? [h('strong', null, lead), text.slice(lead.length)] : text,
  );
}

/** A warning list; more than two fold into a summary that names each one, so a card stays short. */
function collapsible(items, texts, label) {
  const ul = h('ul', { class: 'warnings', 'aria-label': label }, items);
  if (items.length <= 2) return ul;
  const leads = [...new Set(texts.map(warningLead).filter(Boolean))];
  return h(
    'details',
    { class: 'warnings' },
    h('summary', null, `${items.length} warnings`, leads.length ? h('span', { class: 'leads' }, `: ${leads.join(' · ')}`) : null),
    ul,
  );
}

/** Warnings as a list (folded when more than two); shared by the cards and the planner's summary. */
export function warningList(list, label) {
  const texts = (list || []).map(warningText);
  return collapsible(texts.map((t) => warningItem(t)), texts, label);
}

function row(label, ...value) {
  return [h('dt', null, label), h('dd', null, ...value)];
}

function memoryBar(mem) {
  if (!mem || !f.isNum(mem.per_gpu_gib) || !f.isNum(mem.capacity_gib) || mem.capacity_gib <= 0) return null;
  const ratio = Math.min(1, mem.per_gpu_gib / mem.capacity_gib);
  const fill = h('span', { class: ['meter-fill', ratio > 0.92 ? 'hot' : ratio > 0.8 ? 'warm' : ''] });
  fill.style.width = `${(ratio * 100).toFixed(1)}%`;
  return h('span', { class: 'meter', role: 'img', 'aria-label': `${f.num(ratio * 100, 0)} % of the card's memory` }, fill);
}

function storageList(storage) {
  const tiers = (storage && storage.tiers) || [];
  if (!tiers.length) return '–';
  return h(
    'ul',
    { class: 'plain' },
    tiers.map((t) =>
      h(
        'li',
        null,
        h('strong', null, t.tier), ' ', t.kind, ': ', `${f.num(t.capacity_tb)} TB`,
        h('span', { class: 'muted' }, ` · read ${f.num(t.read_gbs)} GB/s · write ${f.num(t.write_gbs)} GB/s`),
      ),
    ),
  );
}

function checkpoint(c) {
  if (!c) return '–';
  return [
    `${f.num(c.size_gb)} GB every ${f.num(c.interval_min, 0)} min, keep ${f.int(c.keep)}`,
    h('span', { class: 'muted' }, ` · writes at ${f.num(c.write_gbs)} GB/s`),
  ];
}

function daysRange(t) {
  const lo = t.days_low ?? (t.range && t.range[0]);
  const hi = t.days_high ?? (t.range && t.range[1]);
  return f.isNum(lo) && f.isNum(hi) ? `${f.days(lo)} – ${f.days(hi)}` : null;
}

function costRange(c) {
  const lo = c.usd_low ?? c.low_usd;
  const hi = c.usd_high ?? c.high_usd;
  return f.isNum(lo) && f.isNum(hi) ? `${f.usd(lo)} – ${f.usd(hi)}` : null;
}

export function rationaleList(items) {
  return h(
    'ul',
    { class: 'rationale' },
    (items || []).map((r) => h('li', null, h('code', { class: 'rule' }, r.rule || '·'), ' ', r.text || '')),
  );
}

function expectationList(items) {
  return h(
    'ul',
    { class: 'rationale' },
    (items || []).map((e) => {
      const bound = [
        f.isNum(e.min) ? `≥ ${f.num(e.min)}` : null,
        f.isNum(e.max) ? `≤ ${f.num(e.max)}` : null,
        e.value !== undefined && e.value !== null ? `= ${e.value}` : null,
      ]
        .filter(Boolean)
        .join(' ');
      return h('li', null, h('code', { class: 'rule' }, e.why || '·'), ' ', h('code', null, e.id), ' ', bound);
    }),
  );
}

function bomTable(t) {
  const lines = t.bom || [];
  if (!lines.length) return null;
  return h(
    'details',
    { class: 'why bom-details' },
    h('summary', null, `Bill of materials (${f.usd(t.bom_total_usd)})`),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'bom-mini' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Item'), h('th', { scope: 'col', class: 'num' }, 'Qty'), h('th', { scope: 'col', class: 'num' }, 'Total'))),
        h('tbody', null, lines.map((l) => h('tr', null, h('td', null, l.description || l.item, l.as_of ? h('span', { class: 'muted' }, ` · as of ${l.as_of}`) : null), h('td', { class: 'num' }, f.num(l.quantity, 1)), h('td', { class: 'num' }, f.usd(l.total_usd))))),
      ),
    ),
  );
}

/**
 * One tier card; chosen marks the tier a team went with; same names an
 * earlier tier with the same cluster; shared is the set of warning texts
 * shown once above the cards (they are left out of the card, which counts them).
 */
export function tierCard(t, { chosen = false, same = null, shared = null } = {}) {
  const name = t.tier || 'tier';
  const gpu = t.gpu || {};
  const par = t.parallel || {};
  const mem = t.memory || {};
  const ic = t.interconnect || {};
  const fab = t.fabric || {};
  const time = t.time || {};
  const cost = t.cost || {};
  const host = t.host || {};
  const all = (t.warnings || []).map(warningText);
  const warnings = shared ? all.filter((w) => !shared.has(w)) : all;
  const sharedCount = new Set(all.filter((w) => shared && shared.has(w))).size;
  const headId = `tier-${name}-title`;
  const fits = hasCluster(t);

  const card = h(
    'article',
    { class: ['tier', `tier-${name}`, (t.feasible === false || !fits) && 'infeasible', !fits && 'unfit', chosen && 'chosen'], 'aria-labelledby': headId },
    h(
      'header',
      null,
      h('h3', { id: headId }, f.TIER_LABEL[name] || name),
      chosen ? h('span', { class: 'badge chosen-badge' }, 'Chosen') : null,
      !fits ? h('span', { class: 'badge sev-fail' }, 'Does not fit') : t.feasible === false ? h('span', { class: 'badge sev-fail' }, 'Not feasible') : null,
      h('p', { class: 'tagline' }, f.TIER_TAG[name] || ''),
    ),
  );
  card.dataset.tier = name;

  if (t.feasible === false || !fits) {
    card.append(
      h(
        'div',
        { class: 'why-not', role: 'note' },
        h('p', null, t.why || (fits ? 'No plan meets the constraints.' : 'No cluster fits this tier.')),
        f.isNum(t.need_budget_usd) ? h('p', null, `Would need a budget of ${f.usd(t.need_budget_usd)}.`) : null,
        f.isNum(t.need_deadline_days) ? h('p', null, `Would need a deadline of ${f.days(t.need_deadline_days)}.`) : null,
      ),
    );
  }
  if (!fits) return card;
  if (same) card.append(h('p', { class: 'same-as' }, `Same cluster as the ${(f.TIER_LABEL[same] || same).toLowerCase()} tier.`));

  card.append(
    h(
      'div',
      { class: 'headline' },
      h('p', { class: 'big' }, h('span', { class: 'count' }, f.int(gpu.count)), ' × ', gpu.name || gpu.id || 'GPU'),
      h('p', { class: 'muted' }, `${f.int(gpu.nodes)} node${gpu.nodes === 1 ? '' : 's'} × ${f.int(gpu.per_node)} GPUs`),
      h(
        'div',
        { class: 'kpis' },
        h('div', { class: 'kpi' }, h('span', { class: 'kpi-label' }, 'Time'), h('span', { class: 'kpi-value' }, f.days(time.days)),
          daysRange(time) ? h('span', { class: 'kpi-sub' }, daysRange(time)) : null),
        h('div', { class: 'kpi' }, h('span', { class: 'kpi-label' }, `Cost (${cost.basis || 'cloud'})`), h('span', { class: 'kpi-value' }, f.usd(cost.usd)),
          costRange(cost) ? h('span', { class: 'kpi-sub' }, costRange(cost)) : null),
      ),
    ),
  );

  const dl = h(
    'dl',
    { class: 'facts' },
    row('Memory per GPU', `${f.gib(mem.per_gpu_gib)} of ${f.gib(mem.capacity_gib)}`, memoryBar(mem)),
    row(
      'Parallelism',
      `TP ${par.tp ?? '–'} · PP ${par.pp ?? '–'} · DP ${par.dp ?? '–'}`,
      h('span', { class: 'muted' }, ` · ZeRO-${par.zero ?? '–'} · recompute ${par.recompute || '–'} · micro-batch ${par.micro_batch ?? '–'}`),
    ),
    row('Intra-node link', LINK_NAME[ic.intra_node] || ic.intra_node || '–', f.isNum(ic.gpu_gpu_gbs) ? h('span', { class: 'muted' }, ` · ${f.num(ic.gpu_gpu_gbs)} GB/s per GPU`) : null),
    row(
      'Fabric',
      FABRIC_NAME[fab.type] || fab.type || '–',
      fab.type && fab.type !== 'none'
        ? h(
            'span',
            { class: 'muted' },
            ` · ${f.num(fab.gbps_per_gpu, 0)} Gb/s per GPU · ${nicText(fab)} · ${fab.topology || ''}` +
              `${fab.oversubscription ? ` ${fab.oversubscription}` : ''}${fab.lossless ? ' · lossless' : ''}`,
          )
        : null,
    ),
    row('Storage', storageList(t.storage)),
    row('Checkpoints', checkpoint(t.storage && t.storage.checkpoint)),
    row('Host per node', `${f.int(host.cpu_threads_per_node)} CPU threads · ${f.int(host.ram_gb_per_node)} GB RAM`),
    row('Throughput', `${f.int(time.tokens_per_s)} tokens/s`, h('span', { class: 'muted' }, ` · MFU ${f.pct(time.mfu)} · comm ${f.pct(time.comm_fraction)} · goodput ${f.pct(time.goodput)}`)),
    row('GPU-hours', f.int(time.gpu_hours)),
  );
  card.append(dl);

  if (warnings.length) card.append(warningList(warnings, 'Warnings'));
  if (sharedCount) {
    card.append(
      h('p', { class: 'shared-note' }, h('a', { href: '#shared-warnings' },
        `${sharedCount} more warning${sharedCount === 1 ? '' : 's'} shared with other tiers`), ', above the cards.'),
    );
  }

  const bom = bomTable(t);
  if (bom) card.append(bom);
  if ((t.rationale || []).length)
    card.append(h('details', { class: 'why' }, h('summary', null, `Why this plan (${t.rationale.length} rules and formulas)`), rationaleList(t.rationale)));
  if ((t.expectations || []).length)
    card.append(h('details', { class: 'why' }, h('summary', null, `What the cluster should measure (${t.expectations.length})`), expectationList(t.expectations)));
  return card;
}

/**
 * The three cards in a row; chosen is the tier name a team picked. A warning
 * the engine gives for more than one tier (a restricted GPU, a price
 * estimate for the same card) is said once above the cards, naming its
 * tiers, so each card keeps only what is particular to it.
 */
export function tierRow(rec, chosen) {
  const tiers = rec.tiers || [];
  const key = (t) => (t.gpu && t.gpu.id ? `${t.gpu.id}/${t.gpu.count}/${t.gpu.per_node}/${t.time && t.time.days}` : null);
  const where = new Map(); // warning text -> tier names, in tier order
  for (const t of tiers)
    for (const w of new Set((t.warnings || []).map(warningText))) where.set(w, [...(where.get(w) || []), t.tier]);
  const shared = new Map([...where].filter(([, names]) => names.length > 1));
  return h(
    'div',
    { class: 'tier-row' },
    shared.size ? sharedWarnings(shared, tiers.length) : null,
    h(
      'div',
      { class: 'tiers' },
      tiers.map((t, i) => {
        const prev = tiers.slice(0, i).find((p) => key(p) && key(p) === key(t));
        return tierCard(t, { chosen: t.tier === chosen, same: prev ? prev.tier : null, shared: new Set(shared.keys()) });
      }),
    ),
  );
}

function tierNames(names, total) {
  if (names.length === total && total > 1) return total === 3 ? 'All three tiers' : 'All tiers';
  const list = names.map((n) => f.TIER_LABEL[n] || n);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list[0];
}

function sharedWarnings(shared, total) {
  const items = [...shared].map(([text, names]) => warningItem(text, tierNames(names, total)));
  return h(
    'section',
    { class: 'shared-warnings', id: 'shared-warnings', 'aria-labelledby': 'shared-warnings-title', tabindex: '-1' },
    h('h3', { id: 'shared-warnings-title' }, `Warnings for more than one tier (${items.length})`),
    collapsible(items, [...shared.keys()], 'Warnings for more than one tier'),
  );
}
