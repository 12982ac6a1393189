import {
  defineTool,
  Runtime,
  type AgentEvent,
  type Checkpoint,
  type HumanAnswer,
  type HumanBroker,
  type PendingQuestion,
  type RuntimeOptions,
} from '@lazyboy/agent';
import { createModelClient, ScriptedModelServer, scriptedBackend, type Script } from '@lazyboy/model';
import { z } from 'zod';
import { sleep } from '../support/index.js';

/** A runtime talking to a scripted model server over HTTP, with its events and checkpoints recorded. */
export interface Harness {
  server: ScriptedModelServer;
  runtime: Runtime;
  events: AgentEvent[];
  checkpoints: Checkpoint[];
  close(): Promise<void>;
}

export async function harness(script: Script, options: Partial<RuntimeOptions> = {}): Promise<Harness> {
  const server = await ScriptedModelServer.start(script);
  const model = createModelClient(scriptedBackend(server), { retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 10 } });
  const checkpoints: Checkpoint[] = [];
  const runtime = new Runtime({
    model,
    tools: [],
    human: { mode: 'turn-ending' },
    systemPrompt: 'You are a test agent.',
    limits: { roundsPerChunk: 12, roundsTotal: 40 },
    checkpoints: { save: async (c) => void checkpoints.push(c) },
    ...options,
  });
  const events: AgentEvent[] = [];
  runtime.setEventHandler((e) => events.push(e));
  return { server, runtime, events, checkpoints, close: () => server.close() };
}

/** The text of every tool result the model was sent in request `index`, in order. */
export function toolResults(h: Harness, index: number): string[] {
  return (h.server.requests[index]?.messages ?? []).flatMap((m) =>
    m.role === 'tool' && typeof m.content === 'string' ? [m.content] : [],
  );
}

export function lastMessage(h: Harness, index: number) {
  return h.server.requests[index]?.messages.at(-1);
}

/** A read tool that echoes, recording when it ran. */
export function echoTool(log: string[] = [], kind: 'read' | 'command' = 'read', delayMs = 0) {
  return defineTool({
    name: kind === 'read' ? 'lookup' : 'run_step',
    kind,
    description: 'test tool',
    schema: z.object({ key: z.string() }),
    execute: async ({ key }) => {
      log.push(`start ${key}`);
      if (delayMs) await sleep(delayMs);
      log.push(`end ${key}`);
      return { content: `value of ${key}` };
    },
  });
}

/** A person who always gives `answer`, recording what they were asked. */
export function blockingBroker(answer: HumanAnswer, asked: PendingQuestion[] = []): HumanBroker {
  return {
    mode: 'blocking',
    ask: async (question) => {
      asked.push(question);
      return answer;
    },
  };
}
