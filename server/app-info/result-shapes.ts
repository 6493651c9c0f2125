import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';

/** Result shapes of app.info and app.licenses (server/api/result.ts); the presenters are typed by them. */

export const LicenceSummaryShape = Shape(
  'LicenceSummary',
  {
    total: Type.Integer({ description: 'shipped packages (one per name and version)' }),
    byLicense: Type.Array(Result({ license: Type.String(), count: Type.Integer() }), { description: '`{license, count}`, most used first' }),
  },
  'How many shipped packages there are, by licence.',
);
export type LicenceSummary = Static<typeof LicenceSummaryShape>;

export const AppInfoShape = Shape(
  'AppInfo',
  {
    name: Type.String(),
    version: Type.String(),
    mode: Type.Union([Type.Literal('desktop'), Type.Literal('headless')], {
      description: 'desktop inside the desktop app (then `versions.electron` and `versions.chrome` are set), headless for `npm run serve`',
    }),
    versions: Result(
      { node: Type.String(), electron: Type.Union([Type.String(), Type.Null()]), chrome: Type.Union([Type.String(), Type.Null()]) },
      { description: '`{node, electron, chrome}`; electron and chrome are null outside the desktop app' },
    ),
    platform: Type.String({ description: "Node's process.platform (darwin, win32, linux…)" }),
    arch: Type.String({ description: "Node's process.arch (x64, arm64…)" }),
    dataDir: Type.Union([Type.String(), Type.Null()], { description: 'the data folder; shown to the owner and admins, null for members' }),
    keys: Type.Union([Type.Literal('os-keychain'), Type.Literal('file')], {
      description: "how the data folder's keys are kept: wrapped with the OS keychain by the desktop app, or 0600 files",
    }),
    licences: LicenceSummaryShape,
  },
  'Version, runtime and data folder of this PennyPost (the about page).',
);
export type AppInfoView = Static<typeof AppInfoShape>;

const SCOPES = Type.Union([Type.Literal('server'), Type.Literal('ui'), Type.Literal('runtime')], {
  description: "server: the app's Node.js dependencies; ui: bundled into the window's pages; runtime: Electron and Chromium",
});

export const LicencePackageShape = Shape(
  'LicencePackage',
  {
    name: Type.String(),
    version: Type.String({ description: "'' when unknown (Chromium)" }),
    license: Type.String({ description: 'SPDX expression, or UNKNOWN' }),
    scope: SCOPES,
    homepage: Type.Optional(Type.String()),
    text: Type.Optional(Type.String({ description: "the package's licence text: only with `name`, and only in builds of the desktop app" })),
  },
  'One shipped package and its licence.',
);
export type LicenceEntry = Static<typeof LicencePackageShape>;

export const Licences = Type.Union(
  [
    Result({ total: Type.Integer(), byLicense: LicenceSummaryShape.properties.byLicense, packages: Type.Array(LicencePackageShape) }),
    Result({ packages: Type.Array(LicencePackageShape) }),
  ],
  {
    description:
      'Without `name`: the summary (`total`, `byLicense` as in LicenceSummary) and every package without its text. With `name`: `{packages}`, every version of that package with its text when the build has it.',
  },
);
