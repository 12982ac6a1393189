import { setTimeout as sleep } from 'node:timers/promises';
import {
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
  workerRoutes,
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

  router.serve(workerRoutes.shellRun, async ({ body: request }) => {
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
    return body;
  });

  router.serve(workerRoutes.shellOutput, async ({ body: { slot, fence, commandId } }) => {
    admit(slot, fence, 'shell output', true);
    const body = await mapped((): ShellOutputResponse => {
      fences.assertCurrentExecution(slot, fence);
      return workspace.shell(slot).newOutput(commandId);
    });
    return body;
  });

  // ------------------------------------------------------------------------------------------- files

  router.serve(workerRoutes.filesList, async ({ body: { slot, fence, path } }) => {
    admit(slot, fence, 'files list', true);
    const body = await onQueue(slot, fence, 'files list', true, async (): Promise<FilesListResponse> => ({
      path,
      entries: workspace.files().list(path),
    }));
    return body;
  });

  router.serve(workerRoutes.filesRead, async ({ body: { slot, fence, path, ...options } }) => {
    admit(slot, fence, 'files read', true);
    const body = await onQueue(slot, fence, 'files read', true, async (): Promise<FilesReadResponse> => {
      const { nextOffset, ...read } = workspace.files().read(path, options);
      return { ...read, ...(nextOffset === undefined ? {} : { nextOffset }) };
    });
    return body;
  });

  router.serve(
    workerRoutes.filesWrite,
    async ({ body: { slot, fence, path, content, encoding } }) => {
      admit(slot, fence, 'files write', false);
      const body = await onQueue(slot, fence, 'files write', false, async (): Promise<FilesWriteResponse> =>
        workspace.files().write(path, encoding === 'base64' ? Buffer.from(content, 'base64') : content),
      );
      return body;
    },
    { bodyLimitBytes: WRITE_BODY_LIMIT_BYTES },
  );

  // ------------------------------------------------------------------------------------------ native

  router.serve(workerRoutes.nativeObserve, async ({ body: { slot, fence } }) => {
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
    return body;
  });

  router.serve(workerRoutes.nativeAct, async ({ body: { slot, fence, action } }) => {
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
    return body;
  });

  // -------------------------------------------------------------------------------------------- wait

  /** A controlled pause: not queued (it changes nothing), so it never holds the slot's other calls. */
  router.serve(workerRoutes.wait, async ({ body: { slot, fence, seconds, until } }) => {
    admit(slot, fence, 'wait', true);
    const started = Date.now();
    const deadline = started + Math.round(seconds * 1000);
    let changed = false;
    if (until === 'screen_changes') {
      assertAwake(ctx);
      const first = await mapped(() => screenSignature(ctx.screens, slot));
      while (!changed && Date.now() < deadline) {
        await sleep(Math.min(WAIT_POLL_MS, Math.max(0, deadline - Date.now())));
        fences.assertCurrentExecution(slot, fence);
        const now = await mapped(() => screenSignature(ctx.screens, slot));
        changed = now.signature !== first.signature;
      }
    } else {
      await sleep(Math.max(0, deadline - Date.now()));
    }
    const body: WaitResponse = { waitedMs: Date.now() - started, changed };
    return body;
  });

  // ---------------------------------------------------------------------------------------- recorder

  router.serve(workerRoutes.recorderStart, async ({ body: { slot, fence, goal } }) => {
    admit(slot, fence, 'recorder start', true);
    const body = await onQueue(slot, fence, 'recorder start', true, async (): Promise<RecorderStartResponse> => {
      if (workspace.recorder(slot)?.recording) {
        throw new WorkerHttpError('ALREADY_RECORDING', `slot ${slot} is already recording; stop it first`, { slot });
      }
      assertAwake(ctx);
      const status = ctx.screens.state(slot);
      if (status.state !== 'running') {
        throw new WorkerHttpError('SCREEN_NOT_RUNNING', `the screen of slot ${slot} is ${status.state}; ensure it first`, {
          slot,
        });
      }
      const recorder = await SkillRecorder.overCdp(() => ctx.screens.connectBrowser(slot), {
        frames: displayFrameSource(ctx.screens, slot),
      });
      await recorder.start({ goal });
      workspace.setRecorder(slot, recorder);
      return { slot, recording: true };
    });
    return body;
  });

  router.serve(workerRoutes.recorderStop, async ({ body: { slot, fence } }) => {
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
    return body;
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
  if (ctx.screens.isSuspended) {
    throw new WorkerHttpError('COMPUTER_UNAVAILABLE', `computer ${ctx.computerId} is suspended; wake it first`);
  }
}
