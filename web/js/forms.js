// forms.js: small helpers shared by the workspace pages: labelled fields,
// a submit wrapper that disables the button and shows the API's message next
// to the field its problem+json names, and a copy button.
import { h } from './dom.js';

let seq = 0;

/** A labelled input; opts: {label, name, type, help, value, required, ...attrs}. */
export function field({ label, name, type = 'text', help, textarea = false, ...attrs }) {
  const id = `fld-${name}-${++seq}`;
  const helpId = help ? `${id}-help` : null;
  const input = h(textarea ? 'textarea' : 'input', { id, name, type: textarea ? null : type, 'aria-describedby': helpId, 'data-field': name, ...attrs });
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, help ? h('p', { class: 'help', id: helpId }, help) : null);
}

export function clearErrors(form) {
  for (const el of form.querySelectorAll('.field-error')) el.remove();
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** Puts err next to the control named by err.field, else in the form's message line. */
export function showError(form, err, msgEl) {
  clearErrors(form);
  const name = (err.field || '').split('.').pop();
  const input = name ? form.querySelector(`[data-field="${CSS.escape(err.field)}"], [data-field="${CSS.escape(name)}"]`) : null;
  if (input) {
    const id = `${input.id}-err`;
    input.setAttribute('aria-invalid', 'true');
    const desc = (input.getAttribute('aria-describedby') || '').split(' ').filter((x) => x && x !== id);
    input.setAttribute('aria-describedby', [...desc, id].join(' '));
    (input.closest('.field, fieldset') || input.parentElement).append(h('p', { class: 'field-error', id, role: 'alert' }, err.message));
    input.focus();
    if (msgEl) msgEl.textContent = '';
  } else if (msgEl) {
    msgEl.textContent = err.message;
    msgEl.classList.add('error');
  }
}

/** Wires a submit handler: fn(form) may throw ApiError. */
export function onSubmit(form, fn, msgEl) {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const btn = form.querySelector('button[type="submit"]');
    if (btn) btn.disabled = true;
    if (msgEl) {
      msgEl.textContent = '';
      msgEl.classList.remove('error');
    }
    clearErrors(form);
    try {
      await fn(form);
    } catch (e) {
      showError(form, e, msgEl);
    } finally {
      if (btn) btn.disabled = false;
    }
  });
}

export function copyButton(text, label = 'Copy') {
  const b = h('button', { type: 'button' }, label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      b.textContent = 'Select and copy';
    }
    setTimeout(() => (b.textContent = label), 2000);
  });
  return b;
}

export function sevBadge(sev) {
  const v = sev || 'unknown';
  return h('span', { class: ['sev', `sev-${v}`] }, v);
}
