'use client';

import { createContext, useContext, type ReactNode } from 'react';
import { DEFAULT_LOCALE, LOCALE_COOKIE, messages, type Locale, type Messages } from '../locales';

interface I18nValue {
  locale: Locale;
  t: Messages;
}

const I18nContext = createContext<I18nValue>({ locale: DEFAULT_LOCALE, t: messages(DEFAULT_LOCALE) });

/** The root layout reads the locale cookie on the server and hands it down, so server and client render alike. */
export function I18nProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <I18nContext.Provider value={{ locale, t: messages(locale) }}>{children}</I18nContext.Provider>;
}

export function useT(): Messages {
  return useContext(I18nContext).t;
}

export function useLocale(): Locale {
  return useContext(I18nContext).locale;
}

/** Remembers the language for a year and reloads, so the server renders every page in it from now on. */
export function switchLocale(locale: Locale): void {
  document.cookie = `${LOCALE_COOKIE}=${encodeURIComponent(locale)}; path=/; max-age=${60 * 60 * 24 * 365}; samesite=lax`;
  window.location.reload();
}
