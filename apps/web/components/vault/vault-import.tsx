'use client';

import { useId, useState, type FormEvent } from 'react';
import { VAULT_IMPORT_MAX_BYTES, type VaultImportResult } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { FormError } from '../form-error';
import { SettingsSection } from '../settings/settings-frame';

interface VaultImportProps {
  importCsv(csv: string): Promise<VaultImportResult>;
  /** Something was imported: the list is read again. */
  onImported(): void;
}

/** A browser's or password manager's CSV export, read in the page and sent once; what came of each row. */
export function VaultImport({ importCsv, onImported }: VaultImportProps) {
  const t = useT();
  const [file, setFile] = useState<File | null>(null);
  const [result, setResult] = useState<VaultImportResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file || busy) return;
    setError(null);
    setResult(null);
    // Refused here with a clear line rather than by the API's body limit.
    if (file.size > VAULT_IMPORT_MAX_BYTES) return setError(t.vaultImportTooBig);
    if (file.size === 0) return setError(t.vaultImportEmpty);
    setBusy(true);
    try {
      const answer = await importCsv(await file.text());
      setResult(answer);
      if (answer.imported > 0) onImported();
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setBusy(false);
    }
  }

  return (
    <SettingsSection title={t.vaultImportTitle} description={t.vaultImportText} testId="vault-import">
      <form className="vault-import-form" onSubmit={(event) => void submit(event)}>
        <label htmlFor={inputId} className="field-label">
          {t.vaultImportFile}
        </label>
        <input
          id={inputId}
          data-testid="vault-import-file"
          type="file"
          accept=".csv,text/csv"
          onChange={(event) => {
            setFile(event.target.files?.[0] ?? null);
            setResult(null);
            setError(null);
          }}
        />
        <FormError error={error} testId="vault-import-error" />
        <div className="form-actions">
          <button type="submit" className="button" data-testid="vault-import-run" disabled={busy || !file}>
            {busy ? t.pleaseWait : t.vaultImportRun}
          </button>
        </div>
      </form>
      {result && (
        <div className="vault-import-result" role="status" data-testid="vault-import-result">
          <p>{fill(t.vaultImportResult, { imported: result.imported, duplicates: result.duplicates })}</p>
          {result.skipped.length > 0 && (
            <>
              <p>{fill(t.vaultImportSkipped, { count: result.skipped.length })}</p>
              <ul data-testid="vault-import-skipped">
                {result.skipped.map((row, index) => (
                  <li key={`${row.line}-${index}`}>{fill(t.vaultImportLine, { line: row.line, reason: row.reason })}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </SettingsSection>
  );
}
