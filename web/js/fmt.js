// fmt.js: number formatting in one place, so every page writes units the
// same way (API.md units: GiB, GB/s, Gb/s, USD, days).
const nf = (d) => new Intl.NumberFormat('en-US', { maximumFractionDigits: d, minimumFractionDigits: 0 });

export function isNum(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

/** A figure to its decimals; one that would read 0 but is not (a LoRA job's 0.004 GB/s) to two significant figures. */
export function num(v, digits = 1) {
  if (!isNum(v)) return '–';
  const d = Math.abs(v) >= 100 ? 0 : digits;
  if (v !== 0 && Math.abs(v) < 0.5 * 10 ** -d) return new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 }).format(v);
  return nf(d).format(v);
}

export function int(v) {
  if (isNum(v) && v !== 0 && Math.abs(v) < 0.5) return num(v, 0); // 0.3 GPU-hours is not 0
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
  if (v !== 0 && a < 0.5) return `$${new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 }).format(v)}`;
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
