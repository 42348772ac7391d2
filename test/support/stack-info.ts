export interface StackInfo {
  gatewayUrl: string;
  grpcAddress: string;
  controlUrl: string;
  adminToken: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalUi: string;
  taskQueue: string;
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
