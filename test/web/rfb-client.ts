import { WebSocket, type RawData } from 'ws';

// A bare RFB 3.8 client over a websocket, as a modified page could be: it speaks to the /view proxy
// directly and never asks the web server for anything but the stream (no /watch when control ends).

export class RfbClient {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  private closed = false;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: RawData) => {
      const chunk = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  /** Opens the view and completes the handshake (security None, shared session); resolves at ServerInit. */
  static async connect(url: string, cookie: string): Promise<RfbClient> {
    const socket = new WebSocket(url, ['binary'], { headers: { cookie } });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`the view answered ${res.statusCode}`)));
    });
    const client = new RfbClient(socket);
    const version = (await client.read(12)).toString('latin1');
    if (!version.startsWith('RFB ')) throw new Error(`not RFB: ${JSON.stringify(version)}`);
    socket.send(Buffer.from('RFB 003.008\n', 'latin1'));
    const types = await client.read((await client.read(1))[0]!);
    if (!types.includes(1)) throw new Error(`no security type None among ${[...types].join(',')}`);
    socket.send(Buffer.from([1]));
    if ((await client.read(4)).readUInt32BE(0) !== 0) throw new Error('security handshake refused');
    socket.send(Buffer.from([1]));
    const init = await client.read(24);
    await client.read(init.readUInt32BE(20));
    return client;
  }

  /** A PointerEvent: moves the pointer to x, y with no button down. */
  movePointer(x: number, y: number): void {
    const message = Buffer.alloc(6);
    message.writeUInt8(5, 0);
    message.writeUInt8(0, 1);
    message.writeUInt16BE(x, 2);
    message.writeUInt16BE(y, 4);
    this.socket.send(message);
  }

  close(): void {
    this.socket.terminate();
  }

  private async read(n: number): Promise<Buffer> {
    while (this.buffered.length < n) {
      if (this.closed) throw new Error('the view closed');
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = null;
    }
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }
}
