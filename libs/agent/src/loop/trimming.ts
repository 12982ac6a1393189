import type { ChatMessage, ContentPart } from '@lazyboy/contracts';

export interface TrimOptions {
  /** Rough budget for the request's history, in characters (≈ 4 per token). */
  maxChars: number;
  /** Tool results are first cut down to this many characters (head and tail kept). */
  toolResultChars?: number;
  /** The most recent messages are never dropped, whatever the budget. */
  keepRecent?: number;
}

const IMAGE_CHARS = 1_000;

/**
 * Fits a history into a request budget, on a copy: the stored history is never changed. Long tool
 * results shrink first (oldest first); then the oldest tool exchanges (an assistant message with its
 * calls and their results, as one unit so that every call keeps its paired result) give way to a short
 * note. User messages, which carry the user's constraints, are always kept.
 */
export function trimForRequest(history: readonly ChatMessage[], options: TrimOptions): ChatMessage[] {
  const keepRecent = options.keepRecent ?? 12;
  const resultChars = options.toolResultChars ?? 4_000;
  let total = 0;
  for (const m of history) total += sizeOf(m);
  if (total <= options.maxChars) return [...history];

  const out = [...history];
  const recentFrom = Math.max(0, out.length - keepRecent);
  // 1. Shrink long tool results outside the recent window, oldest first.
  for (let i = 0; i < recentFrom && total > options.maxChars; i++) {
    const m = out[i]!;
    if (m.role !== 'tool' || typeof m.content !== 'string' || m.content.length <= resultChars) continue;
    const shrunk = { ...m, content: shorten(m.content, resultChars) };
    total -= m.content.length - shrunk.content.length;
    out[i] = shrunk;
  }
  if (total <= options.maxChars) return out;

  // 2. Drop the oldest tool exchanges (and assistant commentary) outside the recent window.
  const keep = new Array<boolean>(out.length).fill(true);
  let dropped = 0;
  for (let i = 0; i < recentFrom && total > options.maxChars; i++) {
    const m = out[i]!;
    if (m.role !== 'assistant') continue;
    let end = i + 1;
    while (end < out.length && out[end]!.role === 'tool') end++;
    if (end > recentFrom) break; // the exchange reaches into the recent window: keep it whole
    for (let j = i; j < end; j++) {
      keep[j] = false;
      total -= sizeOf(out[j]!);
    }
    dropped += end - i;
    i = end - 1;
  }
  if (dropped === 0) return out;
  const result: ChatMessage[] = [];
  let noted = false;
  for (let i = 0; i < out.length; i++) {
    if (keep[i]) {
      result.push(out[i]!);
    } else if (!noted) {
      noted = true;
      result.push({ role: 'user', content: `[${dropped} earlier messages of tool work were left out to fit the context]` });
    }
  }
  return result;
}

function shorten(text: string, limit: number): string {
  const head = Math.floor(limit * 0.6);
  const tail = limit - head;
  return `${text.slice(0, head)}\n[… ${text.length - limit} characters trimmed …]\n${text.slice(-tail)}`;
}

function sizeOf(message: ChatMessage): number {
  let size = 16;
  const content = 'content' in message ? message.content : null;
  if (typeof content === 'string') size += content.length;
  else if (Array.isArray(content))
    for (const part of content as ContentPart[]) size += part.type === 'text' ? part.text.length : IMAGE_CHARS;
  if (message.role === 'assistant') for (const call of message.toolCalls ?? []) size += call.name.length + call.arguments.length;
  return size;
}
