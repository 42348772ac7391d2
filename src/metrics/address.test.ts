import { describe, expect, it } from 'vitest';
import { DEFAULT_METRICS_PORT, parseMetricsAddress } from './address.js';
import { ConfigError, loadConfig } from '../config.js';

describe('METRICS_PORT', () => {
  it('is a port on 127.0.0.1, or host:port', () => {
    expect(parseMetricsAddress('9465')).toEqual({ host: '127.0.0.1', port: 9465 });
    expect(parseMetricsAddress('0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseMetricsAddress('0.0.0.0:9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseMetricsAddress('[::]:9464')).toEqual({ host: '::', port: 9464 });
    expect(parseMetricsAddress('metrics.local:80')).toEqual({ host: 'metrics.local', port: 80 });
  });

  it('defaults to 9464 on 127.0.0.1', () => {
    expect(loadConfig({}).metrics).toEqual({ host: '127.0.0.1', port: DEFAULT_METRICS_PORT });
  });

  it('refuses what is not a port with an error naming the variable and the forms it takes', () => {
    for (const bad of ['65536', 'abc', '-1', '9464:0.0.0.0', ':9464', '[zz]:9464', '1.5']) {
      expect(() => parseMetricsAddress(bad), bad).toThrow(/is not a port|is not an IPv6 address/);
      let err: unknown;
      try {
        loadConfig({ METRICS_PORT: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain('METRICS_PORT:');
    }
  });
});
