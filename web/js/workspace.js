// workspace.js: the team workspace: sign up / log in when nobody is, else the
// team's plans (title filter, cursor pages), API tokens for CI (shown once),
// and webhooks with their delivery log.
import { api, ApiError, forget, items, remember, who } from './api.js';
import { $, h, mount } from './dom.js';
import * as f from './fmt.js';
import { copyButton, field, onSubmit } from './forms.js';
import { renderNav } from './nav.js';

const main = $('#main');

function nextUrl() {
  const n = new URLSearchParams(location.search).get('next');
  // Only same-site paths: never send a user to another origin after login.
  return n && n.startsWith('/') && !n.startsWith('//') ? n : null;
}

/** Learns whether a session exists; returns the session or null. */
async function session() {
  try {
    const s = await api('GET', '/api/v1/session');
    if (s && typeof s === 'object') remember(s);
    return s || who();
  } catch (e) {
    if (e.status === 401) return null;
    if (e.status !== 404 && e.status !== 405) throw e;
  }
  // No session endpoint: ask for something only members may read.
  try {
    await api('GET', '/api/v1/plans?limit=1');
    return who() || {};
  } catch (e) {
    if (e.status === 401) return null;
    throw e;
  }
}

function authView() {
  const msgUp = h('p', { class: 'form-msg', role: 'status' });
  const up = h(
    'form',
    { class: 'panel', id: 'signup', 'aria-labelledby': 'signup-title', novalidate: true },
    h('h2', { id: 'signup-title' }, 'Create a team'),
    h('p', { class: 'muted' }, 'The first member of a team is its owner.'),
    field({ label: 'Team name', name: 'team', required: true, autocomplete: 'organization' }),
    field({ label: 'Email', name: 'email', type: 'email', required: true, autocomplete: 'email' }),
    field({ label: 'Password', name: 'password', type: 'password', required: true, minlength: 12, autocomplete: 'new-password', help: 'At least 12 characters.' }),
    h('button', { type: 'submit', class: 'primary' }, 'Sign up'),
    msgUp,
  );
  const done = (s) => {
    remember(s);
    location.href = nextUrl() || '/workspace.html';
  };
  onSubmit(up, async (fm) => {
    const s = await api('POST', '/api/v1/teams', { team: fm.team.value.trim(), email: fm.email.value.trim(), password: fm.password.value });
    done(s);
  }, msgUp);

  const msgIn = h('p', { class: 'form-msg', role: 'status' });
  const login = h(
    'form',
    { class: 'panel', id: 'login', 'aria-labelledby': 'login-title', novalidate: true },
    h('h2', { id: 'login-title' }, 'Log in'),
    h('p', { class: 'muted' }, 'Members of an existing team.'),
    field({ label: 'Email', name: 'email', type: 'email', required: true, autocomplete: 'username' }),
    field({ label: 'Password', name: 'password', type: 'password', required: true, autocomplete: 'current-password' }),
    h('button', { type: 'submit', class: 'primary' }, 'Log in'),
    msgIn,
  );
  onSubmit(login, async (fm) => {
    const s = await api('POST', '/api/v1/session', { email: fm.email.value.trim(), password: fm.password.value });
    done(s);
  }, msgIn);

  mount(
    main,
    h('h1', null, 'Team workspace'),
    h('p', { class: 'lede' }, 'Save plans, check your cluster\'s benchmark output against them, and share a bill of materials with procurement.'),
    h('div', { class: 'two' }, up, login),
  );
}

function plansPanel() {
  const list = h('ul', { class: 'rows', id: 'plan-list', 'aria-live': 'polite' });
  const more = h('button', { type: 'button', hidden: true }, 'Show more');
  const filter = h('input', { id: 'plan-filter', type: 'search', name: 'q', placeholder: 'Part of a title' });
  let cursor = null;
  let token = 0;

  async function load(reset) {
    const my = ++token;
    const q = new URLSearchParams({ limit: '20' });
    if (filter.value.trim()) q.set('q', filter.value.trim());
    if (!reset && cursor) q.set('cursor', cursor);
    let data;
    try {
      data = await api('GET', `/api/v1/plans?${q}`);
    } catch (e) {
      if (my === token) mount(list, h('li', { class: 'form-msg error' }, e.message));
      return;
    }
    if (my !== token) return;
    if (reset) list.replaceChildren();
    for (const p of items(data, 'plans')) {
      list.append(
        h(
          'li',
          { dataset: { planId: p.id } },
          h('span', null, h('a', { href: `/plan.html?id=${encodeURIComponent(p.id)}` }, p.title || `Plan ${p.id}`),
            h('span', { class: 'muted' }, ` · revision ${p.revision ?? 1}${p.tier ? ` · ${f.TIER_LABEL[p.tier] || p.tier}` : ''}`)),
          h('span', { class: 'muted' }, f.when(p.updated_at || p.created_at)),
        ),
      );
    }
    if (!list.children.length) list.append(h('li', { class: 'empty' }, filter.value ? 'No plan has that in its title.' : 'No plans yet: make one in the planner and save it.'));
    cursor = data && data.next;
    more.hidden = !cursor;
  }
  more.addEventListener('click', () => load(false));
  let t = null;
  filter.addEventListener('input', () => {
    clearTimeout(t);
    t = setTimeout(() => load(true), 250);
  });
  load(true);
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'plans-title' },
    h('div', { class: 'plan-head' }, h('h2', { id: 'plans-title' }, 'Plans'), h('a', { href: '/' }, 'New plan in the planner')),
    h('div', { class: 'field' }, h('label', { for: 'plan-filter' }, 'Filter by title'), filter),
    list,
    more,
  );
}

function tokensPanel() {
  const list = h('ul', { class: 'rows', id: 'token-list' });
  const shown = h('div', { 'aria-live': 'polite' });
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const form = h(
    'form',
    { class: 'inline-form', id: 'token-form' },
    field({ label: 'Token name', name: 'name', required: true, maxlength: 100, help: 'What uses it, e.g. "ci-nightly".' }),
    h('button', { type: 'submit', class: 'primary' }, 'Create token'),
    msg,
  );
  async function load() {
    let data;
    try {
      data = await api('GET', '/api/v1/tokens');
    } catch (e) {
      mount(list, h('li', { class: e.status === 403 ? 'muted' : 'form-msg error' }, e.status === 403 ? 'Only the team owner can see and create tokens.' : e.message));
      return;
    }
    list.replaceChildren(
      ...items(data, 'tokens').map((t) =>
        h(
          'li',
          null,
          h('span', null, h('strong', null, t.name), h('span', { class: 'muted' }, ` · created ${f.when(t.created_at)} · last used ${t.last_used_at ? f.when(t.last_used_at) : 'never'}${t.revoked_at ? ' · revoked' : ''}`)),
          t.revoked_at ? null : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke token ${t.name}`, onclick: async () => {
            if (!confirm(`Revoke the token "${t.name}"? CI jobs that use it will stop working.`)) return;
            try { await api('DELETE', `/api/v1/tokens/${encodeURIComponent(t.id)}`); } catch (e) { alert(e.message); }
            load();
          } }, 'Revoke'),
        ),
      ),
    );
    if (!list.children.length) list.append(h('li', { class: 'empty' }, 'No tokens yet.'));
  }
  onSubmit(form, async (fm) => {
    const t = await api('POST', '/api/v1/tokens', { name: fm.name.value.trim() });
    fm.reset();
    mount(
      shown,
      h('div', { class: 'secret' }, h('span', null, 'New token (shown only now):'), h('code', { id: 'new-token' }, t.token), copyButton(t.token)),
      h('p', { class: 'help' }, 'Use it as GPUPLAN_TOKEN with gpuplan submit, or as "Authorization: Bearer …".'),
    );
    load();
  }, msg);
  load();
  return h('section', { class: 'panel', 'aria-labelledby': 'tokens-title' }, h('h2', { id: 'tokens-title' }, 'API tokens for CI'), form, shown, list);
}

function webhooksPanel() {
  const list = h('ul', { class: 'rows', id: 'webhook-list' });
  const shown = h('div', { 'aria-live': 'polite' });
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const form = h(
    'form',
    { class: 'inline-form', id: 'webhook-form' },
    field({ label: 'Endpoint URL', name: 'url', type: 'url', required: true, placeholder: 'https://ci.example.com/hooks/gpuplan', help: 'gpuplan POSTs JSON signed with HMAC-SHA256; failed deliveries are retried.' }),
    h('fieldset', { class: 'radios', 'data-field': 'events' }, h('legend', null, 'Events'),
      h('label', null, h('input', { type: 'checkbox', name: 'events', value: 'report.fail', checked: true }), ' A report fails'),
      h('label', null, h('input', { type: 'checkbox', name: 'events', value: 'plan.shared', checked: true }), ' A plan is shared')),
    h('button', { type: 'submit', class: 'primary' }, 'Add webhook'),
    msg,
  );
  async function deliveries(w, box) {
    try {
      const d = await api('GET', `/api/v1/webhooks/${encodeURIComponent(w.id)}/deliveries`);
      const rows = items(d, 'deliveries');
      mount(
        box,
        rows.length
          ? h('div', { class: 'table-wrap' }, h('table', null,
              h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'When'), h('th', { scope: 'col' }, 'Event'), h('th', { scope: 'col' }, 'State'), h('th', { scope: 'col' }, 'Last answer'), h('th', { scope: 'col', class: 'num' }, 'Attempts'))),
              h('tbody', null, rows.map((r) => h('tr', null, h('td', null, f.when(r.created_at)), h('td', null, r.event || ''),
                h('td', null, r.state || '–', r.state === 'pending' && r.next_attempt_at ? h('span', { class: 'muted' }, ` · next ${f.when(r.next_attempt_at)}`) : null),
                h('td', null, r.last_status ? `HTTP ${r.last_status}` : '', r.last_error ? h('span', { class: 'muted' }, ` ${r.last_error}`) : r.last_status ? '' : '–'),
                h('td', { class: 'num' }, r.attempts ?? '–'))))))
          : h('p', { class: 'empty' }, 'No deliveries yet.'),
      );
    } catch (e) {
      mount(box, h('p', { class: 'form-msg error' }, e.message));
    }
  }
  async function load() {
    let data;
    try {
      data = await api('GET', '/api/v1/webhooks');
    } catch (e) {
      mount(list, h('li', { class: 'form-msg error' }, e.message));
      return;
    }
    list.replaceChildren(
      ...items(data, 'webhooks').map((w) => {
        const box = h('div');
        const det = h('details', null, h('summary', null, 'Delivery log'), box);
        det.addEventListener('toggle', () => det.open && deliveries(w, box));
        return h(
          'li',
          null,
          h('span', null, h('code', null, w.url), h('span', { class: 'muted' }, ` · ${(w.events || []).join(', ') || 'all events'}`)),
          h('button', { type: 'button', class: 'danger', 'aria-label': `Remove webhook ${w.url}`, onclick: async () => {
            try { await api('DELETE', `/api/v1/webhooks/${encodeURIComponent(w.id)}`); } catch (e) { alert(e.message); }
            load();
          } }, 'Remove'),
          det,
        );
      }),
    );
    if (!list.children.length) list.append(h('li', { class: 'empty' }, 'No webhooks yet.'));
  }
  onSubmit(form, async (fm) => {
    const events = [...fm.querySelectorAll('input[name="events"]:checked')].map((c) => c.value);
    if (!events.length) throw Object.assign(new Error('Pick at least one event.'), { field: 'events' });
    const w = await api('POST', '/api/v1/webhooks', { url: fm.url.value.trim(), events });
    fm.reset();
    mount(shown, w && w.secret ? h('div', { class: 'secret' }, h('span', null, 'Signing secret (shown only now):'), h('code', null, w.secret), copyButton(w.secret)) : null);
    load();
  }, msg);
  load();
  return h('section', { class: 'panel', 'aria-labelledby': 'webhooks-title' }, h('h2', { id: 'webhooks-title' }, 'Webhooks'), form, shown, list);
}

function membersPanel(me) {
  const owner = me.user && me.user.role === 'owner';
  const list = h('ul', { class: 'rows', id: 'member-list' });
  const invites = h('ul', { class: 'rows', id: 'invite-list' });
  const shown = h('div', { 'aria-live': 'polite' });
  const msg = h('p', { class: 'form-msg', role: 'status' });
  async function load() {
    try {
      const t = await api('GET', '/api/v1/team');
      list.replaceChildren(
        ...items(t, 'members').map((m) =>
          h('li', null, h('span', null, m.email, h('span', { class: 'muted' }, ` · ${m.role}`)),
            owner && m.id !== (me.user && me.user.id)
              ? h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${m.email} from the team`, onclick: async () => {
                  if (!confirm(`Remove ${m.email} from the team?`)) return;
                  try { await api('DELETE', `/api/v1/team/members/${encodeURIComponent(m.id)}`); } catch (e) { alert(e.message); }
                  load();
                } }, 'Remove')
              : null),
        ),
      );
    } catch (e) {
      mount(list, h('li', { class: 'form-msg error' }, e.message));
    }
    if (!owner) return;
    try {
      const d = await api('GET', '/api/v1/invites');
      invites.replaceChildren(
        ...items(d, 'invites').map((i) =>
          h('li', null, h('span', null, `Invite ${i.id} · ${i.role}`, h('span', { class: 'muted' }, ` · ${i.state || ''}${i.used_by ? ` by ${i.used_by}` : ''} · expires ${f.when(i.expires_at)}`)),
            i.state === 'open' ? h('button', { type: 'button', class: 'danger', 'aria-label': `Withdraw invite ${i.id}`, onclick: async () => {
              try { await api('DELETE', `/api/v1/invites/${encodeURIComponent(i.id)}`); } catch (e) { alert(e.message); }
              load();
            } }, 'Withdraw') : null),
        ),
      );
    } catch (e) {
      mount(invites, h('li', { class: 'form-msg error' }, e.message));
    }
  }
  let form = null;
  if (owner) {
    form = h(
      'form',
      { class: 'inline-form', id: 'invite-form' },
      h('div', { class: 'field' }, h('label', { for: 'invite-role' }, 'Role'), h('select', { id: 'invite-role', name: 'role', 'data-field': 'role' }, h('option', { value: 'member' }, 'Member'), h('option', { value: 'owner' }, 'Owner'))),
      h('button', { type: 'submit', class: 'primary' }, 'Create invite link'),
      msg,
    );
    onSubmit(form, async (fm) => {
      const i = await api('POST', '/api/v1/invites', { role: fm.role.value });
      const url = new URL(i.url || `/#/join/${i.token}`, location.origin).href;
      mount(shown, h('div', { class: 'secret' }, h('span', null, 'Invite link (shown only now):'), h('code', null, url), copyButton(url)));
      load();
    }, msg);
  }
  load();
  return h('section', { class: 'panel', 'aria-labelledby': 'members-title' }, h('h2', { id: 'members-title' }, 'Members'), list,
    owner ? [h('h3', null, 'Invite someone'), form, shown, invites] : null);
}

function joinView(token) {
  const msg = h('p', { class: 'form-msg', role: 'status' });
  const form = h(
    'form',
    { class: 'panel', id: 'join', 'aria-labelledby': 'join-title', novalidate: true },
    h('h2', { id: 'join-title' }, 'Join your team'),
    h('p', { class: 'muted' }, 'You were invited to a gpuplan team. Choose how you log in.'),
    field({ label: 'Email', name: 'email', type: 'email', required: true, autocomplete: 'email' }),
    field({ label: 'Password', name: 'password', type: 'password', required: true, minlength: 12, autocomplete: 'new-password', help: 'At least 12 characters.' }),
    h('button', { type: 'submit', class: 'primary' }, 'Join'),
    msg,
  );
  onSubmit(form, async (fm) => {
    const s = await api('POST', '/api/v1/invites/accept', { token, email: fm.email.value.trim(), password: fm.password.value });
    remember(s);
    location.replace('/workspace.html');
  }, msg);
  mount(main, h('h1', null, 'Team workspace'), form);
}

function teamView(s) {
  const me = s || who() || {};
  mount(
    main,
    h('h1', null, me.team && me.team.name ? me.team.name : 'Team workspace'),
    h('p', { class: 'lede muted' }, me.user ? `Logged in as ${me.user.email} (${me.user.role || 'member'}).` : ''),
    plansPanel(),
    h('div', { class: 'two' }, tokensPanel(), webhooksPanel()),
    membersPanel(me),
  );
}

async function start() {
  renderNav();
  const join = location.hash.match(/^#\/join\/([A-Za-z0-9_-]+)$/);
  if (join) {
    joinView(join[1]);
    return;
  }
  let s;
  try {
    s = await session();
  } catch (e) {
    mount(main, h('p', { class: 'form-error' }, e instanceof ApiError ? e.message : String(e)));
    return;
  }
  if (!s) {
    forget();
    renderNav();
    authView();
  } else {
    if (nextUrl()) {
      location.replace(nextUrl());
      return;
    }
    renderNav();
    teamView(s);
  }
}

start();
