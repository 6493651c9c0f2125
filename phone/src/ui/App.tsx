import { useEffect, useMemo, useState } from 'react';
import type { RecordDoc } from '../../../server/ledger/schema';
import type { Pairing } from '../../../server/sync/pairing-link';
import { PhoneLedger } from '../data/phone-db';
import { saved } from '../data/saved';
import { addRecord, confirmOccurrence, deleteRecord, editRecord, restoreRecord } from '../data/writes';
import { pickLang, wordsFor } from '../i18n';
import { OverviewScreen } from './OverviewScreen';
import { PairScreen } from './PairScreen';
import { RecordForm } from './RecordForm';
import { RecordsScreen } from './RecordsScreen';
import { StatusLine } from './StatusLine';
import { useLedger } from './use-ledger';

type Tab = 'capture' | 'records' | 'overview';

interface Toast {
  text: string;
  undo?: () => void;
}

export function App({ initialPairing }: { initialPairing: Pairing | null }) {
  const [pairing, setPairing] = useState(initialPairing);
  const [ledger, setLedger] = useState<PhoneLedger | null>(null);
  const [failure, setFailure] = useState('');
  // `?tab=records` or `?tab=overview` opens there (the manifest's shortcuts use it).
  const [tab, setTab] = useState<Tab>(() => {
    const wanted = new URLSearchParams(location.search).get('tab');
    return wanted === 'records' || wanted === 'overview' ? wanted : 'capture';
  });
  const [editing, setEditing] = useState<RecordDoc | null>(null);
  const [toast, setToast] = useState<Toast | null>(null);
  const w = useMemo(() => wordsFor(pickLang(pairing?.lang)), [pairing]);
  const { model, summary, sync } = useLedger(ledger);

  useEffect(() => {
    document.documentElement.lang = w.lang;
  }, [w]);

  useEffect(() => {
    if (!pairing) return;
    let open: PhoneLedger | null = null;
    PhoneLedger.open(pairing).then(
      (l) => {
        open = l;
        setLedger(l);
        (window as unknown as { pennypostPhone?: PhoneLedger }).pennypostPhone = l;
      },
      (error: unknown) => setFailure((error as Error).message),
    );
    return () => void open?.close();
  }, [pairing]);

  useEffect(() => {
    if (!toast) return;
    const timer = setTimeout(() => setToast(null), 6000);
    return () => clearTimeout(timer);
  }, [toast]);

  if (!pairing) {
    return (
      <PairScreen
        w={w}
        onPaired={(p) => {
          saved.clear();
          saved.pairing.set(p);
          setPairing(p);
        }}
      />
    );
  }

  const readOnly = sync?.revoked ?? false;
  const shownSummary = model ?? summary;

  return (
    <div className="app">
      <header className="top">
        <span className="brand">{w.t('appName')}</span>
        <StatusLine sync={sync} w={w} />
      </header>
      <main className="content">
        {failure && (
          <p className="problem" role="alert">
            {failure}
          </p>
        )}
        {!shownSummary && !failure && <p className="empty">{w.t('opening')}</p>}
        {tab === 'capture' && model && ledger && !editing && (
          <RecordForm
            key="new"
            model={model}
            w={w}
            readOnly={readOnly}
            onSave={async (input) => {
              await addRecord(ledger, model, input);
              setToast({ text: w.t('saved') });
            }}
          />
        )}
        {tab === 'records' && model && !editing && <RecordsScreen model={model} w={w} onOpen={setEditing} />}
        {editing && model && ledger && (
          <RecordForm
            key={editing.id}
            model={model}
            w={w}
            current={editing}
            readOnly={readOnly}
            onCancel={() => setEditing(null)}
            onSave={async (input) => {
              await editRecord(ledger, model, editing, input);
              setEditing(null);
              setToast({ text: w.t('saved') });
            }}
            onDelete={() => {
              const gone = editing;
              setEditing(null);
              void deleteRecord(ledger, gone).then(() => setToast({ text: w.t('deleted'), undo: () => void restoreRecord(ledger, gone) }));
            }}
          />
        )}
        {tab === 'overview' && shownSummary && !editing && (
          <OverviewScreen
            summary={shownSummary}
            model={model}
            w={w}
            readOnly={readOnly}
            onConfirm={(planId) => {
              if (!ledger || !model) return;
              confirmOccurrence(ledger, model, planId).then(
                () => setToast({ text: w.t('saved') }),
                (error: unknown) => setToast({ text: (error as Error).message }),
              );
            }}
          />
        )}
        {readOnly && (
          <button
            type="button"
            className="secondary wide"
            onClick={() => {
              if (!window.confirm(w.t('forgetConfirm'))) return;
              void ledger?.forget().then(() => {
                setLedger(null);
                setPairing(null);
              });
            }}
          >
            {w.t('forget')}
          </button>
        )}
      </main>
      {toast && (
        <div className="toast" role="status">
          <span>{toast.text}</span>
          {toast.undo && (
            <button
              type="button"
              onClick={() => {
                toast.undo?.();
                setToast(null);
              }}
            >
              {w.t('undo')}
            </button>
          )}
        </div>
      )}
      <nav className="tabs" aria-label={w.t('appName')}>
        {(['capture', 'records', 'overview'] as const).map((t) => (
          <button
            key={t}
            type="button"
            className={t === tab ? 'tab on' : 'tab'}
            aria-current={t === tab ? 'page' : undefined}
            onClick={() => {
              setEditing(null);
              setTab(t);
            }}
          >
            {w.t(t)}
          </button>
        ))}
      </nav>
    </div>
  );
}
