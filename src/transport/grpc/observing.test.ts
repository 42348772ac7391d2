import {
  Client,
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  ServerInterceptingCall,
  status,
  type ServerInterceptor,
  type ServiceError,
  type StatusObject,
} from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { invalid } from '../../errors.js';
import { createLogger } from '../../observability/logger.js';
import { compileTrustedProxies } from '../edge.js';
import { toServiceError } from './errors.js';
import { observing } from './observing.js';

const log = createLogger('debug');
const string = { serialize: (v: string) => Buffer.from(v), deserialize: (b: Buffer) => b.toString() };
const method = (name: string) => ({
  path: `/test.Echo/${name}`,
  requestStream: false,
  responseStream: false,
  requestSerialize: string.serialize,
  requestDeserialize: string.deserialize,
  responseSerialize: string.serialize,
  responseDeserialize: string.deserialize,
});

/** Like authenticate.ts: lets the metadata through only after an asynchronous check. */
const slowCheck: ServerInterceptor = (_method, next) =>
  new ServerInterceptingCall(next, {
    start: (startNext) => startNext({ onReceiveMetadata: (md, mdNext) => void setTimeout(() => mdNext(md), 10) }),
  });

let hang: Promise<void>;
let release: () => void;

const server = new Server({ interceptors: [observing({ log, trustProxy: compileTrustedProxies([]) }), slowCheck] });
server.addService(
  { echo: method('Echo'), refuse: method('Refuse'), hang: method('Hang') },
  {
    async echo(call: any, callback: any) {
      await new Promise((r) => setImmediate(r));
      log.info('inside the handler', { got: call.request });
      callback(null, `echo ${call.request}`);
    },
    refuse: (_call: any, callback: any) => callback(toServiceError(invalid('text', 'text must not be empty'))),
    async hang(_call: any, callback: any) {
      await hang;
      callback(null, 'late');
    },
  },
);
let client: Client;

/** A unary call with what comes back: error, response headers, trailers. */
function unary(name: string, requestId?: string, opts: { cancel?: boolean } = {}) {
  const md = new Metadata();
  if (requestId !== undefined) md.set('x-request-id', requestId);
  return new Promise<{ err: ServiceError | null; headers?: Metadata; trailers: Metadata }>((resolve) => {
    let headers: Metadata | undefined;
    let err: ServiceError | null = null;
    const call = client.makeUnaryRequest(
      `/test.Echo/${name}`,
      string.serialize,
      string.deserialize,
      'hi',
      md,
      {},
      (e) => (err = e),
    );
    call.on('metadata', (m) => (headers = m));
    call.on('status', (s: StatusObject) => setImmediate(() => resolve({ err, headers, trailers: s.metadata })));
    if (opts.cancel) setTimeout(() => call.cancel(), 50);
  });
}

describe('observing: request ids and access lines of gRPC calls', () => {
  let lines: Record<string, unknown>[];
  beforeAll(async () => {
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  });
  afterAll(() => {
    client?.close();
    server.forceShutdown();
  });
  beforeEach(() => {
    lines = [];
    hang = new Promise((r) => (release = r));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      if (String(chunk).startsWith('{"time"')) lines.push(JSON.parse(String(chunk)));
      return true;
    });
  });
  afterEach(() => {
    release();
    vi.restoreAllMocks();
  });

  /** The access lines, once there are `n` (the server writes one after its answer has left). */
  const access = (n = 1) =>
    vi.waitFor(() => {
      const found = lines.filter((l) => l.msg === 'request');
      expect(found.length).toBeGreaterThanOrEqual(n);
      return found;
    });

  it("runs the handler in the call's context, behind an asynchronous interceptor, and sends the id back", async () => {
    const { err, headers, trailers } = await unary('Echo', 'call-1');
    expect(err).toBeNull();
    expect(headers!.get('x-request-id')).toEqual(['call-1']);
    expect(trailers.get('x-request-id')).toEqual(['call-1']);
    expect(lines.find((l) => l.msg === 'inside the handler')).toMatchObject({ request_id: 'call-1', got: 'hi' });
    expect(await access()).toEqual([
      expect.objectContaining({
        level: 'info',
        transport: 'grpc',
        method: 'POST',
        route: '/test.Echo/Echo',
        status: 'OK',
        request_id: 'call-1',
        client: '127.0.0.1',
      }),
    ]);
  });

  it('replaces a malformed id and names an error by its status', async () => {
    const { err, trailers } = await unary('Refuse', 'bad id');
    expect(err!.code).toBe(status.INVALID_ARGUMENT);
    const [id] = trailers.get('x-request-id');
    expect(id).not.toBe('bad id');
    expect(err!.metadata.get('error-field')).toEqual(['text']);
    expect(await access()).toEqual([expect.objectContaining({ status: 'INVALID_ARGUMENT', request_id: id })]);
  });

  it('writes one line for a call the client cancelled, which has no status from the service', async () => {
    const cancelled = await unary('Hang', 'gone', { cancel: true });
    expect(cancelled.err!.code).toBe(status.CANCELLED);
    expect(await access()).toEqual([expect.objectContaining({ request_id: 'gone', status: 'CANCELLED' })]);
    // The handler finishing later writes no second line.
    release();
    await unary('Echo', 'after');
    expect((await access(2)).map((l) => l.request_id)).toEqual(['gone', 'after']);
  });
});
