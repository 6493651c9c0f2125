import { useState } from 'react';
import { Button, Code, Group, List, Skeleton, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../../api/client';
import { CopyButton, ErrorNote } from '../../components/common';
import { useAction, useApi } from '../../lib/data';
import { Card } from '../../components/Card';

/**
 * The inbox's own address (inbox.getKey): copy it, or replace it by a new one (the old one stops
 * working at once), and how to send to it — a forwarded bank SMS as plain text, or JSON from an
 * iOS Shortcut or a script.
 */
export function InboxAddress() {
  const { t } = useTranslation();
  const key = useApi('inbox.getKey', {}, { live: false });
  const [rotated, setRotated] = useState<ResultOf<'inbox.getKey'> | null>(null);
  const rotate = useAction();
  const url = rotated?.url ?? key.data?.url ?? '';
  const newAddress = async () => {
    if (!window.confirm(t('inbox.rotateConfirm'))) return;
    const answer = await rotate.run(() => call('inbox.getKey', { rotate: true }), { invalidate: false });
    if (answer) setRotated(answer);
  };
  const textExample = `curl -d '您尾号1234的卡消费25.00元' ${url}`;
  const jsonExample = `curl -H 'Content-Type: application/json' -d '{"amount": 25.5, "merchant": "星巴克", "type": "expense", "card": "1234"}' ${url}`;
  return (
    <Card id="inbox-address" title={t('inbox.address')} hint={t('inbox.addressHint')}>
      <ErrorNote error={key.error} onRetry={key.reload} />
      {!key.data && !key.error ? (
        <Skeleton h={36} />
      ) : (
        <Group gap="xs" wrap="nowrap" align="flex-end">
          <TextInput label={t('inbox.url')} value={url} readOnly style={{ flex: 1, minWidth: 0 }} data-testid="inbox-url" onFocus={(e) => e.currentTarget.select()} />
          <CopyButton value={url} label={t('inbox.copyUrl')} />
          <Button variant="default" onClick={() => void newAddress()} loading={rotate.busy} disabled={!url}>
            {t('inbox.rotate')}
          </Button>
        </Group>
      )}
      <ErrorNote error={rotate.error} />
      <details style={{ marginTop: 12 }}>
        <summary>
          <Text component="span" size="sm" fw={600}>
            {t('inbox.howTo')}
          </Text>
        </summary>
        <List size="sm" spacing={6} mt="xs">
          <List.Item>
            {t('inbox.howToText')}
            <Code block className="pp-code" mt={4}>
              {textExample}
            </Code>
          </List.Item>
          <List.Item>
            {t('inbox.howToShortcut')}
            <Code block className="pp-code" mt={4}>
              {jsonExample}
            </Code>
          </List.Item>
          <List.Item>{t('inbox.howToAsset')}</List.Item>
        </List>
      </details>
    </Card>
  );
}
