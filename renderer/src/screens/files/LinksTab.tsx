import { useState, type SubmitEvent } from 'react';
import { Button, Group, Pagination, Skeleton, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { ActionsHeader, Empty, ErrorNote } from '../../components/common';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { fromDateInput, useFormat } from '../../lib/format';
import { LinkRow } from './LinkRow';
import { PAGE_SIZE } from './paging';
import { DateField } from '../../components/DateField';

export function LinksTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const [page, setPage] = useState(1);
  const links = useApi('shortlink.list', { page, pageSize: PAGE_SIZE });
  const [url, setUrl] = useState('');
  const [alias, setAlias] = useState('');
  const [title, setTitle] = useState('');
  const [expires, setExpires] = useState('');
  const [isPublic, setIsPublic] = useState(true);
  const create = useAction();
  const change = useAction();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const expireDay = fromDateInput(expires);
    const link = await create.run(() =>
      call('shortlink.create', {
        url: url.trim(),
        isPublic,
        ...(alias.trim() ? { alias: alias.trim() } : {}),
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(expireDay !== null ? { expireAt: expireDay + 86_400_000 - 1 } : {}),
      }),
    );
    if (link) {
      setUrl('');
      setAlias('');
      setTitle('');
      setExpires('');
      notifications.show({ color: 'teal', message: t('links.created', { url: link.shortUrl }) });
    }
  };
  const fieldErr = (field: string) => (create.error && create.error.field === field ? errorText(create.error) : null);
  const list = links.data?.list ?? [];
  const clicks = list.reduce((sum, l) => sum + l.accessCount, 0);
  return (
    <Stack>
      <form className="pp-card" onSubmit={(event) => void submit(event)} aria-label={t('links.new')}>
        <Group align="flex-start" gap="sm">
          <TextInput
            label={t('links.target')}
            placeholder="https://…"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            required
            style={{ flex: 3 }}
            error={fieldErr('url') ?? (create.error && !create.error.field && create.error.code === 400 ? errorText(create.error) : null)}
          />
          <TextInput
            label={t('links.alias')}
            description={t('links.aliasHint')}
            value={alias}
            onChange={(e) => setAlias(e.currentTarget.value)}
            style={{ flex: 1 }}
            error={fieldErr('alias') ?? (create.error?.code === 409 ? errorText(create.error) : null)}
          />
          <TextInput label={t('links.linkTitle')} value={title} onChange={(e) => setTitle(e.currentTarget.value)} style={{ flex: 1.5 }} maxLength={200} />
          <DateField label={t('links.expires')} clearable value={expires} onChange={setExpires} error={fieldErr('expireAt')} />
        </Group>
        <Group justify="space-between" mt="sm">
          <Switch label={t('links.public')} description={t('links.publicHint')} checked={isPublic} onChange={(e) => setIsPublic(e.currentTarget.checked)} />
          <Button type="submit" loading={create.busy} disabled={!url.trim()}>
            {t('links.create')}
          </Button>
        </Group>
      </form>
      <section className="pp-card">
        <Text size="sm" mb="sm" data-testid="link-stats">
          {links.data ? t('links.stats', { count: links.data.total, clicks: f.number(clicks) }) : '…'}
        </Text>
        <ErrorNote error={links.error ?? change.error} onRetry={links.reload} />
        {!links.data ? (
          <Skeleton h={160} />
        ) : list.length === 0 ? (
          <Empty>{t('links.none')}</Empty>
        ) : (
          <Table aria-label={t('files.tabs.links')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('links.shortUrl')}</Table.Th>
                <Table.Th>{t('links.target')}</Table.Th>
                <Table.Th ta="right">{t('links.clicks')}</Table.Th>
                <Table.Th>{t('links.lastAccess')}</Table.Th>
                <Table.Th>{t('push.status')}</Table.Th>
                <ActionsHeader width={90} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((link) => (
                <LinkRow
                  key={link.id}
                  link={link}
                  onToggle={() => void change.run(() => call('shortlink.update', { id: link.id, isPublic: !link.isPublic }))}
                  onDelete={() => void change.run(() => call('shortlink.delete', { id: link.id }))}
                />
              ))}
            </Table.Tbody>
          </Table>
        )}
        {links.data && links.data.total > PAGE_SIZE && (
          <Group justify="center" mt="sm">
            <Pagination
              total={Math.ceil(links.data.total / PAGE_SIZE)}
              value={page}
              onChange={setPage}
              size="sm"
              getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })}
            />
          </Group>
        )}
      </section>
    </Stack>
  );
}
