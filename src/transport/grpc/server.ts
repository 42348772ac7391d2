import { Server, ServerCredentials } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import { ProfilesServiceService } from '../../../gen/profiling/v1/profiles.js';
import { ProjectsServiceService } from '../../../gen/profiling/v1/projects.js';
import { SegmentsServiceService } from '../../../gen/profiling/v1/segments.js';
import { UsersServiceService } from '../../../gen/profiling/v1/users.js';
import { WebhooksServiceService } from '../../../gen/profiling/v1/webhooks.js';
import type { AppContext } from '../../app.js';
import { profilesService, projectsService, usersService } from './handlers.js';
import { segmentsService } from './handlers-segments.js';
import { webhooksService } from './handlers-webhooks.js';

const PROTO_ROOT = fileURLToPath(new URL('../../../proto', import.meta.url));

const PROTO_FILES = ['users', 'profiles', 'projects', 'segments', 'webhooks'].map((f) => `profiling/v1/${f}.proto`);
const SERVICES = ['UsersService', 'ProfilesService', 'ProjectsService', 'SegmentsService', 'WebhooksService'].map((s) => `profiling.v1.${s}`);

/** Largest accepted request: a 1,000-user batch of 10,000-character texts fits well inside. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export async function startGrpcServer(ctx: AppContext): Promise<{ server: Server; port: number }> {
  const server = new Server({ 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES });
  server.addService(UsersServiceService, usersService(ctx));
  server.addService(ProfilesServiceService, profilesService(ctx));
  server.addService(ProjectsServiceService, projectsService(ctx));
  server.addService(SegmentsServiceService, segmentsService(ctx));
  server.addService(WebhooksServiceService, webhooksService(ctx));

  // Standard health service and server reflection: grpcurl and `buf curl` work with no proto files at hand.
  const health = new HealthImplementation(Object.fromEntries(['', ...SERVICES].map((s) => [s, 'SERVING' as const])));
  health.addToServer(server);
  const definitions = await protoLoader.load(PROTO_FILES, { includeDirs: [PROTO_ROOT], keepCase: true });
  new ReflectionService(definitions).addToServer(server);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${ctx.config.grpc.host}:${ctx.config.grpc.port}`, ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { server, port };
}
