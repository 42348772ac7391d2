/**
 * The path a request is routed by: the target's path as the client sent it, dot segments kept.
 *
 * The WHATWG URL parser resolves `.` and `..` segments, percent-encoded ones too
 * (`/api/v1/profiles/%2E%2E/export` becomes `/api/v1/export`), so a user id `.` or `..` (stored
 * before ingest refused them) could never be named in `/api/v1/profiles/{user_id}`: its erasure
 * and export would answer another route or none. Kept as sent, each segment is percent-decoded
 * and matched exactly by the router, so `%2E%2E` names the id `..`. Nothing is served from a
 * file path, so an unresolved `..` reaches nothing it should not: it names no route, or a route
 * parameter its use case checks like any other value.
 *
 * `parsed` is the same target read as a URL (the query, and the check that the target is one):
 * an absolute-form or asterisk-form target keeps that reading's path.
 */
export function requestPath(target: string, parsed: URL): string {
  if (!target.startsWith('/')) return parsed.pathname;
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}
