-- One noun per concept (#15): a bot is an agent, a session (the conversation) is a chat. Renames only:
-- tables, columns, indexes and constraints keep their rows, and Prisma's names match the schema.
-- The login session (LoginSession) keeps its name.

ALTER TABLE "Bot" RENAME TO "Agent";
ALTER TABLE "Session" RENAME TO "Chat";
ALTER TABLE "Attachment" RENAME COLUMN "sessionId" TO "chatId";
ALTER TABLE "Computer" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "ComputerScreen" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "MemoryItem" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "Message" RENAME COLUMN "sessionId" TO "chatId";
ALTER TABLE "Message" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "Run" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "Run" RENAME COLUMN "sessionId" TO "chatId";
ALTER TABLE "Schedule" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "Chat" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "Skill" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "VaultAccount" RENAME COLUMN "botId" TO "agentId";
ALTER TABLE "Attachment" RENAME CONSTRAINT "Attachment_sessionId_fkey" TO "Attachment_chatId_fkey";
ALTER TABLE "Agent" RENAME CONSTRAINT "Bot_pkey" TO "Agent_pkey";
ALTER TABLE "Agent" RENAME CONSTRAINT "Bot_workspaceId_fkey" TO "Agent_workspaceId_fkey";
ALTER TABLE "ComputerScreen" RENAME CONSTRAINT "ComputerScreen_botId_fkey" TO "ComputerScreen_agentId_fkey";
ALTER TABLE "Computer" RENAME CONSTRAINT "Computer_botId_fkey" TO "Computer_agentId_fkey";
ALTER TABLE "MemoryItem" RENAME CONSTRAINT "MemoryItem_botId_fkey" TO "MemoryItem_agentId_fkey";
ALTER TABLE "Message" RENAME CONSTRAINT "Message_botId_fkey" TO "Message_agentId_fkey";
ALTER TABLE "Message" RENAME CONSTRAINT "Message_sessionId_fkey" TO "Message_chatId_fkey";
ALTER TABLE "Run" RENAME CONSTRAINT "Run_botId_fkey" TO "Run_agentId_fkey";
ALTER TABLE "Run" RENAME CONSTRAINT "Run_sessionId_fkey" TO "Run_chatId_fkey";
ALTER TABLE "Schedule" RENAME CONSTRAINT "Schedule_botId_fkey" TO "Schedule_agentId_fkey";
ALTER TABLE "Chat" RENAME CONSTRAINT "Session_botId_fkey" TO "Chat_agentId_fkey";
ALTER TABLE "Chat" RENAME CONSTRAINT "Session_pkey" TO "Chat_pkey";
ALTER TABLE "Chat" RENAME CONSTRAINT "Session_workspaceId_fkey" TO "Chat_workspaceId_fkey";
ALTER TABLE "Skill" RENAME CONSTRAINT "Skill_botId_fkey" TO "Skill_agentId_fkey";
ALTER TABLE "VaultAccount" RENAME CONSTRAINT "VaultAccount_botId_fkey" TO "VaultAccount_agentId_fkey";
ALTER INDEX "Attachment_sessionId_idx" RENAME TO "Attachment_chatId_idx";
ALTER INDEX "Bot_workspaceId_createdAt_idx" RENAME TO "Agent_workspaceId_createdAt_idx";
ALTER INDEX "Bot_workspaceId_name_key" RENAME TO "Agent_workspaceId_name_key";
ALTER INDEX "ComputerScreen_botId_idx" RENAME TO "ComputerScreen_agentId_idx";
ALTER INDEX "ComputerScreen_computerId_botId_key" RENAME TO "ComputerScreen_computerId_agentId_key";
ALTER INDEX "Computer_botId_key" RENAME TO "Computer_agentId_key";
ALTER INDEX "MemoryItem_workspaceId_botId_embedderId_idx" RENAME TO "MemoryItem_workspaceId_agentId_embedderId_idx";
ALTER INDEX "Message_botId_idx" RENAME TO "Message_agentId_idx";
ALTER INDEX "Message_sessionId_createdAt_id_idx" RENAME TO "Message_chatId_createdAt_id_idx";
ALTER INDEX "Run_botId_status_idx" RENAME TO "Run_agentId_status_idx";
ALTER INDEX "Run_one_executing_per_bot" RENAME TO "Run_one_executing_per_agent";
ALTER INDEX "Run_sessionId_createdAt_idx" RENAME TO "Run_chatId_createdAt_idx";
ALTER INDEX "Schedule_workspaceId_botId_idx" RENAME TO "Schedule_workspaceId_agentId_idx";
ALTER INDEX "Session_botId_idx" RENAME TO "Chat_agentId_idx";
ALTER INDEX "Session_workspaceId_botId_lastMessageAt_idx" RENAME TO "Chat_workspaceId_agentId_lastMessageAt_idx";
ALTER INDEX "VaultAccount_botId_site_username_key" RENAME TO "VaultAccount_agentId_site_username_key";

-- Stored values that carry the old nouns. The audit log's actions and target types of an agent:
UPDATE "AuditLog" SET action = 'agent.' || substr(action, 5) WHERE action LIKE 'bot.%';
UPDATE "AuditLog" SET "targetType" = 'agent' WHERE "targetType" = 'bot';
UPDATE "AuditLog" SET "targetType" = 'chat' WHERE "targetType" = 'session';
-- ... and the ids their details name (computer stops and takeovers name the agent).
UPDATE "AuditLog" SET metadata = (metadata - 'botId') || jsonb_build_object('agentId', metadata -> 'botId')
  WHERE jsonb_typeof(metadata) = 'object' AND metadata ? 'botId';
UPDATE "AuditLog" SET metadata = (metadata - 'sessionId') || jsonb_build_object('chatId', metadata -> 'sessionId')
  WHERE jsonb_typeof(metadata) = 'object' AND metadata ? 'sessionId';
-- A run's stored events are replayed to clients that parse them with the new contracts.
UPDATE "RunEvent" SET payload = (payload - 'botId') || jsonb_build_object('agentId', payload -> 'botId')
  WHERE jsonb_typeof(payload) = 'object' AND payload ? 'botId';
UPDATE "RunEvent" SET payload = (payload - 'sessionId') || jsonb_build_object('chatId', payload -> 'sessionId')
  WHERE jsonb_typeof(payload) = 'object' AND payload ? 'sessionId';
