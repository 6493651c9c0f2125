import { useState, type SubmitEvent } from 'react';
import { ActionIcon, Button, Group, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { ActionsHeader, Empty, ErrorNote } from '../../components/common';
import { CurrencySelect } from '../../components/CurrencySelect';
import { Icon } from '../../components/icons';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { fromDateInput, toDateInput, useFormat } from '../../lib/format';
import { languageCurrency } from '../../lib/locale';
import { DateField } from '../../components/DateField';
import { useSearchParam } from '../../lib/router';
import { Card } from '../../components/Card';

export function CurrencyTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const base = useApi('currency.get', {});
  const rates = useApi('currency.listRates', {});
  const setBase = useAction();
  // The form starts on the pair that is missing (a link from a "rate missing" note names it), never on "1 USD = ? USD".
  const linkedFrom = useSearchParam('from');
  const linkedTo = useSearchParam('to');
  const assetStats = useApi('stats.getAssetStats', {});
  const [chosenFrom, setFrom] = useState<string | null>(null);
  const [chosenTo, setTo] = useState<string | null>(null);
  const rate = useNumberField({ kind: 'rate' });
  const [date, setDate] = useState(toDateInput(Date.now()));
  const add = useAction();
  const remove = useAction();
  const baseCurrency = base.data?.baseCurrency ?? languageCurrency(f.locale);
  const missing = assetStats.data?.missingRates[0];
  const to = chosenTo ?? linkedTo ?? missing?.to ?? baseCurrency;
  const from = chosenFrom ?? linkedFrom ?? missing?.from ?? (to === 'USD' ? 'EUR' : 'USD');
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (!checkFields(rate) || !rate.parsed.ok) return;
    const exact = rate.parsed.text; // the decimal as typed, without grouping: rates travel as exact text
    const day = fromDateInput(date);
    const ok = await add.run(() => call('currency.setRate', { from, to, rate: exact, ...(day !== null ? { date: day } : {}) }));
    if (ok) rate.reset();
  };
  return (
    <Stack>
      <Card id="set-base" title={t('settings.baseCurrency')} hint={t('settings.baseCurrencyHint')}>
        {base.data ? (
          <CurrencySelect
            aria-labelledby="set-base"
            value={baseCurrency}
            w={200}
            onChange={(v) => void setBase.run(() => call('currency.setBase', { currency: v }))}
            error={setBase.error ? errorText(setBase.error) : null}
          />
        ) : (
          <Skeleton h={36} w={200} />
        )}
        {base.data && !base.data.explicit && (
          <Text size="xs" c="dimmed" mt={4}>
            {t('settings.baseDerived')}
          </Text>
        )}
      </Card>
      <Card id="set-rates" title={t('settings.rates')}>
        <form onSubmit={(event) => void submit(event)}>
          <Group align="flex-start" gap="xs" mb="sm">
            <CurrencySelect label={t('settings.rateFrom')} value={from} onChange={setFrom} w={120} />
            <CurrencySelect label={t('settings.rateTo')} value={to} onChange={setTo} w={120} />
            <NumberField
              field={rate}
              label={t('settings.rate')}
              description={t('settings.rateHint', { from, to })}
              required
              w={200}
              error={add.error ? errorText(add.error) : null}
            />
            <DateField w={160} label={t('settings.rateDate')} value={date} onChange={setDate} />
            <Button type="submit" mt={24} loading={add.busy} disabled={rate.text.trim() === ''}>
              {t('settings.addRate')}
            </Button>
          </Group>
        </form>
        <ErrorNote error={rates.error ?? remove.error} onRetry={rates.reload} />
        {rates.data && rates.data.list.length === 0 ? (
          <Empty>{t('settings.noRates')}</Empty>
        ) : (
          <Table aria-labelledby="set-rates">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('settings.pair')}</Table.Th>
                <Table.Th ta="right">{t('settings.rate')}</Table.Th>
                <Table.Th>{t('settings.rateDate')}</Table.Th>
                <ActionsHeader width={40} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rates.data?.list.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    1 {r.from} → {r.to}
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {r.rate}
                  </Table.Td>
                  <Table.Td>{f.date(r.date)}</Table.Td>
                  <Table.Td>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={t('settings.deleteRate', { from: r.from, to: r.to })}
                      onClick={() => void remove.run(() => call('currency.deleteRate', { id: r.id }))}
                    >
                      <Icon name="trash" size={16} />
                    </ActionIcon>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Card>
    </Stack>
  );
}
