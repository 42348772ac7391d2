import { ServiceError } from '@temporalio/client';
import { Metadata, status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { grpcCause } from './grpc-cause.js';

const grpcError = (code: status, details: string) =>
  Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });

describe('grpcCause', () => {
  it("finds the server's status under the client's wrapper", () => {
    const err = new ServiceError('Failed to start Workflow', {
      cause: grpcError(status.INVALID_ARGUMENT, 'Namespace default has no mapping defined for search attribute X'),
    });
    expect(grpcCause(err)).toBe('INVALID_ARGUMENT: Namespace default has no mapping defined for search attribute X');
    expect(grpcCause(grpcError(status.PERMISSION_DENIED, 'Request unauthorized.'))).toBe(
      'PERMISSION_DENIED: Request unauthorized.',
    );
  });

  it('is undefined for an error with no gRPC status under it', () => {
    expect(grpcCause(new Error('no free workflow id'))).toBeUndefined();
    expect(grpcCause(undefined)).toBeUndefined();
  });
});
