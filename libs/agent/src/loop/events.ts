import type { ModelStreamEvent, ToolCall } from '@lazyboy/contracts';
import type { PendingQuestion } from './directives.js';
import type { PlanStep } from './plan.js';
import type { RunOutcome } from './outcome.js';

/**
 * Everything the loop reports while it works. Typed data only: the CLI and the service format them.
 */
export type AgentEvent =
  | { type: 'turn_started'; round: number; chunk: number }
  | { type: 'model_request'; round: number; messages: number; tools: number; attempt: number }
  | { type: 'model_delta'; delta: ModelStreamEvent }
  | { type: 'model_response'; round: number; text: string; toolCalls: ToolCall[] }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'tool_result'; callId: string; name: string; isError: boolean; preview: string }
  | { type: 'plan'; steps: PlanStep[]; reason?: string }
  | { type: 'message'; text: string; progress: boolean }
  | { type: 'progress'; chunk: number; roundsUsed: number; roundsTotal: number; summary: string }
  | { type: 'question'; question: PendingQuestion }
  | { type: 'status'; status: 'thinking' | 'acting' | 'waiting_for_human' | 'waiting_for_background' | 'idle'; detail?: string }
  | { type: 'background'; jobId: string; kind: 'command' | 'subagent'; description: string; status: 'started' | 'finished' }
  | { type: 'heartbeat'; awaiting: string; sinceMs: number }
  | { type: 'steering'; text: string }
  | { type: 'done'; outcome: RunOutcome }
  | { type: 'blocked'; outcome: RunOutcome };

export type AgentEventHandler = (event: AgentEvent) => void;
