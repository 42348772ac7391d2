import path from 'node:path';
import { freePort } from '../../src/free-port.js';
import { stack } from './api.js';
import { spawnService, type ServiceProcess } from './service-process.js';
import { STACK_SECRETS_KEY } from './stack-info.js';

export interface StackApi {
  proc: ServiceProcess;
  base: string;
  grpcAddress: string;
  logFile: string;
}

/**
 * One more api process of the stack's installation (its database, Temporal, admin token and
 * secrets key), for a test that needs settings of its own: `env` adds or overrides them. Its data
 * folder and log are `name`'s in `dir`.
 */
export async function startStackApi(dir: string, name: string, env: Record<string, string> = {}): Promise<StackApi> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const logFile = path.join(dir, `${name}.log`);
  const proc = spawnService(
    'api',
    {
      DATABASE_URL: stack().databaseUrl,
      TEMPORAL_ADDRESS: stack().temporalAddress,
      TEMPORAL_TASK_QUEUE: stack().taskQueue,
      PORT: String(httpPort),
      GRPC_PORT: String(grpcPort),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: stack().adminToken,
      SECRETS_KEY: STACK_SECRETS_KEY,
      DATA_DIR: path.join(dir, `data-${name}`),
      LOG_LEVEL: 'info',
      ...env,
    },
    logFile,
  );
  await proc.ready;
  return { proc, base: `http://127.0.0.1:${httpPort}`, grpcAddress: `127.0.0.1:${grpcPort}`, logFile };
}
