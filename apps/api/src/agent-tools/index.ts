export {
  computerTools,
  COMPUTER_TOOL_NAMES,
  toolNeedsComputer,
  describeStep,
  ScreenLeaseLostError,
  LEASE_LOST_REASON,
  TAKEOVER_PROMPT,
  type ComputerToolOptions,
  type ScreenProvider,
} from './computer-tools.js';
