import { AgentSettings } from '../../../../../components/settings/agent-settings';

export default async function AgentSettingsPage({ params }: { params: Promise<{ botId: string }> }) {
  const { botId } = await params;
  return <AgentSettings botId={botId} />;
}
