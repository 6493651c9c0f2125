import { useState, type FormEvent } from 'react';
import { Alert, Button, Group, PasswordInput, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call } from '../api/client';
import { useAuth } from '../lib/auth';
import { useErrorText } from '../lib/errors';
import { navigate, usePath } from '../lib/router';
import { LanguageSelect, ThemeToggle } from '../components/Prefs';

const DEVICE_INFO = 'PennyPost desktop';

export function AuthPage() {
  const { t } = useTranslation();
  const { reason } = useAuth();
  const path = usePath();
  const tab = path === '/register' ? 'register' : 'login';
  return (
    <div className="pp-auth">
      <div className="pp-card pp-auth-card">
        <Group justify="space-between" mb="md">
          <div className="pp-brand">
            <span className="pp-brand-mark" aria-hidden="true">
              P
            </span>
            PennyPost
          </div>
          <Group gap={8}>
            <LanguageSelect />
            <ThemeToggle />
          </Group>
        </Group>
        <Title order={1} size="h3" mb={4}>
          {tab === 'login' ? t('auth.welcomeBack') : t('auth.welcome')}
        </Title>
        <Text c="dimmed" size="sm" mb="md">
          {t('auth.tagline')}
        </Text>
        {reason && reason !== 'signedOut' && (
          <Alert color="yellow" mb="md" role="status">
            {t(`auth.reason.${reason}`)}
          </Alert>
        )}
        {reason === 'signedOut' && (
          <Alert color="teal" mb="md" role="status">
            {t('auth.reason.signedOut')}
          </Alert>
        )}
        <Tabs value={tab} onChange={(value) => navigate(value === 'register' ? '/register' : '/login', { replace: true })} keepMounted={false}>
          <Tabs.List grow mb="md">
            <Tabs.Tab value="login">{t('auth.signIn')}</Tabs.Tab>
            <Tabs.Tab value="register">{t('auth.createAccount')}</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="login">
            <LoginForm />
          </Tabs.Panel>
          <Tabs.Panel value="register">
            <RegisterForm />
          </Tabs.Panel>
        </Tabs>
      </div>
    </div>
  );
}

function LoginForm() {
  const { t, i18n } = useTranslation();
  const { signIn } = useAuth();
  const errorText = useErrorText();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiCallError | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      signIn(await call('user.login', { platform: 'email', email: email.trim(), password, deviceInfo: DEVICE_INFO }));
    } catch (err) {
      setError(err as ApiCallError);
    } finally {
      setBusy(false);
    }
  };

  const message = error
    ? error.code === 1002
      ? t('auth.wrongPassword')
      : error.code === 1004
        ? t('auth.locked', { time: new Date(Number((error.data as { lockedUntil?: number } | null)?.lockedUntil ?? Date.now() + 15 * 60_000)).toLocaleTimeString(i18n.language, { hour: '2-digit', minute: '2-digit' }) })
        : error.code === 429
          ? t('auth.tooMany')
          : errorText(error)
    : null;
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <TextInput label={t('auth.email')} type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} data-autofocus autoFocus />
        <PasswordInput label={t('auth.password')} autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        <Button type="submit" loading={busy} disabled={!email || !password}>
          {t('auth.signIn')}
        </Button>
      </Stack>
    </form>
  );
}

function RegisterForm() {
  const { t } = useTranslation();
  const { signIn } = useAuth();
  const errorText = useErrorText();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiCallError | null>(null);
  const mismatch = confirm.length > 0 && confirm !== password;
  const tooShort = password.length > 0 && password.length < 8;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mismatch || tooShort) return;
    setBusy(true);
    setError(null);
    try {
      signIn(await call('user.register', { username: username.trim(), email: email.trim(), password, deviceInfo: DEVICE_INFO }));
    } catch (err) {
      setError(err as ApiCallError);
    } finally {
      setBusy(false);
    }
  };
  const field = error?.field ?? null;
  const general = error && !['username', 'email', 'password'].includes(field ?? '') ? (error.code === 429 ? t('auth.tooMany') : errorText(error)) : null;
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <TextInput
          label={t('auth.username')}
          description={t('auth.usernameHint')}
          autoComplete="username"
          required
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          error={field === 'username' ? errorText(error) : null}
          autoFocus
        />
        <TextInput label={t('auth.email')} type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={field === 'email' ? errorText(error) : null} />
        <PasswordInput
          label={t('auth.password')}
          description={t('auth.passwordHint')}
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={tooShort ? t('auth.passwordTooShort') : field === 'password' ? errorText(error) : null}
        />
        <PasswordInput label={t('auth.confirmPassword')} autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.currentTarget.value)} error={mismatch ? t('auth.mismatch') : null} />
        {general && (
          <Alert color="red" role="alert">
            {general}
          </Alert>
        )}
        <Button type="submit" loading={busy} disabled={!username || !email || !password || !confirm || mismatch || tooShort}>
          {t('auth.createAccount')}
        </Button>
      </Stack>
    </form>
  );
}
