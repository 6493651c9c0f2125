import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';

export const LANGUAGES = [
  { value: 'en', label: 'English' },
  { value: 'zh-CN', label: '简体中文' },
] as const;
export type Language = (typeof LANGUAGES)[number]['value'];

const STORAGE_KEY = 'pennypost.language';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}

function initialLanguage(): Language {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved === 'en' || saved === 'zh-CN') return saved;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

/** English is in the main bundle; Chinese is a chunk of its own, loaded when it is needed. */
async function loadLanguage(language: Language): Promise<void> {
  if (language === 'en' || i18next.hasResourceBundle(language, 'translation')) return;
  const strings = (await import('./zh-CN.json')).default;
  i18next.addResourceBundle(language, 'translation', strings);
}

export async function initI18n(): Promise<void> {
  const lng = initialLanguage();
  await i18next.use(initReactI18next).init({
    lng: 'en',
    fallbackLng: 'en',
    resources: { en: { translation: en } },
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  if (lng !== 'en') {
    await loadLanguage(lng).catch(() => undefined);
    await i18next.changeLanguage(lng);
  }
  document.documentElement.lang = lng;
}

export async function setLanguage(language: Language): Promise<void> {
  await loadLanguage(language);
  localStorage.setItem(STORAGE_KEY, language);
  document.documentElement.lang = language;
  await i18next.changeLanguage(language);
}

export function currentLanguage(): Language {
  return i18next.language === 'zh-CN' ? 'zh-CN' : 'en';
}
