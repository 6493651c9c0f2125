import { useState } from 'react';
import { Button, Group, SegmentedControl, Skeleton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Empty, ErrorNote } from '../../components/common';
import { useApi } from '../../lib/data';
import { GoalCard } from './GoalCard';
import { GoalEditor } from './GoalEditor';
import { WalletNote } from './WalletNote';

export function GoalsTab() {
  const { t } = useTranslation();
  const [status, setStatus] = useState<'open' | 'completed' | 'all'>('open');
  const [creating, setCreating] = useState(false);
  const goals = useApi('savings.queryGoals', { page: 1, pageSize: 100, ...(status === 'completed' ? { status: 'completed' as const } : {}) });
  const list = (goals.data?.list ?? []).filter((g) => status !== 'open' || g.status === 'active' || g.status === 'paused');
  return (
    <>
      <WalletNote />
      <Group justify="space-between" mb="md">
        <SegmentedControl
          aria-label={t('savings.goalFilter')}
          value={status}
          onChange={(v) => setStatus(v)}
          data={[
            { value: 'open', label: t('savings.filter.open') },
            { value: 'completed', label: t('savings.filter.completed') },
            { value: 'all', label: t('savings.filter.all') },
          ]}
        />
        <Button onClick={() => setCreating(true)}>{t('savings.newGoal')}</Button>
      </Group>
      <ErrorNote error={goals.error} onRetry={goals.reload} />
      {!goals.data ? (
        <Skeleton h={200} />
      ) : list.length === 0 ? (
        <div className="pp-card">
          <Empty>{t('savings.noGoals')}</Empty>
        </div>
      ) : (
        <div className="pp-grid pp-grid-2">
          {list.map((goal) => (
            <GoalCard key={goal.id} goal={goal} />
          ))}
        </div>
      )}
      {creating && <GoalEditor onClose={() => setCreating(false)} />}
    </>
  );
}
