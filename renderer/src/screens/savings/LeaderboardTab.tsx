import { useState } from 'react';
import { Badge, Group, Select, Stack, Switch, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { Empty, ErrorNote } from '../../components/common';
import { useAction, useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { useCoins } from './coins';

export function LeaderboardTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const { coins } = useCoins();
  const [type, setType] = useState<'savings' | 'goals' | 'portfolio' | 'streak' | 'achievements'>('savings');
  const [period, setPeriod] = useState<'week' | 'month' | 'all'>('week');
  const board = useApi('savings.getLeaderboard', { type, period, limit: 20 });
  const prefs = useApi('savings.getPreferences', {});
  const action = useAction();
  const score = (n: number) => (type === 'portfolio' ? f.percent(n / 100, 1) : type === 'savings' ? coins(n) : f.number(n, { maximumFractionDigits: 0 }));
  return (
    <Stack>
      <Group align="flex-end">
        <Select
          label={t('savings.boardType')}
          value={type}
          onChange={(v) => v && setType(v)}
          allowDeselect={false}
          data={(['savings', 'goals', 'portfolio', 'streak', 'achievements'] as const).map((v) => ({ value: v, label: t(`savings.boards.${v}`) }))}
        />
        <Select
          label={t('savings.period')}
          value={period}
          onChange={(v) => v && setPeriod(v)}
          allowDeselect={false}
          data={(['week', 'month', 'all'] as const).map((v) => ({ value: v, label: t(`savings.periods.${v}`) }))}
        />
        <Switch
          label={t('savings.optIn')}
          checked={prefs.data?.leaderboardOptIn ?? false}
          disabled={!prefs.data || action.busy}
          onChange={(e) => void action.run(() => call('savings.setPreferences', { leaderboardOptIn: e.currentTarget.checked }))}
          mb={8}
        />
      </Group>
      <Text size="xs" c="dimmed">
        {t('savings.optInHint')}
      </Text>
      <ErrorNote error={board.error ?? action.error} />
      <section className="pp-card">
        {board.data && board.data.entries.length === 0 ? (
          <Empty>{t('savings.boardEmpty')}</Empty>
        ) : (
          <Table aria-label={t('savings.tabs.leaderboard')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={70}>{t('savings.rank')}</Table.Th>
                <Table.Th>{t('auth.username')}</Table.Th>
                <Table.Th>{t('savings.publicGoals')}</Table.Th>
                <Table.Th ta="right">{t('savings.score')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {board.data?.entries.map((e) => (
                <Table.Tr key={`${e.rank}-${e.username}`} fw={e.isMe ? 700 : undefined}>
                  <Table.Td>#{e.rank}</Table.Td>
                  <Table.Td>
                    {e.username} {e.isMe && <Badge size="xs">{t('savings.you')}</Badge>}
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {e.publicGoals.map((g) => `${g.title} ${f.percent(g.percent / 100, 0)}`).join(' · ')}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {score(e.score)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {board.data && (
          <Text size="sm" mt="sm">
            {board.data.me.optedIn
              ? t('savings.yourRank', { rank: board.data.me.rank, participants: board.data.participants, score: score(board.data.me.score) })
              : t('savings.wouldRank', { rank: board.data.me.rank, score: score(board.data.me.score) })}
          </Text>
        )}
      </section>
    </Stack>
  );
}
