import { Group, Skeleton, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorNote, ProgressBar } from '../../components/common';
import { useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { useCoins } from './coins';

export function AchievementsTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const { coins } = useCoins();
  const achievements = useApi('savings.getAchievements', {});
  const summary = achievements.data?.summary;
  return (
    <Stack>
      <ErrorNote error={achievements.error} onRetry={achievements.reload} />
      {summary && (
        <Group gap="xl">
          <Text>{t('savings.unlocked', { unlocked: summary.unlocked, total: summary.total })}</Text>
          <Text>{t('savings.coinsEarned', { coins: coins(summary.coinsEarned) })}</Text>
          <Text>
            {t('savings.streak', {
              current: t('savings.dayCount', { count: summary.bookkeepingStreak }),
              longest: t('savings.dayCount', { count: summary.longestBookkeepingStreak }),
            })}
          </Text>
        </Group>
      )}
      {!achievements.data ? (
        <Skeleton h={300} />
      ) : (
        <ul className="pp-badge-grid pp-plain-list" aria-label={t('savings.tabs.achievements')}>
          {achievements.data.list.map((a) => (
            <li key={a.id} className="pp-card pp-badge" data-testid={`achievement-${a.id}`}>
              <div className="pp-badge-medal" data-unlocked={a.completed} aria-hidden="true">
                {a.completed ? '★' : `${Math.floor((Math.min(a.progress, a.target) / a.target) * 100)}%`}
              </div>
              <div style={{ minWidth: 0, flex: 1 }}>
                <Text fw={600} size="sm">
                  {t(`savings.achievements.${a.id}.title` as 'savings.achievements.first_record.title', { defaultValue: a.title })}
                </Text>
                <Text size="xs" c="dimmed" mb={6}>
                  {t(`savings.achievements.${a.id}.description` as 'savings.achievements.first_record.description', { defaultValue: a.description })}
                </Text>
                <ProgressBar
                  value={(Math.min(a.progress, a.target) / a.target) * 100}
                  label={t('savings.achievementProgress', { progress: Math.min(a.progress, a.target), target: a.target })}
                />
                <Text size="xs" mt={4}>
                  {a.completed && a.unlockedAt
                    ? t('savings.unlockedOn', { date: f.date(a.unlockedAt) })
                    : t('savings.achievementProgress', { progress: Math.min(a.progress, a.target), target: a.target })}
                  {' · '}
                  {t('savings.rewardCoins', { coins: coins(a.reward) })}
                </Text>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Stack>
  );
}
