import type { Metadata } from 'next';
import { InvitationPage } from '../../../components/invitation-page';

export const metadata: Metadata = { robots: { index: false }, referrer: 'no-referrer' };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <InvitationPage token={token} />;
}
