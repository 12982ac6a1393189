import type { ComputerView, ScreenView } from '@lazyboy/contracts';
import type { ComputerScreen } from '../persistence/generated/client.js';
import type { ComputerWithScreens } from './computers.repository.js';

export function screenView(screen: ComputerScreen): ScreenView {
  return {
    id: screen.id,
    slot: screen.slot,
    display: screen.display,
    agentId: screen.agentId,
    controlHolder: screen.controlHolder,
    controlUserId: screen.controlUserId,
    controlExpiresAt: screen.controlExpiresAt?.toISOString() ?? null,
    executionRunId: screen.executionRunId,
  };
}

/** What clients see of a computer: never its endpoint, token or binding. */
export function computerView(computer: ComputerWithScreens): ComputerView {
  return {
    id: computer.id,
    workspaceId: computer.workspaceId,
    kind: computer.kind,
    agentId: computer.agentId,
    state: computer.state,
    lastViewedAt: computer.lastViewedAt?.toISOString() ?? null,
    bootedAt: computer.bootedAt?.toISOString() ?? null,
    suspendedAt: computer.suspendedAt?.toISOString() ?? null,
    stoppedAt: computer.stoppedAt?.toISOString() ?? null,
    memoryBytes: computer.memoryBytes === null ? null : Number(computer.memoryBytes),
    errorMessage: computer.errorMessage,
    screens: computer.screens.map(screenView),
  };
}
