import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/common';
import { RoutedTabs } from '../../components/RoutedTabs';
import { AppsTab } from './AppsTab';
import { ChannelsTab } from './ChannelsTab';
import { FeedTab } from './FeedTab';
import { HistoryTab } from './HistoryTab';
import { ScheduledTab } from './ScheduledTab';

/** The push screen: apps (with their webhook URLs and recipients), channels, history, scheduled pushes and the live feed. */
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
          { value: 'scheduled', label: t('push.tabs.scheduled'), panel: <ScheduledTab /> },
          { value: 'feed', label: t('push.tabs.feed'), panel: <FeedTab /> },
        ]}
      />
    </div>
  );
}

export default PushPage;
