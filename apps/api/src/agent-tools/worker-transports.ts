import {
  BROWSER_TOOL,
  COMMAND_OUTPUT_TOOL,
  LIST_FILES_TOOL,
  READ_FILE_TOOL,
  SHELL_TOOL,
  WRITE_FILE_TOOL,
  type BrowserTransport,
  type FileTransport,
  type ShellTransport,
} from '@lazyboy/agent';
import {
  browserRoutes,
  workerRoutes,
  type browserActionResponseSchema,
  type BrowserActionBody,
  type BrowserActionName,
  type BrowserActionRequest,
  type WorkerRoute,
} from '@lazyboy/contracts';
import type { z } from 'zod';
import type { ScreenProvider } from './screen-provider.js';
import { callWorker } from './worker-call.js';

/** Beyond a shell command's own wait: the worker's queue and the HTTP round trip. */
const HTTP_SLACK_MS = 30_000;

// The service's transports of the shared computer tools (libs/agent tools/computer): every call goes to
// the run's computer's worker over its contract routes, with the run's screen fence (callWorker).

export function workerBrowserTransport(screens: ScreenProvider): BrowserTransport {
  return {
    act: (action, body, ctx) => {
      // One route per action, each typed on its own; the body was checked against that route's schema.
      const route = browserRoutes[action as BrowserActionName] as WorkerRoute<
        z.ZodType<BrowserActionRequest>,
        typeof browserActionResponseSchema
      >;
      return callWorker(screens, { tool: BROWSER_TOOL, route, body: body as BrowserActionBody }, ctx);
    },
  };
}

export function workerShellTransport(screens: ScreenProvider): ShellTransport {
  return {
    run: ({ command, timeoutMs, blockUntilMs }, ctx) =>
      callWorker(
        screens,
        {
          tool: SHELL_TOOL,
          route: workerRoutes.shellRun,
          body: { command, timeoutMs, blockUntilMs },
          timeoutMs: blockUntilMs + HTTP_SLACK_MS,
        },
        ctx,
      ),
    output: (commandId, ctx) =>
      callWorker(screens, { tool: COMMAND_OUTPUT_TOOL, route: workerRoutes.shellOutput, body: { commandId } }, ctx),
  };
}

export function workerFileTransport(screens: ScreenProvider): FileTransport {
  return {
    read: (body, ctx) => callWorker(screens, { tool: READ_FILE_TOOL, route: workerRoutes.filesRead, body }, ctx),
    write: (body, ctx) => callWorker(screens, { tool: WRITE_FILE_TOOL, route: workerRoutes.filesWrite, body }, ctx),
    list: (body, ctx) => callWorker(screens, { tool: LIST_FILES_TOOL, route: workerRoutes.filesList, body }, ctx),
  };
}
