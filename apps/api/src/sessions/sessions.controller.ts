import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  createSessionRequestSchema,
  messageViewSchema,
  pageQuerySchema,
  pageSchema,
  postMessageRequestSchema,
  postMessageResponseSchema,
  sessionViewSchema,
  updateSessionRequestSchema,
  type CreateSessionRequest,
  type MessageView,
  type PageQuery,
  type PostMessageRequest,
  type PostMessageResponse,
  type SessionView,
  type UpdateSessionRequest,
} from '@lazyboy/contracts';
import { z } from 'zod';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody, ZodQuery } from '../common/zod-params.js';
import { SessionsService } from './sessions.service.js';

@Controller('api')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get('bots/:botId/sessions')
  @ApiRoute({ summary: "An agent's chats, most recent first", response: z.array(sessionViewSchema), tag: 'sessions' })
  list(@CurrentPrincipal() principal: Principal, @IdParam('botId') botId: string): Promise<SessionView[]> {
    return this.sessions.listForBot(principal, botId);
  }

  @Post('bots/:botId/sessions')
  @ApiRoute({ summary: 'Start a chat with an agent', response: sessionViewSchema, status: 201, tag: 'sessions' })
  create(
    @CurrentPrincipal() principal: Principal,
    @IdParam('botId') botId: string,
    @ZodBody(createSessionRequestSchema) body: CreateSessionRequest,
  ): Promise<SessionView> {
    return this.sessions.create(principal, botId, body.title);
  }

  @Get('sessions/:sessionId')
  @ApiRoute({ summary: 'One chat', response: sessionViewSchema, tag: 'sessions' })
  get(@CurrentPrincipal() principal: Principal, @IdParam('sessionId') sessionId: string): Promise<SessionView> {
    return this.sessions.get(principal, sessionId);
  }

  @Patch('sessions/:sessionId')
  @ApiRoute({ summary: 'Rename a chat', response: sessionViewSchema, tag: 'sessions' })
  rename(
    @CurrentPrincipal() principal: Principal,
    @IdParam('sessionId') sessionId: string,
    @ZodBody(updateSessionRequestSchema) body: UpdateSessionRequest,
  ): Promise<SessionView> {
    return this.sessions.rename(principal, sessionId, body.title);
  }

  @Delete('sessions/:sessionId')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete a chat and its messages (its runs are stopped)', status: 204, tag: 'sessions' })
  async delete(@CurrentPrincipal() principal: Principal, @IdParam('sessionId') sessionId: string): Promise<void> {
    await this.sessions.delete(principal, sessionId);
  }

  @Get('sessions/:sessionId/messages')
  @ApiRoute({
    summary: 'A page of messages, oldest first; pass nextBefore as before for older ones',
    response: pageSchema(messageViewSchema),
    tag: 'sessions',
  })
  messages(
    @CurrentPrincipal() principal: Principal,
    @IdParam('sessionId') sessionId: string,
    @ZodQuery(pageQuerySchema) page: PageQuery,
  ): Promise<{ items: MessageView[]; nextBefore: string | null }> {
    return this.sessions.messages(principal, sessionId, page);
  }

  @Post('sessions/:sessionId/messages')
  @HttpCode(202)
  @ApiRoute({
    summary: 'Send a message; a retry with the same clientNonce returns the same message and run',
    response: postMessageResponseSchema,
    status: 202,
    tag: 'sessions',
  })
  post(
    @CurrentPrincipal() principal: Principal,
    @IdParam('sessionId') sessionId: string,
    @ZodBody(postMessageRequestSchema) body: PostMessageRequest,
  ): Promise<PostMessageResponse> {
    return this.sessions.postMessage(principal, sessionId, body);
  }

  @Post('sessions/:sessionId/clear')
  @ApiRoute({
    summary: 'Empty a chat (long-term memory stays)',
    response: z.object({ deleted: z.number().int() }),
    tag: 'sessions',
  })
  clear(@CurrentPrincipal() principal: Principal, @IdParam('sessionId') sessionId: string): Promise<{ deleted: number }> {
    return this.sessions.clear(principal, sessionId);
  }
}
