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
  logs: { api: string; worker: string; worker2: string };
  retryScheduleMs: number[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}
