import { lazy, type ComponentType } from 'react';
import { DashboardPage } from './dashboard';
import type { ScreenKey } from './routes';

/** A screen in a chunk of its own, fetched on its first visit. */
function chunk<M>(load: () => Promise<M>, component: (module: M) => ComponentType): ComponentType {
  return lazy(async () => ({ default: component(await load()) }));
}

/**
 * The push screen's module names its page `PushPage`; before its split it was the default
 * export. Either is taken, so the route table does not depend on which one is in the tree.
 */
interface PushModule {
  PushPage?: ComponentType;
  default?: ComponentType;
}
function pushPage(module: PushModule): ComponentType {
  const page = module.PushPage ?? module.default;
  if (!page) throw new Error('screens/push exports no PushPage');
  return page;
}

/**
 * The component of every route (routes.ts). The dashboard, the first screen after signing in, is
 * in the main bundle; every other screen is its own chunk.
 */
export const SCREEN_COMPONENTS: Record<ScreenKey, ComponentType> = {
  dashboard: DashboardPage,
  records: chunk(
    () => import('./records'),
    (m) => m.RecordsPage,
  ),
  inbox: chunk(
    () => import('./inbox'),
    (m) => m.InboxPage,
  ),
  assets: chunk(
    () => import('./assets'),
    (m) => m.AssetsPage,
  ),
  stats: chunk(
    () => import('./stats'),
    (m) => m.StatsPage,
  ),
  budgets: chunk(
    () => import('./budgets'),
    (m) => m.BudgetsPage,
  ),
  savings: chunk(
    () => import('./savings'),
    (m) => m.SavingsPage,
  ),
  recurring: chunk(
    () => import('./recurring'),
    (m) => m.RecurringPage,
  ),
  push: chunk(() => import('./push'), pushPage),
  files: chunk(
    () => import('./files'),
    (m) => m.FilesPage,
  ),
  settings: chunk(
    () => import('./settings'),
    (m) => m.SettingsPage,
  ),
};
