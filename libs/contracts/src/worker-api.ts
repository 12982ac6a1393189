import { z } from 'zod';
import { controlHolderSchema, computerStateSchema } from './domain.js';

// The worker's control API (apps/worker): what apps/api sends to one computer and what it gets back.
// Every body is a strict object: an unknown key is a typo on the caller's side, and a typo must never
// turn into "nothing checked" (e.g. `fense` silently skipping the fence).

/** Display slots; the worker's TEAM_SCREEN_LIMIT narrows this further at run time. */
export const slotSchema = z.number().int().min(0).max(63);

/** A lease fence: the newest one a worker has seen for a slot wins; older ones are refused. */
export const fenceSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Becomes a directory name under the computer's home, so one harmless path segment only. */
export const profileKeySchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, . _ - (max 64)');

// ---------------------------------------------------------------------------------------------- screens

export const screenEnsureRequestSchema = z.strictObject({
  slot: slotSchema,
  profileKey: profileKeySchema,
  /** Optional: the run's execution fence, so a run that boots its screen also claims it. */
  fence: fenceSchema.optional(),
});
export type ScreenEnsureRequest = z.infer<typeof screenEnsureRequestSchema>;

export const screenStopRequestSchema = z.strictObject({ slot: slotSchema });
export type ScreenStopRequest = z.infer<typeof screenStopRequestSchema>;

/** Where a viewer reaches a screen. Loopback ports of the worker's host/pod; no cookie paths, no CDP. */
export const publicScreenEndpointsSchema = z.object({
  display: z.string(),
  vncPort: z.number().int(),
  wsPort: z.number().int(),
});
export type PublicScreenEndpoints = z.infer<typeof publicScreenEndpointsSchema>;

export const screenControlStateSchema = z.object({
  holder: controlHolderSchema,
  /** 0 until the API has set a holder on this worker. */
  fence: fenceSchema,
});
export type ScreenControlState = z.infer<typeof screenControlStateSchema>;

export const screenInfoSchema = z.object({
  slot: slotSchema,
  state: computerStateSchema,
  error: z.string().optional(),
  profileKey: z.string().optional(),
  endpoints: publicScreenEndpointsSchema.optional(),
  /** Newest execution fence seen for the slot; absent before the first fenced call. */
  executionFence: fenceSchema.optional(),
  control: screenControlStateSchema,
});
export type ScreenInfo = z.infer<typeof screenInfoSchema>;

export const screensResponseSchema = z.object({
  computerId: z.string(),
  suspended: z.boolean(),
  screenLimit: z.number().int(),
  screens: z.array(screenInfoSchema),
});
export type ScreensResponse = z.infer<typeof screensResponseSchema>;

export const computerStateResponseSchema = z.object({ computerId: z.string(), suspended: z.boolean() });
export type ComputerStateResponse = z.infer<typeof computerStateResponseSchema>;

// ------------------------------------------------------------------------------------- fences, control

/** Every call that acts on a slot carries the run's execution fence. */
export const fencedEnvelopeSchema = z.strictObject({ slot: slotSchema, fence: fenceSchema });
export type FencedEnvelope = z.infer<typeof fencedEnvelopeSchema>;

/** Takeover (`user`) and release (`agent`). `fence` is the control lease's fence, not the execution fence. */
export const controlChangeRequestSchema = z.strictObject({
  slot: slotSchema,
  holder: controlHolderSchema,
  fence: fenceSchema,
});
export type ControlChangeRequest = z.infer<typeof controlChangeRequestSchema>;

export const controlChangeResponseSchema = z.object({ slot: slotSchema, control: screenControlStateSchema });
export type ControlChangeResponse = z.infer<typeof controlChangeResponseSchema>;

// ------------------------------------------------------------------------------------------- browser

const elementSchema = z.number().int().min(1).max(100_000);
/**
 * Optional on element actions: the `generation` of the observation the element number was read from. When
 * given, a tab observed again since answers STALE_ELEMENT instead of acting on a possibly renumbered page.
 */
const generationSchema = z.number().int().min(1).optional();

export const browserNavigateSchema = fencedEnvelopeSchema.extend({ url: z.url().max(8_192) });
export const browserObserveSchema = fencedEnvelopeSchema.extend({
  /** `always` sends the screenshot even when unchanged (e.g. after the caller trimmed its context). */
  screenshot: z.enum(['auto', 'always']).optional(),
});
export const browserClickSchema = fencedEnvelopeSchema.extend({ element: elementSchema, generation: generationSchema });
export const browserTypeSchema = fencedEnvelopeSchema.extend({
  element: elementSchema,
  generation: generationSchema,
  text: z.string().max(100_000),
  submit: z.boolean().optional(),
  /** Default true: the field's current text is replaced. */
  clear: z.boolean().optional(),
});
export const browserSelectSchema = fencedEnvelopeSchema.extend({
  element: elementSchema,
  generation: generationSchema,
  label: z.string().min(1).max(1_000),
});
export const browserScrollSchema = fencedEnvelopeSchema.extend({
  direction: z.enum(['up', 'down']),
  /** CSS pixels; default most of a window. */
  amount: z.number().int().min(1).max(100_000).optional(),
});
/** Playwright key names, e.g. `Enter`, `Control+A`, `PageDown`. */
export const browserKeySchema = fencedEnvelopeSchema.extend({ keys: z.string().min(1).max(200) });
export const browserBackSchema = fencedEnvelopeSchema;
export const browserForwardSchema = fencedEnvelopeSchema;
export const browserTabsSchema = z.discriminatedUnion('op', [
  fencedEnvelopeSchema.extend({ op: z.literal('list') }),
  fencedEnvelopeSchema.extend({ op: z.literal('switch'), index: z.number().int().min(0) }),
  fencedEnvelopeSchema.extend({ op: z.literal('new'), url: z.url().max(8_192).optional() }),
  fencedEnvelopeSchema.extend({ op: z.literal('close'), index: z.number().int().min(0) }),
]);
export const browserEvalSchema = fencedEnvelopeSchema.extend({ expression: z.string().min(1).max(100_000) });

/** `POST /browser/<name>` takes the body of the same name. */
export const browserActionSchemas = {
  navigate: browserNavigateSchema,
  observe: browserObserveSchema,
  click: browserClickSchema,
  type: browserTypeSchema,
  select: browserSelectSchema,
  scroll: browserScrollSchema,
  key: browserKeySchema,
  back: browserBackSchema,
  forward: browserForwardSchema,
  tabs: browserTabsSchema,
  eval: browserEvalSchema,
} as const;
export type BrowserActionName = keyof typeof browserActionSchemas;
export type BrowserActionRequest<N extends BrowserActionName = BrowserActionName> = z.infer<(typeof browserActionSchemas)[N]>;
export const browserActionNames = Object.keys(browserActionSchemas) as BrowserActionName[];

/**
 * Read-only calls (observe, listing tabs) are still allowed while a person holds control: they send no
 * input and draw nothing on the screen the person is using, and they let the caller watch for the end of
 * a takeover (a login finished, a captcha solved) without taking the mouse back.
 */
export function isReadOnlyBrowserAction(name: BrowserActionName, request: { op?: string }): boolean {
  return name === 'observe' || (name === 'tabs' && request.op === 'list');
}

export const browserTabSchema = z.object({ index: z.number().int(), url: z.string(), title: z.string(), active: z.boolean() });
export type BrowserTab = z.infer<typeof browserTabSchema>;

export const screenshotSchema = z.object({
  mimeType: z.literal('image/png'),
  /** Base64 PNG of the page's viewport, element numbers drawn on this copy only. */
  data: z.string(),
  width: z.number().int(),
  height: z.number().int(),
});
export type Screenshot = z.infer<typeof screenshotSchema>;

export const browserActionResponseSchema = z.object({
  slot: slotSchema,
  action: z.string(),
  url: z.string(),
  title: z.string(),
  /** Observation number: element numbers in `observation` are valid until the next one. */
  generation: z.number().int(),
  /** The page as the model reads it (renderObservation). */
  observation: z.string(),
  /** Present only when the page looks different from the last screenshot sent for this slot. */
  screenshot: screenshotSchema.nullable(),
  /** Action-specific: eval's value, select's chosen label, back/forward's `moved`. */
  result: z.unknown().optional(),
  tabs: z.array(browserTabSchema).optional(),
  control: controlHolderSchema,
});
export type BrowserActionResponse = z.infer<typeof browserActionResponseSchema>;

// --------------------------------------------------------------------------------------------- errors

/**
 * Stable codes of the worker's error bodies and their HTTP statuses. A person holding control is 423
 * (Locked), not 409, so a caller can tell "wait for the release" from "you have been superseded, stop"
 * (STALE_FENCE, 409) by status alone.
 */
export const WORKER_ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  SCREEN_LIMIT: 400,
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  STALE_FENCE: 409,
  PROFILE_LOCKED: 409,
  PROFILE_MISMATCH: 409,
  SCREEN_NOT_RUNNING: 409,
  COMPUTER_UNAVAILABLE: 409,
  STALE_ELEMENT: 409,
  ELEMENT_NOT_FOUND: 422,
  ELEMENT_NOT_INTERACTABLE: 422,
  BROWSER_ACTION_FAILED: 422,
  CONTROL_HELD_BY_USER: 423,
  INTERNAL: 500,
  SCREEN_BOOT_FAILED: 503,
  BROWSER_UNAVAILABLE: 503,
} as const;
export const workerErrorCodeSchema = z.enum(
  Object.keys(WORKER_ERROR_STATUS) as [keyof typeof WORKER_ERROR_STATUS, ...(keyof typeof WORKER_ERROR_STATUS)[]],
);
export type WorkerErrorCode = z.infer<typeof workerErrorCodeSchema>;

export const workerErrorBodySchema = z.object({
  error: z.object({
    code: workerErrorCodeSchema,
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
export type WorkerErrorBody = z.infer<typeof workerErrorBodySchema>;
