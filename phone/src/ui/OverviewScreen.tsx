import type { LedgerModel, Summary } from '../data/ledger-model';
import type { Wording } from '../i18n';

/** Net worth, this month's income and expense, balances, budgets and what comes next. */
export function OverviewScreen({
  summary,
  model,
  w,
  readOnly,
  onConfirm,
}: {
  summary: Summary;
  model: LedgerModel | null;
  w: Wording;
  readOnly: boolean;
  onConfirm: (planId: string) => void;
}) {
  return (
    <section className="screen" aria-label={w.t('overview')}>
      <div className="cards">
        <div className="card">
          <h2>{w.t('netWorth')}</h2>
          <p className="big" data-testid="net-worth">
            {w.money(summary.netWorth.minor, summary.netWorth.currency)}
          </p>
          {summary.netWorth.unconverted.length > 0 && <p className="hint">{w.t('notConverted', { base: summary.base, list: summary.netWorth.unconverted.join(', ') })}</p>}
        </div>
        <div className="card">
          <h2>
            {w.t('thisMonth')} <span className="hint">{summary.month.label}</span>
          </h2>
          <p className="pair-figures">
            <span className="income">+{w.money(summary.month.income, summary.month.currency)}</span>
            <span className="expense">−{w.money(summary.month.expense, summary.month.currency)}</span>
          </p>
        </div>
      </div>
      <h2 className="section">{w.t('assets')}</h2>
      <ul className="balances" data-testid="balances">
        {summary.assets.map((a) => (
          <li key={a.id} className={a.archived ? 'archived' : ''}>
            <span>
              {a.name}
              {a.archived && <span className="hint"> · {w.t('archived')}</span>}
            </span>
            <span className="balance" data-asset={a.name}>
              {w.money(a.balance, a.currency)}
            </span>
          </li>
        ))}
      </ul>
      {model && model.budgets.length > 0 && (
        <>
          <h2 className="section">{w.t('budgets')}</h2>
          <ul className="budgets">
            {model.budgets.map((b) => {
              const share = b.amount.minor > 0 ? Math.min(1, b.spent / b.amount.minor) : 1;
              return (
                <li key={b.id}>
                  <span>{b.name}</span>
                  <span className="hint">{w.t('spentOf', { spent: w.money(b.spent, b.amount.currency), amount: w.money(b.amount.minor, b.amount.currency) })}</span>
                  <span className="bar" role="meter" aria-label={b.name} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(share * 100)}>
                    <span className={share >= 1 ? 'fill over' : share >= 0.8 ? 'fill near' : 'fill'} style={{ width: `${share * 100}%` }} />
                  </span>
                </li>
              );
            })}
          </ul>
        </>
      )}
      {model && model.upcoming.length > 0 && (
        <>
          <h2 className="section">{w.t('upcoming')}</h2>
          <ul className="balances">
            {model.upcoming.map((u) => (
              <li key={u.id}>
                <span>
                  {u.name} <span className="hint">{u.date}</span>
                  {u.waitsForTap && <span className="hint"> · {w.t('waitsForTap')}</span>}
                </span>
                <span className="upcoming-end">
                  {u.amount ? w.money(u.amount.minor, u.amount.currency) : ''}
                  {u.waitsForTap && u.due && (
                    <button
                      type="button"
                      className="secondary small"
                      disabled={readOnly}
                      onClick={() => onConfirm(u.id)}
                      aria-label={`${w.t('confirmOccurrence')}: ${u.name} ${u.date}`}
                    >
                      {w.t('confirmOccurrence')}
                    </button>
                  )}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
