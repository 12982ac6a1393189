import { jest } from '@jest/globals';
import { ConsoleLogger, type INestApplication } from '@nestjs/common';

/** Everything the process writes to stdout and stderr from now on (the API's log lines); undone by jest.restoreAllMocks. */
export function captureOutput(): { text(): string } {
  const written: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: never[]) => {
      written.push(String(chunk));
      return write(chunk as string, ...rest);
    }) as typeof stream.write);
  }
  return { text: () => written.join('') };
}

/**
 * Every log line of every level printed, as main.ts would. Nest's testing module swallows all but errors
 * (TestingLogger), and `useLogger([...levels])` only changes that logger's levels: a test that searches
 * the log for a secret needs a real ConsoleLogger, installed after the app it watches has started.
 */
export function logEverything(app: INestApplication): void {
  app.useLogger(new ConsoleLogger({ logLevels: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] }));
}
