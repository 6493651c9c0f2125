import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/common';
import { RoutedTabs } from '../../components/RoutedTabs';
import { FilesTab } from './FilesTab';
import { LinksTab } from './LinksTab';

/** Files & links: uploaded files (receipts, statements, photos, documents) and short links. */
export function FilesPage() {
  const { t } = useTranslation();
  return (
    <div className="pp-page">
      <PageHeader title={t('files.title')} />
      <RoutedTabs
        path="/files"
        tabs={[
          { value: 'files', label: t('files.tabs.files'), panel: <FilesTab /> },
          { value: 'links', label: t('files.tabs.links'), panel: <LinksTab /> },
        ]}
      />
    </div>
  );
}
