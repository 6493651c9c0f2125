import { useEffect, useState, type SubmitEvent } from 'react';
import { Alert, Button, Group, Select, Skeleton, Stack, Switch, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call, type ParamsOf, type ResultOf } from '../../api/client';
import { ErrorNote } from '../../components/common';
import { isManager, useAuth } from '../../lib/auth';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useChannelText } from '../push/channel-types';
import { Card } from '../../components/Card';

type Events = ParamsOf<'notify.configure'>['events'];
type Weekday = NonNullable<Events['weeklySummary']>['weekday'];
const WEEKDAYS: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const FLAGS = ['budget80', 'budget100', 'goalReached', 'syncProblem', 'backupProblem'] as const;

interface Form {
  appId: string | null;
  flags: Record<(typeof FLAGS)[number], boolean>;
  billDue: boolean;
  daysBefore: string;
  weekly: boolean;
  weekday: Weekday;
  hour: string;
}

function formOf(saved: ResultOf<'notify.get'>): Form {
  const e = saved.events;
  return {
    appId: saved.appName === null ? null : saved.appId,
    flags: { budget80: !!e.budget80, budget100: !!e.budget100, goalReached: !!e.goalReached, syncProblem: !!e.syncProblem, backupProblem: !!e.backupProblem },
    billDue: !!e.billDue,
    daysBefore: String(e.billDue?.daysBefore ?? 1),
    weekly: !!e.weeklySummary,
    weekday: e.weeklySummary?.weekday ?? 'MO',
    hour: String(e.weeklySummary?.hour ?? 9),
  };
}

/**
 * Reminders: which push app sends them and which events are on (notify.configure). The setting stays
 * on this computer, like the push apps: only this PennyPost sends the reminders.
 */
export function RemindersTab() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const words = useChannelText();
  const { session } = useAuth();
  const manager = isManager(session);
  const saved = useApi('notify.get', {});
  const apps = useApi('push.queryApps', {});
  const save = useAction();
  const [form, setForm] = useState<Form | null>(null);
  useEffect(() => {
    if (saved.data && form === null) setForm(formOf(saved.data));
  }, [saved.data, form]);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const appId = form?.appId;
    if (!form || !appId) return;
    const events: Events = {};
    for (const flag of FLAGS) if (form.flags[flag]) events[flag] = true;
    if (form.billDue) events.billDue = { daysBefore: Number(form.daysBefore) };
    if (form.weekly) events.weeklySummary = { weekday: form.weekday, hour: Number(form.hour) };
    const done = await save.run(() => call('notify.configure', { appId, events }));
    if (done) notifications.show({ color: 'teal', message: t('notify.saved') });
  };

  if (!form || !apps.data) {
    return (
      <section className="pp-card">
        <ErrorNote error={saved.error ?? apps.error} onRetry={saved.error ? saved.reload : apps.reload} />
        <Skeleton h={240} />
      </section>
    );
  }
  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });
  const appOptions = apps.data.list.map((a) => ({ value: a.id, label: `${a.name} (${words.typeName(a.channelType)})` }));
  return (
    <Card id="set-reminders" title={t('notify.heading')} hint={t('notify.hint')}>
      {saved.data?.configured && saved.data.appName === null && (
        <Alert color="orange" mb="sm">
          {t('notify.appGone')}
        </Alert>
      )}
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm" maw={560}>
          {appOptions.length === 0 ? (
            <Alert color="blue">{t('notify.noApps')}</Alert>
          ) : (
            <Select
              label={t('notify.app')}
              description={t('notify.appHint')}
              data={appOptions}
              value={form.appId}
              onChange={(v) => set({ appId: v })}
              required
              allowDeselect={false}
            />
          )}
          {FLAGS.slice(0, 2).map((flag) => (
            <Switch key={flag} label={t(`notify.events.${flag}`)} checked={form.flags[flag]} onChange={(e) => set({ flags: { ...form.flags, [flag]: e.currentTarget.checked } })} />
          ))}
          <Group gap="sm" align="center">
            <Switch label={t('notify.events.billDue')} checked={form.billDue} onChange={(e) => set({ billDue: e.currentTarget.checked })} />
            <Select
              aria-label={t('notify.daysBefore')}
              w={170}
              disabled={!form.billDue}
              data={Array.from({ length: 31 }, (_, d) => ({ value: String(d), label: d === 0 ? t('notify.onTheDay') : t('notify.daysBeforeN', { count: d }) }))}
              value={form.daysBefore}
              onChange={(v) => v !== null && set({ daysBefore: v })}
              allowDeselect={false}
            />
          </Group>
          <Switch
            label={t('notify.events.goalReached')}
            checked={form.flags.goalReached}
            onChange={(e) => set({ flags: { ...form.flags, goalReached: e.currentTarget.checked } })}
          />
          <Group gap="sm" align="center">
            <Switch label={t('notify.events.weeklySummary')} checked={form.weekly} onChange={(e) => set({ weekly: e.currentTarget.checked })} />
            <Select
              aria-label={t('notify.weekday')}
              w={140}
              disabled={!form.weekly}
              data={WEEKDAYS.map((d) => ({ value: d, label: t(`notify.weekdays.${d}`) }))}
              value={form.weekday}
              onChange={(v) => v !== null && set({ weekday: v })}
              allowDeselect={false}
            />
            <Select
              aria-label={t('notify.hour')}
              w={100}
              disabled={!form.weekly}
              data={Array.from({ length: 24 }, (_, hour) => ({ value: String(hour), label: `${String(hour).padStart(2, '0')}:00` }))}
              value={form.hour}
              onChange={(v) => v !== null && set({ hour: v })}
              allowDeselect={false}
            />
          </Group>
          {FLAGS.slice(3)
            .filter((flag) => flag !== 'backupProblem' || manager)
            .map((flag) => (
              <Switch
                key={flag}
                label={t(`notify.events.${flag}`)}
                checked={form.flags[flag]}
                onChange={(e) => set({ flags: { ...form.flags, [flag]: e.currentTarget.checked } })}
              />
            ))}
          <Text size="xs" c="dimmed">
            {t('notify.onceHint')}
          </Text>
          {save.error && (
            <Text c="red" size="sm">
              {errorText(save.error)}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={save.busy} disabled={!form.appId}>
              {t('notify.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
