export { Runtime, HEARTBEAT_MS, type RuntimeOptions, type RunInput, type RunResult } from './runtime.js';
export { systemClock, type Clock, type CheckpointStore, type HumanAnswer, type HumanBroker } from './ports.js';
export { defineTool, type ToolDefinition, type ToolKind, type ToolOutcome, type ToolContext } from './tools/tool.js';
export { ToolRegistry, DuplicateToolError } from './tools/registry.js';
export { CONTROL_TOOLS } from './tools/control-tools.js';
export { humanTools, answerToResult, type HumanToolOptions } from './tools/human-tools.js';
export {
  recoverCheckpoint,
  emptyCheckpoint,
  UNKNOWN_OUTCOME,
  NOT_STARTED,
  type Checkpoint,
  type InflightCall,
} from './loop/checkpoint.js';
export type { LoopDirective, PendingQuestion } from './loop/directives.js';
export type { AgentEvent, AgentEventHandler } from './loop/events.js';
export { SERVICE_LIMITS, type RoundLimits } from './loop/limits.js';
export type { RunOutcome, BlockedCode } from './loop/outcome.js';
export { planHasOpenSteps, type PlanStep } from './loop/plan.js';
export { isSmallTalk } from './loop/small-talk.js';
export { trimForRequest, type TrimOptions } from './loop/trimming.js';
export { IDENTICAL_REMINDER } from './loop/guards.js';
export { BackgroundJobs, revivalMessage, type BackgroundJob } from './loop/background.js';
export { subagentTools, type ChildRuntime } from './tools/subagent-tools.js';
export { backgroundAfter, DEFAULT_BLOCK_UNTIL_MS } from './tools/background-after.js';
export { shellArgumentsSchema } from './tools/shell-arguments.js';
export * from './tools/computer/index.js';
export {
  SecretRedactor,
  RedactionStream,
  REDACTED_SECRET,
  MIN_REDACTED_LENGTH,
  type SecretSource,
} from './redaction/secret-redactor.js';
export { redactingTools, redactingShellTransport, redactOutcome } from './redaction/redacting-tools.js';
export { redactingModelClient } from './redaction/redacting-model.js';
