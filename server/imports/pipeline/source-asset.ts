import type { AssetDoc } from '../../ledger/public';
import type { StatementFormat } from '../formats/types';
import { nameKey } from '../../lib/fold-text';

/** The names people give the balance of a payment app, by the app's bill format. */
const APP_NAMES: Partial<Record<StatementFormat, RegExp>> = {
  alipay: /支付宝|alipay/,
  wechat: /微信|wechat|weixin/,
};

/**
 * The asset a statement belongs to, by its source (issue 36: an Alipay bill was imported into the
 * default asset, a USD card): a payment app's bill belongs to the asset named like the app
 * (支付宝 / Alipay; 微信 / 微信零钱 / WeChat), the one named exactly so first, then an e-wallet; a
 * bank statement to the one live asset named like the account it names (a QIF `!Account`), or
 * whose name or description holds the account number's last 4 digits (OFX, CAMT). Undefined when
 * none, or when the digits fit several assets.
 */
export function sourceAsset(format: StatementFormat | null, account: string, assets: Iterable<AssetDoc>): AssetDoc | undefined {
  const live = [...assets].filter((asset) => !asset.delFlag);
  const app = format ? APP_NAMES[format] : undefined;
  if (app) {
    const rank = (asset: AssetDoc) => {
      const name = nameKey(asset.name);
      const exact = name.replace(app, '') === '' ? 0 : 2;
      return exact + (asset.type === 'ewallet' ? 0 : 1);
    };
    return live.filter((asset) => app.test(nameKey(asset.name))).sort((a, b) => rank(a) - rank(b))[0];
  }
  if (account === '') return undefined;
  const byName = live.filter((asset) => nameKey(asset.name) === nameKey(account));
  if (byName.length === 1) return byName[0];
  const tail = /(\d{4})\D*$/.exec(account)?.[1];
  if (tail === undefined) return undefined;
  const byTail = live.filter((asset) => new RegExp(`(?<!\\d)${tail}(?!\\d)`).test(`${asset.name} ${asset.description}`));
  return byTail.length === 1 ? byTail[0] : undefined;
}
