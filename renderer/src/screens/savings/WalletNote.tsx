import { useState } from 'react';
import { Alert, Button, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../lib/auth';
import { useApi } from '../../lib/data';
import { useCoins } from './coins';

const SEEN_KEY = 'pennypost.savings.walletNoteSeen.';

/**
 * Says where a player's coins come from, above the goals (the Savings screen's first tab) until
 * dismissed (per account and browser): the one-time welcome grant and what rewards added, so
 * "10,250 coins" on a first visit is explained. The wallet history (Portfolio) says it too.
 */
export function WalletNote() {
  const { t } = useTranslation();
  const { coins } = useCoins();
  const { session } = useAuth();
  const key = SEEN_KEY + (session?.user.id ?? '');
  const [seen, setSeen] = useState(() => readSeen(key));
  const wallet = useApi('savings.getWallet', { page: 1, pageSize: 1 });
  if (seen || !wallet.data) return null;
  const { received } = wallet.data;
  return (
    <Alert color="teal" variant="light" className="pp-wallet-note" title={t('savings.walletNote.title')} data-testid="wallet-note">
      <Text size="sm">{t('savings.walletNote.text', { welcome: coins(received.welcome) })}</Text>
      <Text size="sm" mt={4}>
        {t('savings.received', {
          total: coins(received.total),
          welcome: coins(received.welcome),
          saving: coins(received.savingDays),
          goals: coins(received.goalsCompleted),
          achievements: coins(received.achievements),
        })}
      </Text>
      <Button
        size="xs"
        variant="default"
        mt="xs"
        onClick={() => {
          writeSeen(key);
          setSeen(true);
        }}
      >
        {t('savings.walletNote.dismiss')}
      </Button>
    </Alert>
  );
}

function readSeen(key: string): boolean {
  try {
    return localStorage.getItem(key) === '1';
  } catch {
    return false;
  }
}

function writeSeen(key: string): void {
  try {
    localStorage.setItem(key, '1');
  } catch {
    /* shown again next time */
  }
}
