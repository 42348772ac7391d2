import type { AppContext } from '../../../app.js';
import { createRouter } from '../server.js';
import type { Router } from '../router.js';
import { createOpenApiDocument } from './document.js';

/**
 * The gateway's routes as a deployment with ADMIN_TOKEN has them, without a running service: the
 * routes read their context only when they answer, and registering them asks only whether
 * ADMIN_TOKEN is set. What `npm run openapi` writes and the contract test checks.
 */
export function documentedRouter(): Router {
  return createRouter({ config: { adminToken: 'documented' } } as unknown as AppContext);
}

export function gatewayDocument() {
  return createOpenApiDocument(documentedRouter().list());
}
