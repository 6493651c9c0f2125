import { Button, Group, SegmentedControl, Stack, Text, Title, useMantineColorScheme } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/icons';
import { LanguageSelect } from '../../components/Prefs';
import { useAuth } from '../../lib/auth';
import { useFormat } from '../../lib/format';
import { ChangePasswordForm } from '../../components/ChangePasswordForm';
import { RoleBadge } from './household/RoleBadge';
import { DefaultNamesOffer } from './DefaultNamesOffer';
import { Card } from '../../components/Card';

export function GeneralTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const { session, signOut } = useAuth();
  const { colorScheme, setColorScheme } = useMantineColorScheme({ keepTransitions: true });
  return (
    <Stack>
      <Card id="set-appearance" title={t('settings.appearance')} titleGap="sm">
        <Group align="flex-end" gap="xl">
          <div>
            <Text size="sm" fw={500} mb={4} id="lang-label">
              {t('nav.language')}
            </Text>
            <LanguageSelect />
          </div>
          <div>
            <Text size="sm" fw={500} mb={4} id="theme-label">
              {t('settings.theme')}
            </Text>
            <SegmentedControl
              aria-labelledby="theme-label"
              value={colorScheme}
              onChange={(v) => setColorScheme(v)}
              data={[
                { value: 'light', label: t('settings.themes.light') },
                { value: 'dark', label: t('settings.themes.dark') },
                { value: 'auto', label: t('settings.themes.auto') },
              ]}
            />
          </div>
        </Group>
        <DefaultNamesOffer />
      </Card>
      <Card id="set-account" title={t('settings.account')} titleGap="sm">
        <Group gap="xs">
          <Text size="sm">
            {session?.user.username}
            {session?.user.email ? ` · ${session.user.email}` : ''}
          </Text>
          {session?.user.role && <RoleBadge role={session.user.role} />}
        </Group>
        <Text size="xs" c="dimmed" mb="sm">
          {session && t('settings.sessionUntil', { date: f.date(session.expiresAt, 'datetime') })}
        </Text>
        <Button variant="default" leftSection={<Icon name="logout" size={16} />} onClick={() => void signOut()}>
          {t('nav.logout')}
        </Button>
        <Title order={3} size="h6" mt="lg" mb="xs" id="set-password">
          {t('auth.changePassword')}
        </Title>
        <div style={{ maxWidth: 360 }}>
          <ChangePasswordForm submitLabel={t('auth.changePassword')} onDone={() => notifications.show({ color: 'teal', message: t('auth.passwordChanged') })} />
        </div>
      </Card>
    </Stack>
  );
}
