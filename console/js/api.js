// The one way the console talks to the server: fetch with the session cookie, the
// CSRF token on unsafe methods, and the API's error envelope turned into an ApiError.

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

export const session = { username: '', role: '', csrfToken: '' };

/** Loads the session; false when nobody is logged in. */
export async function loadSession() {
  const r = await fetch('/console/session', { credentials: 'same-origin', cache: 'no-store' });
  if (r.status === 401) return false;
  if (!r.ok) throw new ApiError(r.status, 'unavailable', `The session could not be read (HTTP ${r.status}).`);
  Object.assign(session, await r.json());
  return true;
}

const RANK = { packer: 0, operator: 1, admin: 2 };

/** Whether the logged-in role is at least `role` (for hiding what the API would refuse). */
export function atLeast(role) {
  return RANK[session.role] >= RANK[role];
}

export function toLogin() {
  const next = location.pathname + location.search;
  location.assign(`/console/login?next=${encodeURIComponent(next)}`);
}

/** A raw call: the Response, for the API reference's "try it". */
export async function raw(method, path, body, headers = {}) {
  const h = { Accept: 'application/json', ...headers };
  if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) h['X-CSRF-Token'] = session.csrfToken;
  if (body !== undefined && !h['Content-Type']) h['Content-Type'] = 'application/json';
  return fetch(path, {
    method, headers: h, credentials: 'same-origin', cache: 'no-store',
    body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
  });
}

/** A JSON call: the parsed body, or an ApiError with the envelope's code, message and field. */
export async function api(method, path, body) {
  const r = await raw(method, path, body);
  if (r.status === 401) {
    toLogin();
    throw new ApiError(401, 'unauthorized', 'The session has ended; log in again.');
  }
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!r.ok) {
    const e = (data && data.error) || {};
    throw new ApiError(r.status, e.code || 'error', e.message || `HTTP ${r.status}`, e.field);
  }
  return data;
}

export const get = (path) => api('GET', path);
export const post = (path, body) => api('POST', path, body === undefined ? {} : body);
export const patch = (path, body) => api('PATCH', path, body);
export const del = (path) => api('DELETE', path);
