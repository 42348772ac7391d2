import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { portsFrom, startRealTemporalServer } from '../dev-hosting/real-server.js';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes.js';

/**
 * `npm run temporal:server [-- --port 7300 --database temporal --role temporal --shards 4]`:
 * the real Temporal server on DATABASE_URL's PostgreSQL (its own databases and role), in the
 * foreground until Ctrl-C. Then run the service with TEMPORAL_ADDRESS=127.0.0.1:<port>.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '7300' },
    database: { type: 'string', default: 'temporal' },
    role: { type: 'string', default: 'temporal' },
    shards: { type: 'string', default: '4' },
  },
});
const log = (msg: string) => console.log(msg);
try {
  const config = loadConfig();
  if (!config.databaseUrl)
    throw new ConfigError(
      'DATABASE_URL is required: the Temporal server keeps its state in databases of its own on that PostgreSQL server',
    );
  const base = Number(values.port);
  const shards = Number(values.shards);
  if (!Number.isInteger(base) || base < 1 || base > 65525)
    throw new ConfigError('--port must be 1..65525 (it uses 10 ports from there)');
  if (!Number.isInteger(shards) || shards < 1 || shards > 16384) throw new ConfigError('--shards must be 1..16384');
  const started = Date.now();
  const server = await startRealTemporalServer({
    databaseUrl: config.databaseUrl,
    database: values.database,
    role: values.role,
    dataDir: path.resolve(config.dataDir, 'temporal-server'),
    ports: portsFrom(base),
    namespace: config.temporal.namespace,
    searchAttributes: SEARCH_ATTRIBUTES,
    historyShards: shards,
    log,
  });
  console.log(
    `\nTemporal server ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${server.address}, namespace "${config.temporal.namespace}"\n` +
      `  run the service against it: TEMPORAL_ADDRESS=${server.address} DATABASE_URL=… npm start\n` +
      `  Ctrl-C stops it\n`,
  );
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : (err as Error).message);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
