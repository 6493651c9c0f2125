import { crossCurrencyText, isCrossCurrency, moneyWithCode, type TransferAmounts } from '../lib/transfer';

/**
 * Both amounts of a transfer across currencies, "−100.00 USD → +710.00 CNY", in two parts that
 * may wrap at the arrow (styles/ledger.css); null for any other record. No hooks: list rows call it.
 */
export function bothAmounts(locale: string, record: TransferAmounts, className = ''): React.JSX.Element | null {
  if (!isCrossCurrency(record)) return null;
  return (
    <span className={`pp-num pp-transfer pp-both-amounts ${className}`} title={crossCurrencyText(locale, record) ?? undefined}>
      <span>{moneyWithCode(locale, record.amount, record.currency, '−')}</span> <span>→ {moneyWithCode(locale, record.toAmount, record.toCurrency, '+')}</span>
    </span>
  );
}
