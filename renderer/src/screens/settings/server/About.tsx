import { Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorNote } from '../../../components/common';
import { useApi } from '../../../lib/data';
import { Card } from '../../../components/Card';

export function About() {
  const { t } = useTranslation();
  const info = useApi('app.info', {}, { live: false });
  return (
    <Card id="set-about" title={t('settings.about')}>
      <ErrorNote error={info.error} />
      {info.data && (
        <Stack gap={2}>
          <Text size="sm">
            {info.data.name} {info.data.version} · {t(`settings.modes.${info.data.mode as 'desktop'}`)} · {info.data.platform}/{info.data.arch}
          </Text>
          <Text size="xs" c="dimmed">
            Node {info.data.versions.node}
            {info.data.versions.electron ? ` · Electron ${info.data.versions.electron} · Chrome ${String(info.data.versions.chrome)}` : ''}
          </Text>
          <Text size="xs" c="dimmed">
            {t('settings.licences', { count: info.data.licences.total })}
          </Text>
        </Stack>
      )}
    </Card>
  );
}
