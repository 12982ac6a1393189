import type { ReactNode } from 'react';
import { SettingsFrame } from '../../../components/settings/settings-frame';

/** The current workspace's settings and members share a header and tabs. */
export default function SettingsLayout({ children }: { children: ReactNode }) {
  return <SettingsFrame>{children}</SettingsFrame>;
}
