import { AgentVault } from '../../../../../components/vault/agent-vault';

export default async function AgentVaultPage({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = await params;
  return <AgentVault agentId={agentId} />;
}
