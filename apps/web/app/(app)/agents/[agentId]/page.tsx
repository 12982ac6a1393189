import { Suspense } from 'react';
import { AgentConversation } from '../../../../components/agent-conversation';

export default async function AgentPage({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = await params;
  // The conversation reads ?chat= on the client; Suspense keeps that from blocking the page's render.
  return (
    <Suspense>
      <AgentConversation agentId={agentId} />
    </Suspense>
  );
}
