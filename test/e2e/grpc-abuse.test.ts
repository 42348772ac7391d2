/**
 * Abuse of the gRPC port by a client without a valid key: a message of millions of empty `users`
 * entries costs the server ~40 bytes of heap per wire byte once decoded, so it must be refused
 * before decoding (authentication from metadata first, a receive limit equal to the gateway's
 * 5 MB), and the api process must stay up.
 */
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersServiceService } from '../../gen/profiling/v1/users.js';
import { MAX_CONCURRENT_STREAMS } from '../../src/transport/grpc/server.js';
import { MAX_REQUEST_BYTES } from '../../src/transport/limits.js';
import { call, newTenant, stack, type Tenant } from '../support/api.js';
import { keyMetadata } from '../support/grpc.js';

const IDENTIFY = UsersServiceService.identifyUsers.path;
const WRONG_KEY = 'sps_' + 'W'.repeat(43);

/** IdentifyUsersRequest with `count` empty UserInput entries: field 2, length 0, so `12 00` each. */
function emptyUsers(count: number): Buffer {
  const bytes = Buffer.alloc(count * 2);
  for (let i = 0; i < bytes.length; i += 2) bytes[i] = 0x12;
  return bytes;
}

interface Outcome {
  code: status;
  details: string;
}

let raw: Client;
let tenant: Tenant;
let apiPid: number;

function send(bytes: Buffer, md: Metadata): Promise<Outcome> {
  return new Promise((resolve) => {
    raw.makeUnaryRequest(
      IDENTIFY,
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      md,
      { deadline: Date.now() + 60_000 },
      (err: ServiceError | null) => resolve({ code: err ? err.code : status.OK, details: err?.details ?? '' }),
    );
  });
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return kb ? Number(kb[1]) / 1024 : 0;
}

/** Runs `attack` while sampling the api's resident memory; returns the outcomes and the peak. */
async function measured<T>(attack: () => Promise<T>): Promise<{ result: T; baseMb: number; peakMb: number }> {
  const baseMb = rssMb(apiPid);
  let peakMb = baseMb;
  const sampler = setInterval(() => {
    try {
      peakMb = Math.max(peakMb, rssMb(apiPid));
    } catch {
      /* the process is gone: the pid check reports it */
    }
  }, 25);
  try {
    return { result: await attack(), baseMb, peakMb };
  } finally {
    clearInterval(sampler);
  }
}

async function currentApiPid(): Promise<number> {
  return ((await (await fetch(`${stack().controlUrl}/pids`)).json()) as { api: number }).api;
}

async function expectStillServing() {
  expect(await currentApiPid(), 'the api process was restarted: it crashed').toBe(apiPid);
  expect((await call('GET', '/healthz')).status).toBe(200);
  expect((await call('GET', '/api/v1/projects', { key: tenant.key })).status).toBe(200);
  // Health needs no key; SERVING is `08 01`.
  const health = await new Promise<{ err: ServiceError | null; res?: Buffer }>((resolve) =>
    raw.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.alloc(0),
      new Metadata(),
      (err, res) => resolve({ err, res }),
    ),
  );
  expect(health.err).toBeNull();
  expect([...health.res!]).toEqual([0x08, 0x01]);
}

describe('gRPC abuse without a valid key', () => {
  beforeAll(async () => {
    tenant = await newTenant('grpc-abuse');
    raw = new Client(stack().grpcAddress, credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
    apiPid = await currentApiPid();
  });

  afterAll(() => raw?.close());

  it('receives at most what the gateway accepts, on a bounded number of streams per connection', async () => {
    expect(MAX_REQUEST_BYTES).toBe(5 * 1024 * 1024);
    const session = http2.connect(`http://${stack().grpcAddress}`);
    try {
      const settings = await new Promise<http2.Settings>((resolve, reject) => {
        session.once('remoteSettings', resolve);
        session.once('error', reject);
      });
      expect(settings.maxConcurrentStreams).toBe(MAX_CONCURRENT_STREAMS);
      expect(MAX_CONCURRENT_STREAMS).toBeLessThanOrEqual(100);
    } finally {
      session.close();
    }
  });

  it('refuses 8 concurrent 16 MB messages of 8 M empty users without a key, without decoding them, and stays up', async () => {
    const attack = emptyUsers(8 * 1024 * 1024);
    const { result, baseMb, peakMb } = await measured(() =>
      Promise.all(Array.from({ length: 8 }, () => send(attack, new Metadata()))),
    );
    console.log(
      `8 x 16 MB without a key: ${result.map((r) => status[r.code]).join(', ')}; api RSS ${baseMb.toFixed(0)} -> peak ${peakMb.toFixed(0)} MB`,
    );
    for (const r of result) {
      expect([status.UNAUTHENTICATED, status.RESOURCE_EXHAUSTED], r.details).toContain(r.code);
    }
    // Decoding one of them took ~660 MB; refusing all eight must not cost a fraction of that.
    expect(peakMb - baseMb).toBeLessThan(200);
    await expectStillServing();
  });

  it('refuses the same with a wrong key, and a wrong key is not decoded either', async () => {
    const { result, baseMb, peakMb } = await measured(() =>
      Promise.all(Array.from({ length: 8 }, () => send(emptyUsers(8 * 1024 * 1024), keyMetadata(WRONG_KEY)))),
    );
    console.log(
      `8 x 16 MB with a wrong key: ${result.map((r) => status[r.code]).join(', ')}; api RSS ${baseMb.toFixed(0)} -> peak ${peakMb.toFixed(0)} MB`,
    );
    for (const r of result) expect([status.UNAUTHENTICATED, status.RESOURCE_EXHAUSTED], r.details).toContain(r.code);
    expect(peakMb - baseMb).toBeLessThan(200);
    await expectStillServing();
  });

  it('checks the key before the message: an unauthenticated call is UNAUTHENTICATED whatever its bytes', async () => {
    // Bytes that do not decode (a length past the end): decoding first would answer INVALID_ARGUMENT.
    const malformed = Buffer.from([0x12, 0x7f, 0x01]);
    expect((await send(malformed, new Metadata())).code).toBe(status.UNAUTHENTICATED);
    expect((await send(malformed, keyMetadata(WRONG_KEY))).code).toBe(status.UNAUTHENTICATED);
    // Under the receive limit: 2.5 M empty users (~200 MB once decoded) are not decoded for a stranger.
    const underLimit = emptyUsers(Math.floor((MAX_REQUEST_BYTES - 16) / 2));
    const { result, baseMb, peakMb } = await measured(() =>
      Promise.all(Array.from({ length: 8 }, () => send(underLimit, new Metadata()))),
    );
    console.log(
      `8 x 5 MB without a key: ${result.map((r) => status[r.code]).join(', ')}; api RSS ${baseMb.toFixed(0)} -> peak ${peakMb.toFixed(0)} MB`,
    );
    for (const r of result) expect(r.code, r.details).toBe(status.UNAUTHENTICATED);
    expect(peakMb - baseMb).toBeLessThan(200);
    await expectStillServing();
  });

  it('refuses oversized messages with a valid key as RESOURCE_EXHAUSTED, and a batch of empty users before decoding it', async () => {
    const md = keyMetadata(tenant.key);
    // Over the receive limit: refused by it, never decoded.
    const over = await measured(() =>
      Promise.all(Array.from({ length: 8 }, () => send(emptyUsers(8 * 1024 * 1024), md))),
    );
    for (const r of over.result) expect(r.code, r.details).toBe(status.RESOURCE_EXHAUSTED);
    expect(over.peakMb - over.baseMb).toBeLessThan(200);
    expect((await send(Buffer.alloc(MAX_REQUEST_BYTES + 1, 0x41), md)).code).toBe(status.RESOURCE_EXHAUSTED);
    // Within the limit, 2.5 M entries are still 2,500 times the batch limit: refused from the wire, not decoded.
    const many = emptyUsers(Math.floor((MAX_REQUEST_BYTES - 16) / 2));
    const { result, baseMb, peakMb } = await measured(() =>
      Promise.all(Array.from({ length: 8 }, () => send(many, md))),
    );
    console.log(
      `8 x 5 MB with a valid key: ${result.map((r) => status[r.code]).join(', ')}; api RSS ${baseMb.toFixed(0)} -> peak ${peakMb.toFixed(0)} MB`,
    );
    for (const r of result) {
      expect(r.code, r.details).toBe(status.INVALID_ARGUMENT);
      expect(r.details).toMatch(/at most 1000 users per batch/);
    }
    expect(peakMb - baseMb).toBeLessThan(200);
    await expectStillServing();
  });

  it('still takes a full 1,000-user batch that fits in 5 MB', async () => {
    // 1,000 users of 5,000-character texts: ~5 MB. An unknown project, so nothing is queued for
    // analysis: NOT_FOUND proves the message was received, decoded and validated.
    const users = Array.from({ length: 1_000 }, (_, i) => ({ userId: `u${i}`, text: 'x'.repeat(5_000) }));
    const bytes = UsersServiceService.identifyUsers.requestSerialize({ projectId: 999_999_999, users });
    expect(bytes.length).toBeLessThan(MAX_REQUEST_BYTES);
    expect(bytes.length).toBeGreaterThan(5_000_000);
    const r = await send(bytes, keyMetadata(tenant.key));
    expect(r.code, r.details).toBe(status.NOT_FOUND);
  });

  it('queues calls beyond the concurrent-stream bound instead of failing them', async () => {
    const md = keyMetadata(tenant.key);
    const list = UsersServiceService.identifyUsers;
    const many = await Promise.all(
      Array.from({ length: 100 }, () =>
        send(list.requestSerialize({ projectId: 999_999_999, users: [{ userId: 'q', text: 'hi' }] }), md),
      ),
    );
    expect(new Set(many.map((r) => status[r.code]))).toEqual(new Set(['NOT_FOUND']));
  });
});
