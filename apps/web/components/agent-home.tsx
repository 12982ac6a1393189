'use client';

import Link from 'next/link';
import { fill } from '../locales';
import { agentStatusLabel } from '../lib/agent-status-label';
import { liveAgentStatus } from '../lib/live-agent-status';
import { useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';
import { Blobatar } from './blobatar';
import { DrawerToggle } from './drawer-toggle';
import { NewAgentForm } from './new-agent-form';

/** `/`: the workspace's agents as cards; on a phone this is the way in, with the drawer closed. */
export function AgentHome() {
  const t = useT();
  const { me, workspace, agents, runs } = useShell();
  return (
    <div className="home">
      <header className="home-header">
        <DrawerToggle />
        <div>
          <h1>{fill(t.welcome, { name: me.user.displayName })}</h1>
          <p className="home-sub">{fill(t.homeIntro, { workspace: workspace.name })}</p>
        </div>
      </header>
      {agents === null ? (
        <p className="chat-loading">{t.loading}</p>
      ) : (
        <>
          {agents.length === 0 && (
            <div className="home-empty" data-testid="home-empty">
              <Blobatar seed="lazyboy" size={96} />
              <p>{t.homeEmpty}</p>
            </div>
          )}
          <ul className="agent-cards">
            {agents.map((agent) => {
              const status = liveAgentStatus(runs, agent.id);
              return (
                <li key={agent.id}>
                  <Link
                    href={`/agents/${agent.id}`}
                    className="agent-card"
                    data-testid="agent-card"
                    data-agent-id={agent.id}
                    data-status={status.kind}
                  >
                    <Blobatar seed={agent.avatarSeed} size={64} status={status.kind} />
                    <span className="agent-card-name">{agent.name}</span>
                    <span className="agent-card-status">{agentStatusLabel(status, t)}</span>
                  </Link>
                </li>
              );
            })}
          </ul>
          <div className="home-new">
            <NewAgentForm testIdPrefix="home-new-agent" />
          </div>
        </>
      )}
    </div>
  );
}
