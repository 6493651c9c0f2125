import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';

type Reward = { reason: string; coins: number; note: string };

export function useRewardToast() {
  const { t } = useTranslation();
  return (rewards: Reward[] | undefined) => {
    const coins = (rewards ?? []).reduce((sum, r) => sum + r.coins, 0);
    if (coins > 0) notifications.show({ color: 'yellow', title: t('savings.rewardTitle'), message: t('savings.rewardText', { coins }) });
  };
}
