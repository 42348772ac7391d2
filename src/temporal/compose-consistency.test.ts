import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DYNAMIC_CONFIG } from '../dev-hosting/real-server.js';
import { TEMPORAL_CLI_VERSION, TEMPORAL_SERVER_VERSION } from '../dev-hosting/temporal-binaries.js';
import { SEARCH_ATTRIBUTES } from './search-attributes.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

/** docker-compose.yml runs Temporal as `npm run temporal:server` does: the same version, config and attributes. */
describe('docker-compose.yml and the script agree', () => {
  it('uses the server version the script builds, for the server and its admin tools', () => {
    const images = [...read('docker-compose.yml').matchAll(/image: temporalio\/(server|admin-tools):(\S+)/g)];
    expect(images.length).toBeGreaterThanOrEqual(3);
    for (const [, , tag] of images) expect(tag).toBe(TEMPORAL_SERVER_VERSION);
  });

  it('builds the versions tools/temporal/go.mod pins, the CLI requiring that server', () => {
    const mod = read('tools/temporal/go.mod');
    expect(mod).toMatch(new RegExp(`^\\tgithub\\.com/temporalio/cli v${TEMPORAL_CLI_VERSION} `, 'm'));
    expect(mod).toMatch(new RegExp(`^\\tgo\\.temporal\\.io/server v${TEMPORAL_SERVER_VERSION} `, 'm'));
    for (const tool of [
      'github.com/temporalio/cli/cmd/temporal',
      'go.temporal.io/server/cmd/server',
      'go.temporal.io/server/cmd/tools/sql',
    ])
      expect(mod).toContain(`\t${tool}\n`);
  });

  it('registers every search attribute the workflows set, with its type', () => {
    const script = read('docker/temporal-namespace.sh');
    const keywords = /for a in ([^;]+);/.exec(script)![1].trim().split(/\s+/);
    const ints = [...script.matchAll(/--name (\w+) --type Int/g)].map((m) => m[1]);
    const registered = Object.fromEntries([...keywords.map((k) => [k, 'Keyword']), ...ints.map((k) => [k, 'Int'])]);
    expect(registered).toEqual(SEARCH_ATTRIBUTES);
  });

  it('sets the dynamic config the script writes (fairness, eager activities)', () => {
    const yaml = read('docker/dynamicconfig.yaml');
    for (const key of ['matching.enableFairness', 'system.enableActivityEagerExecution']) {
      expect(DYNAMIC_CONFIG[key]).toBe(true);
      expect(yaml).toMatch(new RegExp(`^${key.replace('.', '\\.')}:\\n  - value: true$`, 'm'));
    }
  });
});
