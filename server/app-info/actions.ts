import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { appInfoErrors } from './errors';
import { summarize } from './licenses';
import { AppInfoShape, Licences } from './result-shapes';
import type { AppInfoService } from './service';

declare module '../app-context' {
  interface ServiceMap {
    appInfo: AppInfoService;
  }
}

const info = defineAction({
  summary: 'Version, runtime and data folder of this PennyPost, with a summary of the bundled licences (the about page).',
  notes:
    '`mode` is "desktop" inside the desktop app (then `versions.electron` and `versions.chrome` are set) and "headless" for `npm run serve`. ' +
    '`keys` says how the data folder\'s keys are kept: "os-keychain" (wrapped with the OS keychain by the desktop app) or "file" (0600 files). ' +
    'Signed-in users only; `dataDir` is shown to the owner and admins (null for members).',
  auth: 'user',
  params: Params({}),
  result: AppInfoShape,
  handler: (_params, ctx) => {
    const info = ctx.app.services.appInfo.info();
    return ctx.user.role === 'member' ? { ...info, dataDir: null } : info;
  },
});

const licenses = defineAction({
  summary: 'The third-party software shipped with PennyPost and its licences; with `name`, one package with its licence text.',
  notes:
    '`scope`: "server" (the app\'s Node.js dependencies), "ui" (bundled into the window\'s pages) or "runtime" (Electron and Chromium). ' +
    'Licence texts are included in builds of the desktop app (`npm run build:electron` writes dist/licenses.json); a source checkout may answer without them.',
  auth: 'public',
  params: Params({
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 214, description: 'A package name, e.g. "express" or "@mantine/core".' })),
  }),
  result: Licences,
  errors: [[appInfoErrors.rows.packageNotFound, 'no shipped package has that name']],
  handler: (params, ctx) => {
    const all = ctx.app.services.appInfo.licences();
    if (params.name !== undefined) {
      const matches = all.filter((entry) => entry.name === params.name);
      if (matches.length === 0) throw appInfoErrors.packageNotFound(params.name);
      return { packages: matches };
    }
    return { ...summarize(all), packages: all.map(({ text: _text, ...entry }) => entry) };
  },
});

export const appInfoActions = defineActions({
  'app.info': info,
  'app.licenses': licenses,
});
