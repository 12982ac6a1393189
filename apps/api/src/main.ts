import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConfigError, type ApiEnv } from '@lazyboy/contracts';
import type { LogLevel } from '@nestjs/common';
import { AppModule } from './app.module.js';
import { configureApp } from './bootstrap.js';
import { loadApiConfig } from './config/api-config.js';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

function levelsFrom(least: ApiEnv['LAZYBOY_LOG_LEVEL']): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(least) + 1);
}

async function main(): Promise<void> {
  const config = loadApiConfig();
  const app = configureApp(
    await NestFactory.create(AppModule.forConfig(config), { logger: levelsFrom(config.LAZYBOY_LOG_LEVEL), bodyParser: false }),
  );
  await app.listen(config.LAZYBOY_API_PORT, config.LAZYBOY_API_HOST);
  console.log(`lazyboy-api listening on http://${config.LAZYBOY_API_HOST}:${config.LAZYBOY_API_PORT}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
