import { en } from './en';
import { zhTW, type Messages } from './zh-TW';

export type { Messages };
export type Locale = 'zh-TW' | 'en';
export const DEFAULT_LOCALE: Locale = 'zh-TW';
export const LOCALES: readonly Locale[] = ['zh-TW', 'en'];
/** Read by the root layout on the server, so the first render is already in the chosen language. */
export const LOCALE_COOKIE = 'lazyboy_locale';

const catalogs: Record<Locale, Messages> = { 'zh-TW': zhTW, en };

export function messages(locale: Locale = DEFAULT_LOCALE): Messages {
  return catalogs[locale];
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** Fills `{name}` placeholders of a catalog string; unknown placeholders stay visible, to be noticed. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
