import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import { AppModule } from '../app.module.js';
import { configureApp } from '../bootstrap.js';
import type { ApiConfig } from '../config/api-config.js';
import type { TestApp } from '../testing/test-app.js';
import { AdminModule } from './admin.module.js';

/**
 * The whole API plus the admin endpoints, listening on a free loopback port. Importing AdminModule next to
 * AppModule stays harmless once AppModule imports it too (Nest keeps one instance of each module).
 */
export async function startAdminTestApp(config: ApiConfig): Promise<TestApp> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forConfig(config), AdminModule] }).compile();
  const app = configureApp(
    moduleRef.createNestApplication<NestExpressApplication>({ logger: ['error', 'warn'], bodyParser: false }),
  );
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
