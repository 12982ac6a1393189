import { randomUUID } from 'node:crypto';
import type { MeView } from '@lazyboy/contracts';
import { sleep } from './waits.js';

export interface TestUser {
  email: string;
  password: string;
  displayName: string;
  /** `lazyboy_session=…`, ready for a Cookie request header. */
  cookie: string;
  userId: string;
  /** The personal workspace sign-up created (the user owns it), or the inviting one for a sign-up by invitation. */
  workspaceId: string;
}

export interface SignUpOverrides {
  email?: string;
  password?: string;
  displayName?: string;
  /** Sign up through this invitation (then `email` must be the invitation's). */
  invitationToken?: string;
}

/**
 * Signs up a fresh user over HTTP (POST /api/auth/signup) with a unique email and returns their session
 * cookie and personal workspace: an authenticated caller for any suite. Without an invitation that needs
 * the `open` sign-up policy, which testApiConfig sets.
 *
 *   const alice = await signUp(app.url);
 *   await request(app.url).get('/api/workspaces').set('Cookie', alice.cookie);
 */
export async function signUp(baseUrl: string, overrides: SignUpOverrides = {}): Promise<TestUser> {
  const id = randomUUID();
  const email = overrides.email ?? `user-${id}@example.test`;
  const password = overrides.password ?? `password-${id}`;
  const displayName = overrides.displayName ?? `User ${id.slice(0, 8)}`;
  const res = await fetch(new URL('/api/auth/signup', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email,
      password,
      displayName,
      ...(overrides.invitationToken ? { invitationToken: overrides.invitationToken } : {}),
    }),
  });
  if (res.status !== 201) throw new Error(`sign-up of ${email} answered ${res.status}: ${await res.text()}`);
  const cookie = sessionCookieOf(res.headers.getSetCookie());
  if (!cookie) throw new Error('sign-up set no session cookie');
  const me = (await res.json()) as MeView;
  const workspace = me.workspaces[0];
  if (!workspace) throw new Error('sign-up created no workspace');
  return { email: me.user.email, password, displayName, cookie, userId: me.user.id, workspaceId: workspace.id };
}

/** Invites `email` to a workspace as `cookie`'s user (an owner or admin there); returns the invitation's token. */
export async function createInvitation(
  baseUrl: string,
  cookie: string,
  workspaceId: string,
  email: string,
  role: 'owner' | 'admin' | 'member' = 'member',
): Promise<string> {
  const res = await fetch(new URL(`/api/workspaces/${workspaceId}/invitations`, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ email, role }),
  });
  if (res.status !== 201) throw new Error(`invitation of ${email} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** Signs an existing user in again (a second session); returns the new cookie. */
export async function logIn(baseUrl: string, email: string, password: string): Promise<string> {
  const res = await fetch(new URL('/api/auth/login', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login of ${email} answered ${res.status}: ${await res.text()}`);
  const cookie = sessionCookieOf(res.headers.getSetCookie());
  if (!cookie) throw new Error('login set no session cookie');
  return cookie;
}

/**
 * Signs in the first admin (LAZYBOY_APP_TOKEN). The API makes that account at start-up, but when the first
 * try fails (a busy database) it tries again in the background, so a refusal right after start is waited out.
 */
export async function logInFirstAdmin(baseUrl: string, email: string, token: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await logIn(baseUrl, email, token);
    } catch (error) {
      if (Date.now() > deadline || !String(error).includes('answered 401')) throw error;
      await sleep(500);
    }
  }
}

/** Creates an API token for a signed-in user (optionally limited to one workspace); returns the secret. */
export async function createApiToken(baseUrl: string, cookie: string, workspaceId?: string): Promise<string> {
  const res = await fetch(new URL('/api/auth/tokens', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: `test token ${randomUUID().slice(0, 8)}`, ...(workspaceId ? { workspaceId } : {}) }),
  });
  if (res.status !== 201) throw new Error(`token creation answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** `{ Authorization: 'Bearer …' }` for an API token. */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/** A person's JSON calls to the API: `call` throws on an unexpected status with the answer's text. */
export interface PersonCalls {
  call<T>(method: string, route: string, body?: unknown, expectStatus?: number): Promise<T>;
  /** The answer as it came, for status and header checks. */
  raw(method: string, route: string, body?: unknown): Promise<Response>;
}

/**
 * Calls to the API as one signed-in person (their session cookie), or as nobody with `cookie` null.
 *
 *   const alice = asPerson(app.url, (await signUp(app.url)).cookie);
 *   const agents = await alice.call<AgentView[]>('GET', `/api/workspaces/${id}/agents`);
 */
export function asPerson(apiUrl: string, cookie: string | null): PersonCalls {
  const raw = (method: string, route: string, body?: unknown) =>
    fetch(new URL(route, apiUrl), {
      method,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    raw,
    async call<T>(method: string, route: string, body?: unknown, expectStatus?: number): Promise<T> {
      const res = await raw(method, route, body);
      const text = await res.text();
      const ok = expectStatus === undefined ? res.ok : res.status === expectStatus;
      if (!ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
  };
}

/** The `name=value` part of the session cookie among Set-Cookie headers. */
export function sessionCookieOf(setCookies: readonly string[]): string | undefined {
  return setCookies
    .map((header) => header.split(';')[0]!.trim())
    .find((pair) => pair.startsWith('lazyboy_session=') && pair.length > 16);
}
