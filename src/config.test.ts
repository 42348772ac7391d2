import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from './config.js';
import { FAIRNESS_MECHANISMS } from './fairness-mechanisms.js';
import { serverOptions } from './transport/http/connections.js';

describe('configuration', () => {
  it('reads 47 variables', () => {
    expect(CONFIG_VARIABLES).toHaveLength(47);
    // Per-tenant limits share one prefix.
    expect(CONFIG_VARIABLES.filter((v) => v.startsWith('TENANT_'))).toEqual([
      'TENANT_DELIVERIES_IN_FLIGHT',
      'TENANT_BATCHES_RUNNING',
      'TENANT_BATCHES_IN_FLIGHT',
      'TENANT_WEBHOOKS_PER_PIPELINE',
      'TENANT_SEGMENTS_PER_PIPELINE',
      'TENANT_PROJECTS',
      'TENANT_PIPELINES_PER_PROJECT',
      'TENANT_DEPLOYED_SEGMENTS_PER_PROJECT',
      'TENANT_LABELS_PER_PROJECT',
      'TENANT_EXAMPLES_PER_LABEL',
      'TENANT_REQUESTS_IN_FLIGHT',
    ]);
  });

  it('refuses a variable of an earlier version with what replaced it, and changes nothing', () => {
    const err = (() => {
      try {
        loadConfig({ QUOTA_WEBHOOKS_PER_PIPELINE: '3', WORKER_NICE: '0' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.message).toContain('QUOTA_WEBHOOKS_PER_PIPELINE: renamed TENANT_WEBHOOKS_PER_PIPELINE');
    expect(err?.message).toContain('WORKER_NICE: now a constant');
    expect(loadConfig({ TENANT_WEBHOOKS_PER_PIPELINE: '3' }).quotas.webhooksPerPipeline).toBe(3);
  });

  it('HTTP_REQUEST_TIMEOUT_MS: 30 s by default, the gateway server takes it, under 1 s refused', () => {
    expect(loadConfig({}).http.requestTimeoutMs).toBe(30_000);
    const { http } = loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '10000' });
    expect(serverOptions(http.requestTimeoutMs)).toMatchObject({ requestTimeout: 10_000, headersTimeout: 10_000 });
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '500' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });

  it('ROLE is read from the schema: all by default, a known role, anything else refused', () => {
    expect(loadConfig({}).role).toBe('all');
    expect(loadConfig({ ROLE: 'delivery-worker' }).role).toBe('delivery-worker');
    expect(() => loadConfig({ ROLE: 'janitor' })).toThrow(/ROLE/);
  });

  it('SECRETS_KEY_PREVIOUS is a comma-separated list of keys, each checked', () => {
    const [a, b] = ['a'.repeat(64), 'b'.repeat(64)];
    expect(loadConfig({}).secretsKeysPrevious).toEqual([]);
    expect(loadConfig({ SECRETS_KEY_PREVIOUS: `${a}, ${b},` }).secretsKeysPrevious).toEqual([a, b]);
    expect(() => loadConfig({ SECRETS_KEY_PREVIOUS: `${a},abcd` })).toThrow(/SECRETS_KEY_PREVIOUS.*64 hex/);
  });

  it('FAIRNESS_OFF takes known mechanism names only', () => {
    expect(loadConfig({}).fairnessOff.size).toBe(0);
    const off = loadConfig({ FAIRNESS_OFF: 'gate, batch-admission' });
    expect([...off.fairnessOff]).toEqual(['gate', 'batch-admission']);
    // Switched off, batch admission no longer binds (a number, for SQL).
    expect(off.quotas.batchesRunning).toBeGreaterThanOrEqual(100_000);
    expect(() => loadConfig({ FAIRNESS_OFF: 'gate,fairness' })).toThrow(/unknown mechanism fairness/);
    expect(() => loadConfig({ FAIRNESS_OFF: 'scheduler' })).toThrow(/scheduler was removed/);
    expect(() => loadConfig({ FAIRNESS_OFF: FAIRNESS_MECHANISMS.join(',') })).not.toThrow();
  });
});
