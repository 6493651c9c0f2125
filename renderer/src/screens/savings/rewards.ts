import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { useCoins } from './coins';

type Reward = { reason: string; coins: number; note: string };

export function useRewardToast() {
  const { t } = useTranslation();
  const { coins: format } = useCoins();
  return (rewards: Reward[] | undefined) => {
    const coins = (rewards ?? []).reduce((sum, r) => sum + r.coins, 0);
    if (coins > 0) notifications.show({ color: 'yellow', title: t('savings.rewardTitle'), message: t('savings.rewardText', { coins: format(coins) }) });
  };
}
