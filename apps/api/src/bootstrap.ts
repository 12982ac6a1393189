import type { INestApplication } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ClientAddressResolver, clientAddressMiddleware } from './auth/client-ip.js';
import { ApiErrorFilter } from './common/api-error.filter.js';
import { API_CONFIG, type ApiConfig } from './config/api-config.js';

/**
 * What every API application gets beyond its modules, in production and in tests alike: JSON errors with
 * stable codes for everything (including unknown routes and malformed bodies), socket.io websockets, and
 * each request's client address worked out once, before any route (auth/client-ip.ts).
 */
export function configureApp(app: INestApplication): INestApplication {
  const express = app as NestExpressApplication;
  express.useBodyParser('json', { limit: '1mb' });
  // No forwarded header is believed by Express itself: auth/client-ip.ts decides who the client is.
  express.set('trust proxy', false);
  express.use(clientAddressMiddleware(new ClientAddressResolver(app.get<ApiConfig>(API_CONFIG))));
  express.disable('x-powered-by');
  app.useGlobalFilters(new ApiErrorFilter());
  app.useWebSocketAdapter(new IoAdapter(app));
  app.enableShutdownHooks();
  return app;
}
