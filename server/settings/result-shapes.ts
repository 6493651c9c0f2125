import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';

/**
 * Result shape of settings.get and settings.update (server/api/result.ts); the presenter is typed
 * by it. Closed: the sign-in provider secrets and every setting not listed here stay in
 * settings.json, and one that slips into the answer fails the result check.
 */

const Policy = Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')]);

export const ServerSettingsShape = Shape(
  'ServerSettings',
  {
    network: Result({
      lan: Type.Boolean(),
      lanApi: Type.Boolean(),
      allowedHosts: Type.Array(Type.String()),
      corsOrigins: Type.Array(Type.String()),
      publicBaseUrl: Type.String(),
      localDestinations: Type.Union([Type.Literal('owner'), Type.Literal('ownerAndAdmins')]),
    }),
    push: Result({ retentionDays: Type.Integer(), sendPerAppKey: Type.Integer(), sendPerAddress: Type.Integer() }),
    files: Result({ maxBytes: Type.Integer() }),
    registration: Result({ fromThisComputer: Policy, fromNetwork: Policy, inviteHours: Type.Integer() }),
    desktop: Result({ closeToTray: Type.Boolean(), launchAtLogin: Type.Boolean(), notifications: Type.Boolean() }),
    listening: Type.Union([Result({ host: Type.String(), port: Type.Integer(), url: Type.String() }), Type.Null()], {
      description: 'where the server listens; null before its socket is bound',
    }),
    lanAddresses: Type.Array(Type.String(), { description: 'IPv4 addresses other devices can use when LAN access is on' }),
    restartRequired: Type.Boolean({ description: 'LAN access changes the socket the server listens on: true until the server restarts (the desktop app does it by itself)' }),
    dataDir: Type.String({ description: 'the data folder of this PennyPost' }),
  },
  'The server settings shown on the Settings screen (docs/configuration.md describes each; no secrets).',
);
export type ServerSettingsView = Static<typeof ServerSettingsShape>;
