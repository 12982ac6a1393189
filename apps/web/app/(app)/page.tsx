import { AgentHome } from '../../components/agent-home';

export default function HomePage() {
  return <AgentHome />;
}
