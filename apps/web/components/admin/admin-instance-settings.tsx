'use client';

import { useCallback, useId, useState } from 'react';
import {
  environmentModelScopeSchema,
  signupPolicySchema,
  type EnvironmentModelScope,
  type InstanceSettingsView,
  type SignupPolicy,
  type UpdateInstanceSettingsRequest,
} from '@lazyboy/contracts';
import { admin } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { formatDateTime } from '../../lib/format';
import { useLocale, useT } from '../../lib/i18n';
import { fill } from '../../locales';
import { ErrorBanner } from '../error-banner';
import { AdminSection } from './admin-section';
import { useAdminData } from './use-admin-data';

/** The instance's own settings (one row for the whole installation); every change applies at once. */
export function AdminInstanceSettings() {
  const t = useT();
  const locale = useLocale();
  const load = useCallback((signal: AbortSignal) => admin.settings(signal), []);
  const settings = useAdminData<InstanceSettingsView>(load);
  const [busy, setBusy] = useState(false);
  // The change being saved is shown at once (a controlled box would otherwise spring back until the answer);
  // a refused one is dropped again, with the reason.
  const [pending, setPending] = useState<UpdateInstanceSettingsRequest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const policyId = useId();
  const scopeId = useId();

  async function update(body: UpdateInstanceSettingsRequest) {
    setBusy(true);
    setPending(body);
    setError(null);
    try {
      const changed = await admin.updateSettings(body);
      settings.set(() => changed);
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setPending(null);
      setBusy(false);
    }
  }

  const view = settings.data && pending ? { ...settings.data, ...pending } : settings.data;
  return (
    <AdminSection
      id="settings"
      title={t.adminSettings}
      loading={settings.loading}
      error={settings.error}
      onRefresh={settings.reload}
    >
      {error && <ErrorBanner message={error} />}
      {view && (
        <div className="instance-settings" data-testid="admin-settings" data-signup-policy={view.signupPolicy}>
          <label htmlFor={policyId} className="field-label">
            {t.adminSignupPolicy}
          </label>
          <select
            id={policyId}
            data-testid="admin-signup-policy"
            value={view.signupPolicy}
            disabled={busy}
            onChange={(event) => void update({ signupPolicy: event.target.value as SignupPolicy })}
          >
            {signupPolicySchema.options.map((policy) => (
              <option key={policy} value={policy}>
                {t[`signupPolicy_${policy}`]}
              </option>
            ))}
          </select>
          <p className="field-hint">{t[`signupPolicyHint_${view.signupPolicy}`]}</p>
          <label htmlFor={scopeId} className="field-label">
            {t.adminEnvironmentModel}
          </label>
          <select
            id={scopeId}
            data-testid="admin-environment-model-scope"
            value={view.environmentModelScope}
            disabled={busy}
            onChange={(event) => void update({ environmentModelScope: event.target.value as EnvironmentModelScope })}
          >
            {environmentModelScopeSchema.options.map((scope) => (
              <option key={scope} value={scope}>
                {t[`environmentModelScope_${scope}`]}
              </option>
            ))}
          </select>
          <p className="field-hint">{t.adminEnvironmentModelHint}</p>
          <label className="choice choice-block">
            <input
              type="checkbox"
              data-testid="admin-allow-local-models"
              checked={view.allowLocalModelServers}
              disabled={busy}
              onChange={(event) => void update({ allowLocalModelServers: event.target.checked })}
            />
            <span>
              <span className="choice-title">{t.adminAllowLocalModels}</span>
              <span className="field-hint">{t.adminAllowLocalModelsHint}</span>
            </span>
          </label>
          <p className="field-hint" data-testid="admin-mail" data-mail-configured={String(view.mailConfigured)}>
            {view.mailConfigured ? t.adminMailConfigured : t.adminMailNotConfigured}
          </p>
          <p className="field-hint">
            {view.updatedAt
              ? fill(t.adminSettingsChangedAt, { at: formatDateTime(view.updatedAt, locale) })
              : t.adminSettingsFromEnv}
          </p>
        </div>
      )}
    </AdminSection>
  );
}
