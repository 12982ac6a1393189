'use client';

import { useEffect, useEffectEvent, useSyncExternalStore } from 'react';
import { io, type Socket } from 'socket.io-client';
import {
  REALTIME_EVENT,
  REALTIME_SUBSCRIBE,
  REALTIME_UNAUTHENTICATED,
  REALTIME_UNSUBSCRIBE,
  roomName,
  type RealtimeAck,
  type RealtimeEvent,
  type RealtimeRoom,
} from '@lazyboy/contracts';
import { notifyUnauthenticated } from './api';

// One socket.io connection for the whole tab (same origin: the web server proxies /socket.io). Components
// share rooms by reference count. The server forgets a socket's rooms when it drops, so every room is joined
// again on each (re)connect, and its owners are told to reload what they may have missed meanwhile.

interface ServerToClient {
  [REALTIME_EVENT]: (event: RealtimeEvent) => void;
}
interface ClientToServer {
  [REALTIME_SUBSCRIBE]: (room: RealtimeRoom, ack: (ack: RealtimeAck) => void) => void;
  [REALTIME_UNSUBSCRIBE]: (room: RealtimeRoom, ack: (ack: RealtimeAck) => void) => void;
}
type AppSocket = Socket<ServerToClient, ClientToServer>;

/** `connecting` only before the first connection; a lost one is `reconnecting` (or `disconnected` for good). */
export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

/** Called once a room is joined: `initial` for its first join, false after a reconnect (events were missed). */
type SyncListener = (initial: boolean) => void;

interface RoomEntry {
  room: RealtimeRoom;
  count: number;
  joinedOnce: boolean;
  listeners: Set<SyncListener>;
}

let socket: AppSocket | null = null;
let state: ConnectionState = 'connecting';
const rooms = new Map<string, RoomEntry>();
const eventListeners = new Set<(event: RealtimeEvent) => void>();
const stateListeners = new Set<() => void>();

function setState(next: ConnectionState): void {
  if (next === state) return;
  state = next;
  for (const listener of stateListeners) listener();
}

function join(s: AppSocket, entry: RoomEntry): void {
  s.emit(REALTIME_SUBSCRIBE, entry.room, (ack) => {
    if (!ack.ok) {
      console.warn(`realtime: cannot join ${roomName(entry.room)}: ${ack.error}`);
      return;
    }
    // The entry may have been released while the ack travelled.
    if (rooms.get(roomName(entry.room)) !== entry) return;
    const initial = !entry.joinedOnce;
    entry.joinedOnce = true;
    for (const listener of entry.listeners) listener(initial);
  });
}

function connection(): AppSocket {
  if (socket) return socket;
  const s: AppSocket = io({ withCredentials: true });
  s.on('connect', () => {
    setState('connected');
    for (const entry of rooms.values()) join(s, entry);
  });
  const lost = () => setState(!s.active ? 'disconnected' : state === 'connecting' ? 'connecting' : 'reconnecting');
  s.on('disconnect', lost);
  s.on('connect_error', (error) => {
    // A refused handshake is not retried by socket.io: the session is gone, so is the page.
    if (error.message === REALTIME_UNAUTHENTICATED) notifyUnauthenticated();
    lost();
  });
  s.on(REALTIME_EVENT, (event) => {
    for (const listener of eventListeners) listener(event);
  });
  socket = s;
  return s;
}

/** Drops the connection (on sign-out): the next one handshakes with whatever cookie exists then. */
export function closeRealtime(): void {
  socket?.disconnect();
  socket = null;
  rooms.clear();
  setState('connecting');
}

/**
 * Keeps the tab subscribed to a room while mounted. `onSynced(initial)` runs after each successful join:
 * reload there what events may have been missed (always after a reconnect).
 */
export function useRealtimeRoom(room: RealtimeRoom | null, onSynced?: SyncListener): void {
  const synced = useEffectEvent((initial: boolean) => onSynced?.(initial));
  const kind = room?.kind;
  const id = room?.id;
  useEffect(() => {
    if (!kind || !id) return;
    const target = { kind, id } as RealtimeRoom;
    const name = roomName(target);
    const s = connection();
    let entry = rooms.get(name);
    if (!entry) {
      entry = { room: target, count: 0, joinedOnce: false, listeners: new Set() };
      rooms.set(name, entry);
      if (s.connected) join(s, entry);
    }
    const listener: SyncListener = (initial) => synced(initial);
    entry.count += 1;
    entry.listeners.add(listener);
    const held = entry;
    return () => {
      held.listeners.delete(listener);
      held.count -= 1;
      // After closeRealtime the name may belong to a newer entry: leave that one alone.
      if (held.count > 0 || rooms.get(name) !== held) return;
      rooms.delete(name);
      if (s.connected) s.emit(REALTIME_UNSUBSCRIBE, target, () => undefined);
    };
  }, [kind, id]);
}

/** Every realtime event of the tab; filter by the ids you care about (events do not say which room carried them). */
export function useRealtimeEvents(handler: (event: RealtimeEvent) => void): void {
  const handle = useEffectEvent(handler);
  useEffect(() => {
    const listener = (event: RealtimeEvent) => handle(event);
    eventListeners.add(listener);
    connection();
    return () => {
      eventListeners.delete(listener);
    };
  }, []);
}

export function useConnectionState(): ConnectionState {
  return useSyncExternalStore(
    (onChange) => {
      stateListeners.add(onChange);
      return () => stateListeners.delete(onChange);
    },
    () => state,
    () => 'connecting',
  );
}
