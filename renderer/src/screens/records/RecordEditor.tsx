import { useEffect, useState, type SubmitEvent } from 'react';
import { Alert, Button, Group, Modal, Select, Stack, TagsInput, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { paramLimits, textLimit } from '../../api/param-limits';
import { call, type ParamsOf, type ResultOf } from '../../api/client';
import { ErrorNote } from '../../components/common';
import { AttachmentPicker, type PickedFile } from '../../components/AttachmentPicker';
import { AttachmentPreview } from '../../components/AttachmentPreview';
import { focusFirstInvalid, LimitedTextInput, tooLong } from '../../components/LimitedText';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { numberText } from '../../lib/parse-number';
import { currencyDigits, toDateInput, useFormat } from '../../lib/format';
import { useAssets, useCategories, type LedgerRecord } from '../../lib/ledger';
import { crossCurrencyText } from '../../lib/transfer';
import { dateValue } from './record-date';
import { DateField } from '../../components/DateField';
import { ReceivedAmountField, receivedAmount, useConversion } from './ReceivedAmount';
import { showUndoToast } from './undo-toast';

export function RecordEditor({ record, onClose }: { record: LedgerRecord; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const assets = useAssets();
  const categories = useCategories();
  const [detail, setDetail] = useState<ResultOf<'accounting.get'> | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [date, setDate] = useState(toDateInput(record.date));
  const [category, setCategory] = useState<string | null>(record.category);
  const [asset, setAsset] = useState<string | null>(record.asset);
  const [toAsset, setToAsset] = useState<string | null>(record.toAsset ?? null);
  const [description, setDescription] = useState(record.description);
  const [tags, setTags] = useState<string[]>(record.tags);
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const save = useAction();
  const remove = useAction();

  useEffect(() => {
    call('accounting.get', { id: record.id }).then((d) => {
      setDetail(d);
      setFiles(d.attachmentDetails.map((a) => ({ fileId: a.fileId, name: a.fileName })));
    }, setLoadError);
  }, [record.id]);

  const typeCategories = record.type === 'income' ? categories.income : categories.expense;
  // Amounts follow the currency of the asset chosen now; across currencies the amount received too.
  const fromCurrency = (asset ? assets.byId.get(asset)?.currency : undefined) ?? record.currency;
  const toCurrency = record.type === 'transfer' ? ((toAsset ? assets.byId.get(toAsset)?.currency : undefined) ?? record.toCurrency ?? fromCurrency) : fromCurrency;
  const crossCurrency = toCurrency !== fromCurrency;
  const digits = currencyDigits(fromCurrency);
  const amount = useNumberField({ kind: 'money', currency: fromCurrency, decimals: digits, sign: 'positive' }, numberText(record.amount));
  const fee = useNumberField({ kind: 'money', currency: fromCurrency, decimals: digits, sign: 'nonNegative', optional: true }, numberText(record.fee));
  const savedPair = `${record.currency}>${record.toCurrency ?? record.currency}`;
  const savedReceived = record.toCurrency && record.toCurrency !== record.currency ? numberText(record.toAmount) : '';
  const toAmount = useNumberField({ kind: 'money', currency: toCurrency, decimals: currencyDigits(toCurrency), sign: 'positive', optional: true }, savedReceived);
  const [receivedError, setReceivedError] = useState<string | null>(null);
  // Another pair of currencies: the saved amount received no longer applies (the rate's suggestion shows instead).
  const pair = `${fromCurrency}>${toCurrency}`;
  const [shownPair, setShownPair] = useState(pair);
  if (pair !== shownPair) {
    setShownPair(pair);
    toAmount.reset(pair === savedPair ? savedReceived : '');
  }
  const originalDay = toDateInput(record.date);
  const conversion = useConversion(crossCurrency ? { amount: amount.value, from: fromCurrency, to: toCurrency, date: date !== originalDay ? dateValue(date) : record.date } : null);
  const onSave = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    setReceivedError(null);
    if (!checkFields(amount, ...(record.type === 'transfer' ? [fee, ...(crossCurrency ? [toAmount] : [])] : []))) return;
    if (tooLong(description, textLimit('accounting.update', 'description'))) {
      focusFirstInvalid(form);
      return;
    }
    const recordDate = date !== originalDay ? dateValue(date) : record.date;
    const received = crossCurrency ? await receivedAmount(toAmount, { amount: amount.value ?? 0, from: fromCurrency, to: toCurrency, date: recordDate }) : null;
    if (crossCurrency && received === null) {
      setReceivedError(t('crossCurrency.needed', { currency: toCurrency }));
      toAmount.ref.current?.focus();
      return;
    }
    const patch: ParamsOf<'accounting.update'> = {
      id: record.id,
      amount: amount.value ?? 0,
      description,
      tags,
      attachments: files.map((f) => f.fileId),
      expectedUpdatedAt: detail?.updatedAt ?? record.updatedAt,
      ...(date !== originalDay ? { date: recordDate } : {}),
      ...(record.type === 'transfer'
        ? { fromAsset: asset ?? undefined, toAsset: toAsset ?? undefined, fee: fee.value ?? 0, ...(received !== null ? { toAmount: received } : {}) }
        : { asset: asset ?? undefined, category: category ?? undefined }),
    };
    const ok = await save.run(() => call('accounting.update', patch));
    if (ok) {
      notifications.show({ color: 'teal', message: t('records.updated') });
      onClose();
    }
  };
  const onDelete = async () => {
    const answer = await remove.run(() => call('accounting.delete', { id: record.id }));
    if (answer) {
      showUndoToast(t('records.deleted'), answer.undoToken);
      onClose();
    }
  };
  const savedAmounts = crossCurrencyText(f.locale, record);
  const assetOptions = assets.list.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }));
  const err = save.error;
  const fieldErr = (name: string) => (err && err.field === name ? errorText(err) : null);
  const amountError = fieldErr('amount') ?? (err && (err.code === 3003 || err.code === 2002) ? errorText(err) : null);
  const general = err && !amountError && !err.field ? (err.code === 409 ? t('records.staleEdit') : errorText(err)) : null;

  return (
    <Modal opened onClose={onClose} title={t('records.editTitle', { type: t(`common.${record.type}`) })} size="lg">
      <form onSubmit={(event) => void onSave(event)}>
        <Stack gap="sm">
          {savedAmounts && (
            <Text size="sm" className="pp-num" aria-label={`${t('crossCurrency.amounts')}: ${savedAmounts}`}>
              {savedAmounts}
            </Text>
          )}
          <Group grow align="flex-start">
            <NumberField field={amount} label={t('records.amount')} required error={amountError} data-autofocus />
            <DateField label={t('records.date')} value={date} onChange={setDate} required />
          </Group>
          <Group grow align="flex-start">
            <Select
              label={record.type === 'transfer' ? t('records.fromAsset') : t('records.asset')}
              data={assetOptions}
              value={asset}
              onChange={setAsset}
              allowDeselect={false}
              error={fieldErr('asset') ?? fieldErr('fromAsset')}
            />
            {record.type === 'transfer' ? (
              <Select label={t('records.toAsset')} data={assetOptions} value={toAsset} onChange={setToAsset} allowDeselect={false} error={fieldErr('toAsset')} />
            ) : (
              <Select
                label={t('records.category')}
                data={[...new Set([record.category, ...typeCategories.map((c) => c.name)])]}
                value={category}
                onChange={setCategory}
                allowDeselect={false}
                error={fieldErr('category')}
              />
            )}
          </Group>
          {record.type === 'transfer' && (
            <Group grow align="flex-start">
              <NumberField field={fee} label={t('records.fee')} error={fieldErr('fee')} />
              {crossCurrency && <ReceivedAmountField field={toAmount} amount={amount.value} conversion={conversion} error={receivedError ?? fieldErr('toAmount')} />}
            </Group>
          )}
          <LimitedTextInput
            label={t('records.description')}
            value={description}
            onChange={setDescription}
            max={textLimit('accounting.update', 'description')}
            error={fieldErr('description')}
          />
          <TagsInput
            label={t('records.tags')}
            value={tags}
            onChange={setTags}
            maxTags={paramLimits('accounting.update', 'tags').maxItems}
            splitChars={[',', ' ']}
            clearable
            error={fieldErr('tags')}
          />
          <div>
            <Text size="sm" fw={500} mb={4}>
              {t('records.attachments')}
            </Text>
            {loadError !== null && <ErrorNote error={loadError} />}
            {detail && detail.attachmentDetails.length > 0 && (
              <Group gap="sm" mb="xs">
                {detail.attachmentDetails
                  .filter((a) => files.some((f) => f.fileId === a.fileId))
                  .map((a) => (
                    <AttachmentPreview key={a.fileId} attachment={a} />
                  ))}
              </Group>
            )}
            <AttachmentPicker files={files} onChange={setFiles} />
          </div>
          {general && (
            <Alert color="red" role="alert">
              {general}
            </Alert>
          )}
          {confirmDelete ? (
            <Alert color="red" title={t('records.confirmDeleteTitle')}>
              <Text size="sm" mb="sm">
                {t('records.confirmDeleteText')}
              </Text>
              {remove.error && (
                <Text size="sm" c="red" role="alert" mb="sm">
                  {errorText(remove.error)}
                </Text>
              )}
              <Group>
                <Button color="red" onClick={() => void onDelete()} loading={remove.busy}>
                  {t('records.confirmDelete')}
                </Button>
                <Button variant="default" onClick={() => setConfirmDelete(false)}>
                  {t('common.cancel')}
                </Button>
              </Group>
            </Alert>
          ) : (
            <Group justify="space-between">
              <Button color="red" variant="subtle" onClick={() => setConfirmDelete(true)}>
                {t('records.delete')}
              </Button>
              <Group>
                <Button variant="default" onClick={onClose}>
                  {t('common.cancel')}
                </Button>
                <Button type="submit" loading={save.busy}>
                  {t('common.save')}
                </Button>
              </Group>
            </Group>
          )}
        </Stack>
      </form>
    </Modal>
  );
}
