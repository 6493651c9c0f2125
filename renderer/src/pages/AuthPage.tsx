import { useCallback, useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { Alert, Button, Center, Divider, Group, Loader, PasswordInput, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ResultOf } from '../api/client';
import { useAuth } from '../lib/auth';
import { useApi } from '../lib/data';
import { desktopBridge, rememberedOwnerName, rememberOwnerName } from '../lib/desktop';
import { useErrorText } from '../lib/errors';
import { navigate, usePath } from '../lib/router';
import { LanguageSelect, ThemeToggle } from '../components/Prefs';

const DEVICE_INFO = 'PennyPost desktop';
/** The desktop window signs its owner in by itself once per start (not again after signing out). */
let desktopTried = false;

type RegistrationInfo = ResultOf<'user.registrationInfo'>;

/** The card of the screens before the app: brand, language and theme, a title. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
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
          {title}
        </Title>
        <Text c="dimmed" size="sm" mb="md">
          {t('auth.tagline')}
        </Text>
        {children}
      </div>
    </div>
  );
}

export function AuthPage() {
  const { t } = useTranslation();
  const { reason, signIn } = useAuth();
  const errorText = useErrorText();
  const path = usePath();
  const tab = path === '/register' ? 'register' : 'login';
  const info = useApi('user.registrationInfo', {}, { live: false });

  // Inside the desktop app the owner needs no password: the shell hands the window a one-time secret.
  const bridge = useMemo(() => desktopBridge(), []);
  const [auto, setAuto] = useState(() => bridge !== null && reason === null && !desktopTried);
  const [desktop, setDesktop] = useState<{ busy: boolean; error: unknown }>({ busy: false, error: null });
  const continueAsOwner = useCallback(async () => {
    if (!bridge) return;
    setDesktop({ busy: true, error: null });
    try {
      const secret = await bridge.desktopSignInSecret();
      if (!secret) throw new Error('no desktop sign-in secret');
      const result = await call('user.desktopSignIn', { secret, deviceInfo: DEVICE_INFO });
      rememberOwnerName(result.username);
      signIn(result);
    } catch (error) {
      setDesktop({ busy: false, error });
      setAuto(false);
    }
  }, [bridge, signIn]);
  useEffect(() => {
    if (!auto || desktopTried) return;
    desktopTried = true;
    void continueAsOwner();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  if (auto) {
    return (
      <Center h="100vh">
        <Loader aria-label={t('auth.desktopSigningIn')} />
      </Center>
    );
  }
  const firstAccount = info.data ? !info.data.hasOwner : false;
  const ownerName = rememberedOwnerName();
  return (
    <AuthFrame title={tab === 'login' ? t('auth.welcomeBack') : firstAccount ? t('auth.ownerTitle') : t('auth.welcome')}>
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
          {bridge && (
            <Stack gap="sm" mb="md">
              <Button size="md" onClick={() => void continueAsOwner()} loading={desktop.busy}>
                {ownerName ? t('auth.desktopContinue', { name: ownerName }) : t('auth.desktopContinueOwner')}
              </Button>
              {desktop.error !== null && (
                <Alert color="red" role="alert">
                  {desktop.error instanceof ApiCallError ? errorText(desktop.error) : t('auth.desktopUnavailable')}
                </Alert>
              )}
              <Divider />
              <Text size="sm" c="dimmed">
                {t('auth.desktopOthers')}
              </Text>
            </Stack>
          )}
          <LoginForm />
        </Tabs.Panel>
        <Tabs.Panel value="register">
          <RegisterForm info={info.data} onRefused={info.reload} />
        </Tabs.Panel>
      </Tabs>
    </AuthFrame>
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
      signIn(await call('user.login', { platform: 'email', email: email.trim(), password, deviceInfo: DEVICE_INFO }), { password });
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

/**
 * Sign-up as the server allows it for this caller (user.registrationInfo): open, with an invite
 * code, or closed; the first account of a data dir is its owner.
 */
function RegisterForm({ info, onRefused }: { info: RegistrationInfo | undefined; onRefused: () => void }) {
  const { t } = useTranslation();
  const { signIn } = useAuth();
  const errorText = useErrorText();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [inviteCode, setInviteCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiCallError | null>(null);
  const mismatch = confirm.length > 0 && confirm !== password;
  const tooShort = password.length > 0 && password.length < 8;
  const signUp = info?.signUp ?? 'open';
  const firstAccount = info ? !info.hasOwner : false;
  // An invite may also carry a role (an admin) where sign-ups are open.
  const inviteShown = info !== undefined && info.hasOwner && signUp !== 'closed';
  const inviteRequired = signUp === 'invite';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mismatch || tooShort || (inviteRequired && !inviteCode.trim())) return;
    setBusy(true);
    setError(null);
    try {
      const code = inviteShown ? inviteCode.trim() : '';
      signIn(await call('user.register', { username: username.trim(), email: email.trim(), password, ...(code ? { inviteCode: code } : {}), deviceInfo: DEVICE_INFO }));
    } catch (err) {
      setError(err as ApiCallError);
      // The policy may have changed since this screen opened: follow it.
      if (err instanceof ApiCallError && err.code === 403) onRefused();
    } finally {
      setBusy(false);
    }
  };

  if (signUp === 'closed') {
    return (
      <Alert color="yellow" role="status">
        {t('auth.closed')}
      </Alert>
    );
  }
  const field = error?.field ?? null;
  const fields = ['username', 'email', 'password', ...(inviteShown ? ['inviteCode'] : [])];
  const general = error && !fields.includes(field ?? '') ? (error.code === 429 ? t('auth.tooMany') : errorText(error)) : null;
  return (
    <form onSubmit={submit} noValidate aria-label={firstAccount ? t('auth.ownerTitle') : t('auth.createAccount')}>
      <Stack gap="sm">
        {firstAccount && (
          <Text size="sm" data-testid="owner-hint">
            {t('auth.ownerHint')}
          </Text>
        )}
        {inviteShown && (
          <TextInput
            label={inviteRequired ? t('auth.inviteCode') : t('auth.inviteCodeOptional')}
            description={t('auth.inviteCodeHint')}
            autoComplete="off"
            spellCheck={false}
            required={inviteRequired}
            value={inviteCode}
            onChange={(e) => setInviteCode(e.currentTarget.value)}
            error={field === 'inviteCode' ? errorText(error) : null}
            maxLength={64}
            autoFocus={inviteRequired}
          />
        )}
        <TextInput
          label={t('auth.username')}
          description={t('auth.usernameHint')}
          autoComplete="username"
          required
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          error={field === 'username' ? errorText(error) : null}
          autoFocus={!inviteRequired}
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
        <Button type="submit" loading={busy} disabled={!username || !email || !password || !confirm || mismatch || tooShort || (inviteRequired && !inviteCode.trim())}>
          {t('auth.createAccount')}
        </Button>
      </Stack>
    </form>
  );
}
