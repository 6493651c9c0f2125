import { Group, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from '../../lib/router';
import { UpcomingList } from '../recurring/upcoming';

/** The dashboard's "Upcoming" card: the next recurring records (30 days), overdue ones to confirm first. */
export function UpcomingCard() {
  const { t } = useTranslation();
  return (
    <section className="pp-card" aria-labelledby="dash-upcoming" data-testid="upcoming-card">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h5" id="dash-upcoming">
          {t('recurring.card')}
        </Title>
        <Link href="/recurring">{t('recurring.allUpcoming')}</Link>
      </Group>
      <UpcomingList days={30} limit={5} />
    </section>
  );
}
