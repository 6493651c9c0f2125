import type { ZhProfile } from './notice-zh';

/**
 * Payment-app notices: Alipay (`你已成功付款¥25.50给XX`, `支付宝到账100.00元`, `收款到账通知`,
 * `资金到账通知 … 付款方：…`, `退款通知 … 退款说明：退款-…`, `你有一笔43.73元的支出…使用花呗支付`),
 * WeChat Pay (`微信支付 ¥25.50 … 收款方 XX`, `已支付¥35.41 … 付款方式中国银行储蓄卡(7575)`,
 * `微信支付收款100.00元`, `个人收款码到账¥10.00`, `你有一笔收款入账`) and UnionPay's 云闪付 支付助手
 * (`您尾号为7644的银行卡于01日11时37分消费114.65元`, `您的工商银行卡6212 **** **** 7432收到来自*阳的转账170.00元`).
 * They are read by the shared Chinese reading (notice-zh.ts) with these profiles.
 */

export const ALIPAY_MARK = /支付宝|花呗|余额宝|蚂蚁|收款到账通知|资金到账通知|Alipay/i;
export const WECHAT_MARK = /微信支付|微信收款|微信转账|微信红包|零钱通|已支付\s*[¥$]|收单机构|个人收款码|收款入账|WeChat\s*Pay/i;
export const UNIONPAY_MARK = /云闪付|支付助手|[【[](?:中国)?银联[】\]]|UnionPay/i;

export const ALIPAY: ZhProfile = {
  fallbackDirection: 'expense',
  genericMerchant: false,
  merchant: [
    /(?:你|您)?在\s*([^\n,;。，：:]+?)\s*(?:成功)?(?:付款|支付|消费)/,
    /(?:付款|支付)\s*[¥$]?\s*[\d,.]+\s*元?\s*给\s*([^\n,;。]+)/,
    /给\s*([^\n,;。]+?)\s*(?:付款|转账)/,
    /交易对象\s*:?\s*([^\n]+)/,
    /退款说明\s*:?\s*(?:退款-)?([^\n]+)/,
  ],
};

export const WECHAT: ZhProfile = {
  fallbackDirection: 'expense',
  genericMerchant: false,
  merchant: [/付款给\s*([^\n(]+)/, /商户全称\s*:?\s*([^\n]+)/],
};

export const UNIONPAY: ZhProfile = {
  fallbackDirection: 'expense',
  merchant: [/收到来自\s*(.+?)\s*的转账/, /(?:您|你)向\s*(.+?)的/],
};
