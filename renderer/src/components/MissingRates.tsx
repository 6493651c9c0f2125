import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from '../lib/router';

export interface MissingRate {
  from: string;
  to: string;
  records?: number;
}

/** Settings → Currency & rates with the rate form set to the missing pair ("1 CNY = ? USD"). */
export function rateFormLink(pair: Pick<MissingRate, 'from' | 'to'>): string {
  return `/settings?tab=currency&from=${encodeURIComponent(pair.from)}&to=${encodeURIComponent(pair.to)}`;
}

/**
 * Under totals in the base currency: which records were left out because a rate is missing, with
 * a link to the rate form already set to that pair. Nothing when every amount was counted.
 */
export function MissingRatesNote({ missing, testId }: { missing: readonly MissingRate[]; testId?: string }) {
  const { t } = useTranslation();
  const first = missing.at(0);
  if (first === undefined) return null;
  const records = missing.reduce((sum, pair) => sum + (pair.records ?? 0), 0);
  const pairs = missing.map((pair) => `${pair.from} → ${pair.to}`).join(', ');
  return (
    <Text size="sm" role="status" className="pp-missing-rates" data-testid={testId ?? 'missing-rates'}>
      {records > 0 ? t('records.missingRates', { count: records, pairs }) : t('records.missingRatesPairs', { pairs })}{' '}
      <Link href={rateFormLink(first)}>{t('records.setRate', { from: first.from, to: first.to })}</Link>
    </Text>
  );
}
