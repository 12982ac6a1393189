'use client';

import { useId } from 'react';
import { useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';

export function WorkspaceSwitcher() {
  const t = useT();
  const { me, workspace, selectWorkspace } = useShell();
  const id = useId();
  return (
    <div className="workspace-switcher">
      <label htmlFor={id} className="field-label">
        {t.workspace}
      </label>
      <select
        id={id}
        data-testid="workspace-select"
        value={workspace.id}
        disabled={me.workspaces.length < 2}
        onChange={(event) => selectWorkspace(event.target.value)}
      >
        {me.workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
    </div>
  );
}
