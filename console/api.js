// The one way the console talks to the service: the public JSON API, with the key the user pasted.
// The key lives in sessionStorage (gone when the tab closes) and never in a URL.

import { holdsScope } from '../src/auth/scopes.ts';

const KEY = 'profiling-console.key';
const PLACE = 'profiling-console.place';

// What the key is (GET /api/v1/api-keys/current): in memory only, read again after a reload, so
// that what the console shows follows the key in use and nothing about it outlives the tab's page.
let current = null;

export const session = {
  key: () => sessionStorage.getItem(KEY),
  setKey: (key) => sessionStorage.setItem(KEY, key),
  /** The project and pipeline picked last, so a reload comes back to them. */
  place: () => JSON.parse(sessionStorage.getItem(PLACE) ?? '{}'),
  setPlace: (place) => sessionStorage.setItem(PLACE, JSON.stringify(place)),
  /** The key's own view (name, scopes, projects, expiry), or null until it is read. */
  current: () => current,
  setCurrent: (view) => (current = view),
  clear: () => {
    current = null;
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(PLACE);
  },
};

/**
 * Whether the key in use may do what `scope` allows: the server's own rule (a `:write` scope holds
 * its `:read`), so a control is hidden exactly when the API would refuse it.
 */
export const can = (scope) => current !== null && holdsScope(current.scopes, scope);

/** An answer other than 2xx, with the API's error code, message and the field at fault. */
export class ApiError extends Error {
  constructor(status, body) {
    const e = body && body.error ? body.error : {};
    super(e.message || `The service answered ${status}`);
    this.status = status;
    this.code = e.code;
    this.field = e.field;
  }
}

let onUnauthenticated = () => {};
/** What to do when the stored key stops working (the app shows the key form again). */
export function whenUnauthenticated(fn) {
  onUnauthenticated = fn;
}

/** One call: the answer when it is 2xx, else an ApiError thrown (a 401 for the stored key also signs out). */
async function request(method, path, { body, query, key }) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '' && v !== null) params.set(k, v);
  const qs = params.toString(); // not params.size: older browsers lack it
  const url = qs ? `${path}?${qs}` : path;
  const res = await fetch(url, {
    method,
    headers: { 'X-API-Key': key ?? '', ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.ok) return res;
  let data = null;
  try {
    data = JSON.parse(await res.text());
  } catch {
    data = null;
  }
  const err = new ApiError(res.status, data);
  // A key revoked while the page is open: back to the key form, with the reason.
  if (res.status === 401 && key === session.key()) onUnauthenticated(err);
  throw err;
}

/** Calls the API: `query` values that are '' or undefined are left out. Resolves to the parsed JSON. */
export async function api(method, path, { body, query, key = session.key() } = {}) {
  const text = await (await request(method, path, { body, query, key })).text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** A GET whose answer is a file (an export): resolves to its bytes as a Blob, errors as `api` throws them. */
export async function apiBlob(path, { query, key = session.key() } = {}) {
  return (await request('GET', path, { query, key })).blob();
}

/** Hands a Blob to the browser as a download named `name`. */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000); // the download reads it after the click returns
}

/** Paths of a pipeline's resources. */
export const pipelinePath = (place) => `/projects/${place.project}/pipelines/${place.pipeline}`;
