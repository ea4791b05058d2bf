// charts.js: the three charts, drawn as SVG by gpuplan itself (no chart
// library, nothing fetched at run time). Each chart is an <svg role="img">
// with a text summary in aria-label, plus an HTML legend, and scales with its
// container through viewBox. Colours come from CSS classes (style.css) so
// they follow the page's palette and contrast rules.
import { h, s } from './dom.js';
import * as f from './fmt.js';
import { hasCluster } from './tiers.js';

const PARTS = [
  ['weights_gib', 'Weights'],
  ['gradients_gib', 'Gradients'],
  ['optimizer_gib', 'Optimizer'],
  ['activations_gib', 'Activations'],
  ['other_gib', 'Other'],
];

/** Round axis ticks covering [lo, hi]. */
export function ticks(lo, hi, n = 5) {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

function legend(entries) {
  return h('ul', { class: 'legend' }, entries.map(([cls, label]) => h('li', null, h('span', { class: ['swatch', cls], 'aria-hidden': 'true' }), label)));
}

function figure(title, svg, legendEl, note) {
  return h('figure', { class: 'chart' }, h('figcaption', null, title), svg, legendEl, note ? h('p', { class: 'chart-note muted' }, note) : null);
}

/** Memory per GPU, one stacked bar per tier, against the card's capacity (F5, F6). */
export function memoryChart(rec) {
  const tiers = (rec.tiers || []).filter((t) => hasCluster(t) && t.memory && f.isNum(t.memory.per_gpu_gib));
  const W = 440, rowH = 40, top = 8, left = 112, right = 16, bottom = 30;
  const H = top + rowH * Math.max(1, tiers.length) + bottom;
  const max = Math.max(1, ...tiers.map((t) => Math.max(t.memory.capacity_gib || 0, t.memory.per_gpu_gib || 0)));
  const xs = (v) => left + ((W - left - right) * v) / max;
  const summary = tiers
    .map((t) => `${f.TIER_LABEL[t.tier] || t.tier}: ${f.gib(t.memory.per_gpu_gib)} of ${f.gib(t.memory.capacity_gib)}`)
    .join('; ');
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart-svg', role: 'img', 'aria-label': `Memory per GPU. ${summary}` });
  for (const v of ticks(0, max, 4)) {
    svg.append(s('line', { x1: xs(v), x2: xs(v), y1: top, y2: H - bottom, class: 'grid' }));
    svg.append(s('text', { x: xs(v), y: H - bottom + 16, class: 'tick', 'text-anchor': 'middle', text: `${f.num(v, 0)}` }));
  }
  svg.append(s('text', { x: W - right, y: H - 2, class: 'axis-label', 'text-anchor': 'end', text: 'GiB per GPU' }));
  tiers.forEach((t, i) => {
    const y = top + i * rowH + 8;
    const bh = rowH - 18;
    const g = s('g', { class: `bar tier-${t.tier}` });
    g.append(s('text', { x: left - 8, y: y + bh / 2 + 4, 'text-anchor': 'end', class: 'row-label', text: f.TIER_LABEL[t.tier] || t.tier }));
    const m = t.memory;
    let acc = 0;
    const known = PARTS.reduce((a, [k]) => a + (f.isNum(m[k]) ? m[k] : 0), 0);
    const parts = known > 0 ? PARTS : [['per_gpu_gib', 'Total']];
    for (const [k, label] of parts) {
      const v = f.isNum(m[k]) ? m[k] : 0;
      if (v <= 0) continue;
      const r = s('rect', { x: xs(acc), y, width: Math.max(0.5, xs(acc + v) - xs(acc)), height: bh, class: `seg seg-${k.replace('_gib', '')}` });
      r.append(s('title', { text: `${label}: ${f.gib(v)}` }));
      g.append(r);
      acc += v;
    }
    if (f.isNum(m.capacity_gib)) {
      const x = xs(m.capacity_gib);
      g.append(s('line', { x1: x, x2: x, y1: y - 5, y2: y + bh + 5, class: 'capacity' }));
      g.append(s('title', { text: `Card capacity ${f.gib(m.capacity_gib)}` }));
    }
    svg.append(g);
  });
  return figure(
    'Memory per GPU against card capacity',
    svg,
    legend([...PARTS.map(([k, l]) => [`seg-${k.replace('_gib', '')}`, l]), ['capacity-key', 'Card capacity']]),
    tiers.length ? null : 'No tier has a cluster that fits, so there is no memory to plot.',
  );
}

/** Time against cost of the three tiers, with the time range and the deadline/budget lines. */
export function timeCostChart(rec, workload = {}) {
  const tiers = (rec.tiers || []).filter((t) => hasCluster(t) && t.cost && f.isNum(t.cost.usd));
  const W = 440, H = 260, left = 62, right = 20, top = 16, bottom = 40;
  const dl = f.isNum(workload.deadline_days) ? workload.deadline_days : null;
  const bud = f.isNum(workload.budget_usd) ? workload.budget_usd : null;
  const dmax = Math.max(1, ...tiers.map((t) => t.time.days_high ?? t.time.days), dl || 0) * 1.1;
  const cmax = Math.max(1, ...tiers.map((t) => t.cost.usd_high ?? t.cost.usd), bud || 0) * 1.1;
  const xs = (v) => left + ((W - left - right) * v) / dmax;
  const ys = (v) => H - bottom - ((H - top - bottom) * v) / cmax;
  const summary = tiers.map((t) => `${f.TIER_LABEL[t.tier] || t.tier}: ${f.days(t.time.days)}, ${f.usd(t.cost.usd)}`).join('; ');
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart-svg', role: 'img', 'aria-label': `Time and cost of the tiers. ${summary}` });
  for (const v of ticks(0, dmax, 5)) {
    svg.append(s('line', { x1: xs(v), x2: xs(v), y1: top, y2: H - bottom, class: 'grid' }));
    svg.append(s('text', { x: xs(v), y: H - bottom + 16, class: 'tick', 'text-anchor': 'middle', text: f.num(v, 0) }));
  }
  for (const v of ticks(0, cmax, 4)) {
    svg.append(s('line', { x1: left, x2: W - right, y1: ys(v), y2: ys(v), class: 'grid' }));
    svg.append(s('text', { x: left - 6, y: ys(v) + 4, class: 'tick', 'text-anchor': 'end', text: f.usd(v) }));
  }
  svg.append(s('text', { x: W - right, y: H - 4, class: 'axis-label', 'text-anchor': 'end', text: 'days of training' }));
  // Text boxes already drawn, so a tier's label can step aside rather than
  // print over another (two tiers close in time and cost, or a limit's label).
  // Widths are estimated, generously, from the character count at the
  // labels' font size (bold 12 px in a wide sans runs near 9 px a letter).
  const placed = [];
  const boxOf = (x, y, text, end, px = 9.2) => {
    const w = text.length * px + 4;
    return { x0: end ? x - w : x, x1: end ? x : x + w, y0: y - 12, y1: y + 3 };
  };
  const overlaps = (a) => placed.some((b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1);
  if (dl !== null) {
    const text = `deadline ${f.num(dl, 0)} d`;
    svg.append(s('line', { x1: xs(dl), x2: xs(dl), y1: top, y2: H - bottom, class: 'limit' }));
    svg.append(s('text', { x: xs(dl) - 4, y: top + 10, class: 'limit-label', 'text-anchor': 'end', text }));
    placed.push(boxOf(xs(dl) - 4, top + 10, text, true, 8));
  }
  if (bud !== null) {
    const text = `budget ${f.usd(bud)}`;
    svg.append(s('line', { x1: left, x2: W - right, y1: ys(bud), y2: ys(bud), class: 'limit' }));
    svg.append(s('text', { x: W - right, y: ys(bud) - 5, class: 'limit-label', 'text-anchor': 'end', text }));
    placed.push(boxOf(W - right, ys(bud) - 5, text, true, 8));
  }
  // The cheapest plan at each speed (the engine's time/cost frontier), where it falls inside the chart.
  const front = (rec.frontier || []).filter((p) => f.isNum(p.days) && f.isNum(p.cost_usd) && p.days <= dmax && p.cost_usd <= cmax);
  if (front.length) {
    const fg = s('g', { class: 'frontier' });
    if (front.length > 1) fg.append(s('polyline', { points: front.map((p) => `${xs(p.days)},${ys(p.cost_usd)}`).join(' '), class: 'frontier-line' }));
    for (const p of front) {
      const c = s('circle', { cx: xs(p.days), cy: ys(p.cost_usd), r: 3, class: 'frontier-dot' });
      c.append(s('title', { text: `${p.count} × ${p.gpu} (TP ${p.tp} · PP ${p.pp} · DP ${p.dp}): ${f.days(p.days)}, ${f.usd(p.cost_usd)}` }));
      fg.append(c);
    }
    svg.append(fg);
  }
  // Tiers that land on the same plan share one point and one label.
  const groups = [];
  for (const t of tiers) {
    const same = groups.find((g) => Math.abs(g[0].time.days - t.time.days) < 1e-6 && Math.abs(g[0].cost.usd - t.cost.usd) < 0.5);
    if (same) same.push(t);
    else groups.push([t]);
  }
  groups.forEach((grp) => {
    const t = grp[grp.length - 1];
    const label = grp.map((x) => f.TIER_LABEL[x.tier] || x.tier).join(' = ');
    const g = s('g', { class: `point tier-${t.tier}` });
    const x = xs(t.time.days), y = ys(t.cost.usd);
    if (f.isNum(t.time.days_low) && f.isNum(t.time.days_high))
      g.append(s('line', { x1: xs(t.time.days_low), x2: xs(t.time.days_high), y1: y, y2: y, class: 'whisker' }));
    const c = s('circle', { cx: x, cy: y, r: 7, class: 'dot' });
    c.append(s('title', { text: `${label}: ${f.days(t.time.days)}, ${f.usd(t.cost.usd)}` }));
    g.append(c);
    const right = x > W * 0.6;
    // Above the point on its open side first; then below, then the other side.
    const tries = [[right, -10], [right, 21], [!right, -10], [!right, 21], [right, -24], [right, 35]].map(([end, dy]) => ({
      end, y: y + dy, x: end ? x - 10 : x + 10,
    }));
    const at = tries.find((p) => !overlaps(boxOf(p.x, p.y, label, p.end))) || tries[0];
    placed.push(boxOf(at.x, at.y, label, at.end));
    g.append(s('text', { x: at.x, y: at.y, class: 'point-label', 'text-anchor': at.end ? 'end' : 'start', text: label }));
    svg.append(g);
  });
  return figure(
    'Time against cost',
    svg,
    legend([['tier-minimum', 'Minimum'], ['tier-recommended', 'Recommended'], ['tier-performance', 'Performance'], ...(front.length ? [['frontier-key', 'Cheapest plan at each speed']] : []), ['limit-key', 'Deadline / budget']]),
    tiers.length
      ? 'Whiskers show the time range (restarts, efficiency spread). Hover a point for its cluster.'
      : 'No tier has a cluster that fits, so there is no time or cost to plot.',
  );
}

/**
 * Measured values of a plan's reports over time against the expected line.
 * series: [{at: Date, value: number, verdict}], expected: number|null.
 */
export function measuredChart(title, unit, series, expected, bound = 'min') {
  const W = 480, H = 240, left = 56, right = 20, top = 16, bottom = 44;
  const pts = series.filter((p) => p.at && f.isNum(p.value)).sort((a, b) => a.at - b.at);
  const vmax = Math.max(1, ...pts.map((p) => p.value), f.isNum(expected) ? expected : 0) * 1.15;
  const t0 = pts.length ? pts[0].at.getTime() : Date.now();
  const t1 = pts.length ? pts[pts.length - 1].at.getTime() : t0 + 1;
  const span = Math.max(1, t1 - t0);
  const xs = (d) => (pts.length <= 1 ? (left + W - right) / 2 : left + ((W - left - right) * (d.getTime() - t0)) / span);
  const ys = (v) => H - bottom - ((H - top - bottom) * v) / vmax;
  const summary = `${pts.length} measurement${pts.length === 1 ? '' : 's'}${pts.length ? `, latest ${f.num(pts[pts.length - 1].value)} ${unit}` : ''}${f.isNum(expected) ? `; expected ${bound === 'max' ? 'at most' : 'at least'} ${f.num(expected)} ${unit}` : ''}`;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart-svg', role: 'img', 'aria-label': `${title}: ${summary}` });
  for (const v of ticks(0, vmax, 4)) {
    svg.append(s('line', { x1: left, x2: W - right, y1: ys(v), y2: ys(v), class: 'grid' }));
    svg.append(s('text', { x: left - 6, y: ys(v) + 4, class: 'tick', 'text-anchor': 'end', text: f.num(v, 1) }));
  }
  svg.append(s('text', { x: left, y: top - 4, class: 'axis-label', text: unit }));
  if (f.isNum(expected)) {
    svg.append(s('line', { x1: left, x2: W - right, y1: ys(expected), y2: ys(expected), class: 'expected' }));
    svg.append(s('text', { x: W - right, y: ys(expected) - 6, class: 'limit-label', 'text-anchor': 'end', text: `expected ${bound === 'max' ? '≤' : '≥'} ${f.num(expected)}` }));
  }
  if (pts.length > 1)
    svg.append(s('polyline', { points: pts.map((p) => `${xs(p.at)},${ys(p.value)}`).join(' '), class: 'series' }));
  pts.forEach((p, i) => {
    const c = s('circle', { cx: xs(p.at), cy: ys(p.value), r: 5, class: `dot verdict-${p.verdict || 'unknown'}` });
    c.append(s('title', { text: `${f.when(p.at.toISOString())}: ${f.num(p.value)} ${unit} (${p.verdict || 'unknown'})` }));
    svg.append(c);
    if (i === 0 || i === pts.length - 1 || pts.length <= 4)
      svg.append(s('text', { x: xs(p.at), y: H - bottom + 16, class: 'tick', 'text-anchor': pts.length === 1 ? 'middle' : i === 0 ? 'start' : i === pts.length - 1 ? 'end' : 'middle', text: p.at.toISOString().slice(5, 16).replace('T', ' ') }));
  });
  if (!pts.length) svg.append(s('text', { x: W / 2, y: H / 2, class: 'tick', 'text-anchor': 'middle', text: 'No measurements yet' }));
  return figure(title, svg, legend([['series-key', 'Measured'], ['expected-key', 'Expected']]));
}
