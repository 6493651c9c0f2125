import { useTranslation } from 'react-i18next';
import type { ResultOf } from '../../api/client';
import { useApi } from '../../lib/data';

export type Channel = ResultOf<'push.queryChannels'>['list'][number];
export type App = ResultOf<'push.queryApps'>['list'][number];
/** A channel type as its driver describes it (push.queryChannelTypes): the forms are built from it. */
export type ChannelTypeInfo = ResultOf<'push.queryChannelTypes'>['list'][number];
export type ChannelField = ChannelTypeInfo['fields'][number];

export const STATUS_COLORS: Record<string, string> = { success: 'teal', partial: 'yellow', failed: 'red', empty: 'gray' };

/** The channel types of this server: the default one first (the order of the type menu). */
export function useChannelTypes(): { list: ChannelTypeInfo[]; initial: string; of: (type: string) => ChannelTypeInfo | undefined } | null {
  const types = useApi('push.queryChannelTypes', {}, { live: false });
  if (!types.data) return null;
  const { list, default: initial } = types.data;
  return {
    list: [...list.filter((info) => info.type === initial), ...list.filter((info) => info.type !== initial)],
    initial,
    of: (type) => list.find((info) => info.type === type),
  };
}

/**
 * The words of a channel type. Their i18n keys are made from the driver's type and field names
 * (`push.channelTypes.<type>`, `push.channelForms.<type>.…`), which only the server knows, so they
 * are looked up as plain strings; both language files carry them (a test checks every driver's).
 */
export function useChannelText() {
  const { t, i18n } = useTranslation();
  const text = t as unknown as (key: string) => string;
  const optional = (key: string) => (i18n.exists(key) ? text(key) : undefined);
  const form = (type: string) => `push.channelForms.${type}`;
  return {
    /** "WeChat Official Account". */
    typeName: (type: string) => (type ? text(`push.channelTypes.${type}`) : ''),
    /** What a channel of this type is for, above its settings. */
    typeHint: (type: string) => optional(`${form(type)}.hint`),
    /** What a recipient address of this type is. */
    addressHint: (type: string) => optional(`${form(type)}.address`),
    fieldLabel: (type: string, field: string) => text(`${form(type)}.fields.${field}.label`),
    fieldHint: (type: string, field: string) => optional(`${form(type)}.fields.${field}.hint`),
    optionLabel: (type: string, field: string, option: string) => optional(`${form(type)}.fields.${field}.options.${option}`) ?? option,
  };
}

/**
 * Where an app's pushes go, in the same words in the app list and on the app: "Shown on this
 * computer" for a channel without recipients (it said "0 recipients" in the list and "All
 * recipients" on the app), "No recipients yet", or "2 recipients · to all at once" / "· first that
 * works".
 */
export function useDeliveryText() {
  const { t } = useTranslation();
  const types = useChannelTypes();
  return (app: Pick<App, 'channelType' | 'recipientCount' | 'pushMode'>): string => {
    if (types?.of(app.channelType)?.recipients === false) return t('push.delivery.here');
    if (app.recipientCount === 0) return t('push.delivery.nobody');
    return `${t('push.recipientCount', { count: app.recipientCount })} · ${t(app.pushMode === 'first' ? 'push.delivery.first' : 'push.delivery.all')}`;
  };
}
