import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params, type ActionContext } from '../api/action';
import { apiErrors } from '../api/errors';
import { commonErrors } from '../lib/errors';
import { settingsErrors } from './errors';
import { RegistrationPolicy, SettingsError, type Settings } from '../config/settings';
import { localHostNames } from '../http/addresses';
import { ServerSettingsShape, type ServerSettingsView } from './result-shapes';

/**
 * The server settings a person changes from the UI (settings.json holds them; docs/configuration.md
 * describes each). Only the safe, non-secret ones are readable and writable here; sign-in provider
 * secrets stay in the file. Only the owner and admins read or change them (the role wrapper), and
 * changes only from this computer (loopback callers), so a LAN client with lanApi cannot, for
 * example, open the server to the network.
 */
function view(ctx: ActionContext, settings: Settings): ServerSettingsView {
  const listening = ctx.app.listening;
  const boundToAll = listening?.host === '0.0.0.0' || listening?.host === '::';
  return {
    network: {
      lan: settings.network.lan,
      lanApi: settings.network.lanApi,
      allowedHosts: settings.network.allowedHosts,
      corsOrigins: settings.network.corsOrigins,
      publicBaseUrl: settings.network.publicBaseUrl,
      localDestinations: settings.network.localDestinations,
    },
    push: { retentionDays: settings.push.retentionDays, sendPerAppKey: settings.push.sendPerAppKey, sendPerAddress: settings.push.sendPerAddress },
    files: { maxBytes: settings.files.maxBytes },
    registration: { ...settings.registration },
    desktop: { closeToTray: settings.desktop.closeToTray, launchAtLogin: settings.desktop.launchAtLogin, notifications: settings.desktop.notifications },
    listening: listening ? { host: listening.host, port: listening.port, url: listening.url } : null,
    /** Addresses other devices can use when LAN access is on. */
    lanAddresses: localHostNames().filter((name) => /^\d+\.\d+\.\d+\.\d+$/.test(name) && !name.startsWith('127.')),
    /** LAN access changes the socket the server listens on: true until the server restarts (the desktop app does it by itself). */
    restartRequired: listening ? settings.network.lan !== boundToAll : false,
    dataDir: ctx.app.dataDir,
  };
}

const settingsGet = defineAction({
  summary: 'The server settings shown on the Settings screen (no secrets), where the server listens and its LAN addresses. Owner and admins only.',
  auth: 'admin',
  errors: [[apiErrors.rows.adminOnly, 'the caller is a household member, not the owner or an admin']],
  params: Params({}),
  result: ServerSettingsShape,
  handler: (_params, ctx) => view(ctx, ctx.app.settings.get()),
});

const Host = Type.String({ minLength: 1, maxLength: 253 });
/** The settings file's own policy type, without its default (a patch leaves absent fields alone). */
const Policy = Type.Union(RegistrationPolicy('open').anyOf);

const settingsUpdate = defineAction({
  summary:
    'Change server settings (LAN access, allowed host names, CORS origins, public base URL, push limits and retention, file size limit, who may sign up, desktop behaviour).',
  notes:
    'The owner and admins only (members get 1004), and only from this computer: callers from the network get 403. Every field is optional; the change is validated, saved to settings.json and applied at once, ' +
    'except `network.lan`, which needs a restart of a headless server (`restartRequired`; the desktop app restarts its server by itself).',
  auth: 'admin',
  params: Params({
    network: Type.Optional(
      Type.Object(
        {
          lan: Type.Optional(Type.Boolean()),
          lanApi: Type.Optional(Type.Boolean()),
          allowedHosts: Type.Optional(Type.Array(Host, { maxItems: 50 })),
          corsOrigins: Type.Optional(Type.Array(Type.String({ pattern: '^https?://[^/\\s]+$', hint: 'origin', maxLength: 300 }), { maxItems: 20 })),
          publicBaseUrl: Type.Optional(Type.String({ maxLength: 500, pattern: '^(https?://[^\\s]+)?$', hint: 'webAddress' })),
          localDestinations: Type.Optional(
            Type.Union([Type.Literal('owner'), Type.Literal('ownerAndAdmins')], {
              description:
                "Who may point PennyPost's own requests (push channels, webhooks, mail servers, sync) at this computer or the local network: the owner alone (default) or the owner and admins. The owner alone changes it.",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    push: Type.Optional(
      Type.Object(
        {
          retentionDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
          sendPerAppKey: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          sendPerAddress: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    registration: Type.Optional(
      Type.Object(
        {
          fromThisComputer: Type.Optional(Policy),
          fromNetwork: Type.Optional(Policy),
          inviteHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720 })),
        },
        { additionalProperties: false },
      ),
    ),
    files: Type.Optional(Type.Object({ maxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 1024 * 1024 * 1024 })) }, { additionalProperties: false })),
    desktop: Type.Optional(
      Type.Object(
        { closeToTray: Type.Optional(Type.Boolean()), launchAtLogin: Type.Optional(Type.Boolean()), notifications: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
  }),
  result: ServerSettingsShape,
  errors: [
    [apiErrors.rows.adminOnly, 'the caller is a household member, not the owner or an admin'],
    [apiErrors.rows.ownerOnly, 'an admin changing network.localDestinations: who may send to this computer and the local network is the owner’s decision'],
    [settingsErrors.rows.localOnly, 'the caller is not on this computer'],
    [commonErrors.rows.invalid, 'a value breaks its schema'],
    [settingsErrors.rows.invalidSetting, 'a value breaks a rule of the settings file'],
  ],
  handler: (params, ctx) => {
    if (!ctx.fromThisComputer) throw settingsErrors.localOnly();
    const localDestinations = params.network?.localDestinations;
    if (localDestinations !== undefined && localDestinations !== ctx.app.settings.get().network.localDestinations && ctx.user.role !== 'owner') {
      throw apiErrors.ownerOnly('settings.update › network.localDestinations').at('network.localDestinations');
    }
    try {
      return view(ctx, ctx.app.settings.update(params));
    } catch (error) {
      if (error instanceof SettingsError) throw settingsErrors.invalidSetting(error.message);
      throw error;
    }
  },
});

export const settingsActions = defineActions({
  'settings.get': settingsGet,
  'settings.update': settingsUpdate,
});
