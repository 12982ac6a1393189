import type { z } from 'zod';

// Text that cannot be stored or passed on as text: Postgres refuses U+0000 in text and JSON columns (a 500
// instead of a clear refusal), argv and C strings end at it, and an unpaired UTF-16 surrogate is no Unicode
// character at all (UTF-8 cannot encode it, jsonb refuses its escape, encoders silently turn it into U+FFFD).
// Every external input is checked for both, in every string and every object key, before its schema runs.

/** One refused part of an input: its dotted path ('' for the value itself) and why. */
export interface InputIssue {
  path: string;
  message: string;
}

export const NUL_CHARACTER_MESSAGE = 'must not contain the NUL character (U+0000)';
export const LONE_SURROGATE_MESSAGE = 'must not contain an unpaired surrogate (not valid Unicode)';

/** The most issues one refusal lists: a body of a million bad strings must not make a million-line answer. */
const MAX_ISSUES = 20;

// A high surrogate not followed by a low one, or a low one not preceded by a high one (no lookbehind: the web
// app's browsers load this module too, older Safari among them).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` is not storable text, or undefined when it is. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_CHARACTER_MESSAGE;
  if (LONE_SURROGATE.test(text)) return LONE_SURROGATE_MESSAGE;
  return undefined;
}

/** `a.0.b` from a zod-style path. */
export function inputPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

interface Node {
  value: unknown;
  key?: string | number;
  parent?: Node;
}

/** Longer paths (a value nested thousands deep) are cut: the answer names the field, it need not spell it. */
const MAX_PATH_LENGTH = 200;

function pathOf(node: Node | undefined): string {
  const keys: (string | number)[] = [];
  for (let at = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
  const path = inputPath(keys.reverse());
  return path.length > MAX_PATH_LENGTH ? `${path.slice(0, MAX_PATH_LENGTH)}…` : path;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  // Query strings parse into null-prototype objects.
  return prototype === Object.prototype || prototype === null;
}

/**
 * Every string (and object key) in `value` that is not storable text, in document order. Walks parsed JSON,
 * query objects and arrays without recursion (a deeply nested body cannot overflow the stack); anything that
 * is not a plain object, array or string (buffers, dates) is left alone.
 */
export function unsafeTextIssues(value: unknown): InputIssue[] {
  const issues: InputIssue[] = [];
  const stack: Node[] = [{ value }];
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const node = stack.pop()!;
    if (typeof node.value === 'string') {
      const problem = textProblem(node.value);
      if (problem) issues.push({ path: pathOf(node), message: problem });
    } else if (Array.isArray(node.value)) {
      for (let i = node.value.length - 1; i >= 0; i--) stack.push({ value: node.value[i], key: i, parent: node });
    } else if (isPlainObject(node.value)) {
      const children: Node[] = [];
      for (const [key, child] of Object.entries(node.value)) {
        const problem = textProblem(key);
        // The key itself cannot be named safely: the issue names the object holding it.
        if (problem) issues.push({ path: pathOf(node), message: `keys ${problem}` });
        else children.push({ value: child, key, parent: node });
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
  return issues.slice(0, MAX_ISSUES);
}

export type InputParseResult<T> = { success: true; data: T } | { success: false; issues: InputIssue[] };

/**
 * Parses an external input (a request body, a query, a socket message): refused when any of its text is not
 * storable (NUL, unpaired surrogates), else by `schema`. Every service's parser goes through here, so the rule
 * holds for every present and future route.
 */
export function safeParseInput<S extends z.ZodType>(schema: S, value: unknown): InputParseResult<z.infer<S>> {
  const unsafe = unsafeTextIssues(value);
  if (unsafe.length > 0) return { success: false, issues: unsafe };
  const result = schema.safeParse(value);
  if (result.success) return { success: true, data: result.data };
  return {
    success: false,
    issues: result.error.issues.map((issue) => ({ path: inputPath(issue.path), message: issue.message })),
  };
}
