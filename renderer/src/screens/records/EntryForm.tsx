import { useEffect, useState, type SubmitEvent } from 'react';
import { ActionIcon, Alert, Anchor, Button, Group, SegmentedControl, Select, TagsInput, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { paramLimits, textLimit } from '../../api/param-limits';
import { call, type ParamsOf } from '../../api/client';
import { AttachmentPicker, type PickedFile } from '../../components/AttachmentPicker';
import { focusFirstInvalid, LimitedTextInput, tooLong } from '../../components/LimitedText';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { currencyDigits, toDateInput, useFormat } from '../../lib/format';
import { daysFromToday } from './record-date';
import { lastCategory, rememberCategory, useAssets, useCategories, type RecordType } from '../../lib/ledger';
import { navigate } from '../../lib/router';
import { crossCurrencyText } from '../../lib/transfer';
import { dateValue } from './record-date';
import { DateField } from '../../components/DateField';
import { Icon } from '../../components/icons';
import { ReceivedAmountField, receivedAmount, useConversion } from './ReceivedAmount';

/**
 * The new-record form. On a phone (`phone`) it is opened by "Add" and closes after a save or with
 * its close button (`onClose`); desktop keyboard hints are left out there.
 */
export function EntryForm({ preset, phone = false, onClose }: { preset: RecordType | null; phone?: boolean; onClose?: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const assets = useAssets();
  const categories = useCategories();
  const [type, setType] = useState<RecordType>(preset ?? 'expense');
  const [asset, setAsset] = useState<string | null>(null);
  const [toAsset, setToAsset] = useState<string | null>(null);
  const [category, setCategory] = useState<string | null>(null);
  const [date, setDate] = useState(toDateInput(Date.now()));
  const [description, setDescription] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [files, setFiles] = useState<PickedFile[]>([]);
  const { run, busy, error, setError } = useAction();

  const from = asset ? assets.byId.get(asset) : undefined;
  const to = toAsset ? assets.byId.get(toAsset) : undefined;
  const crossCurrency = type === 'transfer' && from && to && from.currency !== to.currency;
  const fromCurrency = from?.currency ?? assets.baseCurrency;
  const toCurrency = to?.currency ?? fromCurrency;
  const amount = useNumberField({ kind: 'money', currency: fromCurrency, decimals: currencyDigits(fromCurrency), sign: 'positive' });
  const fee = useNumberField({ kind: 'money', currency: fromCurrency, decimals: currencyDigits(fromCurrency), sign: 'nonNegative', optional: true });
  const toAmount = useNumberField({ kind: 'money', currency: toCurrency, decimals: currencyDigits(toCurrency), sign: 'positive', optional: true });
  const amountRef = amount.ref;
  const [receivedError, setReceivedError] = useState<string | null>(null);
  const today = date === toDateInput(Date.now());
  const conversion = useConversion(crossCurrency ? { amount: amount.value, from: fromCurrency, to: toCurrency, ...(today ? {} : { date: dateValue(date) }) } : null);

  useEffect(() => {
    if (preset) {
      setType(preset);
      amountRef.current?.focus();
      navigate('/records', { replace: true });
    }
  }, [preset, amountRef]);
  // Sensible defaults: the default asset, the last category of this type.
  useEffect(() => {
    if (!asset && assets.defaultAsset) setAsset(assets.defaultAsset.id);
  }, [asset, assets.defaultAsset]);
  const typeCategories = type === 'income' ? categories.income : categories.expense;
  useEffect(() => {
    if (type === 'transfer') return;
    const remembered = lastCategory(type);
    const names = typeCategories.map((c) => c.name);
    if (category && names.includes(category)) return;
    setCategory(remembered && names.includes(remembered) ? remembered : (names[0] ?? null));
  }, [type, typeCategories, category]);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    setError(null);
    setReceivedError(null);
    if (!asset) return;
    if (!checkFields(amount, ...(type === 'transfer' ? [fee, ...(crossCurrency ? [toAmount] : [])] : []))) return;
    if (tooLong(description, textLimit('accounting.create', 'description'))) {
      focusFirstInvalid(form);
      return;
    }
    const common = { amount: amount.value ?? 0, description: description.trim() || undefined, date: dateValue(date), tags: tags.length ? tags : undefined };
    // Across currencies the amount received is always sent: the one typed, or the suggestion shown.
    const received = crossCurrency ? await receivedAmount(toAmount, { amount: common.amount, from: fromCurrency, to: toCurrency, date: common.date }) : null;
    if (crossCurrency && received === null) {
      setReceivedError(t('crossCurrency.needed', { currency: toCurrency }));
      toAmount.ref.current?.focus();
      return;
    }
    const params: ParamsOf<'accounting.create'> =
      type === 'transfer'
        ? {
            type,
            ...common,
            fromAsset: asset,
            toAsset: toAsset ?? undefined,
            fee: fee.value ?? undefined,
            toAmount: received ?? undefined,
            attachments: files.length ? files.map((f) => f.fileId) : undefined,
          }
        : { type, ...common, asset, category: category ?? undefined, attachments: files.length ? files.map((f) => f.fileId) : undefined };
    const saved = await run(() => call('accounting.create', params));
    if (!saved) return;
    if (type !== 'transfer' && category) rememberCategory(type, category);
    const amounts = crossCurrencyText(f.locale, saved);
    notifications.show({ color: 'teal', message: amounts ? t('crossCurrency.saved', { amounts }) : t('records.saved') });
    amount.reset();
    setDescription('');
    setTags([]);
    setFiles([]);
    fee.reset();
    toAmount.reset();
    if (phone && onClose) onClose();
    else amountRef.current?.focus();
  };

  const fieldErr = (name: string) => (error && error.field === name ? errorText(error) : null);
  const amountError = fieldErr('amount') ?? (error && (error.code === 3003 || error.code === 2002) ? errorText(error) : null);
  const general =
    error && !amountError && !['asset', 'fromAsset', 'toAsset', 'fee', 'toAmount', 'category', 'description', 'date', 'tags'].includes(error.field ?? '') ? errorText(error) : null;
  const assetOptions = assets.active.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }));

  if (assets.data && assets.list.length === 0) {
    return (
      <Alert color="teal" mb="md">
        <Group justify="space-between">
          <span>{t('records.needAsset')}</span>
          <Button size="xs" onClick={() => navigate('/assets?new=1')}>
            {t('dashboard.createAsset')}
          </Button>
        </Group>
      </Alert>
    );
  }

  return (
    <form className="pp-card" onSubmit={(event) => void submit(event)} aria-label={t('records.newRecord')} style={{ marginBottom: 16 }}>
      <Group justify="space-between" mb="sm">
        <SegmentedControl
          value={type}
          onChange={(v) => {
            setType(v);
            setError(null);
          }}
          data={[
            { value: 'expense', label: t('common.expense') },
            { value: 'income', label: t('common.income') },
            { value: 'transfer', label: t('common.transfer') },
          ]}
          aria-label={t('records.type')}
        />
        {phone ? (
          onClose && (
            <ActionIcon variant="subtle" color="gray" size="lg" aria-label={t('records.closeForm')} onClick={onClose}>
              <Icon name="close" />
            </ActionIcon>
          )
        ) : (
          <Text size="xs" c="dimmed">
            {t('records.enterHint')}
          </Text>
        )}
      </Group>
      <div className="pp-entry">
        <NumberField field={amount} label={t('records.amount')} required autoFocus error={amountError} />
        <Select
          label={type === 'transfer' ? t('records.fromAsset') : t('records.asset')}
          data={assetOptions}
          value={asset}
          onChange={setAsset}
          allowDeselect={false}
          error={fieldErr('asset') ?? fieldErr('fromAsset')}
          required
          searchable
        />
        {type === 'transfer' ? (
          <Select
            label={t('records.toAsset')}
            data={assetOptions.filter((o) => o.value !== asset)}
            value={toAsset}
            onChange={setToAsset}
            error={fieldErr('toAsset')}
            required
            searchable
          />
        ) : (
          <Select
            label={t('records.category')}
            data={typeCategories.map((c) => c.name)}
            value={category}
            onChange={setCategory}
            allowDeselect={false}
            error={fieldErr('category')}
            searchable
          />
        )}
        <DateField
          label={t('records.date')}
          value={date}
          onChange={setDate}
          required
          error={fieldErr('date')}
          description={
            today || !date ? undefined : (
              <span data-testid="entry-not-today">
                {t('records.notToday', { when: daysFromToday(f.locale, date) })}{' '}
                <Anchor component="button" type="button" size="xs" onClick={() => setDate(toDateInput(Date.now()))}>
                  {t('records.useToday')}
                </Anchor>
              </span>
            )
          }
        />
        {type === 'transfer' && (
          <>
            <NumberField field={fee} label={t('records.fee')} error={fieldErr('fee')} />
            {crossCurrency ? <ReceivedAmountField field={toAmount} amount={amount.value} conversion={conversion} error={receivedError ?? fieldErr('toAmount')} /> : <div />}
          </>
        )}
        <LimitedTextInput
          className={type === 'transfer' ? '' : 'pp-entry-wide'}
          label={t('records.description')}
          value={description}
          onChange={setDescription}
          max={textLimit('accounting.create', 'description')}
          error={fieldErr('description')}
        />
        <TagsInput
          className={type === 'transfer' ? '' : 'pp-entry-wide'}
          label={t('records.tags')}
          value={tags}
          onChange={setTags}
          maxTags={paramLimits('accounting.create', 'tags').maxItems}
          splitChars={[',', ' ']}
          clearable
          error={fieldErr('tags')}
        />
        {/* Last in reading and tab order (on a phone it follows Note and Tags); on a wide screen it sits at the end of the first row. */}
        <Button className="pp-entry-save" type="submit" loading={busy} disabled={amount.text.trim() === '' || !asset || (type === 'transfer' && !toAsset)}>
          {t('records.save')}
        </Button>
      </div>
      <Group mt="sm" justify="space-between" align="flex-start">
        <AttachmentPicker files={files} onChange={setFiles} />
        {general && (
          <Text c="red" size="sm" role="alert">
            {general}
          </Text>
        )}
      </Group>
    </form>
  );
}
