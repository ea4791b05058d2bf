// fmt.js: number formatting in one place, so every page writes units the
// same way (API.md units: GiB, GB/s, Gb/s, USD, days).
const nf = (d) => new Intl.NumberFormat('en-US', { maximumFractionDigits: d, minimumFractionDigits: 0 });

export function isNum(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

export function num(v, digits = 1) {
  if (!isNum(v)) return '–';
  const d = Math.abs(v) >= 100 ? 0 : digits;
  return nf(d).format(v);
}

export function int(v) {
  return isNum(v) ? nf(0).format(Math.round(v)) : '–';
}

/** A count in billions as given (0.2, 0.005, 15,000): three significant figures, never rounded to 0. */
export function billions(v) {
  if (!isNum(v)) return '–';
  return new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 }).format(v);
}

export function usd(v) {
  if (!isNum(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1e9) return `$${nf(2).format(v / 1e9)} B`;
  if (a >= 1e6) return `$${nf(2).format(v / 1e6)} M`;
  if (a >= 1e4) return `$${nf(1).format(v / 1e3)} k`;
  return `$${nf(0).format(v)}`;
}

export function usdFull(v) {
  return isNum(v) ? `$${nf(2).format(v)}` : '–';
}

export function days(v) {
  if (!isNum(v)) return '–';
  if (v < 1) return `${nf(1).format(v * 24)} h`;
  return `${num(v, 1)} d`;
}

export function pct(v) {
  return isNum(v) ? `${nf(1).format(v * 100)} %` : '–';
}

export function gib(v) {
  return isNum(v) ? `${num(v, 1)} GiB` : '–';
}

export function when(iso) {
  if (!iso) return '–';
  const d = typeof iso === 'number' ? new Date(iso * (iso < 1e12 ? 1000 : 1)) : new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

export function dateOf(iso) {
  if (!iso) return null;
  const d = typeof iso === 'number' ? new Date(iso * (iso < 1e12 ? 1000 : 1)) : new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

export const TIER_LABEL = { minimum: 'Minimum', recommended: 'Recommended', performance: 'Performance' };
export const TIER_TAG = {
  minimum: 'Cheapest plan that fits in memory',
  recommended: 'Cheapest plan that meets the deadline within budget',
  performance: 'Fastest plan within budget',
};
