import { Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { navigate } from '../../lib/router';

/**
 * What the record list says when it has no rows: with filters, that nothing matches (and a way to
 * clear them); without, that the ledger is empty, with a call to add the first record (the entry
 * form above, focused on Amount through `?new=`).
 */
export function EmptyLedger({ filtered, onClear }: { filtered: boolean; onClear: () => void }) {
  const { t } = useTranslation();
  if (filtered) {
    return (
      <div className="pp-empty" data-testid="records-empty">
        <Text size="sm">{t('records.none')}</Text>
        <Button size="xs" variant="subtle" mt={4} onClick={onClear}>
          {t('records.clearFilters')}
        </Button>
      </div>
    );
  }
  return (
    <div className="pp-empty" data-testid="records-empty">
      <Text fw={600}>{t('records.emptyLedger.title')}</Text>
      <Text size="sm" c="dimmed" mt={4}>
        {t('records.emptyLedger.text')}
      </Text>
      <Group justify="center" gap="xs" mt="sm">
        <Button size="xs" onClick={() => navigate('/records?new=expense')}>
          {t('records.emptyLedger.addExpense')}
        </Button>
        <Button size="xs" variant="default" onClick={() => navigate('/records?new=income')}>
          {t('records.emptyLedger.addIncome')}
        </Button>
      </Group>
    </div>
  );
}
