/**
 * The fairness mechanisms FAIRNESS_OFF can switch off, one by one: to measure what each one earns on
 * a deployment (the table in docs/fairness.md was made this way), or to rule one out in an
 * incident. None of them is needed for correctness: the in-flight bounds per webhook and per
 * tenant are promises, not fairness, and cannot be switched off.
 */
export const FAIRNESS_MECHANISMS = [
  /** Temporal task-queue fairness: every workflow carries its tenant as fairness key (starters.ts). */
  'fairness-keys',
  /** At most TENANT_BATCHES_RUNNING batch workflows of a tenant run; the rest wait stored (admission.ts). */
  'batch-admission',
  /** At most EVALUATIONS_PER_TENANT segment evaluations of a tenant run (admission.ts). */
  'evaluation-admission',
  /** The relay starts a webhook's and a tenant's deliveries only as first attempts are made (delivery-admission.ts). */
  'delivery-admission',
  /** Attempts to failing webhooks take turns while other tenants deliver (failing-turns.ts). */
  'failing-turns',
  /** Deliveries yield to analysis in a worker that does both (delivery-gate.ts; `worker` role only). */
  'gate',
  /** Analysing processes run at a lower priority (niceness.ts). */
  'nice',
] as const;

export type FairnessMechanism = (typeof FAIRNESS_MECHANISMS)[number];

/**
 * Mechanisms removed after an ablation showed no benefit: naming one is an error that says so.
 * `scheduler` (tenants' turns at a worker's analysis slots): two runs each with it and the fairness
 * keys both off measured no worse than with both on (docs/fairness.md); the keys stay, as they
 * cost no code.
 */
const REMOVED: Record<string, string> = {
  scheduler: 'scheduler was removed (its ablation showed no benefit; Temporal fairness keys remain)',
};

/** Parses FAIRNESS_OFF (`gate,nice`); an unknown name is an error, never ignored. */
export function parseFairnessOff(value: string): Set<FairnessMechanism> {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const removed = names.filter((n) => n in REMOVED);
  if (removed.length) throw new Error(removed.map((n) => REMOVED[n]).join('; '));
  const unknown = names.filter((n) => !(FAIRNESS_MECHANISMS as readonly string[]).includes(n));
  if (unknown.length)
    throw new Error(`unknown mechanism ${unknown.join(', ')} (known: ${FAIRNESS_MECHANISMS.join(', ')})`);
  return new Set(names as FairnessMechanism[]);
}
