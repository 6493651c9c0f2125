import { Group, Select, Skeleton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction, useApi } from '../../../lib/data';
import { Card } from '../../../components/Card';

type Policy = 'open' | 'invite' | 'closed';
const INVITE_HOURS = [24, 72, 168, 720];

/** Who may sign up, from this computer and from the network, and how long invite codes last (settings registration.*). */
export function RegistrationSettings() {
  const { t } = useTranslation();
  const settings = useApi('settings.get', {});
  const save = useAction();
  const registration = settings.data?.registration;
  const update = async (patch: { fromThisComputer?: Policy; fromNetwork?: Policy; inviteHours?: number }) => {
    const done = await save.run(() => call('settings.update', { registration: patch }));
    if (done) notifications.show({ color: 'teal', message: t('household.saved') });
  };
  const policies = (['open', 'invite', 'closed'] as const).map((value) => ({ value, label: t(`household.policies.${value}`) }));
  const asPolicy = (value: string | null): Policy | null => (value === 'open' || value === 'invite' || value === 'closed' ? value : null);
  const hours = registration ? [...new Set([...INVITE_HOURS, registration.inviteHours])].sort((a, b) => a - b) : INVITE_HOURS;
  const hoursLabel = (h: number) => (h % 24 === 0 ? t('household.days', { count: h / 24 }) : t('household.hours', { count: h }));
  return (
    <Card id="hh-registration" title={t('household.registration')} hint={t('household.registrationHint')}>
      <ErrorNote error={settings.error ?? save.error} onRetry={settings.error ? settings.reload : undefined} />
      {!registration ? (
        <Skeleton h={60} />
      ) : (
        <Group align="flex-start" gap="md">
          <Select
            label={t('household.fromThisComputer')}
            data={policies}
            value={registration.fromThisComputer}
            allowDeselect={false}
            disabled={save.busy}
            w={220}
            onChange={(value) => {
              const policy = asPolicy(value);
              if (policy && policy !== registration.fromThisComputer) void update({ fromThisComputer: policy });
            }}
          />
          <Select
            label={t('household.fromNetwork')}
            data={policies}
            value={registration.fromNetwork}
            allowDeselect={false}
            disabled={save.busy}
            w={220}
            onChange={(value) => {
              const policy = asPolicy(value);
              if (policy && policy !== registration.fromNetwork) void update({ fromNetwork: policy });
            }}
          />
          <Select
            label={t('household.inviteHours')}
            data={hours.map((h) => ({ value: String(h), label: hoursLabel(h) }))}
            value={String(registration.inviteHours)}
            allowDeselect={false}
            disabled={save.busy}
            w={180}
            onChange={(value) => {
              const h = Number(value);
              if (Number.isInteger(h) && h !== registration.inviteHours) void update({ inviteHours: h });
            }}
          />
        </Group>
      )}
    </Card>
  );
}
