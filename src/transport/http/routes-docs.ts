import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { notFound } from '../../errors.js';
import { RawBody } from './errors.js';
import { createOpenApiDocument } from './openapi/document.js';
import { errors, routeDoc } from './openapi/route-doc.js';
import type { Router } from './router.js';

/** swagger-ui-dist's folder, wherever npm put it. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * The files the page loads, with `charset=utf-8` (without it the bundle's non-ASCII text is read
 * as Latin-1 and the script fails to parse). Only these are served: never a path from the request.
 */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/**
 * Everything the page needs comes from this gateway: `validatorUrl: null` keeps swagger-ui from
 * sending the document to validator.swagger.io, and the empty icon from asking for /favicon.ico.
 */
const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Semantic profiling service: API reference</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  tryItOutEnabled: false,
});
`;

const open = { auth: 'none', tag: 'Operations' } as const;

/**
 * The reference page loads only its own files from this origin and may not be framed. swagger-ui
 * sets element styles from its script (allowed: the policy governs style attributes in markup, not
 * the DOM's style object) and draws its icons as data: images.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
};

/**
 * `GET /openapi.json` and the reference page `GET /docs`, open like the probes: the document
 * describes the routes of this router (the admin routes only when ADMIN_TOKEN made them), and is
 * rendered on its first request, after every route has been added.
 */
export function addDocsRoutes(router: Router): void {
  let document: string | undefined;
  const files = new Map<string, Promise<string>>();

  router.add(
    'GET',
    '/openapi.json',
    async () => {
      document ??= JSON.stringify(createOpenApiDocument(router.list()));
      return { status: 200, body: new RawBody('application/json; charset=utf-8', document) };
    },
    routeDoc({
      ...open,
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      responses: {
        200: {
          description: 'The document',
          contentType: 'application/json',
          body: z.looseObject({ openapi: z.literal('3.1.0') }),
        },
      },
    }),
  );
  router.add(
    'GET',
    '/docs',
    async () => ({ status: 200, body: new RawBody('text/html; charset=utf-8', PAGE), headers: PAGE_HEADERS }),
    routeDoc({
      ...open,
      operationId: 'getReferencePage',
      summary: 'This reference page (swagger-ui, served offline)',
      responses: { 200: { description: 'The page', contentType: 'text/html' } },
    }),
  );
  router.add(
    'GET',
    '/docs/:file',
    async (req) => {
      const file = req.params.file;
      if (file === 'init.js') return { status: 200, body: new RawBody(ASSETS['swagger-ui-bundle.js'], INIT) };
      // Own keys only: `/docs/constructor` must be a 404, not a read of a file that is not there.
      if (!Object.hasOwn(ASSETS, file)) throw notFound('file');
      const type = ASSETS[file];
      let text = files.get(file);
      if (!text) {
        text = readFile(path.join(SWAGGER_UI_DIR, file), 'utf8');
        files.set(file, text);
        // A failed read is not cached: the next request reads again.
        text.catch(() => files.delete(file));
      }
      return { status: 200, body: new RawBody(type, await text), headers: { 'Cache-Control': 'public, max-age=3600' } };
    },
    routeDoc({
      ...open,
      operationId: 'getReferencePageFile',
      summary: "A file of the reference page: swagger-ui.css, swagger-ui-bundle.js or the page's init.js",
      responses: {
        200: { description: 'The file', contentType: ['text/css', 'text/javascript'] },
        ...errors(404),
      },
    }),
  );
}
