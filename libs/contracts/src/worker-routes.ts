// Every route of a worker's control API, once: its method and path beside the schemas of what it takes and
// answers. The worker registers its handlers from this table and the API's WorkerClient calls through it,
// so no other file names a worker path (test/docs/worker-routes.spec.ts fails if one does).
import { z } from 'zod';
import {
  assignRequestSchema,
  bindRequestSchema,
  bindResponseSchema,
  browserActionNames,
  browserActionResponseSchema,
  browserActionSchemas,
  computerStateResponseSchema,
  controlChangeRequestSchema,
  controlChangeResponseSchema,
  filesListRequestSchema,
  filesListResponseSchema,
  filesReadRequestSchema,
  filesReadResponseSchema,
  filesWriteRequestSchema,
  filesWriteResponseSchema,
  loginFillRequestSchema,
  loginFillResponseSchema,
  nativeActRequestSchema,
  nativeActResponseSchema,
  nativeObserveRequestSchema,
  nativeObserveResponseSchema,
  recorderStartRequestSchema,
  recorderStartResponseSchema,
  recorderStopRequestSchema,
  recorderStopResponseSchema,
  releaseResponseSchema,
  screenEnsureRequestSchema,
  screenInfoSchema,
  screensResponseSchema,
  screenStopRequestSchema,
  screenTypeRequestSchema,
  screenTypeResponseSchema,
  shellOutputRequestSchema,
  shellOutputResponseSchema,
  shellRunRequestSchema,
  shellRunResponseSchema,
  waitRequestSchema,
  waitResponseSchema,
  type BrowserActionName,
} from './worker-api.js';

export interface WorkerRoute<Request extends z.ZodType = z.ZodType, Response extends z.ZodType = z.ZodType> {
  readonly method: 'GET' | 'POST';
  readonly path: `/${string}`;
  /** The body; a GET takes none (an empty object is what its caller passes). */
  readonly request: Request;
  readonly response: Response;
}

export type WorkerRequest<R extends WorkerRoute> = z.input<R['request']>;
export type WorkerResponse<R extends WorkerRoute> = z.infer<R['response']>;

const noBody = z.strictObject({});

function get<Response extends z.ZodType>(path: `/${string}`, response: Response): WorkerRoute<typeof noBody, Response> {
  return { method: 'GET', path, request: noBody, response };
}

function post<Request extends z.ZodType, Response extends z.ZodType>(
  path: `/${string}`,
  request: Request,
  response: Response,
): WorkerRoute<Request, Response> {
  return { method: 'POST', path, request, response };
}

/** The worker's liveness answer; the only route that needs no control token. */
export const workerHealthSchema = z.object({
  status: z.literal('ok'),
  /** Null for a warm pool worker no computer has been assigned yet. */
  computerId: z.string().nullable(),
  uptimeSeconds: z.number().int().min(0),
});
export type WorkerHealth = z.infer<typeof workerHealthSchema>;

export const workerRoutes = {
  health: get('/healthz', workerHealthSchema),
  // The computer and its screens.
  listScreens: get('/screens', screensResponseSchema),
  ensureScreen: post('/screens/ensure', screenEnsureRequestSchema, screenInfoSchema),
  stopScreen: post('/screens/stop', screenStopRequestSchema, screenInfoSchema),
  setControl: post('/screens/control', controlChangeRequestSchema, controlChangeResponseSchema),
  personType: post('/screens/type', screenTypeRequestSchema, screenTypeResponseSchema),
  suspend: post('/computer/suspend', noBody, computerStateResponseSchema),
  wake: post('/computer/wake', noBody, computerStateResponseSchema),
  /** The binding's new fence; from then on calls carrying a lower one are refused (STALE_BINDER). */
  bind: post('/computer/bind', bindRequestSchema, bindResponseSchema),
  /** A warm pool worker becomes a computer's (pool token); a computer's worker answers ALREADY_ASSIGNED. */
  assign: post('/pool/assign', assignRequestSchema, bindResponseSchema),
  /**
   * A pool worker lets its computer go (control token, bind fence): it answers, stops the desktop and ends
   * its process, so that its container's restart brings a fresh warm worker up. A computer's worker refuses
   * it (NOT_A_POOL_WORKER).
   */
  release: post('/computer/release', noBody, releaseResponseSchema),
  // An agent's tools, fenced by the run's execution lease.
  shellRun: post('/shell/run', shellRunRequestSchema, shellRunResponseSchema),
  shellOutput: post('/shell/output', shellOutputRequestSchema, shellOutputResponseSchema),
  filesList: post('/files/list', filesListRequestSchema, filesListResponseSchema),
  filesRead: post('/files/read', filesReadRequestSchema, filesReadResponseSchema),
  filesWrite: post('/files/write', filesWriteRequestSchema, filesWriteResponseSchema),
  nativeObserve: post('/native/observe', nativeObserveRequestSchema, nativeObserveResponseSchema),
  nativeAct: post('/native/act', nativeActRequestSchema, nativeActResponseSchema),
  /** A saved login typed into the active tab (the vault's use_saved_login), after the site check. */
  loginFill: post('/vault/fill', loginFillRequestSchema, loginFillResponseSchema),
  wait: post('/wait', waitRequestSchema, waitResponseSchema),
  recorderStart: post('/recorder/start', recorderStartRequestSchema, recorderStartResponseSchema),
  recorderStop: post('/recorder/stop', recorderStopRequestSchema, recorderStopResponseSchema),
} as const;
export type WorkerRouteName = keyof typeof workerRoutes;

type BrowserRoutes = {
  [N in BrowserActionName]: WorkerRoute<(typeof browserActionSchemas)[N], typeof browserActionResponseSchema>;
};

/** One route per browser action (`/browser/<action>`), all answering a BrowserActionResponse. */
export const browserRoutes = Object.fromEntries(
  browserActionNames.map((name) => [name, post(`/browser/${name}`, browserActionSchemas[name], browserActionResponseSchema)]),
) as BrowserRoutes;

/** The live view's websocket (binary RFB, not JSON, so not a WorkerRoute); only the web server's /view proxy opens it. */
export function screenVncPath(slot: number): string {
  return `/screens/${slot}/vnc`;
}

/** The slot a request path asks the live view of, or undefined when it is not a view path. */
export function slotOfScreenVncPath(pathname: string): number | undefined {
  const match = /^\/screens\/(\d{1,2})\/vnc$/.exec(pathname);
  return match ? Number(match[1]) : undefined;
}

/** Every JSON route, for the worker to serve and for tests to check that it serves exactly these. */
export function allWorkerRoutes(): WorkerRoute[] {
  return [...Object.values(workerRoutes), ...Object.values(browserRoutes)];
}
