import { setTimeout as sleep } from 'node:timers/promises';
import {
  filesListRequestSchema,
  filesReadRequestSchema,
  filesWriteRequestSchema,
  nativeActRequestSchema,
  nativeObserveRequestSchema,
  recorderStartRequestSchema,
  recorderStopRequestSchema,
  shellOutputRequestSchema,
  shellRunRequestSchema,
  waitRequestSchema,
  type FilesListResponse,
  type FilesReadResponse,
  type FilesWriteResponse,
  type NativeActResponse,
  type NativeObserveResponse,
  type RecorderStartResponse,
  type RecorderStopResponse,
  type ShellOutputResponse,
  type ShellRunResponse,
  type WaitResponse,
} from '@lazyboy/contracts';
import {
  displayFrameSource,
  renderNativeObservation,
  renderRecording,
  screenSignature,
  selectKeyFrames,
  SkillRecorder,
  type NativeAction,
  type ShellResult,
} from '@lazyboy/desktop';
import { WorkerHttpError } from '../http/errors.js';
import { readJsonBody, validate } from '../http/json-body.js';
import type { Router } from '../http/router.js';
import type { WorkerContext } from '../worker-context.js';
import { mapped } from './workspace.js';

const DEFAULT_BLOCK_MS = 30_000;
const WRITE_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
const WAIT_POLL_MS = 500;

/**
 * Shell, files, native windows, waits and the recorder. Same order of checks as the browser routes:
 * validation, execution fence (stale → 409), control holder for calls that change something (a person
 * holding the slot → 423), then the slot's queue with both checked again. Read-only calls (shell output,
 * listing and reading files, observing, waiting) stay allowed while a person holds control, and so does
 * the recorder: recording sends no input, and a person's demonstration is what it records.
 */
export function addWorkspaceRoutes(router: Router, ctx: WorkerContext): void {
  const { fences, queue, workspace } = ctx;

  const admit = (slot: number, fence: number, action: string, readOnly: boolean): void => {
    if (fences.admitExecution(slot, fence)) ctx.screenshots.reset(slot);
    if (!readOnly) fences.assertAgentMayAct(slot, action);
  };
  const onQueue = <T>(slot: number, fence: number, action: string, readOnly: boolean, task: () => Promise<T>): Promise<T> =>
    queue.run(slot, async () => {
      fences.assertCurrentExecution(slot, fence);
      if (!readOnly) fences.assertAgentMayAct(slot, action);
      return mapped(task);
    });

  // ------------------------------------------------------------------------------------------- shell

  router.add('POST', '/shell/run', async ({ req }) => {
    const request = validate(shellRunRequestSchema, await readJsonBody(req));
    const { slot, fence } = request;
    admit(slot, fence, 'shell run', false);
    // Only the start is queued: a long command must not hold the slot's other calls.
    const command = await onQueue(slot, fence, 'shell run', false, async () =>
      workspace.shell(slot).start(request.command, request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    );
    const blockMs = request.blockUntilMs ?? DEFAULT_BLOCK_MS;
    const finished = await mapped(() =>
      Promise.race([command.result, sleep(blockMs, undefined, { ref: false }) as Promise<undefined>]),
    );
    const body: ShellRunResponse = finished ? shellDone(finished) : { done: false, commandId: command.id };
    return { status: 200, body };
  });

  router.add('POST', '/shell/output', async ({ req }) => {
    const { slot, fence, commandId } = validate(shellOutputRequestSchema, await readJsonBody(req));
    admit(slot, fence, 'shell output', true);
    const body = await mapped((): ShellOutputResponse => {
      fences.assertCurrentExecution(slot, fence);
      return workspace.shell(slot).newOutput(commandId);
    });
    return { status: 200, body };
  });

  // ------------------------------------------------------------------------------------------- files

  router.add('POST', '/files/list', async ({ req }) => {
    const { slot, fence, path } = validate(filesListRequestSchema, await readJsonBody(req));
    admit(slot, fence, 'files list', true);
    const body = await onQueue(slot, fence, 'files list', true, async (): Promise<FilesListResponse> => ({
      path,
      entries: workspace.files().list(path),
    }));
    return { status: 200, body };
  });

  router.add('POST', '/files/read', async ({ req }) => {
    const { slot, fence, path, ...options } = validate(filesReadRequestSchema, await readJsonBody(req));
    admit(slot, fence, 'files read', true);
    const body = await onQueue(slot, fence, 'files read', true, async (): Promise<FilesReadResponse> => {
      const { nextOffset, ...read } = workspace.files().read(path, options);
      return { ...read, ...(nextOffset === undefined ? {} : { nextOffset }) };
    });
    return { status: 200, body };
  });

  router.add('POST', '/files/write', async ({ req }) => {
    const { slot, fence, path, content, encoding } = validate(
      filesWriteRequestSchema,
      await readJsonBody(req, WRITE_BODY_LIMIT_BYTES),
    );
    admit(slot, fence, 'files write', false);
    const body = await onQueue(slot, fence, 'files write', false, async (): Promise<FilesWriteResponse> =>
      workspace.files().write(path, encoding === 'base64' ? Buffer.from(content, 'base64') : content),
    );
    return { status: 200, body };
  });

  // ------------------------------------------------------------------------------------------ native

  router.add('POST', '/native/observe', async ({ req }) => {
    const { slot, fence } = validate(nativeObserveRequestSchema, await readJsonBody(req));
    admit(slot, fence, 'native observe', true);
    const body = await onQueue(slot, fence, 'native observe', true, async (): Promise<NativeObserveResponse> => {
      assertAwake(ctx);
      const observed = await workspace.observer.observe(slot);
      return {
        slot,
        generation: observed.generation,
        observation: renderNativeObservation(observed),
        truncated: observed.truncated,
        control: fences.control(slot).holder,
      };
    });
    return { status: 200, body };
  });

  router.add('POST', '/native/act', async ({ req }) => {
    const { slot, fence, action } = validate(nativeActRequestSchema, await readJsonBody(req));
    const name = `native ${action.kind}`;
    admit(slot, fence, name, false);
    const body = await onQueue(slot, fence, name, false, async (): Promise<NativeActResponse> => {
      assertAwake(ctx);
      const done = await workspace.actor.act(slot, action as NativeAction);
      const observed = await workspace.observer.observe(slot);
      return {
        slot,
        via: done.via,
        summary: done.summary,
        generation: observed.generation,
        observation: renderNativeObservation(observed),
        control: fences.control(slot).holder,
      };
    });
    return { status: 200, body };
  });

  // -------------------------------------------------------------------------------------------- wait

  /** A controlled pause: not queued (it changes nothing), so it never holds the slot's other calls. */
  router.add('POST', '/wait', async ({ req }) => {
    const { slot, fence, seconds, until } = validate(waitRequestSchema, await readJsonBody(req));
    admit(slot, fence, 'wait', true);
    const started = Date.now();
    const deadline = started + Math.round(seconds * 1000);
    let changed = false;
    if (until === 'screen_changes') {
      assertAwake(ctx);
      const first = await mapped(() => screenSignature(ctx.displays, slot));
      while (!changed && Date.now() < deadline) {
        await sleep(Math.min(WAIT_POLL_MS, Math.max(0, deadline - Date.now())));
        fences.assertCurrentExecution(slot, fence);
        const now = await mapped(() => screenSignature(ctx.displays, slot));
        changed = now.signature !== first.signature;
      }
    } else {
      await sleep(Math.max(0, deadline - Date.now()));
    }
    const body: WaitResponse = { waitedMs: Date.now() - started, changed };
    return { status: 200, body };
  });

  // ---------------------------------------------------------------------------------------- recorder

  router.add('POST', '/recorder/start', async ({ req }) => {
    const { slot, fence, goal } = validate(recorderStartRequestSchema, await readJsonBody(req));
    admit(slot, fence, 'recorder start', true);
    const body = await onQueue(slot, fence, 'recorder start', true, async (): Promise<RecorderStartResponse> => {
      if (workspace.recorder(slot)?.recording) {
        throw new WorkerHttpError('ALREADY_RECORDING', `slot ${slot} is already recording; stop it first`, { slot });
      }
      assertAwake(ctx);
      const status = ctx.displays.state(slot);
      if (status.state !== 'running') {
        throw new WorkerHttpError('SCREEN_NOT_RUNNING', `the screen of slot ${slot} is ${status.state}; ensure it first`, {
          slot,
        });
      }
      const recorder = await SkillRecorder.overCdp(() => ctx.displays.connectBrowser(slot), {
        frames: displayFrameSource(ctx.displays, slot),
      });
      await recorder.start({ goal });
      workspace.setRecorder(slot, recorder);
      return { slot, recording: true };
    });
    return { status: 200, body };
  });

  router.add('POST', '/recorder/stop', async ({ req }) => {
    const { slot, fence } = validate(recorderStopRequestSchema, await readJsonBody(req));
    admit(slot, fence, 'recorder stop', true);
    const body = await onQueue(slot, fence, 'recorder stop', true, async (): Promise<RecorderStopResponse> => {
      const recorder = workspace.recorder(slot);
      if (!recorder?.recording) throw new WorkerHttpError('NOT_RECORDING', `slot ${slot} is not recording`, { slot });
      workspace.setRecorder(slot, undefined);
      const recording = await recorder.stop();
      return {
        slot,
        text: renderRecording(recording),
        events: recording.events,
        frames: selectKeyFrames(recording, 8).map((frame) => ({
          index: frame.index,
          offsetMs: frame.offsetMs,
          reason: frame.reason,
          mimeType: 'image/png' as const,
          data: frame.png.toString('base64'),
        })),
      };
    });
    return { status: 200, body };
  });
}

function shellDone(result: ShellResult): ShellRunResponse {
  return {
    done: true,
    commandId: result.commandId,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    outputTail: result.outputTail,
    bytes: result.bytes,
    durationMs: result.durationMs,
  };
}

function assertAwake(ctx: WorkerContext): void {
  if (ctx.displays.isSuspended) {
    throw new WorkerHttpError('COMPUTER_UNAVAILABLE', `computer ${ctx.computerId} is suspended; wake it first`);
  }
}
