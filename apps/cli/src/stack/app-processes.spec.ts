import { describe, expect, it } from '@jest/globals';
import { defaultPublicUrl } from './app-processes.js';

describe('defaultPublicUrl', () => {
  it('is the URL `up` prints for a host people can reach it by', () => {
    expect(defaultPublicUrl('127.0.0.1', 3101)).toBe('http://127.0.0.1:3101');
    expect(defaultPublicUrl('192.168.1.20', 8080)).toBe('http://192.168.1.20:8080');
    expect(defaultPublicUrl('::1', 3101)).toBe('http://[::1]:3101');
  });

  it('is none for a wildcard bind: the printed 127.0.0.1 would reach only this machine from a mail', () => {
    for (const host of ['0.0.0.0', '::']) expect(defaultPublicUrl(host, 3101)).toBeUndefined();
  });
});
