import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nextModule from 'next';
import { parseEnv, webEnvSchema } from '@lazyboy/contracts';
import { TrustedProxies } from '@lazyboy/contracts/node';
import { ApiProxy, isApiPath } from './api-proxy.js';
import { ClientAddresses } from './client-address.js';
import { ViewProxy, viewRoute } from './view-proxy.js';

// The web server: Next.js for the pages, and the one origin the browser talks to (the API and its
// websockets pass through, see api-proxy.ts). A custom server because Next's route handlers cannot take
// websocket upgrades.

// next's typings describe an ES module, but the package is CommonJS: Node's default import is createServer itself.
const next = nextModule as unknown as typeof nextModule.default;

const env = parseEnv(webEnvSchema, process.env);
const api = new URL(env.LAZYBOY_API_URL);
const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const app = next({ dev: false, dir: webDir, hostname: env.LAZYBOY_WEB_HOST, port: env.LAZYBOY_WEB_PORT });
await app.prepare();
const handle = app.getRequestHandler();

const apiProxy = new ApiProxy(
  api,
  new ClientAddresses(new TrustedProxies(env.LAZYBOY_TRUSTED_PROXIES)),
  env.LAZYBOY_INTERNAL_SECRET,
);
const views = new ViewProxy(api, env.LAZYBOY_INTERNAL_SECRET);

const server = http.createServer((req, res) => {
  if (isApiPath(req.url)) return apiProxy.request(req, res);
  const view = viewRoute(req.method, req.url);
  if (view && view.kind !== 'stream') return void views.control(view, req, res);
  void handle(req, res);
});
server.on('upgrade', (req, socket, head) => {
  // An upgrading socket has no error listener of Node's any more: a reset must not crash the server.
  socket.on('error', () => socket.destroy());
  if (isApiPath(req.url)) return apiProxy.upgrade(req, socket, head);
  const view = viewRoute(req.method, req.url);
  if (view?.kind === 'stream') return void views.upgrade(view, req, socket, head);
  socket.destroy();
});
server.listen(env.LAZYBOY_WEB_PORT, env.LAZYBOY_WEB_HOST, () => {
  console.log(`web: listening on http://${env.LAZYBOY_WEB_HOST}:${env.LAZYBOY_WEB_PORT}, API at ${api.origin}`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    views.closeAll();
    server.close();
    server.closeAllConnections();
    void app.close().finally(() => process.exit(0));
  });
}
