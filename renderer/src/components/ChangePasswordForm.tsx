import { useState, type SubmitEvent } from 'react';
import { Alert, Button, PasswordInput, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ResultOf } from '../api/client';
import { useAuth } from '../lib/auth';
import { useErrorText } from '../lib/errors';

type ChangedAccount = ResultOf<'user.changePassword'>;

/**
 * user.changePassword: the current password (after a reset: the temporary one; none for an account
 * that never had one, like the desktop owner), the new one twice.
 */
export function ChangePasswordForm({
  temporary = false,
  initialCurrent = '',
  onDone,
  submitLabel,
}: {
  temporary?: boolean;
  initialCurrent?: string;
  onDone: (account: ChangedAccount) => void;
  submitLabel: string;
}) {
  const { t } = useTranslation();
  const { session } = useAuth();
  const errorText = useErrorText();
  const [current, setCurrent] = useState(initialCurrent);
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiCallError | null>(null);
  // Accounts without an email sign in through the desktop app (or WeChat/Alipay) and may have no password yet.
  const currentOptional = !temporary && session?.user.email === '';
  const tooShort = next.length > 0 && next.length < 8;
  const mismatch = repeat.length > 0 && repeat !== next;
  const ready = next.length >= 8 && repeat === next && (currentOptional || current.length > 0);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError(null);
    try {
      const account = await call('user.changePassword', { ...(current ? { currentPassword: current } : {}), newPassword: next });
      setCurrent('');
      setNext('');
      setRepeat('');
      onDone(account);
    } catch (err) {
      setError(err instanceof ApiCallError ? err : new ApiCallError(500, String(err)));
    } finally {
      setBusy(false);
    }
  };

  const wrongCurrent = error?.code === 1002;
  const field = wrongCurrent ? 'currentPassword' : (error?.field ?? null);
  const general = error && field !== 'currentPassword' && field !== 'newPassword' ? (error.code === 429 ? t('auth.tooMany') : errorText(error)) : null;
  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label={temporary ? t('auth.newPasswordTitle') : t('auth.changePassword')}>
      <Stack gap="sm">
        <PasswordInput
          label={temporary ? t('auth.temporaryPassword') : t('auth.currentPassword')}
          description={currentOptional ? t('auth.currentPasswordHint') : undefined}
          autoComplete="current-password"
          required={!currentOptional}
          value={current}
          onChange={(e) => setCurrent(e.currentTarget.value)}
          error={field === 'currentPassword' ? (wrongCurrent ? t('auth.wrongCurrent') : errorText(error)) : null}
        />
        <PasswordInput
          label={t('auth.newPassword')}
          description={t('auth.passwordHint')}
          autoComplete="new-password"
          required
          value={next}
          onChange={(e) => setNext(e.currentTarget.value)}
          error={tooShort ? t('auth.passwordTooShort') : field === 'newPassword' ? errorText(error) : null}
        />
        <PasswordInput
          label={t('auth.repeatNewPassword')}
          autoComplete="new-password"
          required
          value={repeat}
          onChange={(e) => setRepeat(e.currentTarget.value)}
          error={mismatch ? t('auth.mismatch') : null}
        />
        {general && (
          <Alert color="red" role="alert">
            {general}
          </Alert>
        )}
        <Button type="submit" loading={busy} disabled={!ready}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
