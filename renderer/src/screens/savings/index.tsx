import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/common';
import { useApi } from '../../lib/data';
import { RoutedTabs } from '../../components/RoutedTabs';
import { AchievementsTab } from './AchievementsTab';
import { useCoins } from './coins';
import { GoalsTab } from './GoalsTab';
import { LeaderboardTab } from './LeaderboardTab';
import { MarketTab } from './MarketTab';
import { PortfolioTab } from './PortfolioTab';

export function SavingsPage() {
  const { t } = useTranslation();
  const wallet = useApi('savings.getWallet', { page: 1, pageSize: 1 });
  const { coins } = useCoins();
  return (
    <div className="pp-page">
      <PageHeader title={t('savings.title')}>
        <Text size="sm" data-testid="wallet-cash">
          {t('savings.coins')}: <strong className="pp-num">{wallet.data ? coins(wallet.data.cash) : '…'}</strong>
        </Text>
      </PageHeader>
      <RoutedTabs
        path="/savings"
        tabs={[
          { value: 'goals', label: t('savings.tabs.goals'), panel: <GoalsTab /> },
          { value: 'market', label: t('savings.tabs.market'), panel: <MarketTab /> },
          { value: 'portfolio', label: t('savings.tabs.portfolio'), panel: <PortfolioTab /> },
          { value: 'achievements', label: t('savings.tabs.achievements'), panel: <AchievementsTab /> },
          { value: 'leaderboard', label: t('savings.tabs.leaderboard'), panel: <LeaderboardTab /> },
        ]}
      />
    </div>
  );
}
