'use client';

import { useCallback, useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import type { ComputerViewer } from '../../lib/computer-viewer';
import { parseVncMessage, tag, type PanelToVnc } from '../../lib/vnc-messages';

const VNC_PAGE = '/vnc.html';

export interface VncFrameHandle {
  /** Keyboard focus to the desktop (after a paste, to go on typing). */
  focus(): void;
  /**
   * Focuses the frame's hidden text field at once. iOS opens its on-screen keyboard only for a focus made
   * inside the tap's own handler: the `keyboard` message arrives a task later, too late for it.
   */
  focusKeys(): void;
}

interface VncFrameProps {
  viewer: ComputerViewer | null;
  title: string;
  ref?: Ref<VncFrameHandle>;
}

/**
 * The iframe running public/vnc.html, and the postMessage bridge between it and the viewer. It is
 * loaded once per panel and never reloaded: control changes and reconnects are messages, so the last
 * picture stays on screen through them.
 */
export function VncFrame({ viewer, title, ref }: VncFrameProps) {
  const frame = useRef<HTMLIFrameElement>(null);
  const ready = useRef(false);
  const target = useRef<ComputerViewer | null>(viewer);

  useImperativeHandle(
    ref,
    () => ({
      focus: () => frame.current?.focus(),
      // Same origin (public/vnc.html): the frame's document is reachable.
      focusKeys: () => frame.current?.contentDocument?.getElementById('keys')?.focus({ preventScroll: true }),
    }),
    [],
  );

  const send = useCallback((message: PanelToVnc) => {
    frame.current?.contentWindow?.postMessage(tag(message), window.location.origin);
  }, []);

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const onMessage = (event: MessageEvent) => {
      // Same origin, and from this very frame: another window of the site posting alike is not our screen.
      if (event.origin !== window.location.origin || event.source !== element.contentWindow) return;
      const message = parseVncMessage(event.data);
      if (!message) return;
      if (message.type === 'ready') {
        ready.current = true;
        target.current?.frameReady(send);
      } else {
        target.current?.frameMessage(message);
      }
    };
    window.addEventListener('message', onMessage);
    // Loaded only once the listener is in place, so its `ready` cannot be missed (and only once).
    if (!element.getAttribute('src')) element.src = VNC_PAGE;
    return () => window.removeEventListener('message', onMessage);
  }, [send]);

  useEffect(() => {
    target.current = viewer;
    if (viewer && ready.current) viewer.frameReady(send);
    return () => viewer?.frameGone();
  }, [viewer, send]);

  return <iframe ref={frame} className="vnc-frame" title={title} data-testid="vnc-frame" />;
}
