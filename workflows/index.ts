export * from './batch.js';
export * from './delivery.js';
export * from './segment-evaluation.js';
export * from './label-training.js';
export * from './label-backfill.js';
