import { useState, type SubmitEvent } from 'react';
import { Alert, Button, Group, Select, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { invalidate } from '../../lib/data';
import { useFormat } from '../../lib/format';
import type { App } from './channel-types';

interface SendAnswer {
  /** The HTTP status was 2xx (the body's code is 0 on success, ServerChan style). */
  httpOk?: boolean;
  code: number;
  message: string;
  data: {
    pushId?: string;
    scheduled?: boolean;
    at?: number;
    total?: number;
    success?: number;
    failed?: number;
    results?: { recipient: string; name?: string; ok: boolean; errmsg?: string }[];
  } | null;
}

/** "Send test": a real push through the app's own /send URL, like any other client would. */
export function SendTest({ app }: { app: App }) {
  const { t } = useTranslation();
  const [title, setTitle] = useState(() => t('push.testTitle'));
  const [desp, setDesp] = useState(() => t('push.testBody'));
  /** 'now', else a /send `delay` (docs/push.md "Scheduled pushes"). */
  const [delay, setDelay] = useState('now');
  const f = useFormat();
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<SendAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const send = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    setAnswer(null);
    setError(null);
    try {
      const response = await fetch(`/send/${app.appKey}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title, desp, ...(delay !== 'now' ? { delay } : {}) }),
      });
      const body = (await response.json()) as SendAnswer;
      setAnswer({ ...body, httpOk: response.ok });
      invalidate();
    } catch {
      setError(t('errors.c0'));
    } finally {
      setBusy(false);
    }
  };
  const ok = answer && answer.httpOk && (answer.data?.failed ?? 0) === 0;
  return (
    <form onSubmit={(event) => void send(event)} aria-label={t('push.sendTest')}>
      <Title order={3} size="h6" mb={6}>
        {t('push.sendTest')}
      </Title>
      <Group align="flex-end" gap="xs">
        <TextInput size="xs" label={t('push.messageTitle')} value={title} onChange={(e) => setTitle(e.currentTarget.value)} required maxLength={200} style={{ flex: 1 }} />
        <TextInput size="xs" label={t('push.messageBody')} value={desp} onChange={(e) => setDesp(e.currentTarget.value)} style={{ flex: 2 }} />
        <Select
          size="xs"
          w={130}
          label={t('push.sendWhen')}
          value={delay}
          onChange={(value) => setDelay(value ?? 'now')}
          allowDeselect={false}
          data={(['now', '10m', '1h', '1d'] as const).map((key) => ({ value: key, label: t(`push.sendDelays.${key}`) }))}
        />
        <Button size="xs" type="submit" loading={busy} disabled={!title.trim()}>
          {t('push.send')}
        </Button>
      </Group>
      {answer && (
        <Alert color={ok ? 'teal' : 'red'} mt="xs" role="status" data-testid="send-result">
          {answer.httpOk && answer.data?.scheduled && answer.data.at !== undefined
            ? t('push.scheduledFor', { when: f.date(answer.data.at, 'datetime') })
            : answer.httpOk && answer.data?.total !== undefined
              ? t('push.sendResult', { success: answer.data.success ?? 0, total: answer.data.total })
              : answer.message}
          {answer.data?.results
            ?.filter((r) => !r.ok)
            .map((r) => (
              <Text size="xs" key={r.recipient}>
                {r.name || r.recipient}: {r.errmsg}
              </Text>
            ))}
        </Alert>
      )}
      {error && (
        <Text c="red" size="sm" role="alert">
          {error}
        </Text>
      )}
    </form>
  );
}
