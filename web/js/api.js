// api.js: the one place that talks to the REST API. Errors come back as
// RFC 9457 problem+json; ApiError keeps its "field" so forms can show the
// message next to the input it names. Cookie-authenticated writes carry the
// session's CSRF token (API.md), which we keep in localStorage: it is not a
// credential on its own (the HttpOnly cookie is), only proof the request
// comes from our own pages.
const CSRF_KEY = 'gpuplan.csrf';
const WHO_KEY = 'gpuplan.who';

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `The server answered ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.field = (problem && problem.field) || null;
  }
}

export function csrf() {
  return localStorage.getItem(CSRF_KEY) || '';
}

/** Who is logged in, as last told by the server ({team, user}), or null. */
export function who() {
  try {
    return JSON.parse(localStorage.getItem(WHO_KEY) || 'null');
  } catch {
    return null;
  }
}

export function remember(session) {
  if (session && session.csrf_token) localStorage.setItem(CSRF_KEY, session.csrf_token);
  if (session && (session.user || session.team))
    localStorage.setItem(WHO_KEY, JSON.stringify({ team: session.team || null, user: session.user || null }));
}

export function forget() {
  localStorage.removeItem(CSRF_KEY);
  localStorage.removeItem(WHO_KEY);
}

/**
 * api('POST', '/api/v1/plans', body): JSON in, JSON out.
 * body may be a string (sent as text/plain), FormData, or any JSON value.
 */
export async function api(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json, application/problem+json', ...(opts.headers || {}) };
  let payload;
  if (body instanceof FormData) payload = body;
  else if (typeof body === 'string') {
    payload = body;
    headers['Content-Type'] = headers['Content-Type'] || 'text/plain; charset=utf-8';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['Content-Type'] = 'application/json';
  }
  if (method !== 'GET' && method !== 'HEAD' && csrf()) headers['X-CSRF-Token'] = csrf();
  let res;
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin', signal: opts.signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, { detail: 'The server cannot be reached.' });
  }
  const type = res.headers.get('Content-Type') || '';
  let data = null;
  if (res.status !== 204) {
    const text = await res.text();
    if (type.includes('json') && text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    } else data = text;
  }
  if (!res.ok) {
    if (res.status === 401) forget();
    throw new ApiError(res.status, data && typeof data === 'object' ? data : { detail: String(data || '') });
  }
  return data;
}

/** The array of a list answer, whatever the list is called. */
export function items(data, ...keys) {
  if (Array.isArray(data)) return data;
  if (!data || typeof data !== 'object') return [];
  for (const k of ['items', ...keys]) if (Array.isArray(data[k])) return data[k];
  return [];
}
