/**
 * Writes docs/openapi.json, the document `GET /openapi.json` serves, from the routes themselves.
 * CI regenerates it and fails when the committed copy differs (`.ci/run`).
 */
import { writeFileSync } from 'node:fs';
import { gatewayDocument } from '../src/transport/http/openapi/gateway-document.js';

const target = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(gatewayDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
