import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { workerRoutes, type ScreenInfo } from '@lazyboy/contracts';
// The worker's own protocol code (dispatch, bind fence, screen fences, router): only the desktop is in memory.
import { ScreenFences } from '../../../worker/src/fencing/screen-fences.js';
import { SlotQueue } from '../../../worker/src/fencing/slot-queue.js';
import { ControlDispatch } from '../../../worker/src/http/control-dispatch.js';
import { WorkerHttpError } from '../../../worker/src/http/errors.js';
import { Router } from '../../../worker/src/http/router.js';

export interface FakeWorkerOptions {
  computerId: string;
  screenLimit: number;
  /** Displays are numbered base + slot + 1, as on a real worker. */
  displayBase?: number;
}

interface FakeScreen {
  profileKey: string;
}

/**
 * A worker without a desktop, for the tests of leases, fences, takeovers and lost workers: it serves the
 * real control protocol on 127.0.0.1 (apps/worker's ControlDispatch, Router, BindFence and ScreenFences)
 * with screens, control, suspend and wake held in memory. `shellRun` echoes the command's words (`echo a b`
 * prints "a b\n"; anything else prints nothing); `wait` waits the seconds asked, so a test can kill the
 * worker in the middle of a call. Routes of the browser and files answer 404.
 */
export class FakeWorker {
  readonly token = randomBytes(32).toString('base64url');
  /** Every control call it admitted, by path (tests check that a refused call did nothing). */
  readonly admitted: string[] = [];
  private readonly router = new Router();
  private readonly dispatch: ControlDispatch;
  private readonly fences = new ScreenFences();
  private readonly queue = new SlotQueue();
  private readonly screens = new Map<number, FakeScreen>();
  private readonly sockets = new Set<Socket>();
  private readonly server: http.Server;
  private suspended = false;
  private cutOff = false;
  private exitedResolve!: () => void;
  /** Resolves when the worker has stopped serving (stopped or killed). */
  readonly exited = new Promise<void>((resolve) => (this.exitedResolve = resolve));
  alive = false;
  port = 0;

  constructor(private readonly options: FakeWorkerOptions) {
    this.dispatch = new ControlDispatch({
      computerId: options.computerId,
      token: this.token,
      router: this.router,
      log: () => undefined,
    });
    this.addRoutes();
    this.server = http.createServer((req, res) => {
      if (!this.cutOff) void this.dispatch.handle(req, res);
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get bindFence(): number {
    return this.dispatch.bindFence.current;
  }

  get isSuspended(): boolean {
    return this.suspended;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', resolve);
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.alive = true;
  }

  /** A clean stop. */
  async stop(): Promise<void> {
    await this.end();
  }

  /** Dies at once (a crashed process, a deleted pod): open calls are cut off mid-way. */
  async kill(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await this.end();
  }

  /**
   * Cut off (its pod's network gone before its connections could be closed): it answers nothing more, not
   * even the calls it is in the middle of, whose connections stay open until their clients give up.
   */
  vanish(): void {
    if (!this.alive) return;
    this.cutOff = true;
    this.alive = false;
    this.server.close();
    this.exitedResolve();
  }

  private async end(): Promise<void> {
    if (!this.alive) return;
    this.alive = false;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.exitedResolve();
  }

  private info(slot: number): ScreenInfo {
    const screen = this.screens.get(slot);
    const executionFence = this.fences.executionFence(slot);
    return {
      slot,
      state: screen ? 'running' : 'stopped',
      ...(screen
        ? { profileKey: screen.profileKey, endpoints: { display: `:${(this.options.displayBase ?? 0) + slot + 1}` } }
        : {}),
      ...(executionFence === undefined ? {} : { executionFence }),
      control: this.fences.control(slot),
    };
  }

  private assertAwake(): void {
    if (this.suspended) throw new WorkerHttpError('COMPUTER_UNAVAILABLE', 'the computer is suspended; wake it first');
  }

  private addRoutes(): void {
    const { computerId, screenLimit } = this.options;
    const note = (path: string) => this.admitted.push(path);
    this.router
      .serve(workerRoutes.listScreens, async () => ({
        computerId,
        suspended: this.suspended,
        screenLimit,
        screens: [...new Set([...this.screens.keys(), ...this.fences.knownSlots()])]
          .sort((a, b) => a - b)
          .map((slot) => this.info(slot)),
      }))
      .serve(workerRoutes.ensureScreen, async ({ body }) => {
        this.assertAwake();
        if (body.slot >= screenLimit) throw new WorkerHttpError('SCREEN_LIMIT', `slot ${body.slot} is beyond ${screenLimit}`);
        if (body.fence !== undefined) this.fences.admitExecution(body.slot, body.fence);
        note(workerRoutes.ensureScreen.path);
        this.screens.set(body.slot, { profileKey: body.profileKey });
        return this.info(body.slot);
      })
      .serve(workerRoutes.stopScreen, async ({ body }) => {
        note(workerRoutes.stopScreen.path);
        this.screens.delete(body.slot);
        return this.info(body.slot);
      })
      .serve(workerRoutes.setControl, async ({ body }) => {
        const control = this.fences.setControl(body.slot, body.holder, body.fence);
        note(workerRoutes.setControl.path);
        return { slot: body.slot, control };
      })
      .serve(workerRoutes.suspend, async () => {
        note(workerRoutes.suspend.path);
        this.suspended = true;
        return { computerId, suspended: true };
      })
      .serve(workerRoutes.wake, async () => {
        note(workerRoutes.wake.path);
        this.suspended = false;
        return { computerId, suspended: false };
      })
      .serve(workerRoutes.shellRun, async ({ body }) =>
        this.queue.run(body.slot, async () => {
          this.assertAwake();
          this.fences.admitExecution(body.slot, body.fence);
          this.fences.assertAgentMayAct(body.slot, 'shell');
          note(workerRoutes.shellRun.path);
          const echo = /^echo (.*)$/.exec(body.command);
          const outputTail = echo ? `${echo[1]}\n` : '';
          return {
            done: true as const,
            commandId: this.admitted.length,
            exitCode: 0,
            signal: null,
            timedOut: false,
            outputTail,
            bytes: Buffer.byteLength(outputTail),
            durationMs: 0,
          };
        }),
      )
      .serve(workerRoutes.wait, async ({ body }) =>
        this.queue.run(body.slot, async () => {
          this.assertAwake();
          this.fences.admitExecution(body.slot, body.fence);
          note(workerRoutes.wait.path);
          const started = Date.now();
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, body.seconds * 1000);
            void this.exited.then(() => {
              clearTimeout(timer);
              resolve();
            });
          });
          // Cut off: the answer never leaves (the queue's slot stays taken; the worker is gone anyway).
          if (this.cutOff) await new Promise<never>(() => undefined);
          return { waitedMs: Date.now() - started, changed: false };
        }),
      );
  }
}
