import { AgentSettings } from '../../../../../components/settings/agent-settings';

export default async function AgentSettingsPage({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = await params;
  return <AgentSettings agentId={agentId} />;
}
