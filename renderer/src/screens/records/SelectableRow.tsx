import { memo } from 'react';
import { ActionIcon, Checkbox, Menu } from '@mantine/core';
import { Icon } from '../../components/icons';
import type { LedgerRecord } from '../../lib/ledger';
import { PlaceholderRow, RecordRow, type TFn } from './RecordRow';
import type { useFormat } from '../../lib/format';

export interface RowActions {
  /** Click on the checkbox; `shift` selects the range from the last clicked row. */
  onToggle: (index: number, record: LedgerRecord, shift: boolean) => void;
  onOpen: (record: LedgerRecord) => void;
  onDuplicate: (record: LedgerRecord) => void;
  onDelete: (record: LedgerRecord) => void;
}

/** A record row with its checkbox (bulk selection) and its menu (edit, duplicate, delete). */
export const SelectableRow = memo(function SelectableRow({
  record,
  index,
  selected,
  actions,
  f,
  t,
}: {
  record: LedgerRecord | undefined;
  index: number;
  selected: boolean;
  actions: RowActions;
  f: ReturnType<typeof useFormat>;
  t: TFn;
}) {
  if (!record) {
    return (
      <div className="pp-select-row">
        <span />
        <PlaceholderRow />
        <span />
      </div>
    );
  }
  const what = record.description || (record.type === 'transfer' ? t('common.transfer') : record.category);
  const label = `${f.date(record.date)}, ${what}`;
  return (
    <div className="pp-select-row" data-selected={selected || undefined}>
      <Checkbox
        size="xs"
        aria-label={t('search.selectRow', { what: label })}
        checked={selected}
        onChange={() => undefined}
        onClick={(event) => actions.onToggle(index, record, event.shiftKey)}
      />
      <RecordRow record={record} onOpen={actions.onOpen} f={f} t={t} />
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="subtle" color="gray" aria-label={t('search.menu')}>
            <Icon name="more" />
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item leftSection={<Icon name="edit" size={14} />} onClick={() => actions.onOpen(record)}>
            {t('search.edit')}
          </Menu.Item>
          <Menu.Item leftSection={<Icon name="copy" size={14} />} onClick={() => actions.onDuplicate(record)}>
            {t('search.duplicate')}
          </Menu.Item>
          <Menu.Item color="red" leftSection={<Icon name="trash" size={14} />} onClick={() => actions.onDelete(record)}>
            {t('search.delete')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </div>
  );
});
