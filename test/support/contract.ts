import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { requestPath } from '../../src/transport/http/request-path.js';

/**
 * The contract check every end-to-end answer goes through: the answer must be one the gateway's
 * own OpenAPI document (`GET /openapi.json`) lists for its route, method and status, with a body
 * that validates against that response's schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses).
 * A path the document does not know must be a 404, a known path with another method a 405 whose
 * `Allow` lists the documented methods; both in the error body.
 */

// ajv-formats is CommonJS: under Node's ESM its plugin is the module's `default` property.
const addFormats = formats.default;

interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

/**
 * Answers no route gives and any request can get: Node's parser refusing a request whose headers
 * are too large (431) or that did not arrive in time (408), before any route is chosen.
 */
const PARSER_ANSWERS = new Set([408, 431]);

interface Contract {
  doc: Document;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const contracts = new Map<string, Promise<Contract>>();

/**
 * The published answers are open (document.ts `openAnswers`); where it marks `x-closed`, today's
 * answers have no other field, and the check holds them to that.
 */
function closeMarked<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(closeMarked);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o['x-closed'] === true) o.additionalProperties = false;
    Object.values(o).forEach(closeMarked);
  }
  return node;
}

async function load(base: string): Promise<Contract> {
  const res = await fetch(`${base}/openapi.json`);
  if (res.status !== 200) throw new Error(`contract: GET ${base}/openapi.json answered ${res.status}`);
  const doc = closeMarked((await res.json()) as Document);
  // strict off: the document around the schemas has OpenAPI's keywords, which are not JSON Schema's.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  return { doc, ajv, validators: new Map() };
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The documented path template the request path falls under, literal segments first. */
function findPath(doc: Document, path: string): string | undefined {
  let segments: string[];
  try {
    segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  let best: { template: string; literals: number } | undefined;
  for (const template of Object.keys(doc.paths)) {
    const parts = template.split('/').filter(Boolean);
    if (parts.length !== segments.length) continue;
    let literals = 0;
    const ok = parts.every((p, i) => (p.startsWith('{') ? true : p === segments[i] && ++literals > 0));
    if (ok && (!best || literals > best.literals)) best = { template, literals };
  }
  return best?.template;
}

function fail(what: string, body: unknown): never {
  const shown = typeof body === 'string' ? body : JSON.stringify(body);
  throw new Error(`contract: ${what}\n  body: ${shown === undefined ? '(none)' : shown.slice(0, 600)}`);
}

function checkBody(c: Contract, ref: string, what: string, body: unknown): void {
  let validate = c.validators.get(ref);
  if (!validate) c.validators.set(ref, (validate = c.ajv.compile({ $ref: `openapi.json#${ref}` })));
  if (!validate(body))
    fail(`${what}: the body does not match the documented schema: ${c.ajv.errorsText(validate.errors)}`, body);
}

/**
 * Throws when the answer is not one the document allows. `body` is the parsed JSON, or the text
 * when it is not JSON.
 */
export async function checkAnswer(
  base: string,
  answer: {
    method: string;
    path: string;
    status: number;
    contentType: string | null;
    allow: string | null;
    body: unknown;
  },
): Promise<void> {
  let contract = contracts.get(base);
  if (!contract) contracts.set(base, (contract = load(base)));
  const c = await contract;
  const method = answer.method.toUpperCase();
  // The gateway reads the target as a URL (an absolute form included; one that is no URL is a 400)
  // and routes by its path as sent, dot segments kept (src/transport/http/request-path.ts).
  let path: string;
  try {
    path = requestPath(answer.path, new URL(answer.path, 'http://gateway'));
  } catch {
    path = answer.path;
  }
  const what = `${method} ${path} answered ${answer.status}`;
  const errorRef = '/components/schemas/Error';
  if (PARSER_ANSWERS.has(answer.status)) return checkBody(c, errorRef, what, answer.body);
  const template = findPath(c.doc, path);
  if (!template) {
    // No route: 404, or 400 for a target that is not a path at all.
    if (answer.status !== 404 && answer.status !== 400)
      fail(`${what}, a path the document does not list (expected 404)`, answer.body);
    return checkBody(c, errorRef, what, answer.body);
  }
  const item = c.doc.paths[template];
  // A documented GET answers HEAD too (RFC 9110), with the GET's status and headers and no body.
  const operation = item[method.toLowerCase()] ?? (method === 'HEAD' ? item.get : undefined);
  if (!operation) {
    const documented = Object.keys(item)
      .flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()]))
      .sort();
    if (answer.status !== 405)
      fail(`${what}; the document has no ${method} on ${template} (expected 405)`, answer.body);
    const allow = (answer.allow ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean)
      .sort();
    if (allow.join() !== documented.join())
      fail(`${what} with Allow "${answer.allow}"; the document lists ${documented.join(', ')}`, answer.body);
    return checkBody(c, errorRef, what, answer.body);
  }
  const response = operation.responses[String(answer.status)];
  if (!response) {
    fail(
      `${what}, a status the document does not list for ${method} ${template} (it lists ${Object.keys(operation.responses).join(', ')})`,
      answer.body,
    );
  }
  if (!response.content) {
    if (answer.body !== undefined && answer.body !== '')
      fail(`${what} with a body; the document says none`, answer.body);
    return;
  }
  const media = (answer.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (!(media in response.content))
    fail(
      `${what} as ${media || 'no Content-Type'}; the document lists ${Object.keys(response.content).join(', ')}`,
      answer.body,
    );
  const ref = `/${pointer('paths', template, method.toLowerCase(), 'responses', String(answer.status), 'content', media, 'schema')}`;
  checkBody(c, ref, `${what} (${template})`, answer.body);
}

/**
 * `fetch` for tests that need the whole Response (headers, several reads): the answer is held to
 * the document first; the Response returned is unread.
 */
export async function checkedFetch(base: string, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(base + path, init);
  const text = await res.clone().text();
  let body: unknown = text || undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: checked as text */
  }
  await checkAnswer(base, {
    method: init.method ?? 'GET',
    path,
    status: res.status,
    contentType: res.headers.get('content-type'),
    allow: res.headers.get('allow'),
    body,
  });
  return res;
}
