import {} from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from '../../lib/router';
import { UpcomingList } from '../recurring/upcoming';
import { Card } from '../../components/Card';

/** The dashboard's "Upcoming" card: the next recurring records (30 days), overdue ones to confirm first. */
export function UpcomingCard() {
  const { t } = useTranslation();
  return (
    <Card id="dash-upcoming" title={t('recurring.card')} aside={<Link href="/recurring">{t('recurring.allUpcoming')}</Link>} data-testid="upcoming-card">
      <UpcomingList days={30} limit={5} />
    </Card>
  );
}
