import { describe, expect, it } from 'vitest';
import { grpcPeerAddress } from './edge.js';

describe('grpcPeerAddress', () => {
  it('extracts the address from a gRPC peer string', () => {
    expect(grpcPeerAddress('ipv4:127.0.0.1:51234')).toBe('127.0.0.1');
    expect(grpcPeerAddress('ipv6:[::1]:51234')).toBe('::1');
    expect(grpcPeerAddress('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(grpcPeerAddress('127.0.0.1:51234')).toBe('127.0.0.1');
    // What a grpc-js server reports for IPv6 peers: no brackets.
    expect(grpcPeerAddress('::1:51234')).toBe('::1');
    expect(grpcPeerAddress('2001:db8:1:2::7:443')).toBe('2001:db8:1:2::7');
    expect(grpcPeerAddress('::ffff:10.1.2.3:51234')).toBe('::ffff:10.1.2.3');
    expect(grpcPeerAddress('unknown')).toBe('unknown');
    expect(grpcPeerAddress('unix:/tmp/sock')).toBe('unix:/tmp/sock');
  });
});
