import type { INestApplication } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ApiErrorFilter } from './common/api-error.filter.js';

/**
 * What every API application gets beyond its modules, in production and in tests alike: JSON errors with
 * stable codes for everything (including unknown routes and malformed bodies) and socket.io websockets.
 */
export function configureApp(app: INestApplication): INestApplication {
  const express = app as NestExpressApplication;
  express.useBodyParser('json', { limit: '1mb' });
  express.set('trust proxy', 'loopback');
  express.disable('x-powered-by');
  app.useGlobalFilters(new ApiErrorFilter());
  app.useWebSocketAdapter(new IoAdapter(app));
  app.enableShutdownHooks();
  return app;
}
