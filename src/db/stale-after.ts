/**
 * Work that has not stamped progress for this long no longer counts against its tenant (SQL
 * interval): a batch, a segment evaluation or a delivery run that an operator terminated in
 * Temporal stops holding its tenant's place instead of blocking it for good.
 */
export const STALE_AFTER = `interval '5 minutes'`;
