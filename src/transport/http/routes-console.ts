import { notFound } from '../../errors.js';
import { RawBody } from './errors.js';
import { errors, routeDoc } from './openapi/route-doc.js';
import type { Router } from './router.js';
import { loadConsole, type ConsoleFiles } from './console-bundle.js';

const TYPES: Record<keyof ConsoleFiles, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/**
 * The page may load and call only this origin: its script, its stylesheet, and the JSON API the
 * key opens. No inline script or style: Preact and uPlot set element styles through the DOM's
 * style object, which the policy does not govern.
 */
const HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // Small files, rebuilt with each release: always revalidated, never stale after an upgrade.
  'Cache-Control': 'no-cache',
};

const open = { auth: 'none', tag: 'Operations' } as const;

/**
 * `GET /console`: the web console (console/), a static page that asks for an API key and then uses
 * the same JSON API as every client. Bundled once, on the first request; a failed bundle is not
 * kept, so the next request tries again.
 */
export function addConsoleRoutes(router: Router): void {
  let files: Promise<ConsoleFiles> | undefined;
  const load = () => {
    files ??= loadConsole();
    files.catch(() => (files = undefined));
    return files;
  };
  const serve = async (name: keyof ConsoleFiles) => ({
    status: 200,
    body: new RawBody(TYPES[name], (await load())[name]),
    headers: HEADERS,
  });
  router.add(
    'GET',
    '/console',
    () => serve('index.html'),
    routeDoc({
      ...open,
      operationId: 'getConsole',
      summary: 'The web console (asks for an API key, then uses this API)',
      responses: { 200: { description: 'The page', contentType: 'text/html' } },
    }),
  );
  router.add(
    'GET',
    '/console/:file',
    async (req) => {
      const file = req.params.file;
      if (file !== 'app.js' && file !== 'app.css') throw notFound('file');
      return serve(file);
    },
    routeDoc({
      ...open,
      operationId: 'getConsoleFile',
      summary: "The console's script (app.js) or stylesheet (app.css)",
      responses: {
        200: { description: 'The file', contentType: ['text/javascript', 'text/css'] },
        ...errors(404),
      },
    }),
  );
}
