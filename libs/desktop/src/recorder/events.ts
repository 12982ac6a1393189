import type { PagePayload } from './page-recorder.js';
import { namesSecret, scrubUrl } from './secret-fields.js';
import type { ElementDescriptor, SemanticEvent } from './types.js';

/** What every event gets from the recorder rather than from the page. */
export interface EventStamp {
  seq: number;
  at: string;
  offsetMs: number;
  tab: number;
}

const MAX_TEXT = 200;
const MAX_VALUE = 2_000;

/**
 * Turns what a page sent into a SemanticEvent, or null if it is not one. The page is not trusted to have
 * applied the secret rules: the field's type, name and label are checked again here and the value dropped.
 */
export function eventFromPage(raw: unknown, stamp: EventStamp): SemanticEvent | null {
  if (!isRecord(raw)) return null;
  const base = { ...stamp, url: scrubUrl(text(raw['url'], MAX_VALUE)), title: text(raw['title']) };
  const payload = raw as Partial<PagePayload> & Record<string, unknown>;
  switch (payload.kind) {
    case 'click': {
      const target = element(raw['target']);
      if (!target) return null;
      return { kind: 'click', ...base, target, ...(typeof raw['checked'] === 'boolean' ? { checked: raw['checked'] } : {}) };
    }
    case 'input': {
      const target = element(raw['target']);
      if (!target) return null;
      const secret = secretKind(raw['target'], target);
      if (secret) return { kind: 'input', ...base, target, value: null, redacted: true, secret };
      return { kind: 'input', ...base, target, value: text(raw['value'], MAX_VALUE), redacted: false };
    }
    case 'select': {
      const target = element(raw['target']);
      if (!target) return null;
      if (secretKind(raw['target'], target)) return { kind: 'select', ...base, target, label: null, redacted: true };
      return { kind: 'select', ...base, target, label: text(raw['label']), redacted: false };
    }
    case 'submit': {
      const form = element(raw['form']);
      if (!form) return null;
      const submitter = element(raw['submitter']);
      return { kind: 'submit', ...base, form, ...(submitter ? { submitter } : {}) };
    }
    case 'navigation':
      return { kind: 'navigation', ...base, initial: false, spa: raw['spa'] === true };
    default:
      return null;
  }
}

function secretKind(raw: unknown, target: ElementDescriptor): 'password' | 'sensitive' | undefined {
  const claimed = isRecord(raw) ? raw['secret'] : undefined;
  if (claimed === 'password' || target.type === 'password') return 'password';
  if (claimed === 'sensitive' || namesSecret(target.name, target.hint)) return 'sensitive';
  return undefined;
}

function element(raw: unknown): ElementDescriptor | null {
  if (!isRecord(raw)) return null;
  const descriptor: ElementDescriptor = {
    role: text(raw['role']) || 'clickable',
    name: text(raw['name']),
    text: text(raw['text']),
    hint: text(raw['hint']),
    tag: text(raw['tag']),
    type: text(raw['type']),
  };
  if (typeof raw['href'] === 'string') descriptor.href = scrubUrl(text(raw['href'], MAX_VALUE));
  return descriptor;
}

function text(value: unknown, max = MAX_TEXT): string {
  if (typeof value !== 'string') return '';
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
