import { Suspense } from 'react';
import { AgentConversation } from '../../../../components/agent-conversation';

export default async function AgentPage({ params }: { params: Promise<{ botId: string }> }) {
  const { botId } = await params;
  // The conversation reads ?session= on the client; Suspense keeps that from blocking the page's render.
  return (
    <Suspense>
      <AgentConversation botId={botId} />
    </Suspense>
  );
}
