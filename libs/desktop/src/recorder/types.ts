/** One control as the recorder describes it: what a person would call it, never what it contains. */
export interface ElementDescriptor {
  /** button, link, textbox, select, checkbox, radio, … (the vocabulary of `ObservedElement.role`). */
  role: string;
  /** Accessible name: aria-label, label, placeholder, visible text; never a field's value. */
  name: string;
  /** Visible text when it says more than the name (buttons, links); empty for fields. */
  text: string;
  /** A stable-ish selector: `[data-testid="…"]`, `#id`, `input[name="…"]` or `[aria-label="…"]`; empty if none. */
  hint: string;
  tag: string;
  /** The input's type attribute (`password`, `email`, …), empty otherwise. */
  type: string;
  href?: string;
}

interface EventBase {
  /** 1, 2, 3, … in the order the recorder received them. */
  seq: number;
  /** ISO time the recorder received the event. */
  at: string;
  /** Milliseconds since the recording started. */
  offsetMs: number;
  /** Which browser tab (1 = first tab seen), stable for the whole recording. */
  tab: number;
  /** Page (or frame) address and title when it happened; secret-looking query parameters are blanked. */
  url: string;
  title: string;
}

export interface ClickEvent extends EventBase {
  kind: 'click';
  target: ElementDescriptor;
  /** For checkboxes, radios and switches: the state after the click. */
  checked?: boolean;
}

/** A field's final value after a burst of typing (one event per burst, not per key). */
export interface InputEvent extends EventBase {
  kind: 'input';
  target: ElementDescriptor;
  /** The final value, or null when the field is secret. */
  value: string | null;
  /** True when the field is secret (see secret-fields.ts): only the fact that it was filled is recorded. */
  redacted: boolean;
  /** Why it is secret: a password field, or a field whose name or autocomplete says it holds a secret. */
  secret?: 'password' | 'sensitive';
}

export interface SelectEvent extends EventBase {
  kind: 'select';
  target: ElementDescriptor;
  /** The chosen option's visible label (several joined with ", "), or null when the select is secret. */
  label: string | null;
  redacted: boolean;
}

export interface SubmitEvent extends EventBase {
  kind: 'submit';
  form: ElementDescriptor;
  /** The button that submitted it, when there was one. */
  submitter?: ElementDescriptor;
}

export interface NavigationEvent extends EventBase {
  kind: 'navigation';
  /** The page the tab was already showing when recording started. */
  initial: boolean;
  /** A same-document change (history.pushState / replaceState / back / hash). */
  spa: boolean;
}

export interface TabEvent extends EventBase {
  kind: 'tab';
  action: 'opened' | 'closed';
}

export type SemanticEvent = ClickEvent | InputEvent | SelectEvent | SubmitEvent | NavigationEvent | TabEvent;

export type KeyFrameReason = 'start' | 'change' | 'navigation';

export interface KeyFrame {
  /** 0, 1, 2, … in capture order. */
  index: number;
  at: string;
  offsetMs: number;
  reason: KeyFrameReason;
  /** `seq` of the last event received before the frame was taken (0 before any). */
  afterSeq: number;
  /** Signature of the coarse grey thumbnail (see native/screenshot.ts). */
  signature: string;
  /** Mean grey difference to the previous frame, 0…255 (255 for the first). */
  difference: number;
  png: Buffer;
}

export interface Recording {
  goal: string;
  startedAt: string;
  endedAt: string;
  events: SemanticEvent[];
  frames: KeyFrame[];
  /** Frames refused because the cap was reached. */
  framesDropped: number;
}
