import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/common';
import { useSearchParam } from '../../lib/router';
import { EntryForm } from './EntryForm';
import { RecordList } from './RecordList';

export function RecordsPage() {
  const { t } = useTranslation();
  const preset = useSearchParam('new');
  return (
    <div className="pp-page">
      <PageHeader title={t('records.title')} />
      <EntryForm preset={preset === 'income' || preset === 'expense' || preset === 'transfer' ? preset : null} />
      <RecordList />
    </div>
  );
}
