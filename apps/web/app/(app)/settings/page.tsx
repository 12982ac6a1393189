import { WorkspaceSettings } from '../../../components/settings/workspace-settings';

export default function WorkspaceSettingsPage() {
  return <WorkspaceSettings />;
}
