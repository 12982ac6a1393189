import net from 'node:net';

/** Connects to a VNC server and returns the 12-byte protocol banner it sends first ("RFB 003.008\n"). */
export async function readRfbBanner(port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host });
    let received = Buffer.alloc(0);
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no RFB banner from ${host}:${port}`)));
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
