import { readFileSync } from 'node:fs';
import { createFileRegistry, fromBinary, toJson } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { Metadata, status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { AppError, invalid } from '../../errors.js';
import { toServiceError } from './errors.js';

/**
 * Decoded the way a client of another language would: reflectively, from the descriptors buf
 * compiled (gen/profiling-v1.binpb), not with the generated encoders that wrote the bytes.
 */
const registry = createFileRegistry(
  fromBinary(FileDescriptorSetSchema, readFileSync(new URL('../../../gen/profiling-v1.binpb', import.meta.url))),
);
const STATUS = registry.getMessage('google.rpc.Status')!;

function trailer(err: AppError) {
  const answer = toServiceError(err);
  const [bytes] = (answer.metadata as Metadata).get('grpc-status-details-bin');
  expect(bytes).toBeInstanceOf(Buffer);
  return { answer, status: toJson(STATUS, fromBinary(STATUS, bytes as Buffer), { registry }) as any };
}

describe('grpc-status-details-bin', () => {
  it('names the field of an invalid argument in a BadRequest, with the same code and message as the status', () => {
    const { answer, status: decoded } = trailer(invalid('users[3].text', 'text must not be empty'));
    expect(answer.code).toBe(status.INVALID_ARGUMENT);
    expect(decoded).toEqual({
      code: status.INVALID_ARGUMENT,
      message: answer.details,
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'users[3].text', description: 'text must not be empty' }],
        },
      ],
    });
    // The metadata clients already read stays.
    expect(answer.metadata!.get('error-code')).toEqual(['invalid_argument']);
    expect(answer.metadata!.get('error-field')).toEqual(['users[3].text']);
  });

  it('tells a rate-limited or unavailable caller how long to wait in a RetryInfo', () => {
    const limited = trailer(new AppError('rate_limited', 'too many failed authentications', undefined, 7));
    expect(limited.status).toEqual({
      code: status.RESOURCE_EXHAUSTED,
      message: 'too many failed authentications',
      details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
    });
    expect(limited.answer.metadata!.get('retry-after')).toEqual(['7']);
    const down = trailer(new AppError('unavailable', 'the database is unavailable; retry shortly', undefined, 2.5));
    expect(down.status.code).toBe(status.UNAVAILABLE);
    expect(down.status.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2.500s' },
    ]);
  });

  it('carries code and message alone when there is no field to name and no wait to tell', () => {
    expect(trailer(new AppError('not_found', 'webhook not found')).status).toEqual({
      code: status.NOT_FOUND,
      message: 'webhook not found',
    });
    // A field on another kind of error (a quota) is not a bad request.
    expect(trailer(new AppError('quota_exceeded', 'at most 2 webhooks', 'webhooks')).status.details).toBeUndefined();
  });
});
