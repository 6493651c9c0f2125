import { Skeleton, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export function Summary({
  label,
  value,
  tone,
  note,
  trend,
  previous,
}: {
  label: string;
  value: string | null;
  tone?: string;
  note: string;
  trend?: 'up' | 'down' | 'stable';
  previous?: string;
}) {
  const { t } = useTranslation();
  return (
    <div className="pp-card">
      <div className="pp-stat-label">{label}</div>
      {value === null ? <Skeleton h={30} /> : <div className={`pp-stat-value ${tone ?? ''}`}>{value}</div>}
      <Text size="xs" c="dimmed">
        {note}
        {trend && previous ? ` · ${t(`stats.trend.${trend}`)} ${t('stats.previous', { amount: previous })}` : ''}
      </Text>
    </div>
  );
}
