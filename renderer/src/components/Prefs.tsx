import { ActionIcon, Select, Tooltip, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, setLanguage, type Language } from '../i18n';
import { Icon } from './icons';

export function LanguageSelect() {
  const { t, i18n } = useTranslation();
  return (
    <Select
      aria-label={t('nav.language')}
      size="xs"
      data={LANGUAGES.map((l) => ({ value: l.value, label: l.label }))}
      value={i18n.language}
      allowDeselect={false}
      onChange={(value) => value && void setLanguage(value as Language)}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

export function ThemeToggle() {
  const { t } = useTranslation();
  const { setColorScheme } = useMantineColorScheme({ keepTransitions: true });
  const computed = useComputedColorScheme('light');
  const next = computed === 'dark' ? 'light' : 'dark';
  const label = next === 'dark' ? t('nav.themeDark') : t('nav.themeLight');
  return (
    <Tooltip label={label}>
      <ActionIcon variant="default" size="lg" aria-label={label} onClick={() => setColorScheme(next)}>
        <Icon name={computed === 'dark' ? 'sun' : 'moon'} />
      </ActionIcon>
    </Tooltip>
  );
}
