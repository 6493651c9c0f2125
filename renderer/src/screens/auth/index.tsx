import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, Button, Center, Divider, Loader, Stack, Tabs, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call } from '../../api/client';
import { signedInHereBefore, useAuth } from '../../lib/auth';
import { useApi } from '../../lib/data';
import { desktopBridge, rememberedOwnerName, rememberOwnerName } from '../../lib/desktop';
import { useErrorText } from '../../lib/errors';
import { navigate, usePath } from '../../lib/router';
import { AuthFrame } from './AuthFrame';
import { currentLanguage } from '../../i18n';
import { DEVICE_INFO } from './device';
import { LoginForm } from './LoginForm';
import { RegisterForm } from './RegisterForm';

/** The desktop window signs its owner in by itself once per start (not again after signing out). */
let desktopTried = false;

export function AuthPage() {
  const { t } = useTranslation();
  const { reason, signIn } = useAuth();
  const errorText = useErrorText();
  const path = usePath();
  const info = useApi('user.registrationInfo', {}, { live: false });
  // A brand-new install (no account yet) opens on creating the first one; /login and /register say which tab.
  const firstAccount = info.data ? !info.data.hasOwner : false;
  const tab = path === '/register' || (path !== '/login' && firstAccount) ? 'register' : 'login';

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
      const result = await call('user.desktopSignIn', { secret, language: currentLanguage(), deviceInfo: DEVICE_INFO });
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
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at the first mount: the desktop sign-in is tried once per start
  }, []);

  if (auto) {
    return (
      <Center h="100vh">
        <Loader aria-label={t('auth.desktopSigningIn')} />
      </Center>
    );
  }
  const ownerName = rememberedOwnerName();
  // "Welcome back" only to someone who has been here: not on a fresh install (no account yet), not in a browser never signed in from.
  const returning = !firstAccount && (reason !== null || ownerName !== null || signedInHereBefore());
  return (
    <AuthFrame title={tab === 'login' ? (returning ? t('auth.welcomeBack') : t('auth.welcome')) : firstAccount ? t('auth.ownerTitle') : t('auth.welcome')}>
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
