export interface StackInfo {
  gatewayUrl: string;
  grpcAddress: string;
  controlUrl: string;
  adminToken: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalUi: string;
  taskQueue: string;
  /** The throwaway CA that signed certPem (for NODE_EXTRA_CA_CERTS of processes a test starts itself). */
  caPath: string;
  certPem: string;
  keyPem: string;
  /** `cluster`: the real Temporal server, two api processes, analysis and delivery workers (stack.ts). */
  topology: 'dev' | 'cluster';
  logs: { api: string; worker: string; worker2: string; api2?: string; deliveryWorker?: string };
  /** GET /metrics of the worker processes (the api's is `${gatewayUrl}/metrics`). */
  metricsUrls: { worker: string; worker2: string; deliveryWorker?: string };
  retryScheduleMs: number[];
}

/**
 * The stack's SECRETS_KEY. Every process of one installation must share it: a process started on
 * the stack's database with another key is refused at start (src/secrets-key-agreement.ts).
 */
export const STACK_SECRETS_KEY = 'ab'.repeat(32);
