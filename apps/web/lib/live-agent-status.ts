import { agentStatus, pickStatusRun, type AgentStatus } from './agent-status';
import { runsOfAgent, type RunsState } from './runs-store';

/** An agent's live status from the workspace's known runs. */
export function liveAgentStatus(runs: RunsState, agentId: string): AgentStatus {
  return agentStatus(pickStatusRun(runsOfAgent(runs, agentId)));
}
