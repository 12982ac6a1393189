import { MembersSettings } from '../../../../components/settings/members-settings';

export default function MembersPage() {
  return <MembersSettings />;
}
