import type { ReactNode } from 'react';
import { Group, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LanguageSelect, ThemeToggle } from '../../components/Prefs';

/** The card of the screens before the app: brand, language and theme, a title. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <main className="pp-auth">
      <div className="pp-card pp-auth-card">
        <Group justify="space-between" mb="md">
          <div className="pp-brand">
            <span className="pp-brand-mark" aria-hidden="true">
              P
            </span>
            PennyPost
          </div>
          <Group gap={8}>
            <LanguageSelect />
            <ThemeToggle />
          </Group>
        </Group>
        <Title order={1} size="h3" mb={4}>
          {title}
        </Title>
        <Text c="dimmed" size="sm" mb="md">
          {t('auth.tagline')}
        </Text>
        {children}
      </div>
    </main>
  );
}
