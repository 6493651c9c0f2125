import { defineDomain } from '../domain';
import { settingsActions } from './actions';
import { settingsErrors } from './errors';

/** The server settings a person changes from the UI (server/config/settings.ts holds the rules). */
export function settingsDomain() {
  return defineDomain({ name: 'settings', actions: settingsActions, errors: settingsErrors });
}
