// The one import for the run executor.
export { computerTools, type ComputerToolOptions } from './computer-tools.js';
export { describeStep, sameStep } from './describe-step.js';
export { ScreenLeaseLostError, type ScreenProvider } from './screen-provider.js';
export { LEASE_LOST_REASON, TAKEOVER_PROMPT } from './worker-call.js';
export {
  vaultTools,
  LIST_ACCOUNTS_TOOL,
  USE_SAVED_LOGIN_TOOL,
  type OpenedLogin,
  type RunVault,
  type SavedAccount,
  type VaultStep,
  type VaultUse,
} from './vault-tools.js';
