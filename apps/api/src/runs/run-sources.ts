import type { Message, Run, Chat } from '../persistence/generated/client.js';

/**
 * What a run is born from. A new source (a schedule, a skill, a group thread) is one more member here, one
 * more entry of `RunOrigins` and one more case of RunCreation.create: the queue, the executor and the status
 * table stay as they are.
 */
export type RunSource = MessageRunSource;

/** A person's chat message: it becomes a new run of the chat's agent, or the answer to the chat's parked run. */
export interface MessageRunSource {
  kind: 'message';
  chat: Pick<Chat, 'id' | 'workspaceId' | 'agentId'>;
  authorUserId: string;
  text: string;
  /** A retry with the same nonce returns the first message and its run. */
  clientNonce: string;
}

/** What creating a run from each source answers. */
export interface RunOrigins {
  message: MessageRun;
}

export interface MessageRun {
  /** The stored message; its `runId` is the run it started or resumed. */
  message: Message;
  run: Run;
  /** The same clientNonce came before: nothing was written, these are the first message and run. */
  replayed: boolean;
  /** Another run of the agent is active, or queued before this one. */
  queuedBehindActive: boolean;
}

/** The same clientNonce was already used for a message of another chat. */
export class NonceReusedError extends Error {
  override readonly name = 'NonceReusedError';
}
