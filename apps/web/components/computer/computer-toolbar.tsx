'use client';

import type { ControlState, Switching } from '../../lib/computer-viewer';
import { useT } from '../../lib/i18n';

interface ComputerToolbarProps {
  control: ControlState;
  /** The connection passes input on: pasting makes sense. */
  driving: boolean;
  switching: Switching;
  /** The screen is there to be taken (not off, not failed, the viewer up). */
  canTakeOver: boolean;
  onTakeOver(): void;
  onHandBack(): void;
  onPaste(): void;
  onKeyboard(): void;
}

/** Who drives the screen, and the one thing the person can do about it. */
export function ComputerToolbar({
  control,
  driving,
  switching,
  canTakeOver,
  onTakeOver,
  onHandBack,
  onPaste,
  onKeyboard,
}: ComputerToolbarProps) {
  const t = useT();
  return (
    <div className="computer-toolbar">
      <p className="computer-control" data-testid="computer-control" data-holder={control}>
        {control === 'me' ? (
          <span className="computer-badge">{t.computerYouInControl}</span>
        ) : control === 'other' ? (
          t.computerOtherInControl
        ) : (
          t.computerAgentInControl
        )}
      </p>
      {/* Someone else's takeover is theirs to end: nothing to offer then. */}
      {control !== 'other' && (
        <div className="computer-actions">
          {control === 'agent' ? (
            <button
              type="button"
              className="button button-small button-primary"
              data-testid="takeover-button"
              disabled={!canTakeOver || switching !== null}
              onClick={onTakeOver}
            >
              {t.computerTakeOver}
            </button>
          ) : (
            <>
              <button
                type="button"
                className="button button-small"
                data-testid="paste-button"
                title={t.computerPasteHint}
                disabled={!driving || switching !== null}
                onClick={onPaste}
              >
                {t.computerPaste}
              </button>
              {/* A phone opens its on-screen keyboard only for a text field, never for the screen's canvas. */}
              {driving && (
                <button
                  type="button"
                  className="button button-small"
                  data-testid="keyboard-button"
                  title={t.computerKeyboardHint}
                  disabled={switching !== null}
                  onClick={onKeyboard}
                >
                  {t.computerKeyboard}
                </button>
              )}
              <button
                type="button"
                className="button button-small button-primary"
                data-testid="release-button"
                disabled={switching !== null}
                onClick={onHandBack}
              >
                {t.computerHandBack}
              </button>
            </>
          )}
        </div>
      )}
    </div>
  );
}
