import { z } from 'zod';
import { controlHolderSchema, computerStateSchema } from './domain.js';

// The worker's control API (apps/worker): what apps/api sends to one computer and what it gets back.
// Every body is a strict object: an unknown key is a typo on the caller's side, and a typo must never
// turn into "nothing checked" (e.g. `fense` silently skipping the fence).

/** Screen slots; the worker's TEAM_SCREEN_LIMIT narrows this further at run time. */
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

/**
 * What the API may know of a running screen: no ports (there are none: CDP is a pipe, VNC a Unix socket
 * the worker serves at screenVncPath), no cookie paths.
 */
export const publicScreenEndpointsSchema = z.object({
  display: z.string(),
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

// ------------------------------------------------------------------------------------------- binding

/**
 * The header every control call carries: the computer binding's fence (`Computer.bindFence`) the caller
 * read with the endpoint. The worker refuses a lower one (409 STALE_BINDER): an API replica that lost the
 * binding to another cannot act on the worker any more.
 */
export const BIND_FENCE_HEADER = 'x-lazyboy-bind-fence';

/** A new binding of the worker (a boot, or a takeover after its binder's lease ran out). */
export const bindRequestSchema = z.strictObject({ bindFence: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export type BindRequest = z.infer<typeof bindRequestSchema>;
export const bindResponseSchema = z.object({ computerId: z.string(), bindFence: z.number().int().min(0) });
export type BindResponse = z.infer<typeof bindResponseSchema>;

/**
 * A computer's home key (`Computer.homeKey`: `agent-<uuid>`, `team-<uuid>`): a single path segment, so a
 * worker can name the home `<homes>/<homeKey>` with it. No dots at all (no `.`, no `..`), no separators.
 */
export const homeKeySchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'must be letters, digits, - and _ (starting with a letter or digit)');

/**
 * A warm pool worker (started with no computer) becomes a computer's: its id, the control token every later
 * call carries (the pool token opens this route alone), the binding's fence and how many screens it may run.
 * `homeKey` (static pool): which home in the worker's LAZYBOY_HOMES_DIR is the computer's; a pod's home is
 * its volume, so the cluster driver sends none.
 */
export const assignRequestSchema = z.strictObject({
  computerId: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9._-]+$/),
  controlToken: z.string().min(32).max(512),
  bindFence: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  screenLimit: z.number().int().min(1).max(64),
  homeKey: homeKeySchema.optional(),
});
export type AssignRequest = z.infer<typeof assignRequestSchema>;

/** A pool worker let its computer go: it stops the desktop and ends its process once this answer is out. */
export const releaseResponseSchema = z.object({ computerId: z.string(), releasing: z.literal(true) });
export type ReleaseResponse = z.infer<typeof releaseResponseSchema>;

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

/** The most text one person-typing call carries (a paste; the page splits nothing). */
export const PERSON_TYPE_MAX = 10_000;

/** How long the worker may take to type `text` as keys (xdotool, one key at a time): callers' timeouts. */
export function typingTimeMs(text: string): number {
  return 20_000 + [...text].length * 60;
}

/**
 * Text a person who holds the screen types (their paste, their phone keyboard's Chinese): `fence` is their
 * control fence. Into the focused browser tab it is inserted over CDP, anywhere else typed with xdotool:
 * x11vnc cannot type characters the keyboard lacks beyond a handful of spare keys.
 */
export const screenTypeRequestSchema = z.strictObject({
  slot: slotSchema,
  fence: fenceSchema,
  text: z.string().min(1).max(PERSON_TYPE_MAX),
});
export type ScreenTypeRequest = z.infer<typeof screenTypeRequestSchema>;

/** How the text went in: inserted into the focused browser tab, or typed as keys into another window. */
export const typedViaSchema = z.enum(['browser', 'keys']);
export type TypedVia = z.infer<typeof typedViaSchema>;
export const screenTypeResponseSchema = z.object({ slot: slotSchema, via: typedViaSchema });
export type ScreenTypeResponse = z.infer<typeof screenTypeResponseSchema>;

// ------------------------------------------------------------------------------------------- browser

const elementSchema = z.number().int().min(1).max(100_000);
/** CSS pixels: inside an element's box from its top-left corner, or in the window without an element. */
const coordinateSchema = z.number().min(0).max(100_000);
/** Keys held down during a pointer action (Control-click adds a row to a selection). */
export const keyModifierSchema = z.enum(['Alt', 'Control', 'Meta', 'Shift']);
export const pointerButtonSchema = z.enum(['left', 'right', 'middle']);
/** 2: a double click, 3: a triple click. */
export const clickCountSchema = z.union([z.literal(1), z.literal(2), z.literal(3)]);
export type KeyModifier = z.infer<typeof keyModifierSchema>;
export type PointerButton = z.infer<typeof pointerButtonSchema>;
export type ClickCount = z.infer<typeof clickCountSchema>;
export const scrollDirectionSchema = z.enum(['up', 'down', 'left', 'right']);
export type ScrollDirection = z.infer<typeof scrollDirectionSchema>;
const modifiersSchema = z
  .array(keyModifierSchema)
  .max(4)
  .refine((keys) => new Set(keys).size === keys.length, 'a modifier is named twice');

/** A pointer target: `element` (optionally with `x`,`y` inside it) or a window point `x`,`y`. */
const pointerTargetShape = { element: elementSchema.optional(), x: coordinateSchema.optional(), y: coordinateSchema.optional() };
const namesPointerTarget: [
  (body: { element?: number | undefined; x?: number | undefined; y?: number | undefined }) => boolean,
  { message: string; path: string[] },
] = [
  (body) => body.element !== undefined || (body.x !== undefined && body.y !== undefined),
  { message: 'name an element, or both x and y of a point in the window', path: ['element'] },
];

export const browserNavigateSchema = fencedEnvelopeSchema.extend({ url: z.url().max(8_192) });
export const browserObserveSchema = fencedEnvelopeSchema.extend({
  /** `always` sends the screenshot even when unchanged (e.g. after the caller trimmed its context). */
  screenshot: z.enum(['auto', 'always']).optional(),
});
export const browserClickSchema = fencedEnvelopeSchema
  .extend({
    ...pointerTargetShape,
    button: pointerButtonSchema.optional(),
    count: clickCountSchema.optional(),
    modifiers: modifiersSchema.optional(),
  })
  .refine(...namesPointerTarget);
export const browserHoverSchema = fencedEnvelopeSchema.extend(pointerTargetShape).refine(...namesPointerTarget);
/** From the target (`element` / `x`,`y`) to `toElement` (optionally at `toX`,`toY` inside it) or the window point `toX`,`toY`. */
export const browserDragSchema = fencedEnvelopeSchema
  .extend({
    ...pointerTargetShape,
    toElement: elementSchema.optional(),
    toX: coordinateSchema.optional(),
    toY: coordinateSchema.optional(),
    modifiers: modifiersSchema.optional(),
  })
  .refine(...namesPointerTarget)
  .refine((body) => body.toElement !== undefined || (body.toX !== undefined && body.toY !== undefined), {
    message: 'name where the drag ends: toElement, or both toX and toY',
    path: ['toElement'],
  });
export const browserTypeSchema = fencedEnvelopeSchema.extend({
  element: elementSchema,
  text: z.string().max(100_000),
  submit: z.boolean().optional(),
  /** Default true: the field's current text is replaced. */
  clear: z.boolean().optional(),
});
export const browserSelectSchema = fencedEnvelopeSchema.extend({
  element: elementSchema,
  label: z.string().min(1).max(1_000),
});
export const browserScrollSchema = fencedEnvelopeSchema.extend({
  direction: scrollDirectionSchema,
  /** CSS pixels; default most of a window (of the element's, with one). */
  amount: z.number().int().min(1).max(100_000).optional(),
  /** Scrolls this element (a list, a code box, a terms panel) or the box it is in; default: under the pointer. */
  element: elementSchema.optional(),
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
  hover: browserHoverSchema,
  drag: browserDragSchema,
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
 * An action's own fields, without the worker's envelope (slot and fence): what the browser tool asks of
 * whichever browser carries it out (the worker's, or the CLI's in-process one).
 */
export type BrowserActionBody<N extends BrowserActionName = BrowserActionName> =
  BrowserActionRequest<N> extends infer R ? (R extends unknown ? Omit<R, 'slot' | 'fence'> : never) : never;

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
  /**
   * Present only when the page looks different from the last screenshot sent for this slot, and never
   * while a field the vault filled shows its text (the observation then ends with a note saying so).
   */
  screenshot: screenshotSchema.nullable(),
  /** Action-specific: eval's value, select's chosen label, back/forward's `moved`. */
  result: z.unknown().optional(),
  tabs: z.array(browserTabSchema).optional(),
  control: controlHolderSchema,
});
export type BrowserActionResponse = z.infer<typeof browserActionResponseSchema>;

// -------------------------------------------------------------------------------------- saved logins

/** The longest password, username or TOTP secret the vault keeps (a 100 KB "password" is a 400). */
export const VAULT_SECRET_MAX = 1_024;

/** An account's site as the vault keeps it: an http(s) origin (scheme, host, port), nothing else. */
export const loginSiteOriginSchema = z
  .url({ protocol: /^https?$/ })
  .max(2_048)
  // zod runs this check even when the URL check failed: a value that is no URL must be refused, not thrown on.
  .refine((value) => isOrigin(value), 'an origin: scheme, host and port only');

function isOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/**
 * `POST /vault/fill`: the worker fills a saved login into the slot's active tab, in the same turn of the
 * slot's queue that checks the page is on the account's site (no page can navigate between the check and
 * the typing), and submits it. The values go from here into the page and nowhere else: the worker neither
 * logs nor answers them. `password`: username (when the form has a field for it) and password, a form whose
 * password comes on a second page included; `totp`: the one-time code into the 2FA form.
 */
export const loginFillRequestSchema = z.discriminatedUnion('step', [
  fencedEnvelopeSchema.extend({
    step: z.literal('password'),
    site: loginSiteOriginSchema,
    username: z.string().min(1).max(VAULT_SECRET_MAX),
    password: z.string().min(1).max(VAULT_SECRET_MAX),
  }),
  fencedEnvelopeSchema.extend({
    step: z.literal('totp'),
    site: loginSiteOriginSchema,
    code: z.string().regex(/^\d{6,10}$/, 'six to ten digits'),
  }),
]);
export type LoginFillRequest = z.infer<typeof loginFillRequestSchema>;

/**
 * Why a fill was not done, for words the model can act on: the page is on another site (or served over
 * http for an https account); no login form (no password field, nor a username field leading to one);
 * no field for the one-time code.
 */
export const loginFillRefusalSchema = z.enum(['wrong_site', 'no_login_form', 'no_code_field']);
export type LoginFillRefusal = z.infer<typeof loginFillRefusalSchema>;

/** Which fields a fill typed into: their kinds, never their values. */
export const loginFieldKindSchema = z.enum(['username', 'password', 'code']);
export type LoginFieldKind = z.infer<typeof loginFieldKindSchema>;

export const loginFillResponseSchema = z.object({
  slot: slotSchema,
  outcome: z.enum(['submitted', 'refused']),
  refusal: loginFillRefusalSchema.optional(),
  /** The active tab after the fill (or at the refusal); a value typed into it (a GET form) reads `[saved secret]`. */
  url: z.string(),
  title: z.string(),
  /** The page's site (registrable domain, or host), to say which site a wrong_site refusal saw. */
  pageSite: z.string(),
  /**
   * `['username']` alone when the page asked for no password after the username was submitted (an
   * unknown username, a sign-in by code or by another site's single sign-on): `pageError` and `url` say which.
   */
  filled: z.array(loginFieldKindSchema),
  /** 2 when the username and the password were on separate pages (or steps of one page); 0 for a refusal. */
  pages: z.number().int().min(0),
  /** An error the page shows after the submit (an alert, an invalid field's message), cut to 300 characters. */
  pageError: z.string().max(300).nullable(),
  /** The page now asks for a one-time code (a field for it is on the page). */
  asksForCode: z.boolean(),
});
export type LoginFillResponse = z.infer<typeof loginFillResponseSchema>;

// ------------------------------------------------------------------------------------ shell, files

/** `POST /shell/run`: `bash -c` in the computer's sandbox, as its user, in its home. */
export const shellRunRequestSchema = fencedEnvelopeSchema.extend({
  command: z.string().min(1).max(100_000),
  /** Deadline of the command; the whole sandbox is killed when it passes. Default 30 s, at most 24 h. */
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(24 * 3600 * 1000)
    .optional(),
  /** How long the call waits for the command before answering `done: false` (it keeps running). Default 30 s. */
  blockUntilMs: z.number().int().min(0).max(600_000).optional(),
});
export type ShellRunRequest = z.infer<typeof shellRunRequestSchema>;

export const shellRunResponseSchema = z.discriminatedUnion('done', [
  z.object({
    done: z.literal(true),
    commandId: z.number().int(),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    timedOut: z.boolean(),
    outputTail: z.string(),
    bytes: z.number().int(),
    durationMs: z.number().int(),
  }),
  z.object({ done: z.literal(false), commandId: z.number().int() }),
]);
export type ShellRunResponse = z.infer<typeof shellRunResponseSchema>;

/** `POST /shell/output`: what a command wrote since the last read. Read-only. */
export const shellOutputRequestSchema = fencedEnvelopeSchema.extend({ commandId: z.number().int().min(1) });
export type ShellOutputRequest = z.infer<typeof shellOutputRequestSchema>;

export const shellOutputResponseSchema = z.object({
  commandId: z.number().int(),
  text: z.string(),
  skippedBytes: z.number().int(),
  bytes: z.number().int(),
  running: z.boolean(),
  /** Present once the command has ended. */
  exitCode: z.number().int().nullable().optional(),
  timedOut: z.boolean().optional(),
});
export type ShellOutputResponse = z.infer<typeof shellOutputResponseSchema>;

/** Relative to the computer's home (or absolute inside it). */
const homePathSchema = z.string().min(1).max(4_096);

export const filesListRequestSchema = fencedEnvelopeSchema.extend({ path: homePathSchema });
export type FilesListRequest = z.infer<typeof filesListRequestSchema>;

export const homeEntrySchema = z.object({
  name: z.string(),
  path: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'other']),
  size: z.number(),
  modifiedAt: z.string(),
});
export const filesListResponseSchema = z.object({ path: z.string(), entries: z.array(homeEntrySchema) });
export type FilesListResponse = z.infer<typeof filesListResponseSchema>;

export const filesReadRequestSchema = fencedEnvelopeSchema.extend({
  path: homePathSchema,
  offset: z.number().int().min(0).optional(),
  length: z.number().int().min(0).optional(),
  encoding: z.enum(['utf8', 'base64']).optional(),
});
export type FilesReadRequest = z.infer<typeof filesReadRequestSchema>;

export const filesReadResponseSchema = z.object({
  path: z.string(),
  content: z.string(),
  encoding: z.enum(['utf8', 'base64']),
  offset: z.number().int(),
  bytes: z.number().int(),
  size: z.number().int(),
  nextOffset: z.number().int().optional(),
});
export type FilesReadResponse = z.infer<typeof filesReadResponseSchema>;

export const filesWriteRequestSchema = fencedEnvelopeSchema.extend({
  path: homePathSchema,
  content: z.string().max(12 * 1024 * 1024),
  /** How `content` is given; default utf8. */
  encoding: z.enum(['utf8', 'base64']).optional(),
});
export type FilesWriteRequest = z.infer<typeof filesWriteRequestSchema>;

export const filesWriteResponseSchema = z.object({ path: z.string(), bytes: z.number().int() });
export type FilesWriteResponse = z.infer<typeof filesWriteResponseSchema>;

// ------------------------------------------------------------------------------------------- native

const mouseButtonSchema = z.enum(['left', 'middle', 'right']);
const pointSchema = z.strictObject({ x: z.number().int(), y: z.number().int() });
const nativeGenerationSchema = z.number().int().min(1).optional();

/** Mirrors `NativeAction` of @lazyboy/desktop. */
export const nativeActionSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('click'),
    element: elementSchema,
    generation: nativeGenerationSchema,
    button: mouseButtonSchema.optional(),
    double: z.boolean().optional(),
  }),
  z.strictObject({
    kind: z.literal('type'),
    element: elementSchema.optional(),
    generation: nativeGenerationSchema,
    text: z.string().min(1).max(5_000),
    clear: z.boolean().optional(),
    submit: z.boolean().optional(),
  }),
  z.strictObject({
    kind: z.literal('key'),
    keys: z.string().min(1).max(200),
    element: elementSchema.optional(),
    generation: nativeGenerationSchema,
  }),
  z.strictObject({
    kind: z.literal('click_at'),
    x: z.number().int(),
    y: z.number().int(),
    button: mouseButtonSchema.optional(),
    double: z.boolean().optional(),
  }),
  z.strictObject({ kind: z.literal('drag'), from: pointSchema, to: pointSchema, button: mouseButtonSchema.optional() }),
]);
export type NativeActionRequestBody = z.infer<typeof nativeActionSchema>;

export const nativeObserveRequestSchema = fencedEnvelopeSchema;
export const nativeActRequestSchema = fencedEnvelopeSchema.extend({ action: nativeActionSchema });
export type NativeActRequest = z.infer<typeof nativeActRequestSchema>;

export const nativeObserveResponseSchema = z.object({
  slot: slotSchema,
  generation: z.number().int(),
  /** The windows and numbered elements as the model reads them (renderNativeObservation). */
  observation: z.string(),
  truncated: z.boolean(),
  control: controlHolderSchema,
});
export type NativeObserveResponse = z.infer<typeof nativeObserveResponseSchema>;

export const nativeActResponseSchema = z.object({
  slot: slotSchema,
  via: z.enum(['atspi', 'xdotool']),
  summary: z.string(),
  generation: z.number().int(),
  observation: z.string(),
  control: controlHolderSchema,
});
export type NativeActResponse = z.infer<typeof nativeActResponseSchema>;

// ------------------------------------------------------------------------------------ wait, recorder

export const waitRequestSchema = fencedEnvelopeSchema.extend({
  seconds: z.number().min(0).max(60),
  until: z.enum(['screen_changes']).optional(),
});
export type WaitRequest = z.infer<typeof waitRequestSchema>;

export const waitResponseSchema = z.object({ waitedMs: z.number().int(), changed: z.boolean() });
export type WaitResponse = z.infer<typeof waitResponseSchema>;

export const recorderStartRequestSchema = fencedEnvelopeSchema.extend({ goal: z.string().min(1).max(2_000) });
export type RecorderStartRequest = z.infer<typeof recorderStartRequestSchema>;
export const recorderStopRequestSchema = fencedEnvelopeSchema;

export const recorderStartResponseSchema = z.object({ slot: slotSchema, recording: z.literal(true) });
export type RecorderStartResponse = z.infer<typeof recorderStartResponseSchema>;

export const recorderStopResponseSchema = z.object({
  slot: slotSchema,
  /** The demonstration as the model reads it (renderRecording). */
  text: z.string(),
  events: z.array(z.unknown()),
  frames: z.array(
    z.object({
      index: z.number().int(),
      offsetMs: z.number(),
      reason: z.string(),
      mimeType: z.literal('image/png'),
      data: z.string(),
    }),
  ),
});
export type RecorderStopResponse = z.infer<typeof recorderStopResponseSchema>;

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
  STALE_BINDER: 409,
  PROFILE_LOCKED: 409,
  PROFILE_MISMATCH: 409,
  SCREEN_NOT_RUNNING: 409,
  COMPUTER_UNAVAILABLE: 409,
  ALREADY_ASSIGNED: 409,
  NOT_ASSIGNED: 409,
  /** Release is for a pool worker (its process ends, a fresh one takes its place); a computer's worker is stopped. */
  NOT_A_POOL_WORKER: 409,
  /** An assignment named a home, but this pool worker has no LAZYBOY_HOMES_DIR to find it in. */
  NO_HOMES_DIR: 409,
  STALE_ELEMENT: 409,
  ELEMENT_NOT_FOUND: 422,
  ELEMENT_NOT_INTERACTABLE: 422,
  BROWSER_ACTION_FAILED: 422,
  /** The page did not answer within the action's deadline; it was stopped and the tab serves the next action. */
  PAGE_UNRESPONSIVE: 422,
  CONTROL_HELD_BY_USER: 423,
  PATH_OUTSIDE_HOME: 403,
  FILE_NOT_FOUND: 404,
  UNKNOWN_COMMAND: 404,
  NOT_A_FILE: 422,
  NOT_A_DIRECTORY: 422,
  FILE_TOO_LARGE: 413,
  FILE_NOT_READABLE: 403,
  USE_BROWSER_TOOL: 422,
  NATIVE_ACTION_FAILED: 422,
  ALREADY_RECORDING: 409,
  NOT_RECORDING: 409,
  SANDBOX_UNAVAILABLE: 503,
  NATIVE_UNAVAILABLE: 503,
  RECORDER_UNAVAILABLE: 503,
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
