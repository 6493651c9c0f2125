import { memo } from 'react';
import { bothAmounts } from '../../components/BothAmounts';
import { Icon } from '../../components/icons';
import { useFormat } from '../../lib/format';
import type { LedgerRecord } from '../../lib/ledger';
import { crossCurrencyText } from '../../lib/transfer';

export function PlaceholderRow() {
  return (
    <div className="pp-row" aria-busy="true">
      <div className="pp-row-placeholder" />
      <div className="pp-row-placeholder" />
      <div className="pp-row-placeholder" />
      <div className="pp-row-placeholder" />
      <div className="pp-row-placeholder" />
    </div>
  );
}

type Fmt = ReturnType<typeof useFormat>;

/** Loosely typed on purpose: the fully typed TFunction as a prop exceeds TypeScript's instantiation depth as the strings grow. */
export type TFn = (key: string, options?: Record<string, unknown>) => string;

/** One row: plain elements (no per-row hooks), memoised, so scrolling renders only what is new. */
export const RecordRow = memo(function RecordRow({ record, onOpen, f, t }: { record: LedgerRecord; onOpen: (record: LedgerRecord) => void; f: Fmt; t: TFn }) {
  const title = record.description || (record.type === 'transfer' ? t('common.transfer') : record.category);
  const sub =
    record.type === 'transfer'
      ? [record.description ? t('common.transfer') : '', record.fee ? t('records.feeOf', { fee: f.money(record.fee, record.currency) }) : ''].filter(Boolean).join(' · ')
      : record.description
        ? record.category
        : '';
  const date = f.date(record.date);
  const signed = record.type === 'expense' ? -record.amount : record.amount;
  const amount = crossCurrencyText(f.locale, record) ?? f.money(signed, record.currency, { sign: record.type !== 'transfer' });
  const where = record.type === 'transfer' ? `${record.assetName} → ${record.toAssetName ?? ''}` : record.assetName;
  const tags = record.tags.map((tag) => `#${tag}`).join(' ');
  const tone = record.type === 'income' ? 'pp-income' : record.type === 'expense' ? 'pp-expense' : 'pp-transfer';
  // A phone shows one line under the title instead of the date, asset and tags columns: date · category or fee · asset (from → to).
  const meta = [date, sub, where].filter(Boolean).join(' · ');
  return (
    <button
      type="button"
      className="pp-row"
      onClick={() => onOpen(record)}
      aria-label={
        t('records.rowLabel', { date, what: [title, sub, where, tags].filter(Boolean).join(' · '), amount }) + (record.attachments.length ? t('records.hasAttachments') : '')
      }
    >
      {/* The spaces between the cells are not drawn (grid, block spans) but keep the words of the visible text apart, so the label above contains it (label in name, WCAG 2.5.3). */}
      <span className="pp-cell pp-num">{date}</span>{' '}
      <span className="pp-cell">
        <span className="pp-row-title">
          {title}
          {record.attachments.length > 0 && <Icon name="paperclip" size={13} className="pp-inline-icon" />}
        </span>{' '}
        <span className="pp-row-sub">{sub}</span> <span className="pp-row-meta">{meta}</span>
      </span>{' '}
      <span className="pp-cell">{where}</span> <span className="pp-cell pp-row-sub">{tags}</span>{' '}
      <span className={`pp-cell pp-cell-amount ${tone}`}>{bothAmounts(f.locale, record) ?? amount}</span>
    </button>
  );
});
