import type {
  AdminComputerListView,
  AdminComputerView,
  AdminRunListView,
  AdminUserListView,
  AdminUserView,
  AdminWorkspaceListView,
  BotView,
  CreateBotRequest,
  LoginRequest,
  MeView,
  MessageView,
  PostMessageRequest,
  PostMessageResponse,
  RunEventView,
  RunStatus,
  RunView,
  SessionView,
  SignupRequest,
  TakeoverResponse,
  UpdateAdminUserRequest,
  UpdateBotRequest,
} from '@lazyboy/contracts';
import { apiRequest } from './api';

// One typed function per API route the web app calls. Paths and wrappings follow the API controllers:
// some lists come back bare, others as { items }.

const id = encodeURIComponent;

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export interface MessagePage {
  items: MessageView[];
  nextBefore: string | null;
}

export const auth = {
  me: (signal?: AbortSignal) => apiRequest<MeView>('/api/auth/me', { signal }),
  login: (body: LoginRequest) => apiRequest<MeView>('/api/auth/login', { method: 'POST', body }),
  signup: (body: SignupRequest) => apiRequest<MeView>('/api/auth/signup', { method: 'POST', body }),
  logout: () => apiRequest<void>('/api/auth/logout', { method: 'POST' }),
};

export const bots = {
  list: (workspaceId: string, signal?: AbortSignal) =>
    apiRequest<BotView[]>(`/api/workspaces/${id(workspaceId)}/bots`, { signal }),
  get: (botId: string, signal?: AbortSignal) => apiRequest<BotView>(`/api/bots/${id(botId)}`, { signal }),
  create: (workspaceId: string, body: CreateBotRequest) =>
    apiRequest<BotView>(`/api/workspaces/${id(workspaceId)}/bots`, { method: 'POST', body }),
  update: (botId: string, body: UpdateBotRequest) => apiRequest<BotView>(`/api/bots/${id(botId)}`, { method: 'PATCH', body }),
  remove: (botId: string) => apiRequest<void>(`/api/bots/${id(botId)}`, { method: 'DELETE' }),
  /** Hands the screen back after a takeover; a run parked in waiting_takeover continues. */
  releaseComputer: (botId: string) => apiRequest<TakeoverResponse>(`/api/bots/${id(botId)}/computer/release`, { method: 'POST' }),
};

export const sessions = {
  list: (botId: string, signal?: AbortSignal) => apiRequest<SessionView[]>(`/api/bots/${id(botId)}/sessions`, { signal }),
  create: (botId: string, title?: string) =>
    apiRequest<SessionView>(`/api/bots/${id(botId)}/sessions`, { method: 'POST', body: title ? { title } : {} }),
  rename: (sessionId: string, title: string) =>
    apiRequest<SessionView>(`/api/sessions/${id(sessionId)}`, { method: 'PATCH', body: { title } }),
  remove: (sessionId: string) => apiRequest<void>(`/api/sessions/${id(sessionId)}`, { method: 'DELETE' }),
  clear: (sessionId: string) => apiRequest<{ deleted: number }>(`/api/sessions/${id(sessionId)}/clear`, { method: 'POST' }),
  messages: (sessionId: string, page: { limit?: number; before?: string }, signal?: AbortSignal) =>
    apiRequest<MessagePage>(`/api/sessions/${id(sessionId)}/messages${query({ limit: page.limit ?? 50, before: page.before })}`, {
      signal,
    }),
  post: (sessionId: string, body: PostMessageRequest) =>
    apiRequest<PostMessageResponse>(`/api/sessions/${id(sessionId)}/messages`, { method: 'POST', body }),
};

export const runs = {
  get: (runId: string, signal?: AbortSignal) => apiRequest<RunView>(`/api/runs/${id(runId)}`, { signal }),
  cancel: (runId: string) => apiRequest<RunView>(`/api/runs/${id(runId)}/cancel`, { method: 'POST' }),
  answer: (runId: string, text: string) =>
    apiRequest<RunView>(`/api/runs/${id(runId)}/answer`, { method: 'POST', body: { text } }),
  /** The API's query parameter is `after` (the last seq already seen). */
  events: (runId: string, after: number, limit: number, signal?: AbortSignal) =>
    apiRequest<RunEventView[]>(`/api/runs/${id(runId)}/events${query({ after, limit })}`, { signal }),
  activeOfWorkspace: (workspaceId: string, signal?: AbortSignal) =>
    apiRequest<{ items: RunView[] }>(`/api/workspaces/${id(workspaceId)}/runs/active`, { signal }),
};

export const admin = {
  users: (before?: string, signal?: AbortSignal) =>
    apiRequest<AdminUserListView>(`/api/admin/users${query({ before, limit: 100 })}`, { signal }),
  updateUser: (userId: string, body: UpdateAdminUserRequest) =>
    apiRequest<AdminUserView>(`/api/admin/users/${id(userId)}`, { method: 'PATCH', body }),
  workspaces: (before?: string, signal?: AbortSignal) =>
    apiRequest<AdminWorkspaceListView>(`/api/admin/workspaces${query({ before, limit: 100 })}`, { signal }),
  computers: (signal?: AbortSignal) => apiRequest<AdminComputerListView>('/api/admin/computers', { signal }),
  stopComputer: (computerId: string) =>
    apiRequest<AdminComputerView>(`/api/admin/computers/${id(computerId)}/stop`, { method: 'POST' }),
  runs: (status: RunStatus | undefined, signal?: AbortSignal) =>
    apiRequest<AdminRunListView>(`/api/admin/runs${query({ status, limit: 200 })}`, { signal }),
  stopRun: (runId: string) => apiRequest<RunView>(`/api/admin/runs/${id(runId)}/stop`, { method: 'POST' }),
};
