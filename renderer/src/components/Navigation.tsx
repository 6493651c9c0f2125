import { useEffect, useState } from 'react';
import { ActionIcon, Drawer, Group, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../lib/auth';
import { Link } from '../lib/router';
import { ROUTES, titleKey } from '../screens/routes';
import { Icon } from './icons';
import { LanguageSelect, ThemeToggle } from './Prefs';

/**
 * The navigation of the signed-in app, in three forms switched by CSS media queries (styles/responsive.css,
 * docs/ui.md "Phones and narrow windows"): the sidebar from 1024 px up; below that a top bar whose
 * menu button opens a drawer with every screen and the preferences; below 600 px also a bottom bar
 * with the first screens of the route table and "More" (the same drawer).
 */
const BOTTOM_ROUTES = ROUTES.slice(0, 4);

function Brand() {
  return (
    <span className="pp-brand">
      <span className="pp-brand-mark" aria-hidden="true">
        P
      </span>
      PennyPost
    </span>
  );
}

function NavLinks({ path, onNavigate }: { path: string; onNavigate?: () => void }) {
  const { t } = useTranslation();
  return ROUTES.map((item) => (
    <Link key={item.path} href={item.path} className="pp-nav-link" aria-current={item.path === path ? 'page' : undefined} onClick={onNavigate}>
      <Icon name={item.icon} />
      {t(titleKey(item))}
    </Link>
  ));
}

function NavFooter() {
  const { t } = useTranslation();
  const { session, signOut } = useAuth();
  return (
    <div className="pp-nav-footer">
      <Text size="sm" fw={600} truncate title={session?.user.email}>
        {session?.user.username}
      </Text>
      <LanguageSelect />
      <Group gap={8}>
        <ThemeToggle />
        <Tooltip label={t('nav.logout')}>
          <ActionIcon variant="default" size="lg" aria-label={t('nav.logout')} onClick={() => void signOut()}>
            <Icon name="logout" />
          </ActionIcon>
        </Tooltip>
      </Group>
    </div>
  );
}

export function Navigation({ path }: { path: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  return (
    <>
      <nav className="pp-nav" aria-label={t('nav.label')}>
        <Brand />
        <NavLinks path={path} />
        <NavFooter />
      </nav>
      <header className="pp-topbar">
        <ActionIcon variant="subtle" color="gray" size="lg" aria-label={t('nav.menu')} aria-expanded={open} onClick={() => setOpen(true)}>
          <Icon name="menu" size={22} />
        </ActionIcon>
        <Brand />
      </header>
      <nav className="pp-bottom-nav" aria-label={t('nav.phone')}>
        {BOTTOM_ROUTES.map((item) => (
          <Link key={item.path} href={item.path} className="pp-bottom-link" aria-current={item.path === path ? 'page' : undefined}>
            <Icon name={item.icon} size={22} />
            <span>{t(titleKey(item))}</span>
          </Link>
        ))}
        <button type="button" className="pp-bottom-link" aria-expanded={open} onClick={() => setOpen(true)}>
          <Icon name="menu" size={22} />
          <span>{t('nav.more')}</span>
        </button>
      </nav>
      <Drawer opened={open} onClose={() => setOpen(false)} size={300} padding="sm" title={<Brand />} classNames={{ body: 'pp-drawer-body' }}>
        <nav className="pp-drawer-nav" aria-label={t('nav.label')}>
          <NavLinks path={path} onNavigate={() => setOpen(false)} />
        </nav>
        <NavFooter />
      </Drawer>
    </>
  );
}
