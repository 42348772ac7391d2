/**
 * Retry delays of webhook deliveries: a pure function of the attempt number and the schedule
 * (WEBHOOK_RETRY_SCHEDULE, parsed by src/durations.ts).
 */
import { nextRetryDelayMs, retryWaitMs } from '../../workflows/retry-delay.js';

export { nextRetryDelayMs, retryWaitMs };
