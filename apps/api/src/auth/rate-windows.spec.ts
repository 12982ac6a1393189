import { describe, expect, it } from '@jest/globals';
import { addressKey } from './rate-windows.js';

describe('addressKey', () => {
  it('counts IPv4 addresses one by one', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('::ffff:203.0.113.9');
  });

  it('counts an IPv6 client by its /64, however it writes the address', () => {
    const key = addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::1')).toBe(key);
    expect(addressKey('2001:DB8:1:2:ffff::')).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1')).toBe('fe80:0:0:0::/64');
  });

  it('leaves what is not an address as it is', () => {
    expect(addressKey('unknown')).toBe('unknown');
  });
});
