import type { Domain } from '../domain';
import { settingsActions } from './actions';

/** The server settings a person changes from the UI (server/config/settings.ts holds the rules). */
export function settingsDomain(): Domain {
  return { name: 'settings', actions: settingsActions };
}
