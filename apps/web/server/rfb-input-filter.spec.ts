import { describe, expect, it } from '@jest/globals';
import { RfbInputFilter, RfbProtocolError } from './rfb-input-filter.js';

// Client-to-server RFB bytes as noVNC sends them: the handshake, then messages.

const handshake = Buffer.concat([Buffer.from('RFB 003.008\n', 'latin1'), Buffer.from([1]), Buffer.from([1])]);
const setEncodings = Buffer.from([2, 0, 0, 2, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21]);
const updateRequest = Buffer.from([3, 1, 0, 0, 0, 0, 5, 0, 3, 32]);
const key = Buffer.from([4, 1, 0, 0, 0, 0, 0, 0x61]);
const pointer = Buffer.from([5, 1, 0, 10, 0, 20]);
const clipboard = Buffer.concat([Buffer.from([6, 0, 0, 0, 0, 0, 0, 5]), Buffer.from('hello')]);
const fence = Buffer.from([248, 0, 0, 0, 0, 0, 0, 3, 2, 0xaa, 0xbb]);

describe('the RFB input filter', () => {
  it('passes the handshake and the picture requests of a viewer, and drops its keys, pointer and clipboard', () => {
    const filter = new RfbInputFilter();
    const stream = Buffer.concat([handshake, setEncodings, key, updateRequest, pointer, clipboard, fence, updateRequest]);
    expect(filter.push(stream)).toEqual(Buffer.concat([handshake, setEncodings, updateRequest, fence, updateRequest]));
    expect(filter.dropped).toBe(3);
  });

  it('lets input through while the viewer holds control, on the same connection', () => {
    const filter = new RfbInputFilter();
    expect(filter.push(Buffer.concat([handshake, pointer]))).toEqual(handshake);
    filter.allowInput = true;
    expect(filter.push(Buffer.concat([pointer, key, clipboard]))).toEqual(Buffer.concat([pointer, key, clipboard]));
    filter.allowInput = false;
    expect(filter.push(key)).toEqual(Buffer.alloc(0));
  });

  it('follows messages split anywhere across chunks', () => {
    const filter = new RfbInputFilter();
    const stream = Buffer.concat([handshake, setEncodings, key, clipboard, updateRequest, fence]);
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i++) out.push(filter.push(stream.subarray(i, i + 1)));
    expect(Buffer.concat(out)).toEqual(Buffer.concat([handshake, setEncodings, updateRequest, fence]));
  });

  it('follows VNC authentication (a 16-byte answer) before ClientInit', () => {
    const filter = new RfbInputFilter();
    const auth = Buffer.concat([Buffer.from('RFB 003.008\n', 'latin1'), Buffer.from([2]), Buffer.alloc(16, 7), Buffer.from([1])]);
    expect(filter.push(Buffer.concat([auth, key, updateRequest]))).toEqual(Buffer.concat([auth, updateRequest]));
  });

  it('refuses a stream it cannot follow rather than pass unknown bytes on', () => {
    expect(() => new RfbInputFilter().push(Buffer.from('GET / HTTP/1.1\r\n'))).toThrow(RfbProtocolError);
    expect(() => new RfbInputFilter().push(Buffer.from('RFB 003.003\n'))).toThrow(/3\.3/);
    expect(() => new RfbInputFilter().push(Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([19])]))).toThrow(
      /security type 19/,
    );
    expect(() => new RfbInputFilter().push(Buffer.concat([handshake, Buffer.from([99, 0, 0])]))).toThrow(/message type 99/);
    // A clipboard announced far beyond what anyone pastes is refused at once, not buffered.
    expect(() =>
      new RfbInputFilter().push(Buffer.concat([handshake, Buffer.from([6, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff])])),
    ).toThrow(/clipboard of 2147483647 bytes/);
  });
});
