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
  unknown: 'Not enough evidence for a verdict.',
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

/** No evidence: the report held nothing to check this against (observed absent). */
const noEvidence = (x) => (x.severity === 'unknown' || x.severity === 'skip') && (x.observed === null || x.observed === undefined || x.observed === '');

function findingsTable(list, caption, cls) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: ['findings', cls] },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Severity'), h('th', { scope: 'col' }, 'Finding'), h('th', { scope: 'col', class: 'num' }, 'Observed'), h('th', { scope: 'col', class: 'num' }, 'Expected'), h('th', { scope: 'col' }, 'Rule'))),
      h(
        'tbody',
        null,
        list.map((x) =>
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
  );
}

export function verdictView(report) {
  const v = report.verdict || 'unknown';
  const findings = sortFindings(report.findings);
  const counts = {};
  for (const x of findings) counts[x.severity] = (counts[x.severity] || 0) + 1;
  const sections = report.sections || [];
  const checked = findings.filter((x) => !noEvidence(x));
  const unchecked = findings.filter(noEvidence);
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
      : h('p', { class: 'muted' }, 'No tool output was recognised in this report.'),
    checked.length ? findingsTable(checked, 'Findings, worst first', 'checked') : h('p', { class: 'empty' }, 'Nothing in this report could be compared with the plan.'),
    unchecked.length
      ? h(
          'details',
          { class: 'why not-checked' },
          h('summary', null, `Not checked: no evidence in this report for ${unchecked.length} expectation${unchecked.length === 1 ? '' : 's'}`),
          h('p', { class: 'muted' }, 'Upload the named tool output to check these; a missing check never counts as a pass.'),
          findingsTable(unchecked, 'Expectations without evidence', 'unchecked'),
        )
      : null,
    (report.no_evidence || []).length
      ? h('p', { class: 'muted' }, `Also without evidence: ${report.no_evidence.join(', ')}.`)
      : null,
  );
}
