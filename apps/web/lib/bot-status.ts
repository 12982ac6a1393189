import { agentStatus, pickStatusRun, type AgentStatus } from './agent-status';
import { runsOfBot, type RunsState } from './runs-store';

/** An agent's live status from the workspace's known runs. */
export function botStatus(runs: RunsState, botId: string): AgentStatus {
  return agentStatus(pickStatusRun(runsOfBot(runs, botId)));
}
