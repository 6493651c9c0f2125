import './styles/responsive.css';
import './styles/phone.css';
import './styles/market.css';
import { Suspense, useEffect, useMemo } from 'react';
import { Center, Drawer, Modal, Notification as MantineNotification, Loader, MantineProvider, Text, createTheme } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { AuthProvider, useAuth } from './lib/auth';
import { useTimeZoneSync } from './lib/time-zone';
import { Link, navigate, usePath } from './lib/router';
import { Navigation } from './components/Navigation';
import { useTableCardLabels } from './lib/table-labels';
import { registerServiceWorker } from './lib/service-worker';
import { onDataChange, onFeedMessage, feedText, usePushFeedConnection } from './lib/push-feed';
import { invalidate } from './lib/data';
import { AuthPage } from './screens/auth';
import { NewPasswordPage } from './screens/auth/NewPasswordPage';
import { ShortcutLayer } from './components/Shortcuts';
import { canonicalPath, routeAt, titleKey } from './screens/routes';
import { SCREEN_COMPONENTS } from './screens/screen-components';
import { usePhone } from './lib/use-phone';

/** The theme; its defaults carry translated names (the close buttons of dialogs). */
function useTheme() {
  const { t, i18n } = useTranslation();
  const close = t('common.close');
  return useMemo(
    () =>
      createTheme({
        primaryColor: 'teal',
        defaultRadius: 'md',
        cursorType: 'pointer',
        components: {
          // Scroll locking injects a <style> element (refused by the CSP); the page body never
          // scrolls anyway (only <main> does), so it is not needed.
          Modal: Modal.extend({ defaultProps: { lockScroll: false, closeButtonProps: { 'aria-label': close } } }),
          Drawer: Drawer.extend({ defaultProps: { lockScroll: false, closeButtonProps: { 'aria-label': close } } }),
          Notification: MantineNotification.extend({ defaultProps: { closeButtonProps: { 'aria-label': close } } }),
        },
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- i18n.language: a new theme object on every language switch
    [close, i18n.language],
  );
}

export function App() {
  const theme = useTheme();
  const phone = usePhone();
  useEffect(registerServiceWorker, []);
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" withCssVariables={false} withGlobalClasses={false}>
      {/* On a phone one toast at a time, at the top over the top bar (styles/phone.css): the fields, amounts and buttons stay free. */}
      <Notifications position={phone ? 'top-center' : 'bottom-right'} limit={phone ? 1 : 3} autoClose={3000} />
      <AuthProvider>
        <Root />
      </AuthProvider>
    </MantineProvider>
  );
}

function Root() {
  const { session } = useAuth();
  const path = usePath();
  // After a password reset the account may do nothing but choose a new password (no push feed either).
  const mustChangePassword = session?.user.mustChangePassword === true;
  usePushFeedConnection(session && !mustChangePassword ? session.token : null);
  useTimeZoneSync(session && !mustChangePassword ? session.user.id : undefined);
  const signedIn = session !== null;
  useEffect(() => {
    if (signedIn && (path === '/login' || path === '/register')) navigate('/', { replace: true });
    // An alias (/statistics) shows the screen under its own address (/stats).
    else if (canonicalPath(path) !== path) navigate(canonicalPath(path) + location.search, { replace: true });
  }, [signedIn, path]);
  useEffect(() => {
    // Fetch the chart code while the first numbers are on their way (it is a chunk of its own).
    if (signedIn) void import('./charts/EChart');
  }, [signedIn]);
  if (!session) return <AuthPage />;
  if (mustChangePassword) return <NewPasswordPage />;
  return <Shell path={path} />;
}

function PageLoader() {
  return (
    <Center h={300}>
      <Loader aria-label="Loading" />
    </Center>
  );
}

function NotFound() {
  const { t } = useTranslation();
  return (
    <div className="pp-page">
      <h1>{t('notFound.title')}</h1>
      <Text>
        <Link href="/">{t('notFound.back')}</Link>
      </Text>
    </div>
  );
}

function Shell({ path }: { path: string }) {
  const { t } = useTranslation();
  const route = routeAt(path);
  useTableCardLabels();
  const Screen = route ? SCREEN_COMPONENTS[route.key] : NotFound;
  useEffect(() => {
    document.title = route ? `${t(titleKey(route))} · PennyPost` : 'PennyPost';
  }, [route, t]);
  // A forwarded payment notice made a draft (or a record) on the server: every screen reads again now.
  useEffect(() => onDataChange(() => invalidate()), []);
  useEffect(
    () =>
      onFeedMessage((message) => {
        notifications.show({ title: `${message.appName}: ${message.title}`, message: feedText(message, 140) || t('push.feed.noBody'), autoClose: 6000 });
        // A system notification too when the person allowed it (Push → Live feed), e.g. while the window is hidden.
        if (typeof Notification !== 'undefined' && Notification.permission === 'granted' && document.visibilityState === 'hidden') {
          new Notification(message.title, { body: feedText(message, 200), tag: message.id });
        }
      }),
    [t],
  );
  return (
    <div className="pp-shell">
      <Navigation path={path} />
      <ShortcutLayer />
      <main className="pp-main" id="main">
        <Suspense fallback={<PageLoader />}>
          <Screen />
        </Suspense>
      </main>
    </div>
  );
}
