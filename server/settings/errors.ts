import { errorCatalogue } from '../lib/errors';

/** The errors of settings.update (docs/api.md). */
export const settingsErrors = errorCatalogue(
  {
    localOnly: { code: 403, status: 403, message: () => 'Settings can only be changed on the computer PennyPost runs on.' },
    /** The settings file's own rule refused a value; its message names the setting. */
    invalidSetting: { code: 400, status: 400, message: (problem: string) => problem },
  },
  'settings',
);
