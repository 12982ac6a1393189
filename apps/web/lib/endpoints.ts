import type {
  AdminComputerListView,
  AdminComputerView,
  AdminRunListView,
  AdminUserListView,
  AdminUserView,
  AdminWorkspaceListView,
  AgentComputerView,
  AgentVaultView,
  CreateVaultAccountRequest,
  UpdateVaultAccountRequest,
  VaultAccountView,
  VaultImportResult,
  VaultRevealView,
  VaultTotpCodeView,
  AgentView,
  CreateAgentRequest,
  CreateInvitationRequest,
  CreatedInvitationView,
  InvitationListView,
  InvitationPreviewView,
  InstanceSettingsView,
  LocalModelServerListView,
  LoginRequest,
  MemberListView,
  MemberView,
  MembershipRole,
  ModelListQuery,
  ModelListView,
  ModelTestRequest,
  ModelTestView,
  MeView,
  MessageView,
  PostMessageRequest,
  PostMessageResponse,
  RunEventView,
  RunStatus,
  RunView,
  ChatView,
  SignupPolicyView,
  SignupRequest,
  PersonTypeResponse,
  TakeoverResponse,
  UpdateAdminUserRequest,
  UpdateAgentRequest,
  UpdateInstanceSettingsRequest,
  UpdateWorkspaceRequest,
  ViewerTicketRequest,
  ViewerTicketResponse,
  WorkspaceSummaryView,
  WorkspaceView,
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
  /** Through an invitation (its token in the body) the account joins its workspace; else open sign-up only. */
  signup: (body: SignupRequest) => apiRequest<MeView>('/api/auth/signup', { method: 'POST', body }),
  /** Who may sign up here: invite, open or closed. */
  signupPolicy: (signal?: AbortSignal) => apiRequest<SignupPolicyView>('/api/auth/signup', { signal }),
  logout: () => apiRequest<void>('/api/auth/logout', { method: 'POST' }),
};

export const workspaces = {
  get: (workspaceId: string, signal?: AbortSignal) => apiRequest<WorkspaceView>(`/api/workspaces/${id(workspaceId)}`, { signal }),
  /** Admins and owners. */
  update: (workspaceId: string, body: UpdateWorkspaceRequest) =>
    apiRequest<WorkspaceView>(`/api/workspaces/${id(workspaceId)}`, { method: 'PATCH', body }),
  members: (workspaceId: string, signal?: AbortSignal) =>
    apiRequest<MemberListView>(`/api/workspaces/${id(workspaceId)}/members`, { signal }),
  /** CONFLICT last_owner when it would leave the workspace without an owner. */
  changeRole: (workspaceId: string, userId: string, role: MembershipRole) =>
    apiRequest<MemberView>(`/api/workspaces/${id(workspaceId)}/members/${id(userId)}`, { method: 'PATCH', body: { role } }),
  /** The caller's own id leaves the workspace. */
  removeMember: (workspaceId: string, userId: string) =>
    apiRequest<void>(`/api/workspaces/${id(workspaceId)}/members/${id(userId)}`, { method: 'DELETE' }),
};

/** A workspace's model checks (owners and admins); its settings change through workspaces.update. */
export const workspaceModel = {
  /** The models an endpoint lists; the saved settings' endpoint without a query. A failure is in the answer. */
  models: (workspaceId: string, endpoint: ModelListQuery, signal?: AbortSignal) =>
    apiRequest<ModelListView>(
      `/api/workspaces/${id(workspaceId)}/model/models${query({ provider: endpoint.provider, baseUrl: endpoint.baseUrl })}`,
      { signal },
    ),
  /** One small real request; the provider's own error text is in the answer. */
  test: (workspaceId: string, body: ModelTestRequest) =>
    apiRequest<ModelTestView>(`/api/workspaces/${id(workspaceId)}/model/test`, { method: 'POST', body }),
  localServers: (workspaceId: string, signal?: AbortSignal) =>
    apiRequest<LocalModelServerListView>(`/api/workspaces/${id(workspaceId)}/model/local-servers`, { signal }),
};

export const invitations = {
  /** Admins and owners: pending ones first, then the latest ended ones; never their tokens. */
  list: (workspaceId: string, signal?: AbortSignal) =>
    apiRequest<InvitationListView>(`/api/workspaces/${id(workspaceId)}/invitations`, { signal }),
  /** The answer holds the link's token: the only time it is shown. */
  create: (workspaceId: string, body: CreateInvitationRequest) =>
    apiRequest<CreatedInvitationView>(`/api/workspaces/${id(workspaceId)}/invitations`, { method: 'POST', body }),
  revoke: (workspaceId: string, invitationId: string) =>
    apiRequest<void>(`/api/workspaces/${id(workspaceId)}/invitations/${id(invitationId)}`, { method: 'DELETE' }),
  /** Anyone holding the link; NOT_FOUND for a token that never was one. */
  preview: (token: string, signal?: AbortSignal) =>
    apiRequest<InvitationPreviewView>(`/api/invitations/${id(token)}`, { signal }),
  /** The signed-in person joins (the invitation must be for their account's email). */
  accept: (token: string) => apiRequest<WorkspaceSummaryView>(`/api/invitations/${id(token)}/accept`, { method: 'POST' }),
};

export const agents = {
  list: (workspaceId: string, signal?: AbortSignal) =>
    apiRequest<AgentView[]>(`/api/workspaces/${id(workspaceId)}/agents`, { signal }),
  get: (agentId: string, signal?: AbortSignal) => apiRequest<AgentView>(`/api/agents/${id(agentId)}`, { signal }),
  create: (workspaceId: string, body: CreateAgentRequest) =>
    apiRequest<AgentView>(`/api/workspaces/${id(workspaceId)}/agents`, { method: 'POST', body }),
  update: (agentId: string, body: UpdateAgentRequest) =>
    apiRequest<AgentView>(`/api/agents/${id(agentId)}`, { method: 'PATCH', body }),
  remove: (agentId: string) => apiRequest<void>(`/api/agents/${id(agentId)}`, { method: 'DELETE' }),
};

/** An agent's computer: its power, the viewer's heartbeat and tickets, and the control lease (takeover). */
export const computers = {
  get: (agentId: string, signal?: AbortSignal) =>
    apiRequest<AgentComputerView>(`/api/agents/${id(agentId)}/computer`, { signal }),
  /** Answers once the computer runs (a few seconds); also wakes a suspended one. */
  boot: (agentId: string) => apiRequest<AgentComputerView>(`/api/agents/${id(agentId)}/computer/boot`, { method: 'POST' }),
  /** CONFLICT when the computer is stopped or failed: boot it instead. */
  wake: (agentId: string) => apiRequest<AgentComputerView>(`/api/agents/${id(agentId)}/computer/wake`, { method: 'POST' }),
  /** Every 2 s while the panel shows the screen: keeps the computer awake and renews the caller's takeover. */
  heartbeat: (agentId: string) =>
    apiRequest<AgentComputerView>(`/api/agents/${id(agentId)}/computer/heartbeat`, { method: 'POST' }),
  /** Single use, valid 60 s; `control` is refused (FORBIDDEN) unless the caller holds control. */
  viewerTicket: (agentId: string, mode: ViewerTicketRequest['mode']) =>
    apiRequest<ViewerTicketResponse>(`/api/agents/${id(agentId)}/computer/viewer-ticket`, { method: 'POST', body: { mode } }),
  takeover: (agentId: string) => apiRequest<TakeoverResponse>(`/api/agents/${id(agentId)}/computer/takeover`, { method: 'POST' }),
  /** Hands the screen back after a takeover; a run parked in waiting_takeover continues. */
  release: (agentId: string) => apiRequest<TakeoverResponse>(`/api/agents/${id(agentId)}/computer/release`, { method: 'POST' }),
  /** Only while the caller holds control (FORBIDDEN otherwise): into the focused browser tab, or as keys. */
  type: (agentId: string, text: string) =>
    apiRequest<PersonTypeResponse>(`/api/agents/${id(agentId)}/computer/type`, { method: 'POST', body: { text } }),
};

/**
 * The web server's view proxy (not the API): one live VNC connection, named by the id the page chose,
 * switched between watching and driving without reconnecting. Errors come back in the API's shape.
 */
export const views = {
  /** Lets the connection's input through for 30 s; `ticket` is a fresh control ticket. */
  control: (connectionId: string, ticket: string) =>
    apiRequest<void>(`/view/${id(connectionId)}/control`, { method: 'POST', body: { ticket } }),
  watch: (connectionId: string) => apiRequest<void>(`/view/${id(connectionId)}/watch`, { method: 'POST' }),
};

export const chats = {
  list: (agentId: string, signal?: AbortSignal) => apiRequest<ChatView[]>(`/api/agents/${id(agentId)}/chats`, { signal }),
  create: (agentId: string, title?: string) =>
    apiRequest<ChatView>(`/api/agents/${id(agentId)}/chats`, { method: 'POST', body: title ? { title } : {} }),
  rename: (chatId: string, title: string) =>
    apiRequest<ChatView>(`/api/chats/${id(chatId)}`, { method: 'PATCH', body: { title } }),
  remove: (chatId: string) => apiRequest<void>(`/api/chats/${id(chatId)}`, { method: 'DELETE' }),
  clear: (chatId: string) => apiRequest<{ deleted: number }>(`/api/chats/${id(chatId)}/clear`, { method: 'POST' }),
  messages: (chatId: string, page: { limit?: number; before?: string }, signal?: AbortSignal) =>
    apiRequest<MessagePage>(`/api/chats/${id(chatId)}/messages${query({ limit: page.limit ?? 50, before: page.before })}`, {
      signal,
    }),
  post: (chatId: string, body: PostMessageRequest) =>
    apiRequest<PostMessageResponse>(`/api/chats/${id(chatId)}/messages`, { method: 'POST', body }),
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

/**
 * Saved logins. Passwords and TOTP secrets go in and never come back, but through `reveal` (owners, with
 * their own password again). Shared logins of a workspace are written and granted by its owners.
 */
export const vault = {
  ofAgent: (agentId: string, signal?: AbortSignal) => apiRequest<AgentVaultView>(`/api/agents/${id(agentId)}/vault`, { signal }),
  /** CONFLICT vault_account_exists when the site and username are saved already. */
  createForAgent: (agentId: string, body: CreateVaultAccountRequest) =>
    apiRequest<VaultAccountView>(`/api/agents/${id(agentId)}/vault`, { method: 'POST', body }),
  importForAgent: (agentId: string, csv: string) =>
    apiRequest<VaultImportResult>(`/api/agents/${id(agentId)}/vault/import`, { method: 'POST', body: { csv } }),
  shared: (workspaceId: string, signal?: AbortSignal) =>
    apiRequest<VaultAccountView[]>(`/api/workspaces/${id(workspaceId)}/vault`, { signal }),
  createShared: (workspaceId: string, body: CreateVaultAccountRequest) =>
    apiRequest<VaultAccountView>(`/api/workspaces/${id(workspaceId)}/vault`, { method: 'POST', body }),
  importShared: (workspaceId: string, csv: string) =>
    apiRequest<VaultImportResult>(`/api/workspaces/${id(workspaceId)}/vault/import`, { method: 'POST', body: { csv } }),
  update: (accountId: string, body: UpdateVaultAccountRequest) =>
    apiRequest<VaultAccountView>(`/api/vault/${id(accountId)}`, { method: 'PATCH', body }),
  remove: (accountId: string) => apiRequest<void>(`/api/vault/${id(accountId)}`, { method: 'DELETE' }),
  setGrants: (accountId: string, agentIds: string[]) =>
    apiRequest<VaultAccountView>(`/api/vault/${id(accountId)}/agents`, { method: 'PUT', body: { agentIds } }),
  /** FORBIDDEN password_mismatch for a wrong password; RATE_LIMITED after five in 15 minutes. */
  reveal: (accountId: string, password: string) =>
    apiRequest<VaultRevealView>(`/api/vault/${id(accountId)}/reveal`, { method: 'POST', body: { password } }),
  code: (accountId: string) => apiRequest<VaultTotpCodeView>(`/api/vault/${id(accountId)}/totp`),
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
  settings: (signal?: AbortSignal) => apiRequest<InstanceSettingsView>('/api/admin/settings', { signal }),
  updateSettings: (body: UpdateInstanceSettingsRequest) =>
    apiRequest<InstanceSettingsView>('/api/admin/settings', { method: 'PATCH', body }),
};
