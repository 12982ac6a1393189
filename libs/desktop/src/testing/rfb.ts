import net from 'node:net';

/** Connects to a VNC server (a Unix socket path, or a TCP port) and returns its 12-byte banner ("RFB 003.008\n"). */
export async function readRfbBanner(target: string | number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = typeof target === 'string' ? net.connect({ path: target }) : net.connect({ port: target, host });
    let received = Buffer.alloc(0);
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no RFB banner from ${String(target)}`)));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 12) {
        socket.destroy();
        resolve(received.subarray(0, 12).toString('latin1'));
      }
    });
    socket.once('error', reject);
  });
}
