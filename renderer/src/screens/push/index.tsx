import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/common';
import { RoutedTabs } from '../../components/RoutedTabs';
import { AppsTab } from './AppsTab';
import { ChannelsTab } from './ChannelsTab';
import { FeedTab } from './FeedTab';
import { HistoryTab } from './HistoryTab';

/** The push screen: apps (with their webhook URLs and recipients), channels, history and the live feed. */
export function PushPage() {
  const { t } = useTranslation();
  return (
    <div className="pp-page">
      <PageHeader title={t('push.title')} />
      <RoutedTabs
        path="/push"
        tabs={[
          { value: 'apps', label: t('push.tabs.apps'), panel: <AppsTab /> },
          { value: 'channels', label: t('push.tabs.channels'), panel: <ChannelsTab /> },
          { value: 'history', label: t('push.tabs.history'), panel: <HistoryTab /> },
          { value: 'feed', label: t('push.tabs.feed'), panel: <FeedTab /> },
        ]}
      />
    </div>
  );
}

export default PushPage;
