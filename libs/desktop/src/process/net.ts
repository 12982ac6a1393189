import net from 'node:net';

/** True when host:port accepts a TCP connection right now. */
export async function portAccepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return accepts({ port, host });
}

/** True when the Unix socket at `path` accepts a connection right now (x11vnc's, once it serves). */
export async function unixSocketAccepts(path: string): Promise<boolean> {
  return accepts({ path });
}

function accepts(target: net.NetConnectOpts): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(target);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
