import { useState } from 'react';
import { Anchor, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Empty } from '../../components/common';
import { useFormat } from '../../lib/format';
import { useFeed } from '../../lib/push-feed';

/** The live feed: pushes to desktop apps as they arrive (and the switch for system notifications). */
export function FeedTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const { items, status } = useFeed();
  const [permission, setPermission] = useState(() => (typeof Notification === 'undefined' ? 'denied' : Notification.permission));
  return (
    <section className="pp-card" aria-label={t('push.tabs.feed')}>
      <Group justify="space-between" mb="sm">
        <Group gap="xs">
          <Badge color={status === 'live' ? 'teal' : status === 'connecting' ? 'yellow' : 'gray'} variant="dot" data-testid="feed-status">
            {t(`push.feedStatus.${status}`)}
          </Badge>
          <Text size="sm" c="dimmed">
            {t('push.feedHint')}
          </Text>
        </Group>
        {permission === 'default' && (
          <Button size="xs" variant="default" onClick={() => void Notification.requestPermission().then(setPermission)}>
            {t('push.enableSystemNotifications')}
          </Button>
        )}
      </Group>
      {items.length === 0 ? (
        <Empty>{t('push.feedEmpty')}</Empty>
      ) : (
        <Stack gap="sm" component="ul" className="pp-plain-list" aria-label={t('push.feedList')}>
          {items.map((m) => (
            <li key={m.id} className="pp-feed-item">
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                {/* The title opens the push's own page (/m/…: the whole text, on any device with the link). */}
                <Anchor href={m.url} target="_blank" rel="noreferrer" fw={600} size="sm" className="pp-feed-title" title={t('push.openMessagePage')}>
                  {m.title}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {m.appName} · {f.date(m.createdAt, 'datetime')}
                </Text>
              </Group>
              {m.html && (
                // The server's rendering of the Markdown through the message page's allow-list (sanitize-html): never raw text as HTML.
                <div className="pp-markdown pp-feed-body" data-testid="feed-body" dangerouslySetInnerHTML={{ __html: m.html }} />
              )}
            </li>
          ))}
        </Stack>
      )}
    </section>
  );
}
