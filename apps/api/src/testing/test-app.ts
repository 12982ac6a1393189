import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import { AppModule } from '../app.module.js';
import { configureApp } from '../bootstrap.js';
import type { ApiConfig } from '../config/api-config.js';

export interface TestApp {
  app: INestApplication;
  /** http://127.0.0.1:<port> of the listening app (socket.io clients connect here). */
  url: string;
  close(): Promise<void>;
}

/** A provider the test replaces (what the API looks for that a test cannot provide where it is looked for). */
export interface ProviderOverride {
  provide: string | symbol | (abstract new (...args: never[]) => unknown);
  useValue: unknown;
}

/** The whole API, configured like main.ts does, listening on a free loopback port. */
export async function startTestApp(config: ApiConfig, overrides: ProviderOverride[] = []): Promise<TestApp> {
  let builder = Test.createTestingModule({ imports: [AppModule.forConfig(config)] });
  for (const { provide, useValue } of overrides) builder = builder.overrideProvider(provide).useValue(useValue);
  const moduleRef = await builder.compile();
  const app = configureApp(
    moduleRef.createNestApplication<NestExpressApplication>({ logger: ['error', 'warn'], bodyParser: false }),
  );
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
