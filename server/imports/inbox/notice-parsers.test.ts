import { describe, expect, it } from 'vitest';
import { parseNoticeFields, parseNoticeText, type NoticeDraft } from './notice-parsers';

/*
 * Sample notices. The phrasings are those of real bank SMS and app pushes, learnt from public test
 * data and adapted (dates moved near NOW, personal names replaced, amounts changed):
 *   - AutoAccountingOrg/AutoRule: the test samples of its rules for bank SMS (src/rule/com.android.phone/app/短信*),
 *     the 招商银行 app (cmb.pb), bank WeChat accounts (com.tencent.mm/app/微信公众号*), WeChat Pay,
 *     Alipay (com.eg.android.AlipayGphone) and 云闪付 (com.unionpay);
 *   - template lists of open-source Java bank-SMS parsers found by code search (SmsParseUtil's
 *     光大/广发/浦发/中信/民生/平安/招商/华夏/邮储/工商/交通/建设 samples; CounterpartyAccountNameAlgorithmTool's
 *     建设/邮储/工商/农业/兴业/中信/平安/民生 samples);
 *   - for English alerts: the phrasings of the task brief and of Chase's "Your $X transaction with MERCHANT"
 *     alerts as open-source Chase alert parsers describe them.
 */

/** Asia/Shanghai wall time → ms (UTC+8, no DST). */
const sh = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h - 8, mi, s);

const NOW = sh(2024, 11, 28, 10, 0);
const SHANGHAI = { now: NOW, timeZone: 'Asia/Shanghai' };
const NEW_YORK = { now: NOW, timeZone: 'America/New_York' };

/**
 * A sample notice and what it must give, as `amount|direction|merchant|cardTail|currency|source[|time[|balance]]`:
 * the time is the wall time `YYYY-MM-DD HH:mm[:ss]` in the table's zone, '-' or absent when the notice has none
 * (then the draft's time is NOW and timeFromText false); no balance part: the draft has no balance.
 */
interface Row {
  text: string;
  spec: string;
}

const row = (text: string, spec: string): Row => ({ text, spec });

/** ms of a wall time at a fixed UTC offset. */
function wallTime(text: string, offsetHours: number): number {
  const [y = NaN, mo = NaN, d = NaN, h = NaN, mi = NaN, s = 0] = text.split(/[- :]/).map(Number);
  return Date.UTC(y, mo - 1, d, h - offsetHours, mi, s);
}

const ZH: Row[] = [
  // 招商银行
  row('【招商银行】您账户1234于11月27日12:30在美团支付消费25.50元', '25.50|expense|美团|1234|CNY|cmb|2024-11-27 12:30'),
  row('【招商银行】您账户0877于11月03日22:44在财付通-滴滴出行快捷支付27.78元', '27.78|expense|滴滴出行|0877|CNY|cmb|2024-11-03 22:44'),
  row('您尾号1234的招商银行卡11月27日12:30快捷支付扣款人民币66.00元，商户：拼多多平台商户', '66.00|expense|拼多多平台商户|1234|CNY|cmb|2024-11-27 12:30'),
  row(
    '【招商银行】您账户6598于11月19日08:46在【财付通-理财通-腾安基金销售（深圳）有限公司】发生快捷支付扣款，人民币2500.00',
    '2500.00|expense|理财通-腾安基金销售(深圳)有限公司|6598|CNY|cmb|2024-11-19 08:46',
  ),
  row('【招商银行】您账户1999于11月12日15:04银联入账人民币0.09元，余额238.06元（微信零钱提现/微信零钱提现）', '0.09|income||1999|CNY|cmb|2024-11-12 15:04|238.06'),
  row('【招商银行】您账户7632于11月10日15:30入账工资，人民币1000.00。年终好礼 cmbt.cn/a/DX25 。', '1000.00|income||7632|CNY|cmb|2024-11-10 15:30'),
  row('【招商银行】您账户0877于11月16日23:38在支付宝-盈思网络科技（深圳）有限公司退款4529.48元', '4529.48|income|盈思网络科技(深圳)有限公司|0877|CNY|cmb|2024-11-16 23:38'),
  row('【招商银行】您账户6598于09月26日12:20向尾号为1356的信用卡还款人民币3222.60元，收款人张三，请以收款人实际入账为准。', '3222.60|expense|张三|6598|CNY|cmb|2024-09-26 12:20'),
  row('信用卡通知：您尾号1356的招行信用卡消费6,225.34人民币。', '6225.34|expense||1356|CNY|cmb'),
  row('您尾号6598的账户信用卡预约还款人民币3905.14元', '3905.14|expense||6598|CNY|generic-zh'),
  // 工商银行
  row('您尾号1234卡11月27日12:30支出(消费星巴克)35元，余额1,000.00元。【工商银行】', '35|expense|星巴克|1234|CNY|icbc|2024-11-27 12:30|1000.00'),
  row(
    '尾号1234卡9月27日18:55支出(消费支付宝-北京三快在线科技有限公司)45元，余额1,333.22元。【工商银行】',
    '45|expense|北京三快在线科技有限公司|1234|CNY|icbc|2024-09-27 18:55|1333.22',
  ),
  row('尾号1234卡10月9日19:12收入(微信零钱提现财付通)6.70元，余额0.64元。【工商银行】', '6.70|income||1234|CNY|icbc|2024-10-09 19:12|0.64'),
  row(
    '尾号2485卡11月16日16:51工商银行收入(他行汇入)660元，余额1,046.44元，对方户名：四川锦程消费金融有…，对方账户尾号：6841。【工商银行】',
    '660|income|四川锦程消费金融有|2485|CNY|icbc|2024-11-16 16:51|1046.44',
  ),
  row('尾号1054卡11月5日15:00收入(退款支付宝-支付宝-消费)3.70元，余额1,108.67元。【工商银行】', '3.70|income||1054|CNY|icbc|2024-11-05 15:00|1108.67'),
  row('尾号1234卡10月14日23:41网上银行支出(无卡支付)4.78元，余额3.46元。【工商银行】', '4.78|expense||1234|CNY|icbc|2024-10-14 23:41|3.46'),
  // The ICBC app's push has no signature: read by the generic parser.
  row('动账通知 尾号1054卡1月12日15:56支出(消费支付宝-周五)4元，余额873.02元。', '4|expense|周五|1054|CNY|generic-zh|2024-01-12 15:56|873.02'),
  // 建设银行
  row('您尾号1234的储蓄卡11月27日12时30分消费支出人民币25.00元,活期余额3,456.78元。[建设银行]', '25.00|expense||1234|CNY|ccb|2024-11-27 12:30|3456.78'),
  row('王小明11月11日10时25分向您尾号7149的储蓄卡账户银联入账收入人民币15.10元,活期余额26.98元。[建设银行]', '15.10|income|王小明|7149|CNY|ccb|2024-11-11 10:25|26.98'),
  row(
    '【建设银行】您账户4867于1月21日10时27分向美团支付-美团App老山东招牌炒鸡*支出人民币24.15元,可用余额10299.95元。',
    '24.15|expense|美团App老山东招牌炒鸡|4867|CNY|ccb|2024-01-21 10:27|10299.95',
  ),
  row('您尾号5082的龙卡信用卡11月09日11:18消费（美团支付-美团支…）14.93元，当前可用额度78627.74元。【建设银行】', '14.93|expense|美团支|5082|CNY|ccb|2024-11-09 11:18'),
  row('您尾号1018的龙卡信用卡11月08日消费退货/退税（支付宝-支付宝-…）207.51元，当前可用额度78642.67元。【建设银行】', '207.51|income||1018|CNY|ccb|2024-11-08 00:00'),
  row('您尾号5083的龙卡信用卡已于11月04日从约定账户成功扣款人民币97.00元。该卡本期人民币账单已还清。【建设银行】', '97.00|income||5083|CNY|ccb|2024-11-04 00:00'),
  row(
    '您尾号1234的龙卡信用卡10月02日23:00消费/预付款858.00日元，当前可用额度123456元。实际消费金额以入账结算币种金额为准。【建设银行】',
    '858.00|expense||1234|JPY|ccb|2024-10-02 23:00',
  ),
  // 农业银行 (expenses are signed)
  row(
    '【中国农业银行】您尾号0773账户11月06日15:03向湖北良品铺子电子商务有限公司完成支付宝交易人民币-18.90，余额4834.48。',
    '18.90|expense|湖北良品铺子电子商务有限公司|0773|CNY|abc|2024-11-06 15:03|4834.48',
  ),
  row('【中国农业银行】赵先生于11月23日10:28向您尾号2473账户完成转存交易人民币60000.00，余额60234.76。', '60000.00|income|赵先生|2473|CNY|abc|2024-11-23 10:28|60234.76'),
  row(
    '【中国农业银行】您尾号8172账户11月24日16:47向微信支付大商鲜生（长兴岛）完成财付通交易人民币-504.20，余额577.60。',
    '504.20|expense|大商鲜生(长兴岛)|8172|CNY|abc|2024-11-24 16:47|577.60',
  ),
  row('【中国农业银行】您6559的信用卡(附属卡)11月20日20:01消费27.40元，可用余额57821.53元，如有外币欠款以入账为准。', '27.40|expense||6559|CNY|abc|2024-11-20 20:01|57821.53'),
  row('【中国农业银行】您尾号为6666的金融账户于11月27日09时15分完成一笔公积金付交易人民币12000.00，余额14805.04。', '12000.00|income||6666|CNY|abc|2024-11-27 09:15|14805.04'),
  // 中国银行
  row('您的借记卡账户6450，于11月28日网上支付支取人民币1.00元,交易后余额1653.35【中国银行】', '1.00|expense||6450|CNY|boc|2024-11-28 00:00|1653.35'),
  row('您的信用卡6666于2024年10月05日，在钱袋宝支付消费RMB138.20元。【中国银行】', '138.20|expense|钱袋宝|6666|CNY|boc|2024-10-05 00:00'),
  row(
    '您的借记卡/账户0263于11月01日银联入账人民币85.87元（支付宝(中国)网络技术有限公司）,交易后余额85.87【中国银行】',
    '85.87|income|支付宝(中国)网络技术有限公司|0263|CNY|boc|2024-11-01 00:00|85.87',
  ),
  row('尊敬的李四，您在2024-11-24 13:05:14使用银行卡1502进行了RMB 45.00元的网上支付交易。详询95566【中国银行】', '45.00|expense||1502|CNY|boc|2024-11-24 13:05:14'),
  // 交通银行
  row('您尾号*1923的卡于11月08日11:05网络支付异地消费2.13元,交易后余额为29.34元。【交通银行】', '2.13|expense||1923|CNY|bocom|2024-11-08 11:05|29.34'),
  row('您尾号*1923的卡于11月08日11:04网络支付转入30.00元,交易后余额为31.47元。【交通银行】', '30.00|income||1923|CNY|bocom|2024-11-08 11:04|31.47'),
  row('您尾号0262交行信用卡01日19时09分成功消费人民币153.00元，当前可用额度为人民币53948.90元。【交通银行】', '153.00|expense||0262|CNY|bocom|2024-11-01 19:09'),
  // 浦发银行 (a time without a date is today, even a few hours ahead)
  row('您尾号4036卡人民币活期14:09转入9,915.48元[其他代发工资],可用余额105,047.59元。【浦发银行】', '9915.48|income||4036|CNY|spdb|2024-11-28 14:09|105047.59'),
  row('您尾号3252卡09:59消费1.00[消费:银联扫码转账],可用余额4.09【浦发银行】', '1.00|expense||3252|CNY|spdb|2024-11-28 09:59|4.09'),
  row(
    '浦发银行 交易提醒\n交易时间：10月09日 10:56:54 网上银行\n交易类型：网上支付-美团支付\n交易金额：人民币活期-19.80\n可用额度：点击查看账户详情（尾号4113）',
    '19.80|expense||4113|CNY|spdb|2024-10-09 10:56:54',
  ),
  // 中信银行
  row('【中信银行】您尾号4924的中信卡于11月10日17:38，转账支出人民币1.00元，当前余额为人民币2.42元。', '1.00|expense||4924|CNY|citic|2024-11-10 17:38|2.42'),
  row('【中信银行】您尾号3352的中信卡于11月16日19:53，跨行转入存入人民币5,200.00元，当前余额为人民币29,405.28元。', '5200.00|income||3352|CNY|citic|2024-11-16 19:53|29405.28'),
  // 平安银行
  row('您存款账户5514于11月16日21:14跨行转账转入人民币220.00元，活期余额人民币4026.42元。【平安银行】', '220.00|income||5514|CNY|pingan|2024-11-16 21:14|4026.42'),
  row('【平安银行】您尾号9999的账户于1月23日13:45付款业务转入人民币500.00元,存款账户余额人民币49147.11元。详询95511-3', '500.00|income||9999|CNY|pingan|2024-01-23 13:45|49147.11'),
  row(
    '平安银行 交易提醒\n账号：尾号6274的账户\n交易时间：2024年05月23日09:14\n交易类型：财付通快捷支付(微信红包-微信红包)\n交易币种：人民币\n交易金额：0.01',
    '0.01|expense|微信红包|6274|CNY|pingan|2024-05-23 09:14',
  ),
  // 民生银行
  row('账户*0936于11月26日09:54存入￥100.00元，可用余额100.01元。银联入账：业务组。【民生银行】', '100.00|income|业务组|0936|CNY|cmbc|2024-11-26 09:54|100.01'),
  row('账户*0936于11月26日10:22支出￥5.00元，可用余额0.01元。跨行消费:银联扫码转账。【民生银行】', '5.00|expense||0936|CNY|cmbc|2024-11-26 10:22|0.01'),
  row(
    '中国民生银行 交易提醒\n交易账号:借记卡（6510）\n交易时间:2024年05月10日 09:34:47\n交易类型:存入-工资\n交易金额:人民币 14214.20\n交易对象:西安隆基乐叶光伏科技有限公司',
    '14214.20|income|西安隆基乐叶光伏科技有限公司|6510|CNY|cmbc|2024-05-10 09:34:47',
  ),
  // 兴业银行
  row('24日17:59账户*6751*汇款汇入收入1000.00元，余额20442.23元。对方户名:陈大文[兴业银行]', '1000.00|income|陈大文|6751|CNY|cib|2024-11-24 17:59|20442.23'),
  row(
    '兴业银行 交易提醒\n交易时间：2024年09月22日  20:40\n交易类型：借记卡*4715跨行消费支出\n交易金额：5,192.00 元\n卡内余额：624.18 元',
    '5192.00|expense||4715|CNY|cib|2024-09-22 20:40|624.18',
  ),
  // 银联 云闪付
  row('支付助手：付款成功\n您尾号为7644的银行卡于01日11时37分消费114.65元', '114.65|expense||7644|CNY|unionpay|2024-11-01 11:37'),
  row('支付助手：入账成功\n您的工商银行卡6212 **** **** 7432收到来自*明的转账170.00元，已于2024-10-06 23:46成功到账！', '170.00|income|*明|7432|CNY|unionpay|2024-10-06 23:46'),
  row('支付助手：转账成功\n您向刘洋的工商银行卡6212 **** **** 7432转账170.00元，已于2024-10-06 23:46成功到账！', '170.00|expense|刘洋||CNY|unionpay|2024-10-06 23:46'),
  // 支付宝
  row('支付宝 付款成功\n你已成功付款¥25.50给瑞幸咖啡（深圳）有限公司\n付款方式：招商银行信用卡(1356)', '25.50|expense|瑞幸咖啡(深圳)有限公司|1356|CNY|alipay'),
  row('支付宝到账100.00元', '100.00|income|||CNY|alipay'),
  row('收款到账通知\n支付宝成功收款88.00元\n付款方：张*三', '88.00|income|张*三||CNY|alipay'),
  row(
    '资金到账通知\n04月27日\n¥0.30\n付款方：北京快手科技有限公司 bjk***@kuaishou.com\n到账时间：2024-04-27 18:14',
    '0.30|income|北京快手科技有限公司||CNY|alipay|2024-04-27 18:14',
  ),
  row('资金到账通知 付款方:张三 ¥100.00', '100.00|income|张三||CNY|alipay'),
  row('交易提醒\n你有一笔43.73元的支出，点击领取4个支付宝积分。使用花呗支付，请及时还款。', '43.73|expense|||CNY|alipay'),
  row(
    '支付宝 退款通知\n03月17日 29.82元\n退款方式：农业银行储蓄卡(9979)\n退款说明：退款-麻爪爪·酸辣凤爪(大朗店)外卖订单',
    '29.82|income|麻爪爪·酸辣凤爪(大朗店)外卖订单|9979|CNY|alipay|2024-03-17 00:00',
  ),
  // 微信支付
  row('微信支付\n¥25.50\n收款方 沪上阿姨(人民广场店)\n支付方式 零钱\n交易状态 支付成功', '25.50|expense|沪上阿姨(人民广场店)||CNY|wechat'),
  row('已支付¥35.41\n付款金额￥35.41\n付款方式中国银行储蓄卡(7575)\n收单机构财付通支付科技有限公司', '35.41|expense||7575|CNY|wechat'),
  // A Shortcut that joins a notice's lines with spaces.
  row('微信支付 收款方:沪上阿姨 金额:¥25.50 支付成功', '25.50|expense|沪上阿姨||CNY|wechat'),
  row('微信支付收款100.00元', '100.00|income|||CNY|wechat'),
  row('个人收款码到账¥10.00', '10.00|income|||CNY|wechat'),
  row('微信支付凭证\n付款金额￥5.00\n收款方发财\n交易状态支付成功，对方已收款', '5.00|expense|发财||CNY|wechat'),
  // Other senders: the generic Chinese parser.
  row(
    '您账户8162于11月20日21:29转入人民币1100.00元(事由：汇款)，付款方：钱七，交易后余额为20098.74元。【上海农商银行】',
    '1100.00|income|钱七|8162|CNY|generic-zh|2024-11-20 21:29|20098.74',
  ),
  row('【邮储银行】24年10月09日15:54您尾号097账户快捷支付，支出金额680.00元，余额155.70元。', '680.00|expense||097|CNY|generic-zh|2024-10-09 15:54|155.70'),
  row('【邮储银行】24年11月18日15:27张三李四账户2428向您尾号855账户他行来账金额5.00元，余额25.30元。', '5.00|income|张三李四|855|CNY|generic-zh|2024-11-18 15:27|25.30'),
  row('您向刘洋的工商银行卡6212 **** **** 7432转账170.00元，已于2024-10-06 23:46成功到账！', '170.00|expense|刘洋||CNY|icbc|2024-10-06 23:46'),
  // 收款人民币 is 收款 + 人民币, not the label 收款人.
  row('您账户6598于10月23日13:03收款人民币8650.00', '8650.00|income||6598|CNY|generic-zh|2024-10-23 13:03'),
  row('【美团月付】成功支付126.00元', '126.00|expense|||CNY|generic-zh'),
];

const EN: Row[] = [
  row('You spent $12.34 at STARBUCKS with your card ending 1234 on Nov 27', '12.34|expense|STARBUCKS|1234|USD|generic-en|2024-11-27 00:00'),
  row('Your card ending in 1234 was charged $5.00 at Uber on 11/27 12:30', '5.00|expense|Uber|1234|USD|generic-en|2024-11-27 12:30'),
  row('A deposit of $1,200.00 was made to account ...1234 on November 27, 2024. Available balance: $3,456.78', '1200.00|income||1234|USD|generic-en|2024-11-27 00:00|3456.78'),
  row('Purchase of EUR 25,00 at REWE Markt GmbH with your card ending 9876.', '25.00|expense|REWE Markt GmbH|9876|EUR|generic-en'),
  row('Chase: You made a $45.67 transaction with AMAZON MKTPLACE PMTS on Nov 26, 2024 at 3:45 PM ET.', '45.67|expense|AMAZON MKTPLACE PMTS||USD|generic-en|2024-11-26 15:45'),
  row('A refund of £19.99 from ASOS has been credited to your card ending 4321.', '19.99|income|ASOS|4321|GBP|generic-en'),
  row('You received $50.00 from John Smith via Zelle.', '50.00|income|John Smith||USD|generic-en'),
  row('You sent $20.00 to Jane Doe on Nov 25.', '20.00|expense|Jane Doe||USD|generic-en|2024-11-25 00:00'),
  row('HK$388.00 was debited from your account xx5678 at PARKnSHOP on 26/11', '388.00|expense|PARKnSHOP|5678|HKD|generic-en|2024-11-26 00:00'),
  row('ATM withdrawal of $100.00 from account ending 4444. Balance: $900.00', '100.00|expense||4444|USD|generic-en|-|900.00'),
  row('Thank you for your payment of $500.00 to your card ending 5555.', '500.00|income||5555|USD|generic-en'),
];

function check({ text, spec }: Row, options: { now: number; timeZone: string }, offsetHours: number) {
  const [amount, direction, merchant, cardTail, currency, source, at = '-', balance] = spec.split('|');
  const draft = parseNoticeText(text, options);
  expect(draft).not.toBeNull();
  if (!draft) return;
  expect({ amount: draft.amount, direction: draft.direction, merchant: draft.merchant, cardTail: draft.cardTail, currency: draft.currency, source: draft.source }).toEqual({
    amount,
    direction,
    merchant,
    cardTail,
    currency,
    source,
  });
  expect(draft.balance).toBe(balance);
  const time = at === '-' ? options.now : wallTime(at, offsetHours);
  expect({ time: draft.time, timeFromText: draft.timeFromText }).toEqual({ time, timeFromText: at !== '-' });
  expect(draft.note).toBe(text);
}

describe('parseNoticeText: Chinese bank SMS and payment-app notices', () => {
  it.each(ZH.map((row) => [row.text.slice(0, 40).replace(/\n/g, ' '), row] as const))('%s', (_name, row) => check(row, SHANGHAI, 8));
});

describe('parseNoticeText: English bank alerts', () => {
  it.each(EN.map((row) => [row.text.slice(0, 40), row] as const))('%s', (_name, row) => check(row, NEW_YORK, -5));
});

describe('parseNoticeText: texts that are no payment', () => {
  it.each([
    ['empty', ''],
    ['blank', ' \n\t '],
    ['a verification code', '【招商银行】验证码123456，您正在进行快捷支付，金额25.50元，请勿泄露。'],
    ['a verification code (en)', 'Your verification code is 482913. Do not share it.'],
    ['a shop ad', '【京东】双11狂欢，全场满300减50，领取100元优惠券 3.cn/abc 回T退订'],
    ['a bank ad', '【招商银行】尊敬的客户，您已获得最高50000元信用额度，点击 cmbt.cn/x 立即申请，回T退订'],
    ['an ad (en)', 'Get 20% off! Spend $50 and save $10. Reply STOP to unsubscribe.'],
    ['a bill reminder', '【民生银行】您民生信用卡人民币账户6月应还人民币13096.00元，最后还款日7月1日。'],
    ['a statement', '【广发银行】您尾号1234信用卡12月账单：消费金额人民币1,200.00元，到期还款日12月25日。'],
    ['a failed payment', '【工商银行】您尾号1234卡11月27日12:30消费25.00元交易失败，余额不足。'],
    ['only a balance', '【XX银行】您尾号1234账户当前余额为1,000.00元。'],
    ['only a balance (en)', 'Your balance is $1,234.56'],
    ['a chat message', '你好，明天一起吃饭吗？'],
    ['a date and time but no amount', '会议定于11月28日14:00召开，请准时参加'],
    ['an amount without a direction word (generic)', '今天午饭花了25块'],
  ])('%s → null', (_name, text) => {
    expect(parseNoticeText(text, SHANGHAI)).toBeNull();
  });
});

describe('parseNoticeText: tricky notices', () => {
  const read = (text: string, options = SHANGHAI) => {
    const draft = parseNoticeText(text, options);
    expect(draft).not.toBeNull();
    return draft as NoticeDraft;
  };

  it('takes the payment, not a balance named before it', () => {
    const d = read('【工商银行】您尾号1234卡余额1,000.00元，11月27日12:30支出(消费星巴克)35.00元。');
    expect([d.amount, d.balance, d.merchant, d.cardTail]).toEqual(['35.00', '1000.00', '星巴克', '1234']);
  });

  it('takes the actual amount of two (实际金额 after 消费金额 and 优惠金额)', () => {
    const d = read('平安银行信用卡 消费成功通知\n消费时间：2024年04月30日 16:21\n消费金额：RMB56.02元\n优惠金额：RMB5.00元\n实际金额：RMB51.02元');
    expect([d.amount, d.source, d.time]).toEqual(['51.02', 'pingan', sh(2024, 4, 30, 16, 21)]);
  });

  it('skips a daily total (共计) and reads the receipt itself', () => {
    const d = read('微信支付收款0.02元(朋友到店)\n收款金额￥0.02\n汇总今日第2笔收款，共计￥0.03\n备注收款成功，已存入零钱。');
    expect([d.amount, d.direction, d.merchant]).toEqual(['0.02', 'income', '']);
  });

  it('does not take the card tail or the date for the amount', () => {
    const d = read('【工商银行】尾号5678卡11月27日12:30支出(消费)500元。');
    expect([d.amount, d.cardTail, d.time]).toEqual(['500', '5678', sh(2024, 11, 27, 12, 30)]);
  });

  it('takes the amount in the currency the card was charged in, not the conversion after it', () => {
    const d = read('【招商银行】您尾号1356的招行信用卡消费12.34美元，折合人民币88.65元。');
    expect([d.amount, d.currency, d.direction]).toEqual(['12.34', 'USD', 'expense']);
  });

  it('does not make a purchase income because it mentions refunds', () => {
    const d = read('已支付¥35.00\n收款方 星巴克\n如需退款，请联系商户');
    expect([d.direction, d.merchant, d.source]).toEqual(['expense', '星巴克', 'wechat']);
  });

  it('takes the card of the person, not the other side named before it', () => {
    const d = read('【XX银行】您的账户于11月27日收到转账，人民币100.00元，对方账户尾号：6841。');
    expect([d.cardTail, d.direction, d.amount]).toEqual(['', 'income', '100.00']);
  });

  it('reads full-width digits, colons, commas and ￥ (NFKC)', () => {
    const d = read('【招商银行】您账户１２３４于１１月２７日１２：３０在美团支付消费￥１，２３４．５０');
    expect([d.amount, d.cardTail, d.time, d.currency]).toEqual(['1234.50', '1234', sh(2024, 11, 27, 12, 30), 'CNY']);
  });

  it('puts a year-less date across New Year in the right year', () => {
    const newYear = { now: sh(2025, 1, 1, 0, 30), timeZone: 'Asia/Shanghai' };
    expect(read('【工商银行】尾号1234卡12月31日23:50支出(消费全家)12.00元，余额100.00元。', newYear).time).toBe(sh(2024, 12, 31, 23, 50));
    expect(read('【工商银行】尾号1234卡1月1日00:10支出(消费全家)12.00元。', newYear).time).toBe(sh(2025, 1, 1, 0, 10));
    // Up to a day ahead is still this year (clocks differ); further ahead is last year.
    expect(read('【工商银行】尾号1234卡1月2日00:20支出(消费全家)12.00元。', newYear).time).toBe(sh(2025, 1, 2, 0, 20));
    expect(read('【工商银行】尾号1234卡01月05日09:00支出(消费全家)12.00元。', newYear).time).toBe(sh(2024, 1, 5, 9, 0));
  });

  it('puts a month-less day (31日) in the previous month when it has not come yet', () => {
    const newYear = { now: sh(2025, 1, 1, 0, 30), timeZone: 'Asia/Shanghai' };
    const d = read('【广发银行】您尾号2498广发卡31日09:27消费人民币40.00元。', newYear);
    expect([d.time, d.source, d.cardTail]).toEqual([sh(2024, 12, 31, 9, 27), 'generic-zh', '2498']);
    expect(read('【广发银行】您尾号2498广发卡28日09:27消费人民币40.00元。').time).toBe(sh(2024, 11, 28, 9, 27));
  });

  it('places year-less dates by the time zone asked for', () => {
    // 11月28日 00:30 in Shanghai is still 11-27 in UTC: a "12月1日" notice is more than a day ahead either way.
    const utc = { now: Date.UTC(2024, 10, 27, 16, 30), timeZone: 'UTC' };
    expect(read('【工商银行】尾号1234卡11月28日00:20支出(消费全家)12.00元。', utc).time).toBe(Date.UTC(2024, 10, 28, 0, 20));
    expect(read('【工商银行】尾号1234卡12月1日00:20支出(消费全家)12.00元。', utc).time).toBe(Date.UTC(2023, 11, 1, 0, 20));
  });

  it('keeps the original text as the note, trimmed to 500 characters', () => {
    const text = `  【招商银行】您账户1234于11月27日12:30在美团支付消费25.50元。${'附'.repeat(600)}  `;
    const d = read(text);
    expect(d.amount).toBe('25.50');
    expect(Array.from(d.note)).toHaveLength(500);
    expect(d.note.startsWith('【招商银行】您账户1234')).toBe(true);
  });

  it('falls back to UTC for an unknown time zone and to now when the notice has no time', () => {
    const d = read('支付宝到账100.00元', { now: NOW, timeZone: 'Mars/Olympus' });
    expect([d.time, d.timeFromText]).toEqual([NOW, false]);
    expect(read('【招商银行】您账户1234于11月27日12:30在美团支付消费25.50元', { now: NOW, timeZone: 'Mars/Olympus' }).time).toBe(Date.UTC(2024, 10, 27, 12, 30));
  });
});

describe('parseNoticeFields', () => {
  it('reads a Shortcut JSON with every field', () => {
    const d = parseNoticeFields({ amount: '25.50', merchant: 'Starbucks', type: 'expense', time: '2024-11-27 12:30', card: '尾号1234', currency: 'usd' }, SHANGHAI);
    expect(d).toEqual({
      amount: '25.50',
      currency: 'USD',
      direction: 'expense',
      merchant: 'Starbucks',
      time: sh(2024, 11, 27, 12, 30),
      timeFromText: true,
      cardTail: '1234',
      source: 'fields',
      note: JSON.stringify({ amount: '25.50', merchant: 'Starbucks', type: 'expense', time: '2024-11-27 12:30', card: '尾号1234', currency: 'usd' }),
    });
  });

  it('reads Chinese keys and values, and the currency mark of the amount', () => {
    const d = parseNoticeFields({ 金额: '¥88', 商户: '全家', type: '支出', 尾号: '6222 **** 4321' }, SHANGHAI);
    expect(d && [d.amount, d.currency, d.merchant, d.direction, d.cardTail, d.timeFromText, d.time]).toEqual(['88', 'CNY', '全家', 'expense', '4321', false, NOW]);
  });

  it('matches keys without regard to case, and takes seconds, ms and ISO times', () => {
    const seconds = parseNoticeFields({ Money: 100, TYPE: 'in', date: 1732672800 }, SHANGHAI);
    expect(seconds && [seconds.amount, seconds.direction, seconds.time, seconds.currency]).toEqual(['100', 'income', 1732672800000, '']);
    const ms = parseNoticeFields({ amount: 5, time: 1732681800000 }, SHANGHAI);
    expect(ms?.time).toBe(1732681800000);
    const iso = parseNoticeFields({ amount: '20', time: '2024-11-27T04:30:00Z', direction: 'income', cardTail: 98765 }, SHANGHAI);
    expect(iso && [iso.time, iso.direction, iso.cardTail]).toEqual([Date.UTC(2024, 10, 27, 4, 30), 'income', '8765']);
  });

  it('makes a negative amount an expense, reads separators, and keeps now for an unreadable time', () => {
    const negative = parseNoticeFields({ amount: '-12.5', type: 'whatever' }, SHANGHAI);
    expect(negative && [negative.amount, negative.direction]).toEqual(['12.5', 'expense']);
    const rent = parseNoticeFields({ amount: '1,234.50', title: 'Rent', type: 'out', time: 'yesterday' }, SHANGHAI);
    expect(rent && [rent.amount, rent.merchant, rent.time, rent.timeFromText]).toEqual(['1234.50', 'Rent', NOW, false]);
    const euro = parseNoticeFields({ amount: '25,50 €', direction: 'income' }, SHANGHAI);
    expect(euro && [euro.amount, euro.currency, euro.direction]).toEqual(['25.50', 'EUR', 'income']);
  });

  it('parses the text when no amount is given, and lets the other fields override it', () => {
    const text = '【招商银行】您账户1234于11月27日12:30在美团支付消费25.50元';
    const d = parseNoticeFields({ text }, SHANGHAI);
    expect(d).toEqual(parseNoticeText(text, SHANGHAI));
    expect(d?.source).toBe('cmb');
    const overridden = parseNoticeFields({ message: text, merchant: '美团外卖', type: 'income' }, SHANGHAI);
    expect(overridden && [overridden.amount, overridden.merchant, overridden.direction, overridden.source]).toEqual(['25.50', '美团外卖', 'income', 'cmb']);
  });

  it('uses a text to fill what the fields leave out', () => {
    const d = parseNoticeFields({ amount: '30', body: '【工商银行】尾号1234卡11月27日12:30支出(消费星巴克)35元，余额1,000.00元。' }, SHANGHAI);
    expect(d && [d.amount, d.merchant, d.cardTail, d.time, d.balance, d.source, d.direction]).toEqual([
      '30',
      '星巴克',
      '1234',
      sh(2024, 11, 27, 12, 30),
      '1000.00',
      'fields',
      'expense',
    ]);
  });

  it('gives null without a usable amount', () => {
    expect(parseNoticeFields({ amount: 'abc' }, SHANGHAI)).toBeNull();
    expect(parseNoticeFields({ amount: 0 }, SHANGHAI)).toBeNull();
    expect(parseNoticeFields({ amount: '0.00' }, SHANGHAI)).toBeNull();
    expect(parseNoticeFields({}, SHANGHAI)).toBeNull();
    expect(parseNoticeFields({ merchant: 'Starbucks', type: 'expense' }, SHANGHAI)).toBeNull();
    expect(parseNoticeFields({ text: '你好，明天一起吃饭吗？' }, SHANGHAI)).toBeNull();
    expect(parseNoticeFields(null as unknown as Record<string, unknown>, SHANGHAI)).toBeNull();
  });
});
