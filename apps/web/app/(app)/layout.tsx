import type { ReactNode } from 'react';
import { AppShell } from '../../components/app-shell';

/** Home and agent pages share one shell: the sidebar and the realtime connection survive navigation. */
export default function SignedInLayout({ children }: { children: ReactNode }) {
  return <AppShell>{children}</AppShell>;
}
