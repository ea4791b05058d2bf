// verdict.js: a report's verdict as people read it: the overall verdict, then
// findings sorted worst first, each with observed vs expected, the rule it
// rests on and what to do about it.
import { h } from './dom.js';
import * as f from './fmt.js';
import { sevBadge } from './forms.js';

const ORDER = { fail: 0, warn: 1, unknown: 2, skip: 3, pass: 4 };
const VERDICT_TEXT = {
  pass: 'The cluster meets the plan.',
  warn: 'The cluster works, with findings to look at.',
  fail: 'The cluster does not meet the plan.',
  unknown: 'Nothing in this report could be checked against the plan.',
};

const todo = (x) => x.hint || x.action || x.advice || '';

export function sortFindings(list) {
  return [...(list || [])].sort((a, b) => (ORDER[a.severity] ?? 2) - (ORDER[b.severity] ?? 2));
}

function val(v) {
  if (v === null || v === undefined) return h('span', { class: 'muted' }, 'n/a');
  if (typeof v === 'number') return f.num(v, 2);
  if (typeof v === 'object') {
    if (f.isNum(v.min) && f.isNum(v.max)) return `${f.num(v.min, 2)} – ${f.num(v.max, 2)}`;
    if (f.isNum(v.min)) return `≥ ${f.num(v.min, 2)}`;
    if (f.isNum(v.max)) return `≤ ${f.num(v.max, 2)}`;
    if ('value' in v) return val(v.value);
    return JSON.stringify(v);
  }
  return String(v);
}

export function verdictView(report) {
  const v = report.verdict || 'unknown';
  const findings = sortFindings(report.findings);
  const counts = {};
  for (const x of findings) counts[x.severity] = (counts[x.severity] || 0) + 1;
  const sections = report.sections || [];
  return h(
    'div',
    { class: 'verdict', dataset: { verdict: v } },
    h(
      'div',
      { class: ['verdict-banner', `v-${v}`], role: 'status' },
      sevBadge(v),
      h('span', null, VERDICT_TEXT[v] || ''),
      h('span', { class: 'muted' }, Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(' · ')),
    ),
    sections.length
      ? h('p', { class: 'muted' }, `Read ${sections.length} section${sections.length === 1 ? '' : 's'}: ${sections.map((x) => x.tool || x.kind).join(', ')}.`)
      : null,
    findings.length
      ? h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'findings' },
            h('caption', { class: 'visually-hidden' }, 'Findings, worst first'),
            h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Severity'), h('th', { scope: 'col' }, 'Finding'), h('th', { scope: 'col', class: 'num' }, 'Observed'), h('th', { scope: 'col', class: 'num' }, 'Expected'), h('th', { scope: 'col' }, 'Rule'))),
            h(
              'tbody',
              null,
              findings.map((x) =>
                h(
                  'tr',
                  { class: `finding sev-row-${x.severity}`, dataset: { severity: x.severity || 'unknown' } },
                  h('td', null, sevBadge(x.severity)),
                  h('td', null, h('code', null, x.id), h('br'), x.message || '', todo(x) ? h('span', { class: 'todo' }, `What to do: ${todo(x)}`) : null),
                  h('td', { class: 'num' }, val(x.observed)),
                  h('td', { class: 'num' }, val(x.expected)),
                  h('td', null, x.rule ? h('code', { class: 'rule' }, x.rule) : '–'),
                ),
              ),
            ),
          ),
        )
      : h('p', { class: 'empty' }, 'No findings.'),
    (report.no_evidence || []).length
      ? h('p', { class: 'muted' }, `Not checked, no evidence in this report: ${report.no_evidence.join(', ')}.`)
      : null,
  );
}
