'use client';

import { useId, useState } from 'react';
import { LOCALES, type Locale } from '../locales';
import { switchLocale, useLocale, useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';
import { signOut } from '../lib/sign-out';
import { Menu } from './menu';

export function UserMenu() {
  const t = useT();
  const locale = useLocale();
  const { me } = useShell();
  const [signingOut, setSigningOut] = useState(false);
  const localeId = useId();
  const languageName: Record<Locale, string> = { 'zh-TW': t.languageZhTW, en: t.languageEn };

  return (
    <Menu
      testId="user-menu"
      className="user-menu"
      summaryClassName="user-menu-summary"
      closeOnClick={false}
      trigger={
        <>
          <span className="user-initial" aria-hidden="true">
            {(me.user.displayName || me.user.email).slice(0, 1).toUpperCase()}
          </span>
          <span className="user-menu-names">
            <span className="user-name">{me.user.displayName}</span>
            <span className="user-email">{me.user.email}</span>
          </span>
        </>
      }
    >
      <div className="user-menu-body">
        <label htmlFor={localeId} className="field-label">
          {t.language}
        </label>
        <select
          id={localeId}
          data-testid="locale-select"
          value={locale}
          onChange={(event) => switchLocale(event.target.value as Locale)}
        >
          {LOCALES.map((l) => (
            <option key={l} value={l}>
              {languageName[l]}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button-quiet"
          data-testid="sign-out"
          disabled={signingOut}
          onClick={() => {
            setSigningOut(true);
            void signOut();
          }}
        >
          {t.signOut}
        </button>
      </div>
    </Menu>
  );
}
