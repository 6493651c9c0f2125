/**
 * The categories statements name (Alipay's 交易分类, a WeChat Pay 交易类型 that is one, a bank's
 * or a card's category column) and the default categories they are (server/ledger/default-categories.ts
 * keys): so a line of 餐饮美食 goes to the person's 餐饮 — or Food, or whatever they renamed it to
 * — instead of "Other" (issue 36). Words are compared as sourceCategoryKey gives them.
 */

type Type = 'income' | 'expense';

/** Default category key → the source categories that are it, per type. */
const TABLE: Record<Type, Record<string, readonly string[]>> = {
  expense: {
    food: [
      '餐饮美食',
      '餐饮',
      '美食',
      '外卖',
      '餐饮消费',
      'food',
      'food & drink',
      'food and drink',
      'groceries',
      'restaurants',
      'restaurant',
      'dining',
      'fast food',
      'coffee shops',
    ],
    transport: [
      '交通出行',
      '交通',
      '爱车养车',
      '出行',
      '加油',
      '停车',
      '公共交通',
      'transport',
      'transportation',
      'auto & transport',
      'gas',
      'fuel',
      'gas & fuel',
      'automotive',
      'parking',
      'public transportation',
      'taxi',
    ],
    shopping: [
      '日用百货',
      '服饰装扮',
      '数码电器',
      '美容美发',
      '母婴亲子',
      '家居家装',
      '购物',
      '网购',
      'shopping',
      'clothing',
      'electronics',
      'merchandise',
      'general merchandise',
      'personal care',
    ],
    housing: ['住房物业', '住房', '房租', '物业', '物业缴费', 'housing', 'rent', 'mortgage', 'home'],
    utilities: ['充值缴费', '生活缴费', '水电燃气', '水电煤', 'utilities', 'bills & utilities', 'bills and utilities', 'bills'],
    phone: ['通讯', '话费', '手机充值', 'phone', 'mobile phone', 'internet'],
    health: ['医疗健康', '医疗', '医疗保健', '药店', 'health', 'health & wellness', 'healthcare', 'medical', 'pharmacy'],
    entertainment: ['文化休闲', '休闲娱乐', '运动户外', '娱乐', '文体娱乐', 'entertainment', 'recreation', 'sports', 'movies'],
    education: ['教育培训', '教育', 'education'],
    travel: ['酒店旅游', '旅游', '旅行', '酒店', 'travel', 'hotel', 'hotels', 'airlines', 'lodging'],
    gifts: ['转账红包', '亲友代付', '微信红包', '红包', '人情', '公益捐赠', 'gifts', 'gifts & donations', 'gifts and donations', 'donations', 'charity'],
  },
  income: {
    salary: ['工资', '薪资', '薪水', '代发工资', 'salary', 'payroll', 'paycheck', 'wages'],
    bonus: ['奖金', 'bonus'],
    investment: ['投资理财', '理财', '投资收益', '理财收益', '利息', '结息', 'interest', 'dividends', 'investment', 'investments'],
    sidejob: ['兼职'],
    gift: ['转账红包', '微信红包', '红包', '礼金', 'gift', 'gifts'],
    refund: ['退款', '退货', 'refund', 'refunds', 'returns'],
  },
};

/**
 * A source category as compared: NFKC, lower case, trimmed, without what WeChat adds in brackets
 * (`微信红包（单发）`) or after a dash (`微信红包-退款`).
 */
export function sourceCategoryKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/-退款$/, '')
    .trim();
}

const BY_WORD: Record<Type, Map<string, string>> = {
  expense: new Map(Object.entries(TABLE.expense).flatMap(([key, words]) => words.map((word) => [sourceCategoryKey(word), key] as [string, string]))),
  income: new Map(Object.entries(TABLE.income).flatMap(([key, words]) => words.map((word) => [sourceCategoryKey(word), key] as [string, string]))),
};

/** The default category key a source category of a line of `type` is, or undefined. */
export function defaultKeyOf(type: Type, sourceCategory: string): string | undefined {
  return BY_WORD[type].get(sourceCategoryKey(sourceCategory));
}

/** Every default key the table can give, per type (to look up the person's categories once per import). */
export const MAPPED_KEYS: Record<Type, readonly string[]> = { expense: Object.keys(TABLE.expense), income: Object.keys(TABLE.income) };
