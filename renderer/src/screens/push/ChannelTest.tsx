import { useState, type SubmitEvent } from 'react';
import { Alert, Button, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../../api/client';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useChannelTypes, type Channel } from './channel-types';

/** Tests a channel (push.testChannel), optionally with a test message to one address. */
export function ChannelTest({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const types = useChannelTypes();
  const [address, setAddress] = useState('');
  const [result, setResult] = useState<ResultOf<'push.testChannel'> | null>(null);
  const { run, busy, error } = useAction();
  const test = async (event: SubmitEvent) => {
    event.preventDefault();
    setResult(null);
    const r = await run(() => call('push.testChannel', { id: channel.id, ...(address.trim() ? { address: address.trim() } : {}) }), { invalidate: false });
    if (r) setResult(r);
  };
  return (
    <Modal opened onClose={onClose} title={t('push.testChannelTitle', { name: channel.name })}>
      <form onSubmit={(event) => void test(event)}>
        <Stack gap="sm">
          {types?.of(channel.type)?.recipients && (
            <TextInput label={t('push.testAddress')} description={t('push.testAddressHint')} value={address} onChange={(e) => setAddress(e.currentTarget.value)} />
          )}
          <Button type="submit" loading={busy}>
            {t('push.runTest')}
          </Button>
          {result && (
            <Alert color={result.ok ? 'teal' : 'red'} role="status">
              {result.ok ? t('push.testOk', { ms: Math.round(result.ms) }) : result.message}
            </Alert>
          )}
          {error && (
            <Text c="red" size="sm" role="alert">
              {errorText(error)}
            </Text>
          )}
        </Stack>
      </form>
    </Modal>
  );
}
