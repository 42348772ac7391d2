import { Server, ServerCredentials } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ProfilesServiceService } from '../../../gen/profiling/v1/profiles.js';
import { ProjectsServiceService } from '../../../gen/profiling/v1/projects.js';
import { SegmentsServiceService } from '../../../gen/profiling/v1/segments.js';
import { UsersServiceService } from '../../../gen/profiling/v1/users.js';
import { WebhooksServiceService } from '../../../gen/profiling/v1/webhooks.js';
import { LabelsServiceService } from '../../../gen/profiling/v1/labels.js';
import { KeysServiceService } from '../../../gen/profiling/v1/keys.js';
import type { AppContext } from '../../app.js';
import { MAX_REQUEST_BYTES } from '../limits.js';
import { checkReadiness } from '../readiness.js';
import { authenticating } from './authenticate.js';
import { profilesService, projectsService, usersService } from './handlers-users-profiles-projects.js';
import { segmentsService } from './handlers-segments.js';
import { webhooksService } from './handlers-webhooks.js';
import { labelsService } from './handlers-labels.js';
import { keysService } from './handlers-keys.js';
import { followReadiness } from './health.js';
import { refusingMalformed } from './malformed.js';
import { observing } from './observing.js';
import { refuseOversizedBatch, refuseProtoAttributes } from './preflight.js';

// `npm run generate` writes the exact descriptors buf compiled (imports and comments included).
const DESCRIPTOR_SET = fileURLToPath(new URL('../../../gen/profiling-v1.binpb', import.meta.url));
const PACKAGE = 'profiling.v1';
const SERVICES = [
  'UsersService',
  'ProfilesService',
  'ProjectsService',
  'SegmentsService',
  'WebhooksService',
  'LabelsService',
  'KeysService',
].map((s) => `${PACKAGE}.${s}`);

/**
 * Calls one connection may have open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS); a client
 * with more queues them. With MAX_REQUEST_BYTES it bounds what one connection can make us buffer.
 */
export const MAX_CONCURRENT_STREAMS = 32;
/** How often gRPC health re-runs the `/readyz` checks. */
const HEALTH_CHECK_EVERY_MS = 2_000;

export async function startGrpcServer(
  ctx: AppContext,
): Promise<{ server: Server; port: number; stop(): Promise<void> }> {
  const server = new Server({
    'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
    'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
    // The first sees every call first and its status last: request id, access line (observing.ts).
    // The key is checked from metadata before any message is read or decoded (authenticate.ts).
    interceptors: [observing(ctx), authenticating(ctx, `/${PACKAGE}.`)],
  });
  server.addService(
    ...refusingMalformed(UsersServiceService, usersService(ctx), {
      identifyUsers: (bytes) => {
        refuseOversizedBatch(bytes);
        refuseProtoAttributes(bytes);
      },
    }),
  );
  server.addService(...refusingMalformed(ProfilesServiceService, profilesService(ctx)));
  server.addService(...refusingMalformed(ProjectsServiceService, projectsService(ctx)));
  server.addService(...refusingMalformed(SegmentsServiceService, segmentsService(ctx)));
  server.addService(...refusingMalformed(WebhooksServiceService, webhooksService(ctx)));
  server.addService(...refusingMalformed(LabelsServiceService, labelsService(ctx)));
  server.addService(...refusingMalformed(KeysServiceService, keysService(ctx)));

  // Standard health service and server reflection: grpcurl and `buf curl` work with no proto files at hand.
  // Health answers what `/readyz` would: NOT_SERVING while PostgreSQL or Temporal is away.
  const health = new HealthImplementation(Object.fromEntries(['', ...SERVICES].map((s) => [s, 'SERVING' as const])));
  health.addToServer(server);
  // Fed with buf's own descriptors: protobufjs's re-encoding loses the well-known-type files
  // (google.protobuf.Struct), which breaks grpcurl and buf curl on any message that uses them.
  const definitions = { descriptors: { fileDescriptorProtos: splitDescriptorSet(readFileSync(DESCRIPTOR_SET)) } };
  new ReflectionService(definitions as never).addToServer(server);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${ctx.config.grpc.host}:${ctx.config.grpc.port}`, ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const readiness = followReadiness({
    health,
    services: SERVICES,
    check: () => checkReadiness(ctx),
    log: ctx.log,
    everyMs: HEALTH_CHECK_EVERY_MS,
  });
  return {
    server,
    port,
    async stop() {
      readiness.stop();
      // Open calls get DRAIN_MS to finish; a client that keeps a health Watch (or any stream)
      // open past that must not hold the process forever: an orchestrator would SIGKILL it
      // anyway (Kubernetes after 30 s), without our other stop steps having run.
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), DRAIN_MS);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}

/** How long a graceful stop waits for open calls before cancelling them. */
export const DRAIN_MS = 10_000;

/** A FileDescriptorSet is `repeated FileDescriptorProto file = 1`: split it into its files. */
function splitDescriptorSet(set: Buffer): Buffer[] {
  const files: Buffer[] = [];
  let pos = 0;
  const varint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = set[pos++];
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
    }
  };
  while (pos < set.length) {
    const tag = varint();
    if (tag !== 0x0a) throw new Error(`unexpected field tag ${tag} in descriptor set`);
    const len = varint();
    files.push(set.subarray(pos, pos + len));
    pos += len;
  }
  return files;
}
