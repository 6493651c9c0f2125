import { useState, type SubmitEvent } from 'react';
import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call } from '../../api/client';
import { useAuth } from '../../lib/auth';
import { useErrorText } from '../../lib/errors';
import { DEVICE_INFO } from './device';

export function LoginForm() {
  const { t, i18n } = useTranslation();
  const { signIn } = useAuth();
  const errorText = useErrorText();
  // The email or the username: a name with "@" is an email (usernames have none).
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiCallError | null>(null);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const name = login.trim();
      const who = name.includes('@') ? { email: name } : { username: name };
      signIn(await call('user.login', { platform: 'email', ...who, password, deviceInfo: DEVICE_INFO }), { password });
    } catch (err) {
      setError(err as ApiCallError);
    } finally {
      setBusy(false);
    }
  };

  const disabled = error?.code === 1004 && (error.data as { disabled?: unknown } | null)?.disabled === true;
  const message = error
    ? error.code === 1002
      ? t('auth.wrongPassword')
      : disabled
        ? t('auth.reason.disabled')
        : error.code === 1004
          ? t('auth.locked', {
              time: new Date(Number((error.data as { lockedUntil?: unknown } | null)?.lockedUntil ?? Date.now() + 15 * 60_000)).toLocaleTimeString(i18n.language, {
                hour: '2-digit',
                minute: '2-digit',
              }),
            })
          : error.code === 429
            ? t('auth.tooMany')
            : errorText(error)
    : null;
  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      <Stack gap="sm">
        <TextInput
          label={t('auth.emailOrUsername')}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          value={login}
          onChange={(e) => setLogin(e.currentTarget.value)}
          data-autofocus
          autoFocus
        />
        <PasswordInput label={t('auth.password')} autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        <Button type="submit" loading={busy} disabled={!login.trim() || !password}>
          {t('auth.signIn')}
        </Button>
      </Stack>
    </form>
  );
}
