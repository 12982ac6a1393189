import type { ContentPart } from '@lazyboy/contracts';
import type { z } from 'zod';
import type { LoopDirective } from '../loop/directives.js';

/**
 * How a tool may be scheduled. Read-kind calls in one batch run in parallel; everything else runs one
 * after another, in the order the model gave. `human` and `control` tools are the loop's own contract.
 */
export type ToolKind = 'read' | 'write' | 'command' | 'browser' | 'desktop' | 'human' | 'control';

export interface ToolContext {
  /** Aborted when the run is cancelled: long tools should stop at their next safe point. */
  signal: AbortSignal;
  /** The id pairing this call with its result. */
  callId: string;
  /**
   * Lets work continue past this call (a command past its block_until_ms): returns a job id to put in the
   * result. The model is told when the work finishes.
   */
  background(description: string, work: Promise<ToolOutcome>): string;
}

/** What a tool hands back to the loop. */
export interface ToolOutcome {
  /** Text (or text and images) the model reads as the call's result. */
  content: string | ContentPart[];
  /** The call failed; the model sees the content as an error and may try something else. */
  isError?: boolean;
  /**
   * A controlled wait (polling with its own deadline) that legitimately returns the same output several
   * times: exempt from the identical-round guard.
   */
  controlledWait?: boolean;
  /** Free-form facts to keep in the checkpoint (browser URL, command metadata). */
  state?: Record<string, unknown>;
  /** For control and human tools: what the loop should do next. */
  directive?: LoopDirective;
}

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Written for the model: what the tool does, when to use it, what it returns. */
  description: string;
  kind: ToolKind;
  schema: S;
  /** Must be the only call in its batch (questions, confirmations, hand-offs). */
  alone?: boolean;
  execute(args: z.infer<S>, context: ToolContext): Promise<ToolOutcome>;
}

/** Identity helper that keeps a tool's argument type tied to its schema. */
export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}
