'use client';

import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { computers } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';
import { useComputer } from '../lib/use-computer';
import { ComputerOverlay } from './computer/computer-overlay';
import { ComputerToolbar } from './computer/computer-toolbar';
import { PastePrompt } from './computer/paste-prompt';
import { VncFrame, type VncFrameHandle } from './computer/vnc-frame';

const PASTE_NOTE_MS = 4_000;

export interface ComputerPanelHandle {
  /** Hands the screen back the panel's way: input stopped at the view proxy first, then the lease released. */
  handBack(): Promise<void>;
}

interface ComputerPanelProps {
  agentId: string;
  /** Bumped each time the person opens the computer to answer the agent's takeover request: take over then. */
  takeoverRequest?: number;
  ref?: Ref<ComputerPanelHandle>;
}

/** The agent's desktop, live: watched by default, driven after a takeover, handed back to the agent. */
export function ComputerPanel({ agentId, takeoverRequest = 0, ref }: ComputerPanelProps) {
  const t = useT();
  const { me } = useShell();
  const screen = useRef<VncFrameHandle>(null);
  // Benchmark marks, once per panel open (effects run twice in development).
  const marked = useRef({ open: false, frame: false });
  const [pasteOpen, setPasteOpen] = useState(false);
  const [pasteNote, setPasteNote] = useState(0);

  useEffect(() => {
    if (marked.current.open) return;
    marked.current.open = true;
    performance.mark('lazyboy:panel-open');
  }, []);

  const { snapshot, viewer } = useComputer(agentId, me.user.id, () => {
    if (marked.current.frame) return;
    marked.current.frame = true;
    performance.mark('lazyboy:first-frame');
  });

  useImperativeHandle(
    ref,
    () => ({
      handBack: () => (viewer ? viewer.handBack() : computers.release(agentId).then(() => undefined)),
    }),
    [viewer, agentId],
  );

  useEffect(() => {
    if (takeoverRequest > 0) viewer?.requestTakeover();
  }, [viewer, takeoverRequest]);

  useEffect(() => {
    if (pasteNote === 0) return;
    const timer = setTimeout(() => setPasteNote(0), PASTE_NOTE_MS);
    return () => clearTimeout(timer);
  }, [pasteNote]);

  function sendPaste(text: string) {
    if (!viewer?.paste(text)) return;
    setPasteOpen(false);
    setPasteNote((n) => n + 1);
    screen.current?.focus();
  }

  async function paste() {
    let text: string;
    try {
      text = await navigator.clipboard.readText();
    } catch {
      // Refused, or no clipboard API at all (plain http): the person pastes into a box instead.
      setPasteOpen(true);
      return;
    }
    if (text) sendPaste(text);
    else setPasteOpen(true);
  }

  const { control, driving, switching, stage, firstFrame, actionError } = snapshot;
  const inControl = control === 'me';
  return (
    <div
      className="computer-panel"
      data-testid="computer-panel"
      data-agent-id={agentId}
      data-stage={stage}
      data-control={control}
      data-driving={driving ? 'true' : undefined}
      data-first-frame={firstFrame ? 'true' : undefined}
    >
      <ComputerToolbar
        control={control}
        driving={driving}
        switching={switching}
        canTakeOver={viewer !== null && snapshot.view !== null && stage !== 'offline' && stage !== 'error'}
        onTakeOver={() => void viewer?.takeOver()}
        onHandBack={() => void viewer?.handBack()}
        onPaste={() => void paste()}
        onKeyboard={() => {
          // Both: the message lets the frame check it still drives; the direct focus is what iOS needs.
          if (viewer?.openKeyboard()) screen.current?.focusKeys();
        }}
      />
      {actionError !== null && (
        <p className="form-error computer-message" role="alert" data-testid="computer-error">
          {errorText(actionError, t)}
        </p>
      )}
      {inControl && pasteNote > 0 && (
        <p className="computer-message computer-note" role="status">
          {t.computerPasteSent}
        </p>
      )}
      {inControl && pasteOpen && <PastePrompt onSend={sendPaste} onCancel={() => setPasteOpen(false)} />}
      <div className="computer-screen" data-in-control={inControl ? 'true' : undefined}>
        <VncFrame ref={screen} viewer={viewer} title={t.computerScreenTitle} />
        <ComputerOverlay snapshot={snapshot} onStart={() => viewer?.startComputer()} />
      </div>
    </div>
  );
}
