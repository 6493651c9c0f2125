/**
 * An Alipay app export (导出信息 … 电子客户回单) of `rows` (CSV lines of its 12 columns), with
 * `info` as the account lines that open it; the record count line follows them.
 */
export function alipayExport(rows: readonly string[], info: readonly string[]): string {
  return [
    ...info,
    `共${rows.length}笔记录`,
    '',
    '----------------------支付宝（中国）网络技术有限公司  电子客户回单----------------------',
    '交易时间,交易分类,交易对方,对方账号,商品说明,收/支,金额,收/付款方式,交易状态,交易订单号,商家订单号,备注,',
    ...rows,
    '',
  ].join('\n');
}
