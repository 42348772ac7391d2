import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { EVALUATIONS_PER_TENANT, relayAdmission } from './admission.js';

describe('relay admission from the configuration', () => {
  it('admits twice the in-flight bounds, EVALUATIONS_PER_TENANT and TENANT_BATCHES_RUNNING by default', () => {
    const a = relayAdmission(loadConfig({ WEBHOOK_MAX_IN_FLIGHT: '3', TENANT_DELIVERIES_IN_FLIGHT: '10' }));
    expect(a).toEqual({
      deliveries: { perWebhook: 6, perTenant: 20 },
      evaluationsPerTenant: EVALUATIONS_PER_TENANT,
      batchesPerTenant: 4,
    });
  });

  it('binds nothing that FAIRNESS_OFF names, and leaves the rest', () => {
    const a = relayAdmission(loadConfig({ FAIRNESS_OFF: 'delivery-admission,evaluation-admission' }));
    expect(a.deliveries.perWebhook).toBeGreaterThanOrEqual(100_000);
    expect(a.deliveries.perTenant).toBeGreaterThanOrEqual(100_000);
    expect(a.evaluationsPerTenant).toBeGreaterThanOrEqual(100_000);
    expect(a.batchesPerTenant).toBe(4);
  });
});
