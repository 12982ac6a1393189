'use client';

import { useEffect, useEffectEvent, useRef, useState, useSyncExternalStore } from 'react';
import { ComputerViewer, type ComputerApi, type ComputerSnapshot } from './computer-viewer';
import { computers, views } from './endpoints';
import { useRealtimeEvents, useRealtimeRoom } from './realtime';
import { useShell } from './shell-context';
import { newViewConnectionId, viewSocketUrl } from './view-connection-id';

const api: ComputerApi = {
  get: (agentId) => computers.get(agentId),
  boot: computers.boot,
  wake: computers.wake,
  heartbeat: computers.heartbeat,
  viewerTicket: computers.viewerTicket,
  takeover: computers.takeover,
  release: computers.release,
  control: views.control,
  watch: views.watch,
  type: computers.type,
};

/** Before the viewer exists (the first render): nothing known yet. */
const INITIAL: ComputerSnapshot = {
  view: null,
  stage: 'loading',
  control: 'agent',
  driving: false,
  switching: null,
  problem: null,
  actionError: null,
  firstFrame: false,
};
const noSubscription = () => () => undefined;
const initialSnapshot = () => INITIAL;

export interface UseComputer {
  snapshot: ComputerSnapshot;
  /** Null until mounted: the buttons wait for it. */
  viewer: ComputerViewer | null;
}

/**
 * The agent's computer while the panel is open: one ComputerViewer per mount, fed with realtime
 * `computer.updated` events and the page's visibility (a hidden tab stops the heartbeat).
 */
export function useComputer(agentId: string, userId: string, onFirstFrame: () => void): UseComputer {
  const [viewer, setViewer] = useState<ComputerViewer | null>(null);
  // Realtime handlers run outside render: they reach the viewer through a ref, not a stale closure.
  const current = useRef<ComputerViewer | null>(null);
  const firstFrame = useEffectEvent(onFirstFrame);

  useEffect(() => {
    const created = new ComputerViewer({
      agentId,
      userId,
      api,
      socketUrl: viewSocketUrl,
      newConnectionId: newViewConnectionId,
      onFirstFrame: () => firstFrame(),
    });
    current.current = created;
    setViewer(created);
    const visible = () => document.visibilityState === 'visible';
    created.start(visible());
    const onVisibility = () => created.setVisible(visible());
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      created.close();
      if (current.current === created) current.current = null;
    };
  }, [agentId, userId]);

  // computer.updated reaches the workspace room, which the shell holds anyway: resync after its reconnects.
  const { workspace } = useShell();
  useRealtimeRoom({ kind: 'workspace', id: workspace.id }, (initial) => {
    if (!initial) current.current?.resync();
  });
  useRealtimeEvents((event) => {
    if (event.type === 'computer.updated') current.current?.computerUpdated(event.computer);
  });

  const snapshot = useSyncExternalStore(
    viewer?.subscribe ?? noSubscription,
    viewer?.getSnapshot ?? initialSnapshot,
    initialSnapshot,
  );
  return { snapshot, viewer };
}
