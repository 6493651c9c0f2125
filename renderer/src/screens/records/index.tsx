import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiCallError } from '../../api/client';
import { PageHeader } from '../../components/common';
import { useSearchParam } from '../../lib/router';
import { EntryForm } from './EntryForm';
import { RecordList } from './RecordList';
import { SearchBox } from './SearchBox';

export function RecordsPage() {
  const { t } = useTranslation();
  const preset = useSearchParam('new');
  const [search, setSearch] = useState('');
  const [searchError, setSearchError] = useState<ApiCallError | null>(null);
  return (
    <div className="pp-page">
      <PageHeader title={t('records.title')} />
      <SearchBox value={search} onChange={setSearch} error={searchError} />
      <EntryForm preset={preset === 'income' || preset === 'expense' || preset === 'transfer' ? preset : null} />
      <RecordList search={search} onSearch={setSearch} onSearchError={setSearchError} />
    </div>
  );
}
