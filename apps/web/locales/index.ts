import { en } from './en';
import { zhTW, type Messages } from './zh-TW';

export type Locale = 'zh-TW' | 'en';
export const DEFAULT_LOCALE: Locale = 'zh-TW';

const catalogs: Record<Locale, Messages> = { 'zh-TW': zhTW, en };

export function messages(locale: Locale = DEFAULT_LOCALE): Messages {
  return catalogs[locale];
}
