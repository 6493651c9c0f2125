import { useState, type SubmitEvent } from 'react';
import { Chip, Group, Modal, SegmentedControl, Select, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call, type ParamsOf } from '../../api/client';
import { DateField } from '../../components/DateField';
import { FormActions } from '../../components/common';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { addDays, currencyDigits, fromDateInput, timeZone, toDateInput } from '../../lib/format';
import { useAssets, useCategories } from '../../lib/ledger';
import type { RecurringItem } from './recurring-item';

const FREQS = ['daily', 'weekly', 'monthly', 'yearly'] as const;
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
type Freq = (typeof FREQS)[number];
type RecordKind = 'expense' | 'income' | 'transfer';
type CreateParams = ParamsOf<'recurring.create'>;

const pad = (n: number) => String(n).padStart(2, '0');
const timeOf = (ms: number) => `${pad(new Date(ms).getHours())}:${pad(new Date(ms).getMinutes())}`;

/** New recurring record or edit one: what it writes (the template) and when (the schedule, field `rule`), auto or to confirm. */
export function RecurringEditor({ item, onClose }: { item?: RecurringItem; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const assets = useAssets();
  const categories = useCategories();
  const [name, setName] = useState(item?.name ?? '');
  const [type, setType] = useState<RecordKind>(item?.template.type ?? 'expense');
  const [asset, setAsset] = useState<string | null>(item?.template.asset ?? null);
  const [toAsset, setToAsset] = useState<string | null>(item?.template.toAsset || null);
  const [category, setCategory] = useState<string | null>(item?.template.category || null);
  const [description, setDescription] = useState(item?.template.description ?? '');
  const [freq, setFreq] = useState<Freq>(item?.rule.freq ?? 'monthly');
  const [interval, setInterval] = useState(String(item?.rule.interval ?? 1));
  const [monthDay, setMonthDay] = useState<string>(String(item?.rule.byMonthDay ?? 0));
  const [weekdays, setWeekdays] = useState<string[]>(item?.rule.byWeekday ?? []);
  const [start, setStart] = useState(toDateInput(item?.startDate ?? addDays(Date.now(), 1)));
  const [time, setTime] = useState(item ? timeOf(item.startDate) : '09:00');
  const [end, setEnd] = useState(item?.endDate ? toDateInput(item.endDate) : '');
  const [mode, setMode] = useState<'auto' | 'confirm'>(item?.mode ?? 'auto');
  const { run, busy, error } = useAction();
  const chosen = (asset && assets.byId.get(asset)) || assets.defaultAsset;
  const currency = chosen?.currency ?? assets.baseCurrency;
  const amount = useNumberField({ kind: 'money', currency, decimals: currencyDigits(currency), sign: 'positive' }, item ? String(item.template.amount) : '');

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const day = fromDateInput(start);
    if (day === null || !checkFields(amount) || !chosen) return;
    const [h = 9, m = 0] = (/^\d{1,2}:\d{2}$/.test(time) ? time : '09:00').split(':').map(Number);
    const startDate = day + (h * 60 + m) * 60_000;
    const endDay = end ? fromDateInput(end) : null;
    const params: CreateParams = {
      name: name.trim() || undefined,
      template: {
        type,
        amount: amount.value ?? 0,
        asset: chosen.id,
        ...(type === 'transfer' ? { toAsset: toAsset ?? '' } : category ? { category } : {}),
        description,
      },
      rule: {
        freq,
        interval: Math.max(1, Number(interval) || 1),
        ...(freq === 'weekly' && weekdays.length > 0 ? { byWeekday: WEEKDAYS.filter((d) => weekdays.includes(d)) } : {}),
        ...((freq === 'monthly' || freq === 'yearly') && Number(monthDay) !== 0 ? { byMonthDay: Number(monthDay) } : {}),
      },
      startDate,
      endDate: endDay === null ? null : endDay + 86_400_000 - 1,
      timeZone,
      mode,
    };
    const saved = await run(() => (item ? call('recurring.update', { id: item.id, ...params }) : call('recurring.create', params)));
    if (saved) onClose();
  };
  const assetOptions = assets.active.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }));
  const categoryOptions = (type === 'income' ? categories.income : categories.expense).map((c) => ({ value: c.name, label: c.name }));
  const dayOptions = [
    { value: '0', label: t('recurring.sameDay') },
    { value: '-1', label: t('recurring.lastDay') },
    ...Array.from({ length: 31 }, (_, i) => ({ value: String(i + 1), label: t('recurring.onDay', { day: i + 1 }) })),
  ];
  const fieldError = (field: string) => (error && error.field === field ? errorText(error) : null);
  return (
    <Modal opened onClose={onClose} title={item ? t('recurring.editTitle', { name: item.name }) : t('recurring.new')} size="lg">
      <form onSubmit={(event) => void submit(event)} aria-label={t('recurring.form')}>
        <Stack gap="sm">
          <TextInput label={t('recurring.name')} value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={100} data-autofocus />
          <SegmentedControl
            aria-label={t('recurring.type')}
            value={type}
            onChange={(v) => setType(v)}
            data={(['expense', 'income', 'transfer'] as const).map((k) => ({ value: k, label: t(`common.${k}`) }))}
          />
          <Group grow align="flex-start">
            <NumberField field={amount} label={t('recurring.amount')} required error={fieldError('template.amount')} />
            <Select label={t('recurring.asset')} data={assetOptions} value={chosen?.id ?? null} onChange={setAsset} allowDeselect={false} required />
          </Group>
          {type === 'transfer' ? (
            <Select label={t('recurring.toAsset')} data={assetOptions.filter((o) => o.value !== chosen?.id)} value={toAsset} onChange={setToAsset} required />
          ) : (
            <Select label={t('recurring.category')} data={categoryOptions} value={category} onChange={setCategory} clearable searchable />
          )}
          <TextInput label={t('recurring.description')} value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={1000} />
          <Group grow align="flex-start">
            <Select
              label={t('recurring.freq')}
              data={FREQS.map((k) => ({ value: k, label: t(`recurring.freqs.${k}`) }))}
              value={freq}
              onChange={(v) => v && setFreq(v)}
              allowDeselect={false}
            />
            <TextInput label={t('recurring.interval')} type="number" min={1} max={1000} value={interval} onChange={(e) => setInterval(e.currentTarget.value)} />
            {(freq === 'monthly' || freq === 'yearly') && (
              <Select label={t('recurring.monthDay')} data={dayOptions} value={monthDay} onChange={(v) => v && setMonthDay(v)} allowDeselect={false} />
            )}
          </Group>
          {freq === 'weekly' && (
            <Chip.Group multiple value={weekdays} onChange={setWeekdays}>
              <Group gap={4} aria-label={t('recurring.weekdaysLabel')}>
                {WEEKDAYS.map((d) => (
                  <Chip key={d} value={d} size="xs">
                    {t(`recurring.weekdays.${d}`)}
                  </Chip>
                ))}
              </Group>
            </Chip.Group>
          )}
          <Group grow align="flex-start">
            <DateField label={t('recurring.startDate')} value={start} onChange={setStart} required />
            <TextInput label={t('recurring.time')} type="time" value={time} onChange={(e) => setTime(e.currentTarget.value)} />
            <DateField label={t('recurring.endDate')} value={end} onChange={setEnd} clearable />
          </Group>
          <SegmentedControl
            aria-label={t('recurring.mode')}
            value={mode}
            onChange={(v) => setMode(v)}
            data={[
              { value: 'auto', label: t('recurring.modes.auto') },
              { value: 'confirm', label: t('recurring.modes.confirm') },
            ]}
          />
          <FormActions error={error && error.field !== 'template.amount' ? errorText(error) : null} onCancel={onClose} busy={busy} submitLabel={t('recurring.save')} />
        </Stack>
      </form>
    </Modal>
  );
}
