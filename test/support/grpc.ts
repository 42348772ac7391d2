import { credentials, Metadata } from '@grpc/grpc-js';
import { ProfilesServiceClient } from '../../gen/profiling/v1/profiles.js';
import { ProjectsServiceClient } from '../../gen/profiling/v1/projects.js';
import { SegmentsServiceClient } from '../../gen/profiling/v1/segments.js';
import { UsersServiceClient } from '../../gen/profiling/v1/users.js';
import { WebhooksServiceClient } from '../../gen/profiling/v1/webhooks.js';
import { LabelsServiceClient } from '../../gen/profiling/v1/labels.js';
import { KeysServiceClient } from '../../gen/profiling/v1/keys.js';
import { stack } from './api.js';

/** The generated clients, as an internal service would use them (of the stack, or of another instance). */
export function grpcClients(addr = stack().grpcAddress) {
  const creds = credentials.createInsecure();
  return {
    users: new UsersServiceClient(addr, creds),
    profiles: new ProfilesServiceClient(addr, creds),
    projects: new ProjectsServiceClient(addr, creds),
    segments: new SegmentsServiceClient(addr, creds),
    webhooks: new WebhooksServiceClient(addr, creds),
    labels: new LabelsServiceClient(addr, creds),
    keys: new KeysServiceClient(addr, creds),
  };
}

export function keyMetadata(key: string): Metadata {
  const md = new Metadata();
  md.set('x-api-key', key);
  return md;
}

type Callback = (err: any, res: any) => void;
// Generated methods are overloaded; conditional types see the last overload (req, md, options, callback).
type ReqOf<F> = F extends (req: infer R, md: Metadata, opts: any, cb: Callback) => unknown ? R : never;
type ResOf<F> = F extends (req: any, md: Metadata, opts: any, cb: (err: any, res: infer R) => void) => unknown
  ? R
  : never;

/** Promisifies a generated unary method: `await rpc(client, 'listProjects', {}, md)`. */
export function rpc<C, K extends keyof C>(client: C, method: K, req: ReqOf<C[K]>, md: Metadata): Promise<ResOf<C[K]>> {
  return new Promise((resolve, reject) =>
    (client[method] as unknown as (...a: unknown[]) => unknown).call(
      client,
      req,
      md,
      {},
      (err: unknown, res: ResOf<C[K]>) => (err ? reject(err) : resolve(res)),
    ),
  );
}
