import { useEffect, useState } from 'react';
import { Button, Group, Menu, Skeleton, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { ActionsHeader, Empty, ErrorNote } from '../../components/common';
import { useAction, useApi } from '../../lib/data';
import { navigate, useSearchParam } from '../../lib/router';
import { ChannelEditor } from './ChannelEditor';
import { ChannelTest } from './ChannelTest';
import { useChannelText, useChannelTypes, type Channel } from './channel-types';
import { RowMenu } from '../../components/RowMenu';

/** Channels: the list with each one's settings in short, and its test, edit and delete actions. */
export function ChannelsTab() {
  const { t } = useTranslation();
  const words = useChannelText();
  const types = useChannelTypes();
  const channels = useApi('push.queryChannels', {});
  const [editing, setEditing] = useState<Channel | 'new' | null>(null);
  const [testing, setTesting] = useState<Channel | null>(null);
  const remove = useAction();
  // "New channel" elsewhere (the Apps tab with no channel yet) opens the editor here: ?tab=channels&new=1.
  const wantsNew = useSearchParam('new') === '1';
  useEffect(() => {
    if (!wantsNew) return;
    setEditing('new');
    navigate('/push?tab=channels', { replace: true });
  }, [wantsNew]);
  /** The settings that sum a channel up (its driver names them), e.g. "wx… · https://api.weixin.qq.com". */
  const summary = (c: Channel) =>
    (types?.of(c.type)?.summary ?? [])
      .map((key) => c.config[key])
      .filter((value) => value !== undefined && value !== null && value !== '')
      .map(String)
      .join(' · ') || '—';
  return (
    <section className="pp-card">
      <Group justify="space-between" mb="sm">
        <Text size="sm" c="dimmed">
          {t('push.channelsHint')}
        </Text>
        <Button onClick={() => setEditing('new')}>{t('push.newChannel')}</Button>
      </Group>
      <ErrorNote error={channels.error ?? remove.error} onRetry={channels.reload} />
      {!channels.data ? (
        <Skeleton h={120} />
      ) : channels.data.list.length === 0 ? (
        <Empty>{t('push.noChannels')}</Empty>
      ) : (
        <Table aria-label={t('push.tabs.channels')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('push.channelName')}</Table.Th>
              <Table.Th>{t('push.channelType')}</Table.Th>
              <Table.Th>{t('push.settings')}</Table.Th>
              <Table.Th>{t('push.tabs.apps')}</Table.Th>
              <ActionsHeader width={60} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {channels.data.list.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td fw={500}>{c.name}</Table.Td>
                <Table.Td>{words.typeName(c.type)}</Table.Td>
                <Table.Td>
                  <Text size="xs" c="dimmed" className="pp-code">
                    {summary(c)}
                  </Text>
                </Table.Td>
                <Table.Td>{c.appCount}</Table.Td>
                <Table.Td>
                  <RowMenu label={t('push.channelActions', { name: c.name })}>
                    <Menu.Item onClick={() => setTesting(c)}>{t('push.testChannel')}</Menu.Item>
                    <Menu.Item onClick={() => setEditing(c)}>{t('assets.edit')}</Menu.Item>
                    <Menu.Item color="red" onClick={() => void remove.run(() => call('push.deleteChannel', { id: c.id }))}>
                      {t('assets.delete')}
                    </Menu.Item>
                  </RowMenu>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {editing && <ChannelEditor channel={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      {testing && <ChannelTest channel={testing} onClose={() => setTesting(null)} />}
    </section>
  );
}
