import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/common';
import { isManager, useAuth } from '../../lib/auth';
import { RoutedTabs } from '../../components/RoutedTabs';
import { ServerTab } from './server/ServerTab';
import { BackupsTab } from './BackupsTab';
import { CategoriesTab } from './CategoriesTab';
import { CurrencyTab } from './CurrencyTab';
import { GeneralTab } from './GeneralTab';
import { HouseholdTab } from './household/HouseholdTab';
import { ImportExportTab } from './ImportExportTab';
import { RemindersTab } from './RemindersTab';
import { RulesTab } from './rules/RulesTab';

/**
 * Settings. Everyone has their own preferences, account, currencies, categories, data and sync;
 * the server itself (network, snapshots, the household and who may sign up) is only for the owner
 * and admins — members never see it, nor call its owner-only actions.
 */
export function SettingsPage() {
  const { t } = useTranslation();
  const { session } = useAuth();
  const manager = isManager(session);
  return (
    <div className="pp-page">
      <PageHeader title={t('settings.title')} />
      <RoutedTabs
        path="/settings"
        tabs={[
          { value: 'general', label: t('settings.tabs.general'), panel: <GeneralTab /> },
          { value: 'currency', label: t('settings.tabs.currency'), panel: <CurrencyTab /> },
          { value: 'categories', label: t('settings.tabs.categories'), panel: <CategoriesTab /> },
          { value: 'rules', label: t('rules.tab'), panel: <RulesTab /> },
          { value: 'data', label: t('settings.tabs.data'), panel: <ImportExportTab withJsonRestore={!manager} /> },
          { value: 'reminders', label: t('notify.tab'), panel: <RemindersTab /> },
          ...(manager
            ? [
                { value: 'backups', label: t('backups.tab'), panel: <BackupsTab /> },
                { value: 'household', label: t('settings.tabs.household'), panel: <HouseholdTab /> },
              ]
            : []),
          { value: 'server', label: manager ? t('settings.tabs.server') : t('settings.tabs.syncAbout'), panel: <ServerTab manager={manager} /> },
        ]}
      />
    </div>
  );
}
