import { Injectable } from '@nestjs/common';
import { API_TOKEN_PREFIX, type ApiTokenView, type CreateApiTokenRequest, type CreatedApiTokenView } from '@lazyboy/contracts';
import { AuditService } from '../audit/audit.service.js';
import { forbidden, notFound } from '../common/api-error.js';
import { WorkspaceAccess } from '../tenancy/workspace-access.js';
import { ApiTokensRepository, type ApiTokenRow } from './api-tokens.repository.js';
import type { Principal } from './principal.js';
import { randomSecret, sha256Hex } from './secrets.js';

/** `lbt_` and the first characters of the secret: enough to tell tokens apart in a list, useless to sign in. */
const SHOWN_PREFIX_LENGTH = API_TOKEN_PREFIX.length + 6;
const DAY_MS = 86_400_000;

/** API tokens for the CLI and automation: shown once, stored as SHA-256 only. */
@Injectable()
export class ApiTokensService {
  constructor(
    private readonly tokens: ApiTokensRepository,
    private readonly access: WorkspaceAccess,
    private readonly audit: AuditService,
  ) {}

  async create(principal: Principal, request: CreateApiTokenRequest, ip?: string): Promise<CreatedApiTokenView> {
    // A workspace-limited token may only mint tokens limited to the same workspace: no widening.
    if (principal.tokenWorkspaceId && request.workspaceId !== principal.tokenWorkspaceId) {
      throw forbidden('this API token may only create tokens for its own workspace');
    }
    if (request.workspaceId) await this.access.require(principal, request.workspaceId);
    const token = `${API_TOKEN_PREFIX}${randomSecret()}`;
    const row = await this.tokens.create({
      userId: principal.userId,
      workspaceId: request.workspaceId ?? null,
      name: request.name,
      prefix: token.slice(0, SHOWN_PREFIX_LENGTH),
      tokenHash: sha256Hex(token),
      expiresAt: request.expiresInDays ? new Date(Date.now() + request.expiresInDays * DAY_MS) : null,
    });
    await this.audit.record({
      workspaceId: row.workspaceId,
      actorUserId: principal.userId,
      action: 'api_token.create',
      targetType: 'api_token',
      targetId: row.id,
      details: { name: row.name, prefix: row.prefix },
      ip,
    });
    return { ...toView(row), token };
  }

  async list(principal: Principal): Promise<ApiTokenView[]> {
    // A workspace-limited token sees (and revokes) only the tokens of its own workspace.
    return (await this.tokens.listOf(principal.userId, principal.tokenWorkspaceId)).map(toView);
  }

  async revoke(principal: Principal, id: string, ip?: string): Promise<void> {
    if (!(await this.tokens.revoke(principal.userId, id, new Date(), principal.tokenWorkspaceId))) throw notFound('token');
    await this.audit.record({
      actorUserId: principal.userId,
      action: 'api_token.revoke',
      targetType: 'api_token',
      targetId: id,
      ip,
    });
  }
}

function toView(row: ApiTokenRow): ApiTokenView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    workspaceId: row.workspaceId,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
