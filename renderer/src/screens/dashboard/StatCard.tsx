import { Skeleton, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../../lib/format';

export function StatCard({ label, loading, testId, children }: { label: string; loading: boolean; testId: string; children: React.ReactNode }) {
  return (
    <div className="pp-card pp-stat-card" data-testid={testId}>
      <div className="pp-stat-label">{label}</div>
      {loading ? <Skeleton h={32} mt={4} /> : <div className="pp-stat-value">{children}</div>}
    </div>
  );
}

export function Compare({ current, previous, currency, goodWhenUp }: { current: number; previous: number; currency: string; goodWhenUp: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  const diff = current - previous;
  if (previous === 0 && current === 0) return null;
  const up = diff > 0;
  const good = diff === 0 ? undefined : up === goodWhenUp;
  return (
    <Text size="xs" c={good === undefined ? 'dimmed' : good ? 'teal' : 'red'} fw={500}>
      {t('dashboard.vsLastMonth', { diff: f.money(diff, currency, { sign: true }) })}
    </Text>
  );
}
