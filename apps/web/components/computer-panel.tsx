'use client';

import { useT } from '../lib/i18n';

/**
 * The agent's desktop (noVNC viewer, takeover controls). A placeholder container for now: the viewer
 * itself is built separately and goes inside.
 */
export function ComputerPanel({ botId }: { botId: string }) {
  const t = useT();
  return (
    <div className="computer-panel" data-testid="computer-panel" data-bot-id={botId}>
      <p className="computer-panel-placeholder">{t.computerPanelPlaceholder}</p>
    </div>
  );
}
