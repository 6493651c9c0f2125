import { useState, type SubmitEvent } from 'react';
import { Checkbox, Group, Modal, Select, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call, type ParamsOf } from '../../api/client';
import { FormActions } from '../../components/common';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { currencyDigits } from '../../lib/format';
import { numberText } from '../../lib/parse-number';
import { ASSET_TYPES, type Asset } from '../../lib/ledger';
import { CurrencySelect } from '../../components/CurrencySelect';
import { focusFirstInvalid, LimitedTextarea, LimitedTextInput, tooLong } from '../../components/LimitedText';
import { textLimit } from '../../api/param-limits';

export function AssetEditor({ asset, baseCurrency, onClose }: { asset: Asset | null; baseCurrency: string; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [name, setName] = useState(asset?.name ?? '');
  const [type, setType] = useState<string>(asset?.type ?? 'debit_card');
  const [currency, setCurrency] = useState<string>(asset?.currency ?? baseCurrency);
  const opening = useNumberField({ kind: 'money', currency, decimals: currencyDigits(currency), sign: 'any', optional: true }, numberText(asset?.openingBalance ?? 0));
  const [description, setDescription] = useState(asset?.description ?? '');
  const [isDefault, setIsDefault] = useState(asset?.isDefault ?? false);
  const { run, busy, error } = useAction();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    if (!checkFields(opening)) return;
    if (tooLong(name, textLimit('asset.create', 'name')) || tooLong(description, textLimit('asset.create', 'description'))) {
      focusFirstInvalid(form);
      return;
    }
    const balance = opening.value ?? 0;
    const ok = asset
      ? await run(() => {
          const patch: ParamsOf<'asset.update'> = { id: asset.id, name: name.trim(), type, description, expectedUpdatedAt: asset.updatedAt };
          if (balance !== asset.openingBalance) patch.openingBalance = balance;
          if (currency !== asset.currency) patch.currency = currency;
          if (isDefault && !asset.isDefault) patch.isDefault = true;
          return call('asset.update', patch);
        })
      : await run(() => call('asset.create', { name: name.trim(), type, currency, balance, description: description || undefined, isDefault: isDefault || undefined }));
    if (ok) {
      notifications.show({ color: 'teal', message: asset ? t('assets.updated') : t('assets.created') });
      onClose();
    }
  };
  const fieldErr = (field: string) => (error && error.field === field ? errorText(error) : null);
  const general = error && !['name', 'type', 'currency', 'balance', 'openingBalance', 'description'].includes(error.field ?? '') ? errorText(error) : null;
  return (
    <Modal opened onClose={onClose} title={asset ? t('assets.editTitle') : t('assets.new')}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <LimitedTextInput label={t('assets.name')} value={name} onChange={setName} max={textLimit('asset.create', 'name')} required error={fieldErr('name')} data-autofocus />
          <Group grow align="flex-start">
            <Select
              label={t('assets.type')}
              data={ASSET_TYPES.map((v) => ({ value: v, label: t(`assets.types.${v}`) }))}
              value={type}
              onChange={(v) => v && setType(v)}
              allowDeselect={false}
              error={fieldErr('type') ?? (error?.code === 2003 ? errorText(error) : null)}
            />
            <CurrencySelect label={t('assets.currency')} value={currency} onChange={setCurrency} error={fieldErr('currency')} disabled={!!asset && (asset.recordCount ?? 0) > 0} />
          </Group>
          <NumberField
            field={opening}
            label={t('assets.openingBalance')}
            description={t('assets.openingHint')}
            error={fieldErr('balance') ?? fieldErr('openingBalance') ?? (error?.code === 2002 ? errorText(error) : null)}
          />
          <LimitedTextarea
            label={t('assets.description')}
            value={description}
            onChange={setDescription}
            max={textLimit('asset.create', 'description')}
            error={fieldErr('description')}
            autosize
            minRows={2}
          />
          <Checkbox label={t('assets.isDefault')} checked={isDefault} onChange={(e) => setIsDefault(e.currentTarget.checked)} disabled={asset?.isDefault} />
          <FormActions error={general} onCancel={onClose} busy={busy} disabled={!name.trim()} submitLabel={asset ? t('common.save') : t('assets.create')} />
        </Stack>
      </form>
    </Modal>
  );
}
