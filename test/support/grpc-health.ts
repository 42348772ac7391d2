import { createRequire } from 'node:module';
import path from 'node:path';
import { credentials, loadPackageDefinition, type ClientReadableStream } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** The standard health protocol as the package that serves it publishes it, read like a client would. */
const HEALTH_PROTO = path.join(
  path.dirname(createRequire(import.meta.url).resolve('grpc-health-check/package.json')),
  'proto/health/v1/health.proto',
);

/** The server ('') and each of our services: a load balancer may ask about any of them. */
export const HEALTH_SERVICES = [
  '',
  ...['UsersService', 'ProfilesService', 'ProjectsService', 'SegmentsService', 'WebhooksService'].map(
    (s) => `profiling.v1.${s}`,
  ),
];

export type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'UNKNOWN' | 'SERVICE_UNKNOWN';

/** A grpc.health.v1 client: Check for one service or all of them, and Watch of the server ('') into `watched`. */
export async function healthClient(address: string) {
  const def = await protoLoader.load(HEALTH_PROTO, { keepCase: true, enums: String });
  const Health = (loadPackageDefinition(def) as any).grpc.health.v1.Health;
  const client = new Health(address, credentials.createInsecure());
  const check = (service: string) =>
    new Promise<ServingStatus>((resolve, reject) =>
      client.Check({ service }, { deadline: Date.now() + 2_000 }, (err: Error | null, r: { status: ServingStatus }) =>
        err ? reject(err) : resolve(r.status),
      ),
    );
  const watched: ServingStatus[] = [];
  let watch: ClientReadableStream<{ status: ServingStatus }> | undefined;
  let watchEnded: Promise<void> = Promise.resolve();
  return {
    check,
    all: () => Promise.all(HEALTH_SERVICES.map(check)),
    /** Every status the Watch stream of the server ('') has sent, in order. */
    watched,
    /** Settles when the Watch stream ends, whether the server closed it or it failed. */
    watchEnded: () => watchEnded,
    watch() {
      watch = client.Watch({ service: '' });
      watch!.on('data', (m: { status: ServingStatus }) => watched.push(m.status));
      watchEnded = new Promise<void>((resolve) => {
        watch!.on('error', () => resolve());
        watch!.on('end', () => resolve());
      });
    },
    close() {
      watch?.cancel();
      client.close();
    },
  };
}
