'use client';

import type { ComputerSnapshot } from '../../lib/computer-viewer';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';

export type OverlayState = 'booting' | 'waking' | 'connecting' | 'handing-over' | 'offline' | 'error';

/** What the overlay says, or null when the screen is live and nobody is switching control. */
function overlayState(snapshot: ComputerSnapshot): OverlayState | null {
  if (snapshot.switching) return 'handing-over';
  switch (snapshot.stage) {
    case 'live':
      return null;
    case 'loading':
    case 'connecting':
      return 'connecting';
    default:
      return snapshot.stage;
  }
}

interface ComputerOverlayProps {
  snapshot: ComputerSnapshot;
  onStart(): void;
}

/**
 * A line over the top-left of the screen while it is not simply live. It sits over the iframe, which
 * keeps showing the last picture underneath (switching control never reloads it).
 */
export function ComputerOverlay({ snapshot, onStart }: ComputerOverlayProps) {
  const t = useT();
  const state = overlayState(snapshot);
  if (!state) return null;

  const text = {
    booting: t.computerBooting,
    waking: t.computerWaking,
    connecting: t.computerConnecting,
    'handing-over': snapshot.switching === 'release' ? t.computerHandingBack : t.computerTakingOver,
    offline: t.computerOffline,
    error: snapshot.problem !== null ? errorText(snapshot.problem, t) : t.computerFailed,
  }[state];
  const waiting = state !== 'offline' && state !== 'error';

  return (
    <div className="computer-overlay" data-testid="computer-overlay" data-state={state} role="status" aria-live="polite">
      {waiting && <span className="busy-dots" aria-hidden="true" />}
      {/* The computer's own error text is technical: there for whoever hovers, not in the sentence. */}
      <span title={state === 'error' ? (snapshot.view?.computer?.errorMessage ?? undefined) : undefined}>{text}</span>
      {!waiting && (
        <button type="button" className="button button-small button-primary" data-testid="computer-start" onClick={onStart}>
          {state === 'offline' ? t.computerStart : t.retry}
        </button>
      )}
    </div>
  );
}
