import type { IconName } from '../components/icon-paths';
import type en from '../i18n/en.json';

/**
 * The route table: every screen of the signed-in app, in the order of the navigation. It drives
 * the navigation links and the router (App.tsx), the window title, the i18n key of each screen's
 * name and the list of screens the e2e tests visit (e2e/layout.spec.ts).
 *
 * Plain data on purpose (no React, no component imports), so Node can import it: the Playwright
 * specs do. Each screen's component is in screen-components.ts, keyed by `key`; TypeScript
 * refuses a route without a component. Sign-in and "choose a new password" (screens/auth) come
 * before the app and are not in the table.
 */
export interface ScreenRoute {
  /** The URL (the server answers index.html for any path without an extension). */
  path: string;
  /** The screen's folder (screens/<key>/) and its i18n namespace: its name is `<key>.title`. */
  key: TitledNamespace;
  icon: IconName;
}

/** The i18n namespaces that carry a `title` (the screen's name in the navigation, heading and window title). */
export type TitledNamespace = { [K in keyof typeof en]: (typeof en)[K] extends { title: string } ? K : never }[keyof typeof en];

export const ROUTES = [
  { path: '/', key: 'dashboard', icon: 'dashboard' },
  { path: '/records', key: 'records', icon: 'records' },
  { path: '/assets', key: 'assets', icon: 'assets' },
  { path: '/stats', key: 'stats', icon: 'stats' },
  { path: '/budgets', key: 'budgets', icon: 'budgets' },
  { path: '/recurring', key: 'recurring', icon: 'recurring' },
  { path: '/inbox', key: 'inbox', icon: 'inbox' },
  { path: '/savings', key: 'savings', icon: 'savings' },
  { path: '/push', key: 'push', icon: 'push' },
  { path: '/files', key: 'files', icon: 'files' },
  { path: '/settings', key: 'settings', icon: 'settings' },
] as const satisfies readonly ScreenRoute[];

export type ScreenKey = (typeof ROUTES)[number]['key'];

/** The i18n key of a screen's name. */
export function titleKey(route: ScreenRoute): `${TitledNamespace}.title` {
  return `${route.key}.title`;
}

/**
 * Other paths people type for a screen: the screen's name in full where its path is short. The app
 * replaces the address with the screen's own path (`canonicalPath`).
 */
export const ALIASES: Readonly<Record<string, (typeof ROUTES)[number]['path']>> = {
  '/statistics': '/stats',
  '/dashboard': '/',
};

/** The screen's own path for an alias, else the path as it is. */
export function canonicalPath(path: string): string {
  return ALIASES[path] ?? path;
}

/** The screen at a URL path (without the query) or one of its aliases, if any. */
export function routeAt(path: string): (typeof ROUTES)[number] | undefined {
  const own = canonicalPath(path);
  return ROUTES.find((route) => route.path === own);
}
