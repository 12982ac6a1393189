import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  createChatRequestSchema,
  messageViewSchema,
  pageQuerySchema,
  pageSchema,
  postMessageRequestSchema,
  postMessageResponseSchema,
  chatViewSchema,
  updateChatRequestSchema,
  type CreateChatRequest,
  type MessageView,
  type PageQuery,
  type PostMessageRequest,
  type PostMessageResponse,
  type ChatView,
  type UpdateChatRequest,
} from '@lazyboy/contracts';
import { z } from 'zod';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody, ZodQuery } from '../common/zod-params.js';
import { ChatsService } from './chats.service.js';

@Controller('api')
export class ChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Get('agents/:agentId/chats')
  @ApiRoute({ summary: "An agent's chats, most recent first", response: z.array(chatViewSchema), tag: 'chats' })
  list(@CurrentPrincipal() principal: Principal, @IdParam('agentId') agentId: string): Promise<ChatView[]> {
    return this.chats.listForAgent(principal, agentId);
  }

  @Post('agents/:agentId/chats')
  @ApiRoute({ summary: 'Start a chat with an agent', response: chatViewSchema, status: 201, tag: 'chats' })
  create(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @ZodBody(createChatRequestSchema) body: CreateChatRequest,
  ): Promise<ChatView> {
    return this.chats.create(principal, agentId, body.title);
  }

  @Get('chats/:chatId')
  @ApiRoute({ summary: 'One chat', response: chatViewSchema, tag: 'chats' })
  get(@CurrentPrincipal() principal: Principal, @IdParam('chatId') chatId: string): Promise<ChatView> {
    return this.chats.get(principal, chatId);
  }

  @Patch('chats/:chatId')
  @ApiRoute({ summary: 'Rename a chat', response: chatViewSchema, tag: 'chats' })
  rename(
    @CurrentPrincipal() principal: Principal,
    @IdParam('chatId') chatId: string,
    @ZodBody(updateChatRequestSchema) body: UpdateChatRequest,
  ): Promise<ChatView> {
    return this.chats.rename(principal, chatId, body.title);
  }

  @Delete('chats/:chatId')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete a chat and its messages (its runs are stopped)', status: 204, tag: 'chats' })
  async delete(@CurrentPrincipal() principal: Principal, @IdParam('chatId') chatId: string): Promise<void> {
    await this.chats.delete(principal, chatId);
  }

  @Get('chats/:chatId/messages')
  @ApiRoute({
    summary: 'A page of messages, oldest first; pass nextBefore as before for older ones',
    response: pageSchema(messageViewSchema),
    tag: 'chats',
  })
  messages(
    @CurrentPrincipal() principal: Principal,
    @IdParam('chatId') chatId: string,
    @ZodQuery(pageQuerySchema) page: PageQuery,
  ): Promise<{ items: MessageView[]; nextBefore: string | null }> {
    return this.chats.messages(principal, chatId, page);
  }

  @Post('chats/:chatId/messages')
  @HttpCode(202)
  @ApiRoute({
    summary: 'Send a message; a retry with the same clientNonce returns the same message and run',
    response: postMessageResponseSchema,
    status: 202,
    tag: 'chats',
  })
  post(
    @CurrentPrincipal() principal: Principal,
    @IdParam('chatId') chatId: string,
    @ZodBody(postMessageRequestSchema) body: PostMessageRequest,
  ): Promise<PostMessageResponse> {
    return this.chats.postMessage(principal, chatId, body);
  }

  @Post('chats/:chatId/clear')
  @ApiRoute({
    summary: 'Empty a chat (long-term memory stays)',
    response: z.object({ deleted: z.number().int() }),
    tag: 'chats',
  })
  clear(@CurrentPrincipal() principal: Principal, @IdParam('chatId') chatId: string): Promise<{ deleted: number }> {
    return this.chats.clear(principal, chatId);
  }
}
