import type { AgentComputerView, ComputerView, ScreenView, TakeoverResponse, ViewerTicketResponse } from '@lazyboy/contracts';
import { ApiError } from './api';
import type { PanelToVnc, VncToPanel } from './vnc-messages';

// What the computer panel does while it is open, kept out of React: bring the computer up (boot, wake),
// keep it awake (heartbeat), keep one live VNC connection in the iframe (view ticket, reconnect with
// backoff), and switch that same connection between watching and driving as the control lease changes
// hands. Everything it learns about the computer (API answers, heartbeats, realtime events) goes through
// applyView, which then reconciles the connection with it.

/** Where the panel is in bringing the screen up; `live` once the connection shows the desktop. */
export type Stage = 'loading' | 'booting' | 'waking' | 'connecting' | 'live' | 'offline' | 'error';
/** Who drives the agent's screen, seen from the signed-in person. */
export type ControlState = 'agent' | 'me' | 'other';
export type Switching = 'take' | 'release' | null;

export interface ComputerSnapshot {
  readonly view: AgentComputerView | null;
  readonly stage: Stage;
  readonly control: ControlState;
  /** This connection passes the person's keyboard and pointer on (granted by the view proxy). */
  readonly driving: boolean;
  readonly switching: Switching;
  /** Why the stage is `error` (a failed boot, an agent that is gone); null when the computer itself reports one. */
  readonly problem: unknown;
  /** A take over or hand back that failed, until the next one. */
  readonly actionError: unknown;
  /** The desktop has been seen in this panel (not just a black canvas). */
  readonly firstFrame: boolean;
}

/** The requests the viewer makes: lib/endpoints in the app, fakes in tests. */
export interface ComputerApi {
  get(agentId: string): Promise<AgentComputerView>;
  boot(agentId: string): Promise<AgentComputerView>;
  wake(agentId: string): Promise<AgentComputerView>;
  heartbeat(agentId: string): Promise<AgentComputerView>;
  viewerTicket(agentId: string, mode: 'view' | 'control'): Promise<ViewerTicketResponse>;
  takeover(agentId: string): Promise<TakeoverResponse>;
  release(agentId: string): Promise<TakeoverResponse>;
  control(connectionId: string, ticket: string): Promise<void>;
  watch(connectionId: string): Promise<void>;
  /** Types text for the person holding the screen (what VNC cannot type: Chinese and the like). */
  type(agentId: string, text: string): Promise<unknown>;
}

export interface ComputerViewerOptions {
  agentId: string;
  /** The signed-in person: whether "a person holds control" means them. */
  userId: string;
  api: ComputerApi;
  socketUrl(path: string, connectionId: string): string;
  newConnectionId(): string;
  /** The first desktop picture of this panel (once). */
  onFirstFrame?(): void;
}

export const HEARTBEAT_MS = 2_000;
/**
 * The view proxy lets input through for 30 s per control ticket (short, so that a lease ended elsewhere stops
 * the input soon): renewing well within it survives one miss.
 */
export const CONTROL_RENEW_MS = 12_000;
const CONTROL_RETRY_MS = 5_000;
/** A desktop may really be all black: after this long connected, it counts as shown anyway. */
const BLANK_DESKTOP_MS = 3_000;
/** Tickets live 60 s; one older than this may expire on its way through the proxy. */
const TICKET_FRESH_MS = 45_000;
/** A websocket whose VNC handshake has not completed by then is dialled again. */
const CONNECT_TIMEOUT_MS = 15_000;
const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 10_000;

interface Connection {
  readonly id: string;
  /** The RFB handshake is done (the proxy knows the connection: control can be granted). */
  open: boolean;
  shown: boolean;
  /** Input is let through, both at the proxy and in noVNC. */
  granted: boolean;
}

type Timer = ReturnType<typeof setTimeout>;

const ignore = () => undefined;

/** Failures that waiting will not cure: the agent is gone, or not the person's to see. */
function isFinal(error: unknown): boolean {
  return error instanceof ApiError && (error.code === 'FORBIDDEN' || error.code === 'NOT_FOUND');
}

export class ComputerViewer {
  private readonly listeners = new Set<() => void>();
  private snapshot: ComputerSnapshot;

  private view: AgentComputerView | null = null;
  private powering: 'booting' | 'waking' | null = null;
  private problem: unknown = null;
  private actionError: unknown = null;
  private switching: Switching = null;
  private firstFrame = false;

  private send: ((message: PanelToVnc) => void) | null = null;
  private conn: Connection | null = null;
  private ticket: { value: ViewerTicketResponse; at: number } | null = null;
  /** A power or ticket request is on its way: nothing else is started meanwhile. */
  private busy = false;
  /** The panel boots a stopped computer once by itself (the person opened it to see it); later only on request. */
  private autoBoot = true;
  private attempts = 0;
  /** Bumped around every take over and hand back: a read sent before one ended may describe the old holder. */
  private writes = 0;
  private granting: Promise<void> | null = null;
  private wantTakeover = false;
  private beating = false;
  private visible = false;
  private closed = false;

  private retryTimer: Timer | null = null;
  private renewTimer: Timer | null = null;
  private blankTimer: Timer | null = null;
  /** A connection that never says `connected` (a lost handshake) is given up and dialled again. */
  private connectTimer: Timer | null = null;
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: ComputerViewerOptions) {
    this.snapshot = this.build();
  }

  // ------------------------------------------------------------------------------------ for React

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): ComputerSnapshot => this.snapshot;

  start(visible: boolean): void {
    this.setVisible(visible);
    void this.refresh();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of [this.retryTimer, this.renewTimer, this.blankTimer, this.connectTimer]) if (timer) clearTimeout(timer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    const conn = this.conn;
    this.conn = null;
    // The websocket goes with the iframe anyway; closing the proxy's input window is only tidiness.
    if (conn?.granted) this.options.api.watch(conn.id).catch(ignore);
    this.send?.({ type: 'disconnect' });
    this.send = null;
  }

  /** Heartbeats only while the person can see the page: a hidden tab lets the computer sleep. */
  setVisible(visible: boolean): void {
    if (this.closed || visible === this.visible) return;
    this.visible = visible;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    if (!visible) return;
    void this.beat();
    this.heartbeatTimer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.ensure();
  }

  /** A `computer.updated` realtime event (any computer of the workspace: the viewer picks its own). */
  computerUpdated(computer: ComputerView): void {
    const screen = computer.screens.find((s) => s.agentId === this.options.agentId) ?? null;
    const ours = screen !== null || computer.agentId === this.options.agentId || computer.id === this.view?.computer?.id;
    if (ours && !this.closed) this.applyView({ computer, screen });
  }

  /** Realtime events may have been missed (the socket reconnected): read the computer again. */
  resync(): void {
    void this.refresh();
  }

  // ------------------------------------------------------------------------------------ the iframe

  /** vnc.html loaded (again): it takes messages now, and has no connection. */
  frameReady(send: (message: PanelToVnc) => void): void {
    if (this.closed) return;
    this.send = send;
    if (this.conn) this.connectionLost();
    else this.dial();
  }

  frameGone(): void {
    this.send = null;
  }

  frameMessage(message: VncToPanel): void {
    const conn = this.conn;
    if (this.closed || !conn) return;
    switch (message.type) {
      case 'connected':
        conn.open = true;
        if (this.connectTimer) clearTimeout(this.connectTimer);
        this.connectTimer = null;
        this.blankTimer = setTimeout(() => this.shown(conn, false), BLANK_DESKTOP_MS);
        this.reconcileControl();
        this.emit();
        return;
      case 'frame':
        this.shown(conn, true);
        return;
      case 'disconnected':
        this.connectionLost();
        return;
      case 'type':
        void this.typeForFrame(message.id, message.text);
        return;
      default:
        return;
    }
  }

  /** The frame's `type` request: typed through the API while this person drives, then always answered. */
  private async typeForFrame(id: number, text: string): Promise<void> {
    try {
      if (this.conn?.granted) await this.options.api.type(this.options.agentId, text);
    } catch (error) {
      this.actionError = error;
      this.emit();
    } finally {
      this.send?.({ type: 'typed', id });
    }
  }

  // ------------------------------------------------------------------------------------ the person's actions

  /** The Start / Retry button: boot even a computer someone stopped. */
  startComputer(): void {
    if (this.closed) return;
    this.autoBoot = true;
    this.problem = null;
    this.attempts = 0;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.view) this.ensure();
    else void this.refresh();
    this.emit();
  }

  /** The agent asked for a takeover and the person opened the computer for it: take over once it is known to be free. */
  requestTakeover(): void {
    if (this.closed) return;
    if (this.view === null) this.wantTakeover = true;
    else if (this.controlState() === 'agent') void this.takeOver();
  }

  async takeOver(): Promise<void> {
    if (this.closed || this.switching || this.controlState() !== 'agent') return;
    this.switching = 'take';
    this.actionError = null;
    this.writes += 1;
    this.emit();
    try {
      const { screen } = await this.options.api.takeover(this.options.agentId);
      if (this.closed) return;
      this.writes += 1;
      this.applyScreen(screen);
      // The switch is done once the connection lets input through (later, on connect, if it is not open yet).
      await this.grant();
    } catch (error) {
      if (this.closed) return;
      this.writes += 1;
      this.actionError = error;
    } finally {
      this.switching = null;
      this.emit();
    }
  }

  /** Stops the input first (here and at the proxy), then hands the lease back: the agent's run resumes. */
  async handBack(): Promise<void> {
    if (this.closed || this.switching) return;
    this.switching = 'release';
    this.actionError = null;
    this.writes += 1;
    const conn = this.conn;
    if (conn?.granted) this.stopInput(conn, false);
    this.emit();
    try {
      // A control grant still on its way would reopen input after our watch: let it land first.
      if (this.granting) await this.granting.catch(ignore);
      // A connection the proxy no longer knows lets nothing through either: its answer does not matter.
      if (conn) await this.options.api.watch(conn.id).catch(ignore);
      const { screen } = await this.options.api.release(this.options.agentId);
      if (this.closed) return;
      this.writes += 1;
      this.applyScreen(screen);
    } catch (error) {
      if (this.closed) return;
      this.writes += 1;
      this.actionError = error;
      // Most likely still in control: the answer gives the input back (once `switching` is cleared).
      void this.refresh();
    } finally {
      this.switching = null;
      this.emit();
    }
  }

  /** Puts text on the desktop's clipboard; false when the person does not drive the screen. */
  paste(text: string): boolean {
    if (!this.conn?.granted || !this.send) return false;
    this.send({ type: 'paste', text });
    return true;
  }

  /** Opens the phone's on-screen keyboard over the desktop; false when the person does not drive the screen. */
  openKeyboard(): boolean {
    if (!this.conn?.granted || !this.send) return false;
    this.send({ type: 'keyboard' });
    return true;
  }

  // ------------------------------------------------------------------------------------ the computer

  private async refresh(): Promise<void> {
    const token = this.writes;
    try {
      const view = await this.options.api.get(this.options.agentId);
      if (this.closed) return;
      if (token === this.writes) this.applyView(view);
      else this.ensure();
    } catch (error) {
      if (this.closed) return;
      if (isFinal(error)) {
        this.problem = error;
        this.emit();
      } else {
        this.scheduleRetry();
      }
    }
  }

  private async beat(): Promise<void> {
    if (this.beating || this.closed) return;
    this.beating = true;
    const token = this.writes;
    try {
      const view = await this.options.api.heartbeat(this.options.agentId);
      if (!this.closed && token === this.writes) this.applyView(view);
    } catch {
      // The next beat tries again; a computer that really went away shows through the connection.
    } finally {
      this.beating = false;
    }
  }

  private applyScreen(screen: ScreenView | null): void {
    this.applyView({ computer: this.view?.computer ?? null, screen });
  }

  private applyView(view: AgentComputerView): void {
    this.view = view;
    if (this.wantTakeover) {
      this.wantTakeover = false;
      if (this.controlState() === 'agent') void this.takeOver();
    }
    this.reconcileControl();
    this.ensure();
    this.emit();
  }

  /** Takes the next step towards a live connection, if one is due and nothing is under way. */
  private ensure(): void {
    if (this.closed || this.busy || this.view === null) return;
    const state = this.view.computer?.state ?? 'stopped';
    // A hidden tab lets the computer sleep: waking or booting it waits until the person looks again.
    if (!this.visible && state !== 'running') return;
    switch (state) {
      case 'suspended':
        void this.power('waking');
        return;
      case 'booting':
        // Someone else is booting it: the boot call waits for theirs.
        void this.power('booting');
        return;
      case 'stopped':
      case 'error':
        if (this.conn) this.dropConnection();
        if (this.autoBoot) void this.power('booting');
        return;
      case 'running':
        if (!this.conn && !this.ticket && !this.retryTimer && !isFinal(this.problem)) void this.openConnection();
        return;
    }
  }

  private async power(kind: 'booting' | 'waking'): Promise<void> {
    this.busy = true;
    this.powering = kind;
    this.emit();
    const token = this.writes;
    let view: AgentComputerView;
    try {
      view = await (kind === 'waking'
        ? this.options.api.wake(this.options.agentId)
        : this.options.api.boot(this.options.agentId));
    } catch (error) {
      this.busy = false;
      this.powering = null;
      if (this.closed) return;
      // CONFLICT from wake: it was stopped meanwhile. A lost network or a worker not ready yet: try again later
      // (a boot keeps going on the server without its caller, so the next look may find it running).
      if (error instanceof ApiError && (error.code === 'CONFLICT' || error.code === 'NETWORK' || error.code === 'NOT_READY')) {
        this.scheduleRetry();
      } else {
        if (kind === 'booting') this.autoBoot = false;
        this.problem = error;
      }
      this.emit();
      return;
    }
    this.busy = false;
    this.powering = null;
    if (kind === 'booting') this.autoBoot = false;
    if (this.closed) return;
    if (token === this.writes) this.view = { computer: view.computer, screen: view.screen };
    this.problem = null;
    // Not running after all (stopped again at once, say): look again later instead of calling it in a loop.
    if (view.computer?.state === 'running') this.ensure();
    else this.scheduleRetry();
    this.reconcileControl();
    this.emit();
  }

  // ------------------------------------------------------------------------------------ the connection

  private async openConnection(): Promise<void> {
    this.busy = true;
    this.emit();
    try {
      const ticket = await this.options.api.viewerTicket(this.options.agentId, 'view');
      this.ticket = { value: ticket, at: Date.now() };
    } catch (error) {
      if (this.closed) return;
      // CONFLICT: not running any more. Either way the next look at the computer decides.
      if (isFinal(error)) this.problem = error;
      else this.scheduleRetry();
      this.emit();
      return;
    } finally {
      this.busy = false;
    }
    if (!this.closed) this.dial();
  }

  /** Hands a ticket to the iframe once both are there (the ticket and the page load in parallel). */
  private dial(): void {
    const ticket = this.ticket;
    if (this.closed || !this.send || !ticket || this.conn) return;
    this.ticket = null;
    if (Date.now() - ticket.at > TICKET_FRESH_MS) {
      this.ensure();
      return;
    }
    const conn: Connection = { id: this.options.newConnectionId(), open: false, shown: false, granted: false };
    this.conn = conn;
    this.send({ type: 'connect', url: this.options.socketUrl(ticket.value.path, conn.id) });
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = setTimeout(() => {
      this.connectTimer = null;
      if (this.closed || this.conn !== conn || conn.open) return;
      this.send?.({ type: 'disconnect' });
      this.connectionLost();
    }, CONNECT_TIMEOUT_MS);
    this.emit();
  }

  private shown(conn: Connection, real: boolean): void {
    if (this.conn !== conn) return;
    if (this.blankTimer) clearTimeout(this.blankTimer);
    this.blankTimer = null;
    conn.shown = true;
    this.attempts = 0;
    this.problem = null;
    if (real && !this.firstFrame) {
      this.firstFrame = true;
      this.options.onFirstFrame?.();
    }
    this.emit();
  }

  /** The connection ended by itself (or with the page): connect again after a pause. */
  private connectionLost(): void {
    this.forgetConnection();
    this.scheduleRetry();
    this.emit();
  }

  /** The desktop is gone (stopped): nothing to watch until it is started again. */
  private dropConnection(): void {
    this.forgetConnection();
    this.send?.({ type: 'disconnect' });
  }

  private forgetConnection(): void {
    this.conn = null;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    if (this.blankTimer) clearTimeout(this.blankTimer);
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.blankTimer = null;
    this.renewTimer = null;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const delay = Math.min(RETRY_BASE_MS * 2 ** this.attempts, RETRY_MAX_MS);
    this.attempts += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.refresh();
    }, delay);
  }

  // ------------------------------------------------------------------------------------ control

  private controlState(): ControlState {
    const screen = this.view?.screen;
    if (!screen || screen.controlHolder !== 'user') return 'agent';
    return screen.controlUserId === this.options.userId ? 'me' : 'other';
  }

  /** Makes the connection's input match the lease: let through while the person holds it, stopped otherwise. */
  private reconcileControl(): void {
    const conn = this.conn;
    if (!conn) return;
    if (this.controlState() === 'me') {
      if (conn.open && !conn.granted && !this.granting && !this.renewTimer && this.switching !== 'release') void this.grant();
    } else if (conn.granted) {
      this.stopInput(conn, true);
    }
  }

  private stopInput(conn: Connection, tellProxy: boolean): void {
    conn.granted = false;
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
    this.send?.({ type: 'view-only', viewOnly: true });
    // noVNC in view-only sends nothing, but the page is not what enforces it: the proxy is.
    if (tellProxy) this.options.api.watch(conn.id).catch(ignore);
  }

  /** A fresh control ticket to the proxy: opens (or keeps open for another 30 s) the connection's input. */
  private grant(): Promise<void> {
    if (this.granting) return this.granting;
    const conn = this.conn;
    if (!conn?.open) return Promise.resolve();
    const wanted = () => !this.closed && this.conn === conn && this.controlState() === 'me' && this.switching !== 'release';
    const attempt = async () => {
      try {
        const { ticket } = await this.options.api.viewerTicket(this.options.agentId, 'control');
        if (!wanted()) return;
        await this.options.api.control(conn.id, ticket);
        if (!wanted()) {
          // Lost control while the ticket travelled: close what it opened.
          if (!this.closed && this.conn === conn && this.switching !== 'release') this.options.api.watch(conn.id).catch(ignore);
          return;
        }
        if (!conn.granted) {
          conn.granted = true;
          this.send?.({ type: 'view-only', viewOnly: false });
        }
        this.renewIn(conn, CONTROL_RENEW_MS);
      } catch (error) {
        if (!wanted()) return;
        // FORBIDDEN: the lease is gone (expired, taken back): the computer's state says so shortly.
        if (error instanceof ApiError && error.code === 'FORBIDDEN') void this.refresh();
        // NOT_FOUND: the proxy lost the connection; its `disconnected` follows.
        if (error instanceof ApiError && error.code === 'NOT_FOUND') return;
        this.renewIn(conn, CONTROL_RETRY_MS);
      }
    };
    const granting = attempt().finally(() => {
      this.granting = null;
      this.emit();
    });
    this.granting = granting;
    return granting;
  }

  private renewIn(conn: Connection, ms: number): void {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = setTimeout(() => {
      this.renewTimer = null;
      if (this.conn === conn && this.controlState() === 'me') void this.grant();
    }, ms);
  }

  // ------------------------------------------------------------------------------------ snapshot

  private stage(): Stage {
    if (this.powering) return this.powering;
    // A failed boot matters until the computer runs after all (someone else booted it); a final failure always.
    if (isFinal(this.problem)) return 'error';
    if (this.view === null) return this.problem === null ? 'loading' : 'error';
    switch (this.view.computer?.state ?? 'stopped') {
      case 'stopped':
        return this.problem === null ? 'offline' : 'error';
      case 'error':
        return 'error';
      case 'booting':
        return 'booting';
      case 'suspended':
        return 'waking';
      case 'running':
        return this.conn?.shown ? 'live' : 'connecting';
    }
  }

  private build(): ComputerSnapshot {
    return {
      view: this.view,
      stage: this.stage(),
      control: this.controlState(),
      driving: this.conn?.granted ?? false,
      switching: this.switching,
      problem: this.problem,
      actionError: this.actionError,
      firstFrame: this.firstFrame,
    };
  }

  private emit(): void {
    this.snapshot = this.build();
    for (const listener of this.listeners) listener();
  }
}
