import { useRef, useState } from 'react';
import { Alert, Button, Group, Progress, Select, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction } from '../../../lib/data';
import { timeZone } from '../../../lib/format';
import { useAssets } from '../../../lib/ledger';
import { Link } from '../../../lib/router';
import { CsvMappingStep, mappingComplete } from './CsvMappingStep';
import { ImportPreview } from './ImportPreview';
import { InterruptedImports } from './InterruptedImports';
import { isLedgerCsv, LedgerCsvImport } from './LedgerCsvImport';
import { guessFormat, INLINE_LIMIT, PART_BYTES, partsOf, STATEMENT_FORMATS, timeZones, toBase64, type StatementFormat } from './statement-file';
import type { CommitResult, CsvDescription, CsvMapping, DateOrder, LineOverride, MappingDraft, PreviewResult, StatementSource } from './types';
import { Card } from '../../../components/Card';
import { DropZone, HiddenFileInput, useFileChoice } from '../../../components/FileChoice';

interface ChosenFile {
  name: string;
  bytes: Uint8Array;
}

type Step = 'file' | 'mapping' | 'preview';
/** What the wizard imports a file as: a statement format, or PennyPost's own CSV (accounting.importCsv). */
type ImportFormat = StatementFormat | 'pennypost';

/** The asset a file belongs to by what it is, when the server could tell (import.describe). */
interface Belongs {
  id: string;
  name: string;
}

/**
 * The one Import (Settings → Import & export, and Import on the Records screen): any file of
 * records. A bank or payment-app statement (Alipay, WeChat Pay, OFX/QFX, QIF, CAMT.053 or any CSV)
 * in three steps: the file, whose format and asset the server recognises (import.describe: the
 * format by its header and structure, 支付宝 for an Alipay bill); for a generic CSV its columns;
 * then the preview (what is created, what looks like which record already there, what was
 * imported before, what is skipped and why), where lines can be left out or included, and the
 * import itself. PennyPost's own CSV goes to its own check (LedgerCsvImport). An import a crash
 * cut off is offered to be finished first. Large files are sent ahead in parts (import.upload).
 */
export function StatementImport() {
  const { t } = useTranslation();
  const assets = useAssets();
  const fileInput = useFileChoice();
  const [file, setFile] = useState<ChosenFile | null>(null);
  const [format, setFormat] = useState<ImportFormat>('csv');
  const [assetId, setAssetId] = useState<string | null>(null);
  const [belongs, setBelongs] = useState<Belongs | null>(null);
  const [zone, setZone] = useState(timeZone);
  const [step, setStep] = useState<Step>('file');
  const [described, setDescribed] = useState<CsvDescription | null>(null);
  const [mapping, setMapping] = useState<MappingDraft | null>(null);
  const [preview, setPreview] = useState<PreviewResult | null>(null);
  const [sending, setSending] = useState<{ done: number; total: number } | null>(null);
  const [result, setResult] = useState<CommitResult | null>(null);
  const [ledgerFile, setLedgerFile] = useState<ChosenFile | null>(null);
  const uploaded = useRef<string | null>(null);
  /** What the person chose themselves while the server was reading the file (its answer does not override it). */
  const touched = useRef({ format: false, asset: false });
  const action = useAction();
  const asset = (assetId ? assets.byId.get(assetId) : undefined) ?? assets.defaultAsset;

  const reset = () => {
    setFile(null);
    setStep('file');
    setDescribed(null);
    setMapping(null);
    setPreview(null);
    setBelongs(null);
    setLedgerFile(null);
    uploaded.current = null;
    action.setError(null);
  };

  /** The file for the server: inline when small, else uploaded in parts once (the upload is kept for the next steps). */
  const source = async (bytes: Uint8Array): Promise<StatementSource> => {
    if (bytes.length <= INLINE_LIMIT) return { content: toBase64(bytes) };
    if (uploaded.current) return { uploadId: uploaded.current };
    const total = partsOf(bytes.length);
    let uploadId: string | undefined;
    try {
      for (let part = 0; part < total; part++) {
        setSending({ done: part, total });
        const content = toBase64(bytes.subarray(part * PART_BYTES, (part + 1) * PART_BYTES));
        uploadId = (await call('import.upload', { content, ...(uploadId ? { uploadId } : {}) })).uploadId;
      }
    } finally {
      setSending(null);
    }
    uploaded.current = uploadId ?? null;
    return { uploadId: uploadId ?? '' };
  };

  const choose = async (chosen: File | undefined) => {
    if (!chosen) return;
    const bytes = new Uint8Array(await chosen.arrayBuffer());
    reset();
    touched.current = { format: false, asset: false };
    setResult(null);
    setFile({ name: chosen.name, bytes });
    fileInput.clear();
    const head = bytes.subarray(0, 4096);
    if (isLedgerCsv(head)) {
      setFormat('pennypost');
      return;
    }
    // The server tells the format by the file's header and structure, and the asset it belongs to.
    setFormat(guessFormat(chosen.name, head));
    const answer = await action.run(async () => call('import.describe', await source(bytes)), { invalidate: false });
    if (answer?.format && !touched.current.format) setFormat(answer.format);
    if (answer?.asset && !touched.current.asset) {
      setAssetId(answer.asset.id);
      setBelongs({ id: answer.asset.id, name: answer.asset.name });
    }
    // A file the server cannot place still goes on: the person chooses its format.
    action.setError(null);
  };

  const runPreview = async (options: { mapping?: CsvMapping; dateOrder?: DateOrder; assetId?: string } = {}) => {
    if (!file || format === 'pennypost') return;
    const into = options.assetId ?? asset?.id;
    if (!into) return;
    const answer = await action.run(
      async () =>
        call('import.preview', {
          format,
          ...(await source(file.bytes)),
          assetId: into,
          timeZone: zone,
          ...(options.mapping ? { mapping: options.mapping } : {}),
          ...(options.dateOrder ? { dateOrder: options.dateOrder } : {}),
        }),
      { invalidate: false },
    );
    // A preview uses its upload up: going back and previewing again sends the file again.
    uploaded.current = null;
    if (answer) {
      setPreview(answer);
      setStep('preview');
    }
  };
  const next = async () => {
    if (!file) return;
    if (format === 'pennypost') {
      setLedgerFile({ ...file });
      return;
    }
    if (!asset) return;
    if (format !== 'csv') return runPreview();
    const answer = await action.run(async () => call('import.describeCsv', await source(file.bytes)), { invalidate: false });
    if (answer) {
      setDescribed(answer);
      setMapping(answer.saved ?? answer.guess);
      setStep('mapping');
    }
  };
  /** The CSV read again with other lines to skip or another header setting (the mapping step's choices). */
  const redescribe = async (reading: { skipRows: number; header: boolean }) => {
    if (!file) return;
    const answer = await action.run(async () => call('import.describeCsv', { ...(await source(file.bytes)), ...reading }), { invalidate: false });
    if (answer) {
      setDescribed(answer);
      setMapping((current) => ({ ...(current ?? {}), ...answer.guess, ...reading }));
    }
  };
  const commit = async (overrides: LineOverride[]) => {
    if (!preview) return;
    const answer = await action.run(() => call('import.commit', { token: preview.token, overrides }));
    if (answer) {
      notifications.show({ color: 'teal', message: t('imports.done', { count: answer.created }) });
      reset();
      setResult(answer);
    }
  };
  /** Another asset for the same file (the one it belongs to): previewed again into it. */
  const switchAsset = (id: string) => {
    setAssetId(id);
    void runPreview({ ...(mapping && mappingComplete(mapping) ? { mapping } : {}), assetId: id });
  };
  const wrongAsset = wrongAssetSuggestion(action.error);

  const formatOptions = [...STATEMENT_FORMATS, 'pennypost' as const].map((f) => ({ value: f, label: t(`imports.formats.${f}`) }));
  const assetOptions = assets.active.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }));
  return (
    <Card id="set-statement" title={t('imports.title')} hint={t('imports.hint')} data-testid="statement-import">
      <InterruptedImports />
      <HiddenFileInput choice={fileInput} accept=".csv,.ofx,.qfx,.qif,.xml,.xlsx,.txt,text/csv" testId="statement-input" onFiles={(files) => void choose(files[0])} />
      {step === 'file' && (
        <Stack gap="sm">
          <DropZone onFiles={(files) => void choose(files[0])}>
            <Group justify="center" gap="sm">
              <Text size="sm">{file ? t('imports.chosen', { name: file.name, size: Math.max(1, Math.round(file.bytes.length / 1024)) }) : t('imports.drop')}</Text>
              <Button size="xs" variant={file ? 'default' : 'filled'} onClick={() => fileInput.open()}>
                {file ? t('imports.otherFile') : t('imports.chooseFile')}
              </Button>
            </Group>
          </DropZone>
          {assets.data && assets.active.length === 0 ? (
            <Alert color="yellow" role="status">
              {t('imports.noAssets')} <Link href="/assets">{t('imports.toAssets')}</Link>
            </Alert>
          ) : (
            <div className="pp-grid pp-grid-3" style={{ gap: 12 }}>
              <Select
                label={t('imports.format')}
                data={formatOptions}
                value={format}
                onChange={(v) => {
                  touched.current.format = true;
                  if (v) setFormat(v);
                  setLedgerFile(null);
                }}
                allowDeselect={false}
              />
              {format !== 'pennypost' && (
                <>
                  <Select
                    label={t('imports.asset')}
                    data={assetOptions}
                    value={asset?.id ?? null}
                    onChange={(v) => {
                      touched.current.asset = true;
                      setAssetId(v);
                    }}
                    allowDeselect={false}
                    searchable
                    description={belongs && belongs.id === asset?.id ? t('imports.belongs', { format: t(`imports.formats.${format}`) }) : undefined}
                  />
                  <Select label={t('imports.timeZone')} data={timeZones(zone)} value={zone} onChange={(v) => v && setZone(v)} allowDeselect={false} searchable limit={50} />
                </>
              )}
            </div>
          )}
          {!ledgerFile && (
            <Group>
              <Button onClick={() => void next()} disabled={!file || (format !== 'pennypost' && !asset) || sending !== null} loading={action.busy}>
                {format === 'csv' ? t('imports.toMapping') : t('imports.toPreview')}
              </Button>
            </Group>
          )}
        </Stack>
      )}
      {step === 'mapping' && described && mapping && (
        <CsvMappingStep
          described={described}
          mapping={mapping}
          onChange={setMapping}
          onReading={(reading) => void redescribe(reading)}
          busy={action.busy}
          onBack={() => {
            action.setError(null);
            setStep('file');
          }}
          onNext={() => {
            if (mappingComplete(mapping)) void runPreview({ mapping });
          }}
        />
      )}
      {step === 'preview' && preview && (
        <ImportPreview
          key={preview.token}
          preview={preview}
          fileName={file?.name ?? ''}
          assetId={asset?.id ?? ''}
          busy={action.busy}
          onCommit={(overrides) => void commit(overrides)}
          onUseAsset={switchAsset}
          onDateOrder={(dateOrder) => void runPreview({ dateOrder })}
          onBack={() => {
            action.setError(null);
            setPreview(null);
            setStep(format === 'csv' ? 'mapping' : 'file');
          }}
          onCancel={reset}
        />
      )}
      {sending && (
        <div style={{ marginTop: 12 }}>
          <Text size="sm" mb={4}>
            {t('imports.sending', { done: sending.done + 1, total: sending.total })}
          </Text>
          <Progress value={(sending.done / sending.total) * 100} aria-label={t('imports.sendingLabel')} animated />
        </div>
      )}
      <ErrorNote error={action.error} />
      {wrongAsset && (
        <Button size="xs" variant="light" onClick={() => switchAsset(wrongAsset.id)} data-testid="use-suggested-asset">
          {t('imports.useAsset', { name: wrongAsset.name })}
        </Button>
      )}
      {result && (
        <Alert color="teal" mt="sm" role="status" data-testid="statement-result" withCloseButton onClose={() => setResult(null)} closeButtonLabel={t('common.close')}>
          {t('imports.result', { count: result.created, created: result.created, alreadyImported: result.alreadyImported, leftOut: result.leftOut })}{' '}
          <Link href="/records">{t('imports.seeRecords')}</Link>
        </Alert>
      )}
      <div className="pp-import-own-wrap" style={{ marginTop: 16 }}>
        <LedgerCsvImport file={ledgerFile} />
      </div>
    </Card>
  );
}

/** The asset in the file's currency the server named when the chosen one keeps another (400 imports.wrongAsset). */
function wrongAssetSuggestion(error: ApiCallError | null): Belongs | null {
  if (!error || error.reason?.name !== 'imports.wrongAsset') return null;
  const data = error.data as { suggestedAsset?: Belongs } | null;
  return data?.suggestedAsset ?? null;
}
