import { useMemo, useState } from 'react';
import { Button, Group, Modal, Select, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useCategories, type LedgerRecord } from '../../lib/ledger';
import { showUndoToast } from './undo-toast';

/** What can be done to the checked records at once: re-categorise, add or remove a tag, delete; each can be undone from its toast. */
export function BulkBar({ selected, onClear }: { selected: LedgerRecord[]; onClear: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const categories = useCategories();
  const action = useAction();
  const [tag, setTag] = useState('');
  const [confirm, setConfirm] = useState(false);
  const count = selected.length;
  const ids = selected.map((r) => r.id);
  const hasTransfer = selected.some((r) => r.type === 'transfer');
  const categoryOptions = useMemo(() => {
    const types = [...new Set(selected.map((r) => r.type))];
    // a name every selected type has (income and expense categories are separate lists)
    const names = types.map((type) => new Set(categories.list.filter((c) => c.type === type).map((c) => c.name)));
    const firstNames = names.at(0);
    return firstNames ? [...firstNames].filter((name) => names.every((set) => set.has(name))) : [];
  }, [selected, categories.list]);
  const tagsInSelection = useMemo(() => [...new Set(selected.flatMap((r) => r.tags))].sort(), [selected]);

  const run = async (fn: () => Promise<{ undoToken: string }>, message: string) => {
    const result = await action.run(fn);
    if (!result) return;
    showUndoToast(message, result.undoToken);
    onClear();
  };
  const recategorise = (category: string) => void run(() => call('accounting.bulkUpdate', { ids, category }), t('search.recategorised', { count, category }));
  const addTag = () => {
    const value = tag.trim();
    if (!value) return;
    setTag('');
    void run(() => call('accounting.bulkUpdate', { ids, addTags: [value] }), t('search.tagAdded', { count, tag: value }));
  };
  const removeTag = (value: string) => void run(() => call('accounting.bulkUpdate', { ids, removeTags: [value] }), t('search.tagRemoved', { count, tag: value }));
  const remove = async () => {
    setConfirm(false);
    await run(() => call('accounting.bulkDelete', { ids }), t('search.deletedMany', { count }));
  };

  return (
    <div className="pp-bulkbar" role="toolbar" aria-label={t('search.bulkLabel')} data-testid="bulk-bar">
      <Text size="sm" fw={600}>
        {t('search.selected', { count })}
      </Text>
      <Select
        size="xs"
        aria-label={t('search.recategorise')}
        placeholder={hasTransfer ? t('search.noCategoryForTransfers') : t('search.recategorise')}
        data={categoryOptions}
        value={null}
        onChange={(v) => v && recategorise(v)}
        disabled={hasTransfer || action.busy}
        searchable
      />
      <Group gap={4} wrap="nowrap">
        <TextInput
          size="xs"
          aria-label={t('search.tagToAdd')}
          placeholder={t('search.tagToAdd')}
          value={tag}
          maxLength={32}
          onChange={(e) => setTag(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') addTag();
          }}
        />
        <Button size="xs" variant="default" onClick={addTag} disabled={!tag.trim() || action.busy}>
          {t('search.addTag')}
        </Button>
      </Group>
      <Select
        size="xs"
        aria-label={t('search.removeTag')}
        placeholder={t('search.removeTag')}
        data={tagsInSelection}
        value={null}
        onChange={(v) => v && removeTag(v)}
        disabled={tagsInSelection.length === 0 || action.busy}
      />
      <Button size="xs" color="red" variant="light" onClick={() => setConfirm(true)} loading={action.busy}>
        {t('search.deleteSelected')}
      </Button>
      <Button size="xs" variant="subtle" onClick={onClear}>
        {t('search.clearSelection')}
      </Button>
      {action.error && (
        <Text size="sm" c="red" role="alert" className="pp-bulkbar-error">
          {errorText(action.error)}
        </Text>
      )}
      <Modal opened={confirm} onClose={() => setConfirm(false)} title={t('search.confirmDeleteTitle', { count })}>
        <Text size="sm" mb="md">
          {t('search.confirmDeleteText')}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirm(false)}>
            {t('common.cancel')}
          </Button>
          <Button color="red" onClick={() => void remove()} data-autofocus>
            {t('search.confirmDelete', { count })}
          </Button>
        </Group>
      </Modal>
    </div>
  );
}
