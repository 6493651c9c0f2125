import { useEffect } from 'react';
import { Skeleton, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Empty, ErrorNote, PageHeader } from '../../components/common';
import { useApi } from '../../lib/data';
import { DraftCard } from './DraftCard';
import { InboxAddress } from './InboxAddress';

/** How often the drafts are read again while the window is visible, should the live notices be cut off. */
const REFRESH_MS = 30_000;

/**
 * The record-by-message inbox: payment notices (a forwarded bank SMS, an Alipay or WeChat Pay
 * message, JSON from a shortcut) POSTed to the inbox's address become drafts here, newest first,
 * each to confirm (a record is written) or dismiss. A new draft shows up by itself within a moment
 * of its notice: the server says so on the push feed's stream (`event: change`, App.tsx reads
 * everything again). Also read again when the window comes back, and every 30 seconds while it is
 * visible in case the stream was down.
 */
export function InboxPage() {
  const { t } = useTranslation();
  const drafts = useApi('inbox.query', {});
  const { reload } = drafts;
  useEffect(() => {
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, REFRESH_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') reload();
    };
    window.addEventListener('focus', reload);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('focus', reload);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [reload]);
  const list = drafts.data?.list ?? [];
  return (
    <div className="pp-page">
      <PageHeader title={t('inbox.title')} />
      <Stack gap="md">
        <InboxAddress />
        <section aria-labelledby="inbox-drafts">
          <Title order={2} size="h5" id="inbox-drafts" mb="xs">
            {t('inbox.drafts')}
            {list.length > 0 && (
              <Text component="span" c="dimmed" size="sm" ml={6}>
                ({list.length})
              </Text>
            )}
          </Title>
          <ErrorNote error={drafts.error} onRetry={drafts.reload} />
          {!drafts.data ? (
            !drafts.error && <Skeleton h={120} />
          ) : list.length === 0 ? (
            <div className="pp-card">
              <Empty>{t('inbox.empty')}</Empty>
            </div>
          ) : (
            <Stack gap="sm" data-testid="inbox-drafts">
              {list.map((draft) => (
                <DraftCard key={draft.id} draft={draft} />
              ))}
            </Stack>
          )}
        </section>
      </Stack>
    </div>
  );
}
