import { Metadata, status, type handleUnaryCall, type ServiceDefinition } from '@grpc/grpc-js';
import { describe, expect, it, vi } from 'vitest';
import { invalid } from '../../errors.js';
import { refusingMalformed } from './malformed.js';

const definition = {
  echo: {
    path: '/test.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: (v: string) => Buffer.from(v),
    requestDeserialize: (b: Buffer) => {
      if (b[0] === 0xff) throw new Error('index out of range: 3 + 10 > 4');
      return b.toString();
    },
    responseSerialize: (v: string) => Buffer.from(v),
    responseDeserialize: (b: Buffer) => b.toString(),
  },
} satisfies ServiceDefinition;

describe('refusingMalformed', () => {
  const useCase = vi.fn<handleUnaryCall<unknown, unknown>>((call, callback) => callback(null, call.request));
  const [tolerant, guarded] = refusingMalformed(definition, { echo: useCase });

  const invoke = (bytes: Buffer) =>
    new Promise<{ err: any; res: unknown }>((resolve) =>
      guarded.echo(
        { request: tolerant.echo.requestDeserialize(bytes), metadata: new Metadata() } as never,
        ((err: unknown, res: unknown) => resolve({ err, res })) as never,
      ),
    );

  it('passes a message that decodes to the handler', async () => {
    expect(await invoke(Buffer.from('hi'))).toEqual({ err: null, res: 'hi' });
  });

  it('answers a message that does not decode with INVALID_ARGUMENT and never runs the handler', async () => {
    useCase.mockClear();
    const { err } = await invoke(Buffer.from([0xff, 1, 2, 3]));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/^malformed request message: index out of range/);
    expect(err.metadata.get('error-code')).toEqual(['invalid_argument']);
    expect(useCase).not.toHaveBeenCalled();
  });

  it('answers what a preflight refuses with its own error, before the decoder runs', async () => {
    const decode = vi.fn(definition.echo.requestDeserialize);
    const [checked, handlers] = refusingMalformed(
      { echo: { ...definition.echo, requestDeserialize: decode } },
      { echo: useCase },
      {
        echo: (bytes) => {
          if (bytes.length > 3) throw invalid('users', 'too many');
        },
      },
    );
    useCase.mockClear();
    const err = await new Promise<any>((resolve) =>
      handlers.echo(
        { request: checked.echo.requestDeserialize(Buffer.from('long')), metadata: new Metadata() } as never,
        ((e: unknown) => resolve(e)) as never,
      ),
    );
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toBe('too many (field: users)');
    expect(decode).not.toHaveBeenCalled();
    expect(useCase).not.toHaveBeenCalled();
  });
});
