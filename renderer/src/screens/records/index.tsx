import { useEffect, useRef, useState } from 'react';
import { Button } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ApiCallError } from '../../api/client';
import { PageHeader } from '../../components/common';
import { Icon } from '../../components/icons';
import { useSearchParam } from '../../lib/router';
import { usePhone } from '../../lib/use-phone';
import { ImportButton } from '../settings/import/ImportButton';
import { EntryForm } from './EntryForm';
import { RecordList } from './RecordList';
import { SearchBox } from './SearchBox';

/**
 * The Records screen: search, the entry form, the list. On a phone the form waits behind "Add"
 * in the header (docs/ui.md "Records on a phone"), so the list starts right under the search box.
 */
export function RecordsPage() {
  const { t } = useTranslation();
  const preset = useSearchParam('new');
  const phone = usePhone();
  const [search, setSearch] = useState('');
  const [searchError, setSearchError] = useState<ApiCallError | null>(null);
  const [formOpen, setFormOpen] = useState(false);
  const type = preset === 'income' || preset === 'expense' || preset === 'transfer' ? preset : null;
  useEffect(() => {
    if (type) setFormOpen(true);
  }, [type]);
  const showForm = !phone || formOpen;
  // Closing the phone's form gives the focus back to "Add" (the next record starts there).
  const addButton = useRef<HTMLButtonElement>(null);
  const [returnFocus, setReturnFocus] = useState(false);
  useEffect(() => {
    if (returnFocus && !formOpen) {
      addButton.current?.focus();
      setReturnFocus(false);
    }
  }, [returnFocus, formOpen]);
  return (
    <div className="pp-page">
      <PageHeader title={t('records.title')}>
        <ImportButton />
        {phone && !formOpen && (
          <Button leftSection={<Icon name="plus" size={16} />} ref={addButton} onClick={() => setFormOpen(true)}>
            {t('records.add')}
          </Button>
        )}
      </PageHeader>
      <SearchBox value={search} onChange={setSearch} error={searchError} />
      {showForm && (
        <EntryForm
          preset={type}
          phone={phone}
          onClose={() => {
            setFormOpen(false);
            setReturnFocus(true);
          }}
        />
      )}
      <RecordList search={search} onSearch={setSearch} onSearchError={setSearchError} />
    </div>
  );
}
