'use client';

import { useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';

/** Opens the sidebar drawer at phone width (hidden by CSS on wider screens). */
export function DrawerToggle() {
  const t = useT();
  const { openDrawer } = useShell();
  return (
    <button
      type="button"
      className="icon-button drawer-toggle"
      data-testid="drawer-toggle"
      aria-label={t.openMenu}
      onClick={openDrawer}
    >
      ☰
    </button>
  );
}
