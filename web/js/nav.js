// nav.js: the header's account area, the same on every page: who is logged
// in (as the server last told us) and a log-out button.
import { api, forget, remember, who } from './api.js';
import { h } from './dom.js';

export function renderNav() {
  const nav = document.getElementById('nav');
  if (!nav) return;
  const me = who();
  const here = location.pathname;
  const link = (href, text) => h('a', { href, 'aria-current': here === href ? 'page' : null }, text);
  nav.replaceChildren(link('/', 'Planner'), ' ', link('/workspace.html', me ? 'Workspace' : 'Log in / sign up'));
  if (me) {
    nav.append(
      ' ',
      h('span', { class: 'who' }, `${(me.user && me.user.email) || ''}${me.team && me.team.name ? ` · ${me.team.name}` : ''}`),
      ' ',
      h(
        'button',
        {
          type: 'button',
          class: 'link-button',
          onclick: async () => {
            try {
              await api('DELETE', '/api/v1/session');
            } catch {
              /* logged out either way */
            }
            forget();
            location.href = '/workspace.html';
          },
        },
        'Log out',
      ),
    );
  }
}

/**
 * Asks the server who is logged in (GET /api/v1/session) so a stale or
 * ended session never shows as logged in; re-renders the header.
 */
export async function syncSession() {
  try {
    const s = await api('GET', '/api/v1/session');
    remember(s);
  } catch (e) {
    if (e.status === 401) forget();
  }
  renderNav();
  return who();
}
